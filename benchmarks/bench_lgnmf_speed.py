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

``--paired`` (issue 14) times LG-NMF minibatch by minibatch against online LDA on the same minibatch right after
(paired, as the machine is shared), at the issue's setting, and reports the sec. 3.4 search apart:

    python benchmarks/bench_lgnmf_speed.py --paired --corpus /tmp/peers_data/nyt_like --K 100 --batch-size 1024 --threads 2 --docs 3072

Online: the search runs once on minibatch 1 (timed alone; it does not depend on M, so the M = 1 fit takes the
M = 10 fit's mode, as place_grid would give it); then each minibatch's online step (sec. 4) for M = 1 and M = 10,
each followed by online LDA's update on the same minibatch. Batch: the search on the first ``--batch-docs``
documents, then block-cycle passes (sec. 3.1) over them, each paired with one online LDA pass over the same
documents in minibatches. Ratio = LG-NMF docs/s over online LDA docs/s, median over the pairs.
"""
from __future__ import annotations

import argparse

import sys
import time

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from topicbench import kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.run import RunSpec, run
from topicbench.streams import Minibatch


def measure(corpus, method, params, docs, passes, threads=1):
    spec = RunSpec(method=method, params=params, stream="shuffled", train_subset=docs, passes=passes, holdout="fixed",
                   n_checkpoints=1, max_test_docs=10, report_elbo=False, threads=threads)
    trace, _ = run(spec, corpus, progress_every_s=1e9)
    last = trace.iloc[-1]
    return int(last["docs_seen"]), float(last["fit_wall_s"]), float(last["fit_cpu_s"])


def clock(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def paired(args):
    """LG-NMF online and batch against online LDA, pair by pair; the sec. 3.4 search timed alone."""
    corpus = load_corpus(args.corpus)
    train = corpus.split("train")
    K, B, N = args.K, args.batch_size, train.n_docs
    X = sp.csr_matrix(train.counts[:args.docs], dtype=np.float64)
    V, n_mb = X.shape[1], args.docs // B
    mb = lambda lo, hi, i: Minibatch(X[lo:hi], np.arange(lo, hi), np.arange(lo, hi), None, i)
    lda = lambda: get_method("online_lda")(V, seed=0, threads=args.threads, corpus_size=N, K=K, batch_size=B)
    lg = lambda M, **kw: get_method("lgnmf")(V, seed=0, threads=args.threads, corpus_size=N, K=K, grid_size=M, **kw)
    print(f"{args.corpus}: V = {V}, {args.docs} documents, nnz per minibatch ~{X[:B].nnz:,}, K = {K}, minibatch {B}, "
          f"{args.threads} threads", flush=True)
    ol = lda()
    ol.partial_fit(mb(0, 64, 0))  # warm-up: numba kernels
    lg(1, batch_size=B).evaluate_alpha(X[:64], 0.0)  # warm-up: the HALS kernel
    rows = []
    # -- online (sec. 4) ---------------------------------------------------------------------------
    m10 = lg(10, batch_size=B)
    search = [0.0]
    place = m10.place_grid
    m10.place_grid = lambda *a: search.__setitem__(0, clock(place, *a)[0])
    m1 = lg(1, batch_size=B)
    if args.skip_search:  # the fixed placeholder grid: the same per-minibatch work, no search
        m10.placed = m1.placed = True
    first10 = clock(m10.partial_fit, mb(0, B, 0))[0]
    if not args.skip_search:  # M = 1 takes M = 10's mode: the search does not depend on M
        m1.carve_validation(X[:B], np.arange(B))
        m1.grid_log_alpha, m1.cell_width, _ = sys.modules[type(m10).__module__].laplace_grid(
            m10.mode_log10_alpha * np.log(10), m10.curvature, 1, float(m10.hyper["grid_spacing_sd"]),
            float(m10.hyper["fd_step"]) * np.log(10))
        m1.D, m1.placed = m10.D[:1].copy(), True
    first1 = clock(m1.partial_fit, mb(0, B, 0))[0]
    print(f"online, minibatch 1: sec. 3.4 search {search[0]:.1f} s ({len(m10.search)} MAP fits, mode log10 alpha "
          f"{m10.mode_log10_alpha:.3f}); M = 10 step {first10 - search[0]:.2f} s; M = 1 step {first1:.2f} s", flush=True)
    lda_first = clock(ol.partial_fit, mb(0, B, 0))[0]
    for i in range(1, n_mb):
        for name, model in (("M = 1", m1), ("M = 10", m10)):
            t_lg = clock(model.partial_fit, mb(i * B, (i + 1) * B, i))[0]
            t_lda = clock(ol.partial_fit, mb(i * B, (i + 1) * B, i))[0]
            rows.append(("online", name, i + 1, t_lg, t_lda))
            print(f"| online | {name} | minibatch {i + 1} | {t_lg:.2f} | {t_lda:.3f} | {B / t_lg:.0f} | {B / t_lda:.0f} | "
                  f"{t_lda / t_lg:.3f} |", flush=True)
    # -- batch (sec. 3.1) --------------------------------------------------------------------------
    nb = args.batch_docs if not args.skip_search else 0
    if nb == 0:
        return summary(rows)
    bm = lg(10)
    bsearch = [0.0]
    bplace = bm.place_grid
    bm.place_grid = lambda *a: bsearch.__setitem__(0, clock(bplace, *a)[0])
    first = clock(bm.partial_fit, mb(0, nb, 0))[0]
    print(f"batch, pass 1 over {nb} documents: sec. 3.4 search {bsearch[0]:.1f} s ({len(bm.search)} MAP fits), "
          f"M = 10 block cycle {first - bsearch[0]:.2f} s", flush=True)
    for r in range(args.batch_passes):
        t_lg = clock(bm.partial_fit, mb(0, nb, r + 1))[0]
        t_lda = sum(clock(ol.partial_fit, mb(lo, min(lo + B, nb), r))[0] for lo in range(0, nb, B))
        rows.append(("batch", "M = 10", r + 2, t_lg, t_lda))
        print(f"| batch | M = 10 | pass {r + 2} | {t_lg:.2f} | {t_lda:.3f} | {nb / t_lg:.0f} | {nb / t_lda:.0f} | "
              f"{t_lda / t_lg:.3f} |", flush=True)
    print(f"online LDA minibatch 1 (after warm-up) {lda_first:.3f} s")
    summary(rows)


def summary(rows):
    for mode, name in (("online", "M = 1"), ("online", "M = 10"), ("batch", "M = 10")):
        r = [t_lda / t_lg for m, n, _, t_lg, t_lda in rows if (m, n) == (mode, name)]
        if r:
            print(f"median ratio {mode} {name}: {np.median(r):.3f} (pairs {', '.join(f'{x:.3f}' for x in r)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--docs", type=int, default=2000, help="training documents (a subset of the train split)")
    parser.add_argument("--K", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=256, help="minibatch of the online modes")
    parser.add_argument("--passes", type=int, default=3, help="passes of the batch modes")
    parser.add_argument("--grid-sizes", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--paired", action="store_true", help="issue 14: per-minibatch pairs with online LDA")
    parser.add_argument("--batch-docs", type=int, default=2048, help="--paired: documents of the batch mode")
    parser.add_argument("--batch-passes", type=int, default=2, help="--paired: timed batch passes after the first")
    parser.add_argument("--skip-search", action="store_true",
                        help="--paired: online only, on the placeholder grid without the sec. 3.4 search (to time older code)")
    args = parser.parse_args()
    if args.paired:
        kernels.set_threads(args.threads)
        with threadpool_limits(limits=args.threads):  # as the runner does
            return paired(args)
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
