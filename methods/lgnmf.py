"""Latent-Gaussian NMF with a Laplace-approximate hyperparameter posterior (Hu, Ryu, Carlson, Wang and Carin 2014).

Model (sec. 2.1, eq. 3, the LG-NMF variant, text only so theta = alpha_1 is a scalar). With C the
V x N count matrix (our corpora are N x V CSR ``X = C'``):

    C_wd ~ N(d_w' s_d, 1),   d_w ~ N+(0, (1/K) I_K),   s_d ~ N+(0, alpha^-1 I_K),   alpha ~ Ga(1e-6, 1e-6).

D (V x K, the paper's D_1, one row d_w per word; its columns are the topics) and S (N x K, one row
s_d per document) keep the paper's letters. The MAP objective for fixed alpha (eq. 6 without B) is

    F(D, S) = 1/2 ||C - D S'||^2 + K/2 ||D||^2 + alpha/2 ||S||^2.

Eq. 6 prints the squared error without the 1/2, but the unit-variance likelihood, the precisions of
eqs. 9-10 and the gradients of eqs. 15-16 all carry it; we use the 1/2. The squared error runs over
all V x N entries, zeros included, without densifying C:
||C - DS'||^2 = ||C||^2 - 2 sum_nnz C_wd (DS')_wd + tr((D'D)(S'S)).

Inference (sec. 3):
- MAP at each grid alpha_m (sec. 3.1, eq. 14): cycle the two blocks, D with S fixed then S with D
  fixed; each block is a nonnegative least-squares problem solved by HALS coordinate descent (each
  coordinate step is the exact minimiser of a 1-D convex quadratic on [0, inf), so F never rises).
- Laplace posterior over alpha (sec. 3.2, eqs. 7-10), evaluated at the MAP x* of each grid point.
- Grid (sec. 3.4, ``grid = "laplace"``, the default): the mode of the criterion over log alpha is found
  by optimisation, each evaluation a MAP fit (``search_iters`` block cycles from the shared start D0):
  a scan at one point per decade of [log10_alpha_min, log10_alpha_max], then bounded Brent within the
  best scan point's neighbours (the paper says "gradient descent"; in 1-D, Brent is the derivative-free
  equivalent). The curvature H at the mode by central finite differences (step ``fd_step`` decades);
  sd = H^-1/2; ``grid_size`` points spaced ``grid_spacing_sd`` sd apart, centred on the mode, in log alpha
  (1-D, so the "principal direction" is log alpha itself); every grid point starts from the mode's fit.
  The grid is then fixed, so each grid point optimises one fixed objective. ``grid = "fixed"`` keeps the
  old grid: ``grid_size`` equal cells in log10 alpha over the same range, alpha_m at the cell centres.
  Online (sec. 4): the search runs once, on the first minibatch (MAP fits on it alone, its document terms
  scaled by N / N_b as below), a burn-in that the first minibatch's fit clock includes.
- Weights (eq. 13): w_m ∝ Delta_m p~(alpha_m | C) with the paper's ``criterion = "evidence"``; see below.
- Prediction (sec. 3.3, eq. 13 applied to words, eq. 18 with the MAP plug-in that sec. 3.3 calls "by
  far the simplest"): per grid point, s_d is fitted to the observed part with D_m fixed, and the
  predictive is the weighted mixture of the normalised rates (D_m s_d)_w / sum_v (D_m s_d)_v.
- Online (sec. 4, eqs. 15-16): per minibatch, ``sgd_iters`` alternating projected gradient steps on D
  and the minibatch's S, the same minibatches for every grid point. Measured (issue 14, benchmarks/RESULTS.md):
  25 steps near 1/L with no decaying step size all but refit D to the current minibatch; rows of words absent
  from it keep 0.02-2% of the mean row mass, and on 2,560 wiki_like documents (K = 50, alpha = 1, minibatch
  256) online scores -7.268 nats/word held out against batch -6.960, batch on the last minibatch alone -7.359,
  unigram -7.775. Scaling the document terms by N / N_b (unbiased for F) lowers F (6.29e5 vs 6.76e5; batch
  5.01e5) but not the score (-7.278): the memory loss is the method's, not a slip in the gradients.

Why eq. 8 picks an over-regularised alpha (measured, K = 50, 15 batch passes, one grid point per decade,
document completion on 300 test documents; benchmarks/RESULTS.md has the full table). The unit noise
variance of eq. 6 (C ~ N(X, 1)) is 10-30 times the real spread of sparse counts: the mean of C_wd^2 per
entry is 0.035 on Cora and 0.109 on BBC News, the MAP residual variance 0.022-0.066. Under N(., 1) most of
C is noise, so the fit's gain in log p(C | x*) (Cora: 2.4e4 nats from alpha = 1e3, the all-zero fit, to
alpha = 10) cannot pay the Occam terms of the (V + N) K = 2.4e5 Gaussian vectors' log-determinants, and
log p~ peaks at alpha ~ 1e2 (Cora 3.1e4 nats above alpha = 10; BBC 4.6e4): a near-collapsed factorisation
that predicts at -7.193 nats/word on Cora against -7.176 for word frequencies, while alpha = 10 reaches
-6.932 (BBC: -7.110 at the mode, -6.874 at alpha = 10, -7.366 unigram). The 1/2 convention is the noise
variance 1 vs 1/2; the MAP at (alpha, sigma^2) is the sigma^2 = 1 MAP at alpha sigma^4 (rescale D by sigma),
so it moves alpha by 0.6 decades and the mode stays on the same collapsed fit. Estimating sigma^2 (its
profile, the residual mean square) over-corrects: log p~ then prefers the least regularised end (Cora:
the alpha sigma^4 = 1e-1 fit, -7.168). The grid is not the cause: log p~ differs by >1e4 nats between
decades, so any grid, and the sec. 3.4 one (sd of log alpha << 0.1), puts all weight on the mode.

Deviation (``criterion = "validation"``, the default): the criterion that the sec. 3.4 search maximises and
that weights the grid is the log predictive of a validation split (``validation_fraction`` of the training
documents, chosen by the seed, never fitted; document completion, observe half, predict half), summed over
its held-out tokens, with a flat prior on log alpha: w_m ∝ Delta_m exp(sum log p_m(validation)). This keeps
eq. 13's weighted ensemble and sec. 3.4's grid and replaces only the mis-scaled eq. 8 score; eq. 8 is still
computed and reported. ``criterion = "evidence"`` is the method as printed.
"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from scipy.special import gammaln
from threadpoolctl import ThreadpoolController

from topicbench.evaluate import split_documents
from topicbench.kernels import rounded_to_one
from topicbench.lgnmf_kernels import hals_sweeps, hals_sweeps_serial, projected_step
from topicbench.method import Method, require

LOG_2PI = float(np.log(2.0 * np.pi))
LN10 = float(np.log(10.0))
# LG-NMF's products are V x K x K and smaller: OpenBLAS's 2-thread A'A (syrk) measured 8-45x slower than 1 thread on
# the shared 2-core machine (benchmarks/RESULTS.md), so BLAS runs single-threaded here and the threads go to
# the numba HALS rows and to the grid points of the online step.
_BLAS = ThreadpoolController()
# a HALS sweep of n rows costs n K^2 multiply-adds; below this, one parallel region per sweep costs more than it saves
# (measured: the test suite's K <= 10 fits ran 3-9x slower with every sweep parallel)
PARALLEL_SWEEP_WORK = 2_000_000

# -- the MAP objective and its gradients (sec. 3.1, eqs. 6, 14-16) ---------------------------------
def squared_error(X, D, S, sq_norm_C=None):
    """||C - DS'||^2 over all V x N entries: ||C||^2 - 2 sum_nnz C_wd (DS')_wd + tr((D'D)(S'S)); X = C' is CSR."""
    if sq_norm_C is None:
        sq_norm_C = float(X.multiply(X).sum())
    return sq_norm_C - 2.0 * float(np.sum(S * (X @ D))) + float(np.sum((D.T @ D) * (S.T @ S)))


