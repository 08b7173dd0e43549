"""A third-party method plugin breaking the contract at run time (faults, eighth pass): methods/*.py is the user's
extension point, so what a plugin returns and does is checked where the runner meets it. Each case drops one
plugin (online LDA with one thing spoiled) into a plugin folder, runs it through `topicbench run` on the tiny
corpus, and asserts exit 2 naming the plugin file and the problem, with nothing written."""
import numpy as np
import pytest

import topicbench.method as method_module
from _run_util import tiny_corpus  # noqa: F401
from test_plugins import GOOD, plugin
from topicbench.cli import main as cli
from topicbench.method import PluginError, registry

BASE = GOOD.format(name='"my_method"', params="dict(ONLINE_PARAMS)")
RUN = ["--method", "my_method", "--param", "K=3", "--param", "batch_size=20", "--set", "n_checkpoints=5"]


def use_plugin(tmp_path, monkeypatch, body: str, imports: str = "import numpy as np\n"):
    """methods/my_method.py = online LDA plus ``body`` (methods of the class), registered beside the built-ins."""
    path = plugin(tmp_path / "methods", text=imports + BASE + body)
    monkeypatch.setattr(method_module, "_METHODS", {**registry(), **registry(tmp_path / "methods")})
    return path


def run_plugin(tmp_path, capsys, corpus, *extra):
    code = cli(["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), *RUN, *extra])
    return code, capsys.readouterr().err


TOPICS = "\n    def topics(self):\n        t = super().topics().copy()\n{}\n        return t\n"


@pytest.mark.parametrize("body, message", [
    # a misshapen topic matrix reaches predict_words (mixture_probs) in the warm-up, before the fit, and is named there
    pytest.param(TOPICS.format("        t = t[:, :-1]"), "got topics (3, 59)", id="topics-one-word-short"),
    pytest.param(TOPICS.format("        t = np.hstack([t, np.zeros((3, 1))])"), "got topics (3, 61)",
                 id="topics-of-another-vocabulary-size"),
    pytest.param(TOPICS.format("        t = t.T"), "got topics (60, 3)", id="topics-transposed"),
    pytest.param(TOPICS.format("        t *= 2"), "topic 0 sums to 2", id="topics-unnormalised"),
    pytest.param(TOPICS.format("        t[0, 0] -= 0.5; t[0, 1] += 0.5"), "topics hold negative probabilities",
                 id="topics-negative"),
    pytest.param(TOPICS.format("        t[1, 2] = np.nan"), "topics hold NaN or inf", id="topics-nan"),
    pytest.param(TOPICS.format("        t[2, 0] = np.inf"), "topics hold NaN or inf", id="topics-inf"),
    pytest.param("\n    def topic_weights(self):\n        return np.ones(4)\n", "topic_weights() shape (4,)",
                 id="topic-weights-wrong-length"),
])
def test_plugin_topics_breaking_the_contract_named(tmp_path, capsys, monkeypatch, tiny_corpus, body, message):
    """A plugin whose topics() is of the wrong shape or vocabulary size, unnormalised, negative or non-finite -> exit
    2 naming the plugin file and the problem, in the warm-up (a shape) or at the first checkpoint, nothing written
    (was: a silent topics.tsv, recovery score and figure of garbage, or an IndexError traceback)."""
    path = use_plugin(tmp_path, monkeypatch, body)
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    where = "at the warm-up" if message.startswith("got topics") else "checkpoint 1 (20 documents)"
    assert code == 2 and str(path) in err and message in err and where in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


POISON_AT_UPDATE = """
    def partial_fit(self, batch):
        self.stochastic_step(batch, self.corpus_size)
        if self.updates == 3:
            self.lam[0, :] = np.nan
"""


def test_plugin_raising_mid_fit_publishes_nothing(tmp_path, capsys, monkeypatch, tiny_corpus):
    """A plugin whose partial_fit raises at its third update -> exit 2 naming the plugin file, the exception and the
    update, the old run folder untouched and no partial trace (was: a bare traceback naming no run)."""
    path = use_plugin(tmp_path, monkeypatch, """
    def partial_fit(self, batch):
        if self.updates == 2:
            raise RuntimeError("boom in the plugin")
        self.stochastic_step(batch, self.corpus_size)
""")
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and str(path) in err and "partial_fit raised RuntimeError (boom in the plugin)" in err, err
    assert "update 3" in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


def test_plugin_changing_numba_threads_named(tmp_path, capsys, monkeypatch, tiny_corpus):
    """A plugin that calls numba.set_num_threads inside its fit -> exit 2 naming the plugin file (the trace's
    'threads' column and fit times would describe another run than the one that ran)."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 CPUs")
    path = use_plugin(tmp_path, monkeypatch, """
    def partial_fit(self, batch):
        numba.set_num_threads(2)
        self.stochastic_step(batch, self.corpus_size)
""", imports="import numba\n")
    code, err = run_plugin(tmp_path, capsys, tiny_corpus, "--threads", "1")
    assert code == 2 and str(path) in err and "numba's thread count" in err and "2" in err, err
    assert not (tmp_path / "out").exists()


def test_plugin_mutating_the_held_out_documents_is_harmless(tmp_path, monkeypatch, tiny_corpus):
    """A plugin whose predict_words zeroes the counts it is given in place -> the baseline and token counts unchanged.

    The fixed test split is scored at every checkpoint and by the unigram baseline; the method now scores copies
    (was: the plugin's edit reached the held-out token count, 0, and a NaN score was published)."""
    from topicbench.run import RunSpec, run

    use_plugin(tmp_path, monkeypatch, """
    def predict_words(self, observed, word_ids):
        observed.data[:] = 0
        word_ids.data[:] = 0
        return super().predict_words(observed, word_ids)
""")
    clean, _ = run(RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=3), tiny_corpus)
    spoilt, _ = run(RunSpec(method="my_method", params={"K": 3, "batch_size": 20}, n_checkpoints=3), tiny_corpus)
    assert len(clean) == len(spoilt) >= 3
    assert np.array_equal(clean["unigram_loglik_per_word"].to_numpy(), spoilt["unigram_loglik_per_word"].to_numpy())
    assert np.array_equal(clean["heldout_tokens"].to_numpy(), spoilt["heldout_tokens"].to_numpy())


def test_plugin_mutating_its_minibatch_cannot_reach_the_corpus(tmp_path, capsys, monkeypatch, tiny_corpus):
    """A plugin whose partial_fit doubles the counts of its minibatch in place -> the corpus on disk and a later run
    in the same process are unchanged (each minibatch is a fresh copy of the shards)."""
    from topicbench.corpus import load_corpus
    from topicbench.run import RunSpec, run

    before = load_corpus(tiny_corpus).split("train").counts.toarray()
    use_plugin(tmp_path, monkeypatch, """
    def partial_fit(self, batch):
        batch.counts.data *= 2
        self.stochastic_step(batch, self.corpus_size)
""")
    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2)
    clean, _ = run(spec, tiny_corpus)
    run(RunSpec(method="my_method", params={"K": 3, "batch_size": 20}, n_checkpoints=2), tiny_corpus)
    again, _ = run(spec, tiny_corpus)
    assert np.array_equal(load_corpus(tiny_corpus).split("train").counts.toarray(), before)
    assert np.array_equal(clean["loglik_per_word"].to_numpy(), again["loglik_per_word"].to_numpy())


def test_plugin_reseeding_numpys_global_generator_is_harmless(tmp_path, monkeypatch, tiny_corpus):
    """A plugin that calls np.random.seed and draws from numpy's global generator -> refused naming its file, and a
    later online_lda run in the same process gives the same trace (the runner and the built-in methods draw only from
    their own seeded generators)."""
    from topicbench.run import RunSpec, run

    path = use_plugin(tmp_path, monkeypatch, """
    def partial_fit(self, batch):
        np.random.seed(12345)
        np.random.random(1000)
        self.stochastic_step(batch, self.corpus_size)
""")
    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2, seed=4)
    np.random.seed(1)
    clean, _ = run(spec, tiny_corpus)
    with pytest.raises(PluginError, match="global random generator") as info:
        run(RunSpec(method="my_method", params={"K": 3, "batch_size": 20}, n_checkpoints=2), tiny_corpus)
    assert str(path) in str(info.value)
    np.random.seed(99)
    again, _ = run(spec, tiny_corpus)
    assert np.array_equal(clean["loglik_per_word"].to_numpy(), again["loglik_per_word"].to_numpy())


