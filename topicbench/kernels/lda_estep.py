"""The LDA per-document E-step (Hoffman, Blei and Bach 2010, Alg. 2 E step; eqs. 5-6), the hot loop of every
LDA-family method (online, batch, streaming and population VB). ``lda_reference.py`` beside it is the plain numpy
transcription the tests compare it with.

It is parallel over documents, then over words for the sufficient statistics; each word's statistic is summed
over documents in document order, so results are bit-identical for 1 or N threads.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from .dense import (_LOOP, _NO_NRT, WORD_BLOCK, _dot, _dot4, _fetch_add, _gather_topics, _min_positive, _sum,
                    _transpose, _weighted_rows)
from .sparse import _group_by_word, _longest_first
from .special import _digamma_one_division, _digamma_parts, _exp_elog_theta, _exp_theta_block


@njit(**_LOOP, **_NO_NRT)
def _gamma_sweep(ids, cts, exp_elog_beta_t, exp_theta, new_gamma, topic_max, track_max, word_total, uniform):
    """new_gamma_k = sum_w n_w exp_beta_kw / phinorm_w, phinorm_w = sum_k exp_theta_k exp_beta_kw.

    Words go four at a time; each topic row is used for its phinorm and its gamma term while in cache.
    The topics are the first len(exp_theta) of each row. Returns sum_w n_w / phinorm_w and min_w phinorm_w,
    which bound what a skipped topic would have added (see ``_lda_doc``). With ``track_max`` (the first
    sweep) it also leaves topic_max_k = max_w exp_beta_kw, read from the rows while they are in cache.
    With ``uniform`` (every exp_theta_k equal, as in the first sweep from gamma = 1), phinorm_w is
    exp_theta_0 word_total_w, word_total_w = sum_k exp_beta_kw: no dot products.
    """
    n_topics = exp_theta.shape[0]
    n_ids = ids.shape[0]
    token_sum = 0.0
    min_phinorm = np.inf
    for k in range(n_topics):
        new_gamma[k] = 0.0
    if track_max:
        for k in range(n_topics):
            topic_max[k] = 0.0
    j = 0
    while j + 4 <= n_ids:
        row0 = exp_elog_beta_t[ids[j]]
        row1 = exp_elog_beta_t[ids[j + 1]]
        row2 = exp_elog_beta_t[ids[j + 2]]
        row3 = exp_elog_beta_t[ids[j + 3]]
        if uniform:
            c = exp_theta[0]
            s0, s1 = c * word_total[ids[j]], c * word_total[ids[j + 1]]
            s2, s3 = c * word_total[ids[j + 2]], c * word_total[ids[j + 3]]
        else:
            s0, s1, s2, s3 = _dot4(exp_theta, row0, row1, row2, row3)
        w0 = cts[j] / (s0 + 1e-100)
        w1 = cts[j + 1] / (s1 + 1e-100)
        w2 = cts[j + 2] / (s2 + 1e-100)
        w3 = cts[j + 3] / (s3 + 1e-100)
        for k in range(n_topics):
            new_gamma[k] += (w0 * row0[k] + w1 * row1[k]) + (w2 * row2[k] + w3 * row3[k])
        if track_max:
            for k in range(n_topics):
                topic_max[k] = max(topic_max[k], max(max(row0[k], row1[k]), max(row2[k], row3[k])))
        token_sum += (w0 + w1) + (w2 + w3)
        min_phinorm = min(min_phinorm, min(min(s0, s1), min(s2, s3)) + 1e-100)
        j += 4
    while j < n_ids:
        row = exp_elog_beta_t[ids[j]]
        s = exp_theta[0] * word_total[ids[j]] if uniform else _dot(exp_theta, row)
        w = cts[j] / (s + 1e-100)
        for k in range(n_topics):
            new_gamma[k] += w * row[k]
        if track_max:
            for k in range(n_topics):
                topic_max[k] = max(topic_max[k], row[k])
        token_sum += w
        min_phinorm = min(min_phinorm, s + 1e-100)
        j += 1
    return token_sum, min_phinorm


@njit(inline="always", **_LOOP)  # inlined where it is called in every iteration: no call with eight array arguments
def _topic_sweep(cts, sub, rows, theta, new_gamma, phinorm, weight, scratch):
    """``_gamma_sweep`` over the topics whose columns are sub[rows_a] (topic-major, ``_gather_topics``).

    The words are the vector lanes: phinorm_w for all words (four topic rows per pass), then n_w / phinorm_w,
    then one dot product per topic, so no per-word horizontal sums or scalar divisions, which dominate a
    word-major sweep over a few topics. Returns sum_w n_w / phinorm_w and min_w phinorm_w.
    """
    n_words = phinorm.shape[0]
    n = rows.shape[0]
    _weighted_rows(theta, sub, rows, phinorm)
    for j in range(n_words):
        weight[j] = cts[j] / phinorm[j]
    a = 0
    while a + 4 <= n:
        g0, g1, g2, g3 = _dot4(weight, sub[rows[a]], sub[rows[a + 1]], sub[rows[a + 2]], sub[rows[a + 3]])
        new_gamma[a], new_gamma[a + 1], new_gamma[a + 2], new_gamma[a + 3] = g0, g1, g2, g3
        a += 4
    while a < n:
        new_gamma[a] = _dot(weight, sub[rows[a]])
        a += 1
    return _sum(weight), _min_positive(phinorm, scratch)


# Active topics. With a small alpha most gamma_k fall to alpha within a few iterations and their
# exp_theta_k ~ exp(psi(alpha)) to e^-100; such a topic is skipped when the bound below says that its
# term moves gamma_k, and every phinorm_w, by less than SKIP_EPS relative, so gamma_k = alpha_k exactly,
# as the full update rounds it too. The set is chosen with the previous iteration's bound (times the
# caller's skip_margin, default SKIP_MARGIN), checked after the sweep with this one's, and the sweep redone
# over all topics if the check fails. The margin trades gathers against redone sweeps; it cannot change a result.
SKIP_EPS = 2.0 ** -60
SKIP_MARGIN = 2.0 ** -10
SPARSE_FRACTION = 0.8  # gather the active topics' columns only when at most this fraction of K is active
LANES = 8  # exp(E[log theta]) of the active topics is taken over a multiple of this (``_exp_theta_block``)


@njit(**_LOOP, **_NO_NRT)
def _update_gamma(alpha, gamma, exp_theta, new_gamma, position):
    """gamma_k = alpha_k + exp_theta_k new_gamma_k (alpha_k for a skipped topic); returns sum_k |change|."""
    change = 0.0
    for k in range(gamma.shape[0]):
        a = position[k]
        value = alpha[k] + exp_theta[a] * new_gamma[a] if a >= 0 else alpha[k]  # gamma = alpha + sum_w n_w phi_w
        change += abs(value - gamma[k])
        gamma[k] = value
    return change


@njit(**_LOOP, **_NO_NRT)
def _skipped_ok(exp_theta, topic_max, position, alpha, token_sum, min_phinorm, eps):
    """True if no topic outside the set moves gamma_k or phinorm_w by eps relative: for skipped k,
    exp_theta_k sum_w n_w exp_beta_kw / phinorm_w <= exp_theta_k max_w exp_beta_kw sum_w n_w / phinorm_w
    < eps alpha_k, and sum_skipped exp_theta_k exp_beta_kw < eps min_w phinorm_w. (phinorm over a subset
    of topics is smaller than the full one, so these bounds hold for the full sums too.)"""
    mass = 0.0
    for k in range(exp_theta.shape[0]):
        if position[k] < 0:
            term = exp_theta[k] * topic_max[k]
            if not term * token_sum < eps * alpha[k]:
                return False
            mass += term
    return mass < eps * min_phinorm


# What ``_lda_doc`` reads but never changes: the topics and the E step's settings, the same for every document.
Model = namedtuple("Model", [
    "exp_elog_beta_t",  # V x K, exp(E[log beta]) word-major (a word's K topics contiguous)
    "word_total",  # sum_k exp_beta_kw, for the first sweep from gamma = 1 (``_gamma_sweep`` with ``uniform``)
    "alpha",  # the Dirichlet prior on theta, K
    "exp_psi_alpha",  # exp(psi(alpha_k)), bounds exp_theta_k of a topic skipped at gamma_k = alpha_k
    "max_iter", "tol",  # stop at mean_k |change in gamma_k| < tol, or after max_iter sweeps
    "skip_margin",  # how early topics are chosen to be skipped (SKIP_MARGIN; speed only, never the result)
    "want_phinorm",  # leave phinorm_w of the final gamma (for the sufficient statistics)
])

# One thread's scratch arrays for ``_lda_doc``, made once per worker (one per thread) by ``_workspace``.
Workspace = namedtuple("Workspace", [
    "new_gamma",  # K: a sweep's sum_w n_w exp_beta_kw / phinorm_w, per topic of the sweep
    "position",  # K: topic k's index in the active set (-1: skipped); k itself in a full sweep
    "active",  # K: the active topics, in order
    "sub_row",  # K: topic k's row in the gathered copy (-1: not in it)
    "active_row",  # K: the a-th active topic's row in the gathered copy
    "topic_max",  # K: max_w exp_beta_kw over the document's words (the skip bound's factor)
    "theta_active",  # K + LANES: exp_theta of the active topics, zero-padded to a multiple of LANES
    "gamma_active",  # K + LANES: gamma of the active topics, padded with 1
    "bits",  # K + LANES int64: ``_exp_theta_block``'s powers of two
    "sub",  # longest * K: the gathered copy, topic-major (``_gather_topics``)
    "phinorm",  # longest: a sparse sweep's phinorm_w
    "weight",  # longest: a sparse sweep's n_w / phinorm_w
    "scratch",  # 1 int64, for ``_min_positive``
])


@njit(**_LOOP)
def _workspace(n_topics, longest):
    """Scratch arrays for documents of at most ``longest`` distinct words (``Workspace``)."""
    return Workspace(np.empty(n_topics), np.empty(n_topics, dtype=np.int64), np.empty(n_topics, dtype=np.int64),
                     np.empty(n_topics, dtype=np.int64), np.empty(n_topics, dtype=np.int64), np.empty(n_topics),
                     np.empty(n_topics + LANES), np.empty(n_topics + LANES), np.empty(n_topics + LANES, dtype=np.int64),
                     np.empty(longest * n_topics), np.empty(longest), np.empty(longest), np.empty(1, dtype=np.int64))


@njit(**_LOOP, **_NO_NRT)
def _lda_doc(ids, cts, gamma, exp_theta, phinorm, counts, model, work):
    """Coordinate ascent on one document's (gamma, phi) with topics fixed (Hoffman et al. 2010, Alg. 2 E step).

    The document is (ids, cts), its n_w at word ids; ``gamma`` (K) is its start and receives the result.
    phi is never stored: phi_wk = exp_theta_k * exp_beta_kw / phinorm_w. On return ``exp_theta``
    (and, if model.want_phinorm, ``phinorm``) belong to the final gamma. Returns the iterations used.
    Once few topics are active (see SKIP_EPS), the sweep runs over a topic-major copy of their columns
    (``_topic_sweep``); when the set shrinks, the copy is reused, re-gathered only for a topic not in it.
    A skipped topic has gamma_k = alpha_k, so exp_theta_k <= exp(psi(alpha_k)) exp(-psi(sum gamma)).
    ``counts`` receives (gathers, fall-back sweeps redone over all topics, sets reusing the copy, sweeps over all
    topics, active topics summed over the sparse sweeps) for diagnostics.
    """
    n_topics = gamma.shape[0]
    n_ids = ids.shape[0]
    exp_elog_beta_t, word_total, alpha, exp_psi_alpha = model.exp_elog_beta_t, model.word_total, model.alpha, \
        model.exp_psi_alpha
    new_gamma, position, active, sub_row, active_row, topic_max = work.new_gamma, work.position, work.active, \
        work.sub_row, work.active_row, work.topic_max
    theta_active, gamma_active, bits, sub, scratch = work.theta_active, work.gamma_active, work.bits, work.sub, work.scratch
    doc_phinorm = work.phinorm[:n_ids]
    weight = work.weight[:n_ids]
    n_sub = 0  # topics in the gathered copy; topic k is its row sub_row[k] (-1: not in it)
    copy = sub[:0].reshape((0, n_ids))  # the copy as an n_sub x n_ids matrix, made at each gather
    for k in range(n_topics):
        sub_row[k] = -1
    lanes = n_topics
    for k in range(n_topics):
        position[k] = k
    n_active = n_topics  # all topics, read straight from exp_elog_beta_t ("full")
    sparse = False
    fresh = False  # first sweep after a gather: the topics just dropped may not be at alpha yet
    token_sum = 0.0
    min_phinorm = np.inf
    scale = 0.0  # exp(-psi(sum gamma)), rounded up
    skipped_max = 0.0  # max over skipped k of exp(psi(alpha_k)) max_w exp_beta_kw / alpha_k
    skipped_mass = 0.0  # sum over skipped k of exp(psi(alpha_k)) max_w exp_beta_kw
    skipped_alpha = 0.0  # sum over skipped k of alpha_k
    threshold = SKIP_EPS * model.skip_margin
    gathers = 0
    reuses = 0
    fallbacks = 0
    dense_sweeps = 0
    active_swept = 0  # the active topics of every sparse sweep, summed
    _exp_elog_theta(gamma, exp_theta, bits)
    iterations = 0
    for it in range(model.max_iter):
        iterations = it + 1
        if it > 0:  # which topics can be skipped, judged by the last sweep's bound with a margin
            decide = True
            if sparse and not fresh:  # the usual case: only the active topics can newly drop out
                if (scale * token_sum * skipped_max < threshold
                        and scale * skipped_mass < threshold * min_phinorm):
                    keep = 0
                    for a in range(n_active):
                        k = active[a]
                        if exp_theta[k] * topic_max[k] * token_sum >= threshold * alpha[k]:
                            keep += 1
                    decide = keep < 0.75 * n_active
                if decide:
                    for k in range(n_topics):
                        if position[k] < 0:
                            exp_theta[k] = exp_psi_alpha[k] * scale
            if decide:
                keep = 0
                mass = 0.0
                for k in range(n_topics):
                    term = exp_theta[k] * topic_max[k]
                    if term * token_sum >= threshold * alpha[k]:
                        keep += 1
                    else:
                        mass += term
                if keep > SPARSE_FRACTION * n_topics or not mass < threshold * min_phinorm:
                    if sparse:
                        _exp_elog_theta(gamma, exp_theta, bits)
                        for k in range(n_topics):
                            position[k] = k
                        sparse = False
                else:  # gather the kept topics' columns
                    psi_total = _digamma_one_division(np.sum(gamma))
                    n_active = 0
                    skipped_max = 0.0
                    skipped_mass = 0.0
                    skipped_alpha = 0.0
                    for k in range(n_topics):
                        term = exp_theta[k] * topic_max[k]
                        if term * token_sum >= threshold * alpha[k]:
                            if sparse and position[k] < 0:  # exp_theta_k was only a bound: make it exact
                                y, c = _digamma_parts(gamma[k])
                                exp_theta[k] = y * math.exp(-c - psi_total)
                            active[n_active] = k
                            theta_active[n_active] = exp_theta[k]
                            n_active += 1
                        else:
                            skipped_max = max(skipped_max, exp_psi_alpha[k] * topic_max[k] / alpha[k])
                            skipped_mass += exp_psi_alpha[k] * topic_max[k]
                            skipped_alpha += alpha[k]
                    for k in range(n_topics):
                        position[k] = -1
                    for a in range(n_active):
                        position[active[a]] = a
                    lanes = (n_active + LANES - 1) // LANES * LANES
                    for a in range(n_active, lanes):
                        gamma_active[a] = 1.0
                    reuse = True  # the copy has every kept topic: no gather
                    for a in range(n_active):
                        reuse = reuse and sub_row[active[a]] >= 0
                    if not reuse:
                        _gather_topics(ids, exp_elog_beta_t, active[:n_active],
                                       sub[:n_active * n_ids].reshape((n_active, n_ids)))
                        n_sub = n_active
                        copy = sub[:n_sub * n_ids].reshape((n_sub, n_ids))
                        for k in range(n_topics):
                            sub_row[k] = -1
                        for a in range(n_active):
                            sub_row[active[a]] = a
                        gathers += 1
                    else:
                        reuses += 1
                    for a in range(n_active):
                        active_row[a] = sub_row[active[a]]
                    sparse = True
                    fresh = True
        if sparse:
            active_swept += n_active
            token_sum, min_phinorm = _topic_sweep(cts, copy, active_row[:n_active], theta_active[:n_active],
                                                  new_gamma[:n_active], doc_phinorm, weight, scratch)
            if fresh:
                ok = _skipped_ok(exp_theta, topic_max, position, alpha, token_sum, min_phinorm, SKIP_EPS)
            else:
                ok = scale * token_sum * skipped_max < SKIP_EPS and scale * skipped_mass < SKIP_EPS * min_phinorm
            if ok:
                if fresh:
                    change = _update_gamma(alpha, gamma, theta_active, new_gamma, position)
                    fresh = False
                else:  # the skipped gamma_k stay at alpha_k: zero change
                    change = 0.0
                    for a in range(n_active):
                        k = active[a]
                        value = alpha[k] + theta_active[a] * new_gamma[a]
                        change += abs(value - gamma[k])
                        gamma[k] = value
                total = skipped_alpha
                for a in range(n_active):
                    total += gamma[active[a]]
                psi_total = _digamma_one_division(total)
                scale = math.exp(-psi_total) * (1.0 + 2.0 ** -40)
                for a in range(n_active):
                    gamma_active[a] = gamma[active[a]]
                _exp_theta_block(gamma_active[:lanes], psi_total, theta_active[:lanes], bits)  # padding: gamma 1
                for a in range(n_active, lanes):
                    theta_active[a] = 0.0
                for a in range(n_active):
                    exp_theta[active[a]] = theta_active[a]
                if change / n_topics < model.tol:
                    break
                continue
            if not fresh:
                for k in range(n_topics):
                    if position[k] < 0:
                        exp_theta[k] = exp_psi_alpha[k] * scale
            _exp_elog_theta(gamma, exp_theta, bits)  # the check failed: this sweep again over all topics
            fallbacks += 1
            for k in range(n_topics):
                position[k] = k
            sparse = False
            fresh = False
        uniform = it == 0
        if uniform:
            for k in range(n_topics):
                uniform = uniform and exp_theta[k] == exp_theta[0]
        dense_sweeps += 1
        token_sum, min_phinorm = _gamma_sweep(ids, cts, exp_elog_beta_t, exp_theta, new_gamma, topic_max, it == 0,
                                              word_total, uniform)  # uniform: the first sweep from gamma = 1
        change = _update_gamma(alpha, gamma, exp_theta, new_gamma, position)
        _exp_elog_theta(gamma, exp_theta, bits)
        if change / n_topics < model.tol:
            break
    if sparse:
        _exp_elog_theta(gamma, exp_theta, bits)
    if model.want_phinorm:
        for j in range(n_ids):
            phinorm[j] = _dot(exp_theta, exp_elog_beta_t[ids[j]]) + 1e-100
    counts[0] = gathers
    counts[1] = fallbacks
    counts[2] = reuses
    counts[3] = dense_sweeps
    counts[4] = active_swept
    return iterations


@njit(parallel=True, cache=True, fastmath={"contract"}, error_model="numpy")
def _lda_e_step(indptr, indices, data, exp_elog_beta_t, alpha, gamma, max_iter, tol, want_sstats, n_workers, order,
                skip_margin, doc_counts):
    """Documents in parallel, each taken by the next free worker (one per thread); then sstats[:, w] =
    exp_beta_w sum_d (n_dw / phinorm_dw) exp_theta_d by ``_lda_sstats``. A document's result does not depend on
    which worker took it, so the results are bit-identical for 1 or N threads."""
    n_docs = indptr.shape[0] - 1
    n_words, n_topics = exp_elog_beta_t.shape
    iterations = np.zeros(n_docs, dtype=np.int64)
    exp_theta = np.empty((n_docs, n_topics))
    token_weight = np.empty(indices.shape[0])  # n_dw / phinorm_dw
    exp_psi_alpha = np.empty(n_topics)
    for k in range(n_topics):
        y, c = _digamma_parts(alpha[k])
        exp_psi_alpha[k] = y * math.exp(-c)
    longest = 0
    for d in range(n_docs):
        longest = max(longest, indptr[d + 1] - indptr[d])
    word_total = np.empty(n_words)  # sum_k exp_beta_kw, for the first sweep (``_gamma_sweep`` with ``uniform``)
    for w in prange(n_words):
        word_total[w] = _sum(exp_elog_beta_t[w])
    model = Model(exp_elog_beta_t, word_total, alpha, exp_psi_alpha, max_iter, tol, skip_margin, want_sstats)
    next_doc = np.zeros(1, dtype=np.int64)
    for worker in prange(n_workers):  # documents differ in cost: each worker takes the next one when it is free
        work = _workspace(n_topics, longest)
        taken = _fetch_add(next_doc, 1)
        while taken < n_docs:
            d = order[taken]
            start, stop = indptr[d], indptr[d + 1]
            ids = indices[start:stop]
            cts = data[start:stop]
            phinorm = token_weight[start:stop]
            iterations[d] = _lda_doc(ids, cts, gamma[d], exp_theta[d], phinorm, doc_counts[d], model, work)
            if want_sstats:
                for j in range(stop - start):
                    phinorm[j] = cts[j] / phinorm[j]
            taken = _fetch_add(next_doc, 1)
    if not want_sstats:
        return np.zeros((1, n_topics)), iterations
    return _lda_sstats(indptr, indices, token_weight, exp_theta, exp_elog_beta_t, n_workers), iterations


@njit(parallel=True, cache=True)
def _lda_sstats(indptr, indices, token_weight, exp_theta, exp_elog_beta_t, n_workers):
    """sstats[k, w] = exp_beta_kw sum_d token_weight_dw exp_theta_dk (K x V): ``_sum_by_word`` with the product
    by exp E[log beta] taken in the same parallel loop (the same single rounding as multiplying afterwards).
    Words go in blocks to whichever worker is free (a frequent word costs many times a rare one)."""
    n_words, n_topics = exp_elog_beta_t.shape
    word_start, token_of, doc_of = _group_by_word(indptr, indices, n_words)
    out = np.empty((n_topics, n_words))
    n_blocks = (n_words + WORD_BLOCK - 1) // WORD_BLOCK
    next_block = np.zeros(1, dtype=np.int64)
    for worker in prange(n_workers):
        row = np.empty(n_topics)
        block = _fetch_add(next_block, 1)
        while block < n_blocks:
            for w in range(block * WORD_BLOCK, min(n_words, (block + 1) * WORD_BLOCK)):
                for k in range(n_topics):
                    row[k] = 0.0
                for q in range(word_start[w], word_start[w + 1]):
                    weight = token_weight[token_of[q]]
                    source = exp_theta[doc_of[q]]
                    for k in range(n_topics):
                        row[k] += weight * source[k]
                beta = exp_elog_beta_t[w]
                for k in range(n_topics):
                    out[k, w] = row[k] * beta[k]
            block = _fetch_add(next_block, 1)
    return out


def lda_e_step(counts: sp.csr_matrix, exp_elog_beta: np.ndarray, alpha, max_iter: int = 100, tol: float = 1e-3,
               gamma: np.ndarray | None = None, want_sstats: bool = True, skip_margin: float = SKIP_MARGIN,
               diagnostics: dict | None = None, word_major: bool = False):
    """Fit (gamma, phi) for each document of ``counts`` with the topics fixed.

    Returns ``gamma`` (n_docs x K) and ``sstats`` (K x V), sum_d n_dw phi_dwk, the statistic of
    Hoffman et al. 2010, eq. 5 / Alg. 2 (already multiplied by exp E[log beta]), and the
    iterations each document used. ``gamma`` starts at 1 for every topic (Alg. 1 and 2).

    With ``word_major``, ``exp_elog_beta`` is given V x K (``exp_dirichlet_expectation_t``), the layout the kernel
    reads, and is not transposed (a K x V pass per call that a caller keeping that layout saves).

    ``skip_margin`` scales the bound at which topics are chosen to be skipped (see SKIP_EPS); it changes
    only the speed, never the result, which is what lets a test force the fall-back path. If given,
    ``diagnostics`` receives the totals "gathers", "reused_sets" (active sets swept from the last gather's copy)
    and "fallback_sweeps" (sweeps redone over all topics), "dense_sweeps" and "sparse_sweeps" (sweeps over all K
    topics and over the active ones) and "active_topics_swept" (the active topics, summed over the sparse sweeps).
    """
    if not skip_margin > 0:
        raise ValueError(f"skip_margin must be > 0, got {skip_margin!r}")
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    words_axis = 0 if word_major else 1
    if np.ndim(exp_elog_beta) != 2 or np.shape(exp_elog_beta)[words_axis] != counts.shape[1]:  # the kernel does not check bounds
        raise ValueError(f"lda_e_step: exp_elog_beta must be {'V x K' if word_major else 'K x V'} with V = "
                         f"{counts.shape[1]} (the counts' columns), got shape {np.shape(exp_elog_beta)}")
    n_topics = exp_elog_beta.shape[1 - words_axis]
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    gamma = np.ones((n_docs, n_topics)) if gamma is None else np.array(gamma, dtype=np.float64, copy=True)
    exp_elog_beta_t = np.ascontiguousarray(exp_elog_beta, dtype=np.float64)
    if not word_major:
        exp_elog_beta_t = _transpose(exp_elog_beta_t)
    doc_counts = np.zeros((n_docs, 5), dtype=np.int64)
    sstats, iterations = _lda_e_step(
        counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data.astype(np.float64),
        exp_elog_beta_t, alpha, gamma, int(max_iter), float(tol), bool(want_sstats), numba.get_num_threads(),
        _longest_first(counts), float(skip_margin), doc_counts,
    )
    if diagnostics is not None:
        gathers, fallbacks, reuses, dense, active = doc_counts.sum(axis=0)
        diagnostics["gathers"] = int(gathers)
        diagnostics["fallback_sweeps"] = int(fallbacks)
        diagnostics["reused_sets"] = int(reuses)
        diagnostics["dense_sweeps"] = int(dense)  # over all K topics (the first sweeps, and fall-backs)
        diagnostics["sparse_sweeps"] = int(iterations.sum() + fallbacks - dense)
        diagnostics["active_topics_swept"] = int(active)  # summed over the sparse sweeps
    return gamma, sstats if want_sstats else None, iterations