def map_objective(X, D, S, alpha, sq_norm_C=None):
    """F = 1/2 ||C - DS'||^2 + K/2 ||D||^2 + alpha/2 ||S||^2: eq. 6 without B, with the 1/2 of the N(., 1) likelihood."""
    K = D.shape[1]
    return 0.5 * squared_error(X, D, S, sq_norm_C) + 0.5 * K * float(np.sum(D * D)) + 0.5 * alpha * float(np.sum(S * S))


def loadings_gradient(X, D, S, StS=None, C=None):
    """Eq. 15: dF/dD_wk = sum_d (d_w's_d - C_wd) S_dk + K D_wk, i.e. D (S'S) - C S + K D.

    Eq. 15 prints the prior's term as K e_(p1)' d_:k, K times column k's sum over all words, the same for every w:
    that is the gradient of K/2 sum_k (sum_w D_wk)^2, not of eq. 6's K/2 sum_w ||d_w||^2 (eq. 3's N+(0, I/K) prior
    on each d_w). We take eq. 6's, K D_wk, so that the online steps descend the objective whose MAP the batch mode
    finds and eq. 8 scores (test_gradients_match_finite_differences holds it to F).
    S'S and C = X' as CSR may be passed in when a loop already has them (CSR C S is faster than X' S)."""
    return D @ (S.T @ S if StS is None else StS) - (X.T if C is None else C) @ S + D.shape[1] * D


def scores_gradient(X, D, S, alpha, DtD=None):
    """Eq. 16: dF/dS_dk = sum_w (d_w's_d - C_wd) D_wk + alpha S_dk, i.e. S (D'D) - C' D + alpha S (D'D if at hand).

    As for eq. 15 (loadings_gradient): eq. 16 prints alpha_1 e_(n)' s_:k, a column sum over documents; we take the
    gradient of eq. 6's alpha/2 sum_d ||s_d||^2, alpha S_dk."""
    return S @ (D.T @ D if DtD is None else DtD) - X @ D + alpha * S


# -- exact block solves: nonnegative least squares by HALS coordinate descent ------------------------
def hals(factor, hessian, linear, tol, max_iter, parallel=True):
    """min_{F >= 0} 1/2 tr(F hessian F') - tr(F' linear), one row per vector, by coordinate descent.

    Column k's step F_k <- max(0, F_k + (linear_k - F hessian_k) / hessian_kk) is the exact minimiser in
    that coordinate (hessian_kk >= K > 0 or >= alpha > 0), so the objective never rises. Sweeps stop when
    the squared change of a sweep is below tol^2 ||F||^2, or after max_iter sweeps. The rows are separate
    problems with one shared hessian, so each row runs its sweep's K coordinate steps in turn (the same steps,
    in the same order, as the column-at-a-time form), in parallel over rows (``topicbench.lgnmf_kernels.hals_sweeps``),
    or in the calling thread without the GIL (``parallel=False``).
    """
    F = np.array(factor, dtype=np.float64, order="C")
    H = np.asarray(hessian, dtype=np.float64)
    G = F @ H - np.asarray(linear)  # the rows' gradients (F hessian - linear), kept current by the sweeps
    parallel = parallel and F.size * F.shape[1] >= PARALLEL_SWEEP_WORK
    sweep = (hals_sweeps if parallel else hals_sweeps_serial)(F, G, np.ascontiguousarray(H.T), float(tol), int(max_iter))
    return F, sweep


