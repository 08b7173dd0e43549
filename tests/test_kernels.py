"""The numba LDA E-step against a plain-numpy transcription of Hoffman's onlineldavb.py E step.

The kernel is tuned for speed (fused word sweeps, vectorised dot products with reordered sums, a
one-division digamma, word-parallel sufficient statistics), so these tests pin it to the reference
algorithm: Hoffman, Blei and Bach 2010, Alg. 2 E step, gamma initialised to 1, stopped when the mean
|change in gamma| < tol or after max_iter iterations.
"""
import math

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import psi

from topicbench.kernels.lda_reference import reference_e_step
from topicbench import kernels
from topicbench.kernels import special
from topicbench.kernels.dense import _fetch_add


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(42)
    n_docs, n_words, n_topics = 120, 400, 13  # K odd: exercises the vector loops' remainders
    counts = sp.random(n_docs, n_words, density=0.08, random_state=rng,
                       data_rvs=lambda n: rng.integers(1, 6, n)).tocsr()
    counts = counts.tolil()
    counts[7, :] = 0  # an empty document
    counts[8, :] = 0
    counts[8, 3] = 9  # a one-word document (odd word count: the unpaired word)
    counts = counts.tocsr()
    counts.eliminate_zeros()
    lam = rng.gamma(0.3, 1.0, (n_topics, n_words)) + 0.01
    exp_elog_beta = np.exp(psi(lam) - psi(lam.sum(axis=1, keepdims=True)))
    return counts, exp_elog_beta


def test_fixed_iterations_match_reference(problem):
    """tol = 0 runs every document for exactly max_iter iterations: same arithmetic, reordered sums only."""
    counts, exp_elog_beta = problem
    gamma, sstats, iterations = kernels.lda_e_step(counts, exp_elog_beta, 0.05, max_iter=25, tol=0.0)
    ref_gamma, ref_sstats, ref_iterations = reference_e_step(counts, exp_elog_beta, 0.05, 25, 0.0)
    assert np.array_equal(iterations, ref_iterations)
    # the kernel's series digamma is within ~1e-11 of scipy's psi, and 25 unconverged iterations
    # amplify that to ~1e-9 relative on this problem (the kernel before the speed-up: 8.8e-10)
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(sstats, ref_sstats, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("alpha, tol", [(0.01, 1e-3), (0.1, 1e-3), (0.5, 1e-5)])
def test_converged_e_step_matches_reference(problem, alpha, tol):
    """Hoffman's stopping rule: the same iteration count for every document, and the same fixed point."""
    counts, exp_elog_beta = problem
    gamma, sstats, iterations = kernels.lda_e_step(counts, exp_elog_beta, alpha, max_iter=100, tol=tol)
    ref_gamma, ref_sstats, ref_iterations = reference_e_step(counts, exp_elog_beta, alpha, 100, tol)
    assert np.array_equal(iterations, ref_iterations)
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sstats, ref_sstats, rtol=1e-9, atol=1e-12)
    assert sstats.sum() == pytest.approx(counts.sum(), rel=1e-12)  # sum_k phi_wk = 1 for every token


def test_empty_document_gets_the_prior(problem):
    counts, exp_elog_beta = problem
    gamma, sstats, _ = kernels.lda_e_step(counts[7:8], exp_elog_beta, 0.2)
    np.testing.assert_array_equal(gamma, np.full((1, exp_elog_beta.shape[0]), 0.2))
    assert not sstats.any()


def test_warm_start_and_no_sstats(problem):
    counts, exp_elog_beta = problem
    gamma0 = np.random.default_rng(1).gamma(2.0, 1.0, (counts.shape[0], exp_elog_beta.shape[0]))
    gamma, sstats, _ = kernels.lda_e_step(counts, exp_elog_beta, 0.1, max_iter=50, tol=1e-6, gamma=gamma0,
                                          want_sstats=False)
    ref_gamma, _, _ = reference_e_step(counts, exp_elog_beta, 0.1, 50, 1e-6, gamma0=gamma0)
    assert sstats is None
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-9, atol=1e-12)
    assert not np.shares_memory(gamma, gamma0)


