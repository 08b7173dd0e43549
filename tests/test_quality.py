"""NPMI coherence, topic diversity and planted recovery (topicbench/quality.py)."""
import itertools
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from topicbench.method import REPO_ROOT
from topicbench.quality import (final_checkpoint_quality, npmi_coherence, planted_recovery, top_words,
                                topic_diversity)

CORPORA = Path(os.environ.get("TOPICBENCH_CORPORA_DIR", REPO_ROOT.parent / "shared" / "corpora"))
# Both sides evaluate the same float64 formula on the same integer counts; they differ only in the order of the
# mean over <= 90 pairs, i.e. by a few ulps of values of order 1.
GENSIM_TOL = 1e-12


def gensim_npmi(topics, counts):
    """gensim's c_npmi with a window covering every whole document: its sliding-window estimator is then document
    co-occurrence (each document's distinct words listed once; see the topicbench.quality docstring)."""
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    counts = sp.csr_matrix(counts)
    texts = [[f"w{j}" for j in counts.indices[counts.indptr[d] : counts.indptr[d + 1]]] for d in range(counts.shape[0])]
    dictionary = Dictionary(texts)
    dictionary.add_documents([[f"w{j}" for t in topics for j in t]])  # words absent from every text still have ids
    model = CoherenceModel(topics=[[f"w{j}" for j in t] for t in topics], texts=texts, dictionary=dictionary,
                           coherence="c_npmi", window_size=max(len(t) for t in texts), topn=max(len(t) for t in topics),
                           processes=1)
    return np.array(model.get_coherence_per_topic()), model.get_coherence()


def random_corpus(seed, n_docs=400, n_words=300, n_topics=8):
    """Documents mixing a few planted topics, so that top words co-occur more than chance (NPMI spread both ways)."""
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.2), size=n_docs)
    counts = np.vstack([rng.multinomial(rng.integers(20, 80), t @ topics) for t in theta])
    counts[[5, 200]] = 0  # empty documents still count in D, as gensim counts every window
    return sp.csr_matrix(counts), topics


# -- NPMI -----------------------------------------------------------------------------------------------------------
def test_npmi_by_hand_on_three_documents():
    # d0 = {a (x5), b}, d1 = {a, b, c}, d2 = {c}; D_a = D_b = D_c = 2, D_ab = 2, D_ac = D_bc = 1, D = 3
    reference = sp.csr_matrix(np.array([[5, 1, 0], [1, 1, 1], [0, 0, 2]]))
    npmi_ab = np.log((2 / 3) / (2 / 3) ** 2) / -np.log(2 / 3)  # = 1: a and b always co-occur
    npmi_ac = np.log((1 / 3) / (2 / 3) ** 2) / -np.log(1 / 3)  # = log(3/4) / log(3)
    got = npmi_coherence([[0, 1, 2], [0, 1]], reference)
    # eps = 1e-12 moves every term by ~1e-12 relative; 1e-9 leaves room for that and nothing else
    assert got.per_topic == pytest.approx([(npmi_ab + 2 * npmi_ac) / 3, 1.0], abs=1e-9)
    assert got.mean == pytest.approx(((npmi_ab + 2 * npmi_ac) / 3 + 1) / 2, abs=1e-9)
    assert got.n_docs == 3


def test_npmi_agrees_with_gensim_on_a_synthetic_corpus():
    counts, planted = random_corpus(0)
    present = np.flatnonzero(counts.getnnz(axis=0))  # absent words: see the -1 convention test below
    top = top_words(planted, 10) + [present[:10], present[[7, 3, 250, 99, 12]]]  # planted, arbitrary, a short topic
    per_topic, mean = gensim_npmi(top, counts)
    got = npmi_coherence(top, counts)
    assert np.ptp(got.per_topic) > 0.2  # a spread of scores, not one value agreeing by accident
    np.testing.assert_allclose(got.per_topic, per_topic, rtol=0, atol=GENSIM_TOL)
    assert got.mean == pytest.approx(mean, abs=GENSIM_TOL)


