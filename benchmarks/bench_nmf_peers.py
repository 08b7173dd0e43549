"""SVI B-NMF (Paisley, Blei and Jordan 2014, sec. 11.5) against its NMF peers, scikit-learn MiniBatchNMF (KL loss) and
gensim Nmf (issue 14): documents per second and held-out log predictive, paired per seed, in one run.

Every fit goes through ``topicbench.run.run`` (fit time only, after the runner's warm-up; held-out = document
completion on the test split, half the tokens observed), one shuffled pass per seed, the same order for every method
at a seed, configurations interleaved within each seed. Settings: K and the minibatch size shared; B-NMF at the
chapter's defaults (c0 = 0.05 V, a0 = b0 = 1/K, rho_t = (1 + t)^-0.5); sklearn at its defaults (forget_factor 0.7,
nndsvda start from the first minibatch, 30 W rounds per minibatch); gensim at its defaults (Frobenius loss). The two
peers' predictives carry a uniform floor of 1e-4 (``uniform_mix``: their point estimates give some words rate 0); the
floor is part of their score. B-NMF uses 2 threads (numba), the peers their libraries' default threading under the
runner's BLAS limit of 2.

    topicbench prepare nyt_like --out /tmp/tb/nyt_like
    python benchmarks/bench_nmf_peers.py --corpus /tmp/tb/nyt_like --K 100 --repeats 5 --write-results
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import time

import numpy as np

from bench_lda_speed import write_section
from topicbench.corpus import load_corpus
from topicbench.run import RunSpec, run

SECTION = "## B-NMF vs scikit-learn MiniBatchNMF (KL) and gensim Nmf (issue 14)"
CONFIGS = [("B-NMF (SVI)", "bnmf"), ("sklearn MiniBatchNMF, KL", "sklearn_nmf"), ("gensim Nmf", "gensim_nmf")]
OURS = "B-NMF (SVI)"


def fit_once(corpus, method, params, seed, threads, passes=1.0, max_docs=None):
    spec = RunSpec(method=method, params=params, seed=seed, threads=threads, passes=passes, max_docs=max_docs,
                   n_checkpoints=1, report_elbo=False, topic_history_words=0, experiment="bench_nmf_peers")
    last = run(spec, corpus, progress_every_s=1e9)[0].iloc[-1]
    return {"docs": int(last["docs_seen"]), "wall": float(last["fit_wall_s"]), "cpu": float(last["fit_cpu_s"]),
            "loglik": float(last["loglik_per_word"]), "unigram": float(last["unigram_loglik_per_word"])}


def table(results) -> str:
    lines = ["| method | docs/s (wall, median) | runs (docs/s) | docs per CPU s (median) | B-NMF / this, per seed (median) "
             "| held-out loglik/word per seed | mean | B-NMF - this, per seed |", "|---|---|---|---|---|---|---|---|"]
    ours = results[OURS]
    for label, runs in results.items():
        rates = [r["docs"] / r["wall"] for r in runs]
        paired = [(o["docs"] / o["wall"]) / x for o, x in zip(ours, rates)]
        per_seed = ", ".join(f"{r['loglik']:.4f}" for r in runs)
        diffs = ", ".join(f"{o['loglik'] - r['loglik']:+.4f}" for o, r in zip(ours, runs))
        lines.append(f"| {label} | {np.median(rates):.0f} | {', '.join(f'{x:.0f}' for x in rates)} | "
                     f"{np.median([r['docs'] / r['cpu'] for r in runs]):.0f} | {', '.join(f'{x:.2f}' for x in paired)} "
                     f"({np.median(paired):.2f}x) | {per_seed} | {np.mean([r['loglik'] for r in runs]):.4f} | {diffs} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, nargs="+")
    parser.add_argument("--K", type=int, nargs="+", default=[100])
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--passes", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    command = "python benchmarks/bench_nmf_peers.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    load_before, started, blocks = os.getloadavg(), time.time(), []
    for path in args.corpus:
        corpus = load_corpus(path)
        for K in args.K:
            params = {"K": K, "batch_size": args.batch_size}
            for _, method in CONFIGS:  # warm-up: numba cache, imports
                fit_once(corpus, method, params, 0, args.threads, max_docs=args.batch_size)
            results = {label: [] for label, _ in CONFIGS}
            for seed in range(args.repeats):
                for label, method in CONFIGS:
                    r = fit_once(corpus, method, params, seed, args.threads, args.passes)
                    results[label].append(r)
                    print(f"{corpus.meta.get('name')} K={K} seed {seed} {label}: {r['docs'] / r['wall']:.0f} docs/s, "
                          f"loglik {r['loglik']:.4f}", file=sys.stderr, flush=True)
            blocks += [f"### `{corpus.meta.get('name')}`, K = {K}", "",
                       f"{corpus.split('train').n_docs:,} training documents (V = {corpus.n_words:,}; test split "
                       f"{corpus.split('test').n_docs:,}; word-frequency baseline {results[OURS][0]['unigram']:.4f} "
                       f"nats/word).", "", table(results), ""]
    load_after = os.getloadavg()
    # one section per set of corpora and K, so runs on different corpora keep their own tables
    section = f"{SECTION}: {', '.join(load_corpus(c).meta.get('name') for c in args.corpus)}, K = {', '.join(map(str, args.K))}"
    text = "\n".join([section, "", __doc__.split("\n\n")[1].replace("\n", " "), "",
                      f"{args.passes:g} pass(es), minibatch {args.batch_size}, {args.threads} threads, seeds 0..{args.repeats - 1}. "
                      f"Load average {load_before[0]:.1f} before, {load_after[0]:.1f} after "
                      f"({(time.time() - started) / 60:.0f} min) on a shared 2-core machine.", "",
                      *[f"    topicbench prepare {load_corpus(c).meta.get('name')} --out {shlex.quote(c)}" for c in args.corpus],
                      f"    {command}", "", *blocks])
    print(text)
    if args.write_results:
        write_section(text, section)


if __name__ == "__main__":
    main()
