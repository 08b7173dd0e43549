"""Plain numpy/scipy references for the LDA-family equation tests, written from the papers, not from the code.

Hoffman, Blei and Bach 2010 (Alg. 1, Alg. 2, eqs. 4-6) as in Hoffman's onlineldavb.py, with scipy's psi and
``scipy.stats.dirichlet`` entropies: none of them calls the numba kernels it sits beside (as scikit-learn keeps
``_lda.py`` beside ``_online_lda_fast.pyx``). The tests hold ``lda_estep.lda_e_step`` and the LDA methods to it.
"""
import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp, psi
from scipy.stats import dirichlet


def elog_dirichlet(param):
    """E[log x] under Dirichlet(row), row-wise (Hoffman et al. 2010, eq. 6)."""
    return psi(param) - psi(param.sum(axis=1, keepdims=True))


def reference_e_step(counts, exp_elog_beta, alpha, max_iter, tol, gamma0=None):
    """Hoffman's onlineldavb.py do_e_step, line for line (gamma starts at 1 unless given)."""
    counts = sp.csr_matrix(counts)
    n_docs, n_topics = counts.shape[0], exp_elog_beta.shape[0]
    gamma = np.ones((n_docs, n_topics)) if gamma0 is None else np.array(gamma0, dtype=float)
    sstats = np.zeros_like(exp_elog_beta)
    iterations = np.zeros(n_docs, dtype=int)
    for d in range(n_docs):
        ids = counts.indices[counts.indptr[d]:counts.indptr[d + 1]]
        cts = counts.data[counts.indptr[d]:counts.indptr[d + 1]].astype(float)
        gammad = gamma[d].copy()
        exp_theta = np.exp(psi(gammad) - psi(gammad.sum()))
        exp_beta = exp_elog_beta[:, ids]
        phinorm = exp_theta @ exp_beta + 1e-100
        for it in range(max_iter):
            last = gammad
            gammad = alpha + exp_theta * ((cts / phinorm) @ exp_beta.T)
            exp_theta = np.exp(psi(gammad) - psi(gammad.sum()))
            phinorm = exp_theta @ exp_beta + 1e-100
            iterations[d] = it + 1
            if np.mean(np.abs(gammad - last)) < tol:
                break
        gamma[d] = gammad
        sstats[:, ids] += np.outer(exp_theta, cts / phinorm)
    return gamma, sstats * exp_elog_beta, iterations


def reference_sstats(lam, counts, alpha, max_iter, tol):
    """sum_d n_dw phi_dwk at the E step's fixed point for topics q(beta) = Dirichlet(lam)."""
    return reference_e_step(counts, np.exp(elog_dirichlet(lam)), alpha, max_iter, tol)[1]


def reference_doc_terms(counts, gamma, lam, alpha):
    """Hoffman et al. 2010 eq. 4's per-document terms, summed over documents, term by term with phi written out:
    E[log p(w|z,beta)] + E[log p(z|theta)] - E[log q(z)] with phi_dwk optimal given gamma (eq. 5's phi),
    plus E[log p(theta|alpha)] + H[q(theta)]."""
    counts = sp.csr_matrix(counts)
    elog_theta, elog_beta = elog_dirichlet(gamma), elog_dirichlet(lam)
    n_topics = gamma.shape[1]
    total = 0.0
    for d in range(counts.shape[0]):
        ids = counts.indices[counts.indptr[d]:counts.indptr[d + 1]]
        cts = counts.data[counts.indptr[d]:counts.indptr[d + 1]]
        logits = elog_theta[d][:, None] + elog_beta[:, ids]  # K x n_ids
        log_phi = logits - logsumexp(logits, axis=0)
        total += float(np.sum(cts * np.sum(np.exp(log_phi) * (logits - log_phi), axis=0)))
        total += gammaln(n_topics * alpha) - n_topics * gammaln(alpha) + (alpha - 1) * elog_theta[d].sum()
        total += dirichlet(gamma[d]).entropy()
    return total


def reference_topic_terms(lam, prior):
    """E_q[log p(beta | Dirichlet(prior))] + H[q(beta)], q(beta_k) = Dirichlet(lam_k): eq. 4's topic terms
    (prior = eta everywhere in LDA; the previous posterior in streaming VB)."""
    prior = np.broadcast_to(prior, lam.shape)
    elog_beta = elog_dirichlet(lam)
    log_norm = gammaln(prior.sum(axis=1)) - gammaln(prior).sum(axis=1)
    return float(np.sum(log_norm) + np.sum((prior - 1) * elog_beta) + sum(dirichlet(row).entropy() for row in lam))
