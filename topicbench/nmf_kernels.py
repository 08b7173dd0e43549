"""numba kernels of the gamma-Poisson family (Paisley, Blei and Jordan 2014, ch. 11): the B-NMF and C-NMF local steps.

They live beside topicbench/nmf.py, not in the LDA core (topicbench.kernels), whose special functions and sparse
helpers they import. Parallel over documents; per-word sums are taken over documents in document order, so
results are bit-identical for 1 or N threads.
"""
from __future__ import annotations

import math

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from .kernels import lda_e_step
from .kernels.dense import N_CHUNKS, WORD_BLOCK, _LOOP, _NO_NRT, _dot, _dot4, _fetch_add, _gather_topics, _weighted_rows
from .kernels.sparse import _group_by_word, _longest_first
from .kernels.special import _digamma_parts


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
    # V x K, the layout the kernel reads: no copy when exp_elog_beta is the transpose of a V x K array (B-NMF's)
    topics_t = np.ascontiguousarray((exp_elog_beta / rate[:, None]).T)
    return lda_e_step(counts, topics_t, a0, max_iter, tol, gamma=shape, want_sstats=want_sstats, word_major=True)


# -- C-NMF (Paisley, Blei and Jordan 2014, secs. 11.3.2, 11.5) -----------------------------------------
# The objective in u_d is not concave everywhere, and for a few documents in a hundred it has more than one
# maximum: which one a local step reaches depends on its path. The chapter's steepest ascent from u_d = 0 picks
# one (the one the gradient flow reaches: checked by tiny fixed steps). BFGS from u_d = 0 reached another for 52
# of 2000 nyt_like documents (K = 100, m = 50); after the steepest ascent to a relative gain of ASCENT_TOL it
# reached the chapter's for all 2000 (1e-4: 1999), so the local step keeps that much of the chapter's path.
ASCENT_TOL = 1e-5


@njit(parallel=True, cache=True)
def gamma_topic_expectations(g, h):
    """exp(E ln beta_vk) = exp(psi(g_vk)) / h_k (V x K, g's layout) and E[beta_vk] = g_vk / h_k summed over v
    (sec. 11.5.1): the two things a local step reads, in one parallel pass (scipy's digamma is one thread)."""
    n_words, n_topics = g.shape
    out = np.empty((n_words, n_topics))
    bounds = np.linspace(0, n_words, N_CHUNKS + 1).astype(np.int64)
    partial = np.zeros((N_CHUNKS, n_topics))
    for chunk in prange(N_CHUNKS):
        for v in range(bounds[chunk], bounds[chunk + 1]):
            for k in range(n_topics):
                y, c = _digamma_parts(g[v, k])  # psi(g) = ln y - c: exp(psi(g)) = y exp(-c), no log
                out[v, k] = y * math.exp(-c) / h[k]
                partial[chunk, k] += g[v, k]
    mass = np.zeros(n_topics)
    for chunk in range(N_CHUNKS):  # chunk order: the same sums for any thread count
        for k in range(n_topics):
            mass[k] += partial[chunk, k]
    return out, mass / h


@njit(**_LOOP, **_NO_NRT)
def _cnmf_scores(locations_t, u, scores):
    """scores_k = exp(l_k'u_d - max_k l_k'u_d), kept finite; returns the max. ``locations_t`` is m x K, so the
    product is m sweeps over the topics (vector lanes), with no per-topic horizontal sums."""
    m, n_topics = locations_t.shape
    for k in range(n_topics):
        scores[k] = 0.0
    for i in range(m):
        ui = u[i]
        row = locations_t[i]
        for k in range(n_topics):
            scores[k] += ui * row[k]
    top = -np.inf
    for k in range(n_topics):
        top = max(top, scores[k])
    for k in range(n_topics):
        scores[k] = math.exp(scores[k] - top)
    return top


@njit(**_LOOP, **_NO_NRT)
def _cnmf_best_alpha(topic_mass, scores, top, n_tokens):
    """alpha_d = ln sum_v X_vd - ln sum_k S_k exp(l_k'u_d) (eq. 11.32), from ``_cnmf_scores``."""
    total = _dot(topic_mass, scores)
    return math.log(n_tokens) - math.log(total) - top