def solve_loadings(X, S, D, tol, max_iter):
    """D-block of sec. 3.1: min_{D >= 0} F with S fixed; Hessian K I + S'S per word (eq. 9), linear term C S."""
    K = D.shape[1]
    return hals(D, S.T @ S + K * np.eye(K), X.T @ S, tol, max_iter)[0]


def solve_scores(X, D, alpha, tol, max_iter, S=None, parallel=True):
    """S-block of sec. 3.1: min_{S >= 0} F with D fixed; Hessian alpha I + D'D per document (eq. 10), linear term C'D.

    Without a warm start, S starts at the unconstrained solution clipped at zero, C'D (alpha I + D'D)^-1.
    """
    hessian = D.T @ D + alpha * np.eye(D.shape[1])
    linear = np.asarray(X @ D)
    if S is None:
        try:
            S = np.maximum(0.0, scipy.linalg.solve(hessian, linear.T, assume_a="pos").T)
        except np.linalg.LinAlgError:  # D'D rank-deficient (K > V) and alpha below its rounding: eq. 8 is void too
            raise ValueError(f"lgnmf: alpha I + D'D (eq. 10) is singular at alpha = {alpha:.3g}, below the rounding of "
                             f"D'D ({D.shape[1]} topics over {D.shape[0]} words); raise log10_alpha_min") from None
    return hals(S, hessian, linear, tol, max_iter, parallel)[0]


# -- the Laplace-approximate hyperparameter posterior (sec. 3.2, eqs. 7-10) ---------------------------
def half_normal_log_prior(x, precision):
    """sum log N+(x; 0, precision^-1 I): each coordinate 2 N(x; 0, 1/precision), log 2 the truncation normaliser."""
    return float(x.size * (np.log(2.0) + 0.5 * np.log(precision) - 0.5 * LOG_2PI) - 0.5 * precision * np.sum(x * x))


def gaussian_log_density_at_mean(precision, n_vectors):
    """n_vectors * log N(x*; x*, precision^-1) = n_vectors (1/2 logdet(precision) - K/2 log 2 pi)."""
    sign, logdet = np.linalg.slogdet(precision)
    return n_vectors * (0.5 * logdet - 0.5 * precision.shape[0] * LOG_2PI)


def log_posterior_alpha(X, D, S, alpha, prior_shape, prior_rate, scale=1.0, sq_norm_C=None):
    """Eq. 8: log p~(alpha | C) = log p(C | x*) + log p(x* | alpha) + log p(alpha) - log p_G(x* | alpha, C) + const.

    p_G factorises over the vectors (end of sec. 3.2) with precisions K I + S'S for each d_w (eq. 9) and
    alpha I + D'D for each s_d (eq. 10); the paper writes Sigma, but these are Hessians of -log p, i.e.
    precisions. With a minibatch of N_b documents, ``scale`` = N/N_b multiplies the document-side terms
    (likelihood, prior on S, p_G of the s_d) and S'S in eq. 9: an unbiased estimate of those sums if
    x* were the full-corpus MAP (sec. 4's online approximation).
    """
    V, K = D.shape
    n_docs = S.shape[0]
    log_lik = -0.5 * squared_error(X, D, S, sq_norm_C) - 0.5 * V * n_docs * LOG_2PI  # log p(C | x*)
    documents = log_lik + half_normal_log_prior(S, alpha) - gaussian_log_density_at_mean(D.T @ D + alpha * np.eye(K), n_docs)
    words = half_normal_log_prior(D, K) - gaussian_log_density_at_mean(K * np.eye(K) + scale * (S.T @ S), V)
    log_hyperprior = prior_shape * np.log(prior_rate) - gammaln(prior_shape) + (prior_shape - 1) * np.log(alpha) - prior_rate * alpha
    return scale * documents + words + log_hyperprior


def grid_weights(log_alpha, log_posterior, cell_width):
    """Eq. 13 and the sentence before it: w_m = Delta_m p~(alpha_m | C) / sum_m' Delta_m' p~(alpha_m' | C), in log space.

    The cells have equal width in log alpha, so in alpha they are Delta_m = alpha_m * cell_width (first order).
    """
    log_w = np.log(cell_width) + log_alpha + log_posterior
    w = np.exp(log_w - log_w.max())  # log p~ is O(V N): subtracting logsumexp would leave ~1e-11 rounding in the sum
    return w / w.sum()


def normalised_weights(log_w):
    """exp(log_w) / sum exp(log_w) without overflow (the max is subtracted first, as in grid_weights)."""
    w = np.exp(log_w - np.max(log_w))
    return w / w.sum()


def validation_count(fraction, n_docs) -> int:
    """The validation documents set aside from a first batch of ``n_docs`` (criterion "validation")."""
    return int(round(float(fraction) * n_docs))


# -- the sec. 3.4 grid: mode, finite-difference curvature, points spaced in posterior sd ---------------
LOG10_ALPHA_RANGE = (-307.0, 308.0)  # 10^x is a normal double (np.finfo(float).tiny = 2.2e-308, max = 1.8e308)


def finite_difference_curvature(f_minus, f_mode, f_plus, step):
    """H = -d^2 f / du^2 at the mode by central differences: -(f(u+h) - 2 f(u) + f(u-h)) / h^2 (sec. 3.4)."""
    return -(f_plus - 2.0 * f_mode + f_minus) / (step * step)


def laplace_grid(mode, curvature, size, spacing_sd, fallback_sd):
    """Sec. 3.4 in 1-D: Omega = H^-1, sd = Omega^1/2; ``size`` points ``spacing_sd`` sd apart centred on the mode.

    Returns (points, cell width Delta_m, sd), all in the log alpha the mode was found in. A curvature that is
    not positive (flat or not a maximum at the resolution of the finite differences) has no sd; then
    ``fallback_sd`` (the finite-difference step) stands in for it, and the caller reports it."""
    sd = 1.0 / np.sqrt(curvature) if curvature > 0 else float(fallback_sd)
    offsets = (np.arange(size) - 0.5 * (size - 1)) * spacing_sd
    return mode + offsets * sd, spacing_sd * sd, sd


