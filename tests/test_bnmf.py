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

from conftest import central_difference

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


def test_batch_mode_keeps_q_theta_between_passes(small_corpus):
    """Batch VB (eqs. 11.25-11.29) updates one q(theta) by coordinate ascent, pass after pass: a late pass's local
    step starts at the last pass's q(theta), near its fixed point, not at the flat start a new document gets."""
    counts = small_corpus.split("train").counts
    method = BNMF(counts.shape[1], seed=1, corpus_size=counts.shape[0], K=8, batch_size=None)
    for _ in range(25):
        method.partial_fit(whole(counts))
    assert method.progress()["train_elbo"] == method.elbo_trace[-1]  # the trace reports the last pass's bound
    _, _, from_flat = method.local_step(counts)  # the same topics, q(theta) restarted
    # measured 1.7 iterations per document against 22.9 from the flat start; a restart every pass gives equal counts
    assert method.last_local_iter < 0.25 * from_flat.mean(), (method.last_local_iter, from_flat.mean())


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
    # the same bound with p given per nonzero (CSR order): eq. 11.23's terms, p ln p included, not the optimum's shortcut
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    assert method.elbo(counts, shape, p=p[rows, counts.indices]) == pytest.approx(direct, rel=1e-10)


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
    assert method.docs_seen == clone.docs_seen == 100 and clone.updates == 1
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


# -- fidelity and theory checks (Paisley et al. 2014, sec. 11.5) ------------------------------------
def test_step_size_starts_at_t_equals_one(small_corpus):
    """Sec. 11.5.2: rho_t = (tau0 + t)^-kappa with the first minibatch at t = 1, so rho_1 = (tau0 + 1)^-kappa
    (online LDA's Hoffman et al. 2010 start at t = 0 is not the chapter's); batch mode has rho = 1."""
    counts = small_corpus.split("train").counts
    method = BNMF(counts.shape[1], seed=0, corpus_size=counts.shape[0], K=8, batch_size=100, tau0=2.0, kappa=0.7)
    rhos = []
    for t in range(3):
        rows = np.arange(100 * t, 100 * (t + 1))
        method.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
        rhos.append(method.last_rho)
    np.testing.assert_allclose(rhos, [(2.0 + t) ** -0.7 for t in (1, 2, 3)], rtol=1e-15)
    batch = BNMF(counts.shape[1], seed=0, corpus_size=100, K=8, batch_size=None)
    batch.partial_fit(whole(counts[:100]))
    assert batch.last_rho == 1.0


@pytest.fixture(scope="module")
def tiny():
    """A problem small enough to differentiate the bound numerically in every coordinate."""
    rng = np.random.default_rng(4)
    topics = rng.dirichlet(np.full(30, 0.2), size=3)
    weights = rng.gamma(0.5, 40.0, size=(25, 3))
    counts = sp.csr_matrix(rng.poisson(weights @ topics).astype(np.float64))
    return counts[np.asarray(counts.sum(axis=1)).ravel() > 0]


# a0 != b0 so that swapping them is an error the checks see, and a0, b0 and c0 off their defaults (1/K, 1/K, 0.05 V)
# so that a prior that is not the one given is too; tight local convergence so that the local step's
# p^(vd) is the p of eq. 11.24 at its returned a_kd to ~1e-10 (the default 1e-3 would leave derivatives ~1e-3)
TIGHT = dict(K=3, a0=0.3, b0=2.0, c0_per_word=0.2, local_tol=1e-12, local_max_iter=20000)