def test_thread_count_does_not_change_a_bit(problem):
    counts, exp_elog_beta = problem
    before = kernels.numba.get_num_threads()
    try:
        kernels.set_threads(1)
        one = kernels.lda_e_step(counts, exp_elog_beta, 0.05)
        kernels.set_threads(2)
        two = kernels.lda_e_step(counts, exp_elog_beta, 0.05)
    finally:
        kernels.set_threads(before)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_document_gets_the_same_bits_alone_or_after_any_other(problem, threads):
    """Each worker reuses one workspace for every document it takes, and which documents it takes depends on timing
    (``_fetch_add``): nothing may carry over from one document to the next. Each document alone, and all of them in
    reverse order, give the bits of one call over all of them, on a problem that gathers active topics."""
    counts, exp_elog_beta = problem
    before = kernels.numba.get_num_threads()
    try:
        kernels.set_threads(threads)
        diagnostics = {}
        gamma, _, iterations = kernels.lda_e_step(counts, exp_elog_beta, 0.01, diagnostics=diagnostics)
        assert diagnostics["gathers"] > 0 and diagnostics["reused_sets"] > 0
        for d in range(counts.shape[0]):
            alone, _, alone_iterations = kernels.lda_e_step(counts[d:d + 1], exp_elog_beta, 0.01)
            assert np.array_equal(alone[0], gamma[d]) and alone_iterations[0] == iterations[d], d
        backwards, _, backwards_iterations = kernels.lda_e_step(counts[::-1], exp_elog_beta, 0.01)
    finally:
        kernels.set_threads(before)
    assert np.array_equal(backwards[::-1], gamma) and np.array_equal(backwards_iterations[::-1], iterations)


@numba.njit(parallel=True)
def _claim_everything(n_items, n_workers, slow_item, taken):
    """Workers take items with ``_fetch_add`` until none is left; taken[worker, item] = 1. ``slow_item`` keeps its
    worker busy for a while (a sum nobody reads would be optimised away, so it is stored)."""
    next_item = np.zeros(1, dtype=np.int64)
    for worker in numba.prange(n_workers):
        item = _fetch_add(next_item, 1)
        while item < n_items:
            taken[worker, item] = 1
            if item == slow_item:
                total = 0.0
                for j in range(60_000_000):
                    total += math.sqrt(j + 1.0)
                taken[worker, item] = 1 + (total < 0)
            item = _fetch_add(next_item, 1)