def completion_probs(D, alpha, observed, word_ids, floor, tol, max_iter):
    """p(w | d) at the nonzeros of ``word_ids`` (CSR order) for one MAP fit D at alpha: s_d fitted to ``observed``.

    p(w | d) = (1 - f) (D s_d)_w / sum_v (D s_d)_v + f / V, f = ``floor``: the rates are exactly zero for words
    outside every active topic, and log 0 is not a score. A document whose rate is zero everywhere (s_d = 0,
    e.g. an empty observed part) gets the uniform 1/V."""
    V = D.shape[0]
    doc_of = np.repeat(np.arange(word_ids.shape[0]), np.diff(word_ids.indptr))
    S = solve_scores(observed, D, alpha, tol, max_iter)
    total = (S @ D.sum(axis=0))[doc_of]
    rate = np.einsum("ij,ij->i", S[doc_of], D[word_ids.indices])
    out = np.full(word_ids.nnz, 1.0 / V)
    live = total > 0
    # at most 1: rate and total are one sum in two orders, so their ratio can round above 1 (a one-word vocabulary)
    out[live] = (1.0 - floor) * rate[live] / total[live] + floor / V
    return rounded_to_one(out)


class LatentGaussianNMF(Method):
    """Hyperparameters: K; the grid (``grid``: "laplace", sec. 3.4, or "fixed"; ``grid_size`` points;
    ``grid_spacing_sd``; the search range log10_alpha_min..max, which is also the fixed grid's range; the
    search's ``search_iters`` block cycles per evaluation, Brent tolerance ``search_tol`` and finite-difference
    step ``fd_step``, both in decades); the ``criterion`` that places and weights it ("validation", our
    deviation, or "evidence", eq. 8) and the ``validation_fraction``; minibatch size (null: batch); the online
    step eta and SGD iterations per minibatch (sec. 4); block iterations per batch pass; the HALS tolerance
    and sweep cap; the Ga(shape, rate) prior on alpha; and the probability floor of the predictive."""

    name = "lgnmf"
    family = "lgnmf"
    description = "LG-NMF with a Laplace posterior over its hyperparameter grid (Hu et al. 2014)"
    uses_corpus_size = True
    # secs. 2.1, 4, 5.1: K = 50, 10 grid points, Ga(1e-6, 1e-6), eta = 0.003 and 25 SGD iterations per minibatch
    params = {"K": 50, "grid": "laplace", "criterion": "validation", "grid_size": 10, "grid_spacing_sd": 0.5,
              "log10_alpha_min": -3.0, "log10_alpha_max": 3.0, "search_iters": 5, "search_tol": 0.05, "fd_step": 0.05,
              "validation_fraction": 0.1, "batch_size": None, "eta": 0.003, "sgd_iters": 25, "block_iters": 1,
              "solver_tol": 1e-4, "solver_max_iter": 50, "alpha_prior_shape": 1e-6, "alpha_prior_rate": 1e-6,
              "prob_floor": 1e-8}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(p["grid"] in ("laplace", "fixed"), cls.name, "grid", f"must be 'laplace' or 'fixed', got {p['grid']!r}")
        require(p["criterion"] in ("validation", "evidence"), cls.name, "criterion",
                f"must be 'validation' or 'evidence', got {p['criterion']!r}")
        for count in ("grid_size", "sgd_iters", "block_iters", "solver_max_iter", "search_iters"):
            require(isinstance(p[count], (int, np.integer)) and p[count] >= 1, cls.name, count,
                    f"must be an integer >= 1, got {p[count]!r}")
        for bound in ("log10_alpha_min", "log10_alpha_max"):
            require(np.isfinite(float(p[bound])), cls.name, bound, f"must be finite, got {p[bound]!r}")
        require(float(p["log10_alpha_max"]) > float(p["log10_alpha_min"]), cls.name, "log10_alpha_max",
                f"must exceed log10_alpha_min, got {p['log10_alpha_max']!r} <= {p['log10_alpha_min']!r}")
        for positive in ("solver_tol", "alpha_prior_shape", "alpha_prior_rate", "grid_spacing_sd", "search_tol", "fd_step"):
            require(np.isfinite(float(p[positive])) and float(p[positive]) > 0, cls.name, positive,
                    f"must be finite and > 0, got {p[positive]!r}")
        # alpha = 10^x must be a normal double at every x the fit evaluates: log10_alpha_min .. max and, under the
        # Laplace grid, the finite differences' mode -/+ fd_step (sec. 3.4), which must also move x (else H = 0/0)
        lo, hi, h = float(p["log10_alpha_min"]), float(p["log10_alpha_max"]), float(p["fd_step"])
        for bound, x in (("log10_alpha_min", lo), ("log10_alpha_max", hi)):
            require(LOG10_ALPHA_RANGE[0] <= x <= LOG10_ALPHA_RANGE[1], cls.name, bound,
                    f"must lie in {list(LOG10_ALPHA_RANGE)} (alpha = 10^x a normal double), got {p[bound]!r}")
        widest = max(abs(lo), abs(hi))
        steps_fit = widest + h > widest and LOG10_ALPHA_RANGE[0] <= lo - h and hi + h <= LOG10_ALPHA_RANGE[1]
        require(p["grid"] != "laplace" or steps_fit, cls.name, "fd_step",
                f"must move log10 alpha at every search point and keep log10_alpha_min - fd_step and "
                f"log10_alpha_max + fd_step in {list(LOG10_ALPHA_RANGE)} (the sec. 3.4 finite differences evaluate "
                f"alpha = 10^(mode -/+ fd_step)), got {p['fd_step']!r} with [{lo:g}, {hi:g}]")
        require(0.0 < float(p["prob_floor"]) < 1.0, cls.name, "prob_floor", f"must lie in (0, 1), got {p['prob_floor']!r}")
        require(0.0 < float(p["validation_fraction"]) < 1.0, cls.name, "validation_fraction",
                f"must lie in (0, 1), got {p['validation_fraction']!r}")
        if p["criterion"] == "validation" and p["batch_size"] is not None:  # online: the first batch is batch_size long
            cls.check_validation_count(p, p["batch_size"], "a minibatch", "batch_size")

    @classmethod
    def check_validation_count(cls, p, n_docs, batch, culprit):
        """round(validation_fraction * n_docs) validation documents of a first batch of ``n_docs``: at least 1, and
        fewer than n_docs (a fitted rest), else ParamError naming validation_fraction and ``culprit``."""
        n_val = validation_count(p["validation_fraction"], n_docs)
        require(1 <= n_val < n_docs, cls.name, "validation_fraction",
                f"{p['validation_fraction']!r} of {batch} of {n_docs} documents is {n_val} validation documents (the "
                f"first batch's, sec. 3.4); need at least 1 and a fitted rest: choose validation_fraction and {culprit} "
                f"so, or criterion: evidence")

    @classmethod
    def unused_params(cls, p):
        """The batch mode (sec. 3.1, batch_size: null) runs block_iters sweeps; the online mode (sec. 4) runs
        sgd_iters steps of size eta: each reads only its own."""
        if p["batch_size"] is None:
            return {key: "applies to the online mode only (set batch_size)" for key in ("eta", "sgd_iters")}
        return {"block_iters": "applies to the batch mode only (batch_size: null)"}

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        p, K, M = self.hyper, self.n_topics, int(self.hyper["grid_size"])
        if p["criterion"] == "validation" and self.batch_size is None:  # batch: the first batch is the training split
            self.check_validation_count(p, self.corpus_size, "a training split", "the training split")
        lo, hi = float(p["log10_alpha_min"]), float(p["log10_alpha_max"])
        # the fixed grid; under grid = "laplace" a placeholder until the search places the grid (first partial_fit)
        self.cell_width = (hi - lo) / M * LN10  # in natural log alpha
        self.grid_log_alpha = (lo + (np.arange(M) + 0.5) * (hi - lo) / M) * LN10
        self.placed = p["grid"] == "fixed"
        # every grid point starts from the same D (sec. 5.1: "initialized exactly the same"), at the prior's scale.
        # Sec. 5.1 takes D_1 and S from one Gibbs iteration of LDA from a random start, so that LDA and LG-NMF start
        # alike, and reports the results "robust to numerous types of initializations (including random)"; we start
        # from Uniform(0, 1) / sqrt(K) (no LDA here to share a start with), and S from D (the first S-block solve).
        self.D_start = self.rng.uniform(size=(n_words, K)) / np.sqrt(K)
        self.D = np.repeat(self.D_start[None], M, axis=0)
        self.log_posterior = np.zeros(M)  # eq. 8 at each grid point (always computed, whatever the criterion)
        self.validation = np.full(M, np.nan)  # validation log predictive per held-out token, per grid point
        self.grid_weights = np.full(M, 1.0 / M)
        self.objective = np.full(M, np.nan)
        self.score_mean = np.zeros((M, K))  # mean s_d of the last fit, for topic_weights()
        self.validation_rows = np.zeros(0, dtype=np.int64)  # training rows never fitted (criterion validation)
        self._val = None  # (observed, heldout) of the validation documents
        # the sec. 3.4 search: every evaluation's log10 alpha, eq. 8 (+ log alpha) and validation score per token
        self.search = np.zeros((0, 3))
        self.mode_log10_alpha = self.log10_alpha_sd = self.curvature = np.nan
        self._batch_rows = self._batch_S = None
        self._unscored = None  # (X, S per grid point, scale, ||X||^2) of the last update until after_update scores it
        self.last_step = np.nan

    @property
    def alphas(self):
        return np.exp(self.grid_log_alpha)

    # -- the validation split (criterion = "validation") ---------------------------------------------
    def carve_validation(self, X, rows):
        """Pick round(validation_fraction * n) of the first batch's documents by the seed; split each in halves."""
        fraction = self.hyper["validation_fraction"]
        n_val = validation_count(fraction, X.shape[0])
        if not 1 <= n_val < X.shape[0]:
            raise ValueError(f"{self.name}: validation_fraction {fraction} of a first batch of "
                             f"{X.shape[0]} documents leaves {n_val} validation documents; need at least 1 and a fitted rest")
        pick = np.sort(np.random.default_rng([self.seed, 0x7A11D]).permutation(X.shape[0])[:n_val])
        self.validation_rows = np.asarray(rows)[pick].astype(np.int64)
        self._val = split_documents(X[pick], 0.5, self.seed)
        if not self._val[1].nnz:  # the validation score per token would be 0 nats over 0 tokens
            raise ValueError(f"{self.name}: the validation documents (validation_fraction {fraction} of the first batch: "
                             f"{n_val} of {X.shape[0]}) hold out no token: each is shorter than 2 tokens, so completing "
                             f"its observed half scores nothing; use criterion: evidence, a larger validation_fraction, "
                             f"or longer documents")

    def validation_loglik(self, D, alpha):
        """Sum of log p(w | observed half) over the validation documents' held-out tokens, and their number."""
        observed, heldout = self._val
        p = self.hyper
        probs = completion_probs(D, alpha, observed, heldout, float(p["prob_floor"]), p["solver_tol"], p["solver_max_iter"])
        return float(heldout.data @ np.log(probs)), float(heldout.data.sum())

    def criterion_value(self, evidence, val_total):
        """The function of log alpha that the search maximises and that weights the grid (a density over log alpha)."""
        return evidence if self.hyper["criterion"] == "evidence" else val_total

    # -- the sec. 3.4 grid -----------------------------------------------------------------------------
    def evaluate_alpha(self, X, log10_alpha, scale=1.0):
        """One evaluation of the search: the MAP fit at alpha from D0 (``search_iters`` block cycles, sec. 3.1).

        Returns (criterion, eq. 8 + log alpha, validation score per token, D). Eq. 8 gets + log alpha because the
        search and the grid live in log alpha (the density of log alpha is alpha p~(alpha | C))."""
        p = self.hyper
        alpha = 10.0 ** float(log10_alpha)
        D = self.D_start
        S = solve_scores(X, D, alpha, p["solver_tol"], p["solver_max_iter"])
        for _ in range(p["search_iters"]):
            D = solve_loadings(X, S, D, p["solver_tol"], p["solver_max_iter"])
            S = solve_scores(X, D, alpha, p["solver_tol"], p["solver_max_iter"], S)
        evidence = log_posterior_alpha(X, D, S, alpha, p["alpha_prior_shape"], p["alpha_prior_rate"], scale) + np.log(alpha)
        val_total, tokens = self.validation_loglik(D, alpha) if self._val is not None else (np.nan, np.nan)
        return self.criterion_value(evidence, val_total), evidence, val_total / tokens, D

    def place_grid(self, X, scale=1.0):
        """Sec. 3.4: mode of the criterion over log alpha, curvature by finite differences, grid in sd units."""
        p = self.hyper
        lo, hi = float(p["log10_alpha_min"]), float(p["log10_alpha_max"])
        fits, record = {}, []

        def f(log10_alpha):
            key = float(log10_alpha)
            if key not in fits:
                value, evidence, val_per_token, D = self.evaluate_alpha(X, key, scale)
                fits[key] = (value, D)
                record.append((key, evidence, val_per_token))
            return fits[key][0]

        scan = np.linspace(lo, hi, max(3, int(round(hi - lo)) + 1))  # one point per decade, at least 3
        best = int(np.argmax([f(x) for x in scan]))
        bracket = (scan[max(best - 1, 0)], scan[min(best + 1, len(scan) - 1)])
        minimize_scalar(lambda x: -f(x), bounds=bracket, method="bounded", options={"xatol": float(p["search_tol"])})
        mode = max(fits, key=lambda k: fits[k][0])
        h = float(p["fd_step"])
        self.curvature = finite_difference_curvature(f(mode - h), f(mode), f(mode + h), h * LN10)
        grid, self.cell_width, sd = laplace_grid(mode * LN10, self.curvature, int(p["grid_size"]),
                                                 float(p["grid_spacing_sd"]), h * LN10)
        with np.errstate(over="ignore"):
            alphas = np.exp(grid)
        if not np.all((alphas >= np.finfo(float).tiny) & np.isfinite(alphas)):
            raise ValueError(
                f"{self.name}: the sec. 3.4 grid puts log10 alpha at {grid[0] / LN10:.4g} .. {grid[-1] / LN10:.4g} "
                f"(mode {mode:.4g}, sd {sd / LN10:.4g} decades from the curvature {self.curvature:.4g}, grid_size "
                f"{p['grid_size']}, grid_spacing_sd {p['grid_spacing_sd']!r}), where alpha is not a normal double: "
                f"the criterion is nearly flat in alpha (too few fitted documents or words for the validation_fraction"
                f" {p['validation_fraction']!r}, a prob_floor {p['prob_floor']!r} near 1, K = {self.n_topics}?) or "
                f"grid_spacing_sd is too wide; use grid: fixed or a smaller grid_spacing_sd")
        self.grid_log_alpha, self.mode_log10_alpha, self.log10_alpha_sd = grid, mode, sd / LN10
        self.D = np.repeat(fits[mode][1][None], len(grid), axis=0)
        self.search = np.array(record)
        self.placed = True

    # -- the updates -------------------------------------------------------------------------------
    def partial_fit(self, batch):
        with _BLAS.limit(limits=1, user_api="blas"):
            self._partial_fit(batch)

    def _partial_fit(self, batch):
        self.after_update()  # a caller without the runner may not have scored the last update
        X = sp.csr_matrix(batch.counts, dtype=np.float64)
        rows = np.asarray(batch.rows)
        drawn = X.shape[0]  # documents drawn, before any are set aside for validation
        if self.hyper["criterion"] == "validation" and self._val is None:
            self.carve_validation(X, rows)
        fit = ~np.isin(rows, self.validation_rows)
        self.docs_seen += X.shape[0]
        self.updates += 1
        if not fit.any():
            return
        X, rows = X[fit], rows[fit]
        # N / N_b: sec. 4's stochastic estimate of the sums over the fitted documents (1 in batch mode)
        scale = 1.0 if self.batch_size is None else (self.corpus_size - len(self.validation_rows)) / X.shape[0]
        if not self.placed:
            self.place_grid(X, scale)
        S_all = (self.batch_pass(X, rows) if self.batch_size is None else
                 self.online_step(X, prior_share=min(1.0, drawn / self.batch_size)))
        p = self.hyper
        sq_norm_C = float(X.multiply(X).sum())
        evidence = p["criterion"] == "evidence"
        val_total = np.full(len(self.alphas), np.nan)
        for m, alpha in enumerate(self.alphas):
            if evidence:  # eq. 8 weighs the grid; under "validation" it is only reported (after_update)
                self.log_posterior[m] = self._log_posterior(X, m, S_all[m], scale, sq_norm_C)
            if self._val is not None:
                val_total[m], tokens = self.validation_loglik(self.D[m], alpha)
                self.validation[m] = val_total[m] / tokens
            self.score_mean[m] = S_all[m].mean(axis=0)
        self._unscored = (X, S_all, scale, sq_norm_C)
        if evidence:
            self.grid_weights = grid_weights(self.grid_log_alpha, self.log_posterior, self.cell_width)
        else:  # Delta_m exp(validation log predictive): flat prior on log alpha, equal cells in log alpha
            self.grid_weights = normalised_weights(np.log(self.cell_width) + val_total)

    def _log_posterior(self, X, m, S, scale, sq_norm_C):
        p = self.hyper
        return log_posterior_alpha(X, self.D[m], S, self.alphas[m], p["alpha_prior_shape"], p["alpha_prior_rate"], scale,
                                   sq_norm_C)

    def after_update(self):
        """What no update reads, for the trace and the model file only: each grid point's MAP objective and, under
        criterion "validation", eq. 8 (5-15% of an update's time when computed inside it)."""
        if self._unscored is None:
            return
        X, S_all, scale, sq_norm_C = self._unscored
        self._unscored = None
        for m, alpha in enumerate(self.alphas):
            self.objective[m] = map_objective(X, self.D[m], S_all[m], alpha, sq_norm_C)
            if self.hyper["criterion"] != "evidence":
                self.log_posterior[m] = self._log_posterior(X, m, S_all[m], scale, sq_norm_C)

    def batch_pass(self, X, rows):
        """``block_iters`` cycles of sec. 3.1 (D-block, then S-block) per grid point, warm-started from the last pass."""
        p = self.hyper
        warm = self._batch_rows is not None and np.array_equal(self._batch_rows, rows)
        S_all = []
        for m, alpha in enumerate(self.alphas):
            S = self._batch_S[m] if warm else solve_scores(X, self.D[m], alpha, p["solver_tol"], p["solver_max_iter"])
            for _ in range(p["block_iters"]):
                self.D[m] = solve_loadings(X, S, self.D[m], p["solver_tol"], p["solver_max_iter"])
                S = solve_scores(X, self.D[m], alpha, p["solver_tol"], p["solver_max_iter"], S)
            S_all.append(S)
        self._batch_rows, self._batch_S = np.array(rows, copy=True), S_all
        return S_all

    def online_step(self, X, prior_share: float = 1.0):
        """Sec. 4: per grid point, ``sgd_iters`` steps D <- D - eta dl/dD (eq. 15), S_b <- S_b - eta dl/dS_b (eq. 16).

        l = -log p(D, S_b, alpha | C_b): the minibatch as the whole corpus, as the paper writes it for its
        minibatches, all of size B. A shorter one (the last of a pass when B does not divide the corpus) carries
        ``prior_share`` = |C_b| / B of eq. 15's prior term K d_:k, so that its few documents are weighed against
        the prior as B documents are: with the whole K, a last minibatch of 16 documents under B = 256 pulled D
        to the prior 16 times harder than any other step and undid the fit (hu_fig5: perplexity 1370 -> 4752,
        above the word-frequency baseline, in that one step). Each step is
        projected on D, S >= 0 (eq. 3's N+ support), D and S alternate (sec. 3.1's block cycle), S_b starts at
        the S-block solve given D (the paper does not say how S_b starts), and each step is eta capped at 1/L,
        L the block Hessian's largest eigenvalue (S_b'S_b + K I, or D'D + alpha I), so no step can raise l.
        The grid points are independent fits: their steps run in ``threads`` Python threads (BLAS and the
        ``projected_step`` kernel release the GIL), each point's arithmetic the same as one after another.
        """
        p = self.hyper
        K, eta = self.n_topics, float(p["eta"])
        prior_D = K * prior_share  # eq. 15's K, in this minibatch's share of B
        C = sp.csr_matrix(X.T)
        M = len(self.alphas)
        pool = self.threads > 1 and M > 1

        def descend(m):
            alpha, steps = self.alphas[m], []
            D = self.D[m]
            S = solve_scores(X, D, alpha, p["solver_tol"], p["solver_max_iter"], parallel=not pool)
            for _ in range(p["sgd_iters"]):
                StS = S.T @ S
                step = min(eta, 1.0 / (np.linalg.eigvalsh(StS)[-1] + prior_D))
                D = projected_step(D, D @ StS, C.indptr, C.indices, C.data, S, float(prior_D), step)  # eq. 15
                DtD = D.T @ D
                step_s = min(eta, 1.0 / (np.linalg.eigvalsh(DtD)[-1] + alpha))
                S = projected_step(S, S @ DtD, X.indptr, X.indices, X.data, D, float(alpha), step_s)  # eq. 16
                steps.append(min(step, step_s))
            return D, S, min(steps)

        if pool:
            with ThreadPoolExecutor(max_workers=min(self.threads, M)) as workers:
                fits = list(workers.map(descend, range(M)))
        else:
            fits = [descend(m) for m in range(M)]
        for m, (D, _, _) in enumerate(fits):
            self.D[m] = D
        self.last_step = float(min(f[2] for f in fits))
        return [f[1] for f in fits]

    # -- prediction (sec. 3.3, eqs. 13 and 18) ------------------------------------------------------
    def grid_predictions(self, observed, word_ids):
        """p_m(w | d) for each grid point (M x nnz of ``word_ids``, CSR order), s_d fitted to ``observed`` with D_m fixed."""
        observed, word_ids = sp.csr_matrix(observed, dtype=np.float64), sp.csr_matrix(word_ids)
        p = self.hyper
        with _BLAS.limit(limits=1, user_api="blas"):
            return np.array([completion_probs(self.D[m], alpha, observed, word_ids, float(p["prob_floor"]), p["solver_tol"],
                                              p["solver_max_iter"]) for m, alpha in enumerate(self.alphas)])

    def predict_words(self, observed, word_ids):
        """Eq. 13 for words: sum_m w_m p_m(w | d), the ensemble averaging probabilities (DESIGN.md)."""
        return self.grid_weights @ self.grid_predictions(observed, word_ids)

    def warm_up(self, tiny_batch):
        """Compile (or load from numba's cache) the lgnmf_kernels the fit calls, on tiny arrays of the types and layouts
        hals and online_step pass them, so that compilation stays off the fit clock (it was ~0.9 s of a cold first
        update). The kernels alone, not the generic fit of a copy: the first batch must hold validation documents."""
        X = sp.csr_matrix(tiny_batch.counts, dtype=np.float64)
        K = self.n_topics
        D, S = np.full((X.shape[1], K), 0.1), np.full((X.shape[0], K), 0.1)
        H = np.eye(K) + 1.0
        for sweeps in (hals_sweeps, hals_sweeps_serial):
            sweeps(S.copy(), S @ H - np.asarray(X @ D), np.ascontiguousarray(H.T), 1e-3, 2)
        C = sp.csr_matrix(X.T)
        projected_step(D, D @ (S.T @ S), C.indptr, C.indices, C.data, S, 1.0, 0.01)  # eq. 15's call
        projected_step(S, S @ (D.T @ D), X.indptr, X.indices, X.data, D, 1.0, 0.01)  # eq. 16's call

    def heldout_extras(self, splits):
        """Hook for the runner: each grid point's held-out log predictive per word, pooled over ``splits``.

        ``splits`` is the runner's [(observed, heldout)] list (topicbench.evaluate.protocol_splits); returns
        {"grid<m>_loglik": nats per held-out token}, which the runner writes as trace columns x_grid<m>_loglik
        beside progress()'s per-point alpha and weight. Evaluation only: nothing here changes the model."""
        total, tokens = np.zeros(len(self.alphas)), 0.0
        for observed, heldout in splits:
            heldout = sp.csr_matrix(heldout)
            if heldout.nnz:
                total += np.log(self.grid_predictions(observed, heldout)) @ heldout.data
                tokens += float(heldout.data.sum())
        return {f"grid{m}_loglik": float(total[m] / tokens) if tokens else float("nan") for m in range(len(total))}

    # -- read-outs -----------------------------------------------------------------------------------
    @property
    def best(self):
        return int(np.argmax(self.grid_weights))

    def topics(self):
        """The columns of D at the highest-weight grid point, each normalised to sum to one (all-zero columns stay zero).

        Not a weighted average over the grid: the grid points' topics are separate fits and need not be aligned."""
        topics = self.D[self.best].T
        mass = topics.sum(axis=1, keepdims=True)
        return np.divide(topics, mass, out=np.zeros_like(topics), where=mass > 0)

    def topic_weights(self):
        """Expected rate carried by topic k at the best grid point: sum_w D_wk times the mean s_dk of the last fit."""
        return self.D[self.best].sum(axis=0) * self.score_mean[self.best]

    STATE_ARRAYS = ("D", "grid_log_alpha", "grid_weights", "log_posterior", "validation", "objective", "score_mean",
                    "validation_rows", "search")
    STATE_SCALARS = ("cell_width", "mode_log10_alpha", "log10_alpha_sd", "curvature")

    def state(self):
        """The fits, the grid and its weights, eq. 8 and the validation score per grid point, and the search's record
        (columns: log10 alpha, eq. 8 + log alpha, validation log predictive per token) for Fig. 4."""
        self.after_update()
        return {**{k: getattr(self, k) for k in self.STATE_ARRAYS}, **{k: np.array(getattr(self, k)) for k in self.STATE_SCALARS},
                "placed": np.array(self.placed), "updates": np.array(self.updates), "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        grid = np.asarray(state["grid_log_alpha"], dtype=np.float64)
        fixed = self.hyper["grid"] == "fixed"
        if grid.shape != self.grid_log_alpha.shape or (fixed and not np.allclose(grid, self.grid_log_alpha, rtol=0, atol=1e-12)):
            raise ValueError(f"{self.name}: stored grid_log_alpha {grid} does not match the hyperparameters' grid")
        for key in self.STATE_ARRAYS:
            setattr(self, key, np.array(state[key], dtype=np.int64 if key == "validation_rows" else np.float64))
        for key in self.STATE_SCALARS:
            setattr(self, key, float(state[key]))
        self.placed = bool(state["placed"])
        self.updates = int(state["updates"])
        self.docs_seen = int(state["docs_seen"])

    def progress(self):
        """Weight-averaged log10 alpha, the best grid point's alpha and objective, the weight on the edge points, the
        sec. 3.4 mode and sd (NaN on the fixed grid), and per grid point m: log10 alpha, weight, eq. 8 relative to
        its largest value over the grid, and the validation log predictive per token (NaN without validation); and
        ``validation_docs``, the round(validation_fraction * n) documents the validation criterion set aside (0 under
        the evidence criterion), which the p_ columns give only as a fraction."""
        self.after_update()
        w, log10_alpha = self.grid_weights, self.grid_log_alpha / LN10
        out = {"validation_docs": len(self.validation_rows),
               "log10_alpha_mean": float(w @ log10_alpha), "log10_alpha_best": float(log10_alpha[self.best]),
               "objective": float(self.objective[self.best]), "edge_weight": float(w[0] + w[-1]),
               "sgd_step": self.last_step, "log10_alpha_mode": float(self.mode_log10_alpha),
               "log10_alpha_sd": float(self.log10_alpha_sd)}
        relative = self.log_posterior - np.max(self.log_posterior)
        for m in range(len(w)):
            out.update({f"grid{m}_log10_alpha": float(log10_alpha[m]), f"grid{m}_weight": float(w[m]),
                        f"grid{m}_log_evidence": float(relative[m]), f"grid{m}_validation": float(self.validation[m])})
        return out
