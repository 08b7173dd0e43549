"""Why the squared-loss NMFs (gensim_nmf, LG-NMF) barely beat the word-frequency baseline on nyt_topmost at K = 10.

A squared loss weighs a document by sum_w x_dw^2, so a few long documents that repeat a word many times (podcast
transcripts that name their host on every turn) take the topics. This refits each NMF on the same corpus with the 1% of
training documents of largest sum_w x_dw^2 removed (the test split unchanged) and prints held-out log predictive per
word minus the unigram baseline of the same run: if the heavy documents are the cause, the squared-loss fits gain and
the KL fit (sklearn_nmf, the Poisson likelihood) does not move.

    python benchmarks/audit_squared_loss.py --corpus <prepared nyt_topmost> --work /tmp/sq
"""
import argparse
import shutil
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from topicbench.corpus import Corpus, load_corpus, save_corpus
from topicbench.run import RunSpec, run


def without_heavy_documents(source: str, out: Path, fraction: float = 0.01) -> str:
    corpus = load_corpus(source)
    counts, docs = sp.csr_matrix(corpus.counts), corpus.docs.reset_index(drop=True)
    train = np.flatnonzero(docs["split"].to_numpy() == "train")
    squares = np.asarray(counts[train].multiply(counts[train]).sum(axis=1)).ravel()
    heavy = train[np.argsort(-squares)[:int(len(train) * fraction)]]
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    keep = np.setdiff1d(np.arange(counts.shape[0]), heavy)
    shutil.rmtree(out, ignore_errors=True)
    save_corpus(Corpus(counts[keep], corpus.vocab, docs.loc[keep].reset_index(drop=True),
                       {**corpus.meta, "name": f"{corpus.meta.get('name', 'corpus')}_light"}), out)
    return (f"removed {len(heavy)} of {len(train)} training documents: {squares[np.isin(train, heavy)].sum() / squares.sum():.1%}"
            f" of sum x_dw^2, {lengths[heavy].sum() / lengths[train].sum():.1%} of the tokens; median length "
            f"{np.median(lengths[heavy]):.0f} (all: {np.median(lengths[train]):.0f}), median largest count in one "
            f"document {np.median(counts[heavy].max(axis=1).toarray()):.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--work", required=True, help="a scratch folder for the reduced corpus")
    parser.add_argument("--K", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    light = Path(args.work) / "light"
    print(without_heavy_documents(args.corpus, light))
    print("| corpus | method | held-out minus unigram, per seed |\n|---|---|---|")
    for path, label in ((args.corpus, "as prepared"), (str(light), "heavy 1% of training removed")):
        for method in ("gensim_nmf", "lgnmf", "sklearn_nmf"):
            params = {"K": args.K} if method == "lgnmf" else {"K": args.K, "batch_size": 256}
            gains = []
            for seed in args.seeds:
                trace, _ = run(RunSpec(method=method, params=params, passes=3, max_test_docs=300, n_checkpoints=1,
                                       seed=seed), path)
                gains.append(trace["loglik_per_word"].iloc[-1] - trace["unigram_loglik_per_word"].iloc[-1])
            print(f"| {label} | {method} | {', '.join(f'{g:+.4f}' for g in gains)} |", flush=True)


if __name__ == "__main__":
    main()
