"""Bayesian NMF by SVI (Paisley, Blei and Jordan 2014): monotone batch bound, planted recovery, same family as LDA."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

from topicbench import kernels
from topicbench.method import ParamError, get_method
from topicbench.run import RunSpec, run
from topicbench.streams import Minibatch, Stream, stream_order
from topicbench.synthetic import build_planted_corpus

BNMF = get_method("bnmf")


def whole(counts):
    return Minibatch(sp.csr_matrix(counts), np.arange(counts.shape[0]), np.arange(counts.shape[0]), None, 0)


def matched_cosine(truth, fitted):
    """Mean cosine similarity of topics after Hungarian matching."""
    a = truth / np.linalg.norm(truth, axis=1, keepdims=True)
    b = fitted / np.linalg.norm(fitted, axis=1, keepdims=True)
    cos = a @ b.T
    rows, cols = linear_sum_assignment(-cos)
    return float(cos[rows, cols].mean())


def gamma_poisson_corpus(n_docs, n_words, n_topics, seed):
    """X ~ Poisson(B Theta) (eq. 11.6) with peaked topics and sparse gamma weights (eq. 11.7 with a0 < 1)."""
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)  # columns of B, each summing to one
    weights = rng.gamma(0.3, 150.0 / (0.3 * n_topics), size=(n_docs, n_topics))  # ~150 expected tokens a document
    counts = sp.csr_matrix(rng.poisson(weights @ topics))
    keep = np.asarray(counts.sum(axis=1)).ravel() > 0
    return counts[keep], topics


@pytest.fixture(scope="module")
def small_corpus():
    return build_planted_corpus("bnmf_small", 600, 0, 400, 8, 0.02, 0.1, lambda r, n: r.integers(40, 80, size=n), 3)


def test_batch_elbo_never_decreases(small_corpus):
    """Batch coordinate ascent (eqs. 11.24-11.29) on the bound of eqs. 11.14 and 11.23 cannot lower it."""
    counts = small_corpus.split("train").counts
    method = BNMF(counts.shape[1], seed=1, corpus_size=counts.shape[0], K=8, batch_size=None)
    for _ in range(25):
        method.partial_fit(whole(counts))
    elbo = np.array(method.elbo_trace)
    assert len(elbo) == 25 and np.all(np.isfinite(elbo))
    steps = np.diff(elbo)
    assert np.all(steps >= -1e-9 * np.abs(elbo[1:])), f"bound decreased: {steps.min()}"
    assert elbo[-1] - elbo[0] > 0.1 * abs(elbo[0])  # and it really moved


def test_elbo_matches_direct_sum():
    """The closed-form bound equals a direct evaluation of its terms on a tiny problem."""
    from scipy.special import digamma, gammaln

    rng = np.random.default_rng(0)
    counts = sp.csr_matrix(rng.poisson(1.0, size=(5, 12)))
    counts = counts[np.asarray(counts.sum(axis=1)).ravel() > 0]
    method = BNMF(12, seed=0, corpus_size=counts.shape[0], K=3, batch_size=None)
    shape = rng.uniform(0.5, 3.0, size=(counts.shape[0], 3))
    rate = method.weight_rate()
    X = counts.toarray()
    elb, eb = digamma(method.g) - np.log(method.h), method.g / method.h
    elt, et = digamma(shape) - np.log(rate), shape / rate
    # optimal p (eq. 11.24), then every term of the bound with p explicit
    p = np.exp(elb[None, :, :] + elt[:, None, :])
    p /= p.sum(axis=2, keepdims=True)
    like = np.sum(X[:, :, None] * p * (elb[None] + elt[:, None] - np.log(p))) - np.sum(eb.sum(0) * et.sum(0)) - gammaln(X + 1).sum()
    def prior(a, b, el, e):
        return np.sum(a * np.log(b) - gammaln(a) + (a - 1) * el - b * e)
    def entropy(a, b):
        return np.sum(a - np.log(b) + gammaln(a) + (1 - a) * digamma(a))
    direct = (like + prior(method.c0 / 12, method.c0, elb, eb) + prior(method.a0, method.b0, elt, et)
              + entropy(method.g, np.broadcast_to(method.h, method.g.shape)) + entropy(shape, np.broadcast_to(rate, shape.shape)))
    assert method.elbo(counts, shape) == pytest.approx(direct, rel=1e-10)


def test_planted_gamma_poisson_recovery():
    """SVI recovers planted gamma-Poisson topics: Hungarian-matched mean cosine >= 0.9."""
    counts, truth = gamma_poisson_corpus(3000, 300, 8, seed=11)
    method = BNMF(counts.shape[1], seed=0, corpus_size=counts.shape[0], K=8, batch_size=200)
    for batch in Stream(counts, stream_order("shuffled", counts.shape[0], 0, passes=3), 200):
        method.partial_fit(batch)
    score = matched_cosine(truth, method.topics())
    assert score >= 0.9, score


def test_same_family_as_online_lda():
    """Held-out per-word log likelihood within 2% of online LDA's (sec. 11.6: 'roughly the same'),
    same corpus, stream and protocol (every tenth batch, threefold completion), chapter settings for both."""
    corpus = build_planted_corpus("nyt_like_small", 6000, 0, 2000, 20, 0.01, 0.1,
                                  lambda r, n: r.integers(100, 200, size=n), 5)
    K = 20
    protocol = dict(stream="shuffled", passes=1.0, holdout="every_nth_batch", holdout_n=10, folds=3, seed=0)
    lda = dict(K=K, batch_size=200, alpha=1.0 / K, eta=0.05, tau0=1.0, kappa=0.5, allow_kappa_half=True)  # c0/V = 0.05
    lda_trace, _ = run(RunSpec(method="online_lda", params=lda, **protocol), corpus, progress_every_s=1e9)
    nmf_trace, _ = run(RunSpec(method="bnmf", params=dict(K=K, batch_size=200), **protocol), corpus, progress_every_s=1e9)
    assert list(lda_trace["docs_seen"]) == list(nmf_trace["docs_seen"]) and len(lda_trace) == 3
    lda_ll, nmf_ll = lda_trace["loglik_per_word"].iloc[-1], nmf_trace["loglik_per_word"].iloc[-1]
    unigram = nmf_trace["unigram_loglik_per_word"].iloc[-1]
    assert nmf_ll > unigram + 0.5  # both learned something: a match at the unigram floor would prove nothing
    assert abs(nmf_ll - lda_ll) <= 0.02 * abs(lda_ll), (nmf_ll, lda_ll)


def test_predictions_normalised_over_vocabulary(small_corpus):
    counts = small_corpus.split("train").counts
    method = BNMF(counts.shape[1], seed=0, corpus_size=counts.shape[0], K=8, batch_size=100)
    method.partial_fit(Minibatch(counts[:100], np.arange(100), np.arange(100), None, 0))
    every_word = sp.csr_matrix(np.ones((5, counts.shape[1])))
    probs = method.predict_words(counts[100:105], every_word).reshape(5, -1)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-10)
    assert method.topics().shape == (8, counts.shape[1]) and method.topic_weights().shape == (8,)


def test_state_round_trip_and_threads(small_corpus):
    counts = small_corpus.split("train").counts
    method = BNMF(counts.shape[1], seed=0, corpus_size=counts.shape[0], K=8, batch_size=100)
    method.partial_fit(Minibatch(counts[:100], np.arange(100), np.arange(100), None, 0))
    clone = BNMF.from_state(method.state(), counts.shape[1], seed=5, corpus_size=counts.shape[0], K=8, batch_size=100)
    np.testing.assert_array_equal(clone.predict_words(counts[200:230], counts[230:260]),
                                  method.predict_words(counts[200:230], counts[230:260]))
    results = []
    for threads in (1, 2):
        kernels.set_threads(threads)
        results.append(method.local_step(counts[:300])[1])
    kernels.set_threads(1)
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("bad, culprit", [
    ({"c0_per_word": 0.0}, "c0_per_word"), ({"c0_per_word": -0.05}, "c0_per_word"),
    ({"a0": 0.0}, "a0"), ({"a0": -1.0}, "a0"), ({"b0": 0.0}, "b0"), ({"b0": -2.0}, "b0"),
    ({"K": 0}, "K"), ({"kappa": 0.3}, "kappa"), ({"kappa": 1.5}, "kappa"),
    ({"kappa": 0.5, "allow_kappa_half": False}, "kappa"), ({"tau0": 0.0}, "tau0"),
    ({"local_tol": 0.0}, "local_tol"), ({"local_max_iter": 0}, "local_max_iter"), ({"batch_size": 0}, "batch_size"),
])
def test_bad_hyperparameters(bad, culprit):
    with pytest.raises(ParamError, match=culprit):
        BNMF(50, corpus_size=10, **bad)
    with pytest.raises(ParamError, match=culprit):
        RunSpec(method="bnmf", params=bad).check()


def test_unknown_hyperparameter():
    with pytest.raises(ParamError, match="unknown"):
        BNMF(50, corpus_size=10, m=5)
