"""Where online LDA's minibatch step goes (Hoffman, Blei and Bach 2010, Alg. 2): the E step, the M step
(``natural_gradient_step``) and the refresh of exp(E[log beta]), summed over shuffled passes, with the page faults
taken inside the loop (an allocation per call that the kernel does not reuse would show there). Run it at 1 and at
2 threads to see how each part scales.

    python benchmarks/profile_online_step.py --corpus <prepared corpus> --K 50 --batch-size 256 --threads 2
"""
import resource
import time

from bench_online_fit import minibatches, parse_args, warmed_up

from topicbench import kernels


def main():
    args = parse_args(__doc__, K=50, passes=3)
    lda, train = warmed_up(args)
    seconds = {"E step": 0.0, "M step": 0.0, "refresh": 0.0}
    faults, steps = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, 0
    for batch in minibatches(train, args):
        t0 = time.perf_counter()
        rho = lda.step_size()
        _, sstats, _ = lda.e_step(batch.counts)
        t1 = time.perf_counter()
        lda.lam = kernels.natural_gradient_step(lda.lam, rho, lda.eta, train.shape[0] / len(batch), sstats)
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
