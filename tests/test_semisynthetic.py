"""Semi-synthetic ``*_like`` recipes: real words, planted correlations, drift and bursts, learnable, same bytes by seed.

Small corpora (seconds); the shipped source models are package data, so no corpora_dir is needed.
"""
import filecmp
from pathlib import Path
import os
import re

import numpy as np
import pytest

from topicbench.corpus import CorpusError, load_corpus, save_corpus
from topicbench.dataset import get_dataset, prepare, prepare_provenance
from topicbench.run import RunSpec, run
from topicbench.semisynthetic import SOURCES, load_source

RECIPES = {"nyt_like": "nyt", "wiki_like": "wiki", "science_like": "science", "twitter_like": "twitter"}
SMALL = {"nyt_like": {"n_train": 2000, "n_test": 300}, "wiki_like": {"n_train": 2000, "n_test": 300},
         "science_like": {"n_train": 4000, "n_test": 400}, "twitter_like": {"n_train": 20000, "n_test": 2000}}
_CACHE = {}

def tree(root):
    """Every file under a corpus folder (the counts shards included), as sorted relative paths."""
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file())



def build(name, **params):
    key = (name, tuple(sorted(params.items())))
    if key not in _CACHE:
        cls = get_dataset(name)
        _CACHE[key] = cls().build(corpora_dir="/nonexistent", **cls.resolve_params({**SMALL[name], **params}))
    return _CACHE[key]


def clr(theta):
    log = np.log(theta)
    return log - log.mean(axis=1, keepdims=True)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_real_words_and_truth_shapes(name):
    corpus, source = build(name), load_source(RECIPES[name])
    assert corpus.vocab == list(source.vocab[: corpus.n_words])
    assert not any(re.fullmatch(r"t\d{3}w\d{3}", w) for w in corpus.vocab)  # no fake words
    assert all(re.fullmatch(r"[a-z][a-z0-9_'\-]*", w) for w in corpus.vocab[:200]), corpus.vocab[:200]
    K = get_dataset(name).params["n_topics"]
    assert corpus.truth["topics"].shape == (K, corpus.n_words) and corpus.truth["theta"].shape == (corpus.n_docs, K)
    assert corpus.truth["correlation"].shape == (K, K)
    assert np.allclose(corpus.truth["topics"].sum(axis=1), 1) and np.allclose(corpus.truth["theta"].sum(axis=1), 1)
    assert corpus.meta["source"].startswith("semi-synthetic")


def test_example_topics_are_the_sources():
    """A few words every reader of these corpora would expect near the top of some topic."""
    expected = {"nyt": {"police", "vaccine"}, "science": {"war", "trade"}, "twitter": {"obama", "hillary"},
                "wiki": {"game", "film"}}
    for source, words in expected.items():
        model = load_source(source)
        top = {model.vocab[w] for row in model.topics_log for w in np.argsort(-row)[:15]}
        assert words <= top, (source, words - top)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_true_model_at_most_half_the_word_frequency_perplexity(name):
    """DESIGN.md ("Corpus"): the true model and the word-frequency model must be far apart."""
    ref = build(name).meta["reference_perplexity"]
    assert ref["word_frequency"] > 2.0 * ref["true_model"], ref


def test_one_online_pass_learns():
    """One online LDA pass lands between the truth and the word-frequency model, well away from the latter.

    Small and fast: 3,000 NYT-like documents, 20 topics over 3,000 words. The factor 1.25 is the
    required gap below the unigram perplexity (a fit that learned nothing sits at about 1.0).
    """
    corpus = build("nyt_like", n_train=3000, n_test=300, n_topics=20, n_words=3000)
    ref = corpus.meta["reference_perplexity"]
    spec = RunSpec(method="online_lda", params={"K": 20, "batch_size": 256, "kappa": 0.7, "tau0": 64.0, "alpha": 0.05,
                                                "eta": 0.01}, seed=0, passes=1, n_checkpoints=1, report_elbo=False)
    trace, _ = run(spec, corpus)
    fitted = float(trace["perplexity"].iloc[-1])
    assert ref["true_model"] < fitted < ref["word_frequency"] / 1.25, (fitted, ref)


