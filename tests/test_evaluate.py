"""The shared document-completion protocol."""
import numpy as np
import pytest
import scipy.sparse as sp

from topicbench import evaluate
from topicbench.evaluate import Protocol, Unigram, fold_splits, loglik_per_word, protocol_splits, split_documents


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
    assert evaluate.perplexity(loglik) == pytest.approx(np.exp(-loglik)) and evaluate.perplexity(loglik) > 1  # exp(-LL)


class ObservedFrequency:
    """Predicts a document's held-out words from its own observed part, (n_obs_dw + 1) / (N_obs_d + V): its score
    depends on exactly which tokens the protocol hands it as observed."""

    def predict_words(self, observed, word_ids):
        dense, word_ids = sp.csr_matrix(observed).toarray(), sp.csr_matrix(word_ids)
        rows = np.repeat(np.arange(word_ids.shape[0]), np.diff(word_ids.indptr))
        return (dense[rows, word_ids.indices] + 1.0) / (dense.sum(axis=1)[rows] + dense.shape[1])


@pytest.mark.parametrize("chunk", [evaluate.EVAL_CHUNK_DOCS, 7])
def test_loglik_conditions_each_document_on_its_observed_part_only(monkeypatch, chunk):
    """Document completion: each held-out token is scored given its own document's observed part, never the
    held-out part (a leak) and never another document's (the chunks must stay aligned): against the formula
    applied to the split matrices by hand."""
    monkeypatch.setattr(evaluate, "EVAL_CHUNK_DOCS", chunk)
    counts = random_counts(3)
    observed, heldout = split_documents(counts, 0.5, seed=1)
    loglik, tokens = loglik_per_word(ObservedFrequency(), [(observed, heldout)])
    obs, held = observed.toarray(), heldout.toarray()
    by_hand = (held * np.log((obs + 1.0) / (obs.sum(axis=1, keepdims=True) + obs.shape[1]))).sum() / held.sum()
    assert tokens == held.sum()
    assert loglik == pytest.approx(by_hand, rel=1e-12)  # the same float64 sums in another order


def test_threefold_score_pools_every_token_once():
    """Paisley et al.'s threefold completion holds out each token exactly once, so the pooled per-word score of a
    fixed distribution is its average log probability over every token of the corpus (per word, not per fold)."""
    counts = random_counts(4)
    probs = np.random.default_rng(1).dirichlet(np.ones(counts.shape[1]))
    loglik, tokens = loglik_per_word(Oracle(probs), fold_splits(counts, 3, seed=2))
    dense = counts.toarray()
    assert tokens == dense.sum()
    assert loglik == pytest.approx((dense * np.log(probs)).sum() / dense.sum(), rel=1e-12)
    # and observed-dependent predictions pool the folds' sums over all tokens (not a mean of per-fold means)
    folds = fold_splits(counts, 3, seed=2)
    total = sum((h.toarray() * np.log((o.toarray() + 1.0) / (o.toarray().sum(axis=1, keepdims=True) + counts.shape[1])))
                .sum() for o, h in folds)
    assert loglik_per_word(ObservedFrequency(), folds)[0] == pytest.approx(total / dense.sum(), rel=1e-12)


def test_protocol_splits_follow_the_protocol():
    """One split observing round(fraction N_d) tokens per document by default (McInerney et al.'s halves); k folds
    for folds = k."""
    counts = random_counts(5)
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    [(observed, heldout)] = protocol_splits(counts, Protocol(observed_fraction=0.75, seed=3))
    assert np.array_equal(np.asarray(observed.sum(axis=1)).ravel(), np.round(0.75 * lengths))
    assert ((observed + heldout) != counts).nnz == 0
    [(observed, _)] = protocol_splits(counts, Protocol(seed=3))  # the default: halves
    assert np.array_equal(np.asarray(observed.sum(axis=1)).ravel(), np.round(0.5 * lengths))
    assert len(protocol_splits(counts, Protocol(folds=3))) == 3


def test_unigram_uses_add_one_training_frequencies():
    train = sp.csr_matrix(np.array([[3, 0, 1], [1, 0, 0]]))
    unigram = Unigram(train)
    assert np.allclose(unigram.probs, np.array([5, 1, 2]) / 8)


