"""Typed hyperparameters and run settings: every value is converted to its declared type before any check,
from the CLI and from YAML alike, and a value that cannot be converted without changing it is an error naming
the parameter, before the corpus is even read."""
import math
import subprocess
import sys

import pandas as pd
import pytest

from _run_util import REPO, TINY, cli_subprocess, env, tiny_corpus  # noqa: F401
from topicbench.cli import main as cli
from topicbench.method import ParamError, get_method
from topicbench.run import RunSpec


def run_cli(tmp_path, capsys, *args):
    """The CLI in-process against a corpus that does not exist: any error must come before data is read."""
    code = cli(["run", "--corpus", str(tmp_path / "no_corpus"), "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert not (tmp_path / "out").exists(), "nothing may be written for a rejected run"
    return code, err


@pytest.mark.parametrize("args, culprit, message", [
    pytest.param(["--method", "online_lda", "--param", "K=true"], "'K'", "got the boolean", id="K-true-is-not-an-integer"),
    pytest.param(["--method", "online_lda", "--param", "batch_size=2.5"], "'batch_size'", "whole number",
                 id="batch_size-2.5-not-truncated"),
    pytest.param(["--method", "online_lda", "--param", "alpha=.inf"], "'alpha'", "finite", id="alpha-inf"),
    pytest.param(["--method", "online_lda", "--param", "eta=.nan"], "'eta'", "finite", id="eta-nan"),
    pytest.param(["--method", "online_lda", "--param", "tau0=1e400"], "'tau0'", "finite", id="tau0-overflows-to-inf"),
    pytest.param(["--method", "online_lda", "--param", "K=ten"], "'K'", "must be a number", id="K-not-a-number"),
    pytest.param(["--method", "online_lda", "--param", "allow_kappa_half=1"], "'allow_kappa_half'", "true or false",
                 id="bool-param-given-1"),
    pytest.param(["--method", "online_lda", "--param", "tau0=0", "--param", "kappa=0.7"], "'tau0'", "must be >= 1 when kappa > 0",
                 id="tau0-zero-with-kappa"),
    pytest.param(["--method", "online_lda", "--param", "K=[3]"], "'K'", "must be a number", id="K-a-list"),
    pytest.param(["--method", "online_lda", "--param", 'K="6"'], "'K'", "got the text '6'", id="K-quoted-text"),
    pytest.param(["--method", "bnmf", "--param", "a0=abc"], "'a0'", "must be a number", id="optional-float-given-text"),
    pytest.param(["--method", "online_lda", "--param", "K=010"], "--param K", "'010' reads as 8", id="K-octal-010-is-not-8"),
    pytest.param(["--method", "online_lda", "--param", "K=1:30"], "--param K", "'1:30' reads as 90",
                 id="K-base60-1:30-is-not-90"),
    pytest.param(["--method", "online_lda", "--param", "e_step_max_iter=100000000000000000000"], "'e_step_max_iter'",
                 "64-bit integer", id="int-beyond-int64"),
    pytest.param(["--method", "online_lda", "--param", "batch_size=1e20"], "'batch_size'", "64-bit integer",
                 id="batch_size-1e20-beyond-int64"),
    pytest.param(["--method", "sklearn_nmf", "--param", "K=30", "--param", "batch_size=20"], "'K'",
                 "must be <= batch_size for init='nndsvda'", id="sklearn_nmf-K-beyond-its-nndsvd-init"),
    pytest.param(["--method", "lgnmf", "--param", "eta=0.01"], "'eta'", "applies to the online mode only",
                 id="lgnmf-batch-mode-eta-not-ignored"),
    pytest.param(["--method", "lgnmf", "--param", "batch_size=50", "--param", "block_iters=3"], "'block_iters'",
                 "applies to the batch mode only", id="lgnmf-online-mode-block_iters-not-ignored"),
    pytest.param(["--method", "bnmf", "--param", "batch_size=null", "--param", "kappa=0.9"], "'kappa'",
                 "the batch mode (batch_size: null, rho = 1) does not use", id="bnmf-batch-mode-kappa-not-ignored"),
    pytest.param(["--method", "online_lda", "--param", "tau0=0.5"], "'tau0'", "must be >= 1 when kappa > 0",
                 id="tau0-0.5-step-size-above-one"),
    pytest.param(["--method", "population_vb", "--param", "tau0=0.5"], "'tau0'", "must be >= 1 when kappa > 0",
                 id="population_vb-tau0-0.5-step-size-above-one"),
    pytest.param(["--method", "lgnmf", "--param", "batch_size=4"], "'validation_fraction'",
                 "0.1 of a minibatch of 4 documents is 0 validation documents", id="lgnmf-online-no-validation-document"),
    pytest.param(["--method", "online_lda", "--param", "alpha=1.0e-400"], "--param alpha", "would be read as 0",
                 id="alpha-1.0e-400-underflows-to-zero"),
    pytest.param(["--method", "batch_lda", "--param", "rel_tol=1e-400"], "--param rel_tol", "would be read as 0",
                 id="rel_tol-1e-400-text-underflows-to-zero"),
])
def test_cli_hyperparameter_of_wrong_type(tmp_path, capsys, args, culprit, message):
    """A hyperparameter that cannot be its declared type -> exit 2 naming it, before data is read."""
    code, err = run_cli(tmp_path, capsys, *args)
    assert code == 2
    assert culprit in err and message in err, err


@pytest.mark.parametrize("args, culprit, message", [
    pytest.param(["--method", "online_lda", "--set", "passes=.inf"], "'passes'", "finite", id="passes-inf"),
    pytest.param(["--method", "online_lda", "--set", "passes=0"], "passes", "positive", id="passes-zero"),
    pytest.param(["--method", "online_lda", "--set", "max_docs=0"], "'max_docs'", ">= 1", id="max_docs-zero"),
    pytest.param(["--method", "online_lda", "--set", "max_docs=10.5"], "'max_docs'", "whole number", id="max_docs-fraction"),
    pytest.param(["--method", "online_lda", "--set", "holdout=lookahead", "--set", "holdout_n=0"], "n must be >= 1", "",
                 id="holdout_n-zero"),
    pytest.param(["--method", "online_lda", "--set", "holdout_n=300"], "'holdout_n' does not apply to the held-out "
                 "policy 'fixed'", "every_nth_batch and lookahead", id="holdout_n-under-the-fixed-policy-not-ignored"),
    pytest.param(["--method", "online_lda", "--set", "holdout=every_nth_batch", "--set", "n_checkpoints=30"],
                 "'n_checkpoints' does not apply to the held-out policy 'every_nth_batch'", "fixed and lookahead",
                 id="n_checkpoints-under-every_nth_batch-not-ignored"),
    pytest.param(["--method", "online_lda", "--set", "n_checkpoints=0"], "n_checkpoints", ">= 1", id="n_checkpoints-zero"),
    pytest.param(["--method", "online_lda", "--set", "observed_fraction=1"], "observed_fraction", "(0, 1)",
                 id="observed_fraction-one"),
    pytest.param(["--method", "online_lda", "--set", "observed_fraction=0"], "observed_fraction", "(0, 1)",
                 id="observed_fraction-zero"),
    pytest.param(["--method", "online_lda", "--set", "observed_fraction=1.5", "--set", "folds=3"], "observed_fraction",
                 "(0, 1)", id="observed_fraction-1.5-with-folds"),
    pytest.param(["--method", "online_lda", "--seed", "-1"], "'seed'", ">= 0", id="negative-seed"),
    pytest.param(["--method", "online_lda", "--set", "seed=1.5"], "'seed'", "whole number", id="fractional-seed"),
    pytest.param(["--method", "online_lda", "--set", "seed=true"], "'seed'", "boolean", id="boolean-seed"),
    pytest.param(["--method", "online_lda", "--threads", "0"], "threads", ">= 1", id="threads-zero"),
    pytest.param(["--method", "online_lda", "--threads", "100000"], "'threads'", "CPUs", id="threads-beyond-cpus"),
    pytest.param(["--method", "online_lda", "--set", "stream=5"], "'stream'", "must be a string", id="stream-a-number"),
    pytest.param(["--method", "online_lda", "--set", "report_elbo=2"], "'report_elbo'", "true or false",
                 id="report_elbo-an-integer"),
    pytest.param(["--method", "online_lda", "--set", "thread=2"], "unknown run setting", "'thread'", id="unknown-setting"),
    pytest.param(["--method", "online_lda", "--seed", "18446744073709551617"], "'seed'", "64-bit integer",
                 id="seed-beyond-int64"),
    pytest.param(["--method", "sklearn_lda", "--seed", "4294967296"], "'seed'", "< 2**32", id="seed-2**32-for-the-peers"),
    pytest.param(["--method", "online_lda", "--set", "eval_seed=4294967296"], "'eval_seed'", "< 2**32",
                 id="eval_seed-2**32"),
    pytest.param(["--method", "gensim_nmf", "--set", "holdout=every_nth_batch", "--set", "holdout_n=1"], "'holdout_n'",
                 "gensim_nmf has no model before its first minibatch", id="gensim_nmf-scored-before-its-first-minibatch"),
    pytest.param(["--method", "sklearn_nmf", "--set", "holdout=every_nth_batch", "--set", "holdout_n=1"], "'holdout_n'",
                 "sklearn_nmf has no model before its first minibatch", id="sklearn_nmf-scored-before-its-first-minibatch"),
    pytest.param(["--method", "batch_lda", "--set", "passes=1.5"], "'passes'", "whole number for the batch method",
                 id="batch-method-fractional-passes-not-rounded-up"),
    pytest.param(["--method", "batch_lda", "--set", "max_docs=50"], "'max_docs'", "does not apply to the batch method",
                 id="batch-method-max_docs-not-ignored"),
    pytest.param(["--method", "batch_lda", "--set", "stream=time_ordered"], "'stream'", "does not apply to the batch method",
                 id="batch-method-stream-not-ignored"),
    pytest.param(["--method", "online_lda", "--set", "n_checkpoints=0x10", "--set", "holdout_n=010"], "--set holdout_n",
                 "'010' reads as 8", id="run-setting-octal"),
    pytest.param(["--method", "online_lda", "--set", "stream=off"], "--set stream", "'off' reads as the boolean False",
                 id="stream-off-a-yaml11-boolean"),
    pytest.param(["--method", "online_lda", "--set", "label=no"], "--set label", "'no' reads as the boolean False",
                 id="label-no-a-yaml11-boolean"),
    pytest.param(["--method", "online_lda", "--experiment=-e"], "'experiment' = '-e'", "no leading dot or dash",
                 id="experiment-leading-dash"),
    pytest.param(["--method", "online_lda", "--set", "label=-x"], "'label' = '-x'", "no leading dot or dash",
                 id="label-leading-dash"),
])
def test_cli_run_setting_of_wrong_type_or_range(tmp_path, capsys, monkeypatch, args, culprit, message):
    """A run setting of the wrong type or out of range -> exit 2 naming it, before data is read."""
    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)  # the message names the machine's CPUs, not a user's cap
    code, err = run_cli(tmp_path, capsys, *args)
    assert code == 2
    assert culprit in err and message in err, err


@pytest.mark.parametrize("given, expected", [
    pytest.param({"alpha": "1e-4"}, {"alpha": 1e-4}, id="yaml11-string-1e-4-is-a-float"),
    pytest.param({"tau0": "1e3"}, {"tau0": 1000.0}, id="cli-1e3-is-a-float"),
    pytest.param({"batch_size": 2.0}, {"batch_size": 2}, id="whole-float-to-int"),
    pytest.param({"e_step_max_iter": "1e2"}, {"e_step_max_iter": 100}, id="1e2-as-an-integer"),
    pytest.param({"tau0": 64}, {"tau0": 64.0}, id="int-for-float"),
])
def test_numeric_strings_become_their_declared_type(given, expected):
    """A numeric-looking string or a whole float -> the declared type, recorded as such (no str in the trace)."""
    spec = RunSpec(method="online_lda", params=given)
    spec.check()
    for key, value in expected.items():
        assert spec.params[key] == value and type(spec.params[key]) is type(value), spec.params
    hyper = get_method("online_lda").resolve_params(given)
    assert all(type(hyper[k]) is type(v) for k, v in expected.items())


def test_optional_params_keep_null_and_convert_numbers():
    """A None-default param (bnmf a0) -> null stays null, '1e-2' becomes 0.01, true is refused."""
    bnmf = get_method("bnmf")
    assert bnmf.resolve_params({"a0": None})["a0"] is None
    assert bnmf.resolve_params({"a0": "1e-2"})["a0"] == pytest.approx(0.01)
    with pytest.raises(ParamError, match="'a0'.*boolean"):
        bnmf.resolve_params({"a0": True})


def test_tau0_zero_is_fine_without_decay():
    """tau0 = 0 with kappa = 0 -> accepted: rho_t = (0 + t)^0 = 1, the batch-equivalence setting."""
    p = get_method("online_lda").resolve_params({"tau0": 0, "kappa": 0})
    assert p["tau0"] == 0.0 and not math.isnan(p["tau0"])


@pytest.mark.parametrize("settings, culprit", [
    pytest.param({"holdout": "every_nth_batch", "n_checkpoints": 5}, "'n_checkpoints'", id="n_checkpoints-every_nth_batch"),
    pytest.param({"holdout_n": 300}, "'holdout_n'", id="holdout_n-fixed"),
])
def test_library_run_setting_its_policy_ignores(monkeypatch, tiny_corpus, settings, culprit):
    """A RunSpec built in Python with a setting its held-out policy never reads -> ValueError naming it, before the
    corpus is read (the CLI and the grid refuse it too; here no front end stands between the caller and run)."""
    import topicbench.run as run_module

    monkeypatch.setattr(run_module, "load_corpus", lambda *a, **k: pytest.fail("the corpus was read before the check"))
    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, **settings)
    with pytest.raises(ValueError, match=f"{culprit} does not apply to the held-out policy"):
        run_module.run(spec, "/nonexistent/corpus")


