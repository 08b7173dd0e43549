"""The LDA family's update equations, each against an independent computation (issue #10).

Every test here recomputes what one equation should give with ``topicbench/kernels/lda_reference.py`` (scipy's psi and
Dirichlet entropies, Hoffman's onlineldavb.py E step), never through the methods' own code path, on problems
small enough to take well under a second. ``tests/mutants/lda.py`` lists the equation errors each one catches.

Tolerances: the E steps run to e_step_tol = 1e-10 (mean |change in gamma|), so the kernel and the reference
reach the same fixed point whatever their iteration counts; they then differ only by the kernel's series
digamma (~1e-11 relative, tests/test_kernels.py) and summation order, hence rtol 1e-8 on lambda and bounds.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from topicbench.kernels import lda_bound
from topicbench.kernels.lda_reference import elog_dirichlet, reference_doc_terms, reference_e_step, reference_sstats, reference_topic_terms
from topicbench.method import get_method
from topicbench.streams import Minibatch

V, K, ALPHA, ETA = 150, 5, 0.1, 0.05
TIGHT = {"e_step_tol": 1e-10, "e_step_max_iter": 2000}
RTOL = 1e-8  # see the module docstring


@pytest.fixture(scope="module")
def counts():
    """60 documents of 20-60 tokens from 5 peaked topics over 150 words (so the E step has a real optimum)."""
    rng = np.random.default_rng(11)
    topics = rng.dirichlet(np.full(V, 0.05), K)
    rows = []
    for _ in range(60):
        theta = rng.dirichlet(np.full(K, 0.3))
        rows.append(rng.multinomial(rng.integers(20, 61), theta @ topics))
    return sp.csr_matrix(np.array(rows, dtype=np.float64))


def batch_of(counts, start, stop, index=0):
    rows = np.arange(start, stop)
    return Minibatch(counts[start:stop], rows, rows, None, index)


# -- online LDA: Hoffman et al. 2010, Alg. 2 and sec. 2.2 ------------------------------------------------
def test_online_lda_step_size_is_tau0_plus_t_to_the_minus_kappa(counts):
    """rho_t = (tau0 + t)^-kappa with t = 0, 1, 2, ... the number of updates before this one (Alg. 2)."""
    tau0, kappa = 3.0, 0.7
    method = get_method("online_lda")(V, seed=0, corpus_size=600, K=K, tau0=tau0, kappa=kappa, batch_size=10)
    rhos = []
    for t in range(4):
        method.partial_fit(batch_of(counts, 10 * t, 10 * t + 10, t))
        rhos.append(method.progress()["rho"])
    np.testing.assert_allclose(rhos, [3.0 ** -0.7, 4.0 ** -0.7, 5.0 ** -0.7, 6.0 ** -0.7], rtol=1e-15)


def svi_steps(method, counts, data_size, tau0, kappa, size=20, steps=3):
    """Run ``steps`` minibatches of ``size`` documents through ``method`` and, beside it, Alg. 2 by hand:
    lambda <- (1 - rho_t) lambda + rho_t (eta + data_size / S * sstats), rho_t = (tau0 + t)^-kappa."""
    lam = method.lam.copy()
    for t in range(steps):
        batch = batch_of(counts, size * t, size * (t + 1), t)
        method.partial_fit(batch)
        rho = (tau0 + t) ** -kappa
        lam_tilde = ETA + data_size / size * reference_sstats(lam, batch.counts, ALPHA, TIGHT["e_step_max_iter"],
                                                              TIGHT["e_step_tol"])
        lam = (1 - rho) * lam + rho * lam_tilde
        np.testing.assert_allclose(method.lam, lam, rtol=RTOL, atol=0, err_msg=f"after step {t}")
        assert (method.updates, method.docs_seen) == (t + 1, size * (t + 1))  # the trace's counters


def test_online_lda_step_matches_alg2_by_hand(counts):
    """Three steps of online LDA from its lambda_0, against Alg. 2 computed independently: the E step, D/|S|
    (sec. 2.2, "Mini-batches"), eta + the scaled statistics, the blend and rho_t all enter lambda."""
    method = get_method("online_lda")(V, seed=1, corpus_size=1000, K=K, alpha=ALPHA, eta=ETA, tau0=2.0, kappa=0.7,
                                      batch_size=20, **TIGHT)
    svi_steps(method, counts, data_size=1000, tau0=2.0, kappa=0.7)


# -- batch LDA: Hoffman et al. 2010, Alg. 1 -------------------------------------------------------------------
def test_batch_lda_m_step_is_eta_plus_reference_sstats(counts):
    """Two passes of batch VB: each pass sets lambda = eta + sum_d n_dw phi_dwk (Alg. 1 M step, eq. 5) with phi
    from a reference E step at the previous lambda, and its ELBO is eq. 4 at that previous lambda."""
    method = get_method("batch_lda")(V, seed=2, K=K, alpha=ALPHA, eta=ETA, rel_tol=0.0, **TIGHT)
    lam = method.lam.copy()
    for n in range(2):
        method.partial_fit(batch_of(counts, 0, counts.shape[0]))
        gamma, sstats, _ = reference_e_step(counts, np.exp(elog_dirichlet(lam)), ALPHA, TIGHT["e_step_max_iter"],
                                            TIGHT["e_step_tol"])
        elbo = reference_doc_terms(counts, gamma, lam, ALPHA) + reference_topic_terms(lam, ETA)
        assert method.elbo_trace[n] == pytest.approx(elbo, rel=RTOL)
        lam = ETA + sstats
        np.testing.assert_allclose(method.lam, lam, rtol=RTOL, atol=0, err_msg=f"after pass {n}")


# -- the bounds: Hoffman et al. 2010, eqs. 4 and 16 -------------------------------------------------------------
def test_bounds_match_eq4_term_by_term(counts):
    """doc_bound at an arbitrary gamma (phi optimal given gamma) and topic_bound at an arbitrary lambda equal eq. 4
    written out term by term; heldout_elbo is eq. 16: the per-document terms at the E step's gamma per token."""
    rng = np.random.default_rng(5)
    method = get_method("batch_lda")(V, seed=3, K=K, alpha=ALPHA, eta=ETA, **TIGHT)
    method.lam = rng.gamma(0.5, 4.0, (K, V)) + 0.05
    method._refresh()
    gamma = rng.gamma(1.0, 3.0, (counts.shape[0], K)) + ALPHA
    gamma[rng.random(gamma.shape) < 0.3] = ALPHA  # topics the E step left at the prior (the numba bound's short cut)
    expected = reference_doc_terms(counts, gamma, method.lam, ALPHA)
    assert method.doc_bound(counts, gamma) == pytest.approx(expected, rel=RTOL)
    # streaming VB's stopping rule evaluates the same sum in numba over the minibatch's own columns
    # (topicbench/kernels/lda_bound.py): on all documents, and on 5 that leave most words out
    assert lda_bound.doc_bound(lda_bound.minibatch_columns(counts, V), method.exp_elog_beta, gamma,
                               ALPHA) == pytest.approx(expected, rel=RTOL)
    few = counts[10:15]
    assert np.count_nonzero(few.sum(axis=0)) < V / 2
    assert lda_bound.doc_bound(lda_bound.minibatch_columns(few, V), method.exp_elog_beta, gamma[10:15],
                               ALPHA) == pytest.approx(reference_doc_terms(few, gamma[10:15], method.lam, ALPHA), rel=RTOL)
    assert method.topic_bound() == pytest.approx(reference_topic_terms(method.lam, ETA), rel=RTOL)
    fitted, _, _ = reference_e_step(counts, np.exp(elog_dirichlet(method.lam)), ALPHA, TIGHT["e_step_max_iter"],
                                    TIGHT["e_step_tol"])
    per_word = reference_doc_terms(counts, fitted, method.lam, ALPHA) / counts.sum()
    assert method.heldout_elbo(counts) == pytest.approx(per_word, rel=RTOL)
    # elbo(): the whole of eq. 4 for ``counts`` as the corpus, the fitted document terms plus the topic terms
    whole = reference_doc_terms(counts, fitted, method.lam, ALPHA) + reference_topic_terms(method.lam, ETA)
    assert method.elbo(counts) == pytest.approx(whole, rel=RTOL)


