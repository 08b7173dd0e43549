"""The peers' (gensim LdaModel, sklearn LatentDirichletAllocation) hyperparameter mapping, each against Hoffman,
Blei and Bach 2010's Alg. 2 written out, not against online_lda's numbers (tests/test_agreement.py compares scores
within 1%, which a D/|S| off by |S|/D or a start shifted by eta does not move).

The mass identity: an E step's statistics sum to the minibatch's tokens (sum_k phi_dwk = 1 for every token), so
whatever E step a peer runs (its own gamma start and stopping rule), Alg. 2's M step
lambda <- (1 - rho_t) lambda + rho_t (eta + D/|S| sstats) moves the expected token counts sum_kw (lambda_kw - eta)
(= sum_k topic_weights) to (1 - rho_t) (their previous value) + rho_t D/|S| N_S, with rho_t = (tau0 + t)^-kappa, t from 0.
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from topicbench.method import get_method
from topicbench.streams import Minibatch

V, K, ALPHA, ETA, D, S = 120, 4, 0.2, 0.05, 900, 30
PEERS = ("gensim_lda", "sklearn_lda")
# phinorm's guard (machine epsilon ~2e-16 in gensim and sklearn, on phinorm ~1e-2) moves the token sums by < 1e-13
# relative while tau0 = 3 keeps part of lambda_0's mass on every word (at rho_0 = 1 it does not: see
# test_peer_phinorm_floor_drops_words_the_first_step_left_at_eta); the tolerance leaves room for summation order
# over 10^4 entries.
RTOL = 1e-9


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(5)
    topics = rng.dirichlet(np.full(V, 0.05), K)
    rows = [rng.multinomial(rng.integers(10, 40), rng.dirichlet(np.full(K, 0.3)) @ topics) for _ in range(3 * S)]
    return sp.csr_matrix(np.array(rows, dtype=np.float64))


def make(name, seed=0, **params):
    return get_method(name)(V, seed=seed, corpus_size=D, **{"K": K, "alpha": ALPHA, "eta": ETA, "batch_size": S,
                                                             "tau0": 3.0, "kappa": 0.7, **params})


@pytest.mark.parametrize("peer", PEERS)
def test_peer_starts_from_online_ldas_lambda(peer):
    """Both docstrings: lambda_0 is online_lda's Gamma(100, 1/100) draw for the seed (a paired start), not shifted by eta."""
    for seed in (0, 3):
        lam0 = make("online_lda", seed).lam
        # gensim keeps lambda - eta and adds eta back: two roundings of numbers ~1
        np.testing.assert_allclose(make(peer, seed).state()["lambda"], lam0, rtol=1e-14, atol=0)


def test_sklearn_first_e_step_reads_exp_elog_beta_of_lambda_0():
    """sklearn's E step multiplies with exp E[log beta_kw] = exp(psi(lambda_kw) - psi(sum_w lambda_kw)) (eq. 6), which it
    keeps beside lambda: at the start it must be that of the lambda_0 set in, not lambda_0's normalised mean."""
    from scipy.special import digamma
    method = make("sklearn_lda")
    lam = method.model.components_
    np.testing.assert_allclose(method.model.exp_dirichlet_component_,
                               np.exp(digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))), rtol=1e-7)  # sklearn's psi: ~2e-9


@pytest.mark.parametrize("peer", ("online_lda", "sklearn_lda"))
def test_a_long_minibatch_is_one_alg2_step(peer, counts):
    """A minibatch longer than batch_size (2 S documents) is still one step of Alg. 2 with D/|S| = D/(2 S), not
    sklearn's split into steps of batch_size documents."""
    tau0, kappa = 3.0, 0.7
    method = make(peer, tau0=tau0, kappa=kappa)
    mass = float(np.sum(method.topic_weights()))
    rows = np.arange(2 * S)
    method.partial_fit(Minibatch(counts[rows], rows, rows, None, 0))
    rho = tau0 ** -kappa
    np.testing.assert_allclose(np.sum(method.topic_weights()), (1 - rho) * mass + rho * D / (2 * S) * counts[rows].sum(),
                               rtol=RTOL)
    assert method.updates == 1