def test_local_step_is_stationary_in_q_theta(tiny):
    """Eqs. 11.24, 11.28-11.29 at convergence zero the bound's derivatives in every a_kd and in b_k; checked by
    central differences on ``elbo()`` (the bound's terms, p^(vd) optimal), not on the update code."""
    counts = tiny
    method = BNMF(counts.shape[1], seed=2, corpus_size=counts.shape[0], batch_size=None, **TIGHT)
    shape, _, _ = method.local_step(counts)
    rate = method.weight_rate()
    # the priors given, not others: eq. 11.28 summed over k (p^(vd) sums to 1 over k) is sum_k a_kd = K a0 + N_d, and
    # eq. 11.29 is b_k = b0 + sum_v g_vk / h_k (rounding of sums of ~30 terms)
    n_tokens = np.asarray(counts.sum(axis=1)).ravel()
    np.testing.assert_allclose(shape.sum(axis=1), 3 * TIGHT["a0"] + n_tokens, rtol=1e-12)
    np.testing.assert_allclose(rate, TIGHT["b0"] + (method.g / method.h).sum(axis=0), rtol=1e-12)
    scale = abs(method.elbo(counts, shape, rate)) / counts.shape[0]  # the bound per document, ~ the size of one term
    d_shape = np.array([central_difference(lambda: method.elbo(counts, shape, rate), shape, i, 1e-5 * shape[i])
                        for i in np.ndindex(shape.shape)])
    d_rate = np.array([central_difference(lambda: method.elbo(counts, shape, rate), rate, (k,), 1e-5 * rate[k])
                       for k in range(3)])
    # FD rounding: |elbo| 1e-16 / (1e-5 * a) ~ 1e-9 of a term; 1e-6 of the per-document bound leaves a margin of 1000
    assert np.abs(d_shape).max() < 1e-6 * scale, np.abs(d_shape).max()
    assert np.abs(d_rate * rate).max() < 1e-6 * scale, d_rate * rate


def test_global_step_is_stationary_in_q_beta(tiny):
    """Batch mode (rho = 1, D/|C_t| = 1): g and h after eqs. 11.25-11.26 zero the bound's derivatives in every
    g_vk and h_k with q(theta) and p^(vd) held where the update found them (coordinate ascent); central
    differences on ``elbo()`` with that (a, b, p), computed from the bound's terms, not from the update code."""
    counts = tiny
    method = BNMF(counts.shape[1], seed=2, corpus_size=counts.shape[0], batch_size=None, **TIGHT)
    shape, _, _ = method.local_step(counts)  # what partial_fit's first (cold) local step returns
    rate = method.weight_rate()
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    from scipy.special import digamma
    logits = method.expected_log_beta()[counts.indices] + digamma(shape[rows]) - np.log(rate)  # eq. 11.24
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    before = method.elbo(counts, shape, rate, p)
    method.partial_fit(whole(counts))
    assert method.elbo(counts, shape, rate, p) > before  # the update moved, and uphill

    def bound():
        return method.elbo(counts, shape, rate, p)

    scale = abs(bound()) / counts.shape[1]  # the bound per word
    d_g = np.array([central_difference(bound, method.g, i, 1e-5 * method.g[i]) * method.g[i]
                    for i in np.ndindex(method.g.shape)])
    d_h = np.array([central_difference(bound, method.h, (k,), 1e-5 * method.h[k]) * method.h[k] for k in range(3)])
    # derivatives in log g, log h (relative perturbations); FD rounding ~1e-16 |elbo| / 1e-5 ~ 1e-9 of a per-word term
    assert np.abs(d_g).max() < 1e-6 * scale, np.abs(d_g).max() / scale
    assert np.abs(d_h).max() < 1e-6 * scale, np.abs(d_h).max() / scale


