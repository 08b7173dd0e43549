"""The runner and the CLI: outputs, provenance, errors before compute, and killed runs."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from topicbench.cli import main as cli
from topicbench.corpus import save_corpus
from topicbench.grid import GridError, expand_all
from topicbench.run import RunSpec, load_model, run

from conftest import planted


def test_outputs_and_provenance(tmp_path, small_corpus_dir):
    spec = RunSpec(method="online_lda", params={"K": 10, "batch_size": 200}, seed=1, n_checkpoints=4, experiment="t", dataset="planted")
    trace, method = run(spec, small_corpus_dir, tmp_path / "run")
    on_disk = pd.read_parquet(tmp_path / "run" / "trace.parquet")
    for column in ("docs_seen", "updates", "fit_wall_s", "fit_cpu_s", "loglik_per_word", "perplexity", "p_K", "p_kappa",
                   "git_sha", "numpy_version", "numba_version", "threads", "unigram_perplexity", "elbo_per_word"):
        assert column in on_disk.columns, column
    assert on_disk["docs_seen"].is_monotonic_increasing and on_disk["docs_seen"].iloc[-1] == 1500
    assert np.allclose(on_disk["perplexity"], np.exp(-on_disk["loglik_per_word"]))
    assert (on_disk["fit_wall_s"].diff().dropna() >= 0).all()
    assert on_disk["elbo_per_word"].notna().all()
    topics = pd.read_csv(tmp_path / "run" / "topics.tsv", sep="\t")
    assert len(topics) == 10 and topics["weight"].sum() == pytest.approx(1.0)
    reloaded = load_model(tmp_path / "run" / "model.npz")
    np.testing.assert_array_equal(reloaded.topics(), method.topics())


def test_fit_time_excludes_evaluation(small_corpus):
    """Evaluating at many checkpoints must not inflate fit time."""
    spec = RunSpec(method="online_lda", params={"K": 10, "batch_size": 100}, n_checkpoints=15)
    trace, _ = run(spec, small_corpus)
    assert trace["eval_wall_s"].sum() > 0
    few, _ = run(RunSpec(**{**spec.__dict__, "n_checkpoints": 1}), small_corpus)
    assert trace["fit_wall_s"].iloc[-1] < few["fit_wall_s"].iloc[-1] + 0.5 * trace["eval_wall_s"].sum()


@pytest.mark.parametrize("args, message", [
    (["--method", "no_such_method"], "unknown method 'no_such_method'"),
    (["--method", "online_lda", "--param", "K=0"], "'K' must be an integer >= 1"),
    (["--method", "online_lda", "--param", "kappa=0.3"], "'kappa' must lie in"),
    (["--method", "online_lda", "--set", "stream=sideways"], "unknown stream 'sideways'"),
])
def test_cli_rejects_bad_input_before_reading_data(tmp_path, capsys, args, message):
    code = cli(["run", "--corpus", str(tmp_path / "does_not_exist"), "--out", str(tmp_path / "out"), *args])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_cli_rejects_corrupt_corpus_before_fitting(tmp_path, capsys, small_corpus):
    path = save_corpus(small_corpus, tmp_path / "corpus")
    (path / "counts" / "00000.indices.npy").write_bytes(b"\x00" * 100)
    code = cli(["run", "--corpus", str(path), "--out", str(tmp_path / "out"), "--method", "online_lda"])
    assert code == 2
    assert "counts/00000.indices.npy" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_invalid_grid_named_at_expansion():
    config = {"datasets": {"d": {"recipe": "nyt_like"}},
              "experiments": {"e": {"dataset": "d", "runs": [{"label": "x", "method": "online_lda", "grid": {"kappa": [0.7, 0.2]}}]}}}
    with pytest.raises(GridError, match=r"experiment e, run x, grid point \{'kappa': 0.2\}: .*kappa"):
        expand_all(config)
    config["experiments"]["e"]["runs"][0] = {"method": "nope"}
    with pytest.raises(GridError, match="unknown method 'nope'"):
        expand_all(config)
    config["experiments"]["e"] = {"dataset": "missing", "runs": [{"method": "online_lda"}]}
    with pytest.raises(GridError, match="dataset 'missing' is not defined"):
        expand_all(config)


def test_killed_run_leaves_no_trace(tmp_path):
    corpus = save_corpus(planted(n_train=3000, n_words=2000, n_topics=20), tmp_path / "corpus")
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "topicbench.cli", "run", "--corpus", str(corpus), "--out", str(out), "--method", "online_lda",
         "--param", "K=50", "--param", "batch_size=50", "--set", "passes=20", "--set", "n_checkpoints=30"],
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    # wait until the fit is under way (first checkpoint reported), then kill it hard
    deadline = time.time() + 120
    for line in proc.stderr:
        if "docs (" in line or time.time() > deadline:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode != 0
    assert not (out / "trace.parquet").exists()
    leftovers = [p.name for p in out.iterdir()] if out.exists() else []
    assert all(name.startswith(".") for name in leftovers), leftovers


def test_heldout_elbo_bounds_whole_test_documents(monkeypatch, small_corpus):
    """Hoffman et al. 2010 eq. 16 sums the bound over whole held-out documents, not the completion halves."""
    from topicbench.lda import VariationalLDA

    seen = []
    real = VariationalLDA.heldout_elbo
    monkeypatch.setattr(VariationalLDA, "heldout_elbo", lambda self, counts: seen.append(counts) or real(self, counts))
    spec = RunSpec(method="online_lda", params={"K": 5, "batch_size": 500}, n_checkpoints=2, topic_history_words=0)
    trace, _ = run(spec, small_corpus)
    test = small_corpus.split("test").counts
    scored = seen[-len(trace):]  # the warm-up's call comes first
    assert len(scored) == len(trace) and trace["elbo_per_word"].notna().all()
    for counts in scored:
        assert (counts != test).nnz == 0


def test_trace_carries_topic_quality_and_recovery(small_corpus):
    """Recovery of the planted topics at every checkpoint, NPMI and diversity on the final row (issues 12, 13).

    The columns must come from the fitted model: recovery rises as online LDA learns the planted topics, and the
    final row's NPMI equals quality.npmi_coherence recomputed on the test split from the returned model.
    """
    from topicbench.quality import npmi_coherence, planted_recovery, top_words

    spec = RunSpec(method="online_lda", params={"K": 10, "batch_size": 100, "tau0": 1.0}, n_checkpoints=5)
    trace, method = run(spec, small_corpus)
    assert trace["recovery_cosine"].notna().all()
    assert trace["recovery_cosine"].iloc[-1] > trace["recovery_cosine"].iloc[0] + 0.1
    assert trace["recovery_cosine"].iloc[-1] > 0.8
    final = trace.iloc[-1]
    assert final["npmi_reference"] == "test"
    expected = npmi_coherence(top_words(method.topics(), 25), small_corpus.split("test").counts).mean
    assert final["npmi"] == pytest.approx(expected, rel=1e-12)
    assert 0 < final["topic_diversity"] <= 1
    assert trace["npmi"].iloc[:-1].isna().all()  # only the final model is scored for coherence
    # recovery of the returned model at the 0.9 threshold the column names (one final topic here matches at ~0.87)
    recovery = planted_recovery(method.topics(), small_corpus.truth["topics"], threshold=0.9)
    assert (final["recovery_cosine"], final["recovery_frac_090"]) == pytest.approx((recovery.cosine, recovery.fraction))


def test_topics_table_ranks_topics_by_weight_and_words_by_probability():
    """topics.tsv: topics from the largest topic_weights() share down, each with its most probable words first."""
    from types import SimpleNamespace

    from topicbench.run import top_words_table

    topics = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], [0.2, 0.4, 0.1, 0.3]])
    method = SimpleNamespace(topics=lambda: topics, topic_weights=lambda: np.array([1.0, 5.0, 4.0]))
    table = top_words_table(method, ["a", "b", "c", "d"], n_words=2)
    assert table["topic"].tolist() == [1, 2, 0] and table["weight"].tolist() == pytest.approx([0.5, 0.4, 0.1])
    assert table["top_words"].tolist() == ["a b", "b d", "d c"]


def test_unigram_baseline_is_scored_on_the_heldout_halves(small_corpus):
    """The trace's word-frequency baseline is scored like the methods: training word frequencies (add-one smoothed)
    on each test document's held-out half (document completion, eval seed 0), per held-out token."""
    from topicbench.evaluate import split_documents

    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 500}, n_checkpoints=1, topic_history_words=0,
                   report_elbo=False)
    trace, _ = run(spec, small_corpus)
    freq = np.asarray(small_corpus.split("train").counts.sum(axis=0)).ravel() + 1.0
    _, heldout = split_documents(small_corpus.split("test").counts, 0.5, 0)
    expected = float(heldout.data @ np.log(freq[heldout.indices] / freq.sum())) / heldout.data.sum()
    assert trace["unigram_loglik_per_word"].iloc[-1] == pytest.approx(expected, rel=1e-12)  # summation order only


