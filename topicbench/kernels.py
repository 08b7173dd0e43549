"""Shared numba kernels: digamma expectations and the LDA per-document E-step.

The E-step is the hot loop of every LDA-family method (online, batch, streaming and
population VB), so it lives here once. It is parallel over documents. Documents are
cut into a fixed number of contiguous chunks, whatever the thread count, and the
chunks' sufficient statistics are summed in a fixed order, so results are bit-identical
for 1 or N threads.
"""
from __future__ import annotations

import math

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

N_CHUNKS = 8  # fixed, so that summation order (and so every result) is independent of threads


def set_threads(threads: int) -> int:
    """Limit numba's parallel kernels to ``threads`` (the rule's ``threads:``)."""
    threads = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    return threads


@njit(cache=True, fastmath=False, nogil=True)
def digamma(x: float) -> float:
    """Psi(x) for x > 0: recurrence up to x >= 6, then the asymptotic series."""
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    result += (
        math.log(x)
        - 0.5 * inv
        - inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132)))))
    )
    return result


@njit(parallel=True, cache=True)
def dirichlet_expectation(param: np.ndarray) -> np.ndarray:
    """E[log x] under Dirichlet(row) for each row: Psi(p_i) - Psi(sum p) (Hoffman et al. 2010, eq. 6)."""
    n, k = param.shape
    out = np.empty((n, k))
    for i in prange(n):
        total = 0.0
        for j in range(k):
            total += param[i, j]
        psi_total = digamma(total)
        for j in range(k):
            out[i, j] = digamma(param[i, j]) - psi_total
    return out


@njit(parallel=True, cache=True)
def exp_dirichlet_expectation(param: np.ndarray) -> np.ndarray:
    """exp(E[log x]) row-wise; the form the E-step multiplies with."""
    n, k = param.shape
    out = np.empty((n, k))
    for i in prange(n):
        total = 0.0
        for j in range(k):
            total += param[i, j]
        psi_total = digamma(total)
        for j in range(k):
            out[i, j] = math.exp(digamma(param[i, j]) - psi_total)
    return out


@njit(cache=True, nogil=True)
def _lda_doc(ids, cts, exp_elog_beta_t, alpha, gamma, max_iter, tol, exp_theta, phinorm):
    """Coordinate ascent on one document's (gamma, phi) with topics fixed (Hoffman et al. 2010, Alg. 2 E step).

    phi is never stored: phi_wk = exp_theta_k * exp_beta_kw / phinorm_w. Returns iterations used.
    """
    n_topics = gamma.shape[0]
    n_ids = ids.shape[0]
    new_gamma = np.empty(n_topics)
    iterations = 0
    for it in range(max_iter):
        iterations = it + 1
        total = 0.0
        for k in range(n_topics):
            total += gamma[k]
        psi_total = digamma(total)
        for k in range(n_topics):
            exp_theta[k] = math.exp(digamma(gamma[k]) - psi_total)
        for j in range(n_ids):
            row = exp_elog_beta_t[ids[j]]
            s = 0.0
            for k in range(n_topics):
                s += exp_theta[k] * row[k]
            phinorm[j] = s + 1e-100
        for k in range(n_topics):
            new_gamma[k] = 0.0
        for j in range(n_ids):
            row = exp_elog_beta_t[ids[j]]
            weight = cts[j] / phinorm[j]
            for k in range(n_topics):
                new_gamma[k] += weight * row[k]
        change = 0.0
        for k in range(n_topics):
            value = alpha[k] + exp_theta[k] * new_gamma[k]
            change += abs(value - gamma[k])
            gamma[k] = value
        if change / n_topics < tol:
            break
    # phi and phinorm consistent with the final gamma, for the sufficient statistics
    total = 0.0
    for k in range(n_topics):
        total += gamma[k]
    psi_total = digamma(total)
    for k in range(n_topics):
        exp_theta[k] = math.exp(digamma(gamma[k]) - psi_total)
    for j in range(n_ids):
        row = exp_elog_beta_t[ids[j]]
        s = 0.0
        for k in range(n_topics):
            s += exp_theta[k] * row[k]
        phinorm[j] = s + 1e-100
    return iterations


