"""Numerical failure mid-run (faults, eighth pass): a fit whose state turns NaN or inf between checkpoints, in every
method family, fails naming the method, the checkpoint and the quantity, and publishes nothing (no run folder, so
no NaN row can reach all_traces.parquet or a figure)."""
import numpy as np
import pytest

from _run_util import tiny_corpus  # noqa: F401
from topicbench.cli import main as cli
from topicbench.method import get_method

FAMILIES = [
    pytest.param("online_lda", [], id="lda-online"),
    pytest.param("population_vb", [], id="population-vb"),
    pytest.param("streaming_vb", [], id="streaming-vb"),
    pytest.param("bnmf", [], id="b-nmf"),
    pytest.param("cnmf", ["--param", "m=3"], id="c-nmf"),
    pytest.param("lgnmf", ["--param", "grid_size=2"], id="lg-nmf-online"),
]


@pytest.mark.parametrize("poison", [np.nan, np.inf], ids=["nan", "inf"])
@pytest.mark.parametrize("method, extra", FAMILIES)
def test_state_turning_non_finite_at_checkpoint_3_of_5(tmp_path, capsys, monkeypatch, tiny_corpus, method, extra,
                                                       poison):
    """A fit whose global state turns NaN/inf at its third update (checkpoint 3 of 5, 60 documents) -> exit 2 naming
    the method, 'checkpoint 3 (60 documents)' and the quantity (topics or the held-out score); an old run folder kept
    as it was, no staging left."""
    cls = get_method(method)
    original = cls.partial_fit

    def partial_fit(self, batch):
        original(self, batch)
        if self.docs_seen >= 60 or getattr(self, "_poison_updates", 0) >= 2:
            for value in vars(self).values():  # every global array of the model (lambda, g/h, D, ...)
                if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.ndim >= 2:
                    value[...] = poison
        self._poison_updates = getattr(self, "_poison_updates", 0) + 1

    monkeypatch.setattr(cls, "partial_fit", partial_fit)
    out = tmp_path / "out"
    out.mkdir()
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(out), "--method", method, "--param", "K=3",
                "--param", "batch_size=20", "--set", "n_checkpoints=5", *extra])
    err = capsys.readouterr().err
    assert code == 2 and method in err and "checkpoint 3 (60 documents)" in err, err
    assert "hold NaN or inf" in err or "log-likelihood" in err or "non-finite" in err, err
    assert list(out.iterdir()) == [] and not list(tmp_path.glob(".out.*"))


# -- extreme but valid hyperparameters and data (numerics10) ------------------------------------------------------
def run_tiny(corpus, out, method, *args, checkpoints=2):
    return cli(["run", "--corpus", str(corpus), "--out", str(out), "--method", method, "--set",
                f"n_checkpoints={checkpoints}", *args])


@pytest.mark.parametrize("method, setting", [
    pytest.param("online_lda", "alpha=1e16", id="online-lda-alpha-1e16-positive-elbo"),
    pytest.param("streaming_vb", "alpha=1e300", id="streaming-vb-alpha-1e300-positive-elbo"),
    pytest.param("gensim_lda", "eta=1e100", id="gensim-lda-eta-1e100-nan-topics"),
])
def test_dirichlet_prior_beyond_1e12(tmp_path, capsys, monkeypatch, tiny_corpus, method, setting):
    """An LDA prior alpha or eta above 1e12 -> exit 2 before any fit, naming the method and the prior, nothing written.

    Beyond it gamma = alpha + counts loses the counts and eq. 4 cancels: was a positive ELBO or NaN topics mid-run."""
    cls = get_method(method)
    monkeypatch.setattr(cls, "partial_fit", lambda self, batch: pytest.fail("a fit ran"))
    code = run_tiny(tiny_corpus, tmp_path / "out", method, "--param", "K=3", "--param", "batch_size=20",
                    "--param", setting)
    err = capsys.readouterr().err
    prior = setting.split("=")[0]
    assert code == 2 and f"{method}: hyperparameter '{prior}' must be <= 1e+12" in err, err
    assert not (tmp_path / "out").exists()


