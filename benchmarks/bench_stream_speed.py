"""Documents per second of streaming VB, population VB and online LDA (reference) through the runner.

All three share the numba E-step (topicbench.kernels.lda_e_step); streaming VB runs it once per inner
batch-VB round, so its cost per document is about (mean inner rounds) x online LDA's. Fit time only
(the runner's clocks exclude evaluation). On a shared machine wall time includes waiting for a core;
process CPU time does not, so both are reported.

    topicbench prepare nyt_like --out /tmp/nyt_like
    python benchmarks/bench_stream_speed.py --corpus /tmp/nyt_like --docs 4096 --threads 1 2
"""
from __future__ import annotations

import argparse


from topicbench.corpus import load_corpus
from topicbench.run import RunSpec, run

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--docs", type=int, default=4096)
    parser.add_argument("--K", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--stream", default="shuffled")
    args = parser.parse_args()
    corpus = load_corpus(args.corpus)
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