def test_cli_param_given_twice(tmp_path, capsys):
    """--param K=3 --param K=4 -> exit 2 naming K, not a silent last-wins."""
    code, err = run_cli(tmp_path, capsys, "--method", "online_lda", "--param", "K=3", "--param", "K=4")
    assert code == 2 and "--param K is given twice" in err


def test_cli_param_unreadable_value(tmp_path, capsys):
    """--param K=[3 (not YAML) -> exit 2 naming K and the value, no traceback."""
    code, err = run_cli(tmp_path, capsys, "--method", "online_lda", "--param", "K=[3")
    assert code == 2 and "--param K: cannot read the value '[3'" in err and "Traceback" not in err


@pytest.mark.parametrize("spec_json, message", [
    pytest.param("{method: online_lda}", "--spec-json is not JSON", id="spec-json-not-json"),
    pytest.param('["online_lda"]', "--spec-json must be a JSON object", id="spec-json-a-list"),
    pytest.param('{"method": "online_lda", "passe": 2}', "unknown run setting(s) ['passe']", id="spec-json-unknown-key"),
    pytest.param('{"method": "online_lda", "params": [1]}', "params must be an object", id="spec-json-params-a-list"),
    pytest.param('{"method": "online_lda", "seed": 1, "seed": 2}', "--spec-json: key 'seed' is given twice (1 and 2)",
                 id="spec-json-seed-twice-not-last-wins"),
    pytest.param('{"method": "online_lda", "params": {"K": 3, "K": 5}}', "--spec-json: key 'K' is given twice",
                 id="spec-json-K-twice-not-last-wins"),
])
def test_cli_bad_spec_json(tmp_path, capsys, spec_json, message):
    """A --spec-json that is not a JSON object of RunSpec fields -> exit 2 naming the flag or the key."""
    code, err = run_cli(tmp_path, capsys, "--spec-json", spec_json)
    assert code == 2 and message in err, err


