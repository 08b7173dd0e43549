"""Where online LDA's minibatch step goes (Hoffman, Blei and Bach 2010, Alg. 2): the E step, the M step
(``natural_gradient_step``) and the refresh of exp(E[log beta]), summed over shuffled passes, with the page faults
taken inside the loop (an allocation per call that the kernel does not reuse would show there). Run it at 1 and at
2 threads to see how each part scales.

    python benchmarks/profile_online_step.py --corpus <prepared corpus> --K 50 --batch-size 256 --threads 2
"""
import argparse
import resource
import time

import numpy as np

from topicbench import kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--K", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    kernels.set_threads(args.threads)
    train = load_corpus(args.corpus).split("train").counts
    n_docs, n_words = train.shape
    cls = get_method("online_lda")
    lda = cls(n_words, seed=0, threads=args.threads, corpus_size=n_docs, **cls.resolve_params(
        {"K": args.K, "batch_size": args.batch_size, "alpha": 0.01, "eta": 0.01, "kappa": 0.7, "tau0": 1.0}))
    lda.warm_up(Minibatch(train[:2], np.arange(2), None, None, 0))  # compile off the clock
    seconds = {"E step": 0.0, "M step": 0.0, "refresh": 0.0}
    faults, steps = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, 0
    for epoch in range(args.passes):
        order = np.random.default_rng(epoch).permutation(n_docs)
        for start in range(0, n_docs, args.batch_size):
            counts = train[order[start:start + args.batch_size]]
            t0 = time.perf_counter()
            rho = lda.step_size()
            _, sstats, _ = lda.e_step(counts)
            t1 = time.perf_counter()
            lda.lam = kernels.natural_gradient_step(lda.lam, rho, lda.eta, n_docs / counts.shape[0], sstats)
            t2 = time.perf_counter()
            lda._refresh()
            t3 = time.perf_counter()
            lda.updates += 1
            steps += 1
            for part, took in zip(seconds, (t1 - t0, t2 - t1, t3 - t2)):
                seconds[part] += took
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    print(f"{args.threads} thread(s), {steps} steps: " + ", ".join(f"{p} {s:.3f} s" for p, s in seconds.items())
          + f", total {sum(seconds.values()):.3f} s; minor page faults in the loop {faults}")


if __name__ == "__main__":
    main()