def test_protocol_rejects_impossible_fractions():
    for fraction in (0.0, 1.0):  # nothing observed, or nothing held out
        with pytest.raises(ValueError, match="observed_fraction"):
            Protocol(observed_fraction=fraction)
    with pytest.raises(ValueError, match="folds"):
        Protocol(folds=0)


def test_protocol_describes_the_split_it_scores():
    """The run's provenance records this text: halves name the fraction, k folds observe k - 1 of k."""
    assert Protocol(observed_fraction=0.25).describe() == "document completion (observe 0.25 of tokens, predict the rest)"
    assert Protocol(folds=3).describe() == "3-fold document completion (observe 2/3, predict 1/3)"
    assert Protocol(folds=2).describe() == "2-fold document completion (observe 1/2, predict 1/2)"


def test_two_folds_are_folds_not_halves():
    """folds = 2 is the k-fold protocol (each half held out in turn; observed_fraction unused), not one split."""
    counts = sp.csr_matrix(np.array([[1, 0, 0], [1, 1, 0], [2, 0, 1]]))
    protocol = Protocol(observed_fraction=0.9, folds=2)
    assert len(protocol_splits(counts, protocol)) == 2
    # every document of 2 or more tokens observes one in each fold; at fraction 0.9 one of 2 tokens would hold none out
    assert list(evaluate.completable(np.array([1, 2, 3]), protocol)) == [False, True, True]


def test_available_memory_reads_meminfo_in_bytes(monkeypatch):
    """MemAvailable is in kB (1024 bytes); the value is its second field."""
    import io
    meminfo = "MemTotal:       16384 kB\nMemFree:         1024 kB\nMemAvailable:    2048 kB\n"
    monkeypatch.setattr(evaluate, "open", lambda *args, **kwargs: io.StringIO(meminfo), raising=False)
    assert evaluate.available_memory() == 2048 * 1024


def test_a_chunk_without_heldout_tokens_does_not_end_the_scoring(monkeypatch):
    """Chunks of 2 documents: the first chunk holds two one-token documents, all observed at fraction 0.75
    (round(0.75) = 1 observed, 0 held out); the second chunk's 2 + 1 held-out tokens (N_d = 6 and 5: 6 - round(4.5)
    and 5 - round(3.75)) must still be scored."""
    monkeypatch.setattr(evaluate, "EVAL_CHUNK_DOCS", 2)
    counts = sp.csr_matrix(np.array([[1, 0, 0], [0, 1, 0], [3, 2, 1], [1, 4, 0]]))
    probs = np.array([0.5, 0.3, 0.2])
    observed, heldout = split_documents(counts, 0.75, seed=0)
    loglik, tokens = loglik_per_word(Oracle(probs), [(observed, heldout)])
    assert tokens == 3
    held = heldout.toarray()
    assert held[:2].sum() == 0 and held[2].sum() == 2 and held[3].sum() == 1
    assert loglik == pytest.approx((held * np.log(probs)).sum() / 3, rel=1e-12)
    monkeypatch.setattr(evaluate, "EVAL_CHUNK_DOCS", 1)  # the last chunk holds one held-out token: scored too
    assert loglik_per_word(Oracle(probs), [(observed, heldout)]) == (pytest.approx(loglik, rel=1e-12), 3)


def test_a_zero_probability_for_a_heldout_word_is_an_error_naming_the_method():
    """log 0 is not a score: a method that gives a held-out word probability 0 is refused, naming it, never
    averaged in as -inf."""
    class ZeroForWordTwo(Oracle):
        name = "zero_for_word_two"

    counts = sp.csr_matrix(np.array([[2, 2, 2], [1, 1, 4]]))
    observed, heldout = split_documents(counts, 0.5, seed=0)
    assert heldout[:, 2].sum() > 0
    with pytest.raises(FloatingPointError, match="zero_for_word_two"):
        loglik_per_word(ZeroForWordTwo(np.array([0.5, 0.5, 0.0])), [(observed, heldout)])