def test_npmi_is_independent_of_the_chunking():
    counts, planted = random_corpus(1)
    top = top_words(planted, 10)
    whole = npmi_coherence(top, counts).per_topic
    # chunk_entries = 1 reads one document at a time; integer co-counts make every chunking exact
    np.testing.assert_array_equal(npmi_coherence(top, counts, chunk_entries=1).per_topic, whole)
    np.testing.assert_array_equal(npmi_coherence(top, counts, chunk_entries=17 * 80).per_topic, whole)


@pytest.mark.skipif(not CORPORA.is_dir(), reason=f"shared corpora directory {CORPORA} is absent")
def test_npmi_agrees_with_gensim_on_lee_news():
    from topicbench.dataset import get_dataset

    corpus = get_dataset("lee_news_gensim")
    corpus = corpus().build(corpora_dir=CORPORA, **corpus.resolve_params({}))
    counts = corpus.counts
    # topics of co-occurring words: each of 15 documents' 10 most frequent words, plus 5 random word sets
    rng = np.random.default_rng(0)
    rows = counts[rng.choice(counts.shape[0], 15, replace=False)].toarray()
    top = top_words(rows, 10) + [rng.choice(counts.shape[1], 10, replace=False) for _ in range(5)]
    per_topic, mean = gensim_npmi(top, counts)
    got = npmi_coherence(top, counts)
    np.testing.assert_allclose(got.per_topic, per_topic, rtol=0, atol=GENSIM_TOL)
    assert got.mean == pytest.approx(mean, abs=GENSIM_TOL)


def test_a_word_absent_from_the_reference_scores_minus_one_where_gensim_is_not_finite():
    reference = sp.csr_matrix(np.array([[5, 1, 0], [1, 1, 0], [0, 0, 0]]))  # word 2 occurs nowhere
    got = npmi_coherence([[0, 1, 2]], reference)
    assert got.per_topic[0] == pytest.approx((1.0 - 1.0 - 1.0) / 3, abs=1e-9)  # pairs ab = 1, a2 = b2 = -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # gensim divides by p_2 = 0
        gensim_score, _ = gensim_npmi([[0, 1, 2]], reference)
    assert not np.isfinite(gensim_score[0])  # the documented reason for the -1 convention


def test_topics_with_fewer_than_n_positive_words():
    topics = np.array([[0.5, 0.3, 0.2, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0], [0.1, 0.2, 0.3, 0.4, 0.0]])
    top = top_words(topics, 4)
    assert [t.tolist() for t in top] == [[0, 1, 2], [3], [3, 2, 1, 0]]  # zero-weight words are never listed
    reference = sp.csr_matrix(np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 0], [1, 0, 1, 0, 1]]))
    got = npmi_coherence(top, reference)
    assert np.isnan(got.per_topic[1])  # one word, no pair: no score
    assert np.isfinite(got.per_topic[[0, 2]]).all()
    assert got.mean == pytest.approx(got.per_topic[[0, 2]].mean(), abs=1e-15)
    assert npmi_coherence(top, reference, n=3).per_topic[0] == got.per_topic[0]  # only the first n count


def test_top_words_break_ties_by_the_lower_word_id():
    """Equal weights are listed in word-id order (the docstring's rule), so a topic's top words do not depend on the
    sort's whim. By hand: weights 0.2, 0.3, 0.3, 0.2 -> words 1, 2 (0.3 each), then 0 (the lower id of the 0.2s)."""
    assert [t.tolist() for t in top_words(np.array([[0.2, 0.3, 0.3, 0.2], [1.0, 1.0, 1.0, 0.0]]), 3)] == [[1, 2, 0],
                                                                                                     [0, 1, 2]]
    # a long tie (sorts switch algorithm past a few dozen entries; numpy's quicksort is then unstable): a flat topic of
    # 200 words with every 7th word lighter lists the heavy words 1..6, 8..13, ... in id order
    flat = np.ones((1, 200))
    flat[0, ::7] = 0.5
    assert top_words(flat, 12)[0].tolist() == [w for w in range(200) if w % 7][:12]


