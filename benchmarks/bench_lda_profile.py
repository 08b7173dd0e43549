"""Where online LDA (Hoffman, Blei and Bach 2010, Alg. 2) spends its fit time on a corpus: the E step (the numba
kernel), the M step (lambda's natural-gradient step over K x V) and exp(E[log beta]) over K x V, per minibatch,
in process CPU seconds (wall time on a shared machine includes waiting), with the E step's mean iterations per
document in each minibatch. One shuffled pass, the settings of bench_lda_speed.py (alpha = eta = 0.01, kappa = 0.7,
tau0 = 1, E step to mean |change in gamma| < 1e-3 or 100 iterations).

    python benchmarks/bench_lda_profile.py --corpus /tmp/tb/nyt_topmost /tmp/tb/wiki_bnpy --K 50 100
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from topicbench import kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch, stream_order


def profile(corpus, K, batch_size, threads, seed=0):
    train = corpus.split("train")
    lda = get_method("online_lda")(corpus.n_words, seed=seed, threads=threads, corpus_size=train.n_docs, K=K,
                                   batch_size=batch_size, kappa=0.7, tau0=1.0)
    order = stream_order("shuffled", train.n_docs, seed)
    batches = [train.rows(order[i:i + batch_size]) for i in range(0, len(order), batch_size)]
    lda.warm_up(Minibatch(batches[0][:2], order[:2], None, None, 0))  # compile off the clock (a deep copy fits)
    cpu = {"E step": 0.0, "M step": 0.0, "exp E[log beta]": 0.0}
    iterations = []
    for counts in batches:
        t0 = time.process_time()
        _, sstats, its = lda.e_step(counts)
        t1 = time.process_time()
        lda.lam = kernels.natural_gradient_step(lda.lam, lda.step_size(), lda.eta, train.n_docs / counts.shape[0], sstats)
        t2 = time.process_time()
        lda._refresh()
        cpu["E step"] += t1 - t0
        cpu["M step"] += t2 - t1
        cpu["exp E[log beta]"] += time.process_time() - t2
        lda.updates += 1
        iterations.append(float(np.mean(its)))
    words = np.mean([c.nnz / c.shape[0] for c in batches])
    return cpu, iterations, words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", required=True)
    parser.add_argument("--K", type=int, nargs="+", default=[100])
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    kernels.set_threads(args.threads)
    print("| corpus | K | distinct words/doc | E step CPU s | M step CPU s | exp E[log beta] CPU s | E-step share "
          "| E-step iterations/doc, per minibatch |\n|---|---|---|---|---|---|---|---|")
    for path in args.corpus:
        corpus = load_corpus(path)
        for K in args.K:
            cpu, its, words = profile(corpus, K, args.batch_size, args.threads)
            print(f"| {corpus.meta.get('name')} | {K} | {words:.0f} | {cpu['E step']:.2f} | {cpu['M step']:.2f} | "
                  f"{cpu['exp E[log beta]']:.2f} | {cpu['E step'] / sum(cpu.values()):.0%} | "
                  f"{', '.join(f'{x:.0f}' for x in its)} |", flush=True)


if __name__ == "__main__":
    main()