def test_cli_spec_file_missing(tmp_path, capsys):
    """--spec naming a missing file -> exit 2 naming the file."""
    missing = tmp_path / "nope.json"
    code, err = run_cli(tmp_path, capsys, "--spec", str(missing))
    assert code == 2 and f"--spec {missing}" in err, err


@pytest.mark.parametrize("args, message", [
    pytest.param(["--set", "passes=1e-9"], "passes = 1e-09 of 120 training documents rounds to no document",
                 id="passes-rounding-to-no-document"),
    pytest.param(["--set", "passes=1e300"], "passes = 1e+300 over 120 training documents is a stream of",
                 id="passes-whose-stream-order-cannot-fit-in-memory-not-a-hang"),
    pytest.param(["--set", "train_subset=1000"], "'train_subset' = 1000 exceeds the 120 documents",
                 id="train_subset-beyond-the-split-not-clamped"),
    pytest.param(["--set", "topic_history_words=61"], "'topic_history_words' = 61 exceeds the corpus's 60 words",
                 id="topic_history_words-beyond-V"),
    pytest.param(["--set", "holdout=every_nth_batch", "--set", "holdout_n=7"],
                 "holdout_n = 7 but the stream has only 6 minibatches", id="every_nth_batch-beyond-the-stream"),
    pytest.param(["--method", "sklearn_nmf", "--param", "K=100", "--param", "batch_size=120"],
                 "'K' must be <= the vocabulary size (60 words)", id="sklearn_nmf-K-beyond-V"),
    pytest.param(["--param", "batch_size=121"], "online_lda: batch_size = 121 exceeds the 120 training documents",
                 id="batch_size-beyond-the-training-split-not-clamped"),
    pytest.param(["--method", "bnmf", "--param", "K=3", "--param", "batch_size=500"],
                 "bnmf: batch_size = 500 exceeds the 120 training documents", id="bnmf-batch_size-beyond-the-training-split"),
    # more folds than tokens hold out nothing more, yet each splits every scored document (was: 1e6 folds hung)
    pytest.param(["--set", "folds=1000000"], "'folds' = 1000000 exceeds the 38 tokens of the longest document of the "
                 "test split", id="folds-beyond-the-longest-test-document"),
    pytest.param(["--set", "folds=1000000", "--set", "holdout=lookahead"], "'folds' = 1000000 exceeds the 40 tokens "
                 "of the longest document held-out policy lookahead scores", id="folds-beyond-the-longest-window-document"),
])
def test_run_impossible_on_this_corpus(tmp_path, capsys, monkeypatch, tiny_corpus, args, message):
    """A run setting impossible on the corpus it names -> exit 2 naming it, before warm-up or fit; nothing written."""
    from topicbench import run as run_module

    def no_compute(*_):
        raise AssertionError("compute started before the bad setting was found")

    monkeypatch.setattr(run_module, "_warm_up", no_compute)
    method = [] if "--method" in args else ["--method", "online_lda", "--param", "K=3"]
    batch = [] if any(a.startswith("batch_size=") for a in args) else ["--param", "batch_size=20"]
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "out"), *method, *batch, *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


