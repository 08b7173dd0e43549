"""LG-NMF (Hu et al. 2014): gradients, monotone block MAP, Laplace evidence on its own model, recovery,
normalised ensemble predictions, runner traces, bad hyperparameters."""
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

from topicbench.method import ParamError, get_method
from topicbench.run import RunSpec, run
from topicbench.streams import Minibatch
from topicbench.synthetic import build_planted_corpus

LGNMF = get_method("lgnmf")
lg = sys.modules[LGNMF.__module__]  # the plugin module: its objective, gradients and block solves


def whole(counts):
    counts = sp.csr_matrix(counts)
    return Minibatch(counts, np.arange(counts.shape[0]), np.arange(counts.shape[0]), None, 0)


def lg_model_data(n_words, n_docs, K, alpha, seed):
    """X = C' with C = D S' + N(0, 1) noise, D and S drawn from eq. 3's priors: LG-NMF's own generative model."""
    rng = np.random.default_rng(seed)
    D = np.abs(rng.normal(0.0, 1.0 / np.sqrt(K), size=(n_words, K)))
    S = np.abs(rng.normal(0.0, 1.0 / np.sqrt(alpha), size=(n_docs, K)))
    return sp.csr_matrix((D @ S.T + rng.normal(size=(n_words, n_docs))).T), D, S


