"""The fake-word planted family (``planted_lda``, ``like=`` the former ``*_like`` recipes): exact shapes,
learnable truth, drift and bursts, byte-identical files, recovery.

Corpora are small versions of each shape (D is a parameter; the shapes do not depend on it). The
semi-synthetic ``*_like`` recipes are tested in test_semisynthetic.py.
"""
import filecmp
from pathlib import Path
import json
import os
import time

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
import scipy.sparse as sp

from topicbench.corpus import CorpusError, load_corpus, save_corpus
from topicbench.dataset import get_dataset, prepare, prepare_provenance
from topicbench.run import RunSpec, run
from topicbench.synthetic import build_planted_corpus

# planted_lda shape (like=) -> (small size, target vocabulary, target mean length)
FAMILY = {
    "nyt_like": ({"n_train": 1500, "n_test": 150}, 8000, (175 + 300) / 2),
    "science_like": ({"n_train": 1000, "n_test": 100}, 5855, (500 + 1500) / 2),
    "wiki_like": ({"n_train": 3000, "n_test": 300}, 7700, 300.0),
    "twitter_like": ({"n_train": 20000, "n_test": 1000}, 20000, (2 + 20) / 2),
}
_CACHE = {}

def tree(root):
    """Every file under a corpus folder (the counts shards included), as sorted relative paths."""
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file())



def planted(name, **params):
    """The planted_lda dataset in the shape of the former recipe ``name`` (e.g. nyt_like -> like=nyt)."""
    return {"like": name.removesuffix("_like"), **params}


def small(name):
    if name not in _CACHE:
        cls = get_dataset("planted_lda")
        _CACHE[name] = cls().build(**cls.resolve_params(planted(name, **FAMILY[name][0])))
    return _CACHE[name]


def lengths_of(corpus):
    return np.asarray(corpus.counts.sum(axis=1)).ravel()


@pytest.mark.parametrize("name", sorted(FAMILY))
def test_exact_vocabulary_and_mean_length(name):
    params, n_words, mean_length = FAMILY[name]
    corpus = small(name)
    assert corpus.n_words == n_words and len(corpus.vocab) == n_words
    assert corpus.n_docs == params["n_train"] + params["n_test"]
    assert abs(lengths_of(corpus).mean() / mean_length - 1) < 0.05
    assert (corpus.docs["split"] == "test").sum() == params["n_test"]
    assert corpus.truth["topics"].shape == (100, n_words) and corpus.truth["theta"].shape == (corpus.n_docs, 100)


@pytest.mark.parametrize("name", sorted(FAMILY))
def test_true_model_far_below_word_frequency(name):
    """DESIGN.md: each recipe's true-model perplexity must be far from the word-frequency model's."""
    ref = small(name).meta["reference_perplexity"]
    assert ref["word_frequency"] > 2.5 * ref["true_model"], ref


@pytest.mark.parametrize("name", sorted(FAMILY))
def test_time_stamps_follow_generation_order(name):
    corpus = small(name)
    times = corpus.docs["time"].to_numpy()
    assert corpus.has_time and np.all(np.diff(times) > 0)
    assert corpus.meta["time_unit"].startswith("decimal year")


def test_shapes_of_each_namesake():
    science, wiki, twitter = small("science_like"), small("wiki_like"), small("twitter_like")
    assert lengths_of(science).min() >= 500  # long documents
    wiki_lengths = lengths_of(wiki)
    assert wiki_lengths.std() / wiki_lengths.mean() > 0.9  # widely spread (log-normal, sigma 1: CV ~ 1.3)
    assert wiki_lengths.max() > 8 * wiki_lengths.mean() and np.quantile(wiki_lengths, 0.1) < 0.4 * wiki_lengths.mean()
    tweet_lengths = lengths_of(twitter)
    assert tweet_lengths.min() == 2 and tweet_lengths.max() == 20
    # test documents spread over the whole stream where prevalence changes with time
    for corpus in (science, twitter):
        test_rows = np.flatnonzero(corpus.docs["split"].to_numpy() == "test")
        assert test_rows[0] < corpus.n_docs * 0.05 and test_rows[-1] > corpus.n_docs * 0.95
    assert (small("nyt_like").docs["split"].iloc[-150:] == "test").all()  # nyt_like keeps train-then-test


def test_science_prevalence_drifts_and_nyt_does_not():
    def drift(corpus):
        theta = corpus.truth["theta"]
        tenth = len(theta) // 10
        return np.abs(theta[:tenth].mean(axis=0) - theta[-tenth:].mean(axis=0)).sum()

    assert drift(small("science_like")) > 0.8  # L1 distance between early and late topic prevalence
    assert drift(small("nyt_like")) < 0.3  # sampling noise only