def test_workers_take_each_item_once_and_share_them_out_as_they_go():
    """``_fetch_add`` is one atomic step: two workers never get the same item (a plain load-add-store would hand the
    same item to both, often, in 400,000 tight claims). And the items go out as workers free up: while one
    worker is held by a slow item, the other takes nearly all the rest (a split fixed in advance gives each half)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two threads")
    before = kernels.numba.get_num_threads()
    try:
        kernels.set_threads(2)
        taken = np.zeros((2, 400_000), dtype=np.int8)
        _claim_everything(taken.shape[1], 2, -1, taken)
        np.testing.assert_array_equal(taken.sum(axis=0), 1)
        taken = np.zeros((2, 1000), dtype=np.int8)
        _claim_everything(taken.shape[1], 2, 0, taken)
    finally:
        kernels.set_threads(before)
    np.testing.assert_array_equal(taken.sum(axis=0), 1)
    slow_worker = int(np.argmax(taken[:, 0]))
    assert taken[slow_worker].sum() < 100, taken.sum(axis=1)


def test_nonzeros_grouped_by_word_by_hand():
    """The counting sort the E step's word-major sweeps use. Documents {1, 0}, {1}, {2, 1} over 4 words (word 3
    absent): word 0 holds nonzero 1; word 1 nonzeros 0, 2, 4 (documents 0, 1, 2); word 2 nonzero 3."""
    from topicbench.kernels.sparse import _group_by_word

    word_start, token_of, doc_of = _group_by_word(np.array([0, 2, 3, 5], np.int64), np.array([1, 0, 1, 2, 1], np.int64), 4)
    assert word_start.tolist() == [0, 1, 4, 5, 5]
    assert token_of.tolist() == [1, 0, 2, 4, 3]
    assert doc_of.tolist() == [0, 0, 1, 2, 2]


def test_mixture_probs_by_hand():
    """p(w | d) = sum_k theta_dk topics_kw at each nonzero, in CSR order. Document 0 holds words 2, 0; document 1
    word 1. theta = [[0.25, 0.75], [0.5, 0.5]], topics = [[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]]: 0.25 * 0.25 + 0.75 * 0.7,
    0.25 * 0.5 + 0.75 * 0.1, then 0.5 * 0.25 + 0.5 * 0.2."""
    from topicbench.kernels.sparse import mixture_probs

    word_ids = sp.csr_matrix((np.ones(3), np.array([2, 0, 1]), np.array([0, 2, 3])), shape=(2, 3))
    got = mixture_probs(word_ids, np.array([[0.25, 0.75], [0.5, 0.5]]), np.array([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]]))
    np.testing.assert_allclose(got, [0.5875, 0.2, 0.225], rtol=1e-15)


def test_one_division_digamma_matches_scipy():
    xs = np.concatenate([np.geomspace(1e-6, 1e9, 400), [0.01, 0.5, 1.0, 5.999, 6.0, 6.001]])
    ours = np.array([special._digamma_one_division(x) for x in xs])
    # the asymptotic series is cut after x^-10 at x >= 6 (error < 1e-11, as ``digamma``)
    np.testing.assert_allclose(ours, psi(xs), rtol=1e-11, atol=1e-11)


@numba.njit(fastmath={"contract"}, error_model="numpy")
def libm_exp_theta(gammas, psi_total):
    """The scalar loop ``_exp_theta_block`` replaced, compiled with the kernel's flags (FMA contraction)."""
    out = np.empty_like(gammas)
    for k in range(gammas.shape[0]):
        y, c = special._digamma_parts(gammas[k])
        out[k] = y * math.exp(-c - psi_total)
    return out


@pytest.mark.parametrize("psi_total", [-1.0, 0.0, 4.6])
def test_vectorised_exp_theta_matches_libm(psi_total):
    """``_exp_theta_block`` replaces libm's exp by a polynomial so that the loop vectorises: within 2 ulp of
    the scalar libm loop it replaces (relative 4.5e-16), and equal to it below 2^-1021 (gamma_k ~ 1e-3:
    subnormal and underflowing results), where it falls back to libm. Lengths 3 and 13 exercise the remainders."""
    gammas = np.concatenate([np.geomspace(1e-4, 1e6, 2000), [1e-3, 0.0014, 0.0015, 0.01, 1.0, 5.999, 6.0, 6.001]])
    expected = libm_exp_theta(gammas, psi_total)
    assert (expected == 0).any() and ((expected > 0) & (expected < 2.0 ** -1022)).any()  # the fall-back is used
    for n in (len(gammas), 3, 13):
        ours = np.empty(n)
        special._exp_theta_block(gammas[:n], psi_total, ours, np.empty(n, dtype=np.int64))
        normal = expected[:n] >= 2.0 ** -1021
        np.testing.assert_allclose(ours[normal], expected[:n][normal], rtol=4.5e-16, atol=0)
        np.testing.assert_array_equal(ours[~normal], expected[:n][~normal])

def test_dirichlet_expectation_matches_scipy():
    """E[log theta] = psi(gamma_k) - psi(sum_k gamma_k) (Hoffman et al. 2010, eq. 6), as the bounds use it."""
    gamma = np.random.default_rng(4).gamma(0.5, 3.0, (9, 40)) + 1e-3
    expected = psi(gamma) - psi(gamma.sum(axis=1, keepdims=True))
    # the series digamma is within 1e-11 of scipy's (test_lda.py::test_digamma_matches_scipy)
    np.testing.assert_allclose(kernels.dirichlet_expectation(gamma), expected, rtol=1e-10, atol=1e-10)


