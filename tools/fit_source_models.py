"""Fit the source models of the semi-synthetic corpora ONCE, on real corpora; writes topicbench/data/sources/.

    PYTHONPATH=$PWD python tools/fit_source_models.py [--corpora-dir ../shared/corpora] [--only nyt ...]

For each source: read the corpus with the project's own reader (``datasets/<name>.py``), fit LDA with the
project's ``online_lda`` (Hoffman, Blei and Bach 2010, Alg. 2) over several passes, take every document's
variational proportions E[theta_d] = gamma_d / sum(gamma_d) (ibid., eq. 3) and estimate from them:

- the logistic-normal model of the proportions (Blei and Lafferty 2007, correlated topic model, sec. 2):
  eta_d = clr(E[theta_d]) = log E[theta_d] - mean_k log E[theta_dk] ~ N(mu_s(d), Sigma), mu_s the mean of
  its time slice s (shrunk to the global mean
  with a prior weight of ``SHRINK`` documents, so thin slices do not invent bursts), Sigma the pooled
  within-slice covariance; undated sources have one slice;
- the document-length distribution as an empirical quantile table (201 points);
- the topics E[beta_k] = lambda_k / sum(lambda_k) that are not copies of a more prevalent one (cosine < 0.8;
  online LDA leaves unused topics as copies of one generic topic), sorted by prevalence and restricted to the ``keep_words``
  words carrying most topic mass (sum_k prevalence_k beta_kw), stored as float16 log-probabilities.

The output is small package data read by ``topicbench.semisynthetic``; the main job never needs the corpora.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from topicbench import io  # noqa: E402
from topicbench.dataset import get_dataset  # noqa: E402
from topicbench.run import RunSpec, run  # noqa: E402

OUT = REPO / "topicbench" / "data" / "sources"
SHRINK = 20.0  # prior weight (in documents) of the global mean in each slice mean
N_QUANTILES = 201
DUPLICATE = 0.8  # cosine above which a fitted topic counts as a copy of a more prevalent one

# source -> reader, its parameters, K, passes, time slice width (years; None = undated or exchangeable), words kept
# the online LDA settings per source: with alpha = 1/K and tau0 = 64, NYT and Wikipedia kept only 47 and 16 distinct
# topics of 100 (the rest copies of one generic topic); alpha = 0.1 with tau0 = 1, kappa = 0.6 kept all 100
DENSE = {"alpha": 0.1, "tau0": 1.0, "kappa": 0.6, "passes": 5}
SPARSE = {"alpha": None, "tau0": 64.0, "kappa": 0.7, "passes": 20}  # alpha None: 1/K
# source -> reader, its parameters, K, fit settings, time slice width (years; None = undated or exchangeable), words kept
SOURCES = {
    "nyt": {"dataset": "nyt_topmost", "params": {}, "K": 100, **DENSE, "slice_years": None, "keep_words": 8000},
    "wiki": {"dataset": "wiki_bnpy", "params": {}, "K": 100, **DENSE, "slice_years": None, "keep_words": 8000},
    # SOTU paragraphs 1790-2026: the longest dated span available (236 years, like Science's 1880-2002), with
    # 24,969 paragraphs of ~32 tokens; nber_titles spans 48 years with ~6-token titles, too short to pin
    # down per-document proportions
    "science": {"dataset": "sotu", "params": {"unit": "paragraph"}, "K": 50, **SPARSE, "slice_years": 5.0,
                "keep_words": 8000},
    "twitter": {"dataset": "trump_tweets_dslabs", "params": {}, "K": 50, **SPARSE, "slice_years": 1 / 12,
                "keep_words": 8000},
}


def fit(name: str, corpora_dir: str, seed: int = 0) -> dict:
    src = SOURCES[name]
    cls = get_dataset(src["dataset"])
    params = cls.resolve_params(src["params"])
    corpus = cls().build(corpora_dir=corpora_dir, **params)
    K = src["K"]
    spec = RunSpec(method="online_lda", params={"K": K, "alpha": src["alpha"] or 1.0 / K, "eta": 0.01, "batch_size": 256,
                                                "kappa": src["kappa"], "tau0": src["tau0"]},
                   seed=seed, passes=src["passes"], n_checkpoints=1, report_elbo=False, dataset=src["dataset"])
    t0 = time.process_time()
    trace, method = run(spec, corpus, progress_every_s=60.0)
    fit_cpu = time.process_time() - t0
    gamma, _, _ = method.e_step(corpus.counts, want_sstats=False)  # every document, train and test
    order = np.argsort(-(gamma / gamma.sum(axis=1, keepdims=True)).mean(axis=0), kind="stable")  # most prevalent first
    # online LDA leaves some topics unused, as copies of one generic topic; a planted truth with copies of a
    # topic is not identifiable, so keep a topic only if its cosine to every more prevalent kept one is < DUPLICATE
    unit = method.topics() / np.linalg.norm(method.topics(), axis=1, keepdims=True)
    keep = []
    for k in order:
        if all(unit[k] @ unit[j] < DUPLICATE for j in keep):
            keep.append(k)
    method.lam = method.lam[keep]
    method._refresh()
    gamma, _, _ = method.e_step(corpus.counts, want_sstats=False)  # the proportions over the kept topics
    theta = gamma / gamma.sum(axis=1, keepdims=True)
    prevalence = theta.mean(axis=0)
    order = np.argsort(-prevalence, kind="stable")  # topic 0 is the most prevalent
    theta, prevalence = theta[:, order], prevalence[order]
    topics = method.topics()[order]
    K = len(keep)
    # words: the keep_words carrying most topic mass, most massive first
    mass = prevalence @ topics
    words = np.argsort(-mass, kind="stable")[: src["keep_words"]]
    topics = topics[:, words] / topics[:, words].sum(axis=1, keepdims=True)
    vocab = [corpus.vocab[w] for w in words]
    # logistic-normal proportions, per time slice; centred log-ratios, since softmax ignores a per-document
    # constant and log E[theta_d] carries one (-log sum(gamma_d), which grows with the document's length)
    eta = np.log(theta)
    eta -= eta.mean(axis=1, keepdims=True)
    if src["slice_years"] is None:
        slices, starts = np.zeros(corpus.n_docs, dtype=np.int64), np.zeros(1)
        span = None
    else:
        times = corpus.docs["time"].to_numpy(dtype=np.float64)
        t0_ = np.floor(times.min() / src["slice_years"]) * src["slice_years"]
        slices = np.floor((times - t0_) / src["slice_years"] + 1e-9).astype(np.int64)
        starts = t0_ + src["slice_years"] * np.arange(slices.max() + 1)
        span = [float(times.min()), float(times.max())]
    n_slices = int(slices.max()) + 1
    mu = eta.mean(axis=0)
    sums = np.zeros((n_slices, K))
    np.add.at(sums, slices, eta)
    n_per = np.bincount(slices, minlength=n_slices).astype(np.float64)
    slice_means = (sums + SHRINK * mu) / (n_per[:, None] + SHRINK)
    resid = eta - slice_means[slices]
    cov = resid.T @ resid / (corpus.n_docs - n_slices)
    lengths = np.asarray(corpus.counts.sum(axis=1)).ravel()
    quantiles = np.quantile(lengths, np.linspace(0, 1, N_QUANTILES))
    last = trace.iloc[-1]
    info = {"source": name, "dataset": src["dataset"], "dataset_params": params, "K": K, "fitted_K": src["K"],
            "fit": {"method": "online_lda", **spec.params, "passes": src["passes"], "seed": seed,
                    "train_docs": int((corpus.docs["split"] == "train").sum()), "cpu_s": round(fit_cpu, 1),
                    "test_perplexity": round(float(last["perplexity"]), 1),
                    "test_unigram_perplexity": round(float(last["unigram_perplexity"]), 1)},
            "n_docs": int(corpus.n_docs), "source_vocab": int(corpus.n_words), "kept_words": len(vocab),
            "kept_topic_mass": float(mass[words].sum() / mass.sum()), "slice_years": src["slice_years"],
            "time_span": span, "shrink_docs": SHRINK, "mean_length": float(lengths.mean())}
    return {"topics_log": np.log(topics).astype(np.float16), "vocab": np.array(vocab), "mu": mu.astype(np.float32),
            "cov": cov.astype(np.float32), "slice_means": slice_means.astype(np.float32),
            "slice_start": starts.astype(np.float64), "slice_docs": n_per.astype(np.int64),
            "length_quantiles": quantiles.astype(np.float32), "info": np.array(json.dumps(info, sort_keys=True))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora-dir", default=str(REPO / ".." / "shared" / "corpora"))
    parser.add_argument("--only", nargs="*", choices=sorted(SOURCES), default=sorted(SOURCES))
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.only:
        arrays = fit(name, args.corpora_dir)
        io.save_npz(OUT / f"{name}.npz", arrays)  # a kill mid-write keeps the old model, never a torn one
        info = json.loads(str(arrays["info"]))
        print(f"{name}: {info['fit']} kept {info['kept_words']} words ({info['kept_topic_mass']:.1%} of topic mass), "
              f"{(OUT / f'{name}.npz').stat().st_size / 1e6:.2f} MB", flush=True)


if __name__ == "__main__":
    main()