@njit(**_LOOP, **_NO_NRT)
def _cnmf_value(cts, sub, topics, topic_mass, scores, top, alpha, u, phinorm):
    """One document's part of the C-NMF objective at (u_d, alpha_d), with p^(vd) optimal (eq. 11.24).

    f = sum_v X_vd ln sum_k exp(E ln beta_vk + alpha_d + l_k'u_d) - sum_k S_k omega_kd - |u_d|^2 / 2,
    omega_kd = exp(alpha_d + l_k'u_d), S_k = sum_v E[beta_vk]: the terms of the bound (eqs. 11.13,
    11.23) that involve the document, given ``scores`` = exp(l_k'u_d - top) (``_cnmf_scores``) and the document's
    columns ``sub`` (``_gather_topics`` of all K topics, ``topics`` = 0..K-1). Fills phinorm_v = sum_k exp(E ln
    beta_vk) scores_k, four topics a pass.
    """
    n_ids = phinorm.shape[0]
    _weighted_rows(scores, sub, topics, phinorm)
    value = 0.0
    n_tokens = 0.0
    for j in range(n_ids):
        value += cts[j] * math.log(phinorm[j])
        n_tokens += cts[j]
    value += n_tokens * (alpha + top) - math.exp(alpha + top) * _dot(topic_mass, scores)  # sum_k S_k omega_kd
    for i in range(u.shape[0]):
        value -= 0.5 * u[i] * u[i]
    return value


@njit(**_LOOP, **_NO_NRT)
def _cnmf_at(point, cts, sub, topics, locations_t, topic_mass, n_tokens, scores, phinorm):
    """(objective, alpha_d, top) at u_d = ``point`` with alpha_d by eq. 11.32 there: one trial point of the ascent."""
    top = _cnmf_scores(locations_t, point, scores)
    alpha = _cnmf_best_alpha(topic_mass, scores, top, n_tokens)
    return _cnmf_value(cts, sub, topics, topic_mass, scores, top, alpha, point, phinorm), alpha, top


@njit(**_LOOP, **_NO_NRT)
def _cnmf_gradient(cts, sub, locations, topic_mass, scores, top, alpha, u, phinorm, weight, omega, expected, grad):
    """Eq. 11.31 at the point ``_cnmf_value`` last evaluated: sum_k (sum_v X_vd p_k^(vd) - S_k omega_kd) l_k - u_d,
    with p_k^(vd) = exp(E ln beta_vk) scores_k / phinorm_v (eq. 11.24). Fills weight_v = X_vd / phinorm_v, omega and
    expected_k = sum_v X_vd p_k^(vd)."""
    n_topics, m = locations.shape
    n_ids = phinorm.shape[0]
    for j in range(n_ids):
        weight[j] = cts[j] / phinorm[j]
    k = 0
    while k + 4 <= n_topics:
        e0, e1, e2, e3 = _dot4(weight, sub[k], sub[k + 1], sub[k + 2], sub[k + 3])
        expected[k], expected[k + 1], expected[k + 2], expected[k + 3] = e0, e1, e2, e3
        k += 4
    while k < n_topics:
        expected[k] = _dot(weight, sub[k])
        k += 1
    scale = math.exp(alpha + top)
    for i in range(m):
        grad[i] = -u[i]
    for k in range(n_topics):
        omega[k] = scale * scores[k]
        expected[k] *= scores[k]  # p_k^(vd) = exp(E ln beta_vk) scores_k / phinorm_v (eq. 11.24)
        coef = expected[k] - topic_mass[k] * omega[k]
        for i in range(m):
            grad[i] += coef * locations[k, i]


@njit(**_LOOP, **_NO_NRT)
def _bfgs_update(inv_hessian, s, y, hy):
    """H <- (I - rho s y') H (I - rho y s') + rho s s', rho = 1 / s'y (Nocedal and Wright 2006, eq. 6.17), for the
    pair (s, y) of -f; the caller checks s'y > 0."""
    m = s.shape[0]
    sy = _dot(s, y)
    yhy = 0.0
    for i in range(m):
        hy[i] = _dot(inv_hessian[i], y)
        yhy += y[i] * hy[i]
    rho = 1.0 / sy
    coef = rho * rho * yhy + rho
    for i in range(m):
        for p in range(m):
            inv_hessian[i, p] += coef * s[i] * s[p] - rho * (hy[i] * s[p] + s[i] * hy[p])


