"""The LDA evidence lower bound (Hoffman, Blei and Bach 2010, eq. 4) in numba, for a stopping rule evaluated every
inner round (streaming VB's batch VB on each minibatch). ``VariationalLDA.doc_bound`` holds the per-document sum in
numpy; the tests compare both with eq. 4 written out (``lda_reference``).

Both run on one thread: each is ~1% of an E step's arithmetic (one pass over the nonzeros, and K x the minibatch's
words), and a parallel region costs a fork-join on every call, which on a loaded machine (threads waiting for a core
at the join) measured 30-70 ms per call, more than the sums themselves.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numba import njit

from .dense import ROUNDING, _dot
from .special import digamma


@njit(cache=True)
def _doc_terms(indptr, indices, data, exp_elog_beta, words, gamma, alpha):
    n_docs, n_topics = gamma.shape
    psi_alpha, lgamma_alpha = digamma(alpha), math.lgamma(alpha)
    exp_elog_beta_t = np.empty((words.shape[0], n_topics))  # the minibatch's columns, word-major
    for j in range(words.shape[0]):
        for k in range(n_topics):
            exp_elog_beta_t[j, k] = exp_elog_beta[k, words[j]]
    out = np.empty(n_docs)
    exp_theta = np.empty(n_topics)
    for d in range(n_docs):
        g = gamma[d]
        total = 0.0
        for k in range(n_topics):
            total += g[k]
        psi_total = digamma(total)
        score = -math.lgamma(total)
        for k in range(n_topics):
            if g[k] == alpha:  # a topic the E step left at its prior (most of them): (alpha - gamma_k) E[log theta_k] = 0
                exp_theta[k] = math.exp(psi_alpha - psi_total)
                score += lgamma_alpha
            else:
                elog_theta = digamma(g[k]) - psi_total  # eq. 6
                exp_theta[k] = math.exp(elog_theta)
                score += (alpha - g[k]) * elog_theta + math.lgamma(g[k])
        for j in range(indptr[d], indptr[d + 1]):  # n_dw log sum_k exp(E[log theta_dk] + E[log beta_kw]), the sum
            # at most 1 (Jensen: VariationalLDA.doc_bound), set to 1 only within ROUNDING above it
            phinorm = _dot(exp_theta, exp_elog_beta_t[indices[j]])
            if 1.0 < phinorm <= 1.0 + ROUNDING:
                phinorm = 1.0
            score += data[j] * math.log(phinorm + 1e-100)
        out[d] = score
    return out


def minibatch_columns(counts: sp.csr_matrix, n_words: int):
    """(indptr, word ids renumbered 0..W-1 over the W distinct words of ``counts``, counts, those words ascending):
    the CSR arrays of ``counts`` restricted to its own columns, as int64 and float64."""
    counts = sp.csr_matrix(counts)
    words = np.flatnonzero(np.bincount(counts.indices, minlength=n_words))
    position = np.zeros(n_words, dtype=np.int64)
    position[words] = np.arange(words.shape[0])
    return counts.indptr.astype(np.int64), position[counts.indices], counts.data.astype(np.float64), words


def doc_bound(columns, exp_elog_beta: np.ndarray, gamma: np.ndarray, alpha: float) -> float:
    """Sum over documents of eq. 4's per-document terms with phi optimal given gamma (``VariationalLDA.doc_bound``):
    sum_w n_dw log sum_k exp(E[log theta_dk] + E[log beta_kw]) + sum_k (alpha - gamma_dk) E[log theta_dk]
    + log Gamma(gamma_dk) - log Gamma(sum_k gamma_dk) + log Gamma(K alpha) - K log Gamma(alpha).
    ``columns`` is ``minibatch_columns(counts, V)``: only the minibatch's columns of exp(E[log beta]) are read."""
    indptr, indices, data, words = columns
    n_docs, n_topics = gamma.shape
    terms = _doc_terms(indptr, indices, data, exp_elog_beta, words,
                       np.ascontiguousarray(gamma, dtype=np.float64), float(alpha))
    return float(np.sum(terms)) + n_docs * (math.lgamma(n_topics * alpha) - n_topics * math.lgamma(alpha))


@njit(cache=True)
def _topic_terms(prior, lam, lam_rows, words):
    n_topics = lam.shape[0]
    out = np.empty(n_topics)
    for k in range(n_topics):
        psi_row = digamma(lam_rows[k])
        score = 0.0
        for j in range(words.shape[0]):
            value = lam[k, words[j]]
            if value != prior[k, j]:  # an equal entry adds exactly 0; in a minibatch ~90% are (sstats below an ulp)
                elog_beta = digamma(value) - psi_row  # eq. 6 itself: its exp underflows to 0 below -745 (eta <= 1e-3)
                score += (prior[k, j] - value) * elog_beta + math.lgamma(value) - math.lgamma(prior[k, j])
        out[k] = score
    return out


def topic_terms(prior: np.ndarray, lam: np.ndarray, lam_rows: np.ndarray, words: np.ndarray) -> float:
    """sum_k sum_j (prior_kj - lambda_kw) E[log beta_kw] + log Gamma(lambda_kw) - log Gamma(prior_kj), w = words_j: the
    per-column topic terms of eq. 4 under the Dirichlet prior ``prior`` (K x len(words), lambda's columns ``words``).

    E[log beta_kw] = Psi(lambda_kw) - Psi(lam_rows_k) (eq. 6, ``lam_rows`` = lambda's row sums) is computed, not read as
    the log of the kept exp(E[log beta]): that exponential underflows to 0 where E[log beta_kw] < -745 (lambda_kw
    below ~1e-3, e.g. eta = 1e-3 plus a statistic of 1e-10), and log 0 made the bound +inf, so the stopping rule never saw
    two finite rounds."""
    return float(np.sum(_topic_terms(np.ascontiguousarray(prior, dtype=np.float64), lam,
                                     np.ascontiguousarray(lam_rows, dtype=np.float64), np.asarray(words, dtype=np.int64))))
