"""Time NPMI coherence, topic diversity and planted recovery at the runner's final checkpoint size.

The reference is a planted LDA corpus (topicbench.synthetic) of ``--docs`` documents; the topics are its planted
K x V topics, so the top words co-occur as a fitted model's would. One BLAS thread; prints a Markdown table.
``--gensim`` also times gensim's c_npmi with a whole-document window (the configuration tests/test_quality.py
checks agreement with) on the same reference.

    python benchmarks/bench_quality.py --docs 20000 --K 100 [--gensim]
"""
import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from topicbench.quality import npmi_coherence, planted_recovery, top_words, topic_diversity
from topicbench.synthetic import build_planted_corpus


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--words", type=int, default=10_000)
    ap.add_argument("--K", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--gensim", action="store_true")
    a = ap.parse_args()
    corpus = build_planted_corpus("bench_quality", a.docs, 0, a.words, a.K, 0.01, 0.1,
                                  lambda rng, n: rng.integers(100, 300, size=n), seed=0)
    ref, truth = corpus.counts, corpus.truth["topics"]
    top = top_words(truth, 25)
    rows = [("reference", f"{ref.shape[0]:,} docs x {ref.shape[1]:,} words, {ref.nnz:,} nonzeros")]
    with threadpool_limits(1):
        times = []
        for _ in range(a.repeats):
            t = time.perf_counter()
            coherence = npmi_coherence(top, ref)
            times.append(time.perf_counter() - t)
        rows.append((f"npmi_coherence K={a.K}, N=10 (s, min/median of {a.repeats})",
                     f"{min(times):.3f} / {np.median(times):.3f}  (mean NPMI {coherence.mean:.4f})"))
        t = time.perf_counter()
        diversity = topic_diversity(top)
        recovery = planted_recovery(truth + 1e-4, truth)
        rows.append(("topic_diversity + planted_recovery (s)", f"{time.perf_counter() - t:.3f}  "
                     f"(TD {diversity:.3f}, cosine {recovery.cosine:.4f})"))
        if a.gensim:
            from gensim.corpora import Dictionary
            from gensim.models.coherencemodel import CoherenceModel

            texts = [[str(j) for j in ref.indices[ref.indptr[d] : ref.indptr[d + 1]]] for d in range(ref.shape[0])]
            t = time.perf_counter()
            model = CoherenceModel(topics=[[str(j) for j in w[:10]] for w in top], texts=texts,
                                   dictionary=Dictionary(texts), coherence="c_npmi",
                                   window_size=max(map(len, texts)), topn=10, processes=1)
            score = model.get_coherence()
            rows.append(("gensim c_npmi, whole-document window (s)", f"{time.perf_counter() - t:.1f}  "
                         f"(mean NPMI {score:.4f}, abs. difference {abs(score - coherence.mean):.1e})"))
    print("| what | value |\n|---|---|")
    for what, value in rows:
        print(f"| {what} | {value} |")


if __name__ == "__main__":
    main()
