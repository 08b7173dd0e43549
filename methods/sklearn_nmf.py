"""scikit-learn's ``MiniBatchNMF`` with the KL loss (Lefevre, Bimbot and Vincent 2011; Fevotte and Idier 2011) as a
peer of SVI B-NMF (Paisley, Blei and Jordan 2014, ch. 11).

Minimising the generalised KL divergence D(X || W H) is maximum likelihood under X_dv ~ Poisson((W H)_dv), the
likelihood of B-NMF (Paisley et al. eq. 11.6) without its gamma priors: W (documents x K) plays theta, H = ``components_``
(K x V) plays beta. One ``partial_fit`` is one sklearn ``partial_fit`` on the minibatch: W solved by multiplicative
updates with H fixed (up to ``fresh_restarts_max_iter`` = 30 rounds, sklearn's default), then one multiplicative step
on H from the running statistics A, B, which forget at rate ``forget_factor`` per minibatch (sklearn's rho).

Held-out prediction. The model's rate for document d is (W H)_d; normalised over the vocabulary it is
p(w | d) = sum_k theta_dk phi_kw with phi_k = H_k / sum_v H_kv and theta_dk ∝ W_dk sum_v H_kv, the same construction
as B-NMF's ``predict_words`` (q means in place of point estimates). W of the observed part is sklearn's
``transform`` (multiplicative updates to ``tol`` or ``transform_max_iter``). Multiplicative updates cannot leave 0 and
sklearn sets H entries below machine epsilon to 0, so a word can have rate 0 and log p = -inf; ``uniform_mix`` mixes
the predictive with the uniform distribution, p = (1 - eps) p_model + eps / V (a declared deviation, reported with
every score; B-NMF needs none because its q means are positive). A document whose W solves to 0 has no information
about its topics; it gets theta ∝ topic mass, the model's marginal over words.

Fit time includes the minibatch's KL cost that sklearn's ``partial_fit`` computes and discards (~1.4% of an update at
K = 50, V = 5,000, 512 documents): sklearn as shipped.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import MiniBatchNMF

from topicbench.method import Method, require
from topicbench.nmf import mixture_with_floor

INITS = ("nndsvda", "nndsvdar", "random")


class SklearnNMF(Method):
    """Hyperparameters: K (``n_components``), batch_size, forget_factor, init (of H, from the first minibatch),
    tol and transform_max_iter (the W solve at prediction), uniform_mix (the predictive's uniform floor)."""

    name = "sklearn_nmf"
    description = "scikit-learn MiniBatchNMF, KL loss, one partial_fit per minibatch (peer of bnmf)"
    model_before_first_batch = False  # H is initialised from the first minibatch
    params = {"K": 100, "batch_size": 1024, "forget_factor": 0.7, "init": "nndsvda", "tol": 1e-4,
              "transform_max_iter": 200, "uniform_mix": 1e-4}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(0.0 < float(p["forget_factor"]) <= 1.0, cls.name, "forget_factor", f"must lie in (0, 1], got {p['forget_factor']!r}")
        require(p["init"] in INITS, cls.name, "init", f"must be one of {INITS}, got {p['init']!r}")
        require(float(p["tol"]) >= 0, cls.name, "tol", f"must be >= 0, got {p['tol']!r}")
        require(int(p["transform_max_iter"]) >= 1, cls.name, "transform_max_iter", f"must be >= 1, got {p['transform_max_iter']!r}")
        require(0.0 < float(p["uniform_mix"]) < 1.0, cls.name, "uniform_mix", f"must lie in (0, 1), got {p['uniform_mix']!r}")
        # NNDSVD factors the first minibatch (batch_size x V) into K components: K <= min(batch_size, V)
        require(p["init"] == "random" or p["K"] <= p["batch_size"], cls.name, "K",
                f"must be <= batch_size for init={p['init']!r} (an SVD of the first minibatch), got K={p['K']}, "
                f"batch_size={p['batch_size']}")

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        h = self.hyper
        require(h["init"] == "random" or self.n_topics <= self.n_words, self.name, "K",
                f"must be <= the vocabulary size ({self.n_words} words) for init={h['init']!r}, got K={self.n_topics}")
        self.model = MiniBatchNMF(n_components=self.n_topics, beta_loss="kullback-leibler", init=h["init"],
                                  batch_size=int(h["batch_size"]), forget_factor=float(h["forget_factor"]), tol=float(h["tol"]),
                                  transform_max_iter=int(h["transform_max_iter"]), random_state=self.seed)

    def warm_up(self, tiny_batch):
        """Nothing to compile (sklearn is numpy), and nndsvda cannot start from the runner's two-document batch."""

    def partial_fit(self, batch):
        """One MiniBatchNMF step: W of the minibatch by multiplicative updates, then H from the forgetful A, B."""
        # rho = forget_factor^(batch_size / |X|) is fixed at the first call; a nominal-size batch keeps it forget_factor
        require(self.updates > 0 or self.hyper["init"] == "random" or self.n_topics <= len(batch), self.name, "K",
                f"must be <= the first minibatch's {len(batch)} documents for init={self.hyper['init']!r} (an SVD of "
                f"that minibatch; the training split is smaller than batch_size), got K={self.n_topics}")
        self.model.partial_fit(batch.counts.astype(np.float64))
        self.updates += 1
        self.docs_seen += len(batch)

    def _components(self):
        if not hasattr(self.model, "components_"):
            raise RuntimeError(f"{self.name}: no minibatch seen yet (H is initialised from the first one)")
        return self.model.components_

    def predict_words(self, observed, word_ids):
        """p(w | d) = (1 - eps) sum_k theta_dk phi_kw + eps / V, theta from W = ``transform(observed)``."""
        H = self._components()
        weights = self.model.transform(observed.astype(np.float64)) * H.sum(axis=1)  # W_dk sum_v H_kv
        return mixture_with_floor(word_ids, weights, H, float(self.hyper["uniform_mix"]))

    def topics(self):
        H = self._components()
        return H / np.maximum(H.sum(axis=1, keepdims=True), np.finfo(float).tiny)

    def topic_weights(self):
        return self._components().sum(axis=1)

    def state(self):
        m = self.model
        return {"H": np.array(self._components()), "A": np.array(m._components_numerator),
                "B": np.array(m._components_denominator), "updates": np.array(self.updates),
                "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        H = np.array(state["H"], dtype=np.float64)
        if H.shape != (self.n_topics, self.n_words):
            raise ValueError(f"{self.name}: stored H has shape {H.shape}, expected {(self.n_topics, self.n_words)}")
        # sklearn's own start-up (_beta_loss, _n_components, _gamma, and _rho = forget_factor for a nominal-size
        # minibatch), as its first partial_fit does, without touching the stored numbers
        m = self.model
        m._check_params(sp.csr_matrix((int(self.hyper["batch_size"]), self.n_words)))
        m.n_features_in_, m.n_components_ = self.n_words, self.n_topics
        m.components_, m._components_numerator, m._components_denominator = H, np.array(state["A"]), np.array(state["B"])
        self.updates, self.docs_seen = int(state["updates"]), int(state["docs_seen"])
        m.n_steps_ = self.updates