def test_planted_correlations_are_structured_and_recovered():
    corpus = build("nyt_like")
    planted = corpus.truth["correlation"]
    off = ~np.eye(len(planted), dtype=bool)
    assert np.abs(planted[off]).max() > 0.3  # clear off-diagonal structure, not independent topics
    assert (np.abs(planted[off]) > 0.2).sum() >= 10
    # the sample correlation of clr(theta) over 2,300 documents estimates the planted one (nyt: one slice)
    recovered = np.corrcoef(clr(corpus.truth["theta"]), rowvar=False)
    assert np.corrcoef(planted[off], recovered[off])[0, 1] > 0.9
    assert np.abs(planted[off] - recovered[off]).max() < 0.25  # ~5 s.e. of a correlation from 2,300 draws


def test_science_prevalence_drifts_and_nyt_does_not():
    def drift_over_noise(corpus):
        """L1 distance of first- and last-tenth topic prevalence over that of two interleaved mid-stream tenths."""
        theta = corpus.truth["theta"]
        tenth, mid = len(theta) // 10, len(theta) // 2
        drift = np.abs(theta[:tenth].mean(axis=0) - theta[-tenth:].mean(axis=0)).sum()
        window = theta[mid - tenth: mid + tenth]
        return drift / np.abs(window[0::2].mean(axis=0) - window[1::2].mean(axis=0)).sum()

    assert drift_over_noise(build("science_like")) > 4  # 1790s vs 2020s: 8x the noise when written
    assert drift_over_noise(build("nyt_like")) < 2  # exchangeable: sampling noise only (0.8 when written)


def test_twitter_topics_burst():
    corpus = build("twitter_like")
    theta = corpus.truth["theta"]
    n_slices = len(corpus.truth["slice_means"])
    slices = np.arange(corpus.n_docs) * n_slices // corpus.n_docs
    per_slice = np.stack([theta[slices == s].mean(axis=0) for s in range(n_slices)])  # slices x K
    peak_over_median = per_slice.max(axis=0) / np.median(per_slice, axis=0)
    assert (peak_over_median > 3).sum() >= 5  # some topics burst
    assert (peak_over_median < 2).sum() >= 10  # and others stay steady


def test_lengths_follow_the_source():
    for name, source_mean in (("nyt_like", 175.3), ("twitter_like", 8.16)):
        lengths = np.asarray(build(name).counts.sum(axis=1)).ravel()
        assert abs(lengths.mean() / source_mean - 1) < 0.1, (name, lengths.mean())  # quantile-table interpolation
    long = build("nyt_like", min_length=500, max_length=600)
    lengths = np.asarray(long.counts.sum(axis=1)).ravel()
    assert lengths.min() >= 500 and lengths.max() <= 600


def test_same_seed_same_bytes_and_streaming_equals_memory(tmp_path, monkeypatch):
    monkeypatch.setattr("topicbench.corpus.SHARD_ROWS", 128)  # several shards, cut across the generator's chunks
    params = {"n_train": 300, "n_test": 40, "chunk_size": 150}
    first = prepare("science_like", tmp_path / "a", **params)
    second = prepare("science_like", tmp_path / "b", **params)
    names = tree(first)
    assert [n for n in names if not n.startswith("counts/")] == ["corpus.json", "docs.parquet", "truth.npz", "vocab.txt"]
    assert {"counts/manifest.json", "counts/00001.data.npy"} <= set(names) and names == tree(second)  # several shards
    for name in names:
        assert filecmp.cmp(first / name, second / name, shallow=False), name
    other = prepare("science_like", tmp_path / "c", **params, seed=2)
    assert not filecmp.cmp(first / "counts/00000.indices.npy", other / "counts/00000.indices.npy", shallow=False)
    cls = get_dataset("science_like")
    resolved = cls.resolve_params(params)
    corpus = cls().build(**resolved)
    corpus.meta["dataset_params"] = resolved
    corpus.meta["dataset_recipe"] = "science_like"  # as prepare records them
    corpus.meta["prepared_by"] = prepare_provenance(cls)
    save_corpus(corpus, tmp_path / "memory")
    for name in names:
        assert filecmp.cmp(first / name, tmp_path / "memory" / name, shallow=False), name
    loaded = load_corpus(first)
    assert np.array_equal(loaded.truth["correlation"], corpus.truth["correlation"])