def test_n_checkpoints_beyond_every_document(tmp_path, capsys, tiny_corpus):
    """--set n_checkpoints=1e12 -> a checkpoint after every minibatch, as any schedule that dense gives, in no time.

    Was: a MemoryError traceback (1e12 log-spaced points built, then rounded to the 101 document counts there are)."""
    import numpy as np

    from topicbench.streams import log_checkpoints

    out = tmp_path / "out"
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(out), "--method", "online_lda", "--param", "K=3",
                "--param", "batch_size=20", "--set", f"n_checkpoints={10 ** 12}"])
    assert code == 0, capsys.readouterr().err
    assert pd.read_parquet(out / "trace.parquet")["docs_seen"].tolist() == [20, 40, 60, 80, 100, 120]
    for total, first in ((120, 20), (7919, 3), (5, 20)):  # the dense bound: the same counts as the points round to
        bound = int(2 * total * abs(np.log(total / first))) + 1
        for n in (bound - 1, bound, bound + 1):
            dense = np.unique(np.round(np.geomspace(first, total, n)).astype(np.int64))
            assert np.array_equal(log_checkpoints(total, n, first), dense), (total, first, n)


def test_sklearn_nmf_K_beyond_a_short_first_minibatch(tmp_path, capsys, tiny_corpus):
    """sklearn_nmf K above the first minibatch's documents (a 30-document budget, max_docs) -> exit 2 naming K, no output."""
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "out"), "--method", "sklearn_nmf",
                "--param", "K=35", "--param", "batch_size=40", "--set", "max_docs=30"])
    err = capsys.readouterr().err
    assert code == 2 and "'K' must be <= the first minibatch's 30 documents" in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