def test_batch_lda_tiny_eta_keeps_its_train_elbo(tmp_path, capsys, tiny_corpus):
    """Batch LDA with eta = 1e-8 over 3 passes -> every pass's train ELBO in the trace is finite and never falls.

    exp E[log beta] underflows to 0 there, and log 0 * (eta - lambda) made the eq. 4 topic terms NaN from pass 2."""
    import pandas as pd

    out = tmp_path / "out"
    code = run_tiny(tiny_corpus, out, "batch_lda", "--param", "K=3", "--param", "eta=1e-8", "--set", "passes=3",
                    checkpoints=3)
    assert code == 0, capsys.readouterr().err
    elbo = pd.read_parquet(out / "trace.parquet")["x_train_elbo"].to_numpy()
    assert len(elbo) == 3 and np.isfinite(elbo).all() and (np.diff(elbo) >= 0).all(), elbo


@pytest.mark.parametrize("setting", [
    pytest.param("fd_step=1e-300", id="fd-step-1e-300-zero-division"),
    pytest.param("fd_step=1e300", id="fd-step-1e300-overflow"),
])
def test_lgnmf_finite_difference_step_out_of_doubles(tmp_path, capsys, tiny_corpus, setting):
    """LG-NMF fd_step too small to move log10 alpha, or overflowing 10^(mode + h) -> exit 2 before compute naming it.

    Was a ZeroDivisionError / OverflowError traceback from the sec. 3.4 finite differences."""
    code = run_tiny(tiny_corpus, tmp_path / "out", "lgnmf", "--param", "K=3", "--param", "grid_size=2",
                    "--param", setting)
    err = capsys.readouterr().err
    assert code == 2 and "lgnmf: hyperparameter 'fd_step' must move log10 alpha" in err, err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("setting, culprit", [
    pytest.param("grid_spacing_sd=100", "grid_spacing_sd 100.0", id="grid-spacing-100-sd"),
    pytest.param("validation_fraction=0.99", "validation_fraction 0.99", id="one-fitted-document-flat-criterion"),
])
def test_lgnmf_laplace_grid_beyond_doubles(tmp_path, capsys, tiny_corpus, setting, culprit):
    """An LG-NMF Laplace grid where alpha = exp(point) leaves the doubles -> exit 2 naming lgnmf, the grid, the setting.

    A wide grid_spacing_sd, or a criterion flat in alpha (one fitted document); was numpy's 'array must not contain
    infs or NaNs' or 'A singular matrix detected', naming nothing. Nothing is written."""
    code = run_tiny(tiny_corpus, tmp_path / "out", "lgnmf", "--param", "K=3", "--param", "grid_size=2",
                    "--param", setting)
    err = capsys.readouterr().err
    assert code == 2 and "lgnmf: the sec. 3.4 grid puts log10 alpha at" in err and culprit in err, err
    assert not (tmp_path / "out").exists()



@pytest.mark.parametrize("kappa, message, computes", [
    pytest.param("2", "hyperparameter 'kappa' must lie in (0, 2)", False, id="kappa-2-h-steps-never-descend"),
    pytest.param("1e-100", "hyperparameter 'kappa' = 1e-100 is too small for this corpus", True,
                 id="kappa-1e-100-w-step-divides-by-0"),
])
def test_gensim_nmf_kappa_at_its_bounds(tmp_path, capsys, monkeypatch, tiny_corpus, kappa, message, computes):
    """gensim_nmf kappa >= 2, or so small that A = mean h h^T underflows -> exit 2 naming gensim_nmf and kappa.

    kappa >= 2 is refused before any fit: the h sweeps then never descend (2.5 was a finite fit 1.1 nats/word worse than
    1). A tiny kappa is found at the warm-up's first update, before the fit: it was NaN topics reported as a divergence
    at checkpoint 1. Nothing is written either way."""
    if not computes:
        monkeypatch.setattr(get_method("gensim_nmf"), "partial_fit", lambda self, batch: pytest.fail("a fit ran"))
    code = run_tiny(tiny_corpus, tmp_path / "out", "gensim_nmf", "--param", "K=3", "--param", "batch_size=20",
                    "--param", f"kappa={kappa}")
    err = capsys.readouterr().err
    assert code == 2 and f"gensim_nmf: {message}" in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()

