"""Special functions: digamma, Dirichlet expectations E[log x] (Hoffman et al. 2010, eq. 6) and the vectorised
block exp(E[log theta]) the E-step multiplies with."""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .dense import _LOOP, _NO_NRT


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
def exp_dirichlet_expectation_t(param: np.ndarray) -> np.ndarray:
    """exp(E[log x]) of each row of ``param`` (Hoffman et al. 2010, eq. 6), each by ``_exp_theta_block``, written
    word-major: V x K for a K x V ``param``, the layout the E step reads (a word's K topics contiguous), so it need not
    transpose K x V at every call."""
    n_rows, n_cols = param.shape
    psi_total = np.empty(n_rows)
    for i in prange(n_rows):
        total = 0.0
        for j in range(n_cols):
            total += param[i, j]
        psi_total[i] = _digamma_one_division(total)
    out = np.empty((n_cols, n_rows))
    block = 64  # columns of param per task: n_rows rows of 64 read, 64 rows of n_rows written, all in cache
    for b in prange((n_cols + block - 1) // block):
        start, stop = b * block, min(n_cols, (b + 1) * block)
        row = np.empty(block)
        bits = np.empty(block, dtype=np.int64)
        for i in range(n_rows):
            _exp_theta_block(param[i, start:stop], psi_total[i], row[:stop - start], bits)
            for j in range(stop - start):
                out[start + j, i] = row[j]
    return out


# exp(x) = 2^m exp(r), m = round(x / ln 2), |r| <= ln(2) / 2, with exp(r) a degree-13 Taylor polynomial
# (truncation < 5e-18 relative): unlike libm's exp, LLVM vectorises it. Within 2 ulp of libm (95% identical).
_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 with its last 32 bits zero: m * _LN2_HI is exact for |m| < 2^20
_LN2_LO = 1.9082149292705877e-10  # ln 2 - _LN2_HI


@njit(inline="always", **_LOOP)  # inlined: the E step calls it in every iteration on a few lanes
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


@njit(**_LOOP, **_NO_NRT)
def _exp_elog_theta(gamma, exp_theta, bits):
    """exp(E[log theta]) = exp(psi(gamma_k) - psi(sum gamma)) (Hoffman et al. 2010, eq. 6)."""
    total = 0.0
    for k in range(gamma.shape[0]):
        total += gamma[k]
    _exp_theta_block(gamma, _digamma_one_division(total), exp_theta, bits)