def planted_counts(n_words=200, n_docs=400, K=5, seed=3):
    """Nonnegative low rank plus unit Gaussian noise, rounded and clipped to counts: each topic has its own
    block of 40 words (plus sparse stray mass), each document uses about two topics, rates of 5-20."""
    rng = np.random.default_rng(seed)
    D = rng.gamma(0.3, 0.3, size=(n_words, K))
    for k in range(K):
        D[k * n_words // K:(k + 1) * n_words // K, k] += rng.uniform(1.0, 3.0, size=n_words // K)
    S = rng.gamma(0.5, 8.0, size=(n_docs, K)) * (rng.random((n_docs, K)) < 0.4)
    C = np.maximum(0.0, np.round(D @ S.T + rng.normal(size=(n_words, n_docs))))
    return sp.csr_matrix(C.T), D


def matched_cosine(truth, fitted):
    """Mean cosine similarity of rows after Hungarian matching."""
    a = truth / np.linalg.norm(truth, axis=1, keepdims=True)
    b = fitted / np.maximum(np.linalg.norm(fitted, axis=1, keepdims=True), 1e-300)
    cosine = a @ b.T
    rows, cols = linear_sum_assignment(-cosine)
    return float(cosine[rows, cols].mean())


def test_gradients_match_finite_differences():
    """Eqs. 15-16 (with the 1/2 of the N(., 1) likelihood) against central differences of the MAP objective.

    The objective is quadratic in each single coordinate, so central differences are exact up to rounding
    (~1e-16 * F / h ~ 1e-10 here; measured 6e-9): rtol 1e-6 leaves room for that and nothing else; a missing
    1/2, factor K or alpha would be off by O(1)."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(1.5, size=(6, 9)).astype(float))
    D, S, alpha, h = rng.uniform(0.2, 1.0, size=(9, 3)), rng.uniform(0.2, 1.0, size=(6, 3)), 0.7, 1e-4

    def numeric(x, f):
        grad = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[idx] += h
            down[idx] -= h
            grad[idx] = (f(up) - f(down)) / (2 * h)
        return grad

    np.testing.assert_allclose(lg.loadings_gradient(X, D, S), numeric(D, lambda d: lg.map_objective(X, d, S, alpha)), rtol=1e-6)
    np.testing.assert_allclose(lg.scores_gradient(X, D, S, alpha), numeric(S, lambda s: lg.map_objective(X, D, s, alpha)), rtol=1e-6)
    # the sparse squared error equals the dense one over all V x N entries, zeros included
    dense = np.sum((X.toarray().T - D @ S.T) ** 2)
    assert lg.squared_error(X, D, S) == pytest.approx(dense, rel=1e-12)


def test_block_updates_never_increase_objective():
    """Sec. 3.1's block cycle by HALS: each coordinate step is an exact 1-D minimiser, so F cannot rise.
    Allowed rise per block: 1e-12 relative (rounding of a sum of ~1e5 terms), and F must really fall."""
    X, _ = planted_counts()
    K, alpha = 5, 1.0
    D = np.random.default_rng(1).uniform(size=(X.shape[1], K)) / np.sqrt(K)
    S = lg.solve_scores(X, D, alpha, 1e-4, 50)
    values = [lg.map_objective(X, D, S, alpha)]
    for _ in range(30):
        D = lg.solve_loadings(X, S, D, 1e-4, 50)
        values.append(lg.map_objective(X, D, S, alpha))
        S = lg.solve_scores(X, D, alpha, 1e-4, 50, S)
        values.append(lg.map_objective(X, D, S, alpha))
    values = np.array(values)
    assert np.all(np.diff(values) <= 1e-12 * values[1:]), np.diff(values).max()
    assert values[-1] < 0.5 * values[0]


def fit_on_model_data(alpha_true):
    X, _, _ = lg_model_data(150, 300, 4, alpha_true, seed=1)
    method = LGNMF(150, seed=0, corpus_size=300, K=4, grid_size=30, log10_alpha_min=-2.5, log10_alpha_max=2.5,
                   grid="fixed", criterion="evidence")
    for _ in range(30):
        method.partial_fit(whole(X))
    return method


def test_laplace_posterior_finds_alpha_of_its_own_model():
    """Eqs. 8-10 and 13 (the fixed grid, weighted by eq. 8) on data drawn from eq. 3 with known alpha. The weight-averaged log10 alpha must lie
    within 0.5 decades of the truth: half a grid cell (1/12 decade) plus the Laplace-at-MAP bias, which we
    measured at -0.29 decades for alpha = 0.1 and -0.04 for alpha = 10 on a 60-cell grid, the same with twice
    V and N (so the approximation's bias, not noise); here -0.25 and -0.08. Data with alpha 100 times larger
    must give a posterior at least 1.5 decades away (truth: 2; measured 2.17) with no shared weight."""
    low, high = fit_on_model_data(0.1), fit_on_model_data(10.0)
    for method, truth in ((low, -1.0), (high, 1.0)):
        w = method.grid_weights
        assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
        mean = method.progress()["log10_alpha_mean"]
        assert abs(mean - truth) <= 0.5, (truth, mean)
        assert method.progress()["edge_weight"] < 1e-6
    assert high.progress()["log10_alpha_mean"] - low.progress()["log10_alpha_mean"] >= 1.5
    assert np.minimum(low.grid_weights, high.grid_weights).sum() < 1e-3


def test_grid_weights_carry_the_cell_width_in_alpha():
    """Eq. 13's Delta_m: cells of equal width in log alpha are alpha_m-proportional in alpha. A density
    p~(alpha) = 1/alpha is flat in log alpha, so its weights must be uniform (1e-12: rounding); p~ = 1
    puts weights proportional to alpha_m."""
    log_alpha = np.linspace(-3.0, 3.0, 7)
    np.testing.assert_allclose(lg.grid_weights(log_alpha, -log_alpha, 1.0), np.full(7, 1 / 7), rtol=1e-12)
    np.testing.assert_allclose(lg.grid_weights(log_alpha, np.zeros(7), 1.0), np.exp(log_alpha) / np.exp(log_alpha).sum(), rtol=1e-12)


def test_planted_low_rank_recovery():
    """Batch LG-NMF recovers planted nonnegative columns: Hungarian-matched mean cosine >= 0.98 (measured 0.9999:
    unit noise on rates of 5-20 is small; a fit that misses one topic, measured with K = 4, scores about 0.88)."""
    X, truth = planted_counts()
    method = LGNMF(X.shape[1], seed=0, corpus_size=X.shape[0], K=5, grid_size=6)
    for _ in range(40):
        method.partial_fit(whole(X))
    assert matched_cosine(truth.T, method.topics()) >= 0.98


@pytest.fixture(scope="module")
def fitted():
    X, _ = planted_counts()
    method = LGNMF(X.shape[1], seed=0, corpus_size=X.shape[0], K=5, grid_size=4, log10_alpha_min=-1.0, log10_alpha_max=1.0)
    for _ in range(5):
        method.partial_fit(whole(X))
    return method, X


def test_predictions_normalised_and_weighted_mixture(fitted):
    """Sum over all V words is 1 per document (1e-12: rounding of V terms), the ensemble is eq. 13's weighted
    mixture of per-grid-point predictions computed densely here, and an empty observed part gets 1/V."""
    method, X = fitted
    method.grid_weights = np.array([0.1, 0.2, 0.3, 0.4])  # non-degenerate weights make the mixture check bite
    V = X.shape[1]
    observed = sp.vstack([X[:6], sp.csr_matrix((1, V))]).tocsr()
    every_word = sp.csr_matrix(np.ones((7, V)))
    probs = method.predict_words(observed, every_word).reshape(7, V)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(probs[-1], 1.0 / V, rtol=1e-12)
    mixture, floor = np.zeros((6, V)), method.hyper["prob_floor"]
    for m, alpha in enumerate(method.alphas):
        S = lg.solve_scores(X[:6], method.D[m], alpha, method.hyper["solver_tol"], method.hyper["solver_max_iter"])
        rates = S @ method.D[m].T
        mixture += method.grid_weights[m] * ((1 - floor) * rates / rates.sum(axis=1, keepdims=True) + floor / V)
    np.testing.assert_allclose(probs[:6], mixture, rtol=1e-10)
    assert method.topics().shape == (5, V) and method.topic_weights().shape == (5,)


def test_topic_weights_are_rates_not_loadings(fitted):
    """topic_weights() is the part of X = D S' (Hu et al. 2014, eq. 1) topic k carries, sum_w D_wk times the mean s_dk:
    loadings and scores trade scale
    (D_k c with s_k / c gives the same rates D s), so the weight must not move when one topic's split changes, while the
    loadings' sum alone moves by c."""
    method, _ = fitted
    b = method.best
    before = method.topic_weights()
    np.testing.assert_allclose(before, method.D[b].sum(axis=0) * method.score_mean[b], rtol=1e-15)  # summed over words
    # the mean, not the sum, of the last batch pass's s_d over the fitted documents
    np.testing.assert_array_equal(method.score_mean[b], method._batch_S[b].mean(axis=0))
    loadings, scores = method.D[b].copy(), method.score_mean[b].copy()
    try:
        method.D[b][:, 0] *= 8.0
        method.score_mean[b][0] /= 8.0
        after = method.topic_weights()
    finally:
        method.D[b][:] = loadings
        method.score_mean[b][:] = scores
    assert before[0] > 0
    np.testing.assert_allclose(after, before, rtol=1e-12)  # rounding of one product and one quotient


def test_progress_reports_the_edge_weight_and_eq8_relative_to_its_best(fitted):
    """progress(): the weight on the grid's two end points, and each point's eq. 8 minus the grid's largest (Fig. 4)."""
    method, _ = fitted
    saved = method.grid_weights
    try:
        method.grid_weights = np.array([0.1, 0.2, 0.3, 0.4])
        out = method.progress()
    finally:
        method.grid_weights = saved
    assert out["edge_weight"] == pytest.approx(0.5, rel=1e-15)
    for m in range(4):
        assert out[f"grid{m}_log_evidence"] == method.log_posterior[m] - method.log_posterior.max()


def test_validation_needs_one_document_and_a_fitted_rest():
    """round(validation_fraction * n) documents of the first batch: 1 is enough, all n leave nothing to fit."""
    X = sp.csr_matrix(np.ones((10, 5)))
    for fraction, n_val in ((0.1, 1), (0.6, 6)):  # 6 > the 5 words: documents are counted, not words
        method = LGNMF(5, corpus_size=10, K=2, validation_fraction=fraction)
        method.carve_validation(X, np.arange(10))
        assert len(method.validation_rows) == n_val
    for fraction in (0.99, 0.04):  # round(9.9) = 10 leaves nothing to fit, round(0.4) = 0 nothing to validate on
        with pytest.raises(ValueError, match="validation_fraction"):
            LGNMF(5, corpus_size=10, K=2, validation_fraction=fraction).carve_validation(X, np.arange(10))


@pytest.mark.parametrize("fraction", [0.99, 0.04])
def test_validation_count_refused_before_any_fit_and_only_under_validation(fraction):
    """round(validation_fraction * n) of a first batch of n = 10: all 10 (0.99) or none (0.04) is refused when the run
    is specified (online: n from batch_size) or the method built (batch: n from the training split), naming
    validation_fraction and what sets n, before any data is read; criterion: evidence reads no validation documents
    and takes either fraction."""
    with pytest.raises(ParamError, match="validation_fraction.*batch_size"):
        RunSpec(method="lgnmf", params={"batch_size": 10, "validation_fraction": fraction}).check()
    with pytest.raises(ParamError, match="validation_fraction.*the training split"):
        LGNMF(50, corpus_size=10, validation_fraction=fraction)
    RunSpec(method="lgnmf", params={"batch_size": 10, "validation_fraction": fraction, "criterion": "evidence"}).check()
    LGNMF(50, corpus_size=10, validation_fraction=fraction, criterion="evidence")


def test_topics_are_the_highest_weight_grid_points(fitted):
    """topics(): the columns of D at the grid point of largest eq. 13 weight, each normalised to sum to one."""
    method, _ = fitted
    saved = method.grid_weights
    try:
        method.grid_weights = np.array([0.1, 0.2, 0.6, 0.1])
        D = method.D[2]
        mass = D.sum(axis=0)
        expected = np.where(mass[:, None] > 0, D.T / np.where(mass > 0, mass, 1.0)[:, None], 0.0)
        np.testing.assert_allclose(method.topics(), expected, rtol=1e-15, atol=0)
        D_saved = D.copy()
        try:
            D[:, 1] = 0.0  # an all-zero column stays a zero topic, not 0/0
            np.testing.assert_array_equal(method.topics()[1], 0.0)
            D[:, 0] *= 1e-6 / D[:, 0].sum()  # a topic of tiny mass is still normalised
            assert method.topics()[0].sum() == pytest.approx(1.0, rel=1e-12)
        finally:
            method.D[2] = D_saved
    finally:
        method.grid_weights = saved


def test_validation_criterion_is_the_protocols_completion_score():
    """criterion = "validation": the validation documents are split in halves as the harness's document completion
    splits them (round(N_d / 2) observed), each grid point's score is the harness's per-word log predictive of its
    own MAP fit (topicbench.evaluate with the ensemble's weight all on that point, held-out counts weighing each
    word), and the weights are Delta_m exp(the score summed over the held-out tokens), normalised."""
    from topicbench.evaluate import loglik_per_word

    X, _ = planted_counts(n_words=120, n_docs=150, K=3, seed=9)
    method = LGNMF(120, seed=1, corpus_size=150, K=3, grid_size=3, search_iters=1, search_tol=0.5)
    method.partial_fit(whole(X))
    observed, heldout = method._val
    whole_docs = np.asarray((observed + heldout).sum(axis=1)).ravel()
    assert np.array_equal(np.asarray(observed.sum(axis=1)).ravel(), np.round(0.5 * whole_docs))
    weights, tokens = method.grid_weights.copy(), heldout.sum()
    try:
        for m in range(3):
            method.grid_weights = np.eye(3)[m]
            score, n = loglik_per_word(method, [(observed, heldout)])
            assert n == tokens and method.validation[m] == pytest.approx(score, rel=1e-12)  # summation order only
    finally:
        method.grid_weights = weights
    log_w = np.log(method.cell_width) + method.validation * tokens
    # the per-token scores times the token count give back the sums up to rounding (~1e-13 in an exponent)
    np.testing.assert_allclose(weights, np.exp(log_w - log_w.max()) / np.exp(log_w - log_w.max()).sum(), rtol=1e-9)


def test_each_grid_points_objective_eq8_and_search_record(fitted):
    """After a batch pass, objective[m] is F (eq. 6 with the 1/2) and log_posterior[m] eq. 8 at grid point m's fit on
    the fitted documents (the validation ones set aside); the search's record keeps the validation log predictive per
    held-out token of each evaluation's fit."""
    method, X = fitted
    fit = X[~np.isin(np.arange(X.shape[0]), method.validation_rows)]
    shape, rate = method.hyper["alpha_prior_shape"], method.hyper["alpha_prior_rate"]
    for m, alpha in enumerate(method.alphas):
        S = method._batch_S[m]
        assert method.objective[m] == pytest.approx(lg.map_objective(fit, method.D[m], S, alpha), rel=1e-12)
        assert method.log_posterior[m] == pytest.approx(lg.log_posterior_alpha(fit, method.D[m], S, alpha, shape, rate),
                                                        rel=1e-12)
    log10_alpha = method.search[0, 0]
    total, tokens = method.validation_loglik(method.evaluate_alpha(fit, log10_alpha)[3], 10.0 ** log10_alpha)
    assert method.search[0, 2] == pytest.approx(total / tokens, rel=1e-12)


def test_state_round_trip(fitted):
    method, X = fitted
    clone = LGNMF.from_state(method.state(), X.shape[1], seed=9, corpus_size=X.shape[0], **{
        k: method.hyper[k] for k in ("K", "grid_size", "log10_alpha_min", "log10_alpha_max")})
    for key in ("grid_log_alpha", "grid_weights", "search", "validation_rows"):
        np.testing.assert_array_equal(clone.state()[key], method.state()[key])
    assert (clone.docs_seen, clone.updates) == (method.docs_seen, method.updates) == (5 * X.shape[0], 5)
    np.testing.assert_array_equal(clone.predict_words(X[:20], X[20:40]), method.predict_words(X[:20], X[20:40]))
    with pytest.raises(ValueError, match="grid_log_alpha"):  # a grid of another size
        LGNMF.from_state(method.state(), X.shape[1], corpus_size=X.shape[0], K=5, grid_size=5)
    with pytest.raises(ValueError, match="grid_log_alpha"):  # the fixed grid is known from the hyperparameters alone
        LGNMF.from_state(method.state(), X.shape[1], corpus_size=X.shape[0], K=5, grid_size=4, grid="fixed")


@pytest.fixture(scope="module")
def small_corpus():
    return build_planted_corpus("lgnmf_small", 600, 100, 300, 8, 0.02, 0.1, lambda r, n: r.integers(80, 120, size=n), 3)


@pytest.mark.parametrize("params, passes", [({"K": 8}, 4.0), ({"K": 8, "batch_size": 50}, 1.0)], ids=["batch", "online"])
def test_runner_beats_unigram_and_is_deterministic(small_corpus, params, passes):
    """Through topicbench.run: finite per-word log predictive at least 0.5 nats above the unigram floor
    (measured: 1.07 batch, 0.92 online; the true model is 1.16 above), and the same seed repeats the trace."""
    spec = RunSpec(method="lgnmf", params={**params, "grid_size": 6}, passes=passes, n_checkpoints=3, seed=2)
    traces = [run(spec, small_corpus, progress_every_s=1e9)[0] for _ in range(2)]
    final = traces[0].iloc[-1]
    assert np.isfinite(final["loglik_per_word"])
    assert final["loglik_per_word"] > final["unigram_loglik_per_word"] + 0.5, final[["loglik_per_word", "unigram_loglik_per_word"]]
    columns = ["docs_seen", "loglik_per_word", "x_log10_alpha_mean", "x_objective"]
    np.testing.assert_array_equal(traces[0][columns].to_numpy(), traces[1][columns].to_numpy())


@pytest.mark.parametrize("bad, culprit", [
    ({"K": 0}, "K"), ({"grid_size": 0}, "grid_size"), ({"grid_size": 2.5}, "grid_size"),
    ({"sgd_iters": 0}, "sgd_iters"), ({"block_iters": 0}, "block_iters"), ({"solver_max_iter": 0}, "solver_max_iter"),
    ({"log10_alpha_min": float("nan")}, "log10_alpha_min"), ({"log10_alpha_max": float("inf")}, "log10_alpha_max"),
    ({"log10_alpha_min": 2.0, "log10_alpha_max": 1.0}, "log10_alpha_max"),
    ({"log10_alpha_min": 1.0, "log10_alpha_max": 1.0}, "log10_alpha_max"),
    ({"solver_tol": 0.0}, "solver_tol"), ({"alpha_prior_shape": 0.0}, "alpha_prior_shape"),
    ({"alpha_prior_rate": -1.0}, "alpha_prior_rate"), ({"prob_floor": 0.0}, "prob_floor"), ({"prob_floor": 1.0}, "prob_floor"),
    ({"eta": 0.0}, "eta"), ({"batch_size": 0}, "batch_size"),
    ({"grid": "log"}, "grid"), ({"criterion": "heldout"}, "criterion"), ({"grid_spacing_sd": 0.0}, "grid_spacing_sd"),
    ({"search_iters": 0}, "search_iters"), ({"search_tol": float("nan")}, "search_tol"), ({"fd_step": -0.1}, "fd_step"),
    ({"validation_fraction": 0.0}, "validation_fraction"), ({"validation_fraction": 1.0}, "validation_fraction"),
    # the sec. 3.4 finite differences evaluate 10^(min - fd_step) and 10^(max + fd_step): normal doubles, and moved
    ({"log10_alpha_min": -307.0, "fd_step": 0.5}, "fd_step"), ({"log10_alpha_max": 308.0, "fd_step": 0.5}, "fd_step"),
    ({"log10_alpha_min": -300.0, "fd_step": 1e-14}, "fd_step"),  # moves log10 alpha = 3, not -300 (ulp 5.7e-14)
])
def test_bad_hyperparameters(bad, culprit):
    with pytest.raises(ParamError, match=culprit):
        LGNMF(50, corpus_size=10, **bad)
    with pytest.raises(ParamError, match=culprit):
        RunSpec(method="lgnmf", params=bad).check()


def test_fd_step_may_reach_the_ends_of_the_normal_range():
    """10^-307 and 10^308 are normal doubles: min - fd_step = -307 and max + fd_step = 308 are accepted."""
    LGNMF(50, corpus_size=10, log10_alpha_min=-306.0, log10_alpha_max=307.0, fd_step=1.0)


def test_unknown_hyperparameter():
    with pytest.raises(ParamError, match="unknown"):
        LGNMF(50, corpus_size=10, alpha=1.0)


# -- eq. 8 against an independent Laplace approximation ---------------------------------------------------
def laplace_ratio_by_hand(X, D, S, alpha, shape, rate, h=1e-3):
    """log p(C, x*, alpha) - log p_G(x* | alpha, C) (eqs. 7-10) from scipy.stats densities and finite-difference
    Hessians of F, one K x K block per d_w and per s_d (the factorisation at the end of sec. 3.2)."""
    from scipy import stats
    (V, K), N = D.shape, S.shape[0]
    joint = (stats.norm.logpdf(X.toarray().T, loc=D @ S.T).sum() + stats.halfnorm.logpdf(D, scale=1 / np.sqrt(K)).sum()
             + stats.halfnorm.logpdf(S, scale=1 / np.sqrt(alpha)).sum() + stats.gamma.logpdf(alpha, shape, scale=1 / rate))

    def block_hessian(x, f):
        """Hessian of f at x by central differences (x a K-vector)."""
        H = np.zeros((K, K))
        for i in range(K):
            for j in range(K):
                e_i, e_j = np.eye(K)[i] * h, np.eye(K)[j] * h
                H[i, j] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j)) / (4 * h * h)
        return H

    log_pg = 0.0
    for w in range(V):
        def f(d, w=w):
            Dw = D.copy(); Dw[w] = d
            return lg.map_objective(X, Dw, S, alpha)
        log_pg += 0.5 * np.linalg.slogdet(block_hessian(D[w], f))[1] - 0.5 * K * np.log(2 * np.pi)
    for d in range(N):
        def f(s, d=d):
            Sd = S.copy(); Sd[d] = s
            return lg.map_objective(X, D, Sd, alpha)
        log_pg += 0.5 * np.linalg.slogdet(block_hessian(S[d], f))[1] - 0.5 * K * np.log(2 * np.pi)
    return joint - log_pg