def test_stochastic_step_is_unbiased_and_interpolates(small_corpus):
    """Eq. 11.19: a minibatch's statistics scaled by D/|C_t| estimate the corpus's without bias, so with rho = 1
    the targets of eqs. 11.33-11.34 from the two halves of a corpus average to the batch update (eqs. 11.25-11.26)
    from the same state; and with rho_t < 1 the step lands at (1 - rho_t) old + rho_t target."""
    counts = small_corpus.split("train").counts[:200]
    V, D = counts.shape[1], counts.shape[0]
    start = BNMF(V, seed=3, corpus_size=D, K=8, batch_size=100, a0=0.3, b0=2.0)
    state = {key: np.array(value, copy=True) for key, value in start.state().items()}

    def stepped(batch_size, rows, rho=None):
        method = BNMF.from_state(state, V, corpus_size=D, K=8, batch_size=batch_size, a0=0.3, b0=2.0)
        if rho is not None:
            method.step_size = lambda: rho
        method.partial_fit(Minibatch(counts[rows], rows, rows, None, 0))
        return method

    halves = [stepped(100, np.arange(0, 100), 1.0), stepped(100, np.arange(100, 200), 1.0)]
    full = stepped(None, np.arange(200))
    # rho = 1 forgets the old state entirely (eq. 11.22): the step lands on the target built from this minibatch
    shape, sstats, _ = start.local_step(counts[:100])
    np.testing.assert_allclose(halves[0].g, start.c0 / V + D / 100 * sstats.T, rtol=1e-12)
    np.testing.assert_allclose(halves[0].h, start.c0 + D / 100 * (shape / start.weight_rate()).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose((halves[0].g + halves[1].g) / 2, full.g, rtol=1e-9)  # summation order only
    np.testing.assert_allclose((halves[0].h + halves[1].h) / 2, full.h, rtol=1e-9)
    damped = stepped(100, np.arange(0, 100))  # rho_1 = 2^-0.5 (defaults tau0 = 1, kappa = 0.5)
    rho = damped.last_rho
    np.testing.assert_allclose(damped.g, (1 - rho) * state["g"] + rho * halves[0].g, rtol=1e-12)
    np.testing.assert_allclose(damped.h, (1 - rho) * state["h"] + rho * halves[0].h, rtol=1e-12)


def test_short_minibatch_is_scaled_by_its_own_size(small_corpus):
    """Eqs. 11.33-11.34's D/|C_t| counts the documents the minibatch holds: a last minibatch of 40 under batch_size 100
    (D = 200) is scaled by 5, not by D / batch_size = 2. With rho = 1 the step lands on that target."""
    counts = small_corpus.split("train").counts[:40]
    V = counts.shape[1]
    method = BNMF(V, seed=3, corpus_size=200, K=8, batch_size=100, a0=0.3, b0=2.0)
    method.step_size = lambda: 1.0
    shape, sstats, _ = method.local_step(counts)
    mass = (shape / method.weight_rate()).sum(axis=0)
    method.partial_fit(Minibatch(counts, np.arange(40), np.arange(40), None, 0))
    np.testing.assert_allclose(method.g, method.c0 / V + 5.0 * sstats.T, rtol=1e-12)
    np.testing.assert_allclose(method.h, method.c0 + 5.0 * mass, rtol=1e-12)


def test_predictions_are_the_q_mean_rates_normalised(tiny):
    """p(w | d) = sum_k E[theta_kd] E[beta_wk] / sum_v sum_k E[theta_kd] E[beta_vk] (sec. 11.6: the q means'
    Poisson rates normalised over the vocabulary), with E[theta_kd] = a_kd / b_k, b_k = b0 + sum_v g_vk / h_k
    (eq. 11.29) and E[beta_wk] = g_wk / h_k, written out from q's parameters."""
    counts = tiny
    method = BNMF(counts.shape[1], seed=3, corpus_size=counts.shape[0], batch_size=None, **TIGHT)
    method.partial_fit(whole(counts))
    observed, targets = counts[:6], counts[6:12]
    shape, _, _ = method.local_step(observed, want_sstats=False)
    e_beta = method.g / method.h[None, :]  # V x K
    e_theta = shape / (method.b0 + e_beta.sum(axis=0))  # documents x K
    rates = e_theta @ e_beta.T
    rows = np.repeat(np.arange(targets.shape[0]), np.diff(targets.indptr))
    expected = (rates / rates.sum(axis=1, keepdims=True))[rows, targets.indices]
    np.testing.assert_allclose(method.predict_words(observed, targets), expected, rtol=1e-12)  # summation order only


def test_topic_weights_count_the_tokens_of_each_topic(tiny):
    """In batch mode (rho = 1, D/|C_t| = 1) eq. 11.25 sets g_vk = c0/V + sum_d X_vd p_k^(vd), so sum_v g_vk - c0 is
    topic k's expected token count, and the topics' together are the corpus's tokens (p^(vd) sums to 1)."""
    counts = tiny
    method = BNMF(counts.shape[1], seed=3, corpus_size=counts.shape[0], batch_size=None, **TIGHT)
    method.partial_fit(whole(counts))
    # c0 = 0.2 V is subtracted from masses of ~counts.sum() / K: rounding of order 1e-13 relative
    assert method.topic_weights().sum() == pytest.approx(counts.sum(), rel=1e-10)
    # eq. 11.25 summed over v and k with the c0 given: sum_vk g_vk = K V (c0 / V) + sum_vd X_vd = K c0 + N
    assert method.g.sum() == pytest.approx(3 * TIGHT["c0_per_word"] * counts.shape[1] + counts.sum(), rel=1e-12)


def test_defaults_are_sec_11_6():
    """Sec. 11.6's settings: c0 = 0.05 V on beta ~ Gamma(c0/V, c0), a0 = b0 = 1/K on theta, rho_t = (1 + t)^-0.5."""
    method = BNMF(400, seed=0, corpus_size=1000, K=8, batch_size=100)
    assert method.c0 == pytest.approx(0.05 * 400, rel=1e-15)
    assert (method.a0, method.b0) == (1 / 8, 1 / 8)
    assert method.step_size() == pytest.approx((1 + 1) ** -0.5, rel=1e-15)
    # t counts from 1 (sec. 11.5.2), so tau0 = 0.5 is a valid schedule here: rho_1 = 1.5^-0.5 < 1
    assert BNMF(400, corpus_size=1000, K=8, batch_size=100, tau0=0.5).step_size() == pytest.approx(1.5 ** -0.5)
    for name in ("bnmf", "cnmf"):  # K = 100 topics and |C_t| = 1000 documents: Fig. 11.4's setting (sec. 11.6)
        assert (get_method(name).params["K"], get_method(name).params["batch_size"]) == (100, 1000), name



@pytest.mark.parametrize("name", ["bnmf", "cnmf"])
def test_initial_topics_are_the_prior_plus_uniform_scaled_as_a_minibatch(name):
    """Sec. 11.6: q(beta)'s parameters start at "the prior plus a Uniform(0,1) random variable that is scaled to the
    size of the corpus, similar to the scaling performed on the statistics of each batch": g_vk = c0/V + (D/|C_t|) U,
    h_k = c0 + (D/|C_t|) U. So (g - c0/V) / (D/|C_t|) and (h - c0) / (D/|C_t|) are Uniform(0,1) draws: inside [0, 1],
    mean 1/2 (25,000 draws of g: sd 0.002; 60 of h: sd 0.04), and the largest above 1/2. Batch B-NMF: D/|C_t| = 1."""
    V, D, B, K = 500, 20000, 100, 60
    extra = {"m": 5} if name == "cnmf" else {}
    method = get_method(name)(V, seed=3, corpus_size=D, K=K, batch_size=B, **extra)
    c0 = 0.05 * V  # sec. 11.6's default c0_per_word = 0.05
    assert method.c0 == pytest.approx(c0, rel=1e-15)
    for draws in ((method.g - c0 / V) / (D / B), (method.h - c0) / (D / B)):
        assert draws.min() >= 0.0 and draws.max() <= 1.0
        assert abs(draws.mean() - 0.5) < 0.15 and draws.max() > 0.5
    g = (method.g - c0 / V) / (D / B)
    assert abs(g.mean() - 0.5) < 0.01
    batch = get_method("bnmf")(V, seed=3, corpus_size=D, K=K, batch_size=None)
    for draws in (batch.g - c0 / V, batch.h - c0):
        assert draws.min() >= 0.0 and draws.max() <= 1.0 and draws.max() > 0.5


def test_bound_floors_zero_rates_and_zero_p(tiny):
    """Eq. 11.23's terms where a float is exactly 0: a word whose exp(E ln beta_vk) underflows in every topic adds
    log(1e-300) per token to the p-optimal bound (not -inf), and a p^(vd) with zeros adds 0 ln 0 = 0 (not NaN): with
    one-hot p the word term is X_vd (E ln beta_vk* + E ln theta_k*d), below the optimum by the log-sum-exp gap."""
    from scipy.special import digamma, gammaln, logsumexp

    counts = tiny
    method = BNMF(counts.shape[1], seed=2, corpus_size=counts.shape[0], batch_size=None, **TIGHT)
    shape = np.random.default_rng(1).uniform(0.5, 3.0, size=(counts.shape[0], 3))
    word = int(np.argmax(np.asarray(counts.sum(axis=0)).ravel()))
    method.g[word] = 1e-10  # psi(1e-10) = -1e10: exp(E ln beta) = 0 in every topic
    X = counts.toarray()
    without = X.copy()
    without[:, word] = 0
    gap = method.elbo(counts, shape) - method.elbo(sp.csr_matrix(without), shape)
    assert gap == pytest.approx(X[:, word].sum() * np.log(1e-300) - gammaln(X[:, word] + 1).sum(), rel=1e-9)
    method.g[word] = 0.5
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    one_hot = np.zeros((counts.nnz, 3))
    one_hot[np.arange(counts.nnz), counts.indices % 3] = 1.0
    logits = (digamma(method.g) - np.log(method.h))[counts.indices] + (digamma(shape) - np.log(method.weight_rate()))[rows]
    below = counts.data @ (logsumexp(logits, axis=1) - logits[np.arange(counts.nnz), counts.indices % 3])
    assert method.elbo(counts, shape) - method.elbo(counts, shape, p=one_hot) == pytest.approx(below, rel=1e-9)