@njit(**_LOOP, **_NO_NRT)
def _cnmf_doc(ids, cts, exp_elog_beta_t, topic_mass, locations, locations_t, curvature, u, max_iter, tol,
              scores, omega, phinorm, expected, sub, topics, weight, grad, new_grad, trial, direction, inv_hessian, hy,
              pair):
    """Maximise the C-NMF objective in u_d (gradient eq. 11.31) with alpha_d by eq. 11.32 at every point: the
    chapter's steepest ascent until it gains less than ASCENT_TOL relative, then BFGS to convergence.
    Returns (alpha_d, steepest-ascent steps, BFGS steps, objective evaluations).

    Phase 1 is sec. 11.5.1's steepest ascent along eq. 11.31: the step length, 1/(1 + N_d) at first, grows x1.5
    after a step that raises the objective and halves (the step retried) after one that does not. It picks the
    maximum (see ASCENT_TOL). By the envelope theorem eq. 11.31 at eq. 11.32's alpha_d is the gradient of the
    objective with alpha_d profiled out, so any ascent method on u_d alone has the chapter's fixed point (eq.
    11.31 = 0). u_d has m dimensions, so a dense BFGS inverse-Hessian approximation (Nocedal and Wright 2006,
    eq. 6.17) costs O(m^2) a step, small beside one pass over the document's words. Its first inverse Hessian is
    that of the objective's concave part at u_d = 0, (I + N_d Cov_q(l))^-1 with q_k ∝ S_k (an upper bound on minus
    the Hessian there; the caller rotates u_d so that Cov_q(l) is diagonal and passes its eigenvalues as
    ``curvature``, so this costs O(m)); updating it with the steepest ascent's steps too saved ~1.4 of ~43
    evaluations per document, less than the updates cost. Each step backtracks until the Armijo condition holds;
    the update is skipped where the curvature condition s'y > 0 fails (the objective is not concave everywhere).
    A trial point costs one sweep over the document's words (its objective); the gradient's second sweep is taken
    only where the step is accepted.
    Stops when |eq. 11.31|_2 <= tol N_d, or when no ascent is left at working precision.
    """
    m = u.shape[0]
    n_ids = ids.shape[0]
    n_topics = scores.shape[0]
    sub = sub[:n_topics * n_ids].reshape((n_topics, n_ids))  # contiguous rows
    weight = weight[:n_ids]
    _gather_topics(ids, exp_elog_beta_t, topics, sub)  # once per document, read at every evaluation
    n_tokens = 0.0
    for j in range(n_ids):
        n_tokens += cts[j]
    for i in range(m):
        for p in range(m):
            inv_hessian[i, p] = 0.0
        inv_hessian[i, i] = 1.0 / (1.0 + n_tokens * curvature[i])
    value, alpha, top = _cnmf_at(u, cts, sub, topics, locations_t, topic_mass, n_tokens, scores, phinorm)
    _cnmf_gradient(cts, sub, locations, topic_mass, scores, top, alpha, u, phinorm, weight, omega, expected, grad)
    evaluations = 1
    ascent_steps = 0
    current = True  # scores and phinorm belong to u (omega, expected, weight and grad always do)
    step = 1.0 / (1.0 + n_tokens)
    for it in range(max_iter):  # phase 1: the chapter's steepest ascent (eq. 11.31), into the basin it climbs
        for i in range(m):
            trial[i] = u[i] + step * grad[i]
        trial_value, trial_alpha, trial_top = _cnmf_at(trial, cts, sub, topics, locations_t, topic_mass,
                                                           n_tokens, scores, phinorm)
        evaluations += 1
        ascent_steps = it + 1
        current = trial_value >= value
        if current:
            gain = trial_value - value
            value, alpha, top = trial_value, trial_alpha, trial_top
            for i in range(m):
                u[i] = trial[i]
            _cnmf_gradient(cts, sub, locations, topic_mass, scores, top, alpha, u, phinorm, weight, omega, expected, grad)
            step *= 1.5
            if gain <= ASCENT_TOL * abs(value):
                break
        else:
            step *= 0.5
            if step < 1e-14:
                break
    steps = 0
    for it in range(max_iter):  # phase 2: BFGS
        if math.sqrt(_dot(grad, grad)) <= tol * n_tokens:  # |.|_2, the same in the rotated coordinates
            break
        slope = 0.0
        for i in range(m):
            direction[i] = _dot(inv_hessian[i], grad)
            slope += grad[i] * direction[i]
        t = 1.0
        accepted = False
        for _ in range(60):
            for i in range(m):
                trial[i] = u[i] + t * direction[i]
            trial_value, trial_alpha, trial_top = _cnmf_at(trial, cts, sub, topics, locations_t, topic_mass,
                                                               n_tokens, scores, phinorm)
            evaluations += 1
            if trial_value >= value + 1e-4 * t * slope:  # Armijo: a real ascent, not rounding
                accepted = True
                break
            t *= 0.5
        current = accepted
        if not accepted:  # no ascent left at working precision
            break
        steps = it + 1
        value, alpha, top = trial_value, trial_alpha, trial_top
        _cnmf_gradient(cts, sub, locations, topic_mass, scores, top, alpha, trial, phinorm, weight, omega, expected,
                       new_grad)
        sy = 0.0  # s = t d, y = -(new_grad - grad): the BFGS pair of -f
        for i in range(m):
            direction[i] *= t
            pair[i] = grad[i] - new_grad[i]
            sy += direction[i] * pair[i]
        if sy > 1e-12 * t * t * slope:
            _bfgs_update(inv_hessian, direction, pair, hy)
        for i in range(m):
            u[i] = trial[i]
            grad[i] = new_grad[i]
    if not current:  # scores and phinorm of the final (u_d, alpha_d), for the global statistics
        top = _cnmf_scores(locations_t, u, scores)
        value = _cnmf_value(cts, sub, topics, topic_mass, scores, top, alpha, u, phinorm)
        evaluations += 1
    for j in range(n_ids):
        phinorm[j] = cts[j] / phinorm[j]  # X_vd / phinorm_v, the global statistics' weight
    return alpha, ascent_steps, steps, evaluations