def test_grid_expansion_is_the_full_product_times_the_seeds():
    """A run group's grid is the product of its axes, every point run once per seed with that seed as given:
    kappa in {0.6, 0.7} x tau0 in {1, 64} x seeds {0, 2} = 8 runs; no seeds given means seed 0 alone."""
    config = {"datasets": {"d": {"recipe": "nyt_like"}},
              "experiments": {"e": {"dataset": "d", "seeds": [0, 2], "runs": [
                  {"label": "x", "method": "online_lda", "grid": {"kappa": [0.6, 0.7], "tau0": [1.0, 64.0]}}]}}}
    runs = expand_all(config).values()
    got = sorted((r["spec"].params["kappa"], r["spec"].params["tau0"], r["spec"].seed) for r in runs)
    assert got == [(k, t, s) for k in (0.6, 0.7) for t in (1.0, 64.0) for s in (0, 2)]
    del config["experiments"]["e"]["seeds"]
    assert sorted({r["spec"].seed for r in expand_all(config).values()}) == [0]


def test_run_group_settings_override_the_experiments_and_scoring_settings_must_agree():
    """A run group's own settings win over the experiment's shared ones (passes 3 for x, the shared 2 for y); an
    experiment's figures set its runs' scores side by side, so runs scored with another eval seed, test cap or
    observed fraction are refused, naming the setting."""
    import copy

    config = {"datasets": {"d": {"recipe": "nyt_like"}},
              "experiments": {"e": {"dataset": "d", "settings": {"passes": 2.0, "n_checkpoints": 3}, "runs": [
                  {"label": "x", "method": "online_lda", "settings": {"passes": 3.0}},
                  {"label": "y", "method": "online_lda"}]}}}
    specs = {r["label"]: r["spec"] for r in expand_all(config).values()}
    assert specs["x"].passes == 3.0 and specs["y"].passes == 2.0 and specs["x"].n_checkpoints == 3
    for setting, value in (("eval_seed", 1), ("max_test_docs", 50), ("observed_fraction", 0.6)):
        bad = copy.deepcopy(config)
        bad["experiments"]["e"]["runs"][0]["settings"][setting] = value
        with pytest.raises(GridError, match=setting):
            expand_all(bad)


