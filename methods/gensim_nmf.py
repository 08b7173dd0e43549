"""gensim's ``Nmf`` (online NMF of Zhao and Tan 2016, as implemented in gensim 4) as a peer of SVI B-NMF (Paisley,
Blei and Jordan 2014, ch. 11).

gensim minimises the Frobenius loss ||V - W h||^2 / 2 over word-topic W (V x K, columns kept in the unit L2 ball and
>= 0) and topic-document h (K x documents, >= 0); it is not a Poisson model. One ``partial_fit`` is one pass of the
body of ``Nmf.update``'s chunk loop on the minibatch: h by projected coordinate descent (``h_max_iter``,
``h_stop_condition``), the running means A = mean_t h_t h_t^T and B = mean_t v_t h_t^T, then W by projected gradient
steps (``w_max_iter``, ``w_stop_condition``, step ``kappa`` / ||A||). The loop is written out here rather than calling
``update`` once per minibatch because ``update`` restarts its chunk counter at 1 on every call, so A and B would hold
only the last minibatch; with the counter t carried across minibatches the result is what one ``update`` over the
whole stream computes, chunk by chunk.

Held-out prediction. h of the observed part is gensim's own ``_solveproj`` (as ``get_document_topics`` calls it,
with v_max = inf); the model's reconstruction (W h)_d normalised over the vocabulary is
p(w | d) = sum_k theta_dk phi_kw with phi_k = W_k / sum_v W_vk and theta_dk ∝ h_kd sum_v W_vk
(``topicbench.nmf.mixture_with_floor``, shared with ``sklearn_nmf``). Projected gradient steps clip W at 0, so a word
can have rate 0; ``uniform_mix`` mixes the predictive with the uniform distribution (a declared deviation).
"""
import logging

import numpy as np
from gensim.models import Nmf
from gensim.utils import FakeDict

from topicbench.method import Method, ParamError, require
from topicbench.nmf import mixture_with_floor

logging.getLogger("gensim.models.nmf").setLevel(logging.WARNING)  # it logs W's error at INFO on every minibatch