def test_twitter_topics_burst():
    corpus = small("twitter_like")
    theta = corpus.truth["theta"]
    n_slices = 200
    slices = np.arange(corpus.n_docs) * n_slices // corpus.n_docs
    per_slice = np.stack([theta[slices == s].mean(axis=0) for s in range(n_slices)])  # slices x K
    peak_over_median = per_slice.max(axis=0) / np.median(per_slice, axis=0)
    n_bursty = int((peak_over_median > 20).sum())
    assert 25 <= n_bursty <= 35  # 30% of 100 topics burst; steady topics stay within noise
    assert (peak_over_median < 4).sum() >= 60


def test_same_seed_same_bytes_and_nothing_time_dependent(tmp_path, monkeypatch):
    monkeypatch.setattr("topicbench.corpus.SHARD_ROWS", 128)  # several shards, cut across the generator's chunks
    params = {"n_train": 300, "n_test": 40, "n_words": 900}
    first = prepare("planted_lda", tmp_path / "a", **planted("science_like", **params))
    time.sleep(2.1)  # zip members carry 2-second time stamps: cross at least one boundary
    second = prepare("planted_lda", tmp_path / "b", **planted("science_like", **params))
    names = tree(first)
    assert [n for n in names if not n.startswith("counts/")] == ["corpus.json", "docs.parquet", "truth.npz", "vocab.txt"]
    assert {"counts/manifest.json", "counts/00001.data.npy"} <= set(names) and names == tree(second)  # several shards
    for name in names:
        assert filecmp.cmp(first / name, second / name, shallow=False), name
    other = prepare("planted_lda", tmp_path / "c", **planted("science_like", **params), seed=2)
    assert not filecmp.cmp(first / "counts/00000.indices.npy", other / "counts/00000.indices.npy", shallow=False)


@pytest.mark.parametrize("name", sorted(FAMILY))
def test_streaming_writer_equals_in_memory_path(tmp_path, name, monkeypatch):
    monkeypatch.setattr("topicbench.corpus.SHARD_ROWS", 128)  # several shards, cut across the generator's chunks
    params = planted(name, **{**FAMILY[name][0], "n_train": 400, "n_test": 40, "chunk_size": 150})
    cls = get_dataset("planted_lda")
    resolved = cls.resolve_params(params)
    corpus = cls().build(**resolved)
    corpus.meta["dataset_params"] = resolved
    corpus.meta["dataset_recipe"] = "planted_lda"  # as prepare records them
    corpus.meta["prepared_by"] = prepare_provenance(cls)
    save_corpus(corpus, tmp_path / "memory")
    prepare("planted_lda", tmp_path / "stream", **params)  # several chunks, written by synthetic.write_recipe
    assert tree(tmp_path / "memory") == tree(tmp_path / "stream")
    for file in tree(tmp_path / "memory"):
        assert filecmp.cmp(tmp_path / "memory" / file, tmp_path / "stream" / file, shallow=False), file
    loaded = load_corpus(tmp_path / "stream")
    assert (loaded.counts != corpus.counts).nnz == 0 and np.array_equal(loaded.truth["theta"], corpus.truth["theta"])


def test_chunk_size_only_changes_the_draws_not_the_shape():
    cls = get_dataset("planted_lda")
    a = cls().build(**cls.resolve_params(planted("nyt_like", n_train=300, n_test=30)))
    b = cls().build(**cls.resolve_params(planted("nyt_like", n_train=300, n_test=30, chunk_size=100)))
    assert a.counts.shape == b.counts.shape and (a.counts != b.counts).nnz > 0
    assert json.dumps(a.meta["generator"]["chunk_size"]) == "5000" and b.meta["generator"]["chunk_size"] == 100


def test_bad_recipe_parameters():
    with pytest.raises(CorpusError, match="n_train must be >= 1"):
        get_dataset("planted_lda")().build(**get_dataset("planted_lda").resolve_params(planted("wiki_like", n_train=0)))
    with pytest.raises(CorpusError, match=r"unknown parameter\(s\) \['D'\]"):
        prepare("planted_lda", "/tmp/never", **planted("twitter_like", D=10))


