"""Sparse (CSR) helpers: the nonzeros grouped by word, and p(w | d) at the nonzeros for every admixture model."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange


@njit(cache=True, nogil=True)
def _group_by_word(indptr, indices, n_words):
    """A stable counting sort of the nonzeros by word: word w's are token_of[word_start[w]:word_start[w + 1]]
    (positions in ``indices``), of documents doc_of[...], in document order."""
    n_docs = indptr.shape[0] - 1
    word_start = np.zeros(n_words + 1, dtype=np.int64)
    for p in range(indices.shape[0]):
        word_start[indices[p] + 1] += 1
    for w in range(n_words):
        word_start[w + 1] += word_start[w]
    fill = word_start[:-1].copy()
    token_of = np.empty(indices.shape[0], dtype=np.int64)
    doc_of = np.empty(indices.shape[0], dtype=np.int64)
    for d in range(n_docs):
        for p in range(indptr[d], indptr[d + 1]):
            w = indices[p]
            token_of[fill[w]] = p
            doc_of[fill[w]] = d
            fill[w] += 1
    return word_start, token_of, doc_of


def _longest_first(counts: sp.csr_matrix) -> np.ndarray:
    """The documents in the order the workers take them: most distinct words first, so that the last ones to
    finish are short and neither thread waits long for the other (each document's result is the same in any order)."""
    return np.argsort(-np.diff(counts.indptr), kind="stable").astype(np.int64)


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
    theta, topics = np.asarray(theta), np.asarray(topics)
    # the kernel indexes without bounds checks: a transposed or 1-d argument would read past the arrays
    if topics.ndim != 2 or topics.shape[1] != word_ids.shape[1] or theta.shape != (word_ids.shape[0], topics.shape[0]):
        raise ValueError(f"mixture_probs: topics must be K x V and theta documents x K for word ids of shape "
                         f"{word_ids.shape}, got topics {topics.shape} and theta {theta.shape}")
    return _mixture_probs(word_ids.indptr.astype(np.int64), word_ids.indices.astype(np.int64),
                          np.ascontiguousarray(theta, dtype=np.float64), np.ascontiguousarray(topics.T, dtype=np.float64))
