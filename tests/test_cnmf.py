"""Correlated NMF by SVI (Paisley, Blei and Jordan 2014): gradients vs finite differences, local step, errors."""
import numpy as np
import pytest
import scipy.sparse as sp

from topicbench import kernels
from topicbench.method import ParamError, get_method
from topicbench.run import RunSpec, run
from topicbench.synthetic import build_planted_corpus

CNMF = get_method("cnmf")


@pytest.fixture(scope="module")
def point():
    """A random point: counts, E[beta] terms, topic locations, document locations and biases."""
    rng = np.random.default_rng(7)
    n_docs, V, K, m = 5, 40, 6, 3
    counts = sp.csr_matrix(rng.poisson(0.8, size=(n_docs, V)).astype(np.float64))
    exp_elog_beta = np.exp(rng.normal(-3.0, 1.0, size=(K, V)))
    topic_mass = rng.uniform(0.5, 2.0, size=K)
    locations = rng.normal(0.0, 0.6, size=(K, m))
    u = rng.normal(0.0, 1.0, size=(n_docs, m))
    alpha = rng.normal(0.0, 0.5, size=n_docs)
    return counts, exp_elog_beta, topic_mass, locations, u, alpha


def test_objective_matches_direct_formula(point):
    counts, eb, mass, L, u, alpha = point
    values, _, _, _ = kernels.cnmf_objective(counts, eb, mass, L, u, alpha)
    scores = u @ L.T + alpha[:, None]
    direct = ((counts.toarray() * np.log(np.exp(scores) @ eb)).sum(axis=1) - (mass * np.exp(scores)).sum(axis=1)
              - 0.5 * (u ** 2).sum(axis=1))
    np.testing.assert_allclose(values, direct, rtol=1e-12)


def test_gradient_u_matches_finite_differences(point):
    """Eq. 11.31 (with p^(vd) optimal, eq. 11.24) is the gradient of the objective in u_d."""
    counts, eb, mass, L, u, alpha = point
    _, grad, _, _ = kernels.cnmf_objective(counts, eb, mass, L, u, alpha)
    eps = 1e-6
    numeric = np.zeros_like(u)
    for d in range(u.shape[0]):
        for i in range(u.shape[1]):
            up, down = u.copy(), u.copy()
            up[d, i] += eps
            down[d, i] -= eps
            numeric[d, i] = (kernels.cnmf_objective(counts, eb, mass, L, up, alpha)[0][d]
                             - kernels.cnmf_objective(counts, eb, mass, L, down, alpha)[0][d]) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_gradient_locations_matches_finite_differences(point):
    """Eq. 11.30 (the method's ``location_gradient`` with D/|C_t| = 1) is the gradient in l_k of
    sum_d objective_d - |L|^2 / (2 sigma^2)."""
    counts, eb, mass, L, u, alpha = point
    K, m = L.shape
    method = CNMF(counts.shape[1], corpus_size=counts.shape[0], K=K, m=m, batch_size=counts.shape[0], sigma2=0.7)
    method.locations = L.copy()
    method.g = mass[None, :] * np.full((counts.shape[1], K), 1.0 / counts.shape[1])  # sum_v E[beta_vk] = mass_k
    method.h = np.ones(K)
    _, _, expected, omega = kernels.cnmf_objective(counts, eb, mass, L, u, alpha)
    analytic = method.location_gradient({"expected": expected, "omega": omega, "u": u}, 1.0)

    def total(locations):
        return kernels.cnmf_objective(counts, eb, mass, locations, u, alpha)[0].sum() - (locations ** 2).sum() / (2 * 0.7)

    eps = 1e-6
    numeric = np.zeros_like(L)
    for k in range(K):
        for i in range(m):
            up, down = L.copy(), L.copy()
            up[k, i] += eps
            down[k, i] -= eps
            numeric[k, i] = (total(up) - total(down)) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_newton_precision_is_negative_hessian_with_p_fixed(point):
    """G^-1 of eq. 11.35 is minus the Hessian in l_k of the bound with p^(vd) held fixed (the bound is
    then linear in l_k through X p, so only -sum S_k omega_kd u_d u_d' - I/sigma^2 remains)."""
    counts, eb, mass, L, u, alpha = point
    K, m = L.shape
    method = CNMF(counts.shape[1], corpus_size=counts.shape[0], K=K, m=m, batch_size=counts.shape[0], sigma2=0.7)
    method.locations = L.copy()
    method.g = mass[None, :] * np.full((counts.shape[1], K), 1.0 / counts.shape[1])
    method.h = np.ones(K)
    _, _, expected, omega = kernels.cnmf_objective(counts, eb, mass, L, u, alpha)
    precision = method.location_precision({"omega": omega, "u": u}, 1.0)

    def grad_fixed_p(locations, k):  # d/dl_k of sum_d [n_dk l_k'u_d - S_k exp(alpha_d + l_k'u_d)] - |l_k|^2/(2 sigma^2)
        omega_k = np.exp(alpha + u @ locations[k])
        return (expected[:, k] - mass[k] * omega_k) @ u - locations[k] / 0.7

    eps = 1e-6
    for k in range(K):
        hessian = np.zeros((m, m))
        for i in range(m):
            up, down = L.copy(), L.copy()
            up[k, i] += eps
            down[k, i] -= eps
            hessian[:, i] = (grad_fixed_p(up, k) - grad_fixed_p(down, k)) / (2 * eps)
        np.testing.assert_allclose(precision[k], -hessian, rtol=1e-5, atol=1e-6)