class GensimNMF(Method):
    """Hyperparameters: K (``num_topics``), batch_size (``chunksize``), kappa (gradient step scale), the W and h
    solvers' caps and stopping rules (gensim's defaults), uniform_mix (the predictive's uniform floor)."""

    name = "gensim_nmf"
    description = "gensim Nmf (online, Frobenius loss), its chunk update once per minibatch (peer of bnmf)"
    model_before_first_batch = False  # W is initialised from the first minibatch
    params = {"K": 100, "batch_size": 1024, "kappa": 1.0, "w_max_iter": 200, "w_stop_condition": 1e-4,
              "h_max_iter": 50, "h_stop_condition": 1e-3, "uniform_mix": 1e-4}

    @classmethod
    def check_kappa(cls, p):
        """gensim's kappa scales both solvers' steps, not a step-size decay: each h coordinate moves kappa times the
        step to its exact minimiser, so the loss along it changes by (kappa^2 / 2 - kappa) g^2 / H, a decrease only for
        kappa in (0, 2); W moves by eta = kappa / ||A||_F <= kappa / lambda_max(A), and gradient descent on the
        quadratic in W descends for eta < 2 / lambda_max(A). From 2 on the h sweeps oscillate or grow (kappa = 2.5
        scored -3.61 nats/word against -2.53 at 1 on a planted corpus, finite and wrong)."""
        kappa = float(p["kappa"])
        require(0 < kappa < 2, cls.name, "kappa",
                f"must lie in (0, 2) (gensim's h and W steps descend only there; its default is 1), got {p['kappa']!r}")

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        for cap in ("w_max_iter", "h_max_iter"):
            require(int(p[cap]) >= 1, cls.name, cap, f"must be >= 1, got {p[cap]!r}")
        for tol in ("w_stop_condition", "h_stop_condition"):
            require(float(p[tol]) >= 0, cls.name, tol, f"must be >= 0, got {p[tol]!r}")
        require(0.0 < float(p["uniform_mix"]) < 1.0, cls.name, "uniform_mix", f"must lie in (0, 1), got {p['uniform_mix']!r}")

    def __init__(self, n_words, seed=0, threads=1, corpus_size=None, **params):
        super().__init__(n_words, seed=seed, threads=threads, corpus_size=corpus_size, **params)
        h = self.hyper
        self.model = Nmf(num_topics=self.n_topics, id2word=FakeDict(self.n_words), chunksize=int(h["batch_size"]),
                         kappa=float(h["kappa"]), w_max_iter=int(h["w_max_iter"]), w_stop_condition=float(h["w_stop_condition"]),
                         h_max_iter=int(h["h_max_iter"]), h_stop_condition=float(h["h_stop_condition"]), eval_every=0,
                         normalize=True, random_state=self.seed)
        self.model.num_tokens = self.n_words  # FakeDict has no max id to infer V from

    def partial_fit(self, batch):
        """One chunk of ``Nmf.update``: h by projected coordinate descent, A and B as running means, W by projected gradient."""
        m = self.model
        v = batch.counts.T.tocsc().astype(np.float64)  # gensim's layout: words x documents
        v = v[:, m.random_state.permutation(v.shape[1])]  # as update() does to each chunk
        if m._W is None:
            m._setup(v)
        m._h = m._solveproj(v, m._W, h=m._h, v_max=m.v_max)
        t = self.updates + 1  # update()'s chunk_overall_idx, carried across minibatches
        m.A = (m.A * (t - 1) + m._h.dot(m._h.T)) / t
        m.B = (m.B * (t - 1) + v.dot(m._h.T)) / t
        self._check_w_step(np.abs(m.A).max())
        m._solve_w()
        self.updates += 1
        self.docs_seen += len(batch)

    def _check_w_step(self, peak):
        """gensim's W step divides kappa by ||A||_F, which numpy sums as squares: with A's largest entry below
        sqrt(tiny) ~ 1.5e-154 they underflow and the step is inf (NaN topics) or too long. h starts at 0 and moves in
        steps of kappa, so A ~ kappa^2: kappa = 1e-100 did that on a planted corpus, 1e-50 did not."""
        if not peak >= np.sqrt(np.finfo(float).tiny):
            raise ParamError(f"{self.name}: hyperparameter 'kappa' = {self.hyper['kappa']!r} is too small for this "
                             f"corpus: h moves from 0 in steps of kappa, so A = mean h h^T peaks at {peak:.3g}, whose "
                             f"square underflows, and gensim's W step kappa / ||A||_F divides by 0 (update "
                             f"{self.updates + 1}); use a kappa nearer 1, gensim's default")

    def _W(self):
        if self.model._W is None:
            raise RuntimeError(f"{self.name}: no minibatch seen yet (W is initialised from the first one)")
        return self.model._W

    def predict_words(self, observed, word_ids):
        """p(w | d) = (1 - eps) (W h)_dw / sum_v (W h)_dv + eps / V, h = ``_solveproj`` on the observed part."""
        m, W = self.model, self._W()
        # _solveproj draws coordinate orders from model.random_state and stores v_max; both are restored so that
        # evaluating never moves the fit's numbers (the generator's seed mod 2**32, RandomState's range, as gensim_lda's)
        saved = m.random_state, m.v_max
        m.random_state = np.random.RandomState((self.seed + 7919) % 2**32)
        try:
            h = m._solveproj(observed.T.tocsc().astype(np.float64), W, v_max=np.inf)
        finally:
            m.random_state, m.v_max = saved
        return mixture_with_floor(word_ids, h.T * W.sum(axis=0), W.T, float(self.hyper["uniform_mix"]))

    def topics(self):
        W = self._W().T
        return W / np.maximum(W.sum(axis=1, keepdims=True), np.finfo(float).tiny)

    def topic_weights(self):
        return self._W().sum(axis=0)

    def state(self):
        m = self.model
        return {"W": np.array(self._W()), "A": np.array(m.A), "B": np.array(m.B), "v_max": np.array(m.v_max),
                "updates": np.array(self.updates), "docs_seen": np.array(self.docs_seen)}

    def load_state(self, state):
        W = np.array(state["W"], dtype=np.float64)
        if W.shape != (self.n_words, self.n_topics):
            raise ValueError(f"{self.name}: stored W has shape {W.shape}, expected {(self.n_words, self.n_topics)}")
        m = self.model
        m._W, m.A, m.B, m.v_max = W, np.array(state["A"]), np.array(state["B"]), float(state["v_max"])
        m._h = None
        self.updates, self.docs_seen = int(state["updates"]), int(state["docs_seen"])