def test_planted_topics_recovered_by_online_lda():
    """Online LDA (methods/online_lda.py) on a small planted corpus finds every planted topic.

    With K equal to the planted 10, online LDA sometimes merges two planted topics into one (a local
    optimum: 1 of 5 seeds when this test was written), so it gets 15 topics and each planted topic is
    matched to a distinct fitted one (Hungarian); all 5 seeds then gave mean cosine >= 0.996.
    """
    def lengths(rng, n):
        return rng.integers(80, 121, size=n)

    corpus = build_planted_corpus("recovery", 2000, 100, 1000, 10, 0.05, 0.1, lengths, seed=5)
    spec = RunSpec(method="online_lda", params={"K": 15, "batch_size": 100, "kappa": 0.7, "tau0": 16.0,
                                                "alpha": 0.1, "eta": 0.01}, seed=0, passes=3, n_checkpoints=1,
                   report_elbo=False)
    _, method = run(spec, corpus)
    fitted = method.topics() / method.topics().sum(axis=1, keepdims=True)
    planted = corpus.truth["topics"]
    cosine = (planted / np.linalg.norm(planted, axis=1, keepdims=True)) @ \
        (fitted / np.linalg.norm(fitted, axis=1, keepdims=True)).T  # planted x fitted
    rows, cols = linear_sum_assignment(-cosine)
    assert len(rows) == 10
    assert cosine[rows, cols].mean() >= 0.9, cosine[rows, cols]


def test_time_slices_and_clock_split_generation_order_evenly():
    """Document d of D falls in time slice floor(d S / D), so S slices of D / S documents each when S divides D, and
    the clock spaces the documents span / D apart over [start, start + span), the first at start."""
    from topicbench.synthetic import linear_clock, slice_of

    assert np.bincount(slice_of(np.arange(100), 100, 4)).tolist() == [25, 25, 25, 25]
    times = linear_clock(1990.0, 10.0, 100)(np.arange(100))
    np.testing.assert_allclose(times, 1990.0 + 0.1 * np.arange(100), rtol=0, atol=1e-9)  # rounding of the quotient


def test_word_names_rank_each_planted_topics_words_by_probability():
    """``tKKKwRRR`` is the RRR-th most probable word of planted topic KKK among the words that topic owns (its largest
    probability over topics): word 2 (0.5) and word 0 (0.3) belong to topic 0, words 1 and 3 to topic 1."""
    from topicbench.synthetic import word_names

    topics = np.array([[0.3, 0.1, 0.5, 0.1], [0.1, 0.6, 0.1, 0.2]])
    assert word_names(topics) == ["t000w001", "t001w000", "t000w000", "t001w001"]


def test_each_chunk_draws_from_its_own_generator():
    """Chunks are seeded by (seed, chunk index): two chunks of 10 documents are different draws, not one draw twice."""
    from topicbench.synthetic import PlantedModel, generate_chunks, planted_topics

    model = PlantedModel(planted_topics(3, 40, 0.1, seed=0), np.full(3, 0.5))
    chunks = [counts for _, counts, _ in generate_chunks(model, 20, lambda rng, n: rng.integers(5, 15, size=n), 3, 10)]
    assert len(chunks) == 2 and (chunks[0] != chunks[1]).nnz > 0


def test_planted_topics_follow_their_seed_and_no_document_is_empty():
    """Another seed draws other topics; a length sampler that returns 0 still yields documents of one token (an empty
    document is an error at load time, DESIGN.md)."""
    from topicbench.synthetic import PlantedModel, generate_chunks, planted_topics

    assert not np.allclose(planted_topics(3, 40, 0.1, seed=1), planted_topics(3, 40, 0.1, seed=2))
    model = PlantedModel(planted_topics(3, 40, 0.1, seed=0), np.full(3, 0.5))
    [(_, counts, _)] = list(generate_chunks(model, 6, lambda rng, n: np.zeros(n, dtype=np.int64), 0, 10))
    assert np.asarray(counts.sum(axis=1)).ravel().tolist() == [1] * 6


def test_logistic_normal_corpus_has_no_empty_document_and_proportions_per_document():
    """The planted C-NMF corpus: Poisson(0.3) lengths are mostly 0, yet every document gets at least one token; each
    theta_d = softmax(y_d) sums to one."""
    from topicbench.synthetic import logistic_normal_corpus

    counts, topics, theta = logistic_normal_corpus(50, 20, np.eye(3), 0.5, 0.3, seed=0)
    assert np.asarray(counts.sum(axis=1)).min() >= 1
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def test_oracle_loglik_weights_each_word_by_its_count():
    """By hand: p(w | d) = sum_k theta_dk beta_kw; doc 0 holds word 0 twice and word 2 once, doc 1 word 1 three times:
    (2 log 0.4 + log 0.3 + 3 log 0.5) / 6."""
    from topicbench.synthetic import oracle_loglik_per_word

    theta = np.array([[0.5, 0.5], [1.0, 0.0]])
    topics = np.array([[0.6, 0.1, 0.3], [0.2, 0.5, 0.3]])  # doc 0: p = 0.4, 0.3, 0.3; doc 1: p = 0.6, 0.1, 0.3
    heldout = sp.csr_matrix(np.array([[2, 0, 1], [0, 3, 0]]))
    expected = (2 * np.log(0.4) + np.log(0.3) + 3 * np.log(0.1)) / 6
    assert oracle_loglik_per_word(theta, topics, heldout) == pytest.approx(expected, rel=1e-12)