@pytest.mark.parametrize("args, culprit", [
    pytest.param(["--method", "bnmf", "--param", "a0=1e300", "--param", "b0=1e-300"], "'a0': 1e+300",
                 id="bnmf-a0-huge-b0-tiny-zero-probability"),
    pytest.param(["--method", "lgnmf", "--param", "log10_alpha_min=200", "--param", "log10_alpha_max=300",
                  "--param", "grid_size=2"], "'log10_alpha_min': 200", id="lgnmf-alpha-1e200-topics-without-words"),
])
def test_fit_whose_scores_are_not_numbers_is_refused(tmp_path, capsys, tiny_corpus, args, culprit):
    """Hyperparameters giving a NaN, inf or positive per-word score, or topics without a word -> exit 2 naming the
    method and the hyperparameters (one line, no traceback), nothing written."""
    batch = [] if "lgnmf" in args else ["--param", "batch_size=20"]
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "out"), "--param", "K=3", *batch,
                "--set", "n_checkpoints=2", *args])
    err = capsys.readouterr().err
    assert code == 2 and ("diverged" in err or "unusable topics" in err) and culprit in err and args[1] in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", [pytest.param("0", id="NUMBA_NUM_THREADS-zero"),
                                   pytest.param("four", id="NUMBA_NUM_THREADS-text")])