def test_log_posterior_alpha_is_the_laplace_ratio():
    """Eqs. 7-10: log p~(alpha | C) = log p(C, x*, alpha) - log p_G(x* | alpha, C), rebuilt independently: the
    joint from scipy.stats densities (N(., 1) likelihood, half-normal priors, Ga prior), p_G from Hessians of -log p
    taken by finite differences, one K x K block per d_w and per s_d (the factorisation at the end of sec. 3.2).
    F is quadratic in each vector, so the finite-difference Hessians are exact up to rounding (~1e-16 F / h^2 ~ 1e-8
    relative to entries of order 1-10); atol 1e-5 nats on a total of ~ -300 leaves room for that, while dropping
    eq. 9's term, a normaliser or the hyperprior moves the value by more than 1 nat."""
    rng = np.random.default_rng(4)
    V, N, K, alpha = 7, 9, 2, 0.8
    X = sp.csr_matrix(rng.poisson(1.0, size=(N, V)).astype(float))
    D, S = rng.uniform(0.1, 1.0, size=(V, K)), rng.uniform(0.1, 1.5, size=(N, K))
    shape, rate = 3.5, 0.5  # not 1 or 2, where log Gamma(shape) = 0 would hide the Ga prior's normaliser
    assert lg.log_posterior_alpha(X, D, S, alpha, shape, rate) == pytest.approx(laplace_ratio_by_hand(X, D, S, alpha, shape, rate), abs=1e-5)


