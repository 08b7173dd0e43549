"""The LDA per-document E-step (Hoffman, Blei and Bach 2010, Alg. 2 E step; eqs. 5-6), the hot loop of every
LDA-family method (online, batch, streaming and population VB). ``lda_reference.py`` beside it is the plain numpy
transcription the tests compare it with.

It is parallel over documents, then over words for the sufficient statistics; each word's statistic is summed
over documents in document order, so results are bit-identical for 1 or N threads.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from numba.core import types
from numba.experimental import structref

from .dense import _LOOP, N_CHUNKS, _dot, _dot4, _min_positive, _sum, _transpose
from .sparse import _group_by_word
from .special import _digamma_one_division, _digamma_parts, _exp_elog_theta, _exp_theta_block


@njit(**_LOOP)
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


@njit(**_LOOP)
def _gather_topics(ids, exp_elog_beta_t, topics, sub):
    """sub[a, j] = exp_beta_{topics_a, ids_j}: the document's columns of some topics, topic-major (each row
    contiguous over the words). Eight words at a time, so each store of a row is eight contiguous doubles."""
    n_ids = ids.shape[0]
    j = 0
    while j + 8 <= n_ids:
        r0, r1, r2, r3 = (exp_elog_beta_t[ids[j]], exp_elog_beta_t[ids[j + 1]], exp_elog_beta_t[ids[j + 2]],
                          exp_elog_beta_t[ids[j + 3]])
        r4, r5, r6, r7 = (exp_elog_beta_t[ids[j + 4]], exp_elog_beta_t[ids[j + 5]], exp_elog_beta_t[ids[j + 6]],
                          exp_elog_beta_t[ids[j + 7]])
        for a in range(topics.shape[0]):
            k = topics[a]
            row = sub[a]
            row[j], row[j + 1], row[j + 2], row[j + 3] = r0[k], r1[k], r2[k], r3[k]
            row[j + 4], row[j + 5], row[j + 6], row[j + 7] = r4[k], r5[k], r6[k], r7[k]
        j += 8
    while j < n_ids:
        r0 = exp_elog_beta_t[ids[j]]
        for a in range(topics.shape[0]):
            sub[a, j] = r0[topics[a]]
        j += 1


@njit(**_LOOP)
def _topic_sweep(cts, sub, rows, theta, new_gamma, phinorm, weight, scratch):
    """``_gamma_sweep`` over the topics whose columns are sub[rows_a] (topic-major, ``_gather_topics``).

    The words are the vector lanes: phinorm_w for all words (four topic rows per pass), then n_w / phinorm_w,
    then one dot product per topic, so no per-word horizontal sums or scalar divisions, which dominate a
    word-major sweep over a few topics. Returns sum_w n_w / phinorm_w and min_w phinorm_w.
    """
    n_words = phinorm.shape[0]
    n = rows.shape[0]
    for j in range(n_words):
        phinorm[j] = 1e-100
    a = 0
    while a + 4 <= n:
        t0, t1, t2, t3 = theta[a], theta[a + 1], theta[a + 2], theta[a + 3]
        s0, s1, s2, s3 = sub[rows[a]], sub[rows[a + 1]], sub[rows[a + 2]], sub[rows[a + 3]]
        for j in range(n_words):
            phinorm[j] += (t0 * s0[j] + t1 * s1[j]) + (t2 * s2[j] + t3 * s3[j])
        a += 4
    while a < n:
        t0 = theta[a]
        s0 = sub[rows[a]]
        for j in range(n_words):
            phinorm[j] += t0 * s0[j]
        a += 1
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


@njit(**_LOOP)
def _update_gamma(alpha, gamma, exp_theta, new_gamma, position):
    """gamma_k = alpha_k + exp_theta_k new_gamma_k (alpha_k for a skipped topic); returns sum_k |change|."""
    change = 0.0
    for k in range(gamma.shape[0]):
        a = position[k]
        value = alpha[k] + exp_theta[a] * new_gamma[a] if a >= 0 else alpha[k]  # gamma = alpha + sum_w n_w phi_w
        change += abs(value - gamma[k])
        gamma[k] = value
    return change


@njit(**_LOOP)
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


# -- one document's E step, and the workspace it runs in ---------------------------------------------------------
# Its helpers are inlined into ``_lda_doc`` in numba's IR: called, each would take the workspace's 13 arrays as
# separate arguments, which cost more than a sparse iteration's arithmetic (e3/e15 were 15-25% slower).
_INLINE = dict(_LOOP, inline="always")
Topics = namedtuple("Topics", ["exp_elog_beta_t", "word_total", "alpha", "exp_psi_alpha"])
Topics.__doc__ = """What every document's E step reads: exp E[log beta] as V x K rows, word_total_w = sum_k exp_beta_kw
(the first sweep from gamma = 1), alpha, and exp(psi(alpha_k)) (bounds exp_theta_k of a topic left at alpha_k)."""


Workspace = namedtuple("Workspace", [
    "new_gamma", "topic_max", "bits", "position", "active", "theta_active", "gamma_active", "sub", "sub_row",
    "active_row", "phinorm", "weight", "scratch"])
Workspace.__doc__ = """One thread's scratch arrays for ``_lda_doc`` (K topics, L the longest document's distinct words): new_gamma
(K) sum_w n_w exp_beta_kw / phinorm_w of the last sweep (active topics first when sparse); topic_max (K) max_w
exp_beta_kw over the document; bits (K + LANES, int64) ``_exp_theta_block``'s powers of 2; position (K) topic k's
place in the active set, -1 if skipped; active (K) the active topics; theta_active, gamma_active (K + LANES) their
exp_theta and gamma, padded; sub (L K) a topic-major copy of some topics' columns of the document, sub_row (K) topic
k's row in it (-1: not in it), active_row (K) the row of active topic a; phinorm, weight (L) per-word scratch;
scratch (1, int64). A tuple, not a structref: reading an array from a structref costs a reference count."""


@structref.register
class ActiveSetType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class ActiveSet(structref.StructRefProxy):
    """The state of a document's active topics (a numba structref of scalars): sparse (sweeping the active set),
    fresh (its first sweep: the topics just dropped may not be at alpha yet), n_active, n_sub (rows in the copy),
    lanes (n_active rounded up to LANES); the last sweep's token_sum = sum_w n_w / phinorm_w and min_phinorm =
    min_w phinorm_w; for the skipped topics, scale = exp(-psi(sum gamma)) rounded up, skipped_max = max_k
    exp(psi(alpha_k)) topic_max_k / alpha_k, skipped_mass = sum_k exp(psi(alpha_k)) topic_max_k, skipped_alpha =
    sum_k alpha_k; and the counts gathers, fallbacks, reuses (``lda_e_step``'s diagnostics)."""


structref.define_proxy(ActiveSet, ActiveSetType, [
    "sparse", "fresh", "n_active", "n_sub", "lanes", "token_sum", "min_phinorm", "scale", "skipped_max",
    "skipped_mass", "skipped_alpha", "gathers", "fallbacks", "reuses"])


@njit(cache=True, nogil=True)
def _new_workspace(n_topics, longest):
    int_k = np.empty(n_topics, dtype=np.int64)
    ws = Workspace(np.empty(n_topics), np.empty(n_topics), np.empty(n_topics + LANES, dtype=np.int64), int_k.copy(),
                   int_k.copy(), np.empty(n_topics + LANES), np.empty(n_topics + LANES), np.empty(longest * n_topics),
                   int_k.copy(), int_k.copy(), np.empty(longest), np.empty(longest), np.empty(1, dtype=np.int64))
    return ws, ActiveSet(False, False, 0, 0, 0, 0.0, np.inf, 0.0, 0.0, 0.0, 0.0, 0, 0, 0)


@njit(**_INLINE)
def _start_document(ws, st, n_topics):
    """Every topic active, read straight from exp_elog_beta_t (full sweeps); no copy of columns yet."""
    sub_row, position = ws.sub_row, ws.position
    for k in range(n_topics):
        sub_row[k] = -1
        position[k] = k
    st.n_sub = 0
    st.lanes = n_topics
    st.n_active = n_topics
    st.sparse = False
    st.fresh = False
    st.token_sum = 0.0
    st.min_phinorm = np.inf
    st.scale = 0.0
    st.skipped_max = 0.0
    st.skipped_mass = 0.0
    st.skipped_alpha = 0.0


@njit(**_INLINE)
def _set_still_holds(exp_theta, topics, ws, st, threshold):
    """True if the skipped topics stay below the bound and at least 3/4 of the active ones stay above it."""
    if not (st.scale * st.token_sum * st.skipped_max < threshold
            and st.scale * st.skipped_mass < threshold * st.min_phinorm):
        return False
    active, topic_max, alpha, token_sum = ws.active, ws.topic_max, topics.alpha, st.token_sum
    keep = 0
    for a in range(st.n_active):
        k = active[a]
        if exp_theta[k] * topic_max[k] * token_sum >= threshold * alpha[k]:
            keep += 1
    return not keep < 0.75 * st.n_active


@njit(**_INLINE)
def _all_topics(gamma, exp_theta, ws, st):
    """Back to full sweeps: exp_theta of every topic (eq. 6), every topic active."""
    _exp_elog_theta(gamma, exp_theta, ws.bits)
    position = ws.position
    for k in range(gamma.shape[0]):
        position[k] = k
    st.sparse = False
    st.fresh = False


@njit(**_INLINE)
def _activate(ids, gamma, exp_theta, topics, ws, st, threshold):
    """The topics above the bound become the active set, with their exact exp_theta and the skipped ones' sums;
    their columns come from the last copy if it has them all, else are gathered afresh (``_gather_topics``)."""
    n_topics = gamma.shape[0]
    n_ids = ids.shape[0]
    alpha, exp_psi_alpha, topic_max, token_sum = topics.alpha, topics.exp_psi_alpha, ws.topic_max, st.token_sum
    position, active, sub_row, theta_active = ws.position, ws.active, ws.sub_row, ws.theta_active
    psi_total = _digamma_one_division(np.sum(gamma))
    n_active = 0
    skipped_max = 0.0
    skipped_mass = 0.0
    skipped_alpha = 0.0
    for k in range(n_topics):
        term = exp_theta[k] * topic_max[k]
        if term * token_sum >= threshold * alpha[k]:
            if st.sparse and position[k] < 0:  # exp_theta_k was only a bound: make it exact
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
    gamma_active = ws.gamma_active
    for a in range(n_active, lanes):
        gamma_active[a] = 1.0
    reuse = True  # the copy has every kept topic: no gather
    for a in range(n_active):
        reuse = reuse and sub_row[active[a]] >= 0
    if not reuse:
        _gather_topics(ids, topics.exp_elog_beta_t, active[:n_active], ws.sub[:n_active * n_ids].reshape((n_active, n_ids)))
        st.n_sub = n_active
        for k in range(n_topics):
            sub_row[k] = -1
        for a in range(n_active):
            sub_row[active[a]] = a
        st.gathers += 1
    else:
        st.reuses += 1
    active_row = ws.active_row
    for a in range(n_active):
        active_row[a] = sub_row[active[a]]
    st.n_active = n_active
    st.lanes = lanes
    st.skipped_max = skipped_max
    st.skipped_mass = skipped_mass
    st.skipped_alpha = skipped_alpha
    st.sparse = True
    st.fresh = True


@njit(**_INLINE)
def _choose_active_topics(ids, gamma, exp_theta, topics, ws, st, threshold):
    """Before a sweep, from the last one's bound: which topics can move gamma_k or phinorm_w by ``threshold``
    relative (see SKIP_EPS). The active set is kept while ``_set_still_holds``; else chosen again: gathered
    (``_activate``) when few topics are active and the skipped mass is small, else all topics."""
    n_topics = gamma.shape[0]
    alpha, topic_max, token_sum = topics.alpha, ws.topic_max, st.token_sum
    if st.sparse and not st.fresh:  # the usual case: only the active topics can newly drop out
        if _set_still_holds(exp_theta, topics, ws, st, threshold):
            return
        position, exp_psi_alpha, scale = ws.position, topics.exp_psi_alpha, st.scale
        for k in range(n_topics):  # a skipped topic: exp_theta_k <= exp(psi(alpha_k)) exp(-psi(sum gamma))
            if position[k] < 0:
                exp_theta[k] = exp_psi_alpha[k] * scale
    keep = 0
    mass = 0.0
    for k in range(n_topics):
        term = exp_theta[k] * topic_max[k]
        if term * token_sum >= threshold * alpha[k]:
            keep += 1
        else:
            mass += term
    if keep > SPARSE_FRACTION * n_topics or not mass < threshold * st.min_phinorm:
        if st.sparse:
            _all_topics(gamma, exp_theta, ws, st)
    else:
        _activate(ids, gamma, exp_theta, topics, ws, st, threshold)


@njit(**_INLINE)
def _sweep_active(cts, exp_theta, topics, ws, st):
    """``_topic_sweep`` over the active set's copy; True if the skipped topics provably add nothing (SKIP_EPS)."""
    n_ids = cts.shape[0]
    n_active = st.n_active
    copy = ws.sub[:st.n_sub * n_ids].reshape((st.n_sub, n_ids))
    token_sum, min_phinorm = _topic_sweep(cts, copy, ws.active_row[:n_active], ws.theta_active[:n_active],
                                          ws.new_gamma[:n_active], ws.phinorm[:n_ids], ws.weight[:n_ids], ws.scratch)
    st.token_sum = token_sum
    st.min_phinorm = min_phinorm
    if st.fresh:
        return _skipped_ok(exp_theta, ws.topic_max, ws.position, topics.alpha, token_sum, min_phinorm, SKIP_EPS)
    return st.scale * token_sum * st.skipped_max < SKIP_EPS and st.scale * st.skipped_mass < SKIP_EPS * min_phinorm


@njit(**_INLINE)
def _update_active(gamma, exp_theta, topics, ws, st):
    """gamma_k = alpha_k + exp_theta_k new_gamma_k over the active set (the skipped stay at alpha_k), then their
    exp_theta (eq. 6) with psi(sum gamma) over all topics; returns sum_k |change in gamma_k|."""
    alpha, active, theta_active, new_gamma = topics.alpha, ws.active, ws.theta_active, ws.new_gamma
    n_active = st.n_active
    if st.fresh:
        change = _update_gamma(alpha, gamma, theta_active, new_gamma, ws.position)
        st.fresh = False
    else:  # the skipped gamma_k stay at alpha_k: zero change
        change = 0.0
        for a in range(n_active):
            k = active[a]
            value = alpha[k] + theta_active[a] * new_gamma[a]
            change += abs(value - gamma[k])
            gamma[k] = value
    total = st.skipped_alpha
    for a in range(n_active):
        total += gamma[active[a]]
    psi_total = _digamma_one_division(total)
    st.scale = math.exp(-psi_total) * (1.0 + 2.0 ** -40)
    gamma_active = ws.gamma_active
    for a in range(n_active):
        gamma_active[a] = gamma[active[a]]
    lanes = st.lanes
    _exp_theta_block(gamma_active[:lanes], psi_total, theta_active[:lanes], ws.bits)  # padding: gamma 1
    for a in range(n_active, lanes):
        theta_active[a] = 0.0
    for a in range(n_active):
        exp_theta[active[a]] = theta_active[a]
    return change


@njit(**_INLINE)
def _sweep_all(ids, cts, exp_theta, topics, ws, st, first):
    """``_gamma_sweep`` over all topics; the first sweep also records topic_max, and from gamma = 1 (every
    exp_theta_k equal) needs no dot products."""
    uniform = first
    if uniform:
        for k in range(exp_theta.shape[0]):
            uniform = uniform and exp_theta[k] == exp_theta[0]
    st.token_sum, st.min_phinorm = _gamma_sweep(ids, cts, topics.exp_elog_beta_t, exp_theta, ws.new_gamma,
                                                ws.topic_max, first, topics.word_total, uniform)


@njit(**_LOOP)
def _lda_doc(ids, cts, topics, gamma, exp_theta, ws, st, max_iter, tol, threshold):
    """Coordinate ascent on one document's (gamma, phi) with the topics fixed (Hoffman et al. 2010, Alg. 2 E step):
    until the mean |change in gamma| < tol, or max_iter times,
        phi_wk ∝ exp_theta_k exp_beta_kw           (a sweep; phi is never stored: phinorm_w = sum_k exp_theta_k exp_beta_kw)
        gamma_k = alpha_k + sum_w n_w phi_wk       (alpha_k + exp_theta_k new_gamma_k)
        exp_theta_k = exp(E[log theta_k])          (eq. 6)
    Once few topics are active (see SKIP_EPS) the sweep runs over a topic-major copy of their columns; a skipped
    topic has gamma_k = alpha_k exactly, as the full update rounds it. Returns the iterations used; ``exp_theta``
    belongs to the final gamma. ``threshold`` = SKIP_EPS * the caller's skip_margin.
    """
    n_topics = gamma.shape[0]
    _start_document(ws, st, n_topics)
    _exp_elog_theta(gamma, exp_theta, ws.bits)
    iterations = 0
    for it in range(max_iter):
        iterations = it + 1
        if it > 0:
            _choose_active_topics(ids, gamma, exp_theta, topics, ws, st, threshold)
        if st.sparse:
            if _sweep_active(cts, exp_theta, topics, ws, st):
                change = _update_active(gamma, exp_theta, topics, ws, st)
                if change / n_topics < tol:
                    break
                continue
            _all_topics(gamma, exp_theta, ws, st)  # the check failed: this sweep again over all topics
            st.fallbacks += 1
        _sweep_all(ids, cts, exp_theta, topics, ws, st, it == 0)
        change = _update_gamma(topics.alpha, gamma, exp_theta, ws.new_gamma, ws.position)
        _exp_elog_theta(gamma, exp_theta, ws.bits)
        if change / n_topics < tol:
            break
    if st.sparse:
        _exp_elog_theta(gamma, exp_theta, ws.bits)
    return iterations


@njit(**_LOOP)
def _doc_phinorm(ids, exp_theta, exp_elog_beta_t, phinorm):
    """phinorm_w = sum_k exp_theta_k exp_beta_kw at the final gamma, for the statistics (eq. 5's phi)."""
    for j in range(ids.shape[0]):
        phinorm[j] = _dot(exp_theta, exp_elog_beta_t[ids[j]]) + 1e-100


@njit(parallel=True, cache=True, fastmath={"contract"}, error_model="numpy")
def _lda_e_step(indptr, indices, data, exp_elog_beta_t, alpha, gamma, max_iter, tol, want_sstats, n_chunks,
                skip_margin, chunk_counts):
    """Documents in parallel; then sstats[:, w] = exp_beta_w sum_d (n_dw / phinorm_dw) exp_theta_d by
    ``_lda_sstats``, bit-identical for 1 or N threads."""
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
    topics = Topics(exp_elog_beta_t, word_total, alpha, exp_psi_alpha)
    threshold = SKIP_EPS * skip_margin
    bounds = np.linspace(0, n_docs, n_chunks + 1).astype(np.int64)
    for chunk in prange(n_chunks):  # small chunks: documents differ in cost, threads balance better
        ws, st = _new_workspace(n_topics, longest)
        for d in range(bounds[chunk], bounds[chunk + 1]):
            start, stop = indptr[d], indptr[d + 1]
            ids = indices[start:stop]
            cts = data[start:stop]
            iterations[d] = _lda_doc(ids, cts, topics, gamma[d], exp_theta[d], ws, st, max_iter, tol, threshold)
            if want_sstats:
                phinorm = token_weight[start:stop]
                _doc_phinorm(ids, exp_theta[d], exp_elog_beta_t, phinorm)
                for j in range(stop - start):
                    phinorm[j] = cts[j] / phinorm[j]
        chunk_counts[chunk, 0] = st.gathers
        chunk_counts[chunk, 1] = st.fallbacks
        chunk_counts[chunk, 2] = st.reuses
    if not want_sstats:
        return np.zeros((1, n_topics)), iterations
    return _lda_sstats(indptr, indices, token_weight, exp_theta, exp_elog_beta_t), iterations


@njit(parallel=True, cache=True)
def _lda_sstats(indptr, indices, token_weight, exp_theta, exp_elog_beta_t):
    """sstats[k, w] = exp_beta_kw sum_d token_weight_dw exp_theta_dk (K x V): ``_sum_by_word`` with the product
    by exp E[log beta] taken in the same parallel loop (the same single rounding as multiplying afterwards)."""
    n_words, n_topics = exp_elog_beta_t.shape
    word_start, token_of, doc_of = _group_by_word(indptr, indices, n_words)
    out = np.empty((n_topics, n_words))
    bounds = np.linspace(0, n_words, N_CHUNKS + 1).astype(np.int64)
    for chunk in prange(N_CHUNKS):
        row = np.empty(n_topics)
        for w in range(bounds[chunk], bounds[chunk + 1]):
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
    return out


def lda_e_step(counts: sp.csr_matrix, exp_elog_beta: np.ndarray, alpha, max_iter: int = 100, tol: float = 1e-3,
               gamma: np.ndarray | None = None, want_sstats: bool = True, skip_margin: float = SKIP_MARGIN,
               diagnostics: dict | None = None):
    """Fit (gamma, phi) for each document of ``counts`` with the topics fixed.

    Returns ``gamma`` (n_docs x K) and ``sstats`` (K x V), sum_d n_dw phi_dwk, the statistic of
    Hoffman et al. 2010, eq. 5 / Alg. 2 (already multiplied by exp E[log beta]), and the
    iterations each document used. ``gamma`` starts at 1 for every topic (Alg. 1 and 2).

    ``skip_margin`` scales the bound at which topics are chosen to be skipped (see SKIP_EPS); it changes
    only the speed, never the result, which is what lets a test force the fall-back path. If given,
    ``diagnostics`` receives the totals "gathers", "reused_sets" (active sets swept from the last gather's copy)
    and "fallback_sweeps" (sweeps redone over all topics).
    """
    if not skip_margin > 0:
        raise ValueError(f"skip_margin must be > 0, got {skip_margin!r}")
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    n_topics = exp_elog_beta.shape[0]
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    gamma = np.ones((n_docs, n_topics)) if gamma is None else np.array(gamma, dtype=np.float64, copy=True)
    exp_elog_beta_t = _transpose(np.ascontiguousarray(exp_elog_beta, dtype=np.float64))
    n_chunks = max(1, min(N_CHUNKS, n_docs))
    chunk_counts = np.zeros((n_chunks, 3), dtype=np.int64)
    sstats, iterations = _lda_e_step(
        counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data.astype(np.float64),
        exp_elog_beta_t, alpha, gamma, int(max_iter), float(tol), bool(want_sstats), n_chunks,
        float(skip_margin), chunk_counts,
    )
    if diagnostics is not None:
        gathers, fallbacks, reuses = chunk_counts.sum(axis=0)
        diagnostics["gathers"] = int(gathers)
        diagnostics["fallback_sweeps"] = int(fallbacks)
        diagnostics["reused_sets"] = int(reuses)
    return gamma, sstats if want_sstats else None, iterations