def test_numba_thread_variable_that_is_not_a_count(tmp_path, value):
    """NUMBA_NUM_THREADS=0 (numba's error names no variable) or text (numba silently uses every CPU) -> exit 2
    naming NUMBA_NUM_THREADS, no traceback, nothing written."""
    proc = cli_subprocess(["run", "--corpus", tmp_path / "no_corpus", "--out", tmp_path / "out", "--method",
                           "online_lda"], NUMBA_NUM_THREADS=value)
    assert proc.returncode == 2 and "NUMBA_NUM_THREADS" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


def test_numba_threading_layer_variable_unknown(tmp_path):
    """NUMBA_THREADING_LAYER=xyz -> exit 2 naming the variable and the choices, before the corpus is read.

    numba's own error names neither, and comes only at the first parallel kernel, after the corpus is read."""
    proc = cli_subprocess(["run", "--corpus", tmp_path / "no_corpus", "--out", tmp_path / "out", "--method",
                           "online_lda"], NUMBA_THREADING_LAYER="xyz")
    assert proc.returncode == 2 and "NUMBA_THREADING_LAYER='xyz' is not a numba threading layer" in proc.stderr
    assert "workqueue" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", [pytest.param("128", id="TOPICBENCH_VECTOR_BITS-128"),
                                   pytest.param("wide", id="TOPICBENCH_VECTOR_BITS-text")])
def test_vector_width_variable_not_a_width(tmp_path, value):
    """TOPICBENCH_VECTOR_BITS=128 or text -> exit 2 naming the variable and its two values, before the corpus is read;
    nothing written (silently running at some other width would hide the typo)."""
    proc = cli_subprocess(["run", "--corpus", tmp_path / "no_corpus", "--out", tmp_path / "out", "--method",
                           "online_lda"], TOPICBENCH_VECTOR_BITS=value)
    assert proc.returncode == 2 and f"TOPICBENCH_VECTOR_BITS={value!r} must be 256 or 512" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_document_of_billions_of_tokens(tmp_path, capsys):
    """A corpus whose documents hold a few counts of 2e9 each (each under the readers' int32 bound) -> exit 2 before
    the fit naming the tokens and the longest document (document completion draws tokens one by one), not a
    MemoryError traceback; nothing written."""
    from topicbench.dataset import prepare

    lines = [(d, w, 2_000_000_000 if d <= 10 else 1 + (d * w) % 4) for d in range(1, 41) for w in range(1, 31)]
    (tmp_path / "docword.txt").write_text(f"40\n30\n{len(lines)}\n" + "".join(f"{d} {w} {c}\n" for d, w, c in lines))
    (tmp_path / "vocab.txt").write_text("".join(f"w{i}\n" for i in range(30)))
    corpus = prepare("user_bow", tmp_path / "c", format="uci", path=str(tmp_path / "docword.txt"),
                     vocab=str(tmp_path / "vocab.txt"), test_fraction=0.5)
    code = cli(["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--method", "batch_lda",
                "--param", "K=3", "--set", "n_checkpoints=1"])
    err = capsys.readouterr().err
    assert code == 2 and "tokens" in err and "the longest 60,000,000,000" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("damage, extra", [
    pytest.param(lambda t: t.assign(time=t["time"].where(t.index != 3)), [], id="time-ordered-a-missing-time"),
    pytest.param(lambda t: t.assign(time=t["time"].map(lambda v: f"{v:g}")), [], id="time-ordered-times-as-text"),
    pytest.param(lambda t: t.assign(time=2001.0), [], id="time-ordered-one-time-for-all"),
    pytest.param(lambda t: t.assign(time=(t.index >= 80) + 2001.0), ["--set", "max_docs=60"],
                 id="time-ordered-max_docs-within-one-time"),
])
def test_time_ordered_stream_over_bad_times(tmp_path, capsys, tiny_corpus, damage, extra):
    """A time_ordered stream over missing, text ('999' after '2012') or one shared time -> exit 2 naming the time column.

    docs.parquet's time column, before the fit: NaN sorts last, text sorts as text, and one time for every document
    it trains on (all, or the first max_docs) is doc-id order, drawn as a time-ordered stream."""
    import hashlib
    import json
    import shutil

    import pandas as pd

    corpus = tmp_path / "c"
    shutil.copytree(tiny_corpus, corpus)
    damage(pd.read_parquet(corpus / "docs.parquet")).to_parquet(corpus / "docs.parquet", index=False)
    meta = json.loads((corpus / "corpus.json").read_text())  # a consistent corpus: the times themselves are the fault
    meta["checksums"]["docs.parquet"] = hashlib.sha256((corpus / "docs.parquet").read_bytes()).hexdigest()
    (corpus / "corpus.json").write_text(json.dumps(meta))
    code = cli(["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--method", "online_lda",
                "--param", "K=3", "--param", "batch_size=20", "--set", "n_checkpoints=2", "--set", "stream=time_ordered",
                *extra])
    err = capsys.readouterr().err
    assert code == 2 and "'time' column (docs.parquet)" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, culprit", [
    pytest.param(["--method", "online_lda", "--seed", "1", "--set", "seed=2"], "'seed'", id="seed-flag-and-set"),
    pytest.param(["--method", "online_lda", "--spec-json", '{"method": "batch_lda"}'], "'method'",
                 id="method-flag-and-spec-json"),
    pytest.param(["--spec-json", '{"method": "online_lda", "params": {"K": 4}}', "--param", "K=3"], "'K'",
                 id="K-spec-json-and-param"),
    pytest.param(["--method", "online_lda", "--threads", "1", "--set", "threads=2"], "'threads'",
                 id="threads-flag-and-set"),
    pytest.param(["--method", "online_lda", "--set", 'params={"K": 5}', "--param", "K=3"], "'K'",
                 id="K-set-params-and-param"),
])
def test_one_setting_given_two_ways(tmp_path, capsys, args, culprit):
    """One setting given two different ways (--seed and --set seed=, --spec-json and --param) -> exit 2 naming it
    and both sources before data is read, not a silent last-wins."""
    code, err = run_cli(tmp_path, capsys, *args)
    assert code == 2 and culprit in err and "given twice" in err, err