def test_minibatch_scale_estimates_the_corpus_laplace_ratio():
    """Sec. 4's N/N_b: eq. 8 on a minibatch with scale = N/N_b is exact for a corpus of N/N_b copies of the minibatch,
    whose Laplace ratio is rebuilt by hand (``laplace_ratio_by_hand``) on the copies: every document-side term and
    the S'S in each d_w's precision (eq. 9) grow with the copies. Tolerance as in the unscaled test (~ -900 nats);
    leaving eq. 9's S'S unscaled moves the value by > 1 nat."""
    rng = np.random.default_rng(6)
    V, N, K, alpha, copies = 6, 4, 2, 0.7, 3
    X = sp.csr_matrix(rng.poisson(1.0, size=(N, V)).astype(float))
    D, S = rng.uniform(0.1, 1.0, size=(V, K)), rng.uniform(0.1, 1.5, size=(N, K))
    shape, rate = 2.0, 0.5
    by_hand = laplace_ratio_by_hand(sp.vstack([X] * copies).tocsr(), D, np.vstack([S] * copies), alpha, shape, rate)
    assert lg.log_posterior_alpha(X, D, S, alpha, shape, rate, scale=float(copies)) == pytest.approx(by_hand, abs=1e-5)


def test_eq8_uses_the_alpha_hyperprior_given():
    """Eq. 7's p(alpha) is the Ga(shape, rate) given, in both places eq. 8 is evaluated (each search evaluation and
    each grid point). At a fixed alpha the MAP x* (sec. 3.1) does not depend on the hyperprior, and criterion
    "validation" does not read eq. 8, so two fits that differ only in Ga(3.5, rate 0.5) against the default
    Ga(1e-6, 1e-6) take the same path, and their eq. 8 values differ by log Ga(alpha | 3.5, 0.5) - log Ga(alpha |
    1e-6, 1e-6) (scipy.stats.gamma, scale = 1/rate) at every alpha. The other terms are the same floats, so only the
    rounding of eq. 8's sum (~1e3 nats: ~1e-13 x 1e3) separates the two: atol 1e-8 nats. The default's equal shape
    and rate would hide a swap."""
    from scipy import stats

    X, _ = planted_counts(n_words=60, n_docs=100, K=2, seed=8)
    common = dict(seed=0, corpus_size=100, K=2, grid_size=3, search_iters=1, search_tol=0.5, log10_alpha_min=-1.0,
                  log10_alpha_max=1.0)
    default, given = LGNMF(60, **common), LGNMF(60, alpha_prior_shape=3.5, alpha_prior_rate=0.5, **common)
    for method in (default, given):
        method.partial_fit(whole(X))
        method.after_update()  # the grid's eq. 8 under criterion "validation"

    def gap(log_alpha):
        alpha = np.exp(log_alpha)
        return stats.gamma.logpdf(alpha, 3.5, scale=2.0) - stats.gamma.logpdf(alpha, 1e-6, scale=1e6)

    np.testing.assert_array_equal(given.search[:, 0], default.search[:, 0])  # the same search path
    np.testing.assert_array_equal(given.grid_log_alpha, default.grid_log_alpha)
    np.testing.assert_allclose(given.search[:, 1] - default.search[:, 1], gap(default.search[:, 0] * np.log(10)),
                               rtol=0, atol=1e-8)
    np.testing.assert_allclose(given.log_posterior - default.log_posterior, gap(default.grid_log_alpha), rtol=0, atol=1e-8)


