"""Documents per second of streaming VB, population VB and online LDA (reference) through the runner.

All three share the numba E-step (topicbench.kernels.lda_e_step); streaming VB runs it once per inner
batch-VB round, so its cost per document is about (mean inner rounds) x online LDA's. Fit time only
(the runner's clocks exclude evaluation). On a shared machine wall time includes waiting for a core;
process CPU time does not, so both are reported.

    topicbench prepare nyt_like --out /tmp/nyt_like
    python benchmarks/bench_stream_speed.py --corpus /tmp/nyt_like --docs 4096 --threads 1 2

``--paired`` (issue 14): streaming VB against online LDA on the same minibatches in the same run, each of
streaming VB's minibatches followed by online LDA's, so both see the same load; per seed the ratio of their fit
times over the stream (and over minibatches 2-n, past streaming VB's long first minibatch), then the held-out log
predictive of both (the runner's protocol: halves, eval seed 0). Numba is warmed up on a small minibatch first.

    python benchmarks/bench_stream_speed.py --corpus /tmp/peers_data/nyt_like --paired --docs 20480 --batch-size 1024 \
        --threads 2 --seeds 0 1 2
"""
from __future__ import annotations

import argparse


import time

import numpy as np
import scipy.sparse as sp

from topicbench.corpus import load_corpus
from topicbench.evaluate import Protocol, loglik_per_word, protocol_splits
from topicbench.method import get_method
from topicbench.run import RunSpec, run
from topicbench.streams import Minibatch

METHODS = {
    "streaming_vb": {},
    "population_vb": {"log10_population": 6.0},
    "online_lda": {},
}


def measure(corpus, method, params, docs, threads, stream):
    spec = RunSpec(method=method, params=params, stream=stream, max_docs=docs, holdout="fixed", n_checkpoints=1,
                   max_test_docs=10, report_elbo=False, threads=threads)
    trace, fitted = run(spec, corpus, progress_every_s=1e9)
    last = trace.iloc[-1]
    return last["docs_seen"], last["fit_wall_s"], last["fit_cpu_s"], last.get("x_mean_inner_iterations")


def timed(method, batch):
    wall, cpu = time.perf_counter(), time.process_time()
    method.partial_fit(batch)
    return time.perf_counter() - wall, time.process_time() - cpu


def paired(corpus, args):
    """Streaming VB vs online LDA, minibatch by minibatch, per seed; prints one table row per seed and the medians."""
    train = sp.csr_matrix(corpus.split("train").counts, dtype=np.float64)
    n_train, n_words = train.shape
    splits = protocol_splits(sp.csr_matrix(corpus.split("test").counts, dtype=np.float64), Protocol())
    common = {"K": args.K, "batch_size": args.batch_size}
    batches = min(args.docs, n_train) // args.batch_size

    def make(seed):
        return (get_method("streaming_vb")(n_words, seed=seed, threads=args.threads[0], **common),
                get_method("online_lda")(n_words, seed=seed, threads=args.threads[0], corpus_size=n_train, **common))

    for method in make(0):  # warm-up: compile or load the numba kernels outside the clocks
        method.partial_fit(Minibatch(train[:64], np.arange(64), np.arange(64), None, 0))
    print(f"| seed | minibatches | streaming VB fit s (first; rest) | online LDA fit s (first; rest) | ratio, whole stream "
          f"| ratio, minibatches 2-{batches} | rounds per minibatch | held-out loglik/word SVB | online LDA |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for seed in args.seeds:
        order = np.random.default_rng(seed).permutation(n_train)
        svb, lda = make(seed)
        times, rounds = [], []
        for b in range(batches):
            ids = np.sort(order[b * args.batch_size:(b + 1) * args.batch_size])
            batch = Minibatch(train[ids], ids, ids, None, b)
            times.append((timed(svb, batch)[0], timed(lda, batch)[0]))
            rounds.append(svb.last_inner_iterations)
        t = np.array(times)
        whole, rest = t[:, 1].sum() / t[:, 0].sum(), t[1:, 1].sum() / t[1:, 0].sum()
        ll_svb, ll_lda = loglik_per_word(svb, splits)[0], loglik_per_word(lda, splits)[0]
        rows.append((whole, rest, ll_svb, ll_lda))
        print(f"| {seed} | {batches} | {t[0, 0]:.2f}; {t[1:, 0].sum():.2f} | {t[0, 1]:.2f}; {t[1:, 1].sum():.2f} | {whole:.3f} "
              f"| {rest:.3f} | {' '.join(map(str, rounds))} | {ll_svb:.4f} | {ll_lda:.4f} |", flush=True)
    med = np.median(np.array(rows), axis=0)
    print(f"| median | | | | {med[0]:.3f} | {med[1]:.3f} | | {med[2]:.4f} | {med[3]:.4f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--docs", type=int, default=4096)
    parser.add_argument("--K", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--stream", default="shuffled")
    parser.add_argument("--paired", action="store_true", help="streaming VB vs online LDA, paired per minibatch")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    corpus = load_corpus(args.corpus)
    if args.paired:
        paired(corpus, args)
        return
    common = {"K": args.K, "batch_size": args.batch_size}
    for method, extra in METHODS.items():  # warm-up: load the numba cache outside the clocks
        measure(corpus, method, {**common, **extra}, args.batch_size, 1, args.stream)
    print("| method | threads | docs | fit wall s | docs/s (wall) | fit CPU s | docs per CPU s | notes |")
    print("|---|---|---|---|---|---|---|---|")
    for threads in args.threads:
        for method, extra in METHODS.items():
            docs, wall, cpu, inner = measure(corpus, method, {**common, **extra}, args.docs, threads, args.stream)
            note = f"mean batch-VB rounds per minibatch: {inner:.1f}" if method == "streaming_vb" else ""
            print(f"| {method} | {threads} | {docs} | {wall:.1f} | {docs / wall:.1f} | {cpu:.1f} | {docs / cpu:.1f} | {note} |",
                  flush=True)


if __name__ == "__main__":
    main()
