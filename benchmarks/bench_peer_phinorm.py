"""Why gensim's and scikit-learn's LDA trail online LDA at tau0 = 1: their phinorm guard (issue 14, RESULTS.md).

Both peers' E steps divide by phinorm + machine epsilon (2.2e-16); Hoffman's onlineldavb.py and online_lda add 1e-100.
At tau0 = 1 the first step has rho_0 = 1 and replaces lambda_0, so every word absent from the first minibatch keeps
lambda_kw = eta; at eta = 0.01, exp E[log beta_kw] ~ 1e-48 sits under the peers' guard, and its tokens get almost no
responsibility (tests/test_peer_equations.py::test_peer_phinorm_floor_drops_words_the_first_step_left_at_eta).

This runs, per corpus, minibatch size and seed, through topicbench.run.run with one thread and the speed benchmark's
settings: online_lda; each peer as shipped; each peer with only that guard set to 1e-100 (the E step's source with the
one line changed, executed in the library's module, so in-process: n_jobs = 1); and each peer with its other difference
from Alg. 2, gamma_0 ~ Gamma(100, 1/100) instead of 1, changed too. If these explain the gap, the changed peers score as
online_lda does. Fit times are printed to show the guard does not change the cost.

    python benchmarks/bench_peer_phinorm.py --corpus /tmp/s12/corp/nyt_topmost /tmp/s12/corp/wiki_bnpy
"""
import argparse
import inspect
import textwrap

import numpy as np
import sklearn.decomposition._lda as sklearn_lda_module
from gensim.models import ldamodel

from topicbench.run import RunSpec, run

# Each peer's E step (owner, attribute) and, by name, the shipped line of each of its two differences from Alg. 2 with
# the line Alg. 2 reads: "guard", phinorm + 1e-100 as in Hoffman's code; "start", gamma_0 = 1 instead of Gamma(100, 1/100)
E_STEPS = {
    "sklearn_lda": (sklearn_lda_module, "_update_doc_distribution", {
        "guard": ("eps = np.finfo(X.dtype).eps", "eps = 1e-100"),
        "start": ("random_state.gamma(100.0, 0.01, (n_samples, n_topics))", "np.ones((n_samples, n_topics))")}),
    "gensim_lda": (ldamodel.LdaModel, "inference", {
        "guard": ("epsilon = np.finfo(self.dtype).eps", "epsilon = 1e-100"),
        "start": ("self.random_state.gamma(100., 1. / 100., (len(chunk), self.num_topics))",
                  "np.ones((len(chunk), self.num_topics))")}),
}
SHIPPED = {peer: getattr(owner, name) for peer, (owner, name, _) in E_STEPS.items()}


def with_lines(function, changes: dict[str, str]):
    """``function`` recompiled in its module from its source with each shipped line of ``changes`` replaced."""
    source = inspect.getsource(function)
    for shipped, changed in changes.items():
        if source.count(shipped) != 1:
            raise SystemExit(f"{function.__qualname__} no longer reads {shipped!r}: update this script")
        source = source.replace(shipped, changed)
    namespace = dict(inspect.getmodule(function).__dict__)
    exec(compile(textwrap.dedent(source), "<alg2>", "exec"), namespace)  # a method's source is indented
    return namespace[function.__name__]


def patch(peer: str | None = None, differences: tuple[str, ...] = ()) -> None:
    """Every peer's E step as shipped, then ``peer``'s with the named ``differences`` ("guard", "start") removed."""
    for name, (owner, attribute, _) in E_STEPS.items():
        setattr(owner, attribute, SHIPPED[name])
    if peer is not None and differences:
        owner, attribute, lines = E_STEPS[peer]
        setattr(owner, attribute, with_lines(SHIPPED[peer], dict(lines[d] for d in differences)))


# label, method, the differences removed
VARIANTS = [
    ("online_lda", "online_lda", ()),
    ("sklearn as shipped", "sklearn_lda", ()),
    ("sklearn, guard 1e-100", "sklearn_lda", ("guard",)),
    ("sklearn, guard 1e-100 and gamma_0 = 1", "sklearn_lda", ("guard", "start")),
    ("gensim as shipped", "gensim_lda", ()),
    ("gensim, guard 1e-100", "gensim_lda", ("guard",)),
    ("gensim, guard 1e-100 and gamma_0 = 1", "gensim_lda", ("guard", "start")),
]


def fit(corpus, method, batch_size, seed, passes, K):
    spec = RunSpec(method=method, params={"K": K, "batch_size": batch_size, "kappa": 0.7, "tau0": 1.0}, seed=seed,
                   threads=1, passes=passes, n_checkpoints=1, report_elbo=False, experiment="bench_peer_phinorm")
    last = run(spec, corpus, progress_every_s=1e9)[0].iloc[-1]
    return float(last["loglik_per_word"]), float(last["fit_wall_s"]), float(last["unigram_loglik_per_word"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", required=True)
    parser.add_argument("--batch-size", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--passes", type=float, default=1.0)
    parser.add_argument("--K", type=int, default=50)
    args = parser.parse_args()
    print("| corpus | minibatch | variant | held-out loglik/word, mean | minus online_lda, per seed | fit s, median |")
    print("|---|---|---|---|---|---|")
    for corpus in args.corpus:
        for batch_size in args.batch_size:
            scores = {label: [] for label, _, _ in VARIANTS}
            walls = {label: [] for label, _, _ in VARIANTS}
            for seed in range(args.seeds):
                for label, method, differences in VARIANTS:
                    patch(method, differences)
                    score, wall, unigram = fit(corpus, method, batch_size, seed, args.passes, args.K)
                    scores[label].append(score)
                    walls[label].append(wall)
            patch()
            base = np.array(scores["online_lda"])
            name = f"{corpus.rstrip('/').rsplit('/', 1)[-1]} (unigram {unigram:.4f})"
            for label, _, _ in VARIANTS:
                diff = ", ".join(f"{d:+.3f}" for d in np.array(scores[label]) - base)
                print(f"| {name} | {batch_size} | {label} | {np.mean(scores[label]):.4f} | {diff} | "
                      f"{np.median(walls[label]):.2f} |", flush=True)


if __name__ == "__main__":
    main()