# -- the sec. 3.4 grid ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def placed():
    """The sec. 3.4 search by eq. 8 on data from LG-NMF's own model (alpha = 1), with a tight Brent tolerance."""
    X, _, _ = lg_model_data(60, 120, 3, 1.0, seed=5)
    method = LGNMF(60, seed=0, corpus_size=120, K=3, grid_size=7, criterion="evidence", search_tol=0.002)
    method.partial_fit(whole(X))
    return method, X


def test_laplace_grid_sits_at_the_mode_spaced_in_sd(placed):
    """Sec. 3.4: the search's mode is a stationary point of log p~ over log alpha, and the grid is grid_size points
    grid_spacing_sd posterior sds apart, centred on it, with sd = H^-1/2 from the finite-difference curvature.

    Stationarity: the central-difference slope at the mode (step 1e-3 decades, where the criterion is smooth:
    every evaluation starts from the same D0 with the same block cycles) must be below H times the Brent
    tolerance (0.002 decades, in natural log units) times 2 for its bracketing; the best one-per-decade scan
    point, which skipping the refinement would return, is measured at a slope 100 times larger."""
    method, X = placed
    f = lambda l10: method.evaluate_alpha(X, l10)[0]
    mode, step = method.mode_log10_alpha, 1e-3
    slope = (f(mode + step) - f(mode - step)) / (2 * step * np.log(10))
    H = method.curvature
    assert H > 0
    assert abs(slope) <= 2 * H * 0.002 * np.log(10), (slope, H)
    # the curvature is minus the second derivative of the criterion at the mode (fd_step 0.05 decades; the
    # 5% tolerance is the change of curvature over that step, measured 0.3%)
    h = method.hyper["fd_step"] * np.log(10)
    assert H == pytest.approx(-(f(mode + 0.05) - 2 * f(mode) + f(mode - 0.05)) / h**2, rel=1e-12)
    assert abs(method.log10_alpha_sd - 1 / np.sqrt(H) / np.log(10)) <= 1e-12
    # the search opens with the scan, one point per decade of [log10_alpha_min, log10_alpha_max] = [-3, 3]
    np.testing.assert_allclose(method.search[:7, 0], np.arange(-3.0, 4.0), rtol=0, atol=1e-12)
    grid = method.grid_log_alpha / np.log(10)
    np.testing.assert_allclose(np.diff(grid), 0.5 * method.log10_alpha_sd, rtol=1e-9)
    assert grid.mean() == pytest.approx(mode, abs=1e-12)
    assert method.cell_width == pytest.approx(0.5 / np.sqrt(H), rel=1e-12)
    assert method.grid_weights.sum() == pytest.approx(1.0, abs=1e-12) and np.all(method.grid_weights >= 0)


def test_search_maximises_the_density_of_log_alpha(monkeypatch):
    """Sec. 3.4 searches, and places the grid, in u = log alpha, where the posterior density is alpha p~(alpha | C)
    (the Jacobian of alpha = e^u; eq. 13's cells are equal in u). With eq. 8 replaced by a known
    p~(alpha | C) = exp(-(log alpha)^2 / 2), the density of u is exp(u - u^2 / 2): mode u = 1 and curvature 1, not
    p~'s own mode u = 0. The fits still run; only the criterion is planted."""
    monkeypatch.setattr(lg, "log_posterior_alpha", lambda X, D, S, alpha, *args, **kwargs: -0.5 * np.log(alpha) ** 2)
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid_size=3, criterion="evidence", search_tol=0.002,
                   search_iters=1)
    brent = lg.minimize_scalar
    brackets = []
    monkeypatch.setattr(lg, "minimize_scalar", lambda f, **kwargs: brackets.append(kwargs["bounds"]) or brent(f, **kwargs))
    method.partial_fit(whole(X))
    assert brackets == [(-1.0, 1.0)]  # the best scan point's neighbours
    # Brent stops within search_tol = 0.002 decades of the mode
    assert method.mode_log10_alpha * np.log(10) == pytest.approx(1.0, abs=0.002 * np.log(10))
    # the scan's best point is log10 alpha = 0 (u = 0 beats u = ln 10): Brent searches between its neighbours, -1 and 1
    np.testing.assert_array_equal(method.search[:7, 0], np.arange(-3.0, 4.0))
    assert np.all(np.abs(method.search[7:, 0]) <= 1.0), method.search[7:, 0]
    # central differences are exact on a quadratic up to rounding (~1e-16 / h^2, h = 0.05 decades)
    assert method.curvature == pytest.approx(1.0, rel=1e-9)



@pytest.mark.parametrize("centre, bracket", [(4.3, (1.0, 3.0)), (-6.3, (-3.0, -1.0))], ids=["right", "left"])
def test_search_brackets_the_best_scan_points_neighbours_near_the_end(monkeypatch, centre, bracket):
    """Sec. 3.4's Brent runs between the best scan point's two neighbours wherever it lies: with eq. 8 planted as
    -(log alpha - c)^2 / 2 the density of u = log alpha is exp(u - (u - c)^2 / 2), mode u = c + 1. At c = 4.3 (mode
    log10 alpha 2.30) the scan's best point is log10 alpha = 2, the last but one of [-3, 3], and Brent searches (1, 3);
    at c = -6.3 (mode -2.30) it is -2, the second, and Brent searches (-3, -1)."""
    monkeypatch.setattr(lg, "log_posterior_alpha", lambda X, D, S, alpha, *args, **kwargs: -0.5 * (np.log(alpha) - centre) ** 2)
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid_size=3, criterion="evidence", search_tol=0.002, search_iters=1)
    brent = lg.minimize_scalar
    brackets = []
    monkeypatch.setattr(lg, "minimize_scalar", lambda f, **kwargs: brackets.append(kwargs["bounds"]) or brent(f, **kwargs))
    method.place_grid(sp.csr_matrix(X))
    assert brackets == [bracket]
    assert method.mode_log10_alpha * np.log(10) == pytest.approx(centre + 1, abs=0.002 * np.log(10))


def test_batch_passes_place_the_grid_once_and_warm_start_the_scores(monkeypatch):
    """Sec. 3.4: the search places the grid once, on the first pass, and the grid is then fixed; sec. 3.1's block
    cycles go on pass after pass from the last pass's S, so after the first pass no S-block is solved from scratch."""
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid_size=3, criterion="evidence", search_iters=1)
    calls = {"placed": 0, "cold": 0}
    place, solve = LGNMF.place_grid, lg.solve_scores

    def counted_place(self, *args, **kwargs):
        calls["placed"] += 1
        return place(self, *args, **kwargs)

    def counted_solve(X, D, alpha, tol, max_iter, S=None, parallel=True):
        calls["cold"] += S is None
        return solve(X, D, alpha, tol, max_iter, S, parallel)

    monkeypatch.setattr(LGNMF, "place_grid", counted_place)
    monkeypatch.setattr(lg, "solve_scores", counted_solve)
    method.partial_fit(whole(X))
    grid, calls["cold"] = method.grid_log_alpha.copy(), 0
    method.partial_fit(whole(X))
    assert calls == {"placed": 1, "cold": 0}
    np.testing.assert_array_equal(method.grid_log_alpha, grid)

