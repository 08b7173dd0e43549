"""Streaming VB (Broderick et al. 2013) and population VB (McInerney et al. 2015, Alg. 1): identities and errors.

The identities are exact consequences of the algorithms, so they are checked to the last bit where the
floating-point operations coincide, and to a stated tolerance where only the fixed point coincides.
"""
import numpy as np
import pytest

from conftest import matched_cosine
from topicbench.kernels.lda_reference import elog_dirichlet, reference_doc_terms, reference_e_step, reference_topic_terms
from topicbench.method import ParamError, get_method
from topicbench.run import RunSpec, run
from topicbench.streams import Minibatch
from topicbench.synthetic import build_planted_corpus

N_WORDS, N_TOPICS = 400, 6


def _corpus(n_train, seed=3, name="timed_small"):
    """A planted LDA corpus with time stamps (the time-ordered stream needs them)."""
    def lengths(rng, n):
        return rng.integers(40, 80, size=n)

    return build_planted_corpus(name, n_train, 40, N_WORDS, N_TOPICS, 0.02, 0.2, lengths, seed,
                                time_of=lambda rows: rows // 10)


@pytest.fixture(scope="module")
def corpus():
    return _corpus(600)


def _whole(counts):
    return Minibatch(counts, np.arange(counts.shape[0]), np.arange(counts.shape[0]), None, 0)


# -- streaming VB == batch VB on one minibatch ------------------------------------------------------
def test_svb_single_minibatch_is_batch_vb_step_for_step(corpus):
    """Prior eta + the same random start => each inner round of SVB is one pass of batch VB (Alg. 1):
    after n rounds the lambdas are the same numbers, bit for bit."""
    counts = corpus.split("train").counts
    common = {"K": N_TOPICS, "alpha": 0.1, "eta": 0.05, "e_step_tol": 1e-4, "e_step_max_iter": 200}
    svb = get_method("streaming_vb")(N_WORDS, seed=5, batch_size=counts.shape[0], rel_tol=0.0, max_inner_iter=6, **common)
    batch = get_method("batch_lda")(N_WORDS, seed=5, rel_tol=0.0, **common)
    assert np.array_equal(svb.lam, batch.lam)  # the same symmetry-breaking start
    svb.partial_fit(_whole(counts))
    for _ in range(6):
        batch.partial_fit(_whole(counts))
    assert svb.last_inner_iterations == 6 and batch.updates == 6
    assert np.array_equal(svb.lam, batch.lam)
    # and SVB's ELBO under prior eta is batch VB's ELBO (eq. 4), up to summation order
    assert svb.last_elbo == pytest.approx(batch.elbo_trace[-1], rel=1e-12)


@pytest.mark.parametrize("warm_start", [False, True], ids=["restart", "warm"])
def test_svb_later_minibatch_is_batch_vb_step_for_step(corpus, warm_start):
    """On a later minibatch each round of SVB is a pass of batch VB under the prior q_{b-1}, its E step started at
    gamma = 1 (Alg. 1, the default) or, with ``warm_start``, from the last round's gamma (the first round from
    gamma = 1; and every round of the first minibatch, which starts from the random lambda): coordinate ascent on eq. 4 (methods/streaming_vb.py), against that iteration written out with the
    numpy reference E step, and its ELBO after each round is eq. 4 under that prior written out term by term.

    At e_step_tol = 1e-3 the E step stops well short of its fixed point, so where it starts shows in lambda (a
    restart from gamma = 1 moves it by ~1e-3 relative); the kernel and the reference then differ only by the
    kernel's series digamma and summation order (~1e-12 relative, tests/test_kernels.py), which may flip an E step's
    stopping iteration only when its change sits within that of the tolerance: rtol 1e-8 on lambda and bounds."""
    counts = corpus.split("train").counts
    common = {"K": N_TOPICS, "alpha": 0.1, "eta": 0.05, "e_step_tol": 1e-3, "e_step_max_iter": 200}
    svb = get_method("streaming_vb")(N_WORDS, seed=5, batch_size=300, rel_tol=0.0, max_inner_iter=6,
                                     warm_start=warm_start, **common)
    svb.partial_fit(_whole(counts[:300]))
    if warm_start:  # the first minibatch restarts every round all the same: no warm start from the random start
        restart = get_method("streaming_vb")(N_WORDS, seed=5, batch_size=300, rel_tol=0.0, max_inner_iter=6, **common)
        restart.partial_fit(_whole(counts[:300]))
        assert np.array_equal(svb.lam, restart.lam)
    second = counts[300:600]
    prior = svb.lam.copy()
    lam, gamma, elbos = prior, None, []
    for _ in range(6):
        gamma, sstats, _ = reference_e_step(second, np.exp(elog_dirichlet(lam)), 0.1, 200, 1e-3,
                                            gamma0=gamma if warm_start else None)
        elbos.append(reference_doc_terms(second, gamma, lam, 0.1) + reference_topic_terms(lam, prior))
        lam = prior + sstats
    svb.partial_fit(Minibatch(second, np.arange(300, 600), np.arange(300, 600), None, 1))
    assert svb.last_inner_iterations == 6
    np.testing.assert_allclose(svb.lam, lam, rtol=1e-8, atol=0)
    np.testing.assert_allclose(svb.elbo_trace, elbos, rtol=1e-8, atol=0)


def test_svb_minibatch_elbo_never_decreases(corpus):
    """Warm-started batch VB is coordinate ascent on the minibatch ELBO (eq. 4 under the previous posterior): the
    M step maximises it in lambda, and the E step, started at the last gamma, only raises it in (gamma, phi). So on
    every minibatch after the first the ELBO after each round never falls. Restarting gamma at 1 each round breaks
    this at e_step_tol = 1e-2 (the E step then stops at a worse gamma). Slack: 1e-12 relative, the rounding of a sum
    of ~10^5 terms of the bound."""
    counts = corpus.split("train").counts
    svb = get_method("streaming_vb")(N_WORDS, seed=4, K=N_TOPICS, batch_size=200, rel_tol=0.0, max_inner_iter=25,
                                     alpha=0.1, e_step_tol=1e-2, warm_start=True)
    svb.partial_fit(_whole(counts[:200]))  # the first minibatch restarts every round (Alg. 1 from the random start)
    for b, rows in enumerate((np.arange(200, 400), np.arange(400, 600)), start=1):
        svb.partial_fit(Minibatch(counts[rows], rows, rows, None, b))
        trace = np.array(svb.elbo_trace)  # rel_tol = 0 stops only on a fall, and keeps the round that fell
        assert np.all(np.diff(trace) >= -1e-12 * np.abs(trace[1:])), f"minibatch {b}: {np.diff(trace)}"
        assert len(trace) >= 10, f"minibatch {b}: only {len(trace)} rounds"  # the check saw the flat end of the ascent


def test_svb_single_minibatch_reaches_the_batch_vb_fixed_point(corpus):
    """Both run to convergence with their own stopping rules; both must sit at lambda = eta + sstats(lambda),
    the batch VB fixed point, and agree with each other. Tolerance: the E-step tolerance 1e-6 and
    rel_tol 1e-9 leave lambda moving by < 1e-4 relative per round at the stop."""
    counts = corpus.split("train").counts
    common = {"K": N_TOPICS, "alpha": 0.1, "eta": 0.05, "e_step_tol": 1e-6, "e_step_max_iter": 1000}
    svb = get_method("streaming_vb")(N_WORDS, seed=2, batch_size=counts.shape[0], rel_tol=1e-9, max_inner_iter=500, **common)
    batch = get_method("batch_lda")(N_WORDS, seed=2, rel_tol=1e-9, **common)
    svb.partial_fit(_whole(counts))
    while not batch.converged and batch.updates < 500:
        batch.partial_fit(_whole(counts))
    assert svb.last_inner_iterations < 500 and batch.converged
    np.testing.assert_allclose(svb.lam, batch.lam, rtol=1e-4, atol=1e-4)
    _, sstats, _ = svb.e_step(counts)
    np.testing.assert_allclose(svb.lam, svb.eta + sstats, rtol=1e-3, atol=1e-3)


def test_svb_posterior_accumulates_minibatch_statistics(corpus):
    """Two minibatches: the second's prior is the first's posterior, so lambda_2 - lambda_1 is the second
    minibatch's statistics at the converged lambda_2 and gamma (Broderick et al. sec. 2.1), and the total mass of
    lambda counts every token seen (no forgetting, no D)."""
    counts = corpus.split("train").counts
    svb = get_method("streaming_vb")(N_WORDS, seed=1, K=N_TOPICS, batch_size=300, rel_tol=1e-10, max_inner_iter=300,
                                     e_step_tol=1e-7, e_step_max_iter=2000)
    first, second = counts[:300], counts[300:600]
    svb.partial_fit(_whole(first))
    lam1 = svb.lam.copy()
    svb.partial_fit(Minibatch(second, np.arange(300, 600), np.arange(300, 600), None, 1))
    # the statistics at the converged (lambda_2, gamma) of the last round (with warm_start a fresh E step from
    # gamma = 1 lands a few documents at another per-document optimum: 9 of 2,400 entries, <= 1 token)
    _, sstats2, _ = svb.e_step(second, gamma=svb.last_gamma)
    np.testing.assert_allclose(svb.lam - lam1, sstats2, rtol=1e-3, atol=1e-3)
    expected_mass = N_TOPICS * N_WORDS * svb.eta + counts[:600].sum()
    assert svb.lam.sum() == pytest.approx(expected_mass, rel=1e-9)


# -- population VB with alpha = D is SVI ---------------------------------------------------------------
def test_pvb_with_population_D_is_svi(corpus):
    """McInerney et al. 2015, after Alg. 1: alpha = D on the with-replacement stream is SVI (Hoffman et al.
    2013) = online_lda with D = corpus size. Same seed => the same stream and the same numbers, exactly.

    Both methods call ``VariationalLDA.stochastic_step``, so this is true by construction for any error in
    that step: it guards the plumbing (alpha = round(10^log10(D)) = D, the stream, the scoring), not the
    equations. Those are checked against independent computations in test_equations_lda.py
    (test_population_vb_step_matches_alg1_by_hand, test_population_size_sets_the_posterior_mass)."""
    n_train = corpus.split("train").n_docs
    shared = {"K": N_TOPICS, "batch_size": 32, "kappa": 0.6, "tau0": 4.0, "alpha": 0.1, "eta": 0.05}
    common = dict(stream="with_replacement", passes=1.5, holdout="fixed", n_checkpoints=4, seed=7)
    svi_trace, svi = run(RunSpec(method="online_lda", params=shared, **common), corpus)
    pvb_trace, pvb = run(RunSpec(method="population_vb", params={**shared, "log10_population": float(np.log10(n_train))},
                                 **common), corpus)
    assert pvb.population_size == n_train == svi.corpus_size
    assert np.array_equal(pvb.lam, svi.lam)
    for column in ("docs_seen", "loglik_per_word", "elbo_per_word", "x_rho"):
        assert np.array_equal(pvb_trace[column].to_numpy(), svi_trace[column].to_numpy()), column


def test_pvb_population_changes_the_fit(corpus):
    """The identity above is not vacuous: a different alpha gives a different lambda."""
    shared = {"K": N_TOPICS, "batch_size": 32, "kappa": 0.6, "tau0": 4.0}
    common = dict(stream="with_replacement", passes=0.5, holdout="fixed", n_checkpoints=2, seed=7)
    _, small = run(RunSpec(method="population_vb", params={**shared, "log10_population": 2.0}, **common), corpus)
    _, large = run(RunSpec(method="population_vb", params={**shared, "log10_population": 5.0}, **common), corpus)
    assert small.population_size == 100 and large.population_size == 100000
    assert not np.allclose(small.lam, large.lam)


# -- streaming VB never uses D ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["streaming_vb", "population_vb"])
def test_giving_D_is_an_error(name):
    with pytest.raises(ParamError, match="does not take a corpus size D"):
        get_method(name)(N_WORDS, K=3, corpus_size=1000)


def test_svb_does_not_read_D(corpus):
    """Two corpora whose first 200 training documents are the same, but with 200 vs 600 training documents
    in all. Through the runner, on the time-ordered stream stopped after 200 documents, SVB's lambda and
    lookahead scores agree exactly: D is the only thing that differs, and it changes nothing. Online LDA on
    the same two runs differs (it reads D), which shows the setup would expose a method that reads it."""
    split = corpus.docs["split"].to_numpy()
    large = corpus
    small = corpus.select(np.concatenate([np.flatnonzero(split == "train")[:200], np.flatnonzero(split == "test")]))
    spec = dict(stream="time_ordered", max_docs=200, holdout="lookahead", holdout_n=20, n_checkpoints=3, seed=0)
    params = {"K": N_TOPICS, "batch_size": 50}
    trace_s, svb_s = run(RunSpec(method="streaming_vb", params={**params, "max_inner_iter": 5}, **spec), small)
    trace_l, svb_l = run(RunSpec(method="streaming_vb", params={**params, "max_inner_iter": 5}, **spec), large)
    assert trace_s["corpus_size"].iloc[0] == 200 and trace_l["corpus_size"].iloc[0] == 600
    assert not hasattr(svb_s, "corpus_size") and not hasattr(svb_l, "corpus_size")
    assert np.array_equal(svb_s.lam, svb_l.lam)
    assert np.array_equal(trace_s["loglik_per_word"].to_numpy(), trace_l["loglik_per_word"].to_numpy())
    _, online_s = run(RunSpec(method="online_lda", params=params, **spec), small)
    _, online_l = run(RunSpec(method="online_lda", params=params, **spec), large)
    assert not np.allclose(online_s.lam, online_l.lam)


# -- bad hyperparameters -------------------------------------------------------------------------------
@pytest.mark.parametrize("name, bad, culprit", [
    ("streaming_vb", {"rel_tol": -1e-3}, "rel_tol"),
    ("streaming_vb", {"max_inner_iter": 0}, "max_inner_iter"),
    ("streaming_vb", {"max_inner_iter": 2.5}, "max_inner_iter"),
    ("streaming_vb", {"kappa": 0.7}, "unknown hyperparameter"),
    ("streaming_vb", {"tau0": 1.0}, "unknown hyperparameter"),
    ("streaming_vb", {"eta": 0.0}, "eta"),
    ("population_vb", {"log10_population": -1.0}, "log10_population"),
    ("population_vb", {"log10_population": 16.0}, "log10_population"),
    ("population_vb", {"log10_population": "6"}, "log10_population"),
    ("population_vb", {"kappa": 0.3}, "kappa"),
    ("population_vb", {"kappa": 0.5}, "kappa"),
    ("population_vb", {"tau0": -1.0}, "tau0"),
    ("population_vb", {"batch_size": 0}, "batch_size"),
    ("population_vb", {"alpha": -0.1}, "alpha"),
])
def test_bad_hyperparameters_are_param_errors(name, bad, culprit):
    with pytest.raises(ParamError, match=culprit):
        get_method(name)(N_WORDS, K=3, **bad)
    with pytest.raises(ParamError, match=culprit):  # and the runner refuses before reading any corpus
        run(RunSpec(method=name, params={"K": 3, **bad}), "/nonexistent/corpus")


def test_kappa_half_needs_the_explicit_switch():
    method = get_method("population_vb")(N_WORDS, K=3, kappa=0.5, allow_kappa_half=True)
    assert method.step_size() == pytest.approx(1024.0 ** -0.5)


@pytest.mark.parametrize("stream", ["time_ordered", "shuffled"])
def test_lookahead_final_window_is_the_same_for_every_minibatch_size(corpus, stream):
    """The look-ahead policy trains on all but the stream's last n documents, so runs with different minibatch
    sizes (Fig. 1 compares streaming VB at its best S with population VB) end on the same full window:
    the same documents, hence the same word-frequency score, not a tail truncated by where a minibatch ends."""
    n_train, n_ahead = corpus.split("train").n_docs, 70
    finals = []
    for batch_size in (32, 128):
        trace, method = run(RunSpec(method="population_vb", params={"K": N_TOPICS, "batch_size": batch_size},
                                    stream=stream, holdout="lookahead", holdout_n=n_ahead, n_checkpoints=3), corpus)
        assert method.docs_seen == n_train - n_ahead
        finals.append(trace.iloc[-1])
    for final in finals:
        assert final["docs_seen"] == n_train - n_ahead and final["heldout_docs"] == n_ahead
    assert finals[0]["unigram_loglik_per_word"] == finals[1]["unigram_loglik_per_word"]
    assert finals[0]["heldout_tokens"] == finals[1]["heldout_tokens"]


def test_svb_recovers_planted_topics(small_corpus):
    """One pass of streaming VB in minibatches of 250 finds every planted topic (Hungarian-matched cosine; 15 slots
    for 10 topics, as in test_lda.py's recovery tests)."""
    spec = RunSpec(method="streaming_vb", params={"K": 15, "alpha": 0.1, "batch_size": 250, "max_inner_iter": 30},
                   stream="shuffled", n_checkpoints=2, report_elbo=False, seed=0)
    _, method = run(spec, small_corpus)
    assert method.docs_seen == small_corpus.split("train").n_docs
    # measured 0.9998; 0.98 fails if any one of the 10 topics is matched at cosine < 0.8
    assert matched_cosine(method.topics(), small_corpus.truth["topics"]) >= 0.98


def test_svb_learns_planted_topics_on_a_time_ordered_stream(corpus):
    """A sanity floor on a true stream: one pass of SVB beats the word-frequency model by a wide margin."""
    trace, _ = run(RunSpec(method="streaming_vb", params={"K": N_TOPICS, "batch_size": 50, "max_inner_iter": 20},
                           stream="time_ordered", holdout="lookahead", holdout_n=50, n_checkpoints=4), corpus)
    last = trace.iloc[-1]
    assert last["eval_kind"] == "lookahead"
    assert last["loglik_per_word"] > last["unigram_loglik_per_word"] + 0.3


def test_population_size_defaults_to_a_million_and_may_be_one():
    """McInerney et al. 2015: Fig. 1's legend alpha = 1M is the default (log10 = 6); alpha is a count of data points
    of at least one, so log10_population = 0 (alpha = 1) is a valid population, and below it is not."""
    pvb = get_method("population_vb")
    assert pvb(10, K=2).population_size == 1_000_000
    assert pvb(10, K=2, log10_population=0).population_size == 1
    with pytest.raises(ParamError, match="log10_population"):
        pvb(10, K=2, log10_population=-0.5)


def test_streaming_vb_inner_rounds_stop_once_the_improvement_no_longer_exceeds_rel_tol(monkeypatch):
    """The inner loop on each minibatch is batch VB (Hoffman et al. 2010, Alg. 1: 'while relative improvement
    > tol'): with the rounds' ELBOs fed in by hand (-4, -2, -1.5: improvements 1/2, then exactly rel_tol = 1/4) the
    third round is the last."""
    import scipy.sparse as sp

    import topicbench.kernels.lda_bound as lda_bound

    values = iter([-4.0, -2.0, -1.5, -1.0, -0.9, -10.0, -5.0, -3.5, -3.4])
    monkeypatch.setattr(lda_bound, "doc_bound", lambda *args: next(values))
    svb = get_method("streaming_vb")(6, seed=0, K=2, batch_size=2, rel_tol=0.25, max_inner_iter=6)
    monkeypatch.setattr(svb, "topic_bound_under", lambda *args: 0.0)
    counts = sp.csr_matrix(np.array([[1, 2, 0, 0, 1, 0], [0, 0, 3, 1, 0, 1]]))
    assert (svb.progress()["inner_iterations"], svb.progress()["mean_inner_iterations"]) == (0.0, 0.0)  # no round yet
    svb.partial_fit(_whole(counts))
    assert svb.last_inner_iterations == 3 and svb.progress()["mean_inner_iterations"] == 3.0
    svb.partial_fit(_whole(counts))  # -1, -0.9: an improvement of 0.1 <= rel_tol stops the second round
    assert svb.last_inner_iterations == 2
    # the cost in E steps: 3 + 2 rounds over 2 minibatches
    assert svb.total_inner_iterations == 5 and svb.progress()["mean_inner_iterations"] == 2.5
    # -10, -5, -3.5, -3.4: each gain relative to the round before (1/2, 0.3, then 0.03), not to the first (0.15)
    svb.partial_fit(_whole(counts))
    assert svb.last_inner_iterations == 4


def test_population_size_is_the_count_whose_log10_was_given():
    """McInerney et al. 2015, eq. 2: alpha is a number of data points, so log10_population = log10(n) is alpha = n
    (the SVI identity needs alpha = D exactly). 10 ** log10(n) lands within a few ulps of n on either side; for n = 600
    it lands below (599.9999999999997), where truncation would give n - 1."""
    pvb = get_method("population_vb")
    for n in (3, 600, 7919, 999_999):
        assert pvb(10, K=2, log10_population=float(np.log10(n))).population_size == n
