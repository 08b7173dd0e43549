"""Every method on every real corpus under ``corpora_dir``: does it run on real text, and where does it score?

Prepares each dataset recipe that reads ``corpora_dir`` (skipping those already prepared under ``--work``), fits
every registered method once through the ``topicbench`` CLI (K = 20, C-NMF m = 10, one pass, seed 0, each method's
defaults otherwise), and prints one markdown row per run: exit code, wall seconds, the final held-out log predictive
per word and the word-frequency baseline. A smoke survey, not a tuned comparison: defaults on one pass favour some
methods over others.

    python tools/real_text_smoke.py --corpora-dir ../shared/corpora --work /tmp/real_text_smoke
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from topicbench.dataset import reads_corpora_dir, registry as datasets_registry
from topicbench.method import registry as methods_registry

EXTRA = {"cnmf": ["--param", "m=10"], "batch_lda": ["--param", "rel_tol=1e-3"], "lgnmf": ["--param", "grid_size=2"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora-dir", required=True)
    parser.add_argument("--work", required=True, help="scratch folder for the prepared corpora and the runs")
    parser.add_argument("--datasets", nargs="*", default=None, help="default: every recipe that reads corpora_dir")
    parser.add_argument("--methods", nargs="*", default=None, help="default: every registered method")
    parser.add_argument("--K", type=int, default=20)
    args = parser.parse_args()
    work = Path(args.work)
    datasets = args.datasets or sorted(name for name, recipe in datasets_registry().items() if reads_corpora_dir(recipe))
    methods = args.methods or sorted(methods_registry())
    print("| corpus | method | exit | s | held-out loglik/word | word frequencies |\n|---|---|---|---|---|---|")
    for dataset in datasets:
        corpus = work / "corpora" / dataset
        if not (corpus / "corpus.json").exists():
            prep = subprocess.run(["topicbench", "prepare", dataset, "--corpora-dir", args.corpora_dir, "--out",
                                   str(corpus)], capture_output=True, text=True)
            if prep.returncode:
                print(f"| {dataset} | (prepare) | {prep.returncode} | | {prep.stderr.strip()[-200:]} | |")
                continue
        for method in methods:
            out = work / "runs" / f"{dataset}.{method}"
            start = time.time()
            fit = subprocess.run(["topicbench", "run", "--corpus", str(corpus), "--out", str(out), "--method", method,
                                  "--seed", "0", "--threads", "1", "--param", f"K={args.K}", *EXTRA.get(method, []),
                                  "--set", "passes=1"], capture_output=True, text=True)
            seconds = time.time() - start
            if fit.returncode:
                print(f"| {dataset} | {method} | {fit.returncode} | {seconds:.0f} | {fit.stderr.strip()[-200:]} | |")
                continue
            last = pd.read_parquet(out / "trace.parquet").iloc[-1]
            print(f"| {dataset} | {method} | 0 | {seconds:.0f} | {last['loglik_per_word']:.4f} | "
                  f"{last['unigram_loglik_per_word']:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
