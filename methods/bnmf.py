"""Stochastic variational inference for Bayesian NMF (Paisley, Blei and Jordan 2014, ch. 11; Cemgil 2009).

Model (eqs. 11.6-11.7): X_vd ~ Poisson(sum_k beta_vk theta_kd), beta_vk ~ Gamma(c0/V, c0),
theta_kd ~ Gamma(a0, b0) (shape, rate). Mean field q(beta_vk) = Gamma(g_vk, h_vk),
q(theta_kd) = Gamma(a_kd, b_kd) (Table 11.2), with the auxiliary bound of eqs. 11.23-11.24 on the
log of the Poisson rate.

One class covers both algorithms. With an integer ``batch_size`` it is SVI (sec. 11.5.2): local
step per minibatch, then eqs. 11.33-11.34 with rho_t = (tau0 + t)^-kappa. With ``batch_size: null``
the runner hands it the whole training set once per pass (topicbench/method.py), and the same code
with rho = 1 and D/|C_t| = 1 is the batch algorithm of eqs. 11.25-11.29; in that mode the local
parameters are kept between passes (batch VB never forgets q(theta)), so every coordinate update
raises the bound and ``elbo_trace`` is monotone. A separate ``batch`` flag would only restate
``batch_size is None`` and could contradict it.

The defaults are sec. 11.6's: c0 = 0.05 V, a0 = b0 = 1/K, rho_t = (1 + t)^-0.5.

h_vk's update (eqs. 11.26, 11.34) does not depend on v, so h is stored per topic (h_k); the
initialisation draws it per topic, which keeps h_vk = h_k exactly.
"""
import numpy as np
from scipy.special import digamma, gammaln

from topicbench import kernels, nmf_kernels
from topicbench.method import require
from topicbench.nmf import GammaPoissonTopics