def test_exp_dirichlet_expectation_matches_scipy():
    lam = np.random.default_rng(3).gamma(0.5, 3.0, (7, 300)) + 1e-3
    expected = np.exp(psi(lam) - psi(lam.sum(axis=1, keepdims=True)))
    np.testing.assert_allclose(kernels.exp_dirichlet_expectation_t(lam), expected.T, rtol=1e-10)


@pytest.mark.parametrize("n_words", [1, 63, 64, 65, 1001])
def test_word_major_exp_dirichlet_expectation_over_its_column_blocks(n_words):
    """exp(E[log beta]) written V x K (the E step's layout) in blocks of 64 columns: eq. 6 against scipy at widths
    around the block size, C-contiguous (the E step reads it without a copy)."""
    lam = np.random.default_rng(n_words).gamma(0.5, 3.0, (7, n_words)) + 1e-3
    word_major = kernels.exp_dirichlet_expectation_t(lam)
    assert word_major.shape == (n_words, 7) and word_major.flags.c_contiguous
    expected = np.exp(psi(lam) - psi(lam.sum(axis=1, keepdims=True)))
    np.testing.assert_allclose(word_major, expected.T, rtol=1e-10, atol=1e-300)  # subnormals hold few bits


def test_e_step_on_word_major_topics_is_the_e_step_on_topic_major_ones():
    """lda_e_step(..., word_major=True) reads a V x K array as the transposed K x V one: same gamma, sstats, iterations;
    a K x V array passed as word-major is refused naming the shape the kernel would read past."""
    rng = np.random.default_rng(5)
    lam = rng.gamma(0.3, 2.0, (6, 40)) + 0.01
    counts = sp.random(30, 40, density=0.2, random_state=1, format="csr", data_rvs=lambda n: rng.integers(1, 5, n))
    topics_t = kernels.exp_dirichlet_expectation_t(lam)
    a = kernels.lda_e_step(counts, np.ascontiguousarray(topics_t.T), 0.1)
    b = kernels.lda_e_step(counts, topics_t, 0.1, word_major=True)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="V x K with V = 40"):
        kernels.lda_e_step(counts, rng.random((6, 41)), 0.1, word_major=True)


def adversarial_problem(seed):
    """Peaked topics, tiny alpha, stray words of absent topics (see test_adversarial_topics_match_reference)."""
    rng = np.random.default_rng(100 + seed)
    n_docs, n_words, n_topics = 60, 200, 30
    lam = rng.gamma(0.02, 1.0, (n_topics, n_words)) + 1e-3
    exp_elog_beta = np.exp(psi(lam) - psi(lam.sum(axis=1, keepdims=True)))
    owner = exp_elog_beta.argmax(axis=0)
    rows, cols, vals = [], [], []
    for d in range(n_docs):
        main = rng.choice(n_topics, size=2, replace=False)
        words = rng.choice(np.flatnonzero(np.isin(owner, main)), size=15)
        stray = rng.choice(np.flatnonzero(~np.isin(owner, main)), size=2, replace=False)  # absent topics' words
        for w in np.concatenate([words, stray]):
            rows.append(d), cols.append(w), vals.append(int(rng.integers(1, 8)) if w in words else 1)
    counts = sp.csr_matrix((vals, (rows, cols)), shape=(n_docs, n_words))
    counts.sum_duplicates()
    return counts, exp_elog_beta, 1e-3, 200, 1e-4


def skipped_topics_problem():
    """Peaked topics and alpha = 0.01: most gamma_k end at alpha_k (see test_skipped_topics_stay_at_alpha_exactly)."""
    rng = np.random.default_rng(7)
    n_docs, n_words, n_topics = 80, 300, 40
    counts = sp.random(n_docs, n_words, density=0.15, random_state=rng,
                       data_rvs=lambda n: rng.integers(1, 4, n)).tocsr()
    lam = rng.gamma(0.1, 1.0, (n_topics, n_words)) + 0.01  # peaked topics: documents use few of them
    exp_elog_beta = np.exp(psi(lam) - psi(lam.sum(axis=1, keepdims=True)))
    return counts, exp_elog_beta, 0.01, 100, 1e-3


