"""The NMF-family peers (methods/sklearn_nmf.py, methods/gensim_nmf.py): they fit and score through the harness on a
tiny planted corpus, their state round-trips, and impossible hyperparameters fail before any compute."""
import numpy as np
import pytest

from topicbench.evaluate import split_documents
from topicbench.method import ParamError, get_method
from topicbench.run import RunSpec, run
from topicbench.streams import Minibatch

from conftest import planted

PEERS = ("sklearn_nmf", "gensim_nmf")


@pytest.fixture(scope="module")
def tiny():
    return planted(n_train=400, n_test=40, n_words=300, n_topics=4, seed=7)


@pytest.mark.parametrize("peer", PEERS)
def test_fits_and_beats_the_word_frequency_baseline(tiny, peer):
    """Two passes over 400 documents from 4 well-separated planted topics: any working topic model predicts the
    held-out halves better than word frequencies: measured 0.83-0.90 nats/word over seeds 0-2 for both; 0.5 leaves room
    for other seeds and library versions and still fails when the document weights are ignored (0.01 then)."""
    spec = RunSpec(method=peer, params={"K": 4, "batch_size": 100}, passes=2, n_checkpoints=2, report_elbo=False)
    trace, model = run(spec, tiny, progress_every_s=1e9)
    last = trace.iloc[-1]
    assert np.isfinite(last["loglik_per_word"])
    assert last["loglik_per_word"] > last["unigram_loglik_per_word"] + 0.5, last[["loglik_per_word", "unigram_loglik_per_word"]]
    topics = model.topics()
    assert topics.shape == (4, tiny.n_words) and np.allclose(topics.sum(axis=1), 1.0)
    # the state carries everything prediction needs: a fresh instance loaded from it predicts the same numbers
    twin = get_method(peer).from_state(model.state(), tiny.n_words, K=4, batch_size=100)
    test = tiny.split("test").counts
    np.testing.assert_array_equal(twin.predict_words(test, test), model.predict_words(test, test))


@pytest.mark.parametrize("peer, bad, culprit", [
    ("sklearn_nmf", {"forget_factor": 0.0}, "forget_factor"),
    ("sklearn_nmf", {"init": "nndsvd-typo"}, "init"),
    ("sklearn_nmf", {"uniform_mix": 1.0}, "uniform_mix"),
    ("sklearn_nmf", {"K": 0}, "K"),
    ("gensim_nmf", {"kappa": 0.0}, "kappa"),
    ("gensim_nmf", {"h_max_iter": 0}, "h_max_iter"),
    ("gensim_nmf", {"uniform_mix": 0.0}, "uniform_mix"),
    ("gensim_nmf", {"batch_size": 0}, "batch_size"),
])
def test_bad_hyperparameters_fail_before_compute(peer, bad, culprit):
    with pytest.raises(ParamError, match=culprit):
        RunSpec(method=peer, params={"K": 4, **bad}).check()


def test_mixture_with_floor_is_the_normalised_reconstruction_mixed_with_uniform():
    """The peers' predictive: (1 - eps) (W H)_dw / sum_v (W H)_dv + eps / V, V the vocabulary size (not K), with
    weights_dk = W_dk sum_v H_kv; a document with all-zero weights takes the model's marginal over words,
    sum_k H_kw / sum_kv H_kv. Written out densely by hand."""
    import scipy.sparse as sp

    from topicbench.nmf import mixture_with_floor

    rng = np.random.default_rng(3)
    H = rng.gamma(0.5, 1.0, (4, 9))  # K = 4 topics over V = 9 words (K != V, so the floor's denominator shows)
    W = rng.gamma(1.0, 1.0, (3, 4))
    W[2] = 0.0  # a document with no weight on any topic
    W[1] *= 1e-3 / (W[1] * H.sum(axis=1)).sum()  # and one whose weights are small (sum 1e-3) but not zero
    words = sp.csr_matrix(rng.integers(0, 3, (3, 9)))
    eps = 0.01
    rate = W @ H
    rate[2] = H.sum(axis=0)
    expected = (1 - eps) * (rate / rate.sum(axis=1, keepdims=True)) + eps / 9
    rows = np.repeat(np.arange(3), np.diff(words.indptr))
    got = mixture_with_floor(words, W * H.sum(axis=1), H, eps)
    np.testing.assert_allclose(got, expected[rows, words.indices], rtol=1e-13)  # summation order only


