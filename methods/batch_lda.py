"""Batch variational Bayes for LDA (Hoffman, Blei and Bach 2010, Algorithm 1; Blei et al. 2003).

One ``partial_fit`` is one pass: an E step over the whole training set, then
lambda = eta + sum_d n_dw phi_dwk (eq. 5). The ELBO of the pass (eq. 4, with the lambda
the E step used) is kept in ``last_elbo``; the run stops once its relative improvement
no longer exceeds ``rel_tol`` (Alg. 1, "while relative improvement in L > 0.00001").
"""
import numpy as np

from topicbench.lda import VariationalLDA
from topicbench.method import require


class BatchLDA(VariationalLDA):
    """Hyperparameters: K, alpha, eta, the E-step's tolerance and cap, and the outer stopping rule rel_tol."""

    name = "batch_lda"
    description = "Batch VB for LDA (Hoffman et al. 2010, Alg. 1)"
    params = {**VariationalLDA.params, "rel_tol": 1e-5}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(float(p["rel_tol"]) >= 0, cls.name, "rel_tol", f"must be >= 0, got {p['rel_tol']!r}")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.elbo_trace: list[float] = []
        self.converged = False

    def partial_fit(self, batch):
        gamma, sstats, _ = self.e_step(batch.counts)  # Alg. 1, E step (gamma re-initialised to 1)
        elbo = self.doc_bound(batch.counts, gamma) + self.topic_bound()  # eq. 4 at the lambda of this E step
        self.lam = self.eta + sstats  # Alg. 1, M step
        self._refresh()
        if self.elbo_trace:
            previous = self.elbo_trace[-1]
            # Alg. 1: go on while the relative improvement > tol; a bound of exactly 0 (its maximum: one word, one
            # topic) has nothing left to gain
            self.converged = (elbo - previous) / abs(previous) <= self.hyper["rel_tol"] if previous else True
        self.elbo_trace.append(elbo)
        self.last_elbo = elbo
        self.updates += 1
        self.docs_seen += len(batch)

    def progress(self):
        return {"train_elbo": self.last_elbo if self.elbo_trace else np.nan}