def test_interleaved_test_documents_end_each_block_of_the_stream():
    """split_layout 'interleaved' (D = 10, 2 test): exactly 2 test documents, each the last of its block of D / n_test
    = 5, so the test set reaches the end of the stream (rows 4 and 9)."""
    from topicbench.synthetic import PlantedRecipe

    recipe = PlantedRecipe("x", 8, 2, 20, 2, 0.1, 0.5, lambda rng, n: np.full(n, 5), 0, split_layout="interleaved")
    assert np.flatnonzero(recipe.is_test(np.arange(10))).tolist() == [4, 9]


def test_reference_perplexities_score_the_heldout_halves():
    """corpus.json's reference perplexities are scored like the runs: the held-out half of each test document
    (eval seed 0, fraction 0.5), under the true theta and topics, and under add-one training word frequencies."""
    from topicbench.evaluate import split_documents

    recipe_corpus = build_planted_corpus("ref", 60, 21, 30, 3, 0.1, 0.3, lambda rng, n: rng.integers(5, 12, size=n), 4)
    test = recipe_corpus.split("test")
    theta, topics = recipe_corpus.truth["theta"][-21:], recipe_corpus.truth["topics"]
    _, held = split_documents(test.counts, 0.5, 0)
    dense = held.toarray()
    assert dense.sum() != (test.counts.toarray() - dense).sum()  # the halves differ, so the test can tell them apart
    truth = np.exp(-(dense * np.log(theta @ topics)).sum() / dense.sum())
    freq = np.asarray(recipe_corpus.split("train").counts.sum(axis=0)).ravel() + 1.0
    unigram = np.exp(-(dense * np.log(freq / freq.sum())).sum() / dense.sum())
    reference = recipe_corpus.meta["reference_perplexity"]
    assert reference["true_model"] == pytest.approx(truth, rel=1e-10)
    assert reference["word_frequency"] == pytest.approx(unigram, rel=1e-10)
    assert (reference["heldout_docs"], reference["heldout_unscored"]) == (21, 0)  # every test document scored


def test_bursty_prevalence_by_hand():
    """burst_fraction 0.36 of K = 10: round(3.6) = 4 bursty topics, each quiet (0.1) except for exactly 3 slices
    at 5.0, the other topics at 1; read back unnormalised against the topics that never burst."""
    from topicbench.synthetic import bursty_prevalence

    prevalence = bursty_prevalence(10, 20, 0.36, 3, 5.0, 0.1, seed=2)
    assert np.allclose(prevalence.sum(axis=1), 1.0)
    # 6 of the 10 topics never burst, so each slice's median is their weight 1 / Z: divide it out
    ratios = prevalence / np.median(prevalence, axis=1, keepdims=True)
    bursty = [k for k in range(10) if not np.allclose(ratios[:, k], 1.0)]
    assert len(bursty) == 4
    for k in bursty:
        assert np.isclose(ratios[:, k], 5.0).sum() == 3 and np.isclose(ratios[:, k], 0.1).sum() == 17
    # each burst starts uniformly at 0..20 - 3, so that it ends inside the stream, on the last slice at the latest:
    # the recipe's own draws, by hand
    rng = np.random.default_rng([2, 0xB0257])
    topics = rng.permutation(10)[:4]
    starts = dict(zip(topics.tolist(), rng.integers(0, 18, size=4).tolist()))
    assert {k: int(np.flatnonzero(np.isclose(ratios[:, k], 5.0))[0]) for k in bursty} == starts
    # every slice can hold a burst, the last one too: 4 slices, one bursty topic of 10 with a burst of 2 slices
    # (start 0, 1 or 2), over 30 seeds
    covered = set()
    for s in range(30):
        ratios = bursty_prevalence(10, 4, 0.1, 2, 5.0, 0.1, seed=s)
        ratios = ratios / np.median(ratios, axis=1, keepdims=True)
        covered |= set(np.flatnonzero(np.isclose(ratios, 5.0).any(axis=1)).tolist())
    assert covered == {0, 1, 2, 3}