def test_doc_bound_floors_a_word_no_topic_can_emit():
    """Hoffman's onlineldavb.py guard in eq. 4's word term, log(phinorm + 1e-100), in both bounds: a word whose exp E[log beta_kw]
    underflows to 0 in every topic (eta = 1e-8 and never seen: Psi(1e-8) ~ -1e8, e.g. a held-out document's word
    absent from training) adds log(1e-100) per token, not -inf or NaN. Same gamma with and without the word: the
    difference is that term alone."""
    method = get_method("batch_lda")(4, seed=0, K=2, alpha=0.1, eta=1e-8)
    method.lam = np.array([[5.0, 3.0, 1.0, 1e-8], [1.0, 2.0, 6.0, 1e-8]])
    method._refresh()
    assert not method.exp_elog_beta[:, 3].any()
    gamma = np.array([[1.5, 2.5]])
    with_word, without = sp.csr_matrix([[2.0, 1.0, 0.0, 3.0]]), sp.csr_matrix([[2.0, 1.0, 0.0, 0.0]])
    difference = method.doc_bound(with_word, gamma) - method.doc_bound(without, gamma)
    assert difference == pytest.approx(3 * np.log(1e-100), rel=1e-12)
    # streaming VB's numba bound over the minibatch's own columns (topicbench/kernels/lda_bound.py) floors it alike
    numba_bound = [lda_bound.doc_bound(lda_bound.minibatch_columns(c, 4), method.exp_elog_beta, gamma, 0.1)
                   for c in (with_word, without)]
    assert numba_bound[0] - numba_bound[1] == pytest.approx(3 * np.log(1e-100), rel=1e-12)


