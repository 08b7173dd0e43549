"""Numba kernels of LG-NMF (Hu, Ryu, Carlson, Wang and Carin 2014; methods/lgnmf.py): the HALS sweeps of the
sec. 3.1 block solves and the fused projected gradient step of the online mode (sec. 4, eqs. 15-16).

In their own module so that equation mutants of methods/lgnmf.py do not recompile them (numba's cache is keyed
by the source file)."""
import numba
import numpy as np

from . import kernels  # noqa: F401  (sets numba's vector width, kernels._prefer_wide_vectors, before these compile)


@numba.njit(nogil=True, cache=True)
def projected_step(F, FH, indptr, indices, data, B, prior, step):
    """max(0, F - step ((F H - A B) + prior F)) row by row, A in CSR (indptr, indices, data) with F's rows.

    Eqs. 15-16's projected step in one pass: F = D, H = S'S, A = C, prior K (eq. 15), or F = S_b, H = D'D,
    A = C_b', prior alpha (eq. 16). Same operations in the same order as the numpy form
    max(0, F - step * (F @ H - A @ B + prior * F)) with scipy's CSR product, so the same numbers; nogil, so the
    grid points can run in threads."""
    n, K = F.shape
    out = np.empty_like(F)
    acc = np.empty(K)
    for i in range(n):
        acc[:] = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            v, j = data[jj], indices[jj]
            for k in range(K):
                acc[k] += v * B[j, k]
        for k in range(K):
            out[i, k] = max(0.0, F[i, k] - step * ((FH[i, k] - acc[k]) + prior * F[i, k]))
    return out


@numba.njit(inline="always")
def _hals_row(F, G, Ht, i):
    """One sweep over row i's K coordinates: F_ik <- max(0, F_ik - G_ik / H_kk), then G_i += (change) Ht[k]
    (Ht[k] = hessian[:, k]). Returns the row's squared change and its squared norm after the sweep."""
    K = F.shape[1]
    c = 0.0
    for k in range(K):
        new = max(0.0, F[i, k] - G[i, k] / Ht[k, k])
        delta = new - F[i, k]
        if delta != 0.0:
            F[i, k] = new
            c += delta * delta
            for j in range(K):
                G[i, j] += delta * Ht[k, j]
    s = 0.0
    for k in range(K):
        s += F[i, k] * F[i, k]
    return c, s


@numba.njit(parallel=True, cache=True)
def hals_sweeps(F, G, Ht, tol, max_iter):
    """HALS sweeps, rows in parallel, until the sweep's squared change <= tol^2 ||F||^2 or max_iter sweeps."""
    sweep = 0
    for sweep in range(1, max_iter + 1):
        change = 0.0
        norm = 0.0
        for i in numba.prange(F.shape[0]):
            c, s = _hals_row(F, G, Ht, i)
            change += c
            norm += s
        if change <= tol * tol * norm:
            break
    return sweep


@numba.njit(nogil=True, cache=True)
def hals_sweeps_serial(F, G, Ht, tol, max_iter):
    """hals_sweeps in one thread without the GIL (the same steps; sums in row order): for Python threads,
    which must not enter numba's parallel regions concurrently. Written out, not njit(hals_sweeps.py_func): numba's
    on-disk cache keys a function by its bytecode, not its flags, so the two would load each other's machine code."""
    sweep = 0
    for sweep in range(1, max_iter + 1):
        change = 0.0
        norm = 0.0
        for i in range(F.shape[0]):
            c, s = _hals_row(F, G, Ht, i)
            change += c
            norm += s
        if change <= tol * tol * norm:
            break
    return sweep
