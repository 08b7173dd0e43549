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
- Grid and weights (secs. 3.3-3.4, eq. 13): w_m ∝ Delta_m p~(alpha_m | C), normalised, in log space.
- Prediction (sec. 3.3, eq. 13 applied to words, eq. 18 with the MAP plug-in that sec. 3.3 calls "by
  far the simplest"): per grid point, s_d is fitted to the observed part with D_m fixed, and the
  predictive is the weighted mixture of the normalised rates (D_m s_d)_w / sum_v (D_m s_d)_v.
- Online (sec. 4, eqs. 15-16): per minibatch, ``sgd_iters`` alternating projected gradient steps on D
  and the minibatch's S, the same minibatches for every grid point.

The grid is fixed: ``grid_size`` cells of equal width in log10 alpha between ``log10_alpha_min`` and
``log10_alpha_max``, alpha_m at the cell centres (sec. 5.1 uses 10 points, sec. 5.3 eight). We do not
place it INLA-style (sec. 3.4: mode and finite-difference curvature of log p~, then points spaced in
posterior sd): that needs MAP fits at many alpha before the first step, which the online algorithm
(sec. 4) cannot afford and which would move the grid under the warm-started fits, so each grid point
would no longer optimise one fixed objective. The price: when the posterior is narrower than a cell,
the weights are nearly one-hot; ``progress()`` reports the weight on the two edge cells, which should be
small, or the range is too narrow.
"""
import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.special import gammaln

from topicbench.method import Method, require

LOG_2PI = float(np.log(2.0 * np.pi))


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

    S'S and C = X' as CSR may be passed in when a loop already has them (CSR C S is faster than X' S)."""
    return D @ (S.T @ S if StS is None else StS) - (X.T if C is None else C) @ S + D.shape[1] * D


def scores_gradient(X, D, S, alpha, DtD=None):
    """Eq. 16: dF/dS_dk = sum_w (d_w's_d - C_wd) D_wk + alpha S_dk, i.e. S (D'D) - C' D + alpha S (D'D if at hand)."""
    return S @ (D.T @ D if DtD is None else DtD) - X @ D + alpha * S


# -- exact block solves: nonnegative least squares by HALS coordinate descent ------------------------
def hals(factor, hessian, linear, tol, max_iter):
    """min_{F >= 0} 1/2 tr(F hessian F') - tr(F' linear), one row per vector, by coordinate descent.

    Column k's step F_k <- max(0, F_k + (linear_k - F hessian_k) / hessian_kk) is the exact minimiser in
    that coordinate (hessian_kk >= K > 0 or >= alpha > 0), so the objective never rises. Sweeps stop when
    the squared change of a sweep is below tol^2 ||F||^2, or after max_iter sweeps.
    """
    F = np.array(factor, dtype=np.float64, order="F")
    for sweep in range(1, max_iter + 1):
        change = 0.0
        for k in range(F.shape[1]):
            new = np.maximum(0.0, F[:, k] + (linear[:, k] - F @ hessian[:, k]) / hessian[k, k])
            change += float(np.sum((new - F[:, k]) ** 2))
            F[:, k] = new
        if change <= tol * tol * float(np.sum(F * F)):
            break
    return np.ascontiguousarray(F), sweep


def solve_loadings(X, S, D, tol, max_iter):
    """D-block of sec. 3.1: min_{D >= 0} F with S fixed; Hessian K I + S'S per word (eq. 9), linear term C S."""
    K = D.shape[1]
    return hals(D, S.T @ S + K * np.eye(K), X.T @ S, tol, max_iter)[0]


def solve_scores(X, D, alpha, tol, max_iter, S=None):
    """S-block of sec. 3.1: min_{S >= 0} F with D fixed; Hessian alpha I + D'D per document (eq. 10), linear term C'D.

    Without a warm start, S starts at the unconstrained solution clipped at zero, C'D (alpha I + D'D)^-1.
    """
    hessian = D.T @ D + alpha * np.eye(D.shape[1])
    linear = np.asarray(X @ D)
    if S is None:
        S = np.maximum(0.0, scipy.linalg.solve(hessian, linear.T, assume_a="pos").T)
    return hals(S, hessian, linear, tol, max_iter)[0]


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


class LatentGaussianNMF(Method):
    """Hyperparameters: K; the alpha grid (grid_size cells between log10_alpha_min and log10_alpha_max);
    minibatch size (null: batch); the online step eta and SGD iterations per minibatch (sec. 4); block
    iterations per batch pass; the HALS tolerance and sweep cap; the Ga(shape, rate) prior on alpha; and
    the probability floor of the predictive (see ``grid_predictions``)."""

    name = "lgnmf"
    family = "lgnmf"
    description = "LG-NMF with a Laplace posterior over its hyperparameter grid (Hu et al. 2014)"
    uses_corpus_size = True
    # secs. 2.1, 4, 5.1: K = 50, 10 grid points, Ga(1e-6, 1e-6), eta = 0.003 and 25 SGD iterations per minibatch
    params = {"K": 50, "grid_size": 10, "log10_alpha_min": -3.0, "log10_alpha_max": 3.0, "batch_size": None,
              "eta": 0.003, "sgd_iters": 25, "block_iters": 1, "solver_tol": 1e-4, "solver_max_iter": 50,
              "alpha_prior_shape": 1e-6, "alpha_prior_rate": 1e-6, "prob_floor": 1e-8}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        for count in ("grid_size", "sgd_iters", "block_iters", "solver_max_iter"):
            require(isinstance(p[count], (int, np.integer)) and p[count] >= 1, cls.name, count,
                    f"must be an integer >= 1, got {p[count]!r}")
        for bound in ("log10_alpha_min", "log10_alpha_max"):
            require(np.isfinite(float(p[bound])), cls.name, bound, f"must be finite, got {p[bound]!r}")
        require(float(p["log10_alpha_max"]) > float(p["log10_alpha_min"]), cls.name, "log10_alpha_max",
                f"must exceed log10_alpha_min, got {p['log10_alpha_max']!r} <= {p['log10_alpha_min']!r}")
        for positive in ("solver_tol", "alpha_prior_shape", "alpha_prior_rate"):
            require(float(p[positive]) > 0, cls.name, positive, f"must be > 0, got {p[positive]!r}")
        require(0.0 < float(p["prob_floor"]) < 1.0, cls.name, "prob_floor", f"must lie in (0, 1), got {p['prob_floor']!r}")

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        p, K, M = self.hyper, self.n_topics, int(self.hyper["grid_size"])
        lo, hi = float(p["log10_alpha_min"]), float(p["log10_alpha_max"])
        self.cell_width = (hi - lo) / M * np.log(10.0)  # in natural log alpha
        self.grid_log_alpha = (lo + (np.arange(M) + 0.5) * (hi - lo) / M) * np.log(10.0)
        # every grid point starts from the same D (sec. 5.1: "initialized exactly the same"), at the prior's scale
        self.D = np.repeat(self.rng.uniform(size=(1, n_words, K)) / np.sqrt(K), M, axis=0)
        self.log_posterior = np.zeros(M)
        self.grid_weights = np.full(M, 1.0 / M)
        self.objective = np.full(M, np.nan)
        self.score_mean = np.zeros((M, K))  # mean s_d of the last fit, for topic_weights()
        self._batch_rows = self._batch_S = None
        self.last_step = np.nan

    @property
    def alphas(self):
        return np.exp(self.grid_log_alpha)

    # -- the updates -------------------------------------------------------------------------------
    def partial_fit(self, batch):
        X = sp.csr_matrix(batch.counts, dtype=np.float64)
        sq_norm_C = float(X.multiply(X).sum())
        if self.batch_size is None:
            S_all = self.batch_pass(X, batch.rows)
            scale = 1.0
        else:
            S_all = self.online_step(X)
            scale = self.corpus_size / X.shape[0]  # N / |batch| (sec. 4's stochastic estimate of the sums over documents)
        p = self.hyper
        for m, alpha in enumerate(self.alphas):
            self.objective[m] = map_objective(X, self.D[m], S_all[m], alpha, sq_norm_C)
            self.log_posterior[m] = log_posterior_alpha(X, self.D[m], S_all[m], alpha, p["alpha_prior_shape"],
                                                        p["alpha_prior_rate"], scale, sq_norm_C)
            self.score_mean[m] = S_all[m].mean(axis=0)
        self.grid_weights = grid_weights(self.grid_log_alpha, self.log_posterior, self.cell_width)
        self.updates += 1
        self.docs_seen += X.shape[0]

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

    def online_step(self, X):
        """Sec. 4: per grid point, ``sgd_iters`` steps D <- D - eta dl/dD (eq. 15), S_b <- S_b - eta dl/dS_b (eq. 16).

        l = -log p(D, S_b, alpha | C_b): the minibatch as the whole corpus, as the paper writes it. Each step is
        projected on D, S >= 0 (eq. 3's N+ support), D and S alternate (sec. 3.1's block cycle), S_b starts at
        the S-block solve given D (the paper does not say how S_b starts), and each step is eta capped at 1/L,
        L the block Hessian's largest eigenvalue (S_b'S_b + K I, or D'D + alpha I), so no step can raise l.
        """
        p = self.hyper
        K, eta = self.n_topics, float(p["eta"])
        C = sp.csr_matrix(X.T)
        S_all, steps = [], []
        for m, alpha in enumerate(self.alphas):
            D = self.D[m]
            S = solve_scores(X, D, alpha, p["solver_tol"], p["solver_max_iter"])
            for _ in range(p["sgd_iters"]):
                StS = S.T @ S
                step = min(eta, 1.0 / (np.linalg.eigvalsh(StS)[-1] + K))
                D = np.maximum(0.0, D - step * loadings_gradient(X, D, S, StS, C))  # eq. 15
                DtD = D.T @ D
                step_s = min(eta, 1.0 / (np.linalg.eigvalsh(DtD)[-1] + alpha))
                S = np.maximum(0.0, S - step_s * scores_gradient(X, D, S, alpha, DtD))  # eq. 16
                steps.append(min(step, step_s))
            self.D[m] = D
            S_all.append(S)
        self.last_step = float(np.min(steps))
        return S_all

    # -- prediction (sec. 3.3, eqs. 13 and 18) ------------------------------------------------------
    def grid_predictions(self, observed, word_ids):
        """p_m(w | d) for each grid point (M x nnz of ``word_ids``, CSR order), s_d fitted to ``observed`` with D_m fixed.

        p_m(w | d) = (1 - f) (D_m s_d)_w / sum_v (D_m s_d)_v + f / V, f = ``prob_floor``: the rates are exactly zero
        for words outside every active topic, and log 0 is not a score. A document whose rate is zero everywhere
        (s_d = 0, e.g. an empty observed part) gets the uniform 1/V.
        """
        observed = sp.csr_matrix(observed, dtype=np.float64)
        word_ids = sp.csr_matrix(word_ids)
        doc_of = np.repeat(np.arange(word_ids.shape[0]), np.diff(word_ids.indptr))
        floor, V = float(self.hyper["prob_floor"]), self.n_words
        out = np.empty((len(self.alphas), word_ids.nnz))
        for m, alpha in enumerate(self.alphas):
            D = self.D[m]
            S = solve_scores(observed, D, alpha, self.hyper["solver_tol"], self.hyper["solver_max_iter"])
            total = S @ D.sum(axis=0)
            rate = np.einsum("ij,ij->i", S[doc_of], D[word_ids.indices])
            live = total[doc_of] > 0
            out[m] = 1.0 / V
            out[m, live] = (1.0 - floor) * rate[live] / total[doc_of][live] + floor / V
        return out

    def predict_words(self, observed, word_ids):
        """Eq. 13 for words: sum_m w_m p_m(w | d), the ensemble averaging probabilities (DESIGN.md)."""
        return self.grid_weights @ self.grid_predictions(observed, word_ids)

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

    def state(self):
        return {"D": self.D, "grid_log_alpha": self.grid_log_alpha, "grid_weights": self.grid_weights,
                "log_posterior": self.log_posterior, "objective": self.objective, "score_mean": self.score_mean,
                "updates": np.array(self.updates), "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        grid = np.asarray(state["grid_log_alpha"], dtype=np.float64)
        if grid.shape != self.grid_log_alpha.shape or not np.allclose(grid, self.grid_log_alpha, rtol=0, atol=1e-12):
            raise ValueError(f"{self.name}: stored grid_log_alpha {grid} does not match the hyperparameters' grid")
        self.D = np.array(state["D"], dtype=np.float64)
        self.grid_weights = np.array(state["grid_weights"], dtype=np.float64)
        self.log_posterior = np.array(state["log_posterior"], dtype=np.float64)
        self.objective = np.array(state["objective"], dtype=np.float64)
        self.score_mean = np.array(state["score_mean"], dtype=np.float64)
        self.updates = int(state["updates"])
        self.docs_seen = int(state["docs_seen"])

    def progress(self):
        """Weight-averaged log10 alpha, the best grid point's alpha and objective, and the weight on the edge cells."""
        w = self.grid_weights
        return {"log10_alpha_mean": float(w @ self.grid_log_alpha / np.log(10.0)),
                "log10_alpha_best": float(self.grid_log_alpha[self.best] / np.log(10.0)),
                "objective": float(self.objective[self.best]), "edge_weight": float(w[0] + w[-1]),
                "sgd_step": self.last_step}
