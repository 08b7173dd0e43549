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

SKLEARN_GUARD = "eps = np.finfo(X.dtype).eps"
GENSIM_GUARD = "epsilon = np.finfo(self.dtype).eps"
SKLEARN_E_STEP = sklearn_lda_module._update_doc_distribution
GENSIM_E_STEP = ldamodel.LdaModel.inference


GENSIM_START = "gamma = self.random_state.gamma(100., 1. / 100., (len(chunk), self.num_topics))"


def with_lines(function, module_namespace: dict, changes: dict[str, str]):
    """``function`` recompiled from its source with each shipped line of ``changes`` replaced (nothing else changed)."""
    source = inspect.getsource(function)
    for shipped, changed in changes.items():
        if source.count(shipped) != 1:
            raise SystemExit(f"{function.__qualname__} no longer reads {shipped!r}: update this script")
        source = source.replace(shipped, changed)
    namespace = dict(module_namespace)
    exec(compile(textwrap.dedent(source), "<guarded>", "exec"), namespace)  # a method's source is indented
    return namespace[function.__name__]


class OnesStart:
    """Stands in for the RandomState sklearn's fitting E step draws gamma_0 from: gamma_0 = 1, as Alg. 2 starts."""

    def gamma(self, shape, scale, size):
        return np.ones(size)


def sklearn_e_step(guard: bool, gamma_start_one: bool):
    e_step = (with_lines(SKLEARN_E_STEP, sklearn_lda_module.__dict__, {SKLEARN_GUARD: "eps = 1e-100"}) if guard
              else SKLEARN_E_STEP)
    if not gamma_start_one:
        return e_step

    def started_at_one(X, exp_topic_word, prior, max_iter, tol, cal_sstats, random_state):
        return e_step(X, exp_topic_word, prior, max_iter, tol, cal_sstats, None if random_state is None else OnesStart())
    return started_at_one


def gensim_inference(gamma_start_one: bool):
    changes = {GENSIM_GUARD: "epsilon = 1e-100"}
    if gamma_start_one:
        changes[GENSIM_START] = "gamma = np.ones((len(chunk), self.num_topics))"
    return with_lines(GENSIM_E_STEP, ldamodel.__dict__, changes)


# label, method, sklearn's E step change (guard, gamma_0 = 1), gensim's (gamma_0 = 1 besides the guard)
VARIANTS = [
    ("online_lda", "online_lda", None, None),
    ("sklearn as shipped", "sklearn_lda", None, None),
    ("sklearn, guard 1e-100", "sklearn_lda", (True, False), None),
    ("sklearn, guard 1e-100 and gamma_0 = 1", "sklearn_lda", (True, True), None),
    ("gensim as shipped", "gensim_lda", None, None),
    ("gensim, guard 1e-100", "gensim_lda", None, False),
    ("gensim, guard 1e-100 and gamma_0 = 1", "gensim_lda", None, True),
]


def patch(sklearn_change, gensim_change) -> None:
    sklearn_lda_module._update_doc_distribution = SKLEARN_E_STEP if sklearn_change is None else sklearn_e_step(*sklearn_change)
    ldamodel.LdaModel.inference = GENSIM_E_STEP if gensim_change is None else gensim_inference(gensim_change)


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
            scores = {label: [] for label, *_ in VARIANTS}
            walls = {label: [] for label, *_ in VARIANTS}
            for seed in range(args.seeds):
                for label, method, sklearn_change, gensim_change in VARIANTS:
                    patch(sklearn_change, gensim_change)
                    score, wall, unigram = fit(corpus, method, batch_size, seed, args.passes, args.K)
                    scores[label].append(score)
                    walls[label].append(wall)
            patch(None, None)
            base = np.array(scores["online_lda"])
            name = f"{corpus.rstrip('/').rsplit('/', 1)[-1]} (unigram {unigram:.4f})"
            for label, *_ in VARIANTS:
                diff = ", ".join(f"{d:+.3f}" for d in np.array(scores[label]) - base)
                print(f"| {name} | {batch_size} | {label} | {np.mean(scores[label]):.4f} | {diff} | "
                      f"{np.median(walls[label]):.2f} |", flush=True)


if __name__ == "__main__":
    main()
