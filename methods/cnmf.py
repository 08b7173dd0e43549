"""Stochastic variational inference for correlated NMF (Paisley, Blei and Jordan 2014, secs. 11.3.2, 11.5).

Model (eq. 11.13): X_vd ~ Poisson(sum_k beta_vk exp(alpha_d + l_k'u_d)), beta_vk ~ Gamma(c0/V, c0),
l_k ~ N(0, sigma^2 I_m), u_d ~ N(0, I_m). q(beta_vk) = Gamma(g_vk, h_vk); l_k, u_d and alpha_d
are point estimates (Table 11.2). Topic k's location l_k unpacks the CTM's covariance
C = L'L (eqs. 11.10-11.12); eq. 11.36 reads topic correlations off the locations.

Per minibatch (sec. 11.5.2): the local step maximises the objective in u_d (gradient eq. 11.31) with
alpha_d in closed form (eq. 11.32) and p^(vd) by eq. 11.24: the chapter's steepest ascent until its gain is
small, which decides which maximum is reached (the objective is not concave in u_d), then BFGS in the
m-dimensional u_d to eq. 11.31 = 0 (topicbench.nmf_kernels._cnmf_doc). Then q(beta) takes the natural
gradient step of eqs. 11.33-11.34 and each l_k one Newton step (eq. 11.35), both from the same
point (the E[beta] the local step used). h_vk does not depend on v (eqs. 11.27, 11.34) and is
stored per topic (topicbench/nmf.py).

Defaults from sec. 11.6: c0 = 0.05 V, m = 50, sigma^2 = 1/m, rho_t = (1 + t)^-0.5. Only the
stochastic algorithm is implemented (the chapter's batch algorithm fully optimises every l_k in
turn), so ``batch_size`` must be an integer.
"""
import numpy as np

from topicbench import kernels, nmf_kernels
from topicbench.method import require
from topicbench.nmf import GammaPoissonTopics