def test_skipped_topics_stay_at_alpha_exactly():
    """With a small alpha most topics fall to gamma_k = alpha_k exactly (their term rounds away); the kernel
    skips those once its bound proves it, so it must agree with the full reference, bit for bit on them."""
    counts, exp_elog_beta, _, _, _ = skipped_topics_problem()
    gamma, sstats, iterations = kernels.lda_e_step(counts, exp_elog_beta, 0.01, max_iter=100, tol=1e-3)
    ref_gamma, ref_sstats, ref_iterations = reference_e_step(counts, exp_elog_beta, 0.01, 100, 1e-3)
    at_alpha = ref_gamma == 0.01
    assert at_alpha.mean() > 0.5  # the case the skipping is for
    assert np.array_equal(iterations, ref_iterations)
    assert np.array_equal(gamma == 0.01, at_alpha)
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-9, atol=1e-12)
    # relative, with no absolute floor: the skipped topics' statistics (down to 1e-88 here) are taken with their
    # exact final exp_theta_k, not with the bound the sparse sweeps held (within 3e-11 of scipy's psi)
    np.testing.assert_allclose(sstats, ref_sstats, rtol=1e-9, atol=0)


@pytest.mark.parametrize("seed", range(4))
def test_adversarial_topics_match_reference(seed):
    """Extremely peaked topics (Dirichlet-like lambda down to 1e-3) and a tiny alpha, with documents that
    mix words owned by different topics plus single tokens of words owned by otherwise absent topics:
    the case where a large exp_beta_kw meets a tiny phinorm_w, which the skip bound must catch (or the
    sweep must be redone over all topics). Whatever path the kernel takes, it must agree with the reference."""
    counts, exp_elog_beta, _, _, _ = adversarial_problem(seed)
    gamma, sstats, iterations = kernels.lda_e_step(counts, exp_elog_beta, 1e-3, max_iter=200, tol=1e-4)
    ref_gamma, ref_sstats, ref_iterations = reference_e_step(counts, exp_elog_beta, 1e-3, 200, 1e-4)
    assert np.array_equal(iterations, ref_iterations)
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sstats, ref_sstats, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make", [lambda: adversarial_problem(0), lambda: adversarial_problem(1), skipped_topics_problem],
                         ids=["adversarial0", "adversarial1", "skipped_topics"])
