"""Online variational Bayes for LDA (Hoffman, Blei and Bach 2010, Algorithm 2).

With the ``with_replacement`` stream this is SVI for LDA as in Hoffman et al. 2013; with
kappa = 0 and the whole corpus as one minibatch it is batch VB (sec. 2.2, "Mini-batches").
"""
from topicbench.lda import ONLINE_PARAMS, VariationalLDA


class OnlineLDA(VariationalLDA):
    """Hyperparameters: K topics, Dirichlet priors alpha (on theta) and eta (on beta), minibatch size S,
    step size rho_t = (tau0 + t)^-kappa, and the E-step's tolerance and iteration cap."""

    name = "online_lda"
    description = "Online VB for LDA (Hoffman et al. 2010, Alg. 2)"
    uses_corpus_size = True
    params = dict(ONLINE_PARAMS)

    def partial_fit(self, batch):
        self.stochastic_step(batch, self.corpus_size)  # Alg. 2 with D/|batch| (sec. 2.2, "Mini-batches")

    def progress(self):
        return {"rho": getattr(self, "last_rho", float("nan"))}