class CorrelatedNMF(GammaPoissonTopics):
    """Hyperparameters: K; latent dimension m <= K and prior variance sigma2 (null: 1/m) of the topic
    locations; minibatch size; step size (tau0 + t)^-kappa; c0 = c0_per_word * V; the local step's
    tolerance (it stops at |eq. 11.31|_2 <= local_tol N_d) and step cap."""

    name = "cnmf"
    description = "SVI for correlated NMF (Paisley, Blei and Jordan 2014, sec. 11.5)"
    params = {**GammaPoissonTopics.params, "m": 50, "sigma2": None, "local_tol": 1e-6, "local_max_iter": 200}
    param_types = {"sigma2": (float, None)}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(p["batch_size"] is not None, cls.name, "batch_size",
                "must be an integer: only the stochastic algorithm (sec. 11.5.2) is implemented")
        require(isinstance(p["m"], (int, np.integer)) and p["m"] >= 1, cls.name, "m", f"must be an integer >= 1, got {p['m']!r}")
        require(p["m"] <= p["K"], cls.name, "m",
                f"must be <= K (sec. 11.3.2: for m > K there are m - K redundant dimensions), got m={p['m']}, K={p['K']}")
        require(p["sigma2"] is None or float(p["sigma2"]) > 0, cls.name, "sigma2", f"must be > 0 or null (1/m), got {p['sigma2']!r}")

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        K, m = self.n_topics, int(self.hyper["m"])
        self.sigma2 = 1.0 / m if self.hyper["sigma2"] is None else float(self.hyper["sigma2"])
        self.init_topics(self.corpus_size / self.batch_size)
        # sec. 11.6: l_k ~ N(0, sigma^2 I)
        self.locations = self.rng.normal(0.0, np.sqrt(self.sigma2), size=(K, m))
        self.last_rho = self.last_local_steps = np.nan

    def local_step(self, counts, want_sstats=True):
        """u_d at a maximum of the objective (the chapter's steepest ascent on eq. 11.31, then BFGS), alpha_d by eq. 11.32,
        p^(vd) by eq. 11.24."""
        exp_elog_beta, topic_mass = nmf_kernels.gamma_topic_expectations(self.g, self.h)
        return nmf_kernels.cnmf_local_step(counts, exp_elog_beta.T, topic_mass, self.locations, self.hyper["local_max_iter"],
                                           self.hyper["local_tol"], want_sstats=want_sstats)

    # -- the updates -------------------------------------------------------------------------------
    def topic_mass(self):
        """S_k = sum_v E[beta_vk] = sum_v g_vk / h_k (h does not depend on v): no V x K quotient."""
        return self.g.sum(axis=0) / self.h

    def location_gradient(self, local, scale):
        """Stochastic eq. 11.30: (D/|C_t|) sum_d (sum_v X_vd p_k^(vd) - S_k omega_kd) u_d - l_k / sigma^2, as K x m."""
        topic_mass = self.topic_mass()
        residual = local["expected"] - topic_mass * local["omega"]
        return scale * residual.T @ local["u"] - self.locations / self.sigma2

    def location_precision(self, local, scale):
        """G^-1 of eq. 11.35: sigma^-2 I + (D/|C_t|) sum_d S_k omega_kd u_d u_d', one m x m matrix per topic."""
        weights = self.topic_mass() * local["omega"]  # S_k omega_kd, n_docs x K
        u = local["u"]
        n, m = u.shape
        outer = (u[:, :, None] * u[:, None, :]).reshape(n, m * m)  # u_d u_d', one row per document: one matrix product
        return np.eye(m) / self.sigma2 + scale * (weights.T @ outer).reshape(self.n_topics, m, m)

    def partial_fit(self, batch):
        local = self.local_step(batch.counts)
        rho = self.step_size()
        scale = self.corpus_size / len(batch)  # D / |C_t|
        newton = np.linalg.solve(self.location_precision(local, scale), self.location_gradient(local, scale)[:, :, None])[:, :, 0]
        self.locations = self.locations + rho * newton  # eq. 11.35
        self.topic_step(rho, scale, local["sstats"], local["omega"].sum(axis=0))  # eqs. 11.33-11.34, sum_d omega_kd
        self.updates += 1
        self.docs_seen += len(batch)
        self.last_rho, self.last_local_steps = rho, float(local["steps"].mean())

    def topic_proportions(self, u):
        """E[omega_kd] sum_v E[beta_vk] normalised over k; alpha_d cancels, so documents with nothing observed work too."""
        scores = u @ self.locations.T
        weights = np.exp(scores - scores.max(axis=1, keepdims=True)) * self.expected_beta().sum(axis=0)
        return weights / weights.sum(axis=1, keepdims=True)

    def predict_words(self, observed, word_ids):
        """p(w | d) ∝ sum_k exp(alpha_d + l_k'u_d) E[beta_wk], point estimates and q means normalised over the vocabulary (sec. 11.6)."""
        local = self.local_step(observed, want_sstats=False)
        return kernels.mixture_probs(word_ids, self.topic_proportions(local["u"]), self.topics())

    def topic_correlations(self, u=None):
        """Corr(topic_i, topic_j) = l_i'l_j / (|l_i| |l_j|) (eq. 11.36), K x K.

        Eq. 11.36 is the correlation of y_dk = l_k'u_d under u_d ~ N(0, I_m) (eqs. 11.11-11.12). The fitted
        point estimates u_d need not be isotropic (the MAP fit trades scale between L and U direction by
        direction), so given fitted ``u`` (n_docs x m) the locations are first put in coordinates where those
        u_d have identity covariance, l_k -> Cov(u)^1/2 l_k: then eq. 11.36 is the correlation of the fitted
        y_dk. Without ``u``, the chapter's read-out of the locations alone."""
        locations = self.locations
        if u is not None:
            values, vectors = np.linalg.eigh(np.cov(np.asarray(u, dtype=np.float64), rowvar=False))
            locations = locations @ (vectors * np.sqrt(np.maximum(values, 0.0))) @ vectors.T
        unit = locations / np.linalg.norm(locations, axis=1, keepdims=True)
        return unit @ unit.T

    def progress(self):
        """The step size and local steps, and the priors used: sigma2 (1/m for null) and c0 = c0_per_word * V
        (sec. 11.6), which the p_ columns give only as asked for."""
        return {"rho": self.last_rho, "local_steps": self.last_local_steps, "sigma2": self.sigma2, "c0": self.c0}

    def state(self):
        return {**super().state(), "topic_locations": self.locations}

    def load_state(self, state):
        super().load_state(state)
        self.locations = np.array(state["topic_locations"], dtype=np.float64)