# -- population VB: McInerney et al. 2015, Alg. 1 ----------------------------------------------------------------
def test_population_vb_step_matches_alg1_by_hand(counts):
    """Alg. 1 is Alg. 2 with the data size D replaced by the population size alpha = 10^log10_population and the
    statistics scaled by alpha/B (eq. 8 and the text after it), computed independently."""
    method = get_method("population_vb")(V, seed=4, K=K, alpha=ALPHA, eta=ETA, tau0=2.0, kappa=0.6, batch_size=20,
                                         log10_population=3.0, **TIGHT)
    svi_steps(method, counts, data_size=1000, tau0=2.0, kappa=0.6)


@pytest.mark.parametrize("log10_population", [2.0, 4.0])
def test_population_size_sets_the_posterior_mass(counts, log10_population):
    """Not true by construction: in every step sum_kw sstats = the minibatch's tokens (phi sums to 1 per token),
    so lambda's total mass follows M_t = (1 - rho_t) M_{t-1} + rho_t (eta K V + alpha n_t / B) exactly, and at
    stationarity approaches eta K V + alpha * (mean tokens per document): the population size alpha, not the
    corpus, sets the posterior's concentration (McInerney et al. 2015, eqs. 2 and 8)."""
    alpha_pop, size, tau0, kappa = 10.0 ** log10_population, 15, 1.0, 0.6
    method = get_method("population_vb")(V, seed=6, K=K, alpha=ALPHA, eta=ETA, tau0=tau0, kappa=kappa, batch_size=size,
                                         log10_population=log10_population, e_step_max_iter=5)
    rng = np.random.default_rng(int(log10_population))
    mass = method.lam.sum()
    for t in range(40):
        rows = np.sort(rng.choice(counts.shape[0], size, replace=False))
        method.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
        rho = (tau0 + t) ** -kappa
        mass = (1 - rho) * mass + rho * (ETA * K * V + alpha_pop * counts[rows].sum() / size)
        # 1e-12: sum_kw sstats equals the token count up to rounding in the E step's normalisers
        assert method.lam.sum() == pytest.approx(mass, rel=1e-12), f"step {t}"
    stationary = ETA * K * V + alpha_pop * counts.sum() / counts.shape[0]
    # 5%: the last ~1/rho_t = 9 minibatches of 15 documents weigh most; their mean length scatters by ~4%
    assert method.lam.sum() == pytest.approx(stationary, rel=0.05)


