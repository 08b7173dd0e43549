"""What every variational LDA method shares: q(beta) = Dirichlet(lambda), the E-step, prediction and bounds.

Online, batch, streaming and population VB differ only in how they turn a minibatch's
sufficient statistics into a new lambda; they subclass :class:`VariationalLDA` and write that
one update in ``partial_fit``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from . import kernels
from .method import Method, require

# The largest Dirichlet prior (alpha on theta, eta on beta) a run takes. gamma_dk = alpha + sum_w n_dw phi_dwk and
# lambda_kw = eta + (D/S) sum_d n_dw phi_dwk (Hoffman et al. 2010, eq. 5 and Alg. 2) hold a count only to an ulp of the
# prior (2^-12 of a token at 2^40 = 1.1e12), and eq. 4's log Gamma(K alpha) - K log Gamma(alpha) cancels to within
# eps K alpha log alpha (~0.02 nats a document at 1e12, K = 3): at alpha = 1e16 the ELBO per word came out positive, and
# gensim's lambda_0 - eta turned NaN from eta = 1e100.
PRIOR_MAX = 1e12


def check_dirichlet_priors(method: str, p) -> None:
    """alpha and eta at most PRIOR_MAX (above), naming the method and the prior, before any fit."""
    for prior in ("alpha", "eta"):
        require(float(p[prior]) <= PRIOR_MAX, method, prior,
                f"must be <= {PRIOR_MAX:g}: beyond it gamma = alpha + counts and lambda = eta + counts (Hoffman et al. "
                f"2010, eq. 5) lose the counts to rounding and the bound (eq. 4) cancels; got {p[prior]!r}")


class VariationalLDA(Method):
    family = "lda"
    params = {"K": 100, "alpha": 0.01, "eta": 0.01, "e_step_tol": 1e-3, "e_step_max_iter": 100}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        check_dirichlet_priors(cls.name, p)

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        self.alpha = float(self.hyper["alpha"])
        self.eta = float(self.hyper["eta"])
        # Hoffman's onlineldavb.py: lambda ~ Gamma(100, 1/100)
        self.lam = self.rng.gamma(100.0, 1.0 / 100.0, (self.n_topics, self.n_words))
        self._refresh()
        self.last_elbo = np.nan

    def _refresh(self) -> None:
        """exp(E[log beta]) (Hoffman et al. 2010, eq. 6) of the current lambda, kept word-major (V x K) as the E step
        reads it; ``exp_elog_beta`` is its K x V view."""
        self.exp_elog_beta_t = kernels.exp_dirichlet_expectation_t(self.lam)

    @property
    def exp_elog_beta(self) -> np.ndarray:
        return self.exp_elog_beta_t.T

    @exp_elog_beta.setter
    def exp_elog_beta(self, value: np.ndarray) -> None:  # a subclass that sets K x V topics keeps working
        self.exp_elog_beta_t = np.ascontiguousarray(np.asarray(value, dtype=np.float64).T)

    def e_step(self, counts: sp.csr_matrix, want_sstats: bool = True, gamma: np.ndarray | None = None):
        """Per-document (gamma, phi) with lambda fixed (Hoffman et al. 2010, Alg. 2 E step), from ``gamma`` if given
        (else from gamma = 1, as Algs. 1 and 2 start)."""
        return kernels.lda_e_step(counts, self.exp_elog_beta_t, self.alpha, self.hyper["e_step_max_iter"],
                                  self.hyper["e_step_tol"], gamma=gamma, want_sstats=want_sstats, word_major=True)

    # -- the stochastic natural-gradient step (online LDA, SVI, population VB) -----------------
    def step_size(self) -> float:
        """rho_t = (tau0 + t)^-kappa (Hoffman et al. 2010, Alg. 2, first line)."""
        return (self.hyper["tau0"] + self.updates) ** -self.hyper["kappa"]

    def stochastic_step(self, batch, data_size: float) -> None:
        """lambda <- (1 - rho_t) lambda + rho_t (eta + data_size / |batch| sstats).

        Hoffman et al. 2010, Alg. 2 M step with the minibatch rescaling of sec. 2.2 (data_size = D);
        McInerney et al. 2015, Alg. 1 and eq. 8 (data_size = the population size alpha).
        """
        rho = self.step_size()
        _, sstats, _ = self.e_step(batch.counts)
        # lam_tilde = eta + data_size / |batch| sstats; lambda = (1 - rho) lambda + rho lam_tilde, in one pass
        self.lam = kernels.natural_gradient_step(self.lam, rho, self.eta, data_size / len(batch), sstats)
        self._refresh()
        self.updates += 1
        self.docs_seen += len(batch)
        self.last_rho = rho

    # -- bounds -------------------------------------------------------------------------------
    def doc_bound(self, counts: sp.csr_matrix, gamma: np.ndarray) -> float:
        """Sum over documents of the per-document ELBO terms of Hoffman et al. 2010, eq. 4, with phi optimal given gamma.

        sum_w n_dw log sum_k exp(E[log theta_dk] + E[log beta_kw]) is the phi-maximised word term.
        """
        elog_theta = kernels.dirichlet_expectation(gamma)
        # at most 1: exp E[log theta_k] exp E[log beta_kw] <= E[theta_k] E[beta_kw] (Jensen), which sum to <= 1 over k;
        # above 1 by the kernels' rounding of exp(0) (K = 1 over one word, where eq. 4 is exactly 0)
        phinorm = kernels.rounded_to_one(kernels.mixture_probs(counts, np.exp(elog_theta), self.exp_elog_beta))
        score = float(np.sum(sp.csr_matrix(counts).data * np.log(phinorm + 1e-100)))  # not BLAS ddot: any thread count
        n_topics = gamma.shape[1]
        score += float(np.sum((self.alpha - gamma) * elog_theta) + np.sum(gammaln(gamma)) - np.sum(gammaln(gamma.sum(axis=1))))
        score += gamma.shape[0] * (gammaln(n_topics * self.alpha) - n_topics * gammaln(self.alpha))
        return score

    def topic_bound(self) -> float:
        """The corpus-level q(beta) terms of eq. 4 (not divided by D).

        E[log beta] is Psi(lambda_kw) - Psi(sum_w lambda_kw) (eq. 6) itself, not the log of the kept exp(E[log beta]):
        at a small eta that exponential underflows to 0 (Psi(1e-8) = -1e8), and log 0 times eta - lambda_kw = 0 is
        NaN."""
        elog_beta = kernels.dirichlet_expectation(self.lam)
        score = float(np.sum((self.eta - self.lam) * elog_beta) + np.sum(gammaln(self.lam)) - np.sum(gammaln(self.lam.sum(axis=1))))
        return score + self.n_topics * (gammaln(self.n_words * self.eta) - self.n_words * gammaln(self.eta))

    def elbo(self, counts: sp.csr_matrix) -> float:
        """The full ELBO (eq. 4) of ``counts`` as the whole corpus, after a fresh E-step."""
        gamma, _, _ = self.e_step(counts, want_sstats=False)
        return self.doc_bound(counts, gamma) + self.topic_bound()

    def heldout_elbo(self, counts: sp.csr_matrix) -> float:
        """Per-word held-out bound, Hoffman et al. 2010 eq. 16 (log of the perplexity bound, negated)."""
        gamma, _, _ = self.e_step(counts, want_sstats=False)
        return self.doc_bound(counts, gamma) / float(sp.csr_matrix(counts).sum())

    # -- the contract -------------------------------------------------------------------------
    def predict_words(self, observed, word_ids):
        """p(w | observed) = sum_k E[theta_k | observed] E[beta_kw]: gamma fitted to the observed part."""
        gamma, _, _ = self.e_step(observed, want_sstats=False)
        theta = gamma / gamma.sum(axis=1, keepdims=True)
        return kernels.mixture_probs(word_ids, theta, self.topics())

    def topics(self):
        return self.lam / self.lam.sum(axis=1, keepdims=True)

    def topic_weights(self):
        """Expected number of corpus tokens assigned to each topic."""
        return self.lam.sum(axis=1) - self.n_words * self.eta

    def state(self):
        return {"lambda": self.lam, "updates": np.array(self.updates), "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        self.lam = np.array(state["lambda"], dtype=np.float64)
        self.updates = int(state["updates"])
        self.docs_seen = int(state["docs_seen"])
        self._refresh()


# Hoffman et al. 2010, Alg. 2's hyperparameters with online_lda's defaults. online_lda and its peers
# (gensim_lda, sklearn_lda) all take these, so "matched settings" are the same dict by construction.
ONLINE_PARAMS = {**VariationalLDA.params, "batch_size": 256, "kappa": 0.7, "tau0": 1024.0, "allow_kappa_half": False}
