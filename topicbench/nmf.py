"""What SVI B-NMF and C-NMF share (Paisley, Blei and Jordan 2014, ch. 11): q(beta_vk) = Gamma(g_vk, h_vk).

Both models put beta_vk ~ Gamma(c0/V, c0) on the topics and move q(beta) by the natural-gradient steps
of eqs. 11.33-11.34; they differ only on the document side (gamma weights theta_kd for B-NMF, correlated
weights exp(alpha_d + l_k'u_d) for C-NMF), which each method writes in its own file. h_vk's update
does not depend on v (eqs. 11.26-11.27, 11.34), so h is stored per topic and h_vk = h_k exactly.
"""
from __future__ import annotations

import numpy as np
from scipy.special import digamma

from . import kernels
from .method import Method, require


class GammaPoissonTopics(Method):
    family = "nmf"
    uses_corpus_size = True
    first_step = 1  # sec. 11.5.2 counts minibatches from t = 1 (see step_size)
    # sec. 11.6's settings: c0 = 0.05 V, rho_t = (1 + t)^-0.5
    params = {"K": 100, "batch_size": 1000, "kappa": 0.5, "tau0": 1.0, "allow_kappa_half": True, "c0_per_word": 0.05}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(float(p["tau0"]) > 0, cls.name, "tau0", f"must be > 0 (Paisley et al. 2014, sec. 11.5.2: t0 > 0), got {p['tau0']!r}")
        require(float(p["c0_per_word"]) > 0, cls.name, "c0_per_word", f"must be > 0, got {p['c0_per_word']!r}")
        require(float(p["local_tol"]) > 0, cls.name, "local_tol", f"must be > 0, got {p['local_tol']!r}")
        require(int(p["local_max_iter"]) >= 1, cls.name, "local_max_iter", f"must be >= 1, got {p['local_max_iter']!r}")

    @classmethod
    def unused_params(cls, p):
        """The batch mode (batch_size: null) steps with rho = 1 (eqs. 11.25-11.26): no step-size schedule."""
        if p["batch_size"] is None:
            return {key: "sets the SVI step size, which the batch mode (batch_size: null, rho = 1) does not use"
                    for key in ("kappa", "tau0", "allow_kappa_half")}
        return {}

    def init_topics(self, scale: float) -> None:
        """sec. 11.6: the prior plus Uniform(0,1), scaled as a minibatch's statistics are (D/|C_t|)."""
        V, K = self.n_words, self.n_topics
        self.c0 = float(self.hyper["c0_per_word"]) * V
        self.g = self.c0 / V + scale * self.rng.uniform(size=(V, K))
        self.h = self.c0 + scale * self.rng.uniform(size=K)

    # -- expectations under q(beta) (sec. 11.5.1) ----------------------------------------------
    def expected_log_beta(self):
        """E[ln beta_vk] = psi(g_vk) - ln h_vk."""
        return digamma(self.g) - np.log(self.h)

    def expected_beta(self):
        """E[beta_vk] = g_vk / h_vk."""
        return self.g / self.h

    # -- the global step -------------------------------------------------------------------------
    def step_size(self):
        """rho_t = (tau0 + t)^-kappa (sec. 11.5.2) at iteration t = 1, 2, ...: the chapter indexes the first
        minibatch C_1 and its step rho_1 = (tau0 + 1)^-kappa (eqs. 11.33-11.35 update from t - 1 to t), unlike
        online LDA's Hoffman et al. 2010 Alg. 2, which starts at t = 0. 1 in batch mode."""
        if self.batch_size is None:
            return 1.0
        return (self.hyper["tau0"] + self.updates + 1) ** -self.hyper["kappa"]

    def topic_step(self, rho, scale, sstats, weight_mass):
        """Eqs. 11.33-11.34 (11.25-11.26 when rho = 1 and scale = 1): sstats_kv = sum_d X_vd p_k^(vd),
        weight_mass_k = sum_d E[document weight of topic k], scale = D/|C_t|."""
        self.g = (1 - rho) * self.g + rho * (self.c0 / self.n_words + scale * sstats.T)  # eq. 11.33
        self.h = (1 - rho) * self.h + rho * (self.c0 + scale * weight_mass)  # eq. 11.34

    # -- the contract's read-outs ---------------------------------------------------------------
    def topics(self):
        e_beta = self.expected_beta().T
        return e_beta / e_beta.sum(axis=1, keepdims=True)

    def topic_weights(self):
        """Expected corpus tokens of each topic, sum_v g_vk - c0: the order of the chapter's 'most probable topics'."""
        return self.g.sum(axis=0) - self.c0

    def state(self):
        return {"g": self.g, "h": self.h, "updates": np.array(self.updates), "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        self.g = np.array(state["g"], dtype=np.float64)
        self.h = np.array(state["h"], dtype=np.float64)
        self.updates = int(state["updates"])
        self.docs_seen = int(state["docs_seen"])


def mixture_with_floor(word_ids, weights, topics_unnormalised, eps):
    """(1 - eps) sum_k theta_dk phi_kw + eps / V at the nonzeros of ``word_ids``: the NMF peers' predictive.

    phi_k = row k of ``topics_unnormalised`` (K x V, >= 0) normalised; theta_d = row d of ``weights`` (documents x K)
    normalised, where weights_dk = W_dk sum_v H_kv makes sum_k theta_dk phi_kw the normalised rate (W H)_dw. Point
    estimates of NMF can give a word rate 0 (log p = -inf); ``eps`` mixes in the uniform distribution. A row of
    ``weights`` that is all 0 carries no information and takes the topic masses (the model's marginal over words).
    """
    mass = topics_unnormalised.sum(axis=1)
    phi = topics_unnormalised / np.maximum(mass, np.finfo(float).tiny)[:, None]
    weights = np.where(weights.sum(axis=1, keepdims=True) > 0, weights, mass[None, :])
    theta = weights / weights.sum(axis=1, keepdims=True)
    return (1.0 - eps) * kernels.mixture_probs(word_ids, theta, phi) + eps / topics_unnormalised.shape[1]
