"""Paper scale, bounded memory: write a 1.8M-document NYT-like corpus and report wall time and peak RSS.

Usage: python benchmarks/bench_synthetic_scale.py [--n-train 1790000] [--n-test 10000] [--out DIR] [--keep]

Runs ``topicbench.dataset.prepare("nyt_like", ...)``, i.e. exactly what ``topicbench prepare`` does, which
streams the corpus to disk (topicbench.synthetic.write_recipe). Peak RSS is the process's ru_maxrss
(the generator runs in this process; no children). It then reads the file sizes and the nnz from the
written counts manifest without loading the matrix.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-train", type=int, default=1_790_000)
    parser.add_argument("--n-test", type=int, default=10_000)
    parser.add_argument("--out", default=None, help="corpus directory (default: a temporary one, removed after)")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    from topicbench.dataset import prepare

    base = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench_synthetic_scale."))
    out = base / "nyt_like_paper" if not args.out else base
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    prepare("nyt_like", out, n_train=args.n_train, n_test=args.n_test)
    wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    meta = json.loads((out / "corpus.json").read_text())
    nnz = json.loads((out / "counts" / "manifest.json").read_text())["nnz"]
    sizes = {p.name: sum(f.stat().st_size for f in p.rglob("*")) / 2**20 if p.is_dir() else p.stat().st_size / 2**20
             for p in sorted(out.iterdir())}
    report = {"n_docs": meta["n_docs"], "n_words": meta["n_words"], "n_tokens": meta["n_tokens"], "nnz": int(nnz),
              "mean_length": meta["n_tokens"] / meta["n_docs"], "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
              "peak_rss_mb": round(peak_mb, 1), "file_mb": {k: round(v, 1) for k, v in sizes.items()},
              "reference_perplexity": meta.get("reference_perplexity")}
    print(json.dumps(report, indent=2))
    if not args.out and not args.keep:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
