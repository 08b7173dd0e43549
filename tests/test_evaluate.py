"""The shared document-completion protocol."""
import numpy as np
import pytest
import scipy.sparse as sp

from topicbench.evaluate import Protocol, Unigram, fold_splits, loglik_per_word, split_documents


def random_counts(seed=0, n_docs=50, n_words=40):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix(rng.poisson(0.8, size=(n_docs, n_words)) + (np.arange(n_words) == 0))


def test_split_partitions_tokens_with_the_requested_fraction():
    counts = random_counts()
    observed, heldout = split_documents(counts, 0.5, seed=7)
    assert ((observed + heldout) != counts).nnz == 0
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    assert np.array_equal(np.asarray(observed.sum(axis=1)).ravel(), np.round(0.5 * lengths))
    again = split_documents(counts, 0.5, seed=7)
    assert (again[0] != observed).nnz == 0
    other = split_documents(counts, 0.5, seed=8)
    assert (other[0] != observed).nnz > 0


def test_threefold_holds_out_each_third_once():
    counts = random_counts(1)
    folds = fold_splits(counts, 3, seed=0)
    total_heldout = sum(h for _, h in folds)
    assert (total_heldout != counts).nnz == 0
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    for observed, heldout in folds:
        assert ((observed + heldout) != counts).nnz == 0
        held = np.asarray(heldout.sum(axis=1)).ravel()
        assert np.all(np.abs(held - lengths / 3) <= 1)


class Oracle:
    """Predicts from a fixed distribution; the protocol must reproduce the hand computation."""

    def __init__(self, probs):
        self.probs = probs

    def predict_words(self, observed, word_ids):
        return self.probs[sp.csr_matrix(word_ids).indices]


def test_loglik_per_word_is_the_token_average_of_log_probabilities():
    counts = random_counts(2)
    probs = np.random.default_rng(0).dirichlet(np.ones(counts.shape[1]))
    observed, heldout = split_documents(counts, 0.5, seed=0)
    loglik, tokens = loglik_per_word(Oracle(probs), [(observed, heldout)])
    dense = heldout.toarray()
    assert tokens == dense.sum()
    assert loglik == pytest.approx((dense * np.log(probs)).sum() / dense.sum(), rel=1e-12)


def test_unigram_uses_add_one_training_frequencies():
    train = sp.csr_matrix(np.array([[3, 0, 1], [1, 0, 0]]))
    unigram = Unigram(train)
    assert np.allclose(unigram.probs, np.array([5, 1, 2]) / 8)


def test_protocol_rejects_impossible_fractions():
    with pytest.raises(ValueError, match="observed_fraction"):
        Protocol(observed_fraction=1.0)
    with pytest.raises(ValueError, match="folds"):
        Protocol(folds=0)
