"""scikit-learn's ``LatentDirichletAllocation`` (online) as a peer of online LDA (Hoffman, Blei and Bach 2010, Alg. 2).

One ``partial_fit`` is one sklearn ``partial_fit`` on the minibatch with ``batch_size >= |batch|``: one
E step (over ``n_jobs = threads`` joblib workers) and one M step.

How sklearn's update maps to Hoffman's Alg. 2:

- Step size. sklearn uses rho = (learning_offset + n_batch_iter_)^-learning_decay with
  ``n_batch_iter_`` starting at 1, i.e. (tau0 + t + 1)^-kappa for Hoffman's t = 0, 1, ... Here
  ``n_batch_iter_`` is set to t (the number of earlier updates) before each step, so that
  rho = (tau0 + t)^-kappa exactly as in ``online_lda``. sklearn requires learning_offset >= 1, so tau0 >= 1.
- Corpus size. lambda = (1 - rho) lambda + rho (eta + total_samples / |batch| * sstats) with
  ``total_samples = D``: Alg. 2 as written.
- E step. Hoffman's per-document loop with gamma drawn from Gamma(100, 1/100) during fitting and
  gamma = 1 in ``transform``, stopped when the mean |change in gamma| < ``mean_change_tol``
  (= e_step_tol) or after ``max_doc_update_iter`` (= e_step_max_iter).
- Guard. sklearn divides by phinorm + machine epsilon (2.2e-16), Hoffman's code by phinorm + 1e-100. At rho_0 = 1
  (tau0 = 1) a word absent from the first minibatch keeps lambda_kw = eta, and at eta = 0.01 its
  exp E[log beta_kw] ~ 1e-48 is under sklearn's guard: its tokens get almost no responsibility until a step moves
  that word's lambda up from elsewhere, and sklearn scores lower than online_lda (up to 0.28 nats/word on
  real corpora, benchmarks/bench_peer_phinorm.py). Kept as shipped, like the E step's start.
- Start. lambda_0 is online_lda's draw for the same seed (Gamma(100, 1/100), sklearn's own
  distribution), so a comparison at one seed is paired; the E step's draws come from ``random_state = seed``.
- Threads. sklearn's fitting E step cuts a minibatch into ``n_jobs`` slices, each drawing gamma_0 from a copy of one
  RandomState, so its numbers depend on n_jobs (~0.001 nats/word on a 120-document corpus), unlike topicbench's own
  methods. It is kept as shipped: the peer is scikit-learn itself, timed and scored as its users run it.
- Workers. joblib's loky workers exit after 300 s idle and start again inside the next call: an evaluation between
  two updates longer than that would put their start-up (seconds) in fit time. They are kept for the whole run
  (WORKERS), as for a user whose partial_fit calls follow one another.
"""
import joblib
import numpy as np
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.decomposition._lda import _dirichlet_expectation_2d

from topicbench import kernels
from topicbench.lda import ONLINE_PARAMS
from topicbench.method import Method, require


# every call into sklearn under one setting: joblib starts a new pool of workers whenever it changes
WORKERS = dict(backend="loky", idle_worker_timeout=24 * 3600)


class SklearnLDA(Method):
    """Hyperparameters as in ``online_lda``: K (``n_components``), alpha (``doc_topic_prior``), eta
    (``topic_word_prior``), batch_size, kappa (``learning_decay``), tau0 (``learning_offset``),
    e_step_tol (``mean_change_tol``), e_step_max_iter (``max_doc_update_iter``)."""

    name = "sklearn_lda"
    description = "scikit-learn LatentDirichletAllocation (online), one partial_fit per minibatch (peer of online_lda)"
    uses_corpus_size = True
    params = dict(ONLINE_PARAMS)

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(float(p["tau0"]) >= 1, cls.name, "tau0", f"must be >= 1 (sklearn's learning_offset), got {p['tau0']!r}")
        for prior in ("alpha", "eta"):
            require(float(p[prior]) <= 1, cls.name, prior, f"must be <= 1 (sklearn's constraint), got {p[prior]!r}")

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        h = self.hyper
        self.eta = float(h["eta"])
        self.model = LatentDirichletAllocation(
            n_components=self.n_topics, doc_topic_prior=float(h["alpha"]), topic_word_prior=self.eta,
            learning_method="online", learning_decay=float(h["kappa"]), learning_offset=float(h["tau0"]),
            batch_size=int(h["batch_size"]), total_samples=self.corpus_size, evaluate_every=-1,
            mean_change_tol=float(h["e_step_tol"]), max_doc_update_iter=int(h["e_step_max_iter"]),
            n_jobs=self.threads, random_state=self.seed)
        # sklearn's own start-up (priors, random_state_, counters), done now so that n_batch_iter_ can be
        # set before the first step; partial_fit then sees a started model
        self.model._init_latent_vars(self.n_words, dtype=np.float64)
        self.model.n_features_in_ = self.n_words
        # the same lambda_0 draw as online_lda (Gamma(100, 1/100) from the method's seeded generator), so
        # that peers compared at one seed start from one point and differ only by their algorithms
        self._set_lambda(self.rng.gamma(100.0, 1.0 / 100.0, (self.n_topics, self.n_words)))

    def _set_lambda(self, lam):
        """components_ and its exp E[log beta], computed as sklearn's own M step does."""
        self.model.components_ = lam
        self.model.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(lam))

    def partial_fit(self, batch):
        """One sklearn online step (Hoffman et al. 2010, Alg. 2 E and M steps) on the minibatch."""
        self.model.batch_size = max(int(self.hyper["batch_size"]), len(batch))  # one em_step for the whole batch
        self.model.n_batch_iter_ = self.updates  # rho = (tau0 + t)^-kappa, t from 0
        with joblib.parallel_config(**WORKERS):
            self.model.partial_fit(batch.counts.astype(np.float64))
        self.updates += 1
        self.docs_seen += len(batch)

    def predict_words(self, observed, word_ids):
        """theta = sklearn ``transform`` (normalised gamma) on the observed part; topics = E[beta]."""
        with joblib.parallel_config(**WORKERS):
            theta = self.model.transform(observed.astype(np.float64))
        return kernels.mixture_probs(word_ids, theta, self.topics())

    def topics(self):
        lam = self.model.components_
        return lam / lam.sum(axis=1, keepdims=True)

    def topic_weights(self):
        return self.model.components_.sum(axis=1) - self.n_words * self.eta

    def state(self):
        return {"lambda": np.array(self.model.components_), "updates": np.array(self.updates),
                "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        lam = np.array(state["lambda"], dtype=np.float64)
        if lam.shape != (self.n_topics, self.n_words):
            raise ValueError(f"{self.name}: stored lambda has shape {lam.shape}, expected {(self.n_topics, self.n_words)}")
        self._set_lambda(lam)
        self.updates = int(state["updates"])
        self.docs_seen = int(state["docs_seen"])
        self.model.n_batch_iter_ = self.updates