def test_plugin_whose_defaults_fail_its_own_checks_named(tmp_path):
    """A plugin whose params defaults violate its own check_params (K = 0 while K >= 1 is required) -> PluginError at
    registry load naming the file and the default (was: a ParamError at the first run naming only the method)."""
    path = plugin(tmp_path / "methods", params='{**ONLINE_PARAMS, "K": 0}')
    with pytest.raises(PluginError) as info:
        registry(tmp_path / "methods")
    assert str(path) in str(info.value) and "defaults" in str(info.value) and "'K'" in str(info.value), str(info.value)


@pytest.mark.parametrize("body, message", [
    pytest.param("\n    def partial_fit(self, batch):\n        raise RuntimeError('boom at once')\n",
                 "partial_fit/predict_words raised RuntimeError (boom at once) at the warm-up",
                 id="partial-fit-raising-at-its-first-update"),
    pytest.param("\n    def partial_fit(self, batch):\n        if self.updates == 2:\n            np.zeros(3).reshape(2, 2)\n"
                 "        self.stochastic_step(batch, self.corpus_size)\n",
                 "partial_fit at update 3 (40 documents seen): cannot reshape array of size 3",
                 id="partial-fit-raising-a-bare-valueerror"),
])
def test_plugin_raising_in_the_warm_up_or_with_a_valueerror_named(tmp_path, capsys, monkeypatch, tiny_corpus, body,
                                                                   message):
    """Plugin partial_fit raising at once (in the warm-up) or a bare numpy ValueError -> exit 2 naming file and call.

    Nothing is written (was: a bare traceback from the warm-up; a one-line 'cannot reshape array...' naming neither
    the file nor the method)."""
    path = use_plugin(tmp_path, monkeypatch, body)
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and str(path) in err and message in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


