"""Population variational Bayes for LDA (McInerney, Ranganath and Blei 2015, Algorithm 1).

The natural gradient of the F-ELBO (eq. 8) is SVI's with the data size alpha of the population
posterior (eq. 2) in place of the corpus size D; a minibatch of B documents estimates it with the
sufficient statistics rescaled by alpha/B (text after eq. 8). For LDA (eq. 9) with
q(beta) = Dirichlet(lambda) one step of Algorithm 1 is therefore Hoffman et al.'s online LDA step
with D -> alpha. Setting alpha = D on the ``with_replacement`` stream recovers SVI exactly (sec. 2,
after Algorithm 1, and footnote 2).
"""
import numpy as np

from topicbench.lda import ONLINE_PARAMS, VariationalLDA
from topicbench.method import require


class PopulationVB(VariationalLDA):
    """Hyperparameters: K, the LDA Dirichlet priors ``alpha`` (on theta) and ``eta`` (on beta), minibatch size
    B = ``batch_size``, step size rho_t = (tau0 + t)^-kappa, the E-step's tolerance and cap, and the
    population size as ``log10_population``.

    Name mapping: the paper's alpha (the data size of the population posterior, eq. 2) is NOT the param
    ``alpha``, which is LDA's Dirichlet prior on theta. The paper's alpha is
    ``round(10 ** log10_population)`` documents: a count of data points X ~ F (eq. 2), so it is rounded
    to an integer, which also makes ``log10_population = log10(D)`` give exactly D (the SVI identity).
    A grid over ``log10_population`` is the paper's log10-alpha axis (Fig. 3). The default 6 is the
    alpha = 1M of the paper's Fig. 1 legend.
    """

    name = "population_vb"
    description = "Population VB for LDA (McInerney et al. 2015, Alg. 1)"
    uses_corpus_size = False  # the data size is the hyperparameter alpha, never the stream's length
    params = {**ONLINE_PARAMS, "log10_population": 6.0}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        log10_population = p["log10_population"]
        require(isinstance(log10_population, (int, float, np.integer, np.floating)) and not isinstance(log10_population, bool)
                and 0 <= float(log10_population) <= 15, cls.name, "log10_population",
                f"(log10 of the paper's population size alpha) must be a number in [0, 15], got {log10_population!r}")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.population_size = int(round(10.0 ** float(self.hyper["log10_population"])))  # the paper's alpha

    def partial_fit(self, batch):
        self.stochastic_step(batch, self.population_size)  # Alg. 1: SVI's step with D -> alpha (eq. 8, alpha/B)

    def progress(self):
        """The step size, and the population size alpha actually used: ``log10_population`` rounded as above (10^3.92 is
        8318 documents), so the trace shows the value each update read, not only the exponent asked for."""
        return {"rho": getattr(self, "last_rho", float("nan")), "population_size": self.population_size}
