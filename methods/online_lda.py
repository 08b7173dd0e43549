"""Online variational Bayes for LDA (Hoffman, Blei and Bach 2010, Algorithm 2).

With the ``with_replacement`` stream this is SVI for LDA as in Hoffman et al. 2013; with
kappa = 0 and the whole corpus as one minibatch it is batch VB (sec. 2.2, "Mini-batches").
"""
from topicbench.lda import VariationalLDA


class OnlineLDA(VariationalLDA):
    """Hyperparameters: K topics, Dirichlet priors alpha (on theta) and eta (on beta), minibatch size S,
    step size rho_t = (tau0 + t)^-kappa, and the E-step's tolerance and iteration cap."""

    name = "online_lda"
    description = "Online VB for LDA (Hoffman et al. 2010, Alg. 2)"
    uses_corpus_size = True
    params = {**VariationalLDA.params, "batch_size": 256, "kappa": 0.7, "tau0": 1024.0,
              "allow_kappa_half": False}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        cls.check_kappa(p)

    def step_size(self) -> float:
        """rho_t = (tau0 + t)^-kappa (Alg. 2, first line)."""
        return (self.hyper["tau0"] + self.updates) ** -self.hyper["kappa"]

    def partial_fit(self, batch):
        rho = self.step_size()
        _, sstats, _ = self.e_step(batch.counts)
        lam_tilde = self.eta + self.corpus_size / len(batch) * sstats  # eq. in sec. 2.2 "Mini-batches"
        self.lam = (1 - rho) * self.lam + rho * lam_tilde  # Alg. 2, M step
        self._refresh()
        self.updates += 1
        self.docs_seen += len(batch)
        self.last_rho = rho

    def progress(self):
        return {"rho": getattr(self, "last_rho", float("nan"))}