# -- streaming VB: Broderick et al. 2013, sec. 2.1 ----------------------------------------------------------------
def test_streaming_vb_mass_counts_every_token_seen(counts):
    """lambda_b = lambda_{b-1} + sstats_b with lambda_0 = eta: whatever the inner iterations, the total mass after b
    minibatches is eta K V + every token seen (no forgetting, no D, and not the random start of the E step)."""
    method = get_method("streaming_vb")(V, seed=7, K=K, alpha=ALPHA, eta=ETA, batch_size=20, max_inner_iter=3)
    for b in range(3):
        method.partial_fit(batch_of(counts, 20 * b, 20 * (b + 1), b))
        # 1e-12: as above, the statistics sum to the token counts up to rounding
        assert method.lam.sum() == pytest.approx(ETA * K * V + counts[:20 * (b + 1)].sum(), rel=1e-12), f"batch {b}"


def test_streaming_vb_bound_is_eq4_under_the_previous_posterior():
    """The topic terms of the minibatch ELBO use the previous posterior as the Dirichlet prior (Broderick et al.
    sec. 2.1): against eq. 4's topic terms written out with that prior."""
    rng = np.random.default_rng(8)
    method = get_method("streaming_vb")(V, seed=8, K=K, alpha=ALPHA, eta=ETA)
    method.lam = rng.gamma(0.5, 4.0, (K, V)) + 0.05
    method._refresh()
    prior = rng.gamma(0.5, 2.0, (K, V)) + 0.01
    value = method.topic_bound_under(prior, np.arange(V), prior.sum(axis=1))
    assert value == pytest.approx(reference_topic_terms(method.lam, prior), rel=RTOL)
    # within a minibatch lambda differs from the prior only in the minibatch's words: the bound over those columns
    # with the full row sums is the whole bound (the other columns' terms vanish)
    words = np.sort(rng.choice(V, 40, replace=False))
    lam = prior.copy()
    lam[:, words] = method.lam[:, words]
    lam[:2, words[:20]] = prior[:2, words[:20]]  # entries the minibatch left at the prior: they add exactly 0
    method.lam = lam
    method._refresh()
    value = method.topic_bound_under(prior[:, words], words, prior.sum(axis=1))
    assert value == pytest.approx(reference_topic_terms(lam, prior), rel=RTOL)


def test_streaming_vb_first_round_bound_is_eq4_at_the_random_start(counts):
    """The first minibatch's first round runs its E step under the random start lambda (methods/streaming_vb.py), which
    differs from the prior eta in every column, also those of words the minibatch lacks: its ELBO is eq. 4 over all V
    columns, written out with the reference at that lambda and the round's gamma."""
    method = get_method("streaming_vb")(V, seed=9, K=K, alpha=ALPHA, eta=ETA, max_inner_iter=1, **TIGHT)
    start = method.lam.copy()
    batch = counts[:8]
    assert np.count_nonzero(np.asarray(batch.sum(axis=0)).ravel()) < V  # words the minibatch lacks
    method.partial_fit(batch_of(counts, 0, 8))
    by_hand = reference_doc_terms(batch, method.last_gamma, start, ALPHA) + reference_topic_terms(start, ETA)
    assert method.elbo_trace[0] == pytest.approx(by_hand, rel=RTOL)