def test_every_nth_batch_rows_carry_the_training_size_and_their_own_token_split(small_corpus):
    """Paisley et al. 2014's protocol in the trace: with n = 2 and minibatches of 100, minibatches 1 and 3 (0-based)
    of the shuffled stream are scored, each split into halves with its own seed (eval seed x 100003 + batch index:
    1 and 3), so the word-frequency baseline of each is known by hand; its perplexity is exp(-that); corpus_size is
    the number of training documents (1,500), which McInerney et al.'s true N reads."""
    from topicbench.evaluate import split_documents
    from topicbench.streams import stream_order

    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 100}, holdout="every_nth_batch", holdout_n=2,
                   max_docs=400, topic_history_words=0, report_elbo=False)
    trace, _ = run(spec, small_corpus)
    train = small_corpus.split("train").counts
    freq = np.asarray(train.sum(axis=0)).ravel() + 1.0
    order = stream_order("shuffled", train.shape[0], 0)
    rows = trace[trace["eval_kind"] == "batch"].sort_values("docs_seen")
    assert rows["docs_seen"].tolist() == [100, 300] and (trace["corpus_size"] == 1500).all()
    for (_, row), index in zip(rows.iterrows(), (1, 3)):
        _, heldout = split_documents(train[order[100 * index: 100 * (index + 1)]], 0.5, index)
        expected = float(heldout.data @ np.log(freq[heldout.indices] / freq.sum())) / heldout.data.sum()
        assert row["unigram_loglik_per_word"] == pytest.approx(expected, rel=1e-12)  # summation order only
        assert row["unigram_perplexity"] == pytest.approx(np.exp(-expected), rel=1e-12)


def test_every_nth_batch_rows_count_the_already_trained_documents_they_drop(small_corpus):
    """On the with-replacement stream a scored minibatch can hold documents drawn (and trained on) before it: each
    scored row records how many it dropped, counted here from the stream's draws (minibatches 1 and 3 of 100, n = 2)."""
    from topicbench.streams import stream_order

    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 100}, holdout="every_nth_batch", holdout_n=2,
                   stream="with_replacement", passes=4.0, max_docs=400, topic_history_words=0, report_elbo=False)
    trace, _ = run(spec, small_corpus)
    order = stream_order("with_replacement", small_corpus.split("train").n_docs, 0, 4.0)[:400]
    expected = [int(np.isin(order[100 * i: 100 * (i + 1)], order[: 100 * i]).sum()) for i in (1, 3)]
    assert expected[1] > 0  # the draws repeat documents, so the count is tested
    rows = trace[trace["eval_kind"] == "batch"].sort_values("docs_seen")
    assert rows["heldout_excluded"].tolist() == expected