@pytest.mark.parametrize("protocol", [Protocol(0.5), Protocol(0.9), Protocol(0.1), Protocol(folds=3)],
                         ids=["halves", "0.9", "0.1", "threefold"])
def test_completable_from_lengths_agrees_with_the_splits(protocol):
    """evaluate.completable (the runner's check before a fit) says, from token lengths alone, which documents the
    splits score: those with a held-out token in some split, which is never one with nothing observed there."""
    rng = np.random.default_rng(3)
    lengths = np.arange(1, 13).repeat(3)
    counts = sp.csr_matrix(np.array([np.bincount(rng.integers(0, 6, n), minlength=6) for n in lengths]))
    splits = protocol_splits(counts, protocol)
    scored = np.logical_or.reduce([np.diff(held.indptr) > 0 for _, held in splits])
    assert np.array_equal(evaluate.completable(lengths, protocol), scored)
    assert evaluate.scored_documents(splits) == scored.sum()
    for observed, held in splits:  # a document's held-out tokens are scored only where it observes something
        assert not ((np.diff(held.indptr) > 0) & (np.diff(observed.indptr) == 0)).any()


def test_token_memory_budget_is_48_bytes_a_token(monkeypatch):
    """Document completion expands tokens: 3 documents of 2, 9 and 1 tokens (12 tokens) need 12 * 48 = 576 bytes,
    refused with 575 available, naming the token count and the longest document (9), accepted with 576."""
    counts = sp.csr_matrix(np.array([[1, 1, 0], [0, 5, 4], [0, 0, 1]]))
    free = {"bytes": 575}
    monkeypatch.setattr(evaluate, "available_memory", lambda: free["bytes"])
    with pytest.raises(ValueError, match=r"3 documents of 12 tokens \(the longest 9\)"):
        split_documents(counts, 0.5, seed=0)
    free["bytes"] = 576
    observed, heldout = split_documents(counts, 0.5, seed=0)
    assert observed.sum() + heldout.sum() == 11  # the one-token document observes nothing: not held out either


def test_a_probability_above_one_is_refused_beyond_rounding():
    """A held-out word's p(w | observed) of 1.5 is better than any model: refused naming the method; 1 exactly (a
    one-word support) and 1 + 1e-12 (a sum's rounding) are scores of 0 nats, not errors."""
    class Fixed(Oracle):
        name = "fixed_probability"

    counts = sp.csr_matrix(np.array([[2, 0], [3, 0]]))
    observed, heldout = split_documents(counts, 0.5, seed=0)
    with pytest.raises(ValueError, match=r"fixed_probability.predict_words returned a probability above 1 \(1.5\)"):
        loglik_per_word(Fixed(np.array([1.5, 0.5])), [(observed, heldout)])
    for top in (1.0, 1.0 + 1e-12):
        loglik, tokens = loglik_per_word(Fixed(np.array([top, 1e-3])), [(observed, heldout)])
        assert tokens == 2 and loglik == pytest.approx(0.0, abs=1e-11)


def test_protocol_is_frozen():
    """A protocol is a value a run's checkpoints share: it cannot be edited in place between them."""
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        Protocol().observed_fraction = 0.9


def test_loglik_is_the_same_for_any_blas_thread_count():
    """The trace's numbers may not depend on the run's thread count: a BLAS dot product splits its sum between threads
    (OpenBLAS ddot at 2 threads moved nyt_topmost's loglik_per_word by 8e-15), so the per-token sum is numpy's own."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(3)
    heldout = sp.csr_matrix(rng.poisson(2.0, size=(1, 60_000)) + 1)  # one long document: one dot product of 60,000
    probs = rng.dirichlet(np.ones(heldout.shape[1]))
    scores = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            scores.append(evaluate.loglik_sum(Oracle(probs), heldout, heldout)[0])
    assert scores[0] == scores[1]


def test_no_heldout_tokens_score_nan_not_a_division_error():
    """Splits without a held-out token (none at all here) -> (nan, 0): no score, said as such, not ZeroDivisionError."""
    score, tokens = loglik_per_word(None, [])
    assert np.isnan(score) and tokens == 0