def test_reference_bound_is_stationary_at_the_reference_batch_vb_fixed_point():
    """The reference itself against eq. 4 without the kernels: Alg. 1 (E step eqs. 5-6, M step lambda = eta + sstats)
    is coordinate ascent on eq. 4, so at its fixed point every partial derivative of eq. 4 (phi optimal given gamma and
    lambda, as ``reference_doc_terms`` writes it; by the envelope theorem its gradient is the partials at that phi)
    vanishes. Central differences of the reference bound in every gamma_dk and lambda_kw: a wrong prior term, a
    normaliser over the wrong axis or a dropped entropy in the reference moves the optimum off Alg. 1's fixed point."""
    rng = np.random.default_rng(12)
    counts = sp.csr_matrix(rng.integers(0, 4, (5, 6)).astype(float))
    alpha, eta = 0.3, 0.2
    lam = rng.gamma(100.0, 0.01, (2, 6))
    for _ in range(3000):  # Alg. 1 to its fixed point (the tiny problem converges to rounding in a few hundred passes)
        gamma, sstats, _ = reference_e_step(counts, np.exp(elog_dirichlet(lam)), alpha, 5000, 1e-15)
        lam, previous = eta + sstats, lam
        if np.abs(lam - previous).max() < 1e-14:
            break

    def bound(g, l):
        return reference_doc_terms(counts, g, l, alpha) + reference_topic_terms(l, eta)

    h = 1e-6
    grads = []
    for x, which in ((gamma, 0), (lam, 1)):
        for i in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[i] += h
            down[i] -= h
            args_up = (up, lam) if which == 0 else (gamma, up)
            args_down = (down, lam) if which == 0 else (gamma, down)
            grads.append((bound(*args_up) - bound(*args_down)) / (2 * h))
    # rounding of a bound of ~ -60 over 2h: ~1e-14 * 60 / 1e-6 ~ 1e-6; a wrong term gives gradients of order 0.1-1
    assert np.abs(grads).max() < 1e-4, np.abs(grads).max()


# -- the read-outs: predict_words and topic_weights (the contract every LDA-family method shares) ---------------
def test_predict_words_is_the_posterior_mean_mixture(counts):
    """p(w | observed) = sum_k E[theta_dk] E[beta_kw] with E[theta_dk] = gamma_dk / sum_j gamma_dj (the Dirichlet
    mean, gamma fitted to the observed part by the E step) and E[beta_kw] = lambda_kw / sum_v lambda_kv: against
    the reference E step and those two means written out, on an arbitrary lambda."""
    rng = np.random.default_rng(12)
    method = get_method("online_lda")(V, seed=9, corpus_size=600, K=K, alpha=ALPHA, eta=ETA, batch_size=20, **TIGHT)
    method.lam = rng.gamma(0.5, 4.0, (K, V)) + 0.05
    method._refresh()
    observed, targets = counts[:12], counts[12:24]
    gamma, _, _ = reference_e_step(observed, np.exp(elog_dirichlet(method.lam)), ALPHA, TIGHT["e_step_max_iter"],
                                   TIGHT["e_step_tol"])
    mixture = (gamma / gamma.sum(axis=1, keepdims=True)) @ (method.lam / method.lam.sum(axis=1, keepdims=True))
    rows = np.repeat(np.arange(targets.shape[0]), np.diff(targets.indptr))
    np.testing.assert_allclose(method.predict_words(observed, targets), mixture[rows, targets.indices], rtol=RTOL)


def test_topic_weights_count_the_tokens_of_each_topic(counts):
    """After a batch VB pass lambda = eta + sum_d n_dw phi_dwk (Alg. 1), so lambda_k's mass minus its V prior
    pseudo-counts eta is the expected number of tokens of topic k: the reference statistics' row sums, which
    together are the corpus's tokens (phi sums to 1 per token)."""
    method = get_method("batch_lda")(V, seed=10, K=K, alpha=ALPHA, eta=ETA, rel_tol=0.0, **TIGHT)
    lam = method.lam.copy()
    method.partial_fit(batch_of(counts, 0, counts.shape[0]))
    sstats = reference_sstats(lam, counts, ALPHA, TIGHT["e_step_max_iter"], TIGHT["e_step_tol"])
    # 1e-7: lambda agrees with the reference to RTOL = 1e-8 (module docstring); subtracting V eta = 7.5 from row
    # masses of ~400 tokens magnifies that by < 1.02, and 10x headroom covers the sums over V
    np.testing.assert_allclose(method.topic_weights(), sstats.sum(axis=1), rtol=1e-7)
    assert method.topic_weights().sum() == pytest.approx(counts.sum(), rel=1e-7)