def test_fewer_topics_and_words_are_the_sources_leading_ones():
    corpus = build("twitter_like", n_topics=10, n_words=800)
    source = load_source("twitter")
    assert corpus.vocab == list(source.vocab[:800]) and corpus.truth["topics"].shape == (10, 800)
    assert corpus.meta["generator"]["lengths"] == f"the {source.info['dataset']} length quantiles"  # how lengths were drawn
    assert set(corpus.meta["generator"]["source_model"]) == {"dataset", "dataset_params", "K", "fit", "slice_years"}
    assert corpus.meta["time_unit"].startswith("decimal year")
    full = source.cov[:10, :10]
    assert np.allclose(corpus.truth["correlation"], full / np.sqrt(np.outer(np.diag(full), np.diag(full))))


def test_bad_parameters():
    cls = get_dataset("nyt_like")
    K = load_source("nyt").n_topics
    assert K == len(load_source("nyt").mu) < load_source("nyt").n_words  # the source's K, not its V
    with pytest.raises(CorpusError, match=rf"n_topics must be in \[1, {K}\]"):
        cls().build(**cls.resolve_params({"n_train": 10, "n_topics": K + 1}))
    with pytest.raises(CorpusError, match="n_words must be"):
        cls().build(**cls.resolve_params({"n_train": 10, "n_words": 10**6}))
    with pytest.raises(CorpusError, match=r"n_words must be in \[2, "):  # one word: no topic structure to recover
        cls().build(**cls.resolve_params({"n_train": 10, "n_words": 1}))
    with pytest.raises(CorpusError, match="both min_length and max_length"):
        cls().build(**cls.resolve_params({"n_train": 10, "min_length": 5}))
    with pytest.raises(CorpusError, match="temperature must be positive"):
        cls().build(**cls.resolve_params({"n_train": 10, "temperature": 0}))
    with pytest.raises(CorpusError, match=r"unknown parameter\(s\) \['D'\]"):
        prepare("twitter_like", "/tmp/never", D=10)
    with pytest.raises(CorpusError, match="unknown semi-synthetic source"):
        load_source("reddit")
    assert set(RECIPES.values()) == set(SOURCES)


def test_each_document_draws_from_its_time_slice():
    """Module docstring: document d of D = n_train + n_test lies in slice s(d) = floor(d S / D), and
    eta_d = mu_s(d) + L z. With L = 0 (no within-slice noise) theta_d is exactly softmax(mu_s(d) / T), the slice's
    mean proportions: every row is checked against the slice computed by hand, the test rows included."""
    cls = get_dataset("science_like")
    recipe = cls().recipe(**cls.resolve_params({"n_train": 700, "n_test": 300, "n_topics": 5, "n_words": 50}))
    cached = recipe._cached()
    cached["chol"] = np.zeros_like(cached["chol"])
    means = load_source("science").slice_means[:, :5] / recipe.temperature
    rows = np.arange(1000)
    slices = np.floor(rows * len(means) / 1000).astype(int)
    assert len(np.unique(slices)) == len(means) > 2
    expected = np.exp(means[slices] - means[slices].max(axis=1, keepdims=True))
    np.testing.assert_allclose(recipe.draw_theta(np.random.default_rng(0), rows),
                               expected / expected.sum(axis=1, keepdims=True), rtol=1e-12)  # softmax rounding only


def test_quantile_lengths_round_the_inverse_cdf_to_the_nearest_integer():
    """Inverse-CDF sampling from the table (1, 3): lengths uniform on [1, 3] before rounding, so the nearest integer is
    1, 2, 3 with probabilities 1/4, 1/2, 1/4 (mean 2, as the table's). 200,000 draws: the frequencies' s.e. is
    ~0.001, the tolerance 0.005 (5 s.e.); rounding down instead would give 1/2, 1/2, 0."""
    from topicbench.semisynthetic import quantile_lengths
    lengths = quantile_lengths(np.array([1.0, 3.0]))(np.random.default_rng(0), 200_000)
    np.testing.assert_allclose(np.bincount(lengths, minlength=4)[1:] / len(lengths), [0.25, 0.5, 0.25], atol=0.005)