def test_npmi_rejects_bad_input_before_compute():
    reference = sp.csr_matrix(np.eye(4))
    with pytest.raises(ValueError, match="topic 1 lists a word twice"):
        npmi_coherence([[0, 1], [2, 2]], reference)
    with pytest.raises(ValueError, match="topic 0 has a word id outside"):
        npmi_coherence([[0, 4]], reference)
    with pytest.raises(TypeError, match="scipy sparse"):
        npmi_coherence([[0, 1]], np.eye(4))
    with pytest.raises(ValueError, match="negative or non-finite count"):
        npmi_coherence([[0, 1]], sp.csr_matrix(-np.eye(4)))
    for bad in (np.nan, np.inf):  # one bad count among finite ones: a NaN is not > 0, so the document would drop it
        with pytest.raises(ValueError, match="negative or non-finite count"):
            npmi_coherence([[0, 1]], sp.csr_matrix(np.array([[1.0, bad], [1.0, 1.0]])))
    with pytest.raises(ValueError, match="at least 2 top words"):
        npmi_coherence([[0, 1]], reference, n=1)
    with pytest.raises(ValueError, match="topic 1 has a negative"):
        top_words(np.array([[1.0, 0.0], [np.nan, 1.0]]), 2)


# -- diversity ------------------------------------------------------------------------------------------------------
def test_topic_diversity_on_a_toy_example():
    assert topic_diversity([[0, 1, 2], [2, 3, 4]], n=3) == pytest.approx(5 / 6)
    assert topic_diversity([[0, 1, 2], [2, 3, 4]], n=2) == 1.0  # only the first n words count
    assert topic_diversity([[0, 1, 2]] * 4, n=3) == pytest.approx(1 / 4)
    assert topic_diversity([[0, 1, 2], [1]], n=3) == pytest.approx(3 / 4)  # a short topic: words listed


# -- recovery -------------------------------------------------------------------------------------------------------
def planted(seed=0, k=6, v=80):
    return np.random.default_rng(seed).dirichlet(np.full(v, 0.1), size=k)


def test_recovery_of_permuted_rescaled_topics_is_one():
    truth = planted()
    fitted = 7.0 * truth[np.random.default_rng(1).permutation(len(truth))]  # unnormalised, as lambda is
    got = planted_recovery(fitted, truth)
    assert got.cosine == pytest.approx(1.0, abs=1e-12) and got.fraction == 1.0  # float rounding of unit cosines


def test_recovery_of_perturbed_topics_is_below_one_and_is_the_best_matching():
    truth = planted()
    rng = np.random.default_rng(2)
    fitted = truth[rng.permutation(len(truth))] + rng.gamma(0.5, 0.02, size=truth.shape)
    got = planted_recovery(fitted, truth)
    assert 0 < got.cosine < 1
    a = fitted / np.linalg.norm(fitted, axis=1, keepdims=True)
    b = truth / np.linalg.norm(truth, axis=1, keepdims=True)
    cos = a @ b.T
    best = max(cos[list(p), range(len(truth))].mean() for p in itertools.permutations(range(len(truth))))
    assert got.cosine == pytest.approx(best, abs=1e-12)  # the optimum over all 720 matchings, not a greedy one
    assert got.fraction == np.mean(got.matched_cosine >= 0.9)


def test_recovery_fraction_counts_true_topics_at_the_threshold():
    truth = planted(k=4)
    fitted = truth.copy()
    fitted[0] = truth[0] + truth[1]  # cosine with truth[0] is well below 0.9
    got = planted_recovery(fitted, truth)
    assert got.fraction == 3 / 4
    assert planted_recovery(fitted, truth, threshold=got.matched_cosine[0]).fraction == 1.0  # ">=" the threshold


def test_recovery_with_different_numbers_of_topics():
    truth = planted(k=5)
    fewer = planted_recovery(truth[[3, 0, 1]], truth)
    assert fewer.cosine == pytest.approx(1.0, abs=1e-12)  # mean over the 3 matched pairs
    assert fewer.fraction == 3 / 5  # over the true topics: two are not recovered
    assert np.isnan(fewer.matched_cosine[[2, 4]]).all()
    more = planted_recovery(np.vstack([planted(9, k=3), truth]), truth)
    assert more.cosine == pytest.approx(1.0, abs=1e-12) and more.fraction == 1.0


def test_recovery_rejects_bad_input():
    truth = planted(k=3)
    with pytest.raises(ValueError, match="vocabularies differ"):
        planted_recovery(truth[:, :-1], truth)
    zero = truth.copy()
    zero[1] = 0
    with pytest.raises(ValueError, match="true topics: topic 1 is all zero"):
        planted_recovery(truth, zero)
    nan = truth.copy()
    nan[2, 0] = np.nan
    with pytest.raises(ValueError, match="fitted topics: topic 2 is all zero or non-finite"):
        planted_recovery(nan, truth)


