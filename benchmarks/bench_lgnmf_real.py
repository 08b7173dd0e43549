"""LG-NMF (Hu et al. 2014) on real text: the default (sec. 3.4 grid, validation criterion), the method as printed
(sec. 3.4 grid weighted by eq. 8), the old fixed one-point-per-decade grid weighted by eq. 8, and batch VB LDA,
at the same K and passes, each against the word-frequency baseline. Writes a markdown table (stdout and, with
--results, a section appended to benchmarks/RESULTS.md).

The corpora (from the shared real corpora; the paper profile's names):

    topicbench prepare cora_rlda --out data/corpora/cora_80_20 --corpora-dir ../shared/corpora --name cora_80_20 --param test_fraction=0.2
    topicbench prepare octis_preprocessed --out data/corpora/bbc_news --corpora-dir ../shared/corpora --name bbc_news --param subset=BBC_News
    topicbench prepare nyt_topmost --out data/corpora/nyt_topmost --corpora-dir ../shared/corpora
    python benchmarks/bench_lgnmf_real.py --corpora data/corpora/cora_80_20 data/corpora/bbc_news data/corpora/nyt_topmost

"best grid point" is the best held-out score of any single grid point (the trace's x_grid<m>_loglik, from
LatentGaussianNMF.heldout_extras; needs the runner to call that hook), i.e. what the ensemble could reach
had its weights been perfect.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from topicbench.corpus import load_corpus
from topicbench.run import RunSpec, run

VARIANTS = [("LG-NMF default (sec. 3.4 grid, validation criterion)", "lgnmf", {}),
            ("LG-NMF as printed (sec. 3.4 grid, eq. 8 weights)", "lgnmf", {"criterion": "evidence"}),
            ("LG-NMF fixed grid, eq. 8 weights (the old default)", "lgnmf", {"criterion": "evidence", "grid": "fixed"}),
            ("batch VB LDA", "batch_lda", {})]


def measure(corpus, method, params, K, passes, max_test_docs):
    spec = RunSpec(method=method, params={"K": K, **params}, passes=passes, n_checkpoints=1, max_test_docs=max_test_docs,
                   report_elbo=False, topic_history_words=0, threads=1)
    trace, _ = run(spec, corpus, progress_every_s=1e9)
    last = trace.iloc[-1]
    grid = [c for c in trace.columns if c.startswith("x_grid") and c.endswith("_loglik")]
    best = max(last[grid]) if grid else float("nan")
    return last, best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="+", required=True)
    parser.add_argument("--K", type=int, default=50)
    parser.add_argument("--passes", type=int, default=15)
    parser.add_argument("--max-test-docs", type=int, default=300)
    parser.add_argument("--results", default=None, help="append the table to this markdown file")
    args = parser.parse_args()
    lines = ["| corpus | method | loglik/word | above unigram | best grid point | log10 alpha (mode or best) | "
             "fit wall s | fit CPU s |", "|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for path in args.corpora:
        corpus = load_corpus(path)
        for label, method, params in VARIANTS:
            last, best = measure(corpus, method, params, args.K, args.passes, args.max_test_docs)
            alpha = last.get("x_log10_alpha_mode", float("nan"))
            alpha = last.get("x_log10_alpha_best", float("nan")) if alpha != alpha else alpha
            line = (f"| {Path(path).name} | {label} | {last['loglik_per_word']:.3f} | "
                    f"{last['loglik_per_word'] - last['unigram_loglik_per_word']:+.3f} | "
                    f"{'' if best != best else f'{best:.3f}'} | {'' if alpha != alpha else f'{alpha:.2f}'} | "
                    f"{last['fit_wall_s']:.1f} | {last['fit_cpu_s']:.1f} |")
            lines.append(line)
            print(line, flush=True)
        lines.append(f"| {Path(path).name} | word-frequency baseline | {last['unigram_loglik_per_word']:.3f} | | | | | |")
        print(lines[-1], flush=True)
    if args.results:
        command = ("python benchmarks/bench_lgnmf_real.py --corpora " + " ".join(args.corpora) +
                   f" --K {args.K} --passes {args.passes} --max-test-docs {args.max_test_docs}")
        text = (f"\n## LG-NMF on real text (Hu et al. 2014; {time.strftime('%Y-%m-%d')})\n\n"
                f"K = {args.K}, {args.passes} batch passes, document completion (observe half of each test document's "
                f"tokens, predict the rest) on at most {args.max_test_docs} test documents, 1 thread, fit time only.\n\n"
                f"    {command}\n\n" + "\n".join(lines) + "\n")
        with open(args.results, "a") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
