"""Shared numba kernels: digamma expectations and the LDA per-document E-step.

The E-step is the hot loop of every LDA-family method (online, batch, streaming and
population VB), so it lives here once. It is parallel over documents, then over words for
the sufficient statistics; each word's statistic is summed over documents in document
order, so results are bit-identical for 1 or N threads.
"""
from __future__ import annotations

import math

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

N_CHUNKS = 64  # document chunks the threads share out; results do not depend on it


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


@njit(cache=True, nogil=True, inline="always")
def _digamma_parts(x: float):
    """(y, c) with Psi(x) = log(y) - c, for x > 0; ``digamma`` with the small-x recurrence in one division.

    For x < 6, psi(x) = psi(x + 6) - sum_{i<6} 1/(x + i), and that sum is Q'(x)/Q(x) with
    Q(x) = prod_{i<6} (x + i), built by the product rule: six divisions become one. Returning log's
    argument lets exp(Psi(x) - s) be taken as y * exp(-c - s), one exp and no log. Branch-free (selects,
    not an ``if``), so that loops calling it, such as ``_exp_theta_block``, are vectorised.
    """
    q = 1.0
    dq = 0.0
    for i in range(6):
        y = x + i
        dq = dq * y + q
        q = q * y
    small = x < 6.0
    shift = dq / q if small else 0.0
    x = x + 6.0 if small else x
    inv = 1.0 / x
    inv2 = inv * inv
    c = 0.5 * inv + inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132)))))
    return x, c + shift


@njit(cache=True, nogil=True, inline="always")
def _digamma_one_division(x: float) -> float:
    y, c = _digamma_parts(x)
    return math.log(y) - c


@njit(parallel=True, cache=True)
def exp_dirichlet_expectation(param: np.ndarray) -> np.ndarray:
    """exp(E[log x]) row-wise; the form the E-step multiplies with (each row by ``_exp_theta_block``)."""
    n, k = param.shape
    out = np.empty((n, k))
    for i in prange(n):
        total = 0.0
        for j in range(k):
            total += param[i, j]
        _exp_theta_block(param[i], _digamma_one_division(total), out[i], np.empty(k, dtype=np.int64))
    return out


@njit(parallel=True, cache=True)
def natural_gradient_step(lam, rho, eta, scale, sstats):
    """(1 - rho) lam + rho (eta + scale sstats): the online VB update of lambda (Hoffman et al. 2010, Alg. 2),
    in one parallel pass with numpy's operation order (so the same bits as the two-line numpy form)."""
    n_rows, n_cols = lam.shape
    out = np.empty((n_rows, n_cols))
    for k in prange(n_rows):
        for w in range(n_cols):
            out[k, w] = (1 - rho) * lam[k, w] + rho * (eta + scale * sstats[k, w])
    return out


# The E step's flags. Only the K-long dot products get ``reassoc`` (LLVM needs it to vectorise a
# sum; the sums are reordered, so results move in the last bits, never in meaning). The callers
# must not have it: with reassoc LLVM rewrites (n / s) * row_k as n * row_k / s, a division per
# topic. ``error_model="numpy"`` drops the zero-division checks (phinorm carries a 1e-100 guard).
_DOT = dict(cache=True, nogil=True, fastmath={"reassoc", "contract"}, error_model="numpy")
_LOOP = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")


# exp(x) = 2^m exp(r), m = round(x / ln 2), |r| <= ln(2) / 2, with exp(r) a degree-13 Taylor polynomial
# (truncation < 5e-18 relative): unlike libm's exp, LLVM vectorises it. Within 2 ulp of libm (95% identical).
_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 with its last 32 bits zero: m * _LN2_HI is exact for |m| < 2^20
_LN2_LO = 1.9082149292705877e-10  # ln 2 - _LN2_HI