@njit(parallel=True, cache=True)
def _cnmf_local_step(indptr, indices, data, exp_elog_beta_t, topic_mass, locations, curvature, u, alpha, omega,
                     expected, max_iter, tol, want_sstats, n_workers, order):
    """Documents in parallel, longest first, each taken by the next free worker (one per thread); then sstats_t[w] =
    sum_d (X_dw / phinorm_dw) exp(l_k'u_d - max) in parallel over words, each word's sum taken over documents in
    document order, so results do not depend on the thread count."""
    n_docs = indptr.shape[0] - 1
    n_words, n_topics = exp_elog_beta_t.shape
    m = locations.shape[1]
    locations_t = np.ascontiguousarray(locations.T)
    steps = np.zeros((n_docs, 3), dtype=np.int64)  # steepest-ascent steps, BFGS steps, objective evaluations
    scores = np.zeros((n_docs, n_topics))
    token_weight = np.empty(indices.shape[0])  # X_dw / phinorm_dw
    longest = 1
    for d in range(n_docs):
        longest = max(longest, indptr[d + 1] - indptr[d])
    next_doc = np.zeros(1, dtype=np.int64)
    for worker in prange(n_workers):  # documents differ in cost: each worker takes the next one when it is free
        sub, weight = np.empty(n_topics * longest), np.empty(longest)
        grad, new_grad, trial, direction, hy, pair = np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m)
        inv_hessian = np.empty((m, m))
        topics = np.arange(n_topics)  # every topic: the rows of _cnmf_doc's copy of a document's columns
        taken = _fetch_add(next_doc, 1)
        while taken < n_docs:
            d = order[taken]
            taken = _fetch_add(next_doc, 1)
            start, stop = indptr[d], indptr[d + 1]
            if stop == start:  # nothing observed: u_d stays at its prior mean, alpha_d = ln 0
                alpha[d] = -np.inf
                for k in range(n_topics):
                    omega[d, k] = 0.0
                    expected[d, k] = 0.0
                continue
            alpha[d], steps[d, 0], steps[d, 1], steps[d, 2] = _cnmf_doc(
                indices[start:stop], data[start:stop], exp_elog_beta_t, topic_mass, locations, locations_t, curvature,
                u[d], max_iter, tol, scores[d], omega[d], token_weight[start:stop], expected[d], sub, topics, weight,
                grad, new_grad, trial, direction, inv_hessian, hy, pair)
    if not want_sstats:
        return np.zeros((1, n_topics)), steps
    return _sum_by_word(indptr, indices, token_weight, scores, n_words, n_workers), steps


@njit(parallel=True, cache=True)
def _sum_by_word(indptr, indices, token_weight, doc_rows, n_words, n_workers):
    """out[w] = sum_d token_weight_dw doc_rows[d], over the documents containing w in document order.

    A stable counting sort groups the nonzeros by word; blocks of words then go to whichever worker is free (a
    frequent word costs many times a rare one), so no per-thread V x K buffers are needed and the result is
    bit-identical for any thread count.
    """
    word_start, token_of, doc_of = _group_by_word(indptr, indices, n_words)
    out = np.zeros((n_words, doc_rows.shape[1]))
    n_blocks = (n_words + WORD_BLOCK - 1) // WORD_BLOCK
    next_block = np.zeros(1, dtype=np.int64)
    for worker in prange(n_workers):
        block = _fetch_add(next_block, 1)
        while block < n_blocks:
            for w in range(block * WORD_BLOCK, min(n_words, (block + 1) * WORD_BLOCK)):
                row = out[w]
                for q in range(word_start[w], word_start[w + 1]):
                    weight = token_weight[token_of[q]]
                    source = doc_rows[doc_of[q]]
                    for k in range(source.shape[0]):
                        row[k] += weight * source[k]
            block = _fetch_add(next_block, 1)
    return out