PREDICT = "\n    def predict_words(self, observed, word_ids):\n        p = super().predict_words(observed, word_ids)\n{}\n"


@pytest.mark.parametrize("body, message", [
    pytest.param(PREDICT.format("        return 2 * p"), "sum to 2", id="predict-words-doubled"),
    pytest.param(PREDICT.format("        return p if word_ids.nnz == self.n_words else 1.5 * p / p.max()"),
                 "returned a probability above 1 (1.5)", id="predict-words-above-one-at-held-out-words"),
    pytest.param(PREDICT.format("        return 0.5 * p"), "sum to 0.5", id="predict-words-summing-to-a-half"),
    pytest.param(PREDICT.format("        return np.minimum(1.5 * p, 1.0)"), "sum to 1.5", id="predict-words-inflated"),
])
def test_plugin_predictive_not_a_distribution_named(tmp_path, capsys, monkeypatch, tiny_corpus, body, message):
    """Plugin predict_words above 1 or not summing to 1 over the vocabulary -> exit 2 naming the file and the breach.

    Nothing is written (was: a better or worse per-word log predictive than the model has, published without a
    word)."""
    path = use_plugin(tmp_path, monkeypatch, body)
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and str(path) in err and "predict_words" in err and message in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


@pytest.mark.parametrize("body, imports", [
    pytest.param("\n    def partial_fit(self, batch):\n        self.stochastic_step(batch, self.corpus_size)\n"
                 "        self.lam *= 1 + 1e-3 * np.random.random()\n", "import numpy as np\n", id="numpy-global"),
    pytest.param("\n    def partial_fit(self, batch):\n        self.stochastic_step(batch, self.corpus_size)\n"
                 "        self.lam *= 1 + 1e-3 * random.random()\n", "import random\n", id="python-random"),
])
def test_plugin_drawing_from_a_global_generator_named(tmp_path, capsys, monkeypatch, tiny_corpus, body, imports):
    """Plugin drawing from numpy's or Python's global random generator -> exit 2 naming the file and the generator.

    The run's seed does not set those generators; nothing is written (was: a run giving other numbers at every call
    for the same seed, recorded as reproducible)."""
    path = use_plugin(tmp_path, monkeypatch, body, imports=imports)
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and str(path) in err and "global random generator" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("body", [
    # only the contract's call over the whole vocabulary sees the bad value, so nothing later (the scores' own check,
    # a sum off 1) can stand in for the check of each value; the negative value keeps the sum at 1 to the last ulp
    pytest.param(PREDICT.format("        if word_ids.nnz == self.n_words:\n            p = p.copy()\n"
                                "            p[-1] = np.nan\n        return p"), id="one-nan-among-finite"),
    pytest.param(PREDICT.format("        if word_ids.nnz == self.n_words:\n            p = p.copy()\n"
                                "            p[1] += p[0] + 1e-3\n            p[0] = -1e-3\n        return p"),
                 id="one-negative-among-positive"),
])
def test_plugin_predictive_with_one_bad_value_refused(tmp_path, capsys, monkeypatch, tiny_corpus, body):
    """Plugin predict_words with one NaN or one negative value among valid ones -> exit 2, refused as a divergence naming the file.

    Nothing is written (was: one value checked as if all were, so a predictive with a NaN at a word, or a negative
    probability balanced by another, could pass the contract)."""
    path = use_plugin(tmp_path, monkeypatch, body)
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and str(path) in err and "diverged" in err and "NaN, inf or negative probabilities" in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