def test_a_pass_of_block_iters_cycles_is_that_many_passes_of_one():
    """Sec. 3.1 in batch mode: a pass runs block_iters cycles (D-block, then S-block), each pass going on from the last
    one's S, so one pass with block_iters = 3 is three passes with block_iters = 1: the same block solves in the
    same order, the same D (exact)."""
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    common = dict(seed=0, corpus_size=40, K=2, grid="fixed", grid_size=2, criterion="evidence")
    three, one = LGNMF(30, block_iters=3, **common), LGNMF(30, **common)
    three.partial_fit(whole(X))
    for _ in range(3):
        one.partial_fit(whole(X))
    np.testing.assert_array_equal(three.D, one.D)
    assert not np.array_equal(three.D, LGNMF(30, **common).D)


def test_search_scans_at_least_three_points(monkeypatch):
    """Sec. 3.4's scan: one point per decade of [log10_alpha_min, log10_alpha_max], but never fewer than 3."""
    monkeypatch.setattr(lg, "log_posterior_alpha", lambda X, D, S, alpha, *args, **kwargs: -0.5 * np.log(alpha) ** 2)
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid_size=3, criterion="evidence", search_iters=1,
                   log10_alpha_min=-0.5, log10_alpha_max=0.5)
    method.place_grid(sp.csr_matrix(X))
    np.testing.assert_allclose(method.search[:3, 0], [-0.5, 0.0, 0.5], rtol=0, atol=1e-15)


def test_grid_without_curvature_falls_back_to_fd_step_decades(monkeypatch):
    """Sec. 3.4 with no maximum to measure: a criterion convex in u = log alpha (here u^2 / 2: eq. 8 planted as
    u^2 / 2 - u, the search adding the Jacobian's u) has curvature H = -1 < 0, so there is no sd = H^-1/2 and the
    finite-difference step stands in for it: sd = fd_step decades (0.05), the grid 0.5 sd apart around the mode."""
    monkeypatch.setattr(lg, "log_posterior_alpha", lambda X, D, S, alpha, *args, **kwargs: 0.5 * np.log(alpha) ** 2 - np.log(alpha))
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid_size=3, criterion="evidence", search_tol=0.002, search_iters=1)
    method.place_grid(sp.csr_matrix(X))
    assert method.curvature == pytest.approx(-1.0, rel=1e-9)
    assert method.log10_alpha_sd == pytest.approx(0.05, rel=1e-12)
    np.testing.assert_allclose(method.grid_log_alpha / np.log(10) - method.mode_log10_alpha, [-0.025, 0.0, 0.025],
                               rtol=0, atol=1e-12)


def test_grid_points_start_from_the_modes_search_fit():
    """Sec. 3.4 and 5.1 ("initialized exactly the same"): once the grid is placed, every grid point holds the search's
    fit at the mode, which is search_iters block cycles of sec. 3.1 from the shared start D0 (S-block first), written
    out here with the module's block solves. Same calls, same order: exact."""
    X, _, _ = lg_model_data(30, 40, 2, 1.0, seed=6)
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid_size=3, criterion="evidence", search_iters=2, search_tol=0.5)
    method.place_grid(sp.csr_matrix(X))
    alpha, tol, cap = 10.0 ** method.mode_log10_alpha, 1e-4, 50
    D = method.D_start
    S = lg.solve_scores(X, D, alpha, tol, cap)
    for _ in range(2):
        D = lg.solve_loadings(X, S, D, tol, cap)
        S = lg.solve_scores(X, D, alpha, tol, cap, S)
    for m in range(3):
        np.testing.assert_array_equal(method.D[m], D)


def test_fixed_grid_points_sit_at_the_cell_centres():
    """grid = "fixed": grid_size equal cells in log10 alpha over [min, max], alpha_m at each cell's centre (the
    midpoint rule that eq. 13's Delta_m p~(alpha_m) weights assume), Delta_m the cell width in log alpha."""
    method = LGNMF(30, seed=0, corpus_size=40, K=2, grid="fixed", grid_size=4, log10_alpha_min=-2.0, log10_alpha_max=2.0)
    np.testing.assert_allclose(method.grid_log_alpha / np.log(10), [-1.5, -0.5, 0.5, 1.5], rtol=0, atol=1e-14)
    assert method.cell_width == pytest.approx(np.log(10), rel=1e-15)
    np.testing.assert_array_equal(method.grid_weights, np.full(4, 0.25))  # before any fit: equal weights, summing to 1
    assert method.search.shape == (0, 3)  # the fixed grid runs no search: an empty record of its three columns
    with pytest.raises(ValueError, match="grid_log_alpha"):  # a stored fixed grid over another range
        LGNMF.from_state(method.state(), 30, corpus_size=40, K=2, grid="fixed", grid_size=4, log10_alpha_min=-2.1,
                         log10_alpha_max=2.0)


def test_laplace_grid_function():
    """laplace_grid: points mode + (m - (M-1)/2) spacing sd, sd = H^-1/2, cell = spacing sd; no sd without curvature."""
    points, cell, sd = lg.laplace_grid(1.0, 4.0, 5, 0.5, 0.3)
    np.testing.assert_allclose(points, 1.0 + np.array([-1.0, -0.5, 0.0, 0.5, 1.0]) * 0.5, rtol=0, atol=1e-15)
    assert (cell, sd) == (0.25, 0.5)
    assert lg.laplace_grid(1.0, -1.0, 3, 0.5, 0.3)[2] == 0.3
    assert lg.laplace_grid(1.0, 0.0, 3, 0.5, 0.3)[2] == 0.3  # flat: no sd either (1 / sqrt(0) is no width)
    assert lg.laplace_grid(1.0, 0.25, 3, 0.5, 0.3)[2] == 2.0  # a curvature below 1 is a curvature: sd = 2
    assert lg.finite_difference_curvature(-1.0, 0.0, -1.0, 0.5) == 8.0


def test_normalised_weights_of_log_weights_far_apart():
    """w = exp(log_w) / sum exp(log_w) where exp itself over- and underflows (validation log predictives are sums over
    tokens, thousands of nats apart): the max is subtracted first."""
    w = lg.normalised_weights(np.array([-2e4, -1e4, -1e4 + np.log(3.0)]))
    np.testing.assert_allclose(w, [0.0, 0.25, 0.75], rtol=1e-12, atol=0)


def test_completion_normalises_small_rates():
    """p(w | d) = (1 - f) (D s_d)_w / sum_v (D s_d)_v + f / V however small the document's total rate (here < 1 at a
    large alpha); only a total of exactly zero gets 1/V."""
    X, D, _ = lg_model_data(30, 40, 3, 1.0, seed=8)
    observed = sp.csr_matrix(np.maximum(X.toarray(), 0.0)[:5])
    words = sp.csr_matrix(np.ones((5, 30)))
    S = lg.solve_scores(observed, D, 3000.0, 1e-4, 50)
    rates = S @ D.T
    assert np.all((rates.sum(axis=1) > 0) & (rates.sum(axis=1) < 1))
    expected = (1 - 1e-8) * rates / rates.sum(axis=1, keepdims=True) + 1e-8 / 30
    np.testing.assert_allclose(lg.completion_probs(D, 3000.0, observed, words, 1e-8, 1e-4, 50), expected.ravel(),
                               rtol=1e-12)