def cnmf_local_step(counts: sp.csr_matrix, exp_elog_beta: np.ndarray, topic_mass: np.ndarray, locations: np.ndarray,
                    max_iter: int = 200, tol: float = 1e-6, u: np.ndarray | None = None, want_sstats: bool = True):
    """Correlated NMF local step (Paisley et al. 2014, eqs. 11.24, 11.31, 11.32) for every document.

    ``exp_elog_beta`` is K x V, exp(E ln beta) (the transpose of a V x K array is read without a copy);
    ``topic_mass`` S_k = sum_v E[beta_vk]; ``locations`` the K x m topic locations l_k. u_d starts at its prior
    mean 0 unless given. Returns a dict with u (n_docs x m), alpha, omega = exp(alpha_d + l_k'u_d), expected =
    sum_v X_vd p_k^(vd) (n_docs x K), sstats = sum_d X_vd p_k^(vd) as K x V (eqs. 11.25, 11.33), and per document
    ``ascent_steps``, ``bfgs_steps``, their sum ``steps`` and the objective ``evaluations`` (``_cnmf_doc``).
    """
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    n_topics, m = locations.shape
    locations = np.asarray(locations, dtype=np.float64)
    topic_mass = np.ascontiguousarray(topic_mass, dtype=np.float64)
    # Cov_q(l) at u_d = 0 (q_k ∝ S_k) in its eigenbasis: the rotation u = V z keeps |u| and l_k'u (with l_k -> V'l_k)
    q = topic_mass / topic_mass.sum()
    centred = locations - q @ locations
    curvature, rotation = np.linalg.eigh(centred.T @ (centred * q[:, None]))
    curvature = np.maximum(curvature, 0.0)  # a PSD matrix: negative eigenvalues are rounding
    z = np.zeros((n_docs, m)) if u is None else np.asarray(u, dtype=np.float64) @ rotation
    alpha = np.zeros(n_docs)
    omega = np.zeros((n_docs, n_topics))
    expected = np.zeros((n_docs, n_topics))
    sstats_t, steps = _cnmf_local_step(
        counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data.astype(np.float64),
        np.ascontiguousarray(exp_elog_beta.T), topic_mass, np.ascontiguousarray(locations @ rotation), curvature, z, alpha,
        omega, expected, int(max_iter), float(tol), bool(want_sstats), numba.get_num_threads(), _longest_first(counts))
    return {"u": z @ rotation.T, "alpha": alpha, "omega": omega, "expected": expected,
            "sstats": sstats_t.T * exp_elog_beta if want_sstats else None, "steps": steps[:, 0] + steps[:, 1],
            "ascent_steps": steps[:, 0], "bfgs_steps": steps[:, 1], "evaluations": steps[:, 2]}


@njit(parallel=True, cache=True)
def _cnmf_objective(indptr, indices, data, exp_elog_beta_t, topic_mass, locations, u, alpha, grad_u, expected, omega):
    n_docs = indptr.shape[0] - 1
    n_topics, m = locations.shape
    locations_t = np.ascontiguousarray(locations.T)
    values = np.zeros(n_docs)
    for d in prange(n_docs):
        start, stop = indptr[d], indptr[d + 1]
        n_ids = stop - start
        scores, phinorm, weight, sub = np.empty(n_topics), np.empty(n_ids), np.empty(n_ids), np.empty((n_topics, n_ids))
        topics = np.arange(n_topics)
        _gather_topics(indices[start:stop], exp_elog_beta_t, topics, sub)
        top = _cnmf_scores(locations_t, u[d], scores)
        values[d] = _cnmf_value(data[start:stop], sub, topics, topic_mass, scores, top, alpha[d], u[d],
                                phinorm)
        _cnmf_gradient(data[start:stop], sub, locations, topic_mass, scores, top, alpha[d], u[d], phinorm, weight,
                       omega[d], expected[d], grad_u[d])
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
