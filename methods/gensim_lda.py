"""gensim's ``LdaModel`` (Rehurek and Sojka 2010) as a peer of online LDA (Hoffman, Blei and Bach 2010, Alg. 2).

One ``partial_fit`` is one ``LdaModel.update`` on the minibatch: one chunk, one pass, one M step.
gensim is single-process here (``LdaModel``, not ``LdaMulticore``), so ``threads`` is ignored.

How gensim's update maps to Hoffman's Alg. 2:

- Step size. gensim uses rho = (offset + pass_ + num_updates / chunksize)^-decay, where ``pass_`` is 0
  inside every one-pass ``update`` call and ``num_updates`` counts documents already merged. With
  ``chunksize = batch_size`` (the nominal minibatch size; only the last minibatch can be shorter)
  num_updates / chunksize = t, the number of earlier updates, so rho = (tau0 + t)^-kappa with t
  starting at 0, as in Hoffman's onlineldavb.py and ``online_lda``.
- Corpus size. gensim scales the minibatch statistics by ``state.numdocs / len(batch)``, where
  ``numdocs`` counts every document seen so far (gensim treats the corpus as growing). Hoffman's
  Alg. 2 uses the fixed corpus size D, so before each update ``state.numdocs`` is set to
  D - |batch|; gensim adds |batch| and blends with D / |batch| (``LdaState.blend``), i.e.
  lambda = (1 - rho) lambda + rho (eta + D / |batch| * sstats).
- E step. gensim's ``inference`` is Hoffman's per-document loop with gamma drawn from
  Gamma(100, 1/100) (not 1), stopped when the mean |change in gamma| < ``gamma_threshold``
  (= e_step_tol) or after ``iterations`` (= e_step_max_iter). dtype is float64 (gensim defaults to float32).
  phinorm's guard is machine epsilon (2.2e-16; Hoffman's code 1e-100): after a rho_0 = 1 step (tau0 = 1) a word
  absent from the first minibatch keeps lambda_kw = eta, and at eta = 0.01 its exp E[log beta_kw] ~ 1e-48 falls under
  it, so its tokens get almost no responsibility (as in sklearn_lda; tests/test_peer_equations.py). Kept as shipped.
- Start. lambda_0 is online_lda's draw for the same seed (Gamma(100, 1/100), gensim's own
  distribution), so a comparison at one seed is paired; the E step's draws come from ``random_state = seed``.
- Fit time. gensim's M step also works for its log, whatever the log level: one more E[log beta] for the logged
  topic change and ``print_topics(5)`` (~1.5% and 0.2% of an update at K = 100, V = 5,000, S = 512). They stay on
  the fit clock: that is gensim's update as its users run it, and print_topics (K > 5) draws from the random
  state that the E step then draws from, so skipping it would change gensim's numbers.
"""
import logging

import numpy as np
from gensim.matutils import Sparse2Corpus
from gensim.models import LdaModel
from gensim.utils import FakeDict

from topicbench import kernels
from topicbench.lda import ONLINE_PARAMS, check_dirichlet_priors
from topicbench.method import Method


class _DropFewUpdatesWarning(logging.Filter):
    """gensim warns "too few updates" on every one-minibatch ``update``; here that is by design."""

    def filter(self, record):
        return "too few updates" not in record.getMessage()


logging.getLogger("gensim.models.ldamodel").addFilter(_DropFewUpdatesWarning())


def _as_gensim_corpus(counts):
    """CSR rows -> gensim's bag-of-words stream, the input every gensim user passes."""
    return Sparse2Corpus(counts, documents_columns=False)


class GensimLDA(Method):
    """Hyperparameters as in ``online_lda``: K, alpha, eta, batch_size, kappa (gensim ``decay``),
    tau0 (gensim ``offset``), e_step_tol (``gamma_threshold``), e_step_max_iter (``iterations``)."""

    name = "gensim_lda"
    description = "gensim LdaModel, one update per minibatch (peer of online_lda)"
    uses_corpus_size = True
    params = dict(ONLINE_PARAMS)

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        check_dirichlet_priors(cls.name, p)  # gensim's lambda_0 - eta (below) turned NaN from eta = 1e100

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        h = self.hyper
        self.eta = float(h["eta"])
        self.model = LdaModel(num_topics=self.n_topics, id2word=FakeDict(self.n_words), alpha=float(h["alpha"]),
                              eta=self.eta, decay=float(h["kappa"]), offset=float(h["tau0"]), passes=1,
                              update_every=1, chunksize=int(h["batch_size"]), eval_every=0,
                              iterations=int(h["e_step_max_iter"]), gamma_threshold=float(h["e_step_tol"]),
                              random_state=self.seed, dtype=np.float64)
        # the same lambda_0 draw as online_lda (Gamma(100, 1/100) from the method's seeded generator), so
        # that peers compared at one seed start from one point and differ only by their algorithms
        self.model.state.sstats[...] = self.rng.gamma(100.0, 1.0 / 100.0, (self.n_topics, self.n_words)) - self.eta
        self.model.sync_state()

    def partial_fit(self, batch):
        """One gensim online update (Hoffman et al. 2010, Alg. 2 E and M steps) on the minibatch."""
        self.model.state.numdocs = self.corpus_size - len(batch)  # gensim adds |batch|: blends with D / |batch|
        self.model.update(_as_gensim_corpus(batch.counts), chunksize=int(self.hyper["batch_size"]), passes=1,
                          update_every=1, eval_every=0)
        self.updates += 1
        self.docs_seen += len(batch)

    def predict_words(self, observed, word_ids):
        """theta = normalised gamma from gensim's ``inference`` on the observed part; topics = E[beta]."""
        # inference draws its gamma init from model.random_state; a separate generator keeps the fit's
        # random stream (and so its numbers) independent of how often it is evaluated; mod 2**32, RandomState's range,
        # so that seed 2**32 - 1 (the largest a run takes) has one too
        fit_random_state = self.model.random_state
        self.model.random_state = np.random.RandomState((self.seed + 7919) % 2**32)
        try:
            gamma, _ = self.model.inference(_as_gensim_corpus(observed))
        finally:
            self.model.random_state = fit_random_state
        theta = gamma / gamma.sum(axis=1, keepdims=True)
        return kernels.mixture_probs(word_ids, theta, self.topics())

    def lam(self) -> np.ndarray:
        return self.model.state.get_lambda()

    def topics(self):
        lam = self.lam()
        return lam / lam.sum(axis=1, keepdims=True)

    def topic_weights(self):
        return self.lam().sum(axis=1) - self.n_words * self.eta

    def state(self):
        return {"lambda": np.array(self.lam()), "updates": np.array(self.updates), "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        lam = np.array(state["lambda"], dtype=np.float64)
        if lam.shape != (self.n_topics, self.n_words):
            raise ValueError(f"{self.name}: stored lambda has shape {lam.shape}, expected {(self.n_topics, self.n_words)}")
        self.model.state.sstats[...] = lam - self.eta  # gensim keeps lambda - eta
        self.model.sync_state()
        self.updates = int(state["updates"])
        self.docs_seen = int(state["docs_seen"])
        self.model.num_updates = self.docs_seen
