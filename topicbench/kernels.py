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