@pytest.mark.parametrize("value", [
    pytest.param("0.5", id="positive"), pytest.param("np.inf", id="inf"), pytest.param("-np.inf", id="minus-inf"),
    pytest.param("np.nan", id="nan"),
])
def test_plugin_heldout_bound_above_zero_or_not_finite_refused(tmp_path, capsys, monkeypatch, tiny_corpus, value):
    """Plugin heldout_elbo (a bound on log p(w) per word of counts) positive, infinite or NaN -> exit 2, refused as a
    divergence naming the bound.

    Nothing is written (a bound above 0 or not finite is lost precision or a wrong bound, never a score to record)."""
    use_plugin(tmp_path, monkeypatch, f"\n    def heldout_elbo(self, counts):\n        return {value}\n")
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and "diverged" in err and "ELBO per word" in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


def test_plugin_heldout_bound_of_zero_or_below_recorded(tmp_path, capsys, monkeypatch, tiny_corpus):
    """Plugin heldout_elbo of exactly 0 (K = 1 over one word) -> recorded as given, not refused (the bound's edge)."""
    import pandas as pd

    use_plugin(tmp_path, monkeypatch, "\n    def heldout_elbo(self, counts):\n        return 0.0\n")
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 0, err
    assert (pd.read_parquet(tmp_path / "out" / "trace.parquet")["elbo_per_word"] == 0).all()


STATE = "\n    def state(self):\n        s = dict(super().state())\n{}\n        return s\n"


@pytest.mark.parametrize("body, message", [
    pytest.param(STATE.format("        s['extra'] = None"), "state()['extra'] is None", id="state-holding-none"),
    pytest.param(STATE.format("        s['info'] = {'a': 1}"), "state()['info'] is {'a': 1}", id="state-holding-a-dict"),
    pytest.param(STATE.format("        del s['updates']"), "from_state(state()) raised KeyError ('updates')",
                 id="state-missing-what-load-state-reads"),
    pytest.param(STATE.format("        s['lambda'] = s['lambda'][::-1].copy()"), "from_state(state()) gives other "
                 "topics", id="state-not-the-model"),
    pytest.param(STATE.format("        s = [s['lambda']]"), "state() must return a dict", id="state-a-list"),
])
def test_plugin_state_that_cannot_be_saved_named(tmp_path, capsys, monkeypatch, tiny_corpus, body, message):
    """Plugin state() that model.npz cannot store or load_state cannot rebuild from -> exit 2 naming the file.

    A non-array value, an array missing that load_state reads, other topics, or no dict: named at the first
    checkpoint, nothing written (was: a model.npz of pickled objects or missing arrays, which every figure then
    refused as 'not a topicbench model'; or a one-line 'dictionary update sequence element' naming nothing)."""
    path = use_plugin(tmp_path, monkeypatch, body)
    code, err = run_plugin(tmp_path, capsys, tiny_corpus)
    assert code == 2 and str(path) in err and message in err, err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.*"))


def test_plugin_mutating_its_minibatch_rows_cannot_move_the_held_out_set(tmp_path, monkeypatch, tiny_corpus):
    """Plugin overwriting batch.rows in place -> every_nth_batch still never scores a document trained on.

    (Was: the runner's record of trained rows read the plugin's edit, and pass 2 scored documents the model had
    trained on.)"""
    from topicbench.run import RunSpec, run

    use_plugin(tmp_path, monkeypatch, """
    def partial_fit(self, batch):
        self.stochastic_step(batch, self.corpus_size)
        batch.rows[:] = batch.rows[0]
""")
    settings = dict(params={"K": 3, "batch_size": 20}, holdout="every_nth_batch", holdout_n=2, passes=2)
    clean, _ = run(RunSpec(method="online_lda", **settings), tiny_corpus)
    spoilt, _ = run(RunSpec(method="my_method", **settings), tiny_corpus)
    assert len(clean) == 3  # pass 2 scores nothing: every document was trained on in pass 1
    assert np.array_equal(clean["docs_seen"].to_numpy(), spoilt["docs_seen"].to_numpy())
    assert np.array_equal(clean["heldout_docs"].to_numpy(), spoilt["heldout_docs"].to_numpy())