class BayesianNMF(GammaPoissonTopics):
    """Hyperparameters: K; minibatch size |C_t| (null: batch); step size (tau0 + t)^-kappa; the prior
    c0 = c0_per_word * V on beta and (a0, b0) on theta (null: 1/K); the local step's tolerance and cap."""

    name = "bnmf"
    description = "SVI for Bayesian NMF (Paisley, Blei and Jordan 2014, sec. 11.5)"
    params = {**GammaPoissonTopics.params, "a0": None, "b0": None, "local_tol": 1e-3, "local_max_iter": 100}
    param_types = {"a0": (float, None), "b0": (float, None)}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        for prior in ("a0", "b0"):
            require(p[prior] is None or float(p[prior]) > 0, cls.name, prior, f"must be > 0 or null (1/K), got {p[prior]!r}")

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        K = self.n_topics
        self.a0 = 1.0 / K if self.hyper["a0"] is None else float(self.hyper["a0"])
        self.b0 = 1.0 / K if self.hyper["b0"] is None else float(self.hyper["b0"])
        self.init_topics(self.corpus_size / (self.batch_size or self.corpus_size))
        self._elbo_trace: list[float] = []
        self._unscored = None  # (counts, shape, g, h) of the last batch pass until after_update takes its bound
        self._batch_rows = self._batch_shape = None
        self.last_rho = self.last_local_iter = np.nan

    def weight_rate(self):
        """b_kd = b0 + sum_v E[beta_vk] (eq. 11.29), the same for every document."""
        return self.b0 + self.expected_beta().sum(axis=0)

    def local_step(self, counts, shape=None, want_sstats=True):
        """Eqs. 11.24, 11.28 iterated to convergence per document, topics fixed; 11.29 in closed form."""
        if shape is None:  # flat p: a_kd = a0 + N_d / K
            shape = self.a0 + np.asarray(counts.sum(axis=1), dtype=np.float64) / self.n_topics * np.ones(self.n_topics)
        exp_elog_beta = np.exp(self.expected_log_beta()).T
        return nmf_kernels.bnmf_local_step(counts, exp_elog_beta, self.weight_rate(), self.a0, self.hyper["local_max_iter"],
                                       self.hyper["local_tol"], shape=shape, want_sstats=want_sstats)

    # -- the bound -------------------------------------------------------------------------------
    def elbo(self, counts, shape, rate=None, p=None):
        """The full bound (eq. 11.14 with 11.23) for ``counts`` as the whole corpus, q(theta_kd) = Gamma(a_kd, b_k).

        sum_vd X_vd sum_k p_k^(vd) (E ln beta_vk + E ln theta_kd - ln p_k^(vd)) - sum_vdk E[beta_vk] E[theta_kd]
        - ln X_vd! + E ln p(B) + E ln p(Theta) + H[q(B)] + H[q(Theta)], for a = ``shape``, b = ``rate``
        (default eq. 11.29's) and p given per nonzero of ``counts`` (CSR order, nnz x K) or, by default,
        optimal (eq. 11.24), which turns the first term into sum_vd X_vd ln sum_k exp(E ln beta_vk + E ln theta_kd).
        Written from the bound's terms, not from the updates, so that tests can check the updates against it.
        """
        rate = self.weight_rate() if rate is None else np.asarray(rate, dtype=np.float64)
        elog_beta, e_beta = self.expected_log_beta(), self.expected_beta()
        elog_theta, e_theta = digamma(shape) - np.log(rate), shape / rate
        if p is None:
            probs = kernels.mixture_probs(counts, np.exp(elog_theta), np.exp(elog_beta).T)
            value = float(np.dot(counts.data, np.log(probs + 1e-300)))
        else:
            rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
            terms = p * (elog_beta[counts.indices] + elog_theta[rows] - np.log(np.maximum(p, 1e-300)))
            value = float(counts.data @ terms.sum(axis=1))
        value -= float(gammaln(counts.data + 1.0).sum())
        value -= float(e_beta.sum(axis=0) @ e_theta.sum(axis=0))
        value += gamma_prior_term(self.c0 / self.n_words, self.c0, elog_beta, e_beta)
        value += gamma_prior_term(self.a0, self.b0, elog_theta, e_theta)
        value += gamma_entropy(self.g, np.broadcast_to(self.h, self.g.shape)) + gamma_entropy(shape, np.broadcast_to(rate, shape.shape))
        return value

    # -- the updates -------------------------------------------------------------------------------
    def partial_fit(self, batch):
        self.after_update()  # a caller without the runner may not have taken the last pass's bound
        counts = batch.counts
        batch_mode = self.batch_size is None
        warm = batch_mode and self._batch_rows is not None and np.array_equal(self._batch_rows, batch.rows)
        shape, sstats, iterations = self.local_step(counts, shape=self._batch_shape if warm else None)
        if batch_mode:
            self._batch_rows, self._batch_shape = batch.rows.copy(), shape
            self._unscored = (counts, shape, self.g, self.h)  # topic_step below replaces g and h, never writes them
        rho = self.step_size()
        scale = self.corpus_size / len(batch)  # D / |C_t|
        self.topic_step(rho, scale, sstats, (shape / self.weight_rate()).sum(axis=0))  # sum_d E[theta_kd]
        self.updates += 1
        self.docs_seen += len(batch)
        self.last_rho, self.last_local_iter = rho, float(iterations.mean())

    def after_update(self):
        """The batch mode's bound (eq. 11.14 with 11.23) at the pass's local step and the q(beta) it ran under, for the
        trace only (no update reads it: ~20% of a batch pass's time when it was computed inside partial_fit)."""
        if self._unscored is None:
            return
        counts, shape, g, h = self._unscored
        self._unscored = None
        stepped, (self.g, self.h) = (self.g, self.h), (g, h)
        try:
            self._elbo_trace.append(self.elbo(counts, shape))
        finally:
            self.g, self.h = stepped

    @property
    def elbo_trace(self) -> list[float]:
        """The batch mode's bound after each pass (monotone: batch VB is coordinate ascent)."""
        self.after_update()
        return self._elbo_trace

    def predict_words(self, observed, word_ids):
        """p(w | d) ∝ sum_k E[theta_kd] E[beta_wk], the q means normalised over the vocabulary (sec. 11.6).

        The mixture weight of topic k is E[theta_kd] sum_v E[beta_vk], normalised over k.
        """
        shape, _, _ = self.local_step(observed, want_sstats=False)
        weights = shape / self.weight_rate() * self.expected_beta().sum(axis=0)
        weights /= weights.sum(axis=1, keepdims=True)
        return kernels.mixture_probs(word_ids, weights, self.topics())

    def progress(self):
        """The step size and local iterations, the bound, and the priors used: a0, b0 (1/K for null) and
        c0 = c0_per_word * V (sec. 11.6), which the p_ columns give only as asked for."""
        out = {"rho": self.last_rho, "local_iter": self.last_local_iter, "a0": self.a0, "b0": self.b0, "c0": self.c0}
        if self.elbo_trace:
            out["train_elbo"] = self.elbo_trace[-1]
        return out


def gamma_prior_term(shape0, rate0, elog_x, e_x):
    """sum E_q ln Gamma(x | shape0, rate0) given E[ln x] and E[x]."""
    return float(elog_x.size * (shape0 * np.log(rate0) - gammaln(shape0)) + (shape0 - 1) * elog_x.sum() - rate0 * e_x.sum())


def gamma_entropy(shape, rate):
    """sum of the entropies of Gamma(shape, rate): shape - ln rate + ln Gamma(shape) + (1 - shape) psi(shape)."""
    return float(np.sum(shape - np.log(rate) + gammaln(shape) + (1 - shape) * digamma(shape)))
