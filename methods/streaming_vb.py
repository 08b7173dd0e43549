"""Streaming variational Bayes for LDA (Broderick, Boyd, Wibisono, Wilson and Jordan 2013), as run by
McInerney, Ranganath and Blei 2015 (sec. 3, "Results": SVB "updates the variational approximation of
the global parameter using density filtering with exponential families").

Broderick et al.'s streaming update q_b = A(C_b, q_{b-1}) (their sec. 2.1) with batch VB (Hoffman et al.
2010, Alg. 1) as the primitive A: the posterior after minibatches 1..b-1 is the prior of minibatch b,
batch VB is run on minibatch b alone with that prior, and its result is the new posterior. For LDA's
conjugate q(beta) = Dirichlet(lambda) that reads

    lambda_b = lambda_{b-1} + sum_{d in batch b} n_dw phi_dwk     (phi at the minibatch's VB fixed point)

with lambda_0 = eta. There is no corpus size D, step size rho, kappa or tau0: the posterior's
concentration grows with every document seen, which is why the method needs no D and never reads one.
"""
import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from topicbench.kernels import lda_bound
from topicbench.lda import VariationalLDA
from topicbench.method import require


class StreamingVB(VariationalLDA):
    """Hyperparameters: K, alpha, eta, minibatch size S, the E-step's tolerance and cap, and the per-minibatch batch-VB
    stopping rule: stop when the minibatch ELBO's relative improvement no longer exceeds ``rel_tol`` (the rule of batch
    VB, Hoffman et al. 2010 Alg. 1) or after ``max_inner_iter`` E/M rounds; ``warm_start`` (below). The minibatch
    ELBO is eq. 4 exactly, but its K x V topic terms are summed only over the minibatch's words: every other column
    of lambda equals the prior's there and adds zero (``topic_bound_under``); within those words, so are the ~90% of
    entries whose statistic is below an ulp of the prior. Both bounds run in numba
    (topicbench/kernels/lda_bound.py).

    Warm start (``warm_start``, off by default). Batch VB is coordinate ascent on the minibatch ELBO L(lambda,
    gamma, phi) (Hoffman et al. 2010, sec. 2.1, eq. 5 and the text after it): the M step maximises L in lambda with
    phi fixed, each phi and gamma update of the E step maximises it in that block. On every minibatch after the
    first, only the first round starts the E step at gamma = 1 (as Algs. 1 and 2 do for documents not seen before);
    later rounds start it from the last round's gamma. That is still coordinate ascent, so the ELBO after each round
    never falls (``test_svb_minibatch_elbo_never_decreases``), whereas restarting at gamma = 1 each round lets an E
    step that stops at e_step_tol end at a worse gamma than the last round's and lower it. The rounds' E steps then
    take a few iterations per document instead of ~35 (nyt_like, K = 100, S = 1024), and the rule may stop at other
    rounds. The first minibatch restarts every round, exactly Alg. 1: its first E step runs under the random start
    below, and gammas carried over from there stay near that arbitrary assignment of documents to topics (coordinate
    ascent does not leave it): warm-started from the start, a 1200-document planted corpus (K = 6, S = 200) ended
    its first minibatch at ELBO -49,400 instead of -43,000 and scored -3.76 instead of -3.69 nats/word held out,
    while warm starts after the first minibatch only match restarts there (-3.69), and on nyt_like and nyt_topmost
    (K = 100) score within -0.005..+0.001 nats/word of them (benchmarks/RESULTS.md). Off by default because Alg. 1
    and Broderick et al.'s primitive restart every E step, the restarted run is the one the papers report, and on
    nyt_topmost the warm start scored lower on every seed (-0.002..-0.005 nats/word) while being ~1.4x faster.

    Start: the prior of the first minibatch is exactly lambda_0 = eta (Broderick et al. start from the
    prior). A symmetric lambda cannot break the symmetry between topics (every topic would receive the
    same statistics), so the *first E-step* of the first minibatch uses the random lambda that
    VariationalLDA draws (Gamma(100, 1/100), Hoffman's init) -- exactly where batch VB starts. That draw is
    only a starting point of the coordinate ascent, never added to the prior: adding it would put
    ~V pseudo-counts per topic into the posterior, and the first posterior would no longer be the batch-VB
    fixed point eta + sstats. Later minibatches start their inner iteration at the current posterior.
    """

    name = "streaming_vb"
    description = "Streaming VB for LDA (Broderick et al. 2013; baseline of McInerney et al. 2015)"
    uses_corpus_size = False
    params = {**VariationalLDA.params, "batch_size": 256, "rel_tol": 1e-4, "max_inner_iter": 50, "warm_start": False}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        require(float(p["rel_tol"]) >= 0, cls.name, "rel_tol", f"must be >= 0, got {p['rel_tol']!r}")
        require(isinstance(p["max_inner_iter"], (int, np.integer)) and p["max_inner_iter"] >= 1, cls.name,
                "max_inner_iter", f"must be an integer >= 1, got {p['max_inner_iter']!r}")
        require(isinstance(p["warm_start"], (bool, np.bool_)), cls.name, "warm_start",
                f"must be true or false, got {p['warm_start']!r}")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.last_inner_iterations = 0
        self.total_inner_iterations = 0  # batch-VB rounds over all minibatches: the cost in E-steps
        self.last_elbo = np.nan
        self.elbo_trace = []  # the last minibatch's ELBO after each round
        self.last_gamma = None

    def prior_lambda(self) -> np.ndarray:
        """The prior of the next minibatch: eta before any data, else the current posterior."""
        return np.full_like(self.lam, self.eta) if self.updates == 0 else self.lam.copy()

    def topic_bound_under(self, prior, words, prior_rows) -> float:
        """E_q[log p(beta | prior)] - E_q[log q(beta | lambda)]: the topic terms of Hoffman et al. 2010 eq. 4 with the
        Dirichlet(eta) prior replaced by Dirichlet(prior), as Broderick et al.'s update requires, at the current lambda.

        Per column (prior - lambda) E[log beta] + log Gamma(lambda) - log Gamma(prior), per topic the normalisers
        log Gamma(prior row sum) - log Gamma(lambda row sum). A column with lambda = prior adds zero, so ``prior`` may
        hold only the columns ``words`` where they differ, with the full row sums ``prior_rows``: within a minibatch
        lambda moves only in the minibatch's words, and the bound costs K x (those words).
        """
        lam_rows = self.lam.sum(axis=1)
        cross = lda_bound.topic_terms(prior, self.lam, lam_rows, words)
        return cross + float(np.sum(gammaln(prior_rows) - gammaln(lam_rows)))

    def partial_fit(self, batch):
        counts = sp.csr_matrix(batch.counts)
        columns = lda_bound.minibatch_columns(counts, self.n_words)
        words = columns[-1]  # the only columns of lambda that batch VB on this minibatch moves
        prior = self.prior_lambda()
        prior_w, prior_rows = prior[:, words], prior.sum(axis=1)
        elbo_trace = []
        warm = self.hyper["warm_start"] and self.updates > 0  # never from the random start (class docstring)
        gamma = None  # the first round starts at gamma = 1 (Alg. 1); later rounds warm-start
        for r in range(self.hyper["max_inner_iter"]):  # A = batch VB (Hoffman et al. 2010, Alg. 1) on this minibatch
            gamma, sstats, _ = self.e_step(counts, gamma=gamma if warm else None)  # E step, lambda fixed
            if self.updates == 0 and r == 0:  # the random start differs from the prior in every column
                topic = self.topic_bound_under(prior, np.arange(self.n_words), prior_rows)
            else:  # lambda = prior outside the minibatch's words
                topic = self.topic_bound_under(prior_w, words, prior_rows)
            elbo = lda_bound.doc_bound(columns, self.exp_elog_beta, gamma, self.alpha) + topic  # eq. 4, prior q_{b-1}
            self.lam = prior + sstats  # M step with prior lambda_{b-1}: q_b = A(C_b, q_{b-1}) (Broderick et al., sec. 2.1)
            self._refresh()
            # a last ELBO of exactly 0 (eq. 4's maximum: one word, one topic) has nothing left to gain
            converged = bool(elbo_trace) and (elbo_trace[-1] == 0
                                              or (elbo - elbo_trace[-1]) / abs(elbo_trace[-1]) <= self.hyper["rel_tol"])
            elbo_trace.append(elbo)
            if converged:
                break
        self.last_inner_iterations = len(elbo_trace)
        self.total_inner_iterations += len(elbo_trace)
        self.last_elbo = elbo_trace[-1]
        self.elbo_trace = elbo_trace
        self.last_gamma = gamma  # the minibatch's documents at the last round: lambda - prior = their statistics
        self.updates += 1
        self.docs_seen += len(batch)

    def progress(self):
        return {"inner_iterations": float(self.last_inner_iterations),
                "mean_inner_iterations": self.total_inner_iterations / max(self.updates, 1), "batch_elbo": self.last_elbo}