@pytest.mark.parametrize("peer", PEERS)
def test_peer_step_moves_the_token_mass_as_alg2(peer, counts):
    """Per step t: sum_k topic_weights = (1 - rho_t) (previous) + rho_t D/|S| N_S, rho_t = (tau0 + t)^-kappa."""
    tau0, kappa = 3.0, 0.7
    method = make(peer, tau0=tau0, kappa=kappa)
    mass = float(np.sum(method.topic_weights()))
    np.testing.assert_allclose(mass, method.state()["lambda"].sum() - K * V * ETA, rtol=1e-12)  # V pseudo-counts eta
    for t in range(3):
        rows = np.arange(S * t, S * (t + 1))
        batch = Minibatch(counts[rows], rows, rows, None, t)
        method.partial_fit(batch)
        rho = (tau0 + t) ** -kappa
        expected = (1 - rho) * mass + rho * D / S * counts[rows].sum()
        mass = float(np.sum(method.topic_weights()))
        np.testing.assert_allclose(mass, expected, rtol=RTOL, err_msg=f"{peer}, step {t}")


@pytest.mark.parametrize("peer", PEERS)
def test_peer_phinorm_floor_drops_words_the_first_step_left_at_eta(peer):
    """Why the peers trail online_lda at tau0 = 1 (benchmarks/RESULTS.md): rho_0 = 1 replaces lambda_0, so a word absent
    from the first minibatch keeps lambda_kw = eta = 0.01 and exp E[log beta_kw] ~ exp(psi(0.01)) / sum ~ 1e-48, under
    gensim's and sklearn's phinorm guard (machine epsilon, 2.2e-16) but far over online_lda's 1e-100. In the peers such
    a token's phi sums to ~1e-32 instead of 1, so the second step's mass moves by the tokens of words seen in the first
    minibatch only; online_lda's moves by all of them (Alg. 2)."""
    n_words, first_words, tau0, kappa, eta = 400, 200, 1.0, 0.7, 0.01
    rng = np.random.default_rng(11)
    first = sp.csr_matrix(rng.multinomial(60, np.full(first_words, 1 / first_words), S).astype(np.float64),
                          shape=(S, first_words))
    first.resize(S, n_words)  # the first minibatch uses words 0..199 only
    second = sp.csr_matrix(rng.multinomial(60, np.full(n_words, 1 / n_words), S).astype(np.float64))
    rows = np.arange(S)
    unseen = np.asarray(second[:, first_words:].sum())
    assert unseen > 0.3 * second.sum()
    rho = (tau0 + 1) ** -kappa
    moved = {}
    for name in ("online_lda", peer):
        method = get_method(name)(n_words, seed=0, corpus_size=D, K=K, alpha=ALPHA, eta=eta, batch_size=S, tau0=tau0,
                                  kappa=kappa)
        method.partial_fit(Minibatch(first, rows, rows, None, 0))
        mass = float(np.sum(method.topic_weights()))
        method.partial_fit(Minibatch(second, rows, rows, None, 1))
        moved[name] = (float(np.sum(method.topic_weights())) - (1 - rho) * mass) / (rho * D / S)
    np.testing.assert_allclose(moved["online_lda"], second.sum(), rtol=RTOL)
    np.testing.assert_allclose(moved[peer], second.sum() - unseen, rtol=RTOL)


PHINORM_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_peer_phinorm.py"