@pytest.mark.parametrize("holdout", [pytest.param(["--set", "n_checkpoints=2"], id="fixed-test-split-holds-out-nothing"),
                                     pytest.param(["--set", "holdout=every_nth_batch", "--set", "holdout_n=2"],
                                                  id="every-nth-batch-holds-out-nothing")])
def test_document_completion_that_holds_out_no_token(tmp_path, capsys, holdout):
    """observed_fraction=0.9 over one-token documents (round(0.9) = 1: every token observed) -> exit 2 naming
    observed_fraction (before the fit for the fixed test split), never a NaN log-likelihood in the trace."""
    from topicbench.dataset import prepare

    lines = [(d, 1 + (7 * d) % 20, 1) for d in range(1, 81)]
    (tmp_path / "docword.txt").write_text("80\n20\n80\n" + "".join(f"{d} {w} {c}\n" for d, w, c in lines))
    (tmp_path / "vocab.txt").write_text("".join(f"w{i}\n" for i in range(20)))
    corpus = prepare("user_bow", tmp_path / "c", format="uci", path=str(tmp_path / "docword.txt"),
                     vocab=str(tmp_path / "vocab.txt"), test_fraction=0.2)
    code = cli(["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--method", "online_lda",
                "--param", "K=3", "--param", "batch_size=10", "--set", "observed_fraction=0.9", *holdout])
    err = capsys.readouterr().err
    assert code == 2 and "holds out no token" in err and "observed_fraction=0.9" in err, err
    assert not (tmp_path / "out").exists()


def test_damaged_numba_cache_is_recompiled(tmp_path):
    """A truncated numba cache index or data file -> a cache miss: compiled again, same numbers, entries rewritten.

    (A full disk or a crash while numba wrote it; was: numba's UnpicklingError traceback from the first kernel call.)"""
    (tmp_path / "kernels_mod.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n\n"
        "@numba.njit(cache=True)\ndef g(x):\n    return x * 3\n")
    script = "import topicbench.kernels, kernels_mod; print(kernels_mod.f(1), kernels_mod.g(1))"
    cache = tmp_path / "numba_cache"

    def call():
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                              env=env(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=f"{REPO}:{tmp_path}"))

    first = call()
    assert first.returncode == 0 and first.stdout.split() == ["2", "3"], first.stderr
    index = next(cache.rglob("kernels_mod.f-*.nbi"))
    data = next(cache.rglob("kernels_mod.g-*.nbc"))
    index.write_bytes(index.read_bytes()[:20])
    data.write_bytes(data.read_bytes()[:100])
    again = call()
    assert again.returncode == 0 and again.stdout.split() == ["2", "3"], again.stderr
    assert "Traceback" not in again.stderr, again.stderr