def _fitted(peer, tiny, steps=3):
    model = get_method(peer)(tiny.n_words, seed=0, K=4, batch_size=100)
    counts = tiny.split("train").counts
    hs = []
    for t in range(steps):
        rows = np.arange(100 * t, 100 * (t + 1))
        model.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
        hs.append(np.array(getattr(model.model, "_h", None)))  # a copy: the next chunk updates h in place
    return model, hs


def _by_hand(rate, eps):
    """(1 - eps) rate / sum_v rate + eps / V: the documented predictive, from the model's own rate (W H)_d."""
    return (1 - eps) * rate / rate.sum(axis=1, keepdims=True) + eps / rate.shape[1]


def test_sklearn_nmf_predicts_the_normalised_reconstruction(tiny):
    """p(w | d) = (1 - eps) (W H)_dw / sum_v (W H)_dv + eps / V with W = ``transform(observed)``, H = components_."""
    model, _ = _fitted("sklearn_nmf", tiny)
    observed, heldout = split_documents(tiny.split("test").counts, 0.5, 0)  # W from the observed half alone
    rate = model.model.transform(observed.astype(np.float64)) @ model.model.components_
    rows = np.repeat(np.arange(heldout.shape[0]), np.diff(heldout.indptr))
    np.testing.assert_allclose(model.predict_words(observed, heldout), _by_hand(rate, 1e-4)[rows, heldout.indices],
                               rtol=1e-10)  # summation order of W H against the mixture's


def test_gensim_nmf_predicts_the_normalised_reconstruction_and_keeps_running_means(tiny):
    """p(w | d) = (1 - eps) (W h)_wd / sum_v (W h)_vd + eps / V with h = ``_solveproj`` of the observed part (from the
    predictive's own random state, seed + 7919); and gensim's Nmf.update statistics after t chunks are the running means
    A = (1/t) sum_i h_i h_i', of every chunk's h (Zhao and Tan's online NMF, as gensim's update keeps them)."""
    model, hs = _fitted("gensim_nmf", tiny)
    m = model.model
    np.testing.assert_allclose(m.A, sum(h @ h.T for h in hs) / len(hs), rtol=1e-12)  # summation order only
    observed, heldout = split_documents(tiny.split("test").counts, 0.5, 0)  # h from the observed half alone
    saved = m.random_state, m.v_max
    m.random_state = np.random.RandomState(model.seed + 7919)
    h = m._solveproj(observed.T.tocsc().astype(np.float64), m._W, v_max=np.inf)
    m.random_state, m.v_max = saved
    rows = np.repeat(np.arange(heldout.shape[0]), np.diff(heldout.indptr))
    np.testing.assert_allclose(model.predict_words(observed, heldout), _by_hand((m._W @ h).T, 1e-4)[rows, heldout.indices],
                               rtol=1e-10)  # summation order of W h against the mixture's


def test_gensim_nmf_keeps_the_running_mean_of_v_h(tiny):
    """gensim's Nmf.update keeps B = (1/t) sum_i v_i h_i' over the t chunks so far (Zhao and Tan's online NMF, as A):
    v_i the chunk's words x documents matrix, columns in the order update() permutes them, h_i its solved h. The
    permutation is read from the model's random state before each chunk (update() draws it first)."""
    model = get_method("gensim_nmf")(tiny.n_words, seed=0, K=4, batch_size=100)
    counts = tiny.split("train").counts
    total = 0.0
    for t in range(3):
        rows = np.arange(100 * t, 100 * (t + 1))
        rng = np.random.RandomState()
        rng.set_state(model.model.random_state.get_state())
        v = counts[rows].T.toarray().astype(np.float64)[:, rng.permutation(100)]
        model.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
        total = total + v @ model.model._h.T
    np.testing.assert_allclose(model.model.B, total / 3, rtol=1e-12)  # summation order only