@pytest.fixture(scope="module")
def corpus_with_a_1e9_count(tmp_path_factory):
    """40 documents over 20 words, the first (the earliest training document) holding 10^9 of word 3; 8 test
    documents."""
    import pandas as pd
    import scipy.sparse as sp

    from topicbench.corpus import Corpus, save_corpus

    counts = np.random.default_rng(0).poisson(1.0, (40, 20))
    counts[0, 3] = 10**9
    counts[counts.sum(axis=1) == 0, 0] = 1
    docs = pd.DataFrame({"doc_id": [f"d{i}" for i in range(40)], "split": ["train"] * 32 + ["test"] * 8,
                         "time": np.arange(40.0)})
    return save_corpus(Corpus(sp.csr_matrix(counts), [f"w{j}" for j in range(20)], docs, meta={"name": "huge"}),
                       tmp_path_factory.mktemp("numerics") / "huge")


@pytest.mark.parametrize("method, extra", [
    pytest.param("batch_lda", [], id="batch-lda"),
    pytest.param("bnmf", ["--param", "batch_size=4", "--set", "stream=time_ordered"], id="b-nmf-time-ordered"),
])
def test_training_document_of_1e9_tokens_first(tmp_path, capsys, monkeypatch, corpus_with_a_1e9_count, method,
                                               extra):
    """A training document of 10^9 tokens first in the stream, 4 GiB free -> the run finishes, its score finite, <= 0.

    The warm-up's document completion expanded it token by token and refused the run for ~45 GiB, though the fit
    never expands it."""
    import pandas as pd

    import topicbench.evaluate

    monkeypatch.setattr(topicbench.evaluate, "available_memory", lambda: 4 * 2**30)
    out = tmp_path / "out"
    code = run_tiny(corpus_with_a_1e9_count, out, method, "--param", "K=2", *extra)
    assert code == 0, capsys.readouterr().err
    score = pd.read_parquet(out / "trace.parquet")["loglik_per_word"].to_numpy()
    assert np.isfinite(score).all() and (score <= 0).all(), score


def test_streaming_vb_tiny_eta_bound_stays_finite_and_exact():
    """Streaming VB with eta = 1e-3 -> every round's minibatch ELBO is finite and its topic terms are eq. 4 exactly.

    exp E[log beta] underflows to 0 where lambda_kw = eta + a tiny statistic, and the numba bound took log of it: the
    ELBO was +inf on 13 of a minibatch's 17 rounds, so the rel_tol rule could not stop until two finite rounds met."""
    import sys
    from pathlib import Path

    import scipy.sparse as sp

    from topicbench.kernels.lda_reference import reference_topic_terms
    from topicbench.streams import Minibatch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from conftest import planted

    counts = sp.csr_matrix(planted(n_train=100, n_test=10, n_words=300, n_topics=5, seed=3).split("train").counts)
    svb = get_method("streaming_vb")(300, seed=0, K=5, alpha=0.1, eta=1e-3)
    svb.partial_fit(Minibatch(counts, np.arange(100), None, None, 0))
    assert len(svb.elbo_trace) > 2 and np.isfinite(svb.elbo_trace).all(), svb.elbo_trace
    # the topic terms at a lambda whose moved entries sit an ulp-scale statistic above a 1e-3 prior
    prior = np.full((5, 300), 1e-3)
    svb.lam = prior.copy()
    svb.lam[:, ::3] += 1e-10
    svb.lam[0] += 50.0
    svb._refresh()
    assert (svb.exp_elog_beta[1:, ::3] == 0).all()  # the underflow the bound must not read
    value = svb.topic_bound_under(prior, np.arange(300), prior.sum(axis=1))
    assert value == pytest.approx(reference_topic_terms(svb.lam, prior), rel=1e-10)


