"""What libgomp's waiting policy does to a fit's clocks: online LDA (Hoffman et al. 2010, Alg. 2) through
``topicbench run`` with 2 numba threads, under libgomp's own default (OMP_WAIT_POLICY set but empty, so topicbench
leaves it: a waiting thread spins GOMP_SPINCOUNT = 300,000 rounds, then sleeps) and PASSIVE (it sleeps at once:
topicbench's default since session 17), back to back per case and seed, alternating which goes first. The fits
are the same arithmetic, so the held-out scores must agree exactly; the clocks are the fit's own (evaluation and
compilation excluded). Run it once on a quiet machine and once beside other work (the policy matters when
another process holds a core).

    topicbench prepare nyt_like --param n_train=200000 --param n_test=2000 --out /tmp/nyt_like_large
    topicbench prepare wiki_bnpy --corpora-dir ../shared/corpora --out /tmp/wiki_bnpy
    python benchmarks/bench_omp_wait.py --case /tmp/wiki_bnpy:256:1 /tmp/wiki_bnpy:1024:1 \
        /tmp/nyt_like_large:16:0.02 /tmp/nyt_like_large:1024:0.2 --seeds 0 1 2
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

POLICIES = {"spin": "", "passive": "PASSIVE"}  # "": libgomp reads no policy and spins first


def fit(corpus: str, batch_size: int, passes: str, seed: int, policy: str, out: Path) -> dict:
    env = {**os.environ, "OMP_WAIT_POLICY": POLICIES[policy]}
    cmd = [sys.executable, "-m", "topicbench.cli", "run", "--corpus", corpus, "--out", str(out), "--method",
           "online_lda", "--seed", str(seed), "--threads", "2", "--param", "K=100", "--param",
           f"batch_size={batch_size}", "--param", "tau0=1", "--param", "kappa=0.7", "--set", f"passes={passes}",
           "--set", "n_checkpoints=2", "--set", "report_elbo=false"]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    last = pd.read_parquet(out / "trace.parquet").iloc[-1]
    return {"cpu": float(last["fit_cpu_s"]), "wall": float(last["fit_wall_s"]), "loglik": float(last["loglik_per_word"])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", nargs="+", required=True, help="CORPUS:BATCH_SIZE:PASSES")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            for case in args.case:
                corpus, batch_size, passes = case.rsplit(":", 2)
                order = list(POLICIES) if seed % 2 == 0 else list(POLICIES)[::-1]
                for policy in order:
                    out = Path(tmp) / f"{Path(corpus).name}_{batch_size}_{seed}_{policy}"
                    rows.append({"corpus": Path(corpus).name, "S": int(batch_size), "seed": seed, "policy": policy,
                                 **fit(corpus, int(batch_size), passes, seed, policy, out)})
    frame = pd.DataFrame(rows).pivot_table(index=["corpus", "S", "seed"], columns="policy",
                                           values=["cpu", "wall", "loglik"])
    print("| corpus | S | seed | fit CPU s spin / passive | fit wall s spin / passive | held-out loglik/word "
          "spin / passive |")
    print("|---|---|---|---|---|---|")
    for (corpus, S, seed), r in frame.iterrows():
        print(f"| {corpus} | {S} | {seed} | {r['cpu', 'spin']:.2f} / {r['cpu', 'passive']:.2f} | "
              f"{r['wall', 'spin']:.2f} / {r['wall', 'passive']:.2f} | {r['loglik', 'spin']:.6f} / "
              f"{r['loglik', 'passive']:.6f} |")
    print("\n| corpus | S | CPU spin / passive, median over seeds (per seed) | wall (per seed) | same scores |")
    print("|---|---|---|---|---|")
    for (corpus, S), g in frame.groupby(level=[0, 1]):
        cpu = (g["cpu", "spin"] / g["cpu", "passive"]).to_numpy()
        wall = (g["wall", "spin"] / g["wall", "passive"]).to_numpy()
        same = bool(np.all(g["loglik", "spin"].to_numpy() == g["loglik", "passive"].to_numpy()))
        print(f"| {corpus} | {S} | {np.median(cpu):.2f}x ({', '.join(f'{v:.2f}' for v in cpu)}) | "
              f"{np.median(wall):.2f}x ({', '.join(f'{v:.2f}' for v in wall)}) | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
