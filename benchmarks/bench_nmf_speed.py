"""Documents per second of SVI B-NMF and C-NMF against online LDA at the same K, through the runner.

B-NMF's local step is the LDA E-step kernel run on exp(E ln beta) / b_k (topicbench.nmf_kernels.bnmf_local_step),
so its cost per document should be close to online LDA's; the target is at least half online LDA's rate.
C-NMF's local step is steepest ascent on u_d with an adaptive step, then damped Newton to convergence
(nmf_nmf_kernels.cnmf_local_step), plus one m x m Newton solve per topic per minibatch; its rate is measured and reported. All three use the settings of
Paisley et al. 2014, sec. 11.6 (c0 = 0.05 V, a0 = 1/K, rho_t = (1 + t)^-0.5; online LDA with alpha = 1/K,
eta = c0 / V). Fit time only (the runner's clocks exclude evaluation); wall and process CPU are both
reported because wall time on a shared machine includes waiting for a core.

    python -c "from topicbench.dataset import prepare; prepare('nyt_like', '/tmp/nyt_like')"   # or: topicbench prepare nyt_like --out /tmp/nyt_like
    python benchmarks/bench_nmf_speed.py --corpus /tmp/nyt_like --docs 6144 --K 100 --batch-size 1024 --threads 2 --repeats 3
"""
from __future__ import annotations

import argparse

import numpy as np

from topicbench.corpus import load_corpus
from topicbench.run import RunSpec, run


def methods(K: int) -> dict[str, dict]:
    return {
        "online_lda": {"alpha": 1.0 / K, "eta": 0.05, "tau0": 1.0, "kappa": 0.5, "allow_kappa_half": True},
        "bnmf": {},
        "cnmf": {},
    }


def measure(corpus, method, params, docs, threads, seed=0):
    spec = RunSpec(method=method, params=params, stream="shuffled", max_docs=docs, holdout="fixed", n_checkpoints=1,
                   max_test_docs=10, report_elbo=False, threads=threads, seed=seed)
    trace, _ = run(spec, corpus, progress_every_s=1e9)
    last = trace.iloc[-1]
    return last["docs_seen"], last["fit_wall_s"], last["fit_cpu_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--docs", type=int, default=6000)
    parser.add_argument("--K", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=1, help="seeds; each seed runs every method back to back (paired)")
    args = parser.parse_args()
    corpus = load_corpus(args.corpus)
    common = {"K": args.K, "batch_size": args.batch_size}
    for method, extra in methods(args.K).items():  # warm-up: load the numba cache outside the clocks
        measure(corpus, method, {**common, **extra}, min(args.batch_size, 50), 1)
    print("| method | K | batch | threads | seed | docs | fit wall s | docs/s (wall) | fit CPU s | docs per CPU s | "
          "ratio to online LDA (wall) | ratio (CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = {}
    for threads in args.threads:
        for seed in range(args.repeats):
            reference = None
            for method, extra in methods(args.K).items():
                docs, wall, cpu = measure(corpus, method, {**common, **extra}, args.docs, threads, seed)
                if method == "online_lda":
                    reference = (docs / wall, docs / cpu)
                ratio = (docs / wall / reference[0], docs / cpu / reference[1])
                ratios.setdefault((method, threads), []).append(ratio)
                print(f"| {method} | {args.K} | {args.batch_size} | {threads} | {seed} | {docs} | {wall:.1f} | {docs / wall:.1f} | "
                      f"{cpu:.1f} | {docs / cpu:.1f} | {ratio[0]:.2f} | {ratio[1]:.2f} |", flush=True)
    print("\n| method | threads | median ratio to online LDA (wall) | (CPU) | seeds |\n|---|---|---|---|---|")
    for (method, threads), values in ratios.items():
        wall, cpu = np.median(np.array(values), axis=0)
        print(f"| {method} | {threads} | {wall:.2f} | {cpu:.2f} | {len(values)} |")

if __name__ == "__main__":
    main()