@pytest.mark.parametrize("flaw", ["transposed", "flat"])
def test_kernel_given_a_misshapen_topic_matrix(flaw):
    """A topic matrix passed transposed (V x K) or without its word axis to mixture_probs or lda_e_step -> ValueError
    naming the kernel and the shapes, before the kernel (no bounds checks) reads past the arrays.

    Was: lda_e_step given B-NMF's E[ln beta] without its V axis crashed the process (segmentation fault);
    mixture_probs given V x K topics returned reads past the array (denormals and non-finite numbers)."""
    import scipy.sparse as sp

    from topicbench import kernels

    rng = np.random.default_rng(0)
    topics, theta = rng.dirichlet(np.ones(12), 3), rng.dirichlet(np.ones(3), 4)
    counts = sp.csr_matrix(rng.poisson(1.0, (4, 12)).astype(np.float64))
    wrong = topics.T if flaw == "transposed" else topics[:, 0]
    with pytest.raises(ValueError, match=r"mixture_probs: topics must be K x V .*\(4, 12\)"):
        kernels.mixture_probs(counts, theta, wrong)
    with pytest.raises(ValueError, match=r"lda_e_step: exp_elog_beta must be K x V with V = 12"):
        kernels.lda_e_step(counts, wrong, 0.1)


# -- extreme but valid settings through every method (numerics20) -------------------------------------------------
def trace_scores(out):
    import pandas as pd

    return pd.read_parquet(out / "trace.parquet")["loglik_per_word"].to_numpy()


@pytest.mark.parametrize("method", ["gensim_lda", "gensim_nmf"])
def test_gensim_peer_at_the_largest_seed(tmp_path, capsys, tiny_corpus, method):
    """A gensim peer run at seed 2**32 - 1 (the largest a run takes) -> the run finishes, its scores finite and <= 0.

    Its evaluation generator RandomState(seed + 7919) left RandomState's range: the run was refused at the warm-up
    with gensim's 'Seed must be between 0 and 2**32 - 1', naming no setting."""
    out = tmp_path / "out"
    code = run_tiny(tiny_corpus, out, method, "--param", "K=3", "--param", "batch_size=20", "--set", f"seed={2**32 - 1}")
    assert code == 0, capsys.readouterr().err
    score = trace_scores(out)
    assert np.isfinite(score).all() and (score <= 0).all(), score


def save_tiny(folder, counts, n_test):
    """A corpus of these document x word counts, its last ``n_test`` documents the test split."""
    import pandas as pd
    import scipy.sparse as sp

    from topicbench.corpus import Corpus, save_corpus

    n = len(counts)
    docs = pd.DataFrame({"doc_id": [f"d{i}" for i in range(n)], "split": ["train"] * (n - n_test) + ["test"] * n_test,
                         "time": np.arange(float(n))})
    vocab = [f"w{j}" for j in range(counts.shape[1])]
    return save_corpus(Corpus(sp.csr_matrix(counts), vocab, docs, meta={"name": folder.name}), folder)


@pytest.mark.parametrize("method", ["population_vb", "gensim_lda"])
def test_one_word_vocabulary_scores_zero(tmp_path, capsys, method):
    """A one-word vocabulary (every held-out word certain) -> every per-word log predictive is 0 to rounding, never
    above 0.

    theta's sum rounds to 1 + 1 ulp, so p(w) = sum_k theta_k beta_kw came out 1 + 2e-16 and the trace recorded a
    log predictive of +1.4e-17 nats per word (population_vb, gensim_lda), above any model's."""
    counts = np.random.default_rng(3).integers(1, 20, (30, 1))
    corpus = save_tiny(tmp_path / "one_word", counts, 6)
    out = tmp_path / "out"
    code = run_tiny(corpus, out, method, "--param", "K=3", "--param", "batch_size=10", "--set", "topic_history_words=1",
                    checkpoints=3)
    assert code == 0, capsys.readouterr().err
    score = trace_scores(out)
    assert len(score) == 3 and (score <= 0).all() and (score > -1e-12).all(), score