@njit(**_LOOP)
def _exp_theta_block(gamma, psi_total, exp_theta, bits):
    """exp_theta_k = exp(psi(gamma_k) - psi_total), as ``_digamma_parts`` and exp, for all k at once.

    Written without branches (``_digamma_parts`` is inlined) so that the loop is vectorised (fastest when
    len(gamma) is a multiple of 8); ``bits`` (int64, at least as long) holds 2^m. Results below 2^-1021 (exp argument < -707, e.g.
    gamma_k ~ alpha = 1e-3) are redone with libm, which also handles subnormals and underflow to 0.
    """
    n = gamma.shape[0]
    scale = bits[:n].view(np.float64)
    for k in range(n):
        x, c = _digamma_parts(gamma[k])
        t = -c - psi_total
        m = max(math.floor(t * _LOG2E + 0.5), -1022.0)
        r = (t - m * _LN2_HI) - m * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        bits[k] = (np.int64(m) + 1023) << 52
        exp_theta[k] = x * p
    low = 0
    for k in range(n):  # a separate loop, or the libm call would keep the one above from being vectorised
        exp_theta[k] *= scale[k]
        low += bits[k] == 1 << 52
    if low:
        for k in range(n):
            if bits[k] == 1 << 52:
                y, c = _digamma_parts(gamma[k])
                exp_theta[k] = y * math.exp(-c - psi_total)


@njit(**_LOOP)
def _exp_elog_theta(gamma, exp_theta, bits):
    """exp(E[log theta]) = exp(psi(gamma_k) - psi(sum gamma)) (Hoffman et al. 2010, eq. 6)."""
    total = 0.0
    for k in range(gamma.shape[0]):
        total += gamma[k]
    _exp_theta_block(gamma, _digamma_one_division(total), exp_theta, bits)


@njit(**_DOT)
def _dot(a, b):
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