def test_score_solve_starts_at_the_clipped_unconstrained_solution():
    """solve_scores without a warm start begins at max(0, C'D (alpha I + D'D)^-1): with no HALS sweep, that start."""
    X, D, _ = lg_model_data(30, 40, 3, 2.0, seed=8)
    start = np.maximum(0.0, np.linalg.solve(D.T @ D + 2.0 * np.eye(3), (X @ D).T).T)
    assert 0 < np.count_nonzero(start) < start.size  # some entries clipped, some not
    np.testing.assert_allclose(lg.solve_scores(X, D, 2.0, 1e-4, 0), start, rtol=1e-10, atol=1e-12)


def test_evidence_mode_matches_the_fixed_grid(placed):
    """The sec. 3.4 mode of eq. 8 and the fixed grid's eq. 8 maximum (60 cells over [-3, 3], 0.1 decades each)
    agree within a cell plus the search's tolerance, so the refinement finds the same posterior, not another."""
    method, X = placed
    fixed = LGNMF(60, seed=0, corpus_size=120, K=3, grid_size=60, grid="fixed", criterion="evidence", search_iters=5)
    values = [method.evaluate_alpha(X, l10)[1] for l10 in fixed.grid_log_alpha / np.log(10)]
    assert abs(fixed.grid_log_alpha[int(np.argmax(values))] / np.log(10) - method.mode_log10_alpha) <= 0.1