def test_lgnmf_validation_documents_of_one_token(tmp_path, capsys):
    """LG-NMF whose validation documents are one token long (nothing for document completion to hold out) -> exit 2
    naming lgnmf, validation_fraction and the remedies; nothing written.

    Was a ZeroDivisionError traceback from the validation score per token (0 nats over 0 tokens)."""
    rng = np.random.default_rng(0)
    counts = np.zeros((48, 30), dtype=np.int64)
    counts[np.arange(40), rng.integers(0, 30, 40)] = 1  # one-token training documents
    counts[40:] = rng.integers(1, 4, (8, 30))
    corpus = save_tiny(tmp_path / "one_token", counts, 8)
    code = run_tiny(corpus, tmp_path / "out", "lgnmf", "--param", "K=3", "--param", "grid_size=2")
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "ZeroDivisionError" not in err, err
    assert "lgnmf: the validation documents" in err and "validation_fraction 0.1" in err, err
    assert "criterion: evidence" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("method, extra", [
    pytest.param("online_lda", ["--param", "batch_size=10"], id="online-lda"),
    pytest.param("population_vb", ["--param", "batch_size=10"], id="population-vb"),
    pytest.param("streaming_vb", ["--param", "batch_size=10"], id="streaming-vb"),
    pytest.param("batch_lda", ["--set", "passes=3"], id="batch-lda-3-passes"),
])
def test_one_word_one_topic_bound_of_zero(tmp_path, capsys, method, extra):
    """LDA with K = 1 over a one-word vocabulary (eq. 4's bound is exactly 0 there) -> the run finishes, every held-out
    ELBO per word finite and <= 0.

    exp E[log beta] = exp(Psi(lambda) - Psi(lambda)) came out 1 + 2 ulp from the kernel's exp, so the word term
    log sum_k exp(E[log theta_k] + E[log beta_kw]) was +4.4e-16 and the run was refused as diverged at checkpoint 1."""
    import pandas as pd

    counts = np.random.default_rng(2).integers(1, 20, (30, 1))
    corpus = save_tiny(tmp_path / "one_word", counts, 6)
    out = tmp_path / "out"
    code = run_tiny(corpus, out, method, "--param", "K=1", "--set", "topic_history_words=1", *extra, checkpoints=3)
    assert code == 0, capsys.readouterr().err
    elbo = pd.read_parquet(out / "trace.parquet")["elbo_per_word"].to_numpy()
    assert np.isfinite(elbo).all() and (elbo <= 0).all(), elbo


def test_bound_ceiling_hides_only_rounding():
    """Topics whose exp E[log beta] sums above 1 by more than rounding (doubled: wrong topics) -> eq. 4's word term
    shows it, n_dw log 2 per token in both bound forms.

    The ceiling of 1 on phinorm (K = 1 over one word) takes off rounding only, so an equation mutant still shows."""
    import scipy.sparse as sp

    from topicbench.kernels.lda_bound import doc_bound, minibatch_columns

    counts = sp.csr_matrix(np.array([[3.0], [5.0]]))
    model = get_method("online_lda")(1, seed=0, corpus_size=2, K=1)
    gamma, _, _ = model.e_step(counts, want_sstats=False)
    right = model.doc_bound(counts, gamma)
    model.exp_elog_beta = 2.0 * model.exp_elog_beta
    assert model.doc_bound(counts, gamma) == pytest.approx(right + 8 * np.log(2.0), abs=1e-9)
    fast = doc_bound(minibatch_columns(counts, 1), model.exp_elog_beta, gamma, model.alpha)  # streaming VB's form
    assert fast == pytest.approx(right + 8 * np.log(2.0), abs=1e-9)