@pytest.mark.parametrize("forget_factor", [0.3, 0.9])
def test_sklearn_nmf_is_minibatchnmf_with_its_hyperparameters(tiny, forget_factor):
    """The plugin is scikit-learn's MiniBatchNMF (KL loss) with K, batch_size, forget_factor, init, tol and the seed as
    given: after three minibatches its H equals MiniBatchNMF's own, fed the same minibatches directly. forget_factor
    is sklearn's rho, the weight the running statistics A, B keep per minibatch (not 1 - rho)."""
    from sklearn.decomposition import MiniBatchNMF

    model = get_method("sklearn_nmf")(tiny.n_words, seed=0, K=4, batch_size=100, forget_factor=forget_factor)
    direct = MiniBatchNMF(n_components=4, beta_loss="kullback-leibler", init="nndsvda", batch_size=100,
                          forget_factor=forget_factor, tol=1e-4, random_state=0)
    counts = tiny.split("train").counts
    for t in range(3):
        rows = np.arange(100 * t, 100 * (t + 1))
        model.partial_fit(Minibatch(counts[rows], rows, rows, None, t))
        direct.partial_fit(counts[rows].astype(np.float64))
    np.testing.assert_allclose(model.model.components_, direct.components_, rtol=1e-12, atol=0)  # the same arithmetic


def test_nmf_peer_hyperparameters_reach_the_library():
    """Each docstring's mapping, at values unlike the libraries' defaults (sklearn: tol 1e-4, transform_max_iter None;
    gensim: kappa 1, w_max_iter 200, w_stop_condition 1e-4, h_max_iter 50, h_stop_condition 1e-3): the plugins' defaults
    equal gensim's, so a setting dropped on the way to the library changes no default run and no test above."""
    sk = get_method("sklearn_nmf")(50, seed=0, K=4, batch_size=64, forget_factor=0.6, init="random", tol=3e-3,
                                   transform_max_iter=17).model
    assert (sk.n_components, sk.beta_loss, sk.init, sk.batch_size, sk.forget_factor, sk.tol, sk.transform_max_iter) == \
        (4, "kullback-leibler", "random", 64, 0.6, 3e-3, 17)
    gs = get_method("gensim_nmf")(50, seed=0, K=4, batch_size=64, kappa=0.4, w_max_iter=21, w_stop_condition=2e-3,
                                  h_max_iter=13, h_stop_condition=5e-4).model
    assert (gs.num_topics, gs.chunksize, gs._kappa, gs._w_max_iter, gs._w_stop_condition, gs._h_max_iter,
            gs._h_stop_condition, gs.normalize) == (4, 64, 0.4, 21, 2e-3, 13, 5e-4, True)


def test_nmf_peer_defaults_are_the_libraries_own():
    """The NMF peers run as their users run them: each solver default is the library's own, read from its signature
    (sklearn's transform_max_iter is the max_iter that transform uses when it is None)."""
    import inspect

    from gensim.models.nmf import Nmf
    from sklearn.decomposition import MiniBatchNMF

    gensim_own = inspect.signature(Nmf.__init__).parameters
    gensim_params = get_method("gensim_nmf").params
    for key in ("kappa", "w_max_iter", "w_stop_condition", "h_max_iter", "h_stop_condition"):
        assert gensim_params[key] == gensim_own[key].default, key
    sklearn_own = inspect.signature(MiniBatchNMF).parameters
    sklearn_params = get_method("sklearn_nmf").params
    for key in ("batch_size", "forget_factor", "tol"):
        assert sklearn_params[key] == sklearn_own[key].default, key
    assert sklearn_own["transform_max_iter"].default is None
    assert sklearn_params["transform_max_iter"] == sklearn_own["max_iter"].default