@njit(**_DOT)
def _dot4(a, b0, b1, b2, b3):
    """Four dot products in one sweep over ``a``: independent sums keep the FMA units busy."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    for k in range(a.shape[0]):
        s0 += a[k] * b0[k]
        s1 += a[k] * b1[k]
        s2 += a[k] * b2[k]
        s3 += a[k] * b3[k]
    return s0, s1, s2, s3


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


@njit(**_DOT)
def _sum(x):
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j]
    return s


@njit(**_LOOP)
def _min_positive(x, scratch):
    """min(x) for x > 0, taken over the bit patterns (int64 order is float order for positive doubles):
    LLVM vectorises an integer min, not a float one. ``scratch`` is one int64."""
    if x.shape[0] == 0:
        return np.inf
    bits = x.view(np.int64)
    low = bits[0]
    for j in range(bits.shape[0]):
        low = min(low, bits[j])
    scratch[0] = low
    return scratch.view(np.float64)[0]


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


@njit(**_LOOP)
def _lda_doc(ids, cts, exp_elog_beta_t, word_total, alpha, exp_psi_alpha, gamma, max_iter, tol, exp_theta, new_gamma,
             phinorm, want_phinorm, work, skip_margin, counts):
    """Coordinate ascent on one document's (gamma, phi) with topics fixed (Hoffman et al. 2010, Alg. 2 E step).

    phi is never stored: phi_wk = exp_theta_k * exp_beta_kw / phinorm_w. On return ``exp_theta``
    (and, if asked, ``phinorm``) belong to the final gamma. Returns the iterations used.
    Once few topics are active (see SKIP_EPS), the sweep runs over a topic-major copy of their columns
    (``_topic_sweep``); when the set shrinks, the copy is reused, re-gathered only for a topic not in it.
    A skipped topic has gamma_k = alpha_k, so exp_theta_k <= exp(psi(alpha_k)) exp(-psi(sum gamma)).
    ``counts`` receives (gathers, fall-back sweeps redone over all topics, sets reusing the copy) for diagnostics.
    """
    n_topics = gamma.shape[0]
    n_ids = ids.shape[0]
    position, active, sub_row, active_row, topic_max, theta_active, sub, gamma_active, bits, doc_phinorm, weight, \
        scratch = work
    doc_phinorm = doc_phinorm[:n_ids]
    weight = weight[:n_ids]
    n_sub = 0  # topics in the gathered copy; topic k is its row sub_row[k] (-1: not in it)
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
    threshold = SKIP_EPS * skip_margin
    gathers = 0
    reuses = 0
    fallbacks = 0
    _exp_elog_theta(gamma, exp_theta, bits)
    iterations = 0
    for it in range(max_iter):
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
            copy = sub[:n_sub * n_ids].reshape((n_sub, n_ids))
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
                if change / n_topics < tol:
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
        token_sum, min_phinorm = _gamma_sweep(ids, cts, exp_elog_beta_t, exp_theta, new_gamma, topic_max, it == 0,
                                              word_total, uniform)  # uniform: the first sweep from gamma = 1
        change = _update_gamma(alpha, gamma, exp_theta, new_gamma, position)
        _exp_elog_theta(gamma, exp_theta, bits)
        if change / n_topics < tol:
            break
    if sparse:
        _exp_elog_theta(gamma, exp_theta, bits)
    if want_phinorm:
        for j in range(n_ids):
            phinorm[j] = _dot(exp_theta, exp_elog_beta_t[ids[j]]) + 1e-100
    counts[0] = gathers
    counts[1] = fallbacks
    counts[2] = reuses
    return iterations


@njit(parallel=True, cache=True, fastmath={"contract"}, error_model="numpy")
def _lda_e_step(indptr, indices, data, exp_elog_beta_t, alpha, gamma, max_iter, tol, want_sstats, n_chunks,
                skip_margin, doc_counts):
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
    bounds = np.linspace(0, n_docs, n_chunks + 1).astype(np.int64)
    for chunk in prange(n_chunks):  # small chunks: documents differ in cost, threads balance better
        new_gamma = np.empty(n_topics)
        work = (np.empty(n_topics, dtype=np.int64), np.empty(n_topics, dtype=np.int64),
                np.empty(n_topics, dtype=np.int64), np.empty(n_topics, dtype=np.int64), np.empty(n_topics),
                np.empty(n_topics + LANES), np.empty(longest * n_topics), np.empty(n_topics + LANES),
                np.empty(n_topics + LANES, dtype=np.int64), np.empty(longest), np.empty(longest),
                np.empty(1, dtype=np.int64))
        for d in range(bounds[chunk], bounds[chunk + 1]):
            start, stop = indptr[d], indptr[d + 1]
            ids = indices[start:stop]
            cts = data[start:stop]
            phinorm = token_weight[start:stop]
            iterations[d] = _lda_doc(ids, cts, exp_elog_beta_t, word_total, alpha, exp_psi_alpha, gamma[d], max_iter,
                                     tol, exp_theta[d], new_gamma, phinorm, want_sstats, work, skip_margin, doc_counts[d])
            if want_sstats:
                for j in range(stop - start):
                    phinorm[j] = cts[j] / phinorm[j]
    if not want_sstats:
        return np.zeros((1, n_topics)), iterations
    return _lda_sstats(indptr, indices, token_weight, exp_theta, exp_elog_beta_t), iterations


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
    doc_counts = np.zeros((n_docs, 3), dtype=np.int64)
    sstats, iterations = _lda_e_step(
        counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data.astype(np.float64),
        exp_elog_beta_t, alpha, gamma, int(max_iter), float(tol), bool(want_sstats), n_chunks,
        float(skip_margin), doc_counts,
    )
    if diagnostics is not None:
        gathers, fallbacks, reuses = doc_counts.sum(axis=0)
        diagnostics["gathers"] = int(gathers)
        diagnostics["fallback_sweeps"] = int(fallbacks)
        diagnostics["reused_sets"] = int(reuses)
    return gamma, sstats if want_sstats else None, iterations


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


# -- gamma-Poisson local steps (Paisley, Blei and Jordan 2014, sec. 11.5) ----------------------------
def bnmf_local_step(counts: sp.csr_matrix, exp_elog_beta: np.ndarray, weight_rate: np.ndarray, a0: float,
                    max_iter: int = 100, tol: float = 1e-3, shape: np.ndarray | None = None, want_sstats: bool = True):
    """Bayesian NMF local step: iterate eqs. 11.24 and 11.28 per document (11.29 is constant), topics fixed.

    The mathematics is the LDA E-step's. With b_k = b0 + sum_v E[beta_vk] (eq. 11.29) the same for
    every document, p_k^(vd) ∝ exp(E ln beta_vk) exp(psi(a_kd)) / b_k (eq. 11.24), and a_kd = a0 +
    sum_v X_vd p_k^(vd) (eq. 11.28): LDA's (phi, gamma) update with alpha = a0 and topics
    exp(E ln beta_vk) / b_k. LDA's extra factor exp(-psi(sum_k gamma_k)) is the same for every k and
    cancels in the normalisation of p, so ``_lda_e_step`` runs unchanged.

    ``exp_elog_beta`` is K x V, exp(psi(g_vk) - ln h_vk); ``weight_rate`` is b_k. Returns the shapes
    a (n_docs x K), sum_d X_vd p_k^(vd) as K x V (the statistic of eqs. 11.25 and 11.33), iterations.
    """
    rate = np.asarray(weight_rate, dtype=np.float64)
    return lda_e_step(counts, exp_elog_beta / rate[:, None], a0, max_iter, tol, gamma=shape, want_sstats=want_sstats)


@njit(cache=True, nogil=True)
def _cnmf_doc_terms(ids, cts, exp_elog_beta_t, topic_mass, locations, u, alpha, scores, omega, phinorm, expected):
    """One document's part of the C-NMF objective at (u_d, alpha_d), with p^(vd) optimal (eq. 11.24).

    f = sum_v X_vd ln sum_k exp(E ln beta_vk + alpha_d + l_k'u_d) - sum_k S_k omega_kd - |u_d|^2 / 2,
    omega_kd = exp(alpha_d + l_k'u_d), S_k = sum_v E[beta_vk]: the terms of the bound (eqs. 11.13,
    11.23) that involve the document. Fills omega and expected_k = sum_v X_vd p_k^(vd).
    """
    n_topics, m = locations.shape
    top = -np.inf
    for k in range(n_topics):
        s = 0.0
        for i in range(m):
            s += locations[k, i] * u[i]
        scores[k] = s
        top = max(top, s)
    for k in range(n_topics):
        scores[k] = math.exp(scores[k] - top)  # exp(l_k'u_d - max), kept finite
        omega[k] = math.exp(alpha + top) * scores[k]
        expected[k] = 0.0
    value = 0.0
    for j in range(ids.shape[0]):
        row = exp_elog_beta_t[ids[j]]
        s = 0.0
        for k in range(n_topics):
            s += row[k] * scores[k]
        phinorm[j] = s + 1e-100
        value += cts[j] * (alpha + top + math.log(phinorm[j]))
        weight = cts[j] / phinorm[j]
        for k in range(n_topics):
            expected[k] += weight * row[k] * scores[k]
    for k in range(n_topics):
        value -= topic_mass[k] * omega[k]
    for i in range(m):
        value -= 0.5 * u[i] * u[i]
    return value


@njit(cache=True, nogil=True)
def _cnmf_best_alpha(topic_mass, locations, u, n_tokens):
    """alpha_d = ln sum_v X_vd - ln sum_k S_k exp(l_k'u_d) (eq. 11.32), computed stably."""
    n_topics, m = locations.shape
    top = -np.inf
    for k in range(n_topics):
        s = 0.0
        for i in range(m):
            s += locations[k, i] * u[i]
        top = max(top, s)
    total = 0.0
    for k in range(n_topics):
        s = 0.0
        for i in range(m):
            s += locations[k, i] * u[i]
        total += topic_mass[k] * math.exp(s - top)
    return math.log(n_tokens) - math.log(total) - top


@njit(cache=True, nogil=True)
def _cnmf_grad_u(locations, u, topic_mass, omega, expected, grad):
    """Eq. 11.31: sum_k (sum_v X_vd p_k^(vd) - S_k omega_kd) l_k - u_d."""
    n_topics, m = locations.shape
    for i in range(m):
        grad[i] = -u[i]
    for k in range(n_topics):
        coef = expected[k] - topic_mass[k] * omega[k]
        for i in range(m):
            grad[i] += coef * locations[k, i]


@njit(**_LOOP)
def _cnmf_doc_curvature(ids, cts, exp_elog_beta_t, topic_mass, locations_t, scores, omega, phinorm, expected,
                        neg_hessian, lbar, weight, scratch, spread):
    """Minus the Hessian in u_d of the objective with alpha_d profiled out (eq. 11.32) and p^(vd) optimal (eq. 11.24).

    With N = sum_v X_vd, q_k = S_k omega_kd / N (sum_k q_k = 1 at eq. 11.32's alpha_d) and mu_v = sum_k p_k^(vd) l_k
    the gradient is eq. 11.31 and
        -H = I + N Cov_q(l) - sum_v X_vd Cov_p(vd)(l)
           = I + sum_k (S_k omega_kd - sum_v X_vd p_k^(vd)) l_k l_k' - N lbar lbar' + sum_v X_vd mu_v mu_v',
    lbar = sum_k q_k l_k. The last term makes the objective non-concave in places (near u_d = 0 typically).
    Reads the state _cnmf_doc_terms left at (u_d, alpha_d); ``locations_t`` is L' (m x K); lbar (m), weight and
    scratch (K) and spread (m x the document's distinct words, column v = sqrt(X_vd) mu_v) are scratch.
    The sums are written as dot products over contiguous rows so that they vectorise.
    """
    m, n_topics = locations_t.shape
    n_tokens = 0.0
    for k in range(n_topics):
        weight[k] = topic_mass[k] * omega[k]  # N q_k
        n_tokens += weight[k]
    for i in range(m):
        lbar[i] = _dot(weight, locations_t[i]) / n_tokens
    for k in range(n_topics):
        weight[k] -= expected[k]  # S_k omega_kd - sum_v X_vd p_k^(vd)
    for i in range(m):
        li = locations_t[i]
        for k in range(n_topics):
            scratch[k] = weight[k] * li[k]
        for j in range(i + 1):
            neg_hessian[i, j] = _dot(scratch, locations_t[j]) - n_tokens * lbar[i] * lbar[j]
        neg_hessian[i, i] += 1.0
    n = ids.shape[0]
    for v in range(n):
        row = exp_elog_beta_t[ids[v]]
        scale = math.sqrt(cts[v]) / phinorm[v]
        for k in range(n_topics):
            scratch[k] = row[k] * scores[k] * scale  # sqrt(X_vd) p_k^(vd)
        i = 0
        while i + 4 <= m:
            s0, s1, s2, s3 = _dot4(scratch, locations_t[i], locations_t[i + 1], locations_t[i + 2], locations_t[i + 3])
            spread[i, v], spread[i + 1, v], spread[i + 2, v], spread[i + 3, v] = s0, s1, s2, s3
            i += 4
        for i in range(i, m):
            spread[i, v] = _dot(scratch, locations_t[i])
    for i in range(m):
        for j in range(i + 1):
            neg_hessian[i, j] += _dot(spread[i, :n], spread[j, :n])
            neg_hessian[j, i] = neg_hessian[i, j]


@njit(cache=True, nogil=True)
def _cholesky_solve(a, shift, b, chol, x):
    """x = (a + shift I)^-1 b by Cholesky; False (x unset) if a + shift I is not clearly positive definite."""
    m = a.shape[0]
    for j in range(m):
        s = a[j, j] + shift
        for p in range(j):
            s -= chol[j, p] * chol[j, p]
        if not s > 1e-8 * (a[j, j] + shift):  # a pivot lost to cancellation: treat as not positive definite
            return False
        chol[j, j] = math.sqrt(s)
        for i in range(j + 1, m):
            s = a[i, j]
            for p in range(j):
                s -= chol[i, p] * chol[j, p]
            chol[i, j] = s / chol[j, j]
    for i in range(m):
        s = b[i]
        for p in range(i):
            s -= chol[i, p] * x[p]
        x[i] = s / chol[i, i]
    for i in range(m - 1, -1, -1):
        s = x[i]
        for p in range(i + 1, m):
            s -= chol[p, i] * x[p]
        x[i] = s / chol[i, i]
    return True


@njit(cache=True, nogil=True)
def _cnmf_doc(ids, cts, exp_elog_beta_t, topic_mass, locations, locations_t, u, max_iter, tol,
              scores, omega, phinorm, expected, grad, trial, direction, neg_hessian, chol, lbar, weight, scratch, spread):
    """Maximise the C-NMF objective in u_d, alpha_d by eq. 11.32 after every step: the chapter's steepest
    ascent, then Newton steps from where it stops. Returns (alpha_d, steepest-ascent steps, Newton steps).

    Phase 1 is sec. 11.5.1's steepest ascent along eq. 11.31: the step length grows x1.5 after a step
    that raises the objective and halves (the step retried) after one that does not; it stops when an
    accepted step gains less than ``tol`` relative, typically with the gradient still far from 0.
    Phase 2 is a better optimiser of the same objective from that point, to the same fixed point (eq.
    11.31 = 0 at eq. 11.32's alpha_d; by the envelope theorem eq. 11.31 is the gradient of the objective
    with alpha_d profiled out): u_d has only m dimensions, so each step solves with -H
    (``_cnmf_doc_curvature``), shifted by tau I where it is not positive definite (Nocedal and Wright
    2006, Alg. 3.3: tau doubles from 1e-3 max_i |(-H)_ii| until the Cholesky factorisation succeeds),
    halved until the Armijo condition holds. It stops after a step whose Newton decrement
    grad'(-H)^-1 grad / 2 (the gain its quadratic model predicts) was at most ``tol`` relative to
    |objective|; near the optimum Newton converges quadratically, so that last step leaves grad ~0.
    Newton alone from u_d = 0 is not used: the objective is not concave in u_d (-H has a term
    - sum_v X_vd Cov_p(vd)(l)), and its long first steps reach a lower local maximum than the chapter's
    ascent for ~1% of documents; starting from the ascent's end point, every step only climbs.
    """
    m = u.shape[0]
    n_tokens = 0.0
    for j in range(cts.shape[0]):
        n_tokens += cts[j]
    alpha = _cnmf_best_alpha(topic_mass, locations, u, n_tokens)
    value = _cnmf_doc_terms(ids, cts, exp_elog_beta_t, topic_mass, locations, u, alpha, scores, omega, phinorm, expected)
    _cnmf_grad_u(locations, u, topic_mass, omega, expected, grad)
    step = 1.0 / (1.0 + n_tokens)
    ascent_steps = 0
    for it in range(max_iter):  # phase 1: steepest ascent (eq. 11.31)
        ascent_steps = it + 1
        for i in range(m):
            trial[i] = u[i] + step * grad[i]
        trial_alpha = _cnmf_best_alpha(topic_mass, locations, trial, n_tokens)
        trial_value = _cnmf_doc_terms(ids, cts, exp_elog_beta_t, topic_mass, locations, trial, trial_alpha,
                                      scores, omega, phinorm, expected)
        if trial_value >= value:
            for i in range(m):
                u[i] = trial[i]
            alpha = trial_alpha
            gain = trial_value - value
            value = trial_value
            _cnmf_grad_u(locations, u, topic_mass, omega, expected, grad)
            step *= 1.5
            if gain <= tol * abs(value):
                break
        else:
            step *= 0.5
            if step < 1e-14:
                break
    newton_steps = 0
    for it in range(max_iter):  # phase 2: damped Newton
        _cnmf_doc_terms(ids, cts, exp_elog_beta_t, topic_mass, locations, u, alpha, scores, omega, phinorm, expected)
        _cnmf_grad_u(locations, u, topic_mass, omega, expected, grad)
        _cnmf_doc_curvature(ids, cts, exp_elog_beta_t, topic_mass, locations_t, scores, omega, phinorm, expected,
                            neg_hessian, lbar, weight, scratch, spread)
        lowest, largest = np.inf, 0.0
        for i in range(m):
            lowest = min(lowest, neg_hessian[i, i])
            largest = max(largest, abs(neg_hessian[i, i]))
        floor = 1e-3 * largest
        shift = 0.0 if lowest > 0 else floor - lowest
        while not _cholesky_solve(neg_hessian, shift, grad, chol, direction):
            shift = max(2.0 * shift, floor)
        decrement = 0.0
        for i in range(m):
            decrement += grad[i] * direction[i]
        newton_steps = it + 1
        t = 1.0
        accepted = False
        for _ in range(50):
            for i in range(m):
                trial[i] = u[i] + t * direction[i]
            trial_alpha = _cnmf_best_alpha(topic_mass, locations, trial, n_tokens)
            trial_value = _cnmf_doc_terms(ids, cts, exp_elog_beta_t, topic_mass, locations, trial, trial_alpha,
                                          scores, omega, phinorm, expected)
            if trial_value >= value + 1e-4 * t * decrement:  # Armijo: a real ascent, not rounding
                accepted = True
                break
            t *= 0.5
        if not accepted:  # no ascent left at working precision
            break
        for i in range(m):
            u[i] = trial[i]
        alpha = trial_alpha
        value = trial_value
        if 0.5 * decrement <= tol * abs(value):
            break
    # omega and expected consistent with the final (u_d, alpha_d), for the global statistics
    _cnmf_doc_terms(ids, cts, exp_elog_beta_t, topic_mass, locations, u, alpha, scores, omega, phinorm, expected)
    return alpha, ascent_steps, newton_steps


@njit(parallel=True, cache=True)
def _cnmf_local_step(indptr, indices, data, exp_elog_beta_t, topic_mass, locations, locations_t, u, alpha, omega,
                     expected, max_iter, tol, want_sstats, n_chunks):
    """Documents in parallel; then sstats_t[w] = sum_d (X_dw / phinorm_dw) exp(l_k'u_d - max) in parallel over words,
    each word's sum taken over documents in document order, so results do not depend on the thread count."""
    n_docs = indptr.shape[0] - 1
    n_words, n_topics = exp_elog_beta_t.shape
    m = locations.shape[1]
    steps = np.zeros((n_docs, 2), dtype=np.int64)  # steepest-ascent, Newton
    scores = np.zeros((n_docs, n_topics))
    token_weight = np.empty(indices.shape[0])  # X_dw / phinorm_dw
    bounds = np.linspace(0, n_docs, n_chunks + 1).astype(np.int64)
    for chunk in prange(n_chunks):
        grad, trial, direction, lbar = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
        neg_hessian, chol = np.empty((m, m)), np.empty((m, m))
        weight, scratch = np.empty(n_topics), np.empty(n_topics)
        widest = 0
        for d in range(bounds[chunk], bounds[chunk + 1]):
            widest = max(widest, indptr[d + 1] - indptr[d])
        spread = np.empty((m, widest))
        for d in range(bounds[chunk], bounds[chunk + 1]):
            start, stop = indptr[d], indptr[d + 1]
            if stop == start:  # nothing observed: u_d stays at its prior mean, alpha_d = ln 0
                alpha[d] = -np.inf
                for k in range(n_topics):
                    omega[d, k] = 0.0
                    expected[d, k] = 0.0
                continue
            ids = indices[start:stop]
            cts = data[start:stop]
            phinorm = token_weight[start:stop]
            alpha[d], steps[d, 0], steps[d, 1] = _cnmf_doc(
                ids, cts, exp_elog_beta_t, topic_mass, locations, locations_t, u[d], max_iter, tol, scores[d], omega[d],
                phinorm, expected[d], grad, trial, direction, neg_hessian, chol, lbar, weight, scratch, spread)
            for j in range(stop - start):
                phinorm[j] = cts[j] / phinorm[j]
    if not want_sstats:
        return np.zeros((1, n_topics)), steps
    return _sum_by_word(indptr, indices, token_weight, scores, n_words), steps


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


@njit(parallel=True, cache=True)
def _transpose(matrix):
    """A C-contiguous transpose, in parallel blocks (np.ascontiguousarray(matrix.T) is one thread)."""
    n_rows, n_cols = matrix.shape
    out = np.empty((n_cols, n_rows))
    block = 64
    n_blocks = (n_cols + block - 1) // block
    for b in prange(n_blocks):
        for i0 in range(0, n_rows, block):
            for j in range(b * block, min((b + 1) * block, n_cols)):
                for i in range(i0, min(i0 + block, n_rows)):
                    out[j, i] = matrix[i, j]
    return out


@njit(parallel=True, cache=True)
def _sum_by_word(indptr, indices, token_weight, doc_rows, n_words):
    """out[w] = sum_d token_weight_dw doc_rows[d], over the documents containing w in document order.

    A stable counting sort groups the nonzeros by word; the words are then summed in parallel, so no
    per-thread V x K buffers are needed and the result is bit-identical for any thread count.
    """
    word_start, token_of, doc_of = _group_by_word(indptr, indices, n_words)
    out = np.zeros((n_words, doc_rows.shape[1]))
    for w in prange(n_words):
        row = out[w]
        for q in range(word_start[w], word_start[w + 1]):
            weight = token_weight[token_of[q]]
            source = doc_rows[doc_of[q]]
            for k in range(source.shape[0]):
                row[k] += weight * source[k]
    return out


def cnmf_local_step(counts: sp.csr_matrix, exp_elog_beta: np.ndarray, topic_mass: np.ndarray, locations: np.ndarray,
                    max_iter: int = 200, tol: float = 1e-6, u: np.ndarray | None = None, want_sstats: bool = True):
    """Correlated NMF local step (Paisley et al. 2014, eqs. 11.24, 11.31, 11.32) for every document.

    ``exp_elog_beta`` is K x V, exp(E ln beta); ``topic_mass`` S_k = sum_v E[beta_vk]; ``locations``
    the K x m topic locations l_k. u_d starts at its prior mean 0 unless given. Returns a dict with
    u (n_docs x m), alpha, omega = exp(alpha_d + l_k'u_d), expected = sum_v X_vd p_k^(vd) (n_docs x K),
    sstats = sum_d X_vd p_k^(vd) as K x V (eqs. 11.25, 11.33) and the steps each document took (``steps``, the
    sum of ``ascent_steps``, eq. 11.31's steepest ascent, and ``newton_steps``, see ``_cnmf_doc``).
    """
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    n_topics, m = locations.shape
    u = np.zeros((n_docs, m)) if u is None else np.array(u, dtype=np.float64, copy=True)
    alpha = np.zeros(n_docs)
    omega = np.zeros((n_docs, n_topics))
    expected = np.zeros((n_docs, n_topics))
    exp_elog_beta_t = np.ascontiguousarray(exp_elog_beta.T)
    n_chunks = max(1, min(N_CHUNKS, n_docs))
    sstats_t, steps = _cnmf_local_step(
        counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data.astype(np.float64),
        exp_elog_beta_t, np.ascontiguousarray(topic_mass, dtype=np.float64), np.ascontiguousarray(locations, dtype=np.float64),
        np.ascontiguousarray(locations.T, dtype=np.float64), u, alpha, omega, expected, int(max_iter), float(tol),
        bool(want_sstats), n_chunks)
    return {"u": u, "alpha": alpha, "omega": omega, "expected": expected,
            "sstats": sstats_t.T * exp_elog_beta if want_sstats else None, "steps": steps.sum(axis=1),
            "ascent_steps": steps[:, 0], "newton_steps": steps[:, 1]}


@njit(parallel=True, cache=True)
def _cnmf_objective(indptr, indices, data, exp_elog_beta_t, topic_mass, locations, u, alpha, grad_u, expected, omega):
    n_docs = indptr.shape[0] - 1
    n_topics, m = locations.shape
    values = np.zeros(n_docs)
    for d in prange(n_docs):
        start, stop = indptr[d], indptr[d + 1]
        scores = np.empty(n_topics)
        phinorm = np.empty(max(1, stop - start))
        values[d] = _cnmf_doc_terms(indices[start:stop], data[start:stop], exp_elog_beta_t, topic_mass, locations,
                                    u[d], alpha[d], scores, omega[d], phinorm, expected[d])
        _cnmf_grad_u(locations, u[d], topic_mass, omega[d], expected[d], grad_u[d])
    return values


def cnmf_objective(counts, exp_elog_beta, topic_mass, locations, u, alpha):
    """Per-document C-NMF objective terms at given (u_d, alpha_d), with eq. 11.31's gradient in u_d.

    Returns (values, grad_u, expected, omega); used to check the gradients against finite differences.
    """
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    n_topics, m = locations.shape
    grad_u, expected, omega = np.zeros((n_docs, m)), np.zeros((n_docs, n_topics)), np.zeros((n_docs, n_topics))
    values = _cnmf_objective(counts.indptr.astype(np.int64), counts.indices.astype(np.int64),
                             counts.data.astype(np.float64), np.ascontiguousarray(exp_elog_beta.T),
                             np.ascontiguousarray(topic_mass, dtype=np.float64),
                             np.ascontiguousarray(locations, dtype=np.float64),
                             np.ascontiguousarray(u, dtype=np.float64), np.ascontiguousarray(alpha, dtype=np.float64),
                             grad_u, expected, omega)
    return values, grad_u, expected, omega