def test_sampled_words_follow_the_topics_and_underflowed_proportions_get_one_topic():
    """w ~ beta_z: word frequencies of a one-topic corpus match its topic; gamma draws that all underflow
    (alpha = 1e-4) leave a document one topic at random, not NaN proportions; topics sum to one."""
    from topicbench.synthetic import PlantedModel, planted_topics, sample_documents

    topics = planted_topics(2, 1000, 0.01, seed=0)
    assert np.abs(topics.sum(axis=1) - 1).max() < 1e-13  # most of the 1e-12 floors are hit here
    model = PlantedModel(topics[:, :6] / topics[:, :6].sum(axis=1, keepdims=True), np.full(2, 1e-4))
    counts, theta = sample_documents(model, np.full(40, 500), np.random.default_rng(0))
    assert np.isfinite(theta).all() and np.allclose(theta.sum(axis=1), 1) and set(np.unique(theta)) <= {0.0, 1.0}
    assert (counts.sum(axis=1) == 500).all()
    for k in range(2):
        rows = theta[:, k] == 1
        freq = np.asarray(counts[rows].sum(axis=0)).ravel() / (500 * rows.sum())
        assert np.abs(freq - model.topics[k]).max() < 0.02, (k, freq, model.topics[k])


def test_recipe_bounds_accept_the_smallest_valid_values_and_refuse_zero_concentrations():
    """One training document, word, topic, chunk and no test split is a recipe; zero concentrations are not."""
    from topicbench.synthetic import PlantedRecipe

    def recipe(**changes):
        values = dict(name="r", n_train=1, n_test=0, n_words=1, n_topics=1, topic_concentration=0.1, doc_alpha=0.1,
                      length_sampler=None, seed=0, chunk_size=1)
        return PlantedRecipe(**{**values, **changes})

    recipe().check()
    for key in ("topic_concentration", "doc_alpha"):
        with pytest.raises(CorpusError, match="must be positive"):
            recipe(**{key: 0.0}).check()


def test_drifting_prevalence_is_the_softmax_of_a_gaussian_walk_even_where_exp_would_overflow():
    """Each slice's proportions are softmax(cumulative N(0, step^2) log-odds), by hand; a walk of step 1000 (logits
    far beyond exp's range) still gives finite proportions summing to one."""
    from topicbench.synthetic import drifting_prevalence

    walk = np.cumsum(np.random.default_rng([3, 0xD81F7]).normal(0.0, 0.5, size=(6, 4)), axis=0)
    expected = np.exp(walk) / np.exp(walk).sum(axis=1, keepdims=True)
    assert np.allclose(drifting_prevalence(4, 6, 0.5, seed=3), expected, rtol=1e-12, atol=0)
    wild = drifting_prevalence(4, 6, 1000.0, seed=3)
    assert np.isfinite(wild).all() and np.allclose(wild.sum(axis=1), 1)


def test_logistic_normal_corpus_by_hand_and_its_input_bounds():
    """theta_d = softmax(y_d), y_d ~ N(0, covariance) with the generator's own draws, by hand, finite where exp(y)
    would overflow (covariance 1e6); a singular PSD covariance is accepted; an indefinite one, zero concentration
    or zero mean length refused."""
    from topicbench.synthetic import logistic_normal_corpus

    covariance = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, -0.3], [0.0, -0.3, 1.0]])
    y = np.random.default_rng([1, 0x10C]).multivariate_normal(np.zeros(3), covariance, size=4)
    _, _, theta = logistic_normal_corpus(4, 10, covariance, 0.5, 20.0, seed=1)
    assert np.allclose(theta, np.exp(y) / np.exp(y).sum(axis=1, keepdims=True), rtol=1e-12, atol=0)
    _, _, wild = logistic_normal_corpus(4, 10, 1e6 * covariance, 0.5, 20.0, seed=1)
    assert np.isfinite(wild).all() and np.allclose(wild.sum(axis=1), 1)
    logistic_normal_corpus(2, 10, np.ones((2, 2)), 0.5, 20.0, seed=1)  # rank 1: eigenvalue 0
    with pytest.raises(ValueError, match="positive semi-definite"):
        logistic_normal_corpus(2, 10, np.array([[1.0, 2.0], [2.0, 1.0]]), 0.5, 20.0, seed=1)
    for concentration, length in ((0.0, 20.0), (0.5, 0.0)):
        with pytest.raises(ValueError, match="must be > 0"):
            logistic_normal_corpus(2, 10, np.eye(2), concentration, length, seed=1)