def test_fallback_sweeps_match_reference(make):
    """skip_margin = 2^40 chooses topics to skip at a 2^-20 bound, so the 2^-60 check after the sweep fails
    routinely and the sweep is redone over all topics: that path must run, and agree with the reference
    exactly as the default margin does."""
    counts, exp_elog_beta, alpha, max_iter, tol = make()
    ref_gamma, ref_sstats, ref_iterations = reference_e_step(counts, exp_elog_beta, alpha, max_iter, tol)
    for margin in (2.0 ** 40, kernels.SKIP_MARGIN):
        diagnostics = {}
        gamma, sstats, iterations = kernels.lda_e_step(counts, exp_elog_beta, alpha, max_iter, tol,
                                                       skip_margin=margin, diagnostics=diagnostics)
        assert diagnostics["gathers"] > 0
        assert diagnostics["reused_sets"] > 0  # a shrunken set swept from the last gather's topic-major copy
        if margin == 2.0 ** 40:
            assert diagnostics["fallback_sweeps"] > 0
        else:  # a skipped topic has gamma_k = alpha_k exactly, so the bound exp(psi(alpha_k)) exp(-psi(sum gamma))
            # on its exp_theta_k is exact to 2^-40: only a topic whose term grew 2^10-fold in one sweep could fail the
            # check. None does here; a wrong bound (a sign in either exponent) fails it on most sparse sweeps.
            assert diagnostics["fallback_sweeps"] == 0
        # every iteration sweeps once, a fall-back twice; the first sweep of each document is over all topics
        assert diagnostics["dense_sweeps"] + diagnostics["sparse_sweeps"] == iterations.sum() + diagnostics["fallback_sweeps"]
        assert diagnostics["dense_sweeps"] >= counts.shape[0] and diagnostics["sparse_sweeps"] > 0
        assert 0 < diagnostics["active_topics_swept"] < diagnostics["sparse_sweeps"] * exp_elog_beta.shape[0]
        assert np.array_equal(iterations, ref_iterations)
        np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(sstats, ref_sstats, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("first", ["largest", "smallest"])
def test_asymmetric_alpha_matches_reference(first):
    """alpha may be a K-vector (Alg. 2's alpha_k): gamma_k = alpha_k + exp_theta_k sum_w n_w exp_beta_kw / phinorm_w,
    a skipped topic is held at its own alpha_k, and the skip bounds read exp(psi(alpha_k)) and eps alpha_k. Alphas
    spread over four decades (past the 2^10 skip margin) with alpha_0 the largest or the smallest, so alpha_0 in place
    of alpha_k moves gamma, or makes a bound too loose (a topic chosen to be skipped that the check after the sweep
    rejects) or too tight (the check fails on sets chosen right): with the right bounds no sweep is redone here (see
    test_fallback_sweeps_match_reference)."""
    counts, exp_elog_beta, _, max_iter, tol = skipped_topics_problem()
    n_topics = exp_elog_beta.shape[0]
    spread = np.geomspace(1e-4, 1.0, n_topics)
    others = np.random.default_rng(2).permutation(n_topics - 1)
    alpha = (np.concatenate([spread[-1:], spread[:-1][others]]) if first == "largest"
             else np.concatenate([spread[:1], spread[1:][others]]))
    diagnostics = {}
    gamma, sstats, iterations = kernels.lda_e_step(counts, exp_elog_beta, alpha, max_iter, tol, diagnostics=diagnostics)
    ref_gamma, ref_sstats, ref_iterations = reference_e_step(counts, exp_elog_beta, alpha, max_iter, tol)
    assert diagnostics["sparse_sweeps"] > 0 and (ref_gamma == alpha).mean() > 0.25  # topics skipped at their alpha_k
    assert diagnostics["fallback_sweeps"] == 0
    assert np.array_equal(iterations, ref_iterations)
    np.testing.assert_array_equal(gamma == alpha, ref_gamma == alpha)
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sstats, ref_sstats, rtol=1e-9, atol=1e-12)

@pytest.mark.parametrize("margin", [0.0, -1.0, float("nan")])
def test_bad_skip_margin_is_refused(problem, margin):
    counts, exp_elog_beta = problem
    with pytest.raises(ValueError, match="skip_margin"):
        kernels.lda_e_step(counts, exp_elog_beta, 0.01, skip_margin=margin)


def test_natural_gradient_step_matches_numpy():
    """The fused update must be the two numpy lines of Alg. 2's M step, bit for bit (same operation order)."""
    rng = np.random.default_rng(3)
    lam = rng.gamma(100.0, 0.01, (7, 53))
    sstats = rng.gamma(0.5, 2.0, (7, 53))
    rho, eta, scale = 0.37, 0.01, 1000.0 / 64
    expected = (1 - rho) * lam + rho * (eta + scale * sstats)
    assert np.array_equal(kernels.natural_gradient_step(lam, rho, eta, scale, sstats), expected)


def test_parallel_transpose_is_the_transpose():
    """``_transpose`` (the E step's word-major copy of exp E[log beta]) goes in 64 x 64 blocks; the other tests have
    K < 64 topics, so one block spans them. Here both sides pass a block and end mid-block: no edge row or column
    may be left out (np.empty would leave it garbage)."""
    from topicbench.kernels.dense import _transpose

    matrix = np.random.default_rng(0).uniform(size=(130, 197))
    assert np.array_equal(_transpose(matrix), matrix.T)


