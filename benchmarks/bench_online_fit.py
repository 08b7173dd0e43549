"""Online LDA's fit alone (Hoffman, Blei and Bach 2010, Alg. 2): wall and CPU seconds of ``partial_fit`` over shuffled
passes, and the sum of lambda, so two checkouts can be compared pair by pair (an A/B of a kernel change: run it with
PYTHONPATH on each checkout in turn; equal lambda sums say the numbers did not move).

    PYTHONPATH=<checkout> python benchmarks/bench_online_fit.py --corpus <prepared corpus> --K 100 --batch-size 256
"""
import argparse
import time

import numpy as np

from topicbench import kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch


def parse_args(doc: str, K: int, passes: int = 5):
    """The options the online LDA scripts share (corpus, K, minibatch size, threads, passes)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--K", type=int, default=K)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=passes)
    return parser.parse_args()


def warmed_up(args):
    """(online LDA at the benchmark's settings, compiled off the clock; the training counts)."""
    kernels.set_threads(args.threads)
    train = load_corpus(args.corpus).split("train").counts
    n_docs, n_words = train.shape
    cls = get_method("online_lda")
    lda = cls(n_words, seed=0, threads=args.threads, corpus_size=n_docs, **cls.resolve_params(
        {"K": args.K, "batch_size": args.batch_size, "alpha": 0.01, "eta": 0.01, "kappa": 0.7, "tau0": 1.0}))
    lda.warm_up(Minibatch(train[:2], np.arange(2), None, None, 0))
    return lda, train


def minibatches(train, args):
    """The minibatches of ``args.passes`` shuffled passes (pass p shuffled by seed p), as Minibatch objects."""
    n_docs = train.shape[0]
    for epoch in range(args.passes):
        order = np.random.default_rng(epoch).permutation(n_docs)
        for start in range(0, n_docs, args.batch_size):
            rows = order[start:start + args.batch_size]
            yield Minibatch(train[rows], rows, None, None, 0)


def main():
    args = parse_args(__doc__, K=100)
    lda, train = warmed_up(args)
    wall = cpu = 0.0
    for batch in minibatches(train, args):
        t0, c0 = time.perf_counter(), time.process_time()
        lda.partial_fit(batch)
        wall, cpu = wall + time.perf_counter() - t0, cpu + time.process_time() - c0
    print(f"fit wall {wall:.3f} s, CPU {cpu:.3f} s, sum of lambda {np.sum(lda.lam):.10e}")


if __name__ == "__main__":
    main()
