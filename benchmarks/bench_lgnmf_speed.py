"""Cost of LG-NMF (Hu et al. 2014) against variational LDA at the same K, through the runner.

LG-NMF fits one MAP per grid point of its hyperparameter (sec. 3.4), one after another here, so its cost
grows with the grid size M; the paper ran the M fits in parallel and timed one. This reports, for M = 1 and
the default M = 10: seconds per batch pass (HALS block cycle, sec. 3.1) against batch VB LDA, and documents
per second of the online mode (sec. 4: 25 projected-gradient steps per minibatch) against online LDA.
Fit time only (evaluation excluded); process CPU time beside wall time (the machine is shared).

    topicbench prepare nyt_like --out /tmp/tb/nyt_like
    python benchmarks/bench_lgnmf_speed.py --corpus /tmp/tb/nyt_like --docs 2000 --K 50 --batch-size 256
    python benchmarks/bench_lgnmf_speed.py --corpus /tmp/tb/nyt_like --docs 4096 --K 100 --batch-size 1024 --threads 2 --passes 1

Streaming VB (Broderick et al. 2013) runs in the online block too: its minibatch is batch VB to convergence.
"""
from __future__ import annotations

import argparse

from topicbench.corpus import load_corpus
from topicbench.run import RunSpec, run


def measure(corpus, method, params, docs, passes, threads=1):
    spec = RunSpec(method=method, params=params, stream="shuffled", train_subset=docs, passes=passes, holdout="fixed",
                   n_checkpoints=1, max_test_docs=10, report_elbo=False, threads=threads)
    trace, _ = run(spec, corpus, progress_every_s=1e9)
    last = trace.iloc[-1]
    return int(last["docs_seen"]), float(last["fit_wall_s"]), float(last["fit_cpu_s"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--docs", type=int, default=2000, help="training documents (a subset of the train split)")
    parser.add_argument("--K", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=256, help="minibatch of the online modes")
    parser.add_argument("--passes", type=int, default=3, help="passes of the batch modes")
    parser.add_argument("--grid-sizes", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    corpus = load_corpus(args.corpus)
    K, S = args.K, args.batch_size
    runs = [("batch", "batch_lda", {"K": K}, args.passes),
            *[("batch", "lgnmf", {"K": K, "grid_size": m}, args.passes) for m in args.grid_sizes],
            ("online", "online_lda", {"K": K, "batch_size": S, "kappa": 0.7, "tau0": 16.0}, 1),
            ("online", "streaming_vb", {"K": K, "batch_size": S}, 1),
            *[("online", "lgnmf", {"K": K, "grid_size": m, "batch_size": S}, 1) for m in args.grid_sizes]]
    for mode, method, params, _ in runs:  # warm-up: numba cache and imports outside the clocks
        measure(corpus, method, params, min(args.docs, 2 * S), 1, args.threads)
    print("| mode | method | grid size M | docs | fit wall s | fit CPU s | docs/s (wall) | docs/s (CPU) | "
          "docs/s per grid point (CPU) | wall time / LDA's |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    reference = {}
    for mode, method, params, passes in runs:
        docs, wall, cpu = measure(corpus, method, params, args.docs, passes, args.threads)
        reference.setdefault(mode, wall)
        m = params.get("grid_size", 1)
        print(f"| {mode} | {method} | {m if method == 'lgnmf' else ''} | {docs:,} | {wall:.1f} | {cpu:.1f} | {docs / wall:.0f} | "
              f"{docs / cpu:.0f} | {m * docs / cpu:.0f} | {wall / reference[mode]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