def test_uniform_lengths_include_both_bounds():
    """min_length/max_length draw uniform integers in [min_length, max_length], both ends included: [2, 3] gives 2 and
    3 about equally (2,000 draws: 3 s.e. of a half is 0.034)."""
    cls = get_dataset("nyt_like")
    recipe = cls().recipe(**cls.resolve_params({**SMALL["nyt_like"], "min_length": 2, "max_length": 3}))
    lengths = recipe.length_sampler(np.random.default_rng(0), 2000)
    assert set(lengths.tolist()) == {2, 3} and abs(np.mean(lengths == 3) - 0.5) < 0.034


def test_each_time_stamp_lies_in_the_slice_its_proportions_are_drawn_from():
    """science_like's clock spans the source's slices (start slice_start[0], S slices of slice_years): document d,
    drawn from slice floor(d S / D), carries a time inside that slice's years."""
    cls = get_dataset("science_like")
    recipe = cls().recipe(**cls.resolve_params({"n_train": 700, "n_test": 300, "n_topics": 5, "n_words": 50}))
    source = load_source("science")
    width, starts = source.info["slice_years"], np.asarray(source.slice_start, dtype=np.float64)
    rows = np.arange(1000)
    slices = rows * len(starts) // 1000
    times = recipe.time_of(rows)
    assert np.all(starts[slices] <= times + 1e-9) and np.all(times < starts[slices] + width)


def test_fewer_topics_are_the_sources_leading_topics_themselves():
    """n_topics = 4 plants the source's first 4 topics: the same rows as the full recipe's first 4."""
    cls = get_dataset("science_like")
    full_k = load_source("science").n_topics
    few = cls().recipe(**cls.resolve_params({"n_train": 10, "n_topics": 4, "n_words": 60})).model().topics
    full = cls().recipe(**cls.resolve_params({"n_train": 10, "n_topics": full_k, "n_words": 60})).model().topics
    np.testing.assert_array_equal(few, full[:4])


def test_sharpened_topics_and_logistic_normal_proportions_by_hand_even_where_exp_would_overflow():
    """beta^(1/T) renormalised, and theta = softmax(means + L z) with the generator's own draws z, by hand; at
    T = 0.001 and a covariance of 1e6 (log-odds far beyond exp's range) both stay finite rows summing to one."""
    from topicbench.semisynthetic import logistic_normal, sharpen

    topics_log = np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]))
    assert np.allclose(sharpen(topics_log, 0.5), np.array([[25, 9, 4], [1, 1, 64]]) / np.array([[38], [66]]))
    means, chol = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]]), np.diag([1.0, 2.0, 0.5])
    eta = means + np.random.default_rng(4).standard_normal((2, 3)) @ chol.T
    assert np.allclose(logistic_normal(np.random.default_rng(4), means, chol),
                       np.exp(eta) / np.exp(eta).sum(axis=1, keepdims=True), rtol=1e-12, atol=0)
    for rows in (sharpen(topics_log, 0.001), logistic_normal(np.random.default_rng(4), means, 1e3 * chol)):
        assert np.isfinite(rows).all() and np.allclose(rows.sum(axis=1), 1)


def test_the_smallest_valid_recipe_builds():
    """One topic, two words, documents of exactly one token (min_length = max_length = 1) are a recipe."""
    cls = get_dataset("nyt_like")
    corpus = cls().build(**cls.resolve_params({"n_train": 3, "n_test": 1, "n_topics": 1, "n_words": 2,
                                               "min_length": 1, "max_length": 1}))
    counts = corpus.split("train").counts
    assert counts.shape == (3, 2) and (counts.sum(axis=1) == 1).all()


def test_matrix_root_reproduces_a_singular_covariance():
    """matrix_root(cov) L has L L' = cov for a centred log-ratio covariance (rank K - 1, eigenvalues below 1 and one
    zero up to rounding): the small eigenvalues are kept, only negative rounding is clipped to 0."""
    from topicbench.semisynthetic import matrix_root

    rng = np.random.default_rng(0)
    x = rng.normal(scale=0.3, size=(50, 4))
    x -= x.mean(axis=1, keepdims=True)  # rows sum to 0: rank 3
    cov = np.cov(x, rowvar=False)
    root = matrix_root(cov)
    assert np.allclose(root @ root.T, cov, atol=1e-12) and np.linalg.eigvalsh(cov).max() < 1