# -- online against batch ----------------------------------------------------------------------------------
def test_online_approaches_the_batch_map():
    """Sec. 4 vs sec. 3.1 at one alpha (a one-point fixed grid at alpha = 1): after 40 passes of minibatches of a
    quarter of the documents, the batch objective F at the online D (with S solved given D) is within 3% of F at
    the batch MAP (60 HALS block cycles). The online minibatch objective is the paper's l, the minibatch taken as
    the whole corpus, so its prior on D weighs N / N_b = 4 times more than in F and online settles at another
    fixed point: measured 1.8% above the batch MAP, the same after 20, 40 and 80 passes. With the whole corpus
    as the minibatch, l = F and the online steps reach F at or below the batch MAP (measured 0.86 of it: a
    better local optimum)."""
    X, _ = planted_counts(n_words=120, n_docs=200, K=4, seed=7)
    common = dict(seed=0, corpus_size=200, K=4, grid="fixed", grid_size=1, log10_alpha_min=-0.5, log10_alpha_max=0.5,
                  criterion="evidence")
    batch = LGNMF(120, **common)
    for _ in range(60):
        batch.partial_fit(whole(X))
    F = lambda m: lg.map_objective(X, m.D[0], lg.solve_scores(X, m.D[0], 1.0, 1e-6, 500), 1.0)
    for size, passes, bound in ((50, 40, 1.03), (200, 20, 1.0)):
        online = LGNMF(120, batch_size=size, **common)
        for t in range(passes * 200 // size):
            rows = np.arange(200)[(t * size) % 200:(t * size) % 200 + size]
            online.partial_fit(Minibatch(X[rows], rows, rows, None, t))
        assert F(online) <= bound * F(batch), (size, F(online) / F(batch))


def test_online_step_is_the_projected_gradient_loop():
    """online_step (the fused numba step, grid points in two threads) is eqs. 15-16 as the readable numpy loop over
    loadings_gradient and scores_gradient, point by point. 1e-12: the same operations in the same order; only
    BLAS's summation order in the K x K products may differ."""
    X, _ = planted_counts(n_words=120, n_docs=200, K=4, seed=7)
    model = LGNMF(120, seed=0, threads=2, corpus_size=400, K=4, grid="fixed", grid_size=2, criterion="evidence",
                  batch_size=100, sgd_iters=5, eta=0.01)
    Xb, D0 = X[:100], model.D.copy()
    S_fit = model.online_step(Xb)
    steps = []
    for m, alpha in enumerate(model.alphas):
        D, S = D0[m], lg.solve_scores(Xb, D0[m], alpha, 1e-4, 50)
        for _ in range(5):
            steps.append(min(0.01, 1 / (np.linalg.eigvalsh(S.T @ S)[-1] + 4)))
            D = np.maximum(0.0, D - steps[-1] * lg.loadings_gradient(Xb, D, S))
            steps.append(min(0.01, 1 / (np.linalg.eigvalsh(D.T @ D)[-1] + alpha)))
            S = np.maximum(0.0, S - steps[-1] * lg.scores_gradient(Xb, D, S, alpha))
        np.testing.assert_allclose(model.D[m], D, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(S_fit[m], S, rtol=1e-12, atol=1e-14)
    assert model.last_step == pytest.approx(min(steps), rel=1e-12)  # the trace's sgd_step: the smallest step taken


def test_a_short_minibatch_weighs_the_loadings_prior_by_its_share_of_b():
    """Sec. 4 groups the data into minibatches of size B; the last of a pass may be shorter (here 25 of B = 100). Its
    eq. 15 prior term is K d_:k times |C_b| / B, so 25 documents meet a quarter of the prior that 100 meet (with the
    whole K, hu_fig5's last minibatch of 16 under B = 256 collapsed the fit). Written out in numpy from eqs. 15-16
    with the prior weight K / 4 and the step cap 1 / (lambda_max(S'S) + K / 4); a full minibatch keeps the whole K
    (the test above). 1e-12: same operations, BLAS summation order aside."""
    X, _ = planted_counts(n_words=120, n_docs=200, K=4, seed=7)
    model = LGNMF(120, seed=0, threads=1, corpus_size=400, K=4, grid="fixed", grid_size=2, criterion="evidence",
                  batch_size=100, sgd_iters=5, eta=0.01)
    rows = np.arange(25)
    D0 = model.D.copy()
    model.partial_fit(Minibatch(X[rows], rows, rows, None, 0))
    Xb = sp.csr_matrix(X[rows], dtype=np.float64)
    for m, alpha in enumerate(model.alphas):
        D, S = D0[m], lg.solve_scores(Xb, D0[m], alpha, 1e-4, 50)
        for _ in range(5):
            StS = S.T @ S
            D = np.maximum(0.0, D - min(0.01, 1 / (np.linalg.eigvalsh(StS)[-1] + 1.0)) * (D @ StS - Xb.T @ S + 1.0 * D))
            DtD = D.T @ D
            S = np.maximum(0.0, S - min(0.01, 1 / (np.linalg.eigvalsh(DtD)[-1] + alpha)) * (S @ DtD - Xb @ D + alpha * S))
        np.testing.assert_allclose(model.D[m], D, rtol=1e-12, atol=1e-14)


def test_validation_documents_are_the_rounded_fraction():
    """carve_validation sets aside round(validation_fraction * n) of the first batch: 0.1 of 47 documents is 5, not
    the truncated 4."""
    X, _ = planted_counts(n_words=60, n_docs=100, K=2, seed=8)
    model = LGNMF(60, seed=0, corpus_size=100, K=2, grid="fixed", grid_size=1, validation_fraction=0.1)
    model.carve_validation(X[:47], np.arange(47))
    assert len(model.validation_rows) == 5 and model._val[0].shape[0] == 5


def test_prior_share_counts_the_documents_drawn_not_those_fitted(monkeypatch):
    """The share |C_b| / B of eq. 15's prior counts the minibatch as drawn: a first minibatch of B documents keeps the
    whole K although its validation documents (criterion "validation") are set aside and not fitted; a short one of
    20 under B = 50 carries K 20/50. The prior weight is read off each D step of the fused kernel."""
    X, _ = planted_counts(n_words=60, n_docs=100, K=2, seed=8)
    priors = []
    real = lg.projected_step

    def spy(F, FH, indptr, indices, data, other, prior, step):
        if F.shape == (60, 2):  # a D step (eq. 15); S steps have one row per document
            priors.append(prior)
        return real(F, FH, indptr, indices, data, other, prior, step)

    monkeypatch.setattr(lg, "projected_step", spy)
    model = LGNMF(60, seed=0, corpus_size=70, K=2, grid="fixed", grid_size=1, batch_size=50, sgd_iters=2,
                  validation_fraction=0.1)
    model.partial_fit(Minibatch(X[:50], np.arange(50), np.arange(50), None, 0))
    assert len(model.validation_rows) == 5 and priors == [2.0, 2.0]
    model.partial_fit(Minibatch(X[50:70], np.arange(50, 70), np.arange(50, 70), None, 1))
    assert priors[2:] == [pytest.approx(2.0 * 20 / 50, rel=1e-15)] * 2


def test_online_scale_is_the_fitted_documents_over_the_minibatch(monkeypatch):
    """Sec. 4's N / N_b scales a minibatch's document terms to the fitted corpus: the validation documents
    (criterion "validation") are never fitted, so N counts the corpus without them and N_b the minibatch without
    them. Every eq. 8 evaluation (the search's and the grid's) must receive that ratio."""
    X, _ = planted_counts(n_words=60, n_docs=100, K=2, seed=8)
    seen = []
    real = lg.log_posterior_alpha

    def spy(X, D, S, alpha, shape, rate, scale=1.0, sq_norm_C=None):
        seen.append(scale)
        return real(X, D, S, alpha, shape, rate, scale, sq_norm_C)

    monkeypatch.setattr(lg, "log_posterior_alpha", spy)
    model = LGNMF(60, seed=0, corpus_size=400, K=2, grid_size=2, batch_size=50, sgd_iters=1, search_iters=1,
                  search_tol=0.5, validation_fraction=0.1)
    model.partial_fit(Minibatch(X[:50], np.arange(50), np.arange(50), None, 0))
    searched = len(seen)
    model.after_update()  # under criterion "validation" the grid's eq. 8 is taken here, for the trace
    n_val = len(model.validation_rows)
    assert n_val == 5 and searched and len(seen) == searched + 2  # the search's evaluations, then one per grid point
    assert all(s == (400 - n_val) / (50 - n_val) for s in seen), set(seen)


# -- the per-grid-point records reach the trace ------------------------------------------------------------
def test_grid_extras_reach_the_trace(small_corpus):
    """progress() gives each grid point's log10 alpha, weight, eq. 8 and validation score; heldout_extras() its
    held-out score, which equals the ensemble's when all weight is moved onto that point (1e-12: same arithmetic).
    The runner writes them as x_grid<m>_* columns (the x_grid<m>_loglik ones need run.py to call the hook)."""
    spec = RunSpec(method="lgnmf", params={"K": 8, "grid_size": 3}, passes=2, n_checkpoints=2, seed=1, max_test_docs=40)
    trace, method = run(spec, small_corpus, progress_every_s=1e9)
    last = trace.iloc[-1]
    for m in range(3):
        for key in ("log10_alpha", "weight", "log_evidence", "validation", "loglik"):
            assert np.isfinite(last[f"x_grid{m}_{key}"]), key
    assert sum(last[f"x_grid{m}_weight"] for m in range(3)) == pytest.approx(1.0, abs=1e-12)
    from topicbench.evaluate import Protocol, loglik_per_word, protocol_splits
    test = small_corpus.split("test")
    splits = protocol_splits(test.counts, Protocol())
    extras = method.heldout_extras(splits)
    for m in range(3):
        method.grid_weights = np.eye(3)[m]
        assert extras[f"grid{m}_loglik"] == pytest.approx(loglik_per_word(method, splits)[0], abs=1e-12)


def test_defaults_are_the_papers():
    """Hu et al. 2014: K = 50 and a grid of 10 points on alpha_1 (sec. 5.1), the online step size eta = 0.003 (sec. 4)
    and 25 stochastic gradient iterations per minibatch (sec. 5.3), the hyperprior Ga(1e-6, 1e-6) (sec. 2.1)."""
    p = LGNMF.params
    assert (p["K"], p["grid_size"], p["eta"], p["sgd_iters"]) == (50, 10, 0.003, 25)
    assert (p["alpha_prior_shape"], p["alpha_prior_rate"]) == (1e-6, 1e-6)


@pytest.mark.parametrize("kernel", ["hals_sweeps", "hals_sweeps_serial"])
def test_hals_sweeps_are_coordinate_descent_stopped_at_tol_squared(kernel):
    """Sec. 3.1's block solves by HALS, written here column at a time in plain numpy: coordinate k's exact minimiser
    F_k <- max(0, F_k + (L_k - F H_k) / H_kk), sweeps over k = 0..K-1 until a sweep's squared change is at most
    tol^2 ||F||^2 (relative change tol in the 2-norm). The kernels (rows in parallel, or in one thread, gradients kept
    current) must take the same number of sweeps and reach the same F. tol = 1e-3 stops after several sweeps, where
    tol (not squared) or tol^2 without ||F||^2 would stop elsewhere. The rule is scale-free (F and L scaled by 1e-4
    take the same sweeps), which a norm not squared (sum F_ik, ~1e4 x ||F||^2 there) would not be; max_iter = 2
    stops after exactly two sweeps."""
    from topicbench import lgnmf_kernels

    rng = np.random.default_rng(11)
    n, K = 40, 6
    A = rng.normal(size=(60, K))
    H = A.T @ A + 2.0 * np.eye(K)  # alpha I + D'D: positive definite, correlated columns (HALS needs several sweeps)
    L = rng.normal(size=(n, K)) * 5.0 + 3.0
    F0 = rng.uniform(size=(n, K))
    tol, max_iter = 1e-3, 500
    F, sweeps = F0.copy(), 0
    for sweeps in range(1, max_iter + 1):
        change = 0.0
        for k in range(K):
            new = np.maximum(0.0, F[:, k] + (L[:, k] - F @ H[:, k]) / H[k, k])
            change += np.sum((new - F[:, k]) ** 2)
            F[:, k] = new
        if sweeps == 2:
            F_two = F.copy()  # where max_iter = 2 stops
        if change <= tol ** 2 * np.sum(F ** 2):
            break
    assert 4 <= sweeps < max_iter and (F == 0).any() and (F > 0).any()  # several sweeps; the projection at work
    for scale in (1.0, 1e-4):
        got = F0 * scale
        got_sweeps = getattr(lgnmf_kernels, kernel)(got, got @ H - L * scale, np.ascontiguousarray(H.T), tol, max_iter)
        assert got_sweeps == sweeps, scale
        np.testing.assert_allclose(got, F * scale, rtol=1e-10, atol=1e-12 * scale)
    got = F0.copy()
    assert getattr(lgnmf_kernels, kernel)(got, got @ H - L, np.ascontiguousarray(H.T), tol, 2) == 2  # max_iter sweeps
    np.testing.assert_allclose(got, F_two, rtol=1e-10, atol=1e-12)
