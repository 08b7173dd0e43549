"""Why scikit-learn's LDA trails online LDA at tau0 = 1: its phinorm guard (issue 14, RESULTS.md).

sklearn's E step divides by phinorm + machine epsilon (2.2e-16); Hoffman's onlineldavb.py and online_lda add 1e-100.
At tau0 = 1 the first step has rho_0 = 1 and replaces lambda_0, so every word absent from the first minibatch keeps
lambda_kw = eta; at eta = 0.01, exp E[log beta_kw] ~ 1e-48 sits under sklearn's guard, and its tokens get almost no
responsibility (tests/test_peer_equations.py::test_sklearn_phinorm_floor_drops_words_the_first_step_left_at_eta).

This runs, per corpus, minibatch size and seed, through topicbench.run.run with one thread and the speed benchmark's
settings: online_lda, sklearn_lda as shipped, sklearn_lda with only that guard set to 1e-100 (its E step's source
with the one line changed, executed in sklearn's module, so n_jobs = 1), and with the guard and its other difference
from Alg. 2, gamma_0 ~ Gamma(100, 1/100) instead of 1, both changed. If these explain the gap, the last scores as
online_lda does. Fit times are printed to show the guard does not change the cost.

    python benchmarks/bench_sklearn_phinorm.py --corpus /tmp/s12/corp/nyt_topmost /tmp/s12/corp/wiki_bnpy
"""
import argparse
import inspect

import numpy as np
import sklearn.decomposition._lda as sklearn_lda_module

from topicbench.run import RunSpec, run

SHIPPED_GUARD = "eps = np.finfo(X.dtype).eps"
SHIPPED = sklearn_lda_module._update_doc_distribution


class OnesStart:
    """Stands in for the RandomState sklearn's fitting E step draws gamma_0 from: gamma_0 = 1, as Alg. 2 starts."""

    def gamma(self, shape, scale, size):
        return np.ones(size)


def set_e_step(hoffman_guard: bool, gamma_start_one: bool) -> None:
    """sklearn's E step as shipped, or with the guard 1e-100 and/or gamma_0 = 1 (nothing else changed)."""
    e_step = SHIPPED
    if hoffman_guard:
        source = inspect.getsource(SHIPPED)
        if source.count(SHIPPED_GUARD) != 1:
            raise SystemExit(f"this sklearn's _update_doc_distribution no longer reads {SHIPPED_GUARD!r}: update the script")
        namespace = dict(sklearn_lda_module.__dict__)
        exec(source.replace(SHIPPED_GUARD, "eps = 1e-100"), namespace)
        e_step = namespace["_update_doc_distribution"]
    if gamma_start_one:
        guarded = e_step

        def e_step(X, exp_topic_word, prior, max_iter, tol, cal_sstats, random_state):
            return guarded(X, exp_topic_word, prior, max_iter, tol, cal_sstats,
                           None if random_state is None else OnesStart())
    sklearn_lda_module._update_doc_distribution = e_step


def fit(corpus, method, batch_size, seed, passes, K):
    spec = RunSpec(method=method, params={"K": K, "batch_size": batch_size, "kappa": 0.7, "tau0": 1.0}, seed=seed,
                   threads=1, passes=passes, n_checkpoints=1, report_elbo=False, experiment="bench_sklearn_phinorm")
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
    variants = (("online_lda", "online_lda", (False, False)), ("sklearn as shipped", "sklearn_lda", (False, False)),
                ("sklearn, guard 1e-100", "sklearn_lda", (True, False)),
                ("sklearn, guard 1e-100 and gamma_0 = 1", "sklearn_lda", (True, True)))
    print("| corpus | minibatch | " + " | ".join(label for label, _, _ in variants) + " | shipped - online_lda, per seed "
          "| guard 1e-100 - online_lda, per seed | guard 1e-100 and gamma_0 = 1 - online_lda, per seed "
          "| fit s, shipped / guard 1e-100 (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for corpus in args.corpus:
        for batch_size in args.batch_size:
            scores = {label: [] for label, _, _ in variants}
            walls = {label: [] for label, _, _ in variants}
            for seed in range(args.seeds):
                for label, method, changes in variants:
                    set_e_step(*changes)
                    score, wall, unigram = fit(corpus, method, batch_size, seed, args.passes, args.K)
                    scores[label].append(score)
                    walls[label].append(wall)
            set_e_step(False, False)
            base = np.array(scores["online_lda"])
            diff = {label: ", ".join(f"{d:+.3f}" for d in np.array(scores[label]) - base) for label in scores}
            ratio = np.median(np.array(walls["sklearn as shipped"]) / np.array(walls["sklearn, guard 1e-100"]))
            means = " | ".join(f"{np.mean(scores[label]):.4f}" for label, _, _ in variants)
            print(f"| {corpus.rstrip('/').rsplit('/', 1)[-1]} (unigram {unigram:.4f}) | {batch_size} | {means} | "
                  f"{diff['sklearn as shipped']} | {diff['sklearn, guard 1e-100']} | "
                  f"{diff['sklearn, guard 1e-100 and gamma_0 = 1']} | {ratio:.2f} |", flush=True)


if __name__ == "__main__":
    main()