def test_every_cached_kernel_is_stamped_with_the_whole_package():
    """numba keys a cached kernel by its own file only, but inlines callees from the package's other files
    (``special._exp_theta_block`` in ``lda_estep._lda_e_step``): each must carry the stamp of all of them
    (``kernels._cache``), or an edit of special.py would leave the E-step's cached machine code stale. The same
    holds for topicbench/nmf_kernels.py, which inlines the package's helpers."""
    from topicbench import nmf_kernels
    from topicbench.kernels import _cache, dense, lda_estep, sparse
    dispatchers = [f for module in (special, dense, sparse, lda_estep, nmf_kernels) for f in vars(module).values()
                   if isinstance(f, numba.core.dispatcher.Dispatcher)
                   and isinstance(f._cache, numba.core.caching.FunctionCache)]  # the cache=True ones
    assert {f.__module__ for f in dispatchers} == {special.__name__, dense.__name__, sparse.__name__,
                                                   lda_estep.__name__, nmf_kernels.__name__}
    for f in dispatchers:
        assert f._cache._cache_file._source_stamp == _cache.package_stamp(), f.__name__


def test_e_step_sweep_helpers_by_hand():
    """The pieces of one E-step sweep (Hoffman et al. 2010, Alg. 2 E step, phi_wk = exp_theta_k exp_beta_kw /
    phinorm_w), in plain numpy: phinorm_w = sum_k exp_theta_k exp_beta_kw, new_gamma_k = sum_w n_w exp_beta_kw /
    phinorm_w, and what the topic-skipping bound reads: token_sum = sum_w n_w / phinorm_w, min_w phinorm_w,
    topic_max_k = max_w exp_beta_kw. Seven words: one pass of four plus three left over. Then gamma_k = alpha_k +
    exp_theta_k new_gamma_k (alpha_k for a skipped topic) and the skip check's two inequalities, each made to fail."""
    from topicbench.kernels import lda_estep as es

    rng = np.random.default_rng(5)
    n_topics, n_words = 5, 12
    beta_t = rng.uniform(0.01, 1.0, (n_words, n_topics))  # exp E[log beta], word-major
    ids = np.array([0, 2, 3, 5, 7, 8, 11], dtype=np.int64)
    beta_t[3] *= 0.01  # the smallest phinorm is the third word of the pass of four (not the first, not the rest)
    cts = np.array([1.0, 4.0, 2.0, 7.0, 1.0, 3.0, 2.0])
    exp_theta = rng.uniform(0.05, 0.9, n_topics)
    phinorm = beta_t[ids] @ exp_theta
    want_gamma = (cts / phinorm) @ beta_t[ids]
    for uniform in (False, True):
        theta = np.full(n_topics, exp_theta[0]) if uniform else exp_theta
        norm = beta_t[ids] @ theta
        assert np.argmin(norm) == 2
        new_gamma, topic_max = np.full(n_topics, np.nan), np.full(n_topics, np.nan)
        token_sum, min_phinorm = es._gamma_sweep(ids, cts, beta_t, theta, new_gamma, topic_max, True,
                                                 beta_t.sum(axis=1), uniform)
        np.testing.assert_allclose(new_gamma, (cts / norm) @ beta_t[ids], rtol=1e-13)
        np.testing.assert_allclose(topic_max, beta_t[ids].max(axis=0), rtol=0)
        assert token_sum == pytest.approx(np.sum(cts / norm), rel=1e-13)
        assert min_phinorm == pytest.approx(norm.min(), rel=1e-13)
    # the sparse sweep over a topic-major copy of three topics' columns
    rows = np.array([0, 2, 1], dtype=np.int64)  # topics 3, 0, 4 sit at rows 0, 2, 1 of the copy
    sub = np.ascontiguousarray(beta_t[ids][:, [3, 4, 0]].T)
    theta3 = exp_theta[[3, 0, 4]]
    norm3 = beta_t[ids][:, [3, 0, 4]] @ theta3
    new_gamma, pn, weight = np.zeros(3), np.zeros(len(ids)), np.zeros(len(ids))
    token_sum, min_phinorm = es._topic_sweep(cts, sub, rows, theta3, new_gamma, pn, weight, np.zeros(1, np.int64))
    np.testing.assert_allclose(new_gamma, (cts / norm3) @ beta_t[ids][:, [3, 0, 4]], rtol=1e-13)
    assert token_sum == pytest.approx(np.sum(cts / norm3), rel=1e-13)
    assert min_phinorm == pytest.approx(norm3.min(), rel=1e-13)
    # gamma_k = alpha_k + exp_theta_k new_gamma_k; topic 1 skipped (position -1) stays at alpha_1
    alpha = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    position = np.array([0, -1, 1, 2, 3], dtype=np.int64)
    theta_a, gamma_a = np.array([0.5, 0.25, 2.0, 1.0]), np.array([2.0, 4.0, 0.5, 3.0])
    gamma = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
    change = es._update_gamma(alpha, gamma, theta_a, gamma_a, position)
    want = np.array([0.1 + 1.0, 0.2, 0.3 + 1.0, 0.4 + 1.0, 0.5 + 3.0])
    np.testing.assert_allclose(gamma, want, rtol=1e-15)
    assert change == pytest.approx(np.sum(np.abs(want - 1.0)), rel=1e-15)
    # the skip check: skipped k (position -1) need exp_theta_k topic_max_k token_sum < eps alpha_k, and
    # sum_skipped exp_theta_k topic_max_k < eps min_phinorm
    theta = np.array([1.0, 1e-3, 1.0, 1e-3, 1.0])
    tmax = np.ones(5)
    pos = np.array([0, -1, 1, -1, 2], dtype=np.int64)
    a = np.full(5, 0.5)
    assert es._skipped_ok(theta, tmax, pos, a, 1.0, 0.3, 0.01)  # terms 1e-3 < 0.01 * 0.5; mass 2e-3 < 0.01 * 0.3
    assert not es._skipped_ok(theta, tmax, pos, a, 10.0, 0.3, 0.01)  # a term 1e-3 * 10 >= 0.01 * 0.5
    assert not es._skipped_ok(theta, tmax, pos, a, 1.0, 0.15, 0.01)  # the mass 2e-3 >= 0.01 * 0.15 > each term


