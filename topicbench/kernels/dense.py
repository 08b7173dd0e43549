"""Dense helpers the kernels share: the compile flags, the vectorised dot products and sums, a parallel
transpose, online LDA's fused natural-gradient step (Hoffman et al. 2010, Alg. 2), and the rounding allowance of a
probability's ceiling of 1."""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

N_CHUNKS = 64  # chunks a parallel loop over words is cut into; results do not depend on it
WORD_BLOCK = 256  # words per task where workers take blocks of words as they free up (``_fetch_add``); nor on this
ROUNDING = 1e-12  # how far above its ceiling of 1 a sum of probabilities may round; beyond it is an error, left to show


def rounded_to_one(values: np.ndarray) -> np.ndarray:
    """``values`` (sums of probabilities, at most 1 in exact arithmetic) with those within ROUNDING above 1 set to 1,
    in place: a one-word vocabulary's p(w) = 1 would otherwise score log p > 0, while a sum well above 1 (wrong
    topics, an equation mutant) is left to show."""
    values[(values > 1.0) & (values <= 1.0 + ROUNDING)] = 1.0
    return values


# The E step's flags. Only the K-long dot products get ``reassoc`` (LLVM needs it to vectorise a
# sum; the sums are reordered, so results move in the last bits, never in meaning). The callers
# must not have it: with reassoc LLVM rewrites (n / s) * row_k as n * row_k / s, a division per
# topic. ``error_model="numpy"`` drops the zero-division checks (phinorm carries a 1e-100 guard).
_DOT = dict(cache=True, nogil=True, fastmath={"reassoc", "contract"}, error_model="numpy")
_LOOP = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")
# For kernels that allocate nothing: compiled without numba's runtime (NRT), an array view or an array passed to a
# function that is not inlined is borrowed instead of reference-counted. numba counts each one with an atomic
# instruction (~20 cycles) going in and another coming out; in the LDA E step's per-iteration calls (the exp block's
# views, the dense sweep, _skipped_ok, _min_positive) that was 6.6% of perf's samples, for nothing: the caller holds
# every array for the whole call. Removing it took 1-4% off online LDA's fit (the atomics partly overlapped other
# work; benchmarks/RESULTS.md, "Reference counting"). The arithmetic is untouched, so the results are bit-identical.
# A kernel that allocates cannot compile with it (numba says so), so the flag cannot hide a leak.
_NO_NRT = dict(_nrt=False)


@njit(**_DOT, **_NO_NRT)
def _dot(a, b):
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


@njit(**_DOT, **_NO_NRT)
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


@njit(**_LOOP, **_NO_NRT)
def _gather_topics(ids, exp_elog_beta_t, topics, sub):
    """sub[a, j] = exp_beta_{topics_a, ids_j}: a document's columns of some topics, topic-major (each row contiguous
    over the words), so the sweeps take the words as vector lanes (LDA's active topics, C-NMF's all K). Eight words
    at a time, so each store of a row is eight contiguous doubles."""
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


@njit(inline="always", **_LOOP)  # inlined into the sweeps that call it at every iteration
def _weighted_rows(weights, matrix, rows, out):
    """out_j = 1e-100 + sum_a weights_a matrix[rows_a, j], four rows a pass with the columns as vector lanes: the
    normaliser phinorm_w = sum_k exp(E log theta_k) exp(E log beta_kw) of LDA's phi (Hoffman et al. 2010, eq. 6)
    and of C-NMF's p^(vd) (Paisley et al. 2014, eq. 11.24), over a topic-major copy of a document's columns."""
    n = rows.shape[0]
    for j in range(out.shape[0]):
        out[j] = 1e-100
    a = 0
    while a + 4 <= n:
        t0, t1, t2, t3 = weights[a], weights[a + 1], weights[a + 2], weights[a + 3]
        s0, s1, s2, s3 = matrix[rows[a]], matrix[rows[a + 1]], matrix[rows[a + 2]], matrix[rows[a + 3]]
        for j in range(out.shape[0]):
            out[j] += (t0 * s0[j] + t1 * s1[j]) + (t2 * s2[j] + t3 * s3[j])
        a += 4
    while a < n:
        t0 = weights[a]
        s0 = matrix[rows[a]]
        for j in range(out.shape[0]):
            out[j] += t0 * s0[j]
        a += 1


@njit(**_DOT, **_NO_NRT)
def _sum(x):
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j]
    return s


@njit(**_LOOP, **_NO_NRT)
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
def natural_gradient_step(lam, rho, eta, scale, sstats):
    """(1 - rho) lam + rho (eta + scale sstats): the online VB update of lambda (Hoffman et al. 2010, Alg. 2),
    in one parallel pass with numpy's operation order (so the same bits as the two-line numpy form)."""
    n_rows, n_cols = lam.shape
    out = np.empty((n_rows, n_cols))
    for k in prange(n_rows):
        for w in range(n_cols):
            out[k, w] = (1 - rho) * lam[k, w] + rho * (eta + scale * sstats[k, w])
    return out


@intrinsic
def _fetch_add(typingctx, counter, increment):
    """counter[0] += increment as one atomic step; returns the value before. In a ``prange`` over one worker per
    thread, each worker takes its next item (a document, a block of words) with it when it is free.

    numba's ``prange`` splits its range into one contiguous share per thread up front, and ``parallel_chunksize``
    does not change that (measured: a range whose first half holds all the work runs no faster on two threads than
    on one). Documents differ in cost many times over, so the E step's threads waited ~9% of the time for each
    other (benchmarks/RESULTS.md, "Workers that take the next document")."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1
            and isinstance(increment, types.Integer)):
        return None
    sig = types.int64(counter, increment)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        slot = cgutils.get_item_pointer(context, builder, array_type, array, [context.get_constant(types.intp, 0)])
        step = context.cast(builder, args[1], signature.args[1], types.int64)
        return builder.atomic_rmw("add", slot, step, "monotonic")

    return sig, codegen