@njit(parallel=True, cache=True)
def _lda_e_step(indptr, indices, data, exp_elog_beta_t, alpha, gamma, max_iter, tol, want_sstats, n_chunks):
    n_docs = indptr.shape[0] - 1
    n_words, n_topics = exp_elog_beta_t.shape
    if want_sstats:
        chunk_sstats = np.zeros((n_chunks, n_words, n_topics))
    else:
        chunk_sstats = np.zeros((1, 1, n_topics))
    iterations = np.zeros(n_docs, dtype=np.int64)
    bounds = np.linspace(0, n_docs, n_chunks + 1).astype(np.int64)
    for chunk in prange(n_chunks):
        exp_theta = np.empty(n_topics)
        max_len = 1
        for d in range(bounds[chunk], bounds[chunk + 1]):
            max_len = max(max_len, indptr[d + 1] - indptr[d])
        phinorm = np.empty(max_len)
        for d in range(bounds[chunk], bounds[chunk + 1]):
            start, stop = indptr[d], indptr[d + 1]
            ids = indices[start:stop]
            cts = data[start:stop]
            iterations[d] = _lda_doc(ids, cts, exp_elog_beta_t, alpha, gamma[d], max_iter, tol, exp_theta, phinorm)
            if want_sstats:
                out = chunk_sstats[chunk]
                for j in range(stop - start):
                    weight = cts[j] / phinorm[j]
                    for k in range(n_topics):
                        out[ids[j], k] += weight * exp_theta[k]
    if not want_sstats:
        return chunk_sstats[0], iterations
    sstats = chunk_sstats[0]
    for chunk in range(1, n_chunks):
        sstats += chunk_sstats[chunk]
    return sstats, iterations


def lda_e_step(counts: sp.csr_matrix, exp_elog_beta: np.ndarray, alpha, max_iter: int = 100, tol: float = 1e-3,
               gamma: np.ndarray | None = None, want_sstats: bool = True):
    """Fit (gamma, phi) for each document of ``counts`` with the topics fixed.

    Returns ``gamma`` (n_docs x K) and ``sstats`` (K x V), sum_d n_dw phi_dwk, the statistic of
    Hoffman et al. 2010, eq. 5 / Alg. 2 (already multiplied by exp E[log beta]), and the
    iterations each document used. ``gamma`` starts at 1 for every topic (Alg. 1 and 2).
    """
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    n_topics = exp_elog_beta.shape[0]
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    gamma = np.ones((n_docs, n_topics)) if gamma is None else np.array(gamma, dtype=np.float64, copy=True)
    exp_elog_beta_t = np.ascontiguousarray(exp_elog_beta.T)
    n_chunks = max(1, min(N_CHUNKS, n_docs))
    sstats_t, iterations = _lda_e_step(
        counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data.astype(np.float64),
        exp_elog_beta_t, alpha, gamma, int(max_iter), float(tol), bool(want_sstats), n_chunks,
    )
    sstats = sstats_t.T * exp_elog_beta if want_sstats else None
    return gamma, sstats, iterations


@njit(parallel=True, cache=True)
def _mixture_probs(indptr, indices, theta, topics_t):
    n_docs = indptr.shape[0] - 1
    out = np.empty(indices.shape[0])
    n_topics = theta.shape[1]
    for d in prange(n_docs):
        for j in range(indptr[d], indptr[d + 1]):
            row = topics_t[indices[j]]
            s = 0.0
            for k in range(n_topics):
                s += theta[d, k] * row[k]
            out[j] = s
    return out


def mixture_probs(word_ids: sp.csr_matrix, theta: np.ndarray, topics: np.ndarray) -> np.ndarray:
    """p(w | d) = sum_k theta_dk topics_kw at the nonzeros of ``word_ids`` (CSR order).

    Shared by every admixture model's ``predict_words`` (LDA: theta = E[theta], topics = E[beta];
    NMF: normalised means of the gamma factors).
    """
    word_ids = sp.csr_matrix(word_ids)
    return _mixture_probs(word_ids.indptr.astype(np.int64), word_ids.indices.astype(np.int64),
                          np.ascontiguousarray(theta, dtype=np.float64), np.ascontiguousarray(topics.T, dtype=np.float64))
