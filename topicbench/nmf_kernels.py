"""numba kernels of the gamma-Poisson family (Paisley, Blei and Jordan 2014, ch. 11): the B-NMF and C-NMF local steps.

They live beside topicbench/nmf.py, not in the LDA core (topicbench.kernels), whose special functions and sparse
helpers they import. Parallel over documents; per-word sums are taken over documents in document order, so
results are bit-identical for 1 or N threads.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from .kernels import N_CHUNKS, _LOOP, _dot, _dot4, _group_by_word, lda_e_step


# -- B-NMF (Paisley, Blei and Jordan 2014, sec. 11.5) -------------------------------------------------
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