def test_an_all_zero_fitted_topic_recovers_nothing():
    truth = planted(k=3)
    fitted = truth.copy()
    fitted[1] = 0  # e.g. an unused LG-NMF column
    got = planted_recovery(fitted, truth)
    assert got.matched_cosine[[0, 2]] == pytest.approx([1, 1], abs=1e-12) and got.matched_cosine[1] == 0
    assert got.cosine == pytest.approx(2 / 3, abs=1e-12) and got.fraction == 2 / 3


# -- the runner's columns -------------------------------------------------------------------------------------------
class Fixed:
    name = "fixed"

    def __init__(self, topics):
        self._topics = topics

    def topics(self):
        return self._topics


def test_final_checkpoint_quality_columns():
    counts, truth = random_corpus(3)
    row = final_checkpoint_quality(Fixed(3 * truth), counts, truth_topics=truth)
    assert set(row) == {"npmi", "topic_diversity", "recovery_cosine", "recovery_frac_090"}
    assert row["npmi"] == pytest.approx(npmi_coherence(top_words(truth, 10), counts).mean, abs=0)
    assert row["topic_diversity"] == topic_diversity(top_words(truth, 25))
    assert row["recovery_cosine"] == pytest.approx(1.0, abs=1e-12) and row["recovery_frac_090"] == 1.0
    no_truth = final_checkpoint_quality(Fixed(truth), counts)
    assert np.isnan(no_truth["recovery_cosine"]) and np.isnan(no_truth["recovery_frac_090"])
    unused = truth.copy()
    unused[0] = 0  # an all-zero topic lists no word: no NPMI, no diversity words, cosine 0
    row = final_checkpoint_quality(Fixed(unused), counts, truth_topics=truth)
    assert row["npmi"] == pytest.approx(npmi_coherence(top_words(truth[1:], 10), counts).mean, abs=1e-15)
    assert row["topic_diversity"] == topic_diversity(top_words(truth[1:], 25))
    assert row["recovery_frac_090"] == 7 / 8
    with pytest.raises(ValueError, match="do not match the reference vocabulary"):
        final_checkpoint_quality(Fixed(truth[:, :-1]), counts)


def test_final_checkpoint_recovery_counts_at_0_90():
    """recovery_frac_090 is the fraction of true topics matched at cosine >= 0.90, its name's threshold: one fitted
    topic blurred to a cosine between 0.5 and 0.9 with its true topic (computed by hand) counts as not recovered."""
    counts, truth = random_corpus(4)
    fitted = truth.copy()
    fitted[0] = truth[0] + 0.1 * truth[0].max() * np.full(truth.shape[1], 1.0)  # the same topic under a flat haze
    cos = fitted[0] @ truth[0] / (np.linalg.norm(fitted[0]) * np.linalg.norm(truth[0]))
    assert 0.5 < cos < 0.9
    row = final_checkpoint_quality(Fixed(fitted), counts, truth_topics=truth)
    assert row["recovery_frac_090"] == 7 / 8
    assert row["recovery_cosine"] == pytest.approx((7 + cos) / 8, abs=1e-12)  # unit cosines up to rounding
    fitted[0] = truth[0] + 0.08 * truth[0].max() * np.full(truth.shape[1], 1.0)  # a lighter haze: between 0.8 and 0.9
    cos = fitted[0] @ truth[0] / (np.linalg.norm(fitted[0]) * np.linalg.norm(truth[0]))
    assert 0.8 < cos < 0.9
    assert final_checkpoint_quality(Fixed(fitted), counts, truth_topics=truth)["recovery_frac_090"] == 7 / 8


def test_final_checkpoint_diversity_lists_each_topics_top_25_words():
    """Dieng, Ruiz & Blei 2020: diversity over "the top 25 words of all topics". Four topics with 10 own heaviest words
    each, then the same 15 shared words: by hand (40 + 15) / (4 x 25) = 0.55 over the top 25 (1.0 over the top 10)."""
    K, V = 4, 70
    topics = np.zeros((K, V))
    for k in range(K):
        topics[k, 10 * k: 10 * k + 10] = np.arange(20, 10, -1)  # own words, weights 20..11
        topics[k, 40:55] = np.linspace(5, 1, 15)  # shared words, all lighter
    counts, _ = random_corpus(3, n_words=V)  # an NPMI reference over the same V words
    assert final_checkpoint_quality(Fixed(topics), counts)["topic_diversity"] == pytest.approx(55 / 100, abs=1e-15)