@pytest.fixture
def e_step_patches():
    """benchmarks/bench_peer_phinorm.py's ``patch``: the peers' E steps with either documented difference removed;
    the libraries' own E steps are put back afterwards."""
    spec = importlib.util.spec_from_file_location("bench_peer_phinorm", PHINORM_BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module.patch
    module.patch()


# sklearn computes digamma with its own series (relative error ~2e-9), which the E step's iterations carry to ~2e-8 in
# lambda; gensim uses scipy's digamma, so only summation order differs (~4e-11 measured). A document whose E step
# stopped one iteration apart would move lambda by ~1e-4 and fail either bound.
ALG2_RTOL = {"sklearn_lda": 1e-6, "gensim_lda": 1e-9}


@pytest.mark.parametrize("peer", PEERS)
def test_peer_without_its_two_e_step_differences_is_online_lda(peer, counts, e_step_patches):
    """Agreement to rounding, not 1%: with its phinorm guard at Hoffman's 1e-100 and gamma_0 = 1 (the two documented
    differences from Alg. 2), each peer's three steps at tau0 = 1, eta = 0.01 give online_lda's lambda. The library's
    own E and M steps against online_lda's numba kernel: a wrong rho, D/|S|, eta or lambda_0 in either, or an E step
    that is not eqs. 5-6, moves lambda by far more than ALG2_RTOL."""
    e_step_patches(peer, ("guard", "start"))
    fits = {name: make(name, tau0=1.0, kappa=0.7, eta=0.01) for name in ("online_lda", peer)}
    for t in range(3):
        rows = np.arange(S * t, S * (t + 1))
        for method in fits.values():
            method.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
        np.testing.assert_allclose(fits[peer].state()["lambda"], fits["online_lda"].state()["lambda"],
                                   rtol=ALG2_RTOL[peer], atol=0, err_msg=f"step {t}")


@pytest.mark.parametrize("peer", PEERS)
def test_restored_peer_continues_the_step_schedule(peer, counts):
    """A peer restored from its state after t steps takes step t with rho_t = (tau0 + t)^-kappa (Alg. 2's t counts the
    updates before this one), so the token mass moves as in ``test_peer_step_moves_the_token_mass_as_alg2``."""
    tau0, kappa = 3.0, 0.7
    first = make(peer, tau0=tau0, kappa=kappa)
    for t in range(2):
        rows = np.arange(S * t, S * (t + 1))
        first.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
    restored = make(peer, seed=1, tau0=tau0, kappa=kappa)
    restored.load_state(first.state())
    mass = float(np.sum(restored.topic_weights()))
    rows = np.arange(2 * S, 3 * S)
    restored.partial_fit(Minibatch(counts[rows], rows, rows, None, 2))
    rho = (tau0 + 2) ** -kappa
    np.testing.assert_allclose(np.sum(restored.topic_weights()), (1 - rho) * mass + rho * D / S * counts[rows].sum(),
                               rtol=RTOL)


def test_gensim_predictive_is_the_posterior_mean_mixture(counts):
    """p(w | observed) = sum_k theta_k E[beta_kw]: theta the normalised gamma of gensim's ``inference`` on the observed
    part (from the predictive's own RandomState, seed + 7919), E[beta_k] = lambda_k / sum_w lambda_kw (not the
    normalised exp E[log beta] that gensim's E step multiplies with)."""
    method = make("gensim_lda")
    method.partial_fit(Minibatch(counts[:S], np.arange(S), np.arange(S), None, 0))
    observed = counts[S:2 * S]
    m = method.model
    saved, m.random_state = m.random_state, np.random.RandomState(method.seed + 7919)
    gamma, _ = m.inference([list(zip(row.indices, row.data)) for row in observed])
    m.random_state = saved
    lam = m.state.get_lambda()
    probs = (gamma / gamma.sum(axis=1, keepdims=True)) @ (lam / lam.sum(axis=1, keepdims=True))
    targets = counts[2 * S:3 * S]  # other words than the observed ones: gamma must come from the observed part alone
    rows = np.repeat(np.arange(S), np.diff(targets.indptr))
    # gensim's inference draws the same gamma start from the same RandomState: only summation order differs
    np.testing.assert_allclose(method.predict_words(observed, targets), probs[rows, targets.indices], rtol=1e-10)


@pytest.mark.parametrize("peer", ("online_lda", *PEERS))
def test_peer_short_minibatch_scales_by_its_own_size(peer, counts):
    """A short last minibatch (10 documents under batch_size 30) is scaled by D / its own size, as Alg. 2's D/|S| reads:
    the token mass moves to (1 - rho_t) (previous) + rho_t D/10 N_10 (gensim: numdocs pinned to D - 10, not D - 30).
    online_lda too: its |S| is the minibatch's length, not the batch_size it was asked for."""
    tau0, kappa = 3.0, 0.7
    method = make(peer, tau0=tau0, kappa=kappa)
    rows = np.arange(S)
    method.partial_fit(Minibatch(counts[rows], rows, rows, None, 0))
    mass = float(np.sum(method.topic_weights()))
    short = np.arange(S, S + 10)
    method.partial_fit(Minibatch(counts[short], short, short, None, 1))
    rho = (tau0 + 1) ** -kappa
    np.testing.assert_allclose(np.sum(method.topic_weights()), (1 - rho) * mass + rho * D / 10 * counts[short].sum(),
                               rtol=RTOL)


def test_sklearn_predictive_is_the_posterior_mean_mixture(counts):
    """p(w | observed) = sum_k theta_k E[beta_kw]: theta sklearn's ``transform`` (normalised gamma) of the observed part,
    E[beta_k] = lambda_k / sum_w lambda_kw (not the normalised exp E[log beta] that sklearn's E step multiplies with)."""
    method = make("sklearn_lda")
    method.partial_fit(Minibatch(counts[:S], np.arange(S), np.arange(S), None, 0))
    observed = counts[S:2 * S]
    theta = method.model.transform(observed)
    lam = method.model.components_
    probs = theta @ (lam / lam.sum(axis=1, keepdims=True))
    targets = counts[2 * S:3 * S]  # other words than the observed ones: theta must come from the observed part alone
    rows = np.repeat(np.arange(S), np.diff(targets.indptr))
    # transform starts every gamma at 1 (no draw): the same numbers, only summation order may differ
    np.testing.assert_allclose(method.predict_words(observed, targets), probs[rows, targets.indices], rtol=1e-10)


def test_peer_hyperparameters_reach_the_library():
    """Each docstring's mapping, set to values unlike the libraries' defaults (sklearn: doc_topic_prior 1/K,
    mean_change_tol 1e-3, max_doc_update_iter 100; gensim: gamma_threshold 1e-3, iterations 50): alpha and eta, kappa
    and tau0, the E step's tolerance and cap, D. The mass identity above cannot see alpha or the E step's stopping rule."""
    settings = dict(kappa=0.6, tau0=5.0, e_step_tol=2e-4, e_step_max_iter=37)
    sk = make("sklearn_lda", **settings).model
    assert (sk.doc_topic_prior, sk.topic_word_prior, sk.learning_decay, sk.learning_offset) == (ALPHA, ETA, 0.6, 5.0)
    assert (sk.mean_change_tol, sk.max_doc_update_iter, sk.total_samples) == (2e-4, 37, D)
    gs = make("gensim_lda", **settings).model
    np.testing.assert_array_equal(gs.alpha, np.full(K, ALPHA))
    np.testing.assert_array_equal(gs.eta, np.full(V, ETA))
    assert (gs.decay, gs.offset, gs.gamma_threshold, gs.iterations, gs.chunksize) == (0.6, 5.0, 2e-4, 37, S)


@pytest.mark.parametrize("peer", ("gensim_lda", "sklearn_lda", "gensim_nmf", "sklearn_nmf"))
def test_peer_state_counts_its_steps_and_restores_the_same_model(peer, counts):
    """A peer's state carries Alg. 2's t (updates; sklearn's step schedule and gensim NMF's running means read it) and
    the documents seen (gensim LDA's rho on restore): after minibatches of 30 and 20 documents, 2 and 50. A peer of
    another seed restored from that state holds the same topics (gensim LDA keeps lambda - eta: two roundings) and
    the same counts."""
    def build(seed):
        if peer.endswith("_lda"):
            return make(peer, seed)
        return get_method(peer)(V, seed=seed, K=K, batch_size=S)

    method = build(0)
    for t, rows in enumerate((np.arange(S), np.arange(S, S + 20))):
        method.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
    assert (method.updates, method.docs_seen) == (2, S + 20)
    restored = build(1)
    restored.load_state(method.state())
    np.testing.assert_allclose(restored.topics(), method.topics(), rtol=1e-14, atol=0)
    assert (restored.updates, restored.docs_seen) == (2, S + 20)


def test_gensim_update_scores_nothing(counts, monkeypatch):
    """gensim's update evaluates a perplexity when eval_every > 0 (its E step on the chunk, drawing from the fit's
    random state, inside the fit clock): the peer asks for none, so an update never calls log_perplexity."""
    method = make("gensim_lda")
    monkeypatch.setattr(type(method.model), "log_perplexity", lambda *a, **k: pytest.fail("update evaluated"))
    method.partial_fit(Minibatch(counts[:S], np.arange(S), np.arange(S), None, 0))
