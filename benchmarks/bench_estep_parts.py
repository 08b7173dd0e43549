"""What one iteration of the LDA E step's sparse sweep costs, part by part, against what the hardware allows.

Once a document's gamma has concentrated, each E-step iteration (Hoffman, Blei and Bach 2010, Alg. 2, eqs. 5-6 with
phi kept implicit) is ``_topic_sweep`` over the a active topics of the document's n distinct words, plus
exp(E[log theta]) of those topics (``_exp_theta_block``): phinorm_w = sum_k exp_theta_k exp_beta_kw (a x n
multiply-adds), n divisions n_w / phinorm_w, the new gamma_k = sum_w (n_w / phinorm_w) exp_beta_kw (a x n
multiply-adds), a sum and a min over the words. Each part is timed here in a compiled loop (the kernels' own
inlined helpers, compiled with the E step's flags), on arrays of a document's size, so the per-call cost excludes
Python; the table gives ns per call and the multiply-adds per ns of the two products. A product that loads one
double per multiply-add is bound by the loads, not the FMA units: that rate is the ceiling of the float64 kernel.

    python benchmarks/bench_estep_parts.py --words 265 --active 8 12 16

With ``--corpus`` it also times the whole E step (``kernels.lda_e_step``, one thread, process CPU, min of 5) on the
fifth minibatch of 1024 documents of a shuffled pass, with the lambda online LDA has after the first four (the
settings of bench_lda_speed.py), and divides by the iterations, next to the kernel's own count of sweeps over all K
topics and of active topics: the gap between that and the parts above is what a document costs beyond its sweeps
(its first sweeps over all K topics, reading its words' rows of exp E[log beta] from memory; choosing the topics;
the sufficient statistics).

    python benchmarks/bench_estep_parts.py --words 264 --active 8 12 --corpus /tmp/tb/wiki_bnpy --K 50 100
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from topicbench.kernels.dense import _LOOP, _dot4, _weighted_rows
from topicbench.kernels.lda_estep import _topic_sweep
from topicbench.kernels.special import _digamma_one_division, _exp_theta_block


@njit(**_LOOP)
def _repeat_sweep(reps, cts, sub, rows, theta, new_gamma, phinorm, weight, scratch):
    acc = 0.0
    for _ in range(reps):
        acc += _topic_sweep(cts, sub, rows, theta, new_gamma, phinorm, weight, scratch)[0]
    return acc


@njit(**_LOOP)
def _repeat_phinorm(reps, theta, sub, rows, phinorm):
    for _ in range(reps):
        _weighted_rows(theta, sub, rows, phinorm)
    return phinorm[0]


@njit(**_LOOP)
def _repeat_divide(reps, cts, phinorm, weight):
    for _ in range(reps):
        for j in range(cts.shape[0]):
            weight[j] = cts[j] / phinorm[j]
    return weight[0]


@njit(**_LOOP)
def _repeat_gamma(reps, weight, sub, rows, new_gamma):
    for _ in range(reps):
        a = 0
        while a + 4 <= rows.shape[0]:
            new_gamma[a], new_gamma[a + 1], new_gamma[a + 2], new_gamma[a + 3] = _dot4(
                weight, sub[rows[a]], sub[rows[a + 1]], sub[rows[a + 2]], sub[rows[a + 3]])
            a += 4
    return new_gamma[0]


@njit(**_LOOP)
def _repeat_exp_theta(reps, gamma, exp_theta, bits):
    for _ in range(reps):
        _exp_theta_block(gamma, _digamma_one_division(np.sum(gamma)), exp_theta, bits)
    return exp_theta[0]


def best_ns(fn, args, reps, repeats=7):
    fn(10, *args)  # compile
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn(reps, *args)
        best = min(best, time.process_time() - t0)
    return best / reps * 1e9


def whole_e_step(path, K, threads=1, repeats=5):
    """(CPU s, iterations, diagnostics, words per document) of one E step on the fifth minibatch of a shuffled pass."""
    from topicbench import kernels
    from topicbench.corpus import load_corpus
    from topicbench.method import get_method
    from topicbench.streams import stream_order

    corpus = load_corpus(path)
    train = corpus.split("train")
    lda = get_method("online_lda")(corpus.n_words, seed=0, threads=threads, corpus_size=train.n_docs, K=K,
                                   batch_size=1024, kappa=0.7, tau0=1.0, alpha=0.01, eta=0.01)
    order = stream_order("shuffled", train.n_docs, 0)
    batches = [train.rows(order[i:i + 1024]) for i in range(0, 5 * 1024, 1024)]
    for counts in batches[:4]:
        _, sstats, _ = lda.e_step(counts)
        lda.lam = kernels.natural_gradient_step(lda.lam, lda.step_size(), lda.eta, train.n_docs / 1024, sstats)
        lda._refresh()
        lda.updates += 1
    kernels.set_threads(threads)
    best = np.inf
    for _ in range(repeats):
        diagnostics = {}
        t0 = time.process_time()
        _, _, iterations = kernels.lda_e_step(batches[4], lda.exp_elog_beta, lda.alpha, 100, 1e-3,
                                              diagnostics=diagnostics)
        best = min(best, time.process_time() - t0)
    return best, int(iterations.sum()), diagnostics, batches[4].nnz / batches[4].shape[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=265, help="distinct words of the document (wiki_bnpy: 264)")
    parser.add_argument("--active", type=int, nargs="+", default=[12], help="active topics (a multiple of 4)")
    parser.add_argument("--reps", type=int, default=200_000)
    parser.add_argument("--corpus", nargs="*", default=[], help="prepared corpora: time the whole E step too")
    parser.add_argument("--K", type=int, nargs="+", default=[50])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.words
    cts = rng.integers(1, 4, n).astype(np.float64)
    print("| words | active topics | whole sweep ns | phinorm ns (FMA/ns) | divisions ns | new gamma ns (FMA/ns) | "
          "sum + min ns (rest) | exp E[log theta], lanes, ns |\n|---|---|---|---|---|---|---|---|")
    for a in args.active:
        sub = rng.random((a, n)) * 1e-3
        rows = np.arange(a)
        theta = rng.random(a)
        new_gamma, phinorm, weight = np.empty(a), np.empty(n), np.empty(n)
        scratch = np.empty(1, dtype=np.int64)
        lanes = (a + 7) // 8 * 8
        gamma = rng.random(lanes) * 10 + 0.01
        sweep = best_ns(_repeat_sweep, (cts, sub, rows, theta, new_gamma, phinorm, weight, scratch), args.reps)
        norm = best_ns(_repeat_phinorm, (theta, sub, rows, phinorm), args.reps)
        divide = best_ns(_repeat_divide, (cts, phinorm + 1.0, weight), args.reps)
        dots = best_ns(_repeat_gamma, (weight, sub, rows, new_gamma), args.reps)
        exp_theta = best_ns(_repeat_exp_theta, (gamma, np.empty(lanes), np.empty(lanes, dtype=np.int64)), args.reps)
        print(f"| {n} | {a} | {sweep:.0f} | {norm:.0f} ({a * n / norm:.1f}) | {divide:.0f} | {dots:.0f} ({a * n / dots:.1f}) | "
              f"{sweep - norm - divide - dots:.0f} | {lanes}: {exp_theta:.0f} |", flush=True)

    if args.corpus:
        print("\n| corpus | K | words/doc | E step CPU s (1 thread) | iterations | ns per iteration | sweeps over all K "
              "| mean active topics of the other sweeps |\n|---|---|---|---|---|---|---|---|")
    for path in args.corpus:
        for K in args.K:
            cpu, iterations, d, words = whole_e_step(path, K)
            print(f"| {Path(path).name} | {K} | {words:.0f} | {cpu:.3f} | {iterations} | {cpu / iterations * 1e9:.0f} | "
                  f"{d['dense_sweeps'] / (d['dense_sweeps'] + d['sparse_sweeps']):.0%} | "
                  f"{d['active_topics_swept'] / max(d['sparse_sweeps'], 1):.1f} |", flush=True)


if __name__ == "__main__":
    main()