@pytest.mark.parametrize("method", ["streaming_vb", "batch_lda"])
def test_elbo_of_exactly_zero_in_the_stopping_rule(recwarn, method):
    """An ELBO of exactly 0 (one word, one topic) in a relative-change stopping rule -> converged, no division by 0.

    Streaming VB's per-round and batch LDA's per-pass rule, on one-token documents of a one-word vocabulary: streaming
    VB raised ZeroDivisionError in the runner's warm-up (a traceback); batch LDA divided 0 by 0 (numpy's RuntimeWarning)
    and went on."""
    import scipy.sparse as sp

    from topicbench.streams import Minibatch

    batch = Minibatch(sp.csr_matrix(np.ones((2, 1))), np.arange(2), None, None, 0)
    model = get_method(method)(1, seed=0, K=1, **({"batch_size": 2} if method == "streaming_vb" else {}))
    for _ in range(2):
        model.partial_fit(batch)
    assert model.elbo_trace[-1] == 0.0
    assert len(model.elbo_trace) == 2 if method == "streaming_vb" else model.converged
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in recwarn]


def test_lgnmf_batch_mode_over_too_few_documents_for_validation(tmp_path, capsys, monkeypatch):
    """LG-NMF's batch mode over a training split of 4 documents (round(0.1 x 4) = 0 validation documents) -> exit 2
    before any fit, naming validation_fraction and the training split; nothing written.

    Was found at the first update, after the warm-up: the split is known when the method is built."""
    monkeypatch.setattr(get_method("lgnmf"), "partial_fit", lambda self, batch: pytest.fail("a fit ran"))
    corpus = save_tiny(tmp_path / "four", np.random.default_rng(0).integers(1, 4, (6, 30)), 2)
    code = run_tiny(corpus, tmp_path / "out", "lgnmf", "--param", "K=3", "--param", "grid_size=2")
    err = capsys.readouterr().err
    assert code == 2 and "lgnmf: hyperparameter 'validation_fraction' 0.1 of a training split of 4 documents" in err, err
    assert not (tmp_path / "out").exists()


def test_lgnmf_grid_scores_over_one_word_stay_at_most_zero(tmp_path, capsys):
    """LG-NMF (criterion evidence) over a one-word vocabulary -> every grid point's held-out log predictive per word
    (x_grid<m>_loglik) and the run's own are 0 to rounding, never above 0.

    p(w | d) = (1 - f) rate / total + f / V took rate and total as one sum in two orders, so it came out 1 + 1 ulp and
    x_grid2_loglik was +1.3e-16 nats per word."""
    import pandas as pd

    corpus = save_tiny(tmp_path / "one_word", np.random.default_rng(3).integers(1, 20, (30, 1)), 6)
    out = tmp_path / "out"
    code = run_tiny(corpus, out, "lgnmf", "--param", "K=3", "--param", "grid_size=3", "--param", "criterion=evidence",
                    "--set", "topic_history_words=1", "--set", "passes=2")
    assert code == 0, capsys.readouterr().err
    trace = pd.read_parquet(out / "trace.parquet")
    scores = trace[[c for c in trace.columns if c.endswith("_loglik")] + ["loglik_per_word"]].to_numpy()
    assert scores.shape[1] == 4 and (scores <= 0).all() and (scores > -1e-12).all(), scores


def test_lgnmf_alpha_below_the_rounding_of_its_hessian(tmp_path, capsys):
    """LG-NMF with K > V on a fixed grid reaching alpha = 1e-150 (alpha I + D'D singular in doubles) -> exit 2 naming
    lgnmf, eq. 10's Hessian and log10_alpha_min; nothing written.

    Was scipy's 'A singular matrix detected: slice(s) [0] are singular.', naming no setting."""
    corpus = save_tiny(tmp_path / "two_words", np.random.default_rng(0).integers(1, 20, (30, 2)), 6)
    code = run_tiny(corpus, tmp_path / "out", "lgnmf", "--param", "K=3", "--param", "grid=fixed", "--param",
                    "grid_size=2", "--param", "log10_alpha_min=-300", "--param", "log10_alpha_max=300", "--set",
                    "topic_history_words=1")
    err = capsys.readouterr().err
    assert code == 2 and "lgnmf" in err and "alpha I + D'D (eq. 10) is singular" in err, err
    assert "log10_alpha_min" in err and not (tmp_path / "out").exists()