@pytest.mark.parametrize("user, expected", [(None, "PASSIVE"), ("active", "active")])
def test_openmp_threads_sleep_while_they_wait_unless_the_user_says_otherwise(user, expected):
    """Spinning threads charge a fit's CPU clock for waiting (benchmarks/RESULTS.md, "OpenMP waiting"), so the kernels
    ask libgomp for passive waiting before numba loads it; a user's own OMP_WAIT_POLICY is kept."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if user is not None:
        env["OMP_WAIT_POLICY"] = user
    code = "import os, topicbench.kernels; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == expected


@pytest.mark.parametrize("theta, topics", [
    pytest.param(np.full((2, 2), 0.5), np.full((2, 4), 0.25), id="topics-of-another-vocabulary"),
    pytest.param(np.full((2, 3), 1 / 3), np.full((2, 3), 1 / 3), id="theta-of-another-topic-count"),
    pytest.param(np.full((2, 2), 0.5), np.full(3, 1 / 3), id="topics-1-d"),
])
def test_mixture_probs_refuses_arrays_that_do_not_fit(theta, topics):
    """Each shape check alone refuses: the kernel indexes without bounds checks, so one that slips through reads
    past an array."""
    from topicbench.kernels.sparse import mixture_probs

    word_ids = sp.csr_matrix((np.ones(3), np.array([2, 0, 1]), np.array([0, 2, 3])), shape=(2, 3))
    with pytest.raises(ValueError, match="mixture_probs: topics must be K x V"):
        mixture_probs(word_ids, theta, topics)


def test_e_step_refuses_topics_of_another_vocabulary(problem):
    """A 2-d exp_elog_beta with one column too many is refused, not read at the counts' word ids."""
    counts, exp_elog_beta = problem
    with pytest.raises(ValueError, match="exp_elog_beta must be K x V"):
        kernels.lda_e_step(counts, np.hstack([exp_elog_beta, exp_elog_beta[:, :1]]), 0.05)