def test_quality_input_bounds():
    """The edges of valid input are accepted: one top word (two for NPMI), a stored zero count (no document holding
    the word), a corpus view with more documents than words (read by rows, not by columns), a recovery threshold of
    1; no topics, no documents, a negative word id or count, eps = 0, a threshold of 0 are refused."""
    class View:  # a corpus view: rows read on demand
        def __init__(self, matrix):
            self.matrix, self.shape = matrix, matrix.shape

        def rows(self, rows):
            return self.matrix[rows]

    dense = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1]])
    reference = sp.csr_matrix(dense)
    assert np.array_equal(npmi_coherence([[0, 1], [2, 3]], View(reference)).per_topic,
                          npmi_coherence([[0, 1], [2, 3]], reference).per_topic)
    stored_zero = sp.csr_matrix((np.array([1, 0, 1]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    dropped = stored_zero.copy()
    dropped.eliminate_zeros()
    assert stored_zero.nnz == 3 and np.array_equal(npmi_coherence([[0, 1]], stored_zero, n=2).per_topic,
                                                   npmi_coherence([[0, 1]], dropped, n=2).per_topic)
    with pytest.raises(ValueError, match="eps must be > 0"):
        npmi_coherence([[0, 1]], reference, eps=0.0)
    assert [w.tolist() for w in top_words(np.array([[0.2, 0.8], [0.6, 0.4]]), 1)] == [[1], [0]]
    assert [w.tolist() for w in top_words(np.zeros((2, 0)), 3)] == [[], []]
    with pytest.raises(ValueError, match="K >= 1"):
        top_words(np.zeros((0, 3)), 3)
    with pytest.raises(ValueError, match="word id outside"):
        npmi_coherence([[-1, 1]], reference)
    with pytest.raises(ValueError, match="negative or non-finite count"):
        npmi_coherence([[0, 1]], sp.csr_matrix(np.array([[1, -1], [2, 0]])))
    for empty in (sp.csr_matrix((0, 4)), View(sp.csr_matrix((0, 4)))):
        with pytest.raises(ValueError, match="no documents"):
            npmi_coherence([[0, 1]], empty)
    assert npmi_coherence([[0, 1]], reference).n_docs == 6  # D, not V
    assert topic_diversity([[0, 1], [0, 2]], n=1) == 0.5
    one_hot = np.eye(3)
    assert planted_recovery(one_hot, one_hot, threshold=1.0).fraction == 1.0
    with pytest.raises(ValueError, match=r"threshold must lie in \(0, 1\]"):
        planted_recovery(one_hot, one_hot, threshold=0.0)
    with pytest.raises(ValueError, match="fitted topics must be a K x V matrix with K >= 1"):
        planted_recovery(np.zeros((0, 3)), one_hot)


def test_quality_refuses_what_it_cannot_score_naming_it():
    """0 top words, float word ids (a cast would silently truncate 1.7 to word 1), a recovery threshold above 1 ->
    refused naming the culprit; topics listing no pair score NaN, not an error; one listed word is diversity 1."""
    reference = sp.csr_matrix(np.eye(4))
    with pytest.raises(ValueError, match="number of top words must be >= 1"):
        top_words(np.eye(3), 0)
    with pytest.raises(ValueError, match="number of top words must be >= 1"):
        topic_diversity([[0, 1]], n=0)
    with pytest.raises(ValueError, match="1-d list of integer word ids"):
        npmi_coherence([[0.0, 1.7]], reference)
    with pytest.raises(ValueError, match=r"threshold must lie in \(0, 1\]"):
        planted_recovery(np.eye(3), np.eye(3), threshold=1.5)
    unscored = npmi_coherence([[], []], reference)
    assert np.isnan(unscored.per_topic).all() and np.isnan(unscored.mean)
    assert topic_diversity([[3]], n=5) == 1.0