def test_numba_cache_on_a_full_disk(tmp_path, monkeypatch, capsys):
    """A numba cache folder on a full disk (its data file cannot be written) -> the kernel runs, one warning naming the
    folder (was: numba's bare '[Errno 28] No space left on device' stopped the fit, naming no file)."""
    import importlib

    from numba.core import caching

    import topicbench.kernels  # noqa: F401 (registers the package's cache handling)
    from topicbench.kernels import _cache

    monkeypatch.setattr(_cache, "_UNSAVED", [])  # its one warning per process not spent by an earlier test

    (tmp_path / "full_disk_kernel.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def full(self, name, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(caching.IndexDataCacheFile, "_save_data", full)
    assert importlib.import_module("full_disk_kernel").f(1) == 2
    err = capsys.readouterr().err
    assert "cannot write the numba kernel cache in" in err and "(No space left on device)" in err, err


def test_no_writable_numba_cache_location(tmp_path):
    """A read-only install, an unwritable home folder, NUMBA_CACHE_DIR unset -> kernels load, cached in TMPDIR.

    No __pycache__ can be made beside the kernels and no user cache folder either (was: numba's 'cannot cache
    function: no locator available' RuntimeError on importing topicbench.kernels)."""
    import shutil

    copy = tmp_path / "install"
    shutil.copytree(REPO / "topicbench", copy / "topicbench", ignore=shutil.ignore_patterns("__pycache__"))
    for package in (copy / "topicbench", copy / "topicbench" / "kernels"):
        (package / "__pycache__").write_text("")  # a file: no cache folder can be made there (root ignores chmod)
    (tmp_path / "tmp").mkdir()
    extra = env(PYTHONPATH=str(copy), HOME="/proc/no-home", TMPDIR=str(tmp_path / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    extra.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", "import topicbench.kernels as k; print(repr(k.digamma(1.0)))"],
                          capture_output=True, text=True, timeout=300, env=extra, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert abs(float(proc.stdout) + 0.5772156649015329) < 1e-9  # psi(1) = -(Euler-Mascheroni constant)
    assert list((tmp_path / "tmp").rglob("special.digamma-*.nbi")), "cached in the temporary folder"


@pytest.mark.parametrize("method, params, used", [
    pytest.param("population_vb", {"log10_population": 3.92}, {"x_population_size": 8318},
                 id="population_vb-10^3.92-rounded-to-8318-documents"),
    pytest.param("bnmf", {"b0": 0.5}, {"x_a0": 1 / 3, "x_b0": 0.5, "x_c0": 0.05 * TINY["n_words"]},
                 id="bnmf-null-a0-is-1/K-c0-per-word-times-V"),
    pytest.param("cnmf", {"m": 2}, {"x_sigma2": 0.5, "x_c0": 0.05 * TINY["n_words"]}, id="cnmf-null-sigma2-is-1/m"),
    pytest.param("lgnmf", {"batch_size": 40, "grid": "fixed", "grid_size": 2, "sgd_iters": 2, "validation_fraction": 0.13},
                 {"x_validation_docs": 5}, id="lgnmf-validation_fraction-0.13-of-40-is-5-documents"),
])
def test_hyperparameter_turned_into_another_value_is_recorded(tiny_corpus, method, params, used):
    """A hyperparameter the method rounds or derives (10^3.92 -> 8318 documents, null -> 1/K) -> every trace row records
    the value the fit used as an x_ column."""
    from topicbench.run import run

    spec = RunSpec(method=method, params={"K": 3, "batch_size": 20, **params}, n_checkpoints=2, report_elbo=False,
                   topic_history_words=0)
    trace, _ = run(spec, tiny_corpus)
    assert len(trace) >= 2
    for column, value in used.items():
        assert column in trace, f"{method}: the trace does not record {column}"
        assert trace[column].tolist() == pytest.approx([value] * len(trace), rel=1e-12), column