def test_alpha_closed_form_is_stationary(point):
    """Eq. 11.32: alpha_d = ln N_d - ln sum_k S_k exp(l_k'u_d) zeroes the derivative in alpha_d."""
    counts, eb, mass, L, u, _ = point
    n_tokens = np.asarray(counts.sum(axis=1)).ravel()
    best = np.log(n_tokens) - np.log((mass * np.exp(u @ L.T)).sum(axis=1))
    eps = 1e-6
    up = kernels.cnmf_objective(counts, eb, mass, L, u, best + eps)[0]
    down = kernels.cnmf_objective(counts, eb, mass, L, u, best - eps)[0]
    np.testing.assert_allclose((up - down) / (2 * eps), 0.0, atol=1e-5 * n_tokens.max())


def test_local_step_ascends_to_a_stationary_point(point):
    """Steepest ascent (eq. 11.31) with alpha by eq. 11.32 raises the objective and ends near zero gradient."""
    counts, eb, mass, L, _, _ = point
    local = kernels.cnmf_local_step(counts, eb, mass, L, max_iter=5000, tol=1e-13)
    start = kernels.cnmf_objective(counts, eb, mass, L, np.zeros_like(local["u"]),
                                   np.log(np.asarray(counts.sum(axis=1)).ravel() / mass.sum()))[0]
    values, grad, _, _ = kernels.cnmf_objective(counts, eb, mass, L, local["u"], local["alpha"])
    assert np.all(values >= start)
    assert np.abs(grad).max() < 1e-3 * max(1.0, np.abs(local["u"]).max())


@pytest.fixture(scope="module")
def fitted():
    corpus = build_planted_corpus("cnmf_small", 3000, 0, 1000, 10, 0.01, 0.1, lambda r, n: r.integers(80, 150, size=n), 4)
    protocol = dict(stream="shuffled", passes=1.0, holdout="every_nth_batch", holdout_n=10, folds=3, seed=0)
    trace, method = run(RunSpec(method="cnmf", params=dict(K=10, m=5, batch_size=100), **protocol), corpus,
                        progress_every_s=1e9)
    return corpus, trace, method


def test_learns_beyond_unigram(fitted):
    """One pass of SVI over a planted corpus scores far above the word-frequency floor."""
    _, trace, _ = fitted
    assert trace["loglik_per_word"].iloc[-1] > trace["unigram_loglik_per_word"].iloc[-1] + 0.5


def test_correlations_and_state(fitted):
    corpus, _, method = fitted
    corr = method.topic_correlations()
    assert corr.shape == (10, 10)
    np.testing.assert_allclose(corr, corr.T)
    np.testing.assert_allclose(np.diag(corr), 1.0)
    assert np.all(np.abs(corr) <= 1 + 1e-12)
    state = method.state()
    assert state["topic_locations"].shape == (10, 5)
    clone = CNMF.from_state(state, corpus.n_words, corpus_size=method.corpus_size, K=10, m=5, batch_size=100)
    counts = corpus.counts
    np.testing.assert_array_equal(clone.predict_words(counts[:20], counts[20:40]), method.predict_words(counts[:20], counts[20:40]))
    every_word = sp.csr_matrix(np.ones((3, corpus.n_words)))
    observed = sp.vstack([counts[:2], sp.csr_matrix((1, corpus.n_words))])  # the last document observes nothing
    np.testing.assert_allclose(method.predict_words(observed, every_word).reshape(3, -1).sum(axis=1), 1.0, rtol=1e-10)


def test_same_result_for_any_thread_count(fitted):
    corpus, _, method = fitted
    results = []
    for threads in (1, 2):
        kernels.set_threads(threads)
        results.append(method.local_step(corpus.counts[:200])["sstats"])
    kernels.set_threads(1)
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("bad, culprit", [
    ({"K": 10, "m": 11}, "m"), ({"m": 0}, "m"), ({"m": 2.5}, "m"), ({"sigma2": 0.0}, "sigma2"), ({"sigma2": -1.0}, "sigma2"),
    ({"c0_per_word": 0.0}, "c0_per_word"), ({"c0_per_word": -1.0}, "c0_per_word"), ({"K": 0}, "K"),
    ({"kappa": 0.2}, "kappa"), ({"kappa": 1.1}, "kappa"), ({"kappa": 0.5, "allow_kappa_half": False}, "kappa"),
    ({"tau0": 0.0}, "tau0"), ({"batch_size": None}, "batch_size"), ({"batch_size": 0}, "batch_size"),
    ({"local_tol": -1e-6}, "local_tol"), ({"local_max_iter": 0}, "local_max_iter"),
])
def test_bad_hyperparameters(bad, culprit):
    with pytest.raises(ParamError, match=culprit):
        CNMF(50, corpus_size=10, **bad)
    with pytest.raises(ParamError, match=culprit):
        RunSpec(method="cnmf", params=bad).check()
