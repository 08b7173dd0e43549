"""The runner's bookkeeping that becomes numbers in the trace, by construction on a clock the test controls.

A stub of online LDA advances a fake clock by known amounts: 1 s wall (0.25 s CPU) per ``partial_fit``, 100 s per
``predict_words`` and 1,000 s per warm-up. The trace's fit clocks must then count exactly the updates before each
row (fit time excludes evaluation and compilation: DESIGN.md, "Timing"); ``docs_seen``, ``updates``,
``heldout_docs`` and ``heldout_tokens`` are counted by hand from the stream and the protocol's definition
(round(fraction N_d) tokens of each document observed, the rest held out); seeds, the training subset and the
test subset are checked by what each must and must not change.
"""
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import topicbench.run as run_module
from topicbench.corpus import Corpus, make_docs_frame
from topicbench.method import get_method
from topicbench.run import RunSpec, run
from topicbench.streams import StreamError


class FakeClock:
    """Stands in for the ``time`` module inside topicbench.run: it moves only when the stub says so."""

    def __init__(self):
        self.wall = self.cpu = 0.0

    def perf_counter(self):
        return self.wall

    def process_time(self):
        return self.cpu

    def monotonic(self):
        return self.wall

    def advance(self, wall, cpu):
        self.wall += wall
        self.cpu += cpu


FIT_WALL, FIT_CPU, EVAL_WALL, COMPILE_WALL = 1.0, 0.25, 100.0, 1000.0


@pytest.fixture
def timed(monkeypatch):
    """(the stub class, its clock): online LDA that charges known times and records what it trained on."""
    clock = FakeClock()
    online = get_method("online_lda")

    class Timed(online):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.trained_ids = []  # doc ids of each minibatch, in order (a warm-up twin records on its own copy)

        def warm_up(self, tiny_batch):
            clock.advance(COMPILE_WALL, COMPILE_WALL)
            super().warm_up(tiny_batch)

        def partial_fit(self, batch):
            clock.advance(FIT_WALL, FIT_CPU)
            self.trained_ids.append([str(i) for i in np.asarray(batch.doc_ids)])
            super().partial_fit(batch)

        def predict_words(self, observed, word_ids):
            clock.advance(EVAL_WALL, EVAL_WALL)
            return super().predict_words(observed, word_ids)

    monkeypatch.setattr(run_module, "time", clock)
    monkeypatch.setattr(run_module, "descendants_cpu_s", lambda: 0.0)  # no worker processes: their CPU stays put
    monkeypatch.setattr(run_module, "get_method", lambda name: Timed)
    return Timed, clock


def spec(**settings):
    base = dict(method="online_lda", params={"K": 3, "batch_size": 100}, topic_history_words=0, report_elbo=False)
    return RunSpec(**{**base, **settings})


def held_out_tokens(counts, fraction=0.5):
    """The protocol's definition: N_d - round(fraction N_d) tokens of each document are held out."""
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    return int((lengths - np.round(fraction * lengths)).sum())


def test_fit_clocks_count_only_the_updates_before_each_row(timed, small_corpus):
    """fixed policy, minibatches of 100, 450 documents (the last minibatch has 50), checkpoints at 100 and 450:
    the rows hold 1 and 5 updates, so fit_wall_s = 1 and 5 s and fit_cpu_s = 0.25 and 1.25 s exactly, whatever the
    evaluation (100 s per call) and the warm-up (1,000 s) cost; docs_seen counts the short last minibatch as 50."""
    trace, _ = run(spec(max_docs=450, n_checkpoints=2), small_corpus)
    assert trace["docs_seen"].tolist() == [100, 450]
    assert trace["updates"].tolist() == [1, 5]
    assert trace["fit_wall_s"].tolist() == [1.0, 5.0]
    assert trace["fit_cpu_s"].tolist() == [0.25, 1.25]
    assert (trace["compile_wall_s"] >= COMPILE_WALL).all()
    assert (trace["eval_wall_s"] >= EVAL_WALL).all()


def test_worker_processes_cpu_during_an_update_is_fit_cpu(timed, small_corpus, monkeypatch):
    """Worker processes (sklearn's loky workers) that spend 0.5 s of CPU in each update: fit_cpu_s is 0.25 + 0.5 s an
    update and fit_cpu_workers_s 0.5 s an update; their CPU during the evaluation and warm-up is not counted."""
    _, clock = timed
    monkeypatch.setattr(run_module, "descendants_cpu_s", lambda: 2 * clock.cpu)  # twice this process's CPU
    trace, _ = run(spec(max_docs=450, n_checkpoints=2), small_corpus)
    assert trace["fit_cpu_s"].tolist() == [0.75, 3.75]
    assert trace["fit_cpu_workers_s"].tolist() == [0.5, 2.5]


def test_scoring_before_a_minibatch_stays_off_the_fit_clock(timed, small_corpus):
    """every_nth_batch (n = 2): minibatches 1 and 3 are scored before they are trained on, after 1 and 3 updates:
    fit_wall_s = 1 and 3 s, though each scoring costs 100 s; each row scores its 100 documents, and its held-out
    tokens are those of the protocol's definition (N_d - round(N_d / 2) per document)."""
    from topicbench.streams import stream_order

    trace, _ = run(spec(holdout="every_nth_batch", holdout_n=2, max_docs=400), small_corpus)
    assert trace["docs_seen"].tolist() == [100, 300]
    assert trace["fit_wall_s"].tolist() == [1.0, 3.0] and trace["fit_cpu_s"].tolist() == [0.25, 0.75]
    assert trace["updates"].tolist() == [1, 3]
    train = small_corpus.split("train").counts
    order = stream_order("shuffled", train.shape[0], 0)
    assert trace["heldout_docs"].tolist() == [100, 100] and trace["heldout_excluded"].tolist() == [0, 0]
    assert trace["heldout_tokens"].tolist() == [held_out_tokens(train[order[100 * i: 100 * (i + 1)]]) for i in (1, 3)]


def test_heldout_counts_of_the_test_split_and_of_dropped_documents(timed, small_corpus):
    """The fixed policy scores all 200 test documents with their held-out tokens counted by hand; on a with-replacement
    stream a scored minibatch's heldout_docs are its documents not trained on before (100 minus those dropped)."""
    trace, _ = run(spec(max_docs=200, n_checkpoints=1), small_corpus)
    assert (trace["heldout_docs"] == 200).all()
    assert (trace["heldout_tokens"] == held_out_tokens(small_corpus.split("test").counts)).all()
    trace, _ = run(spec(holdout="every_nth_batch", holdout_n=2, stream="with_replacement", passes=4.0, max_docs=400),
                   small_corpus)
    assert trace["heldout_excluded"].iloc[-1] > 0  # the draws repeat documents, so the count is tested
    assert ((trace["heldout_docs"] + trace["heldout_excluded"]) == 100).all()
    assert (trace["heldout_unscored"] == 0).all()  # every document here has tokens to observe and to hold out


def test_the_method_is_given_the_training_split_size(timed, small_corpus):
    """Hoffman et al.'s D (and Paisley et al.'s): the number of training documents, 1,500 of the 1,700, or the
    training subset's size when there is one."""
    _, method = run(spec(max_docs=100, n_checkpoints=1), small_corpus)
    assert method.corpus_size == 1500
    _, method = run(spec(max_docs=100, n_checkpoints=1, train_subset=300), small_corpus)
    assert method.corpus_size == 300


def test_seed_draws_the_stream_and_the_method_and_the_eval_seed_only_the_split(timed, small_corpus):
    """The run's seed draws the stream's order and the method's initialisation; the eval seed draws only the
    document-completion split. On the shuffled stream two seeds train in different orders and two eval seeds under
    one seed train identically (same topics) and differ only in their scores (here the word-frequency baseline,
    which no training touches). On a stream whose order no seed can change (time order), two seeds still start,
    and so end, with different topics."""
    one = dict(max_docs=200, n_checkpoints=1)
    t00, m00 = run(spec(seed=0, eval_seed=0, **one), small_corpus)
    t01, m01 = run(spec(seed=0, eval_seed=1, **one), small_corpus)
    t10, m10 = run(spec(seed=1, eval_seed=0, **one), small_corpus)
    assert m00.trained_ids == m01.trained_ids and m00.trained_ids != m10.trained_ids
    np.testing.assert_array_equal(m00.topics(), m01.topics())
    assert t00["unigram_loglik_per_word"].iloc[-1] != t01["unigram_loglik_per_word"].iloc[-1]
    assert t00["unigram_loglik_per_word"].iloc[-1] == t10["unigram_loglik_per_word"].iloc[-1]
    timed_ordered = [run(spec(seed=seed, stream="time_ordered", params={"K": 3, "batch_size": 10}, n_checkpoints=1),
                         tied_corpus())[1] for seed in (0, 1)]
    assert timed_ordered[0].trained_ids == timed_ordered[1].trained_ids
    assert not np.allclose(timed_ordered[0].topics(), timed_ordered[1].topics())


def test_training_and_test_subsets_are_the_same_for_every_seed(timed, small_corpus):
    """Hoffman et al.'s subset (train_subset) and a capped test set (max_test_docs) are fixed by subset_seed and
    eval_seed, never by the run's seed: two seeds train on the same 150 documents and score the same 50 test
    documents (so the word-frequency baseline, which no seed touches, is equal), and another subset_seed picks
    other documents."""
    def trained(seed, subset_seed=0):
        trace, method = run(spec(seed=seed, subset_seed=subset_seed, train_subset=150, max_test_docs=50,
                                 n_checkpoints=1), small_corpus)
        return trace, sorted(i for batch in method.trained_ids for i in batch)

    t0, docs0 = trained(0)
    t1, docs1 = trained(1)
    _, docs_other = trained(0, subset_seed=1)
    assert len(docs0) == len(set(docs0)) == 150
    assert docs0 == docs1 and docs0 != docs_other
    assert (t0["heldout_docs"] == 50).all()
    assert t0["unigram_loglik_per_word"].iloc[-1] == t1["unigram_loglik_per_word"].iloc[-1]


def tied_corpus():
    """30 training documents all at one time whose doc ids are not in row order (row i has id z(i+1 mod 30): z01,
    z02, ..., z29, z00; a rotation, not its own inverse), one a year later (z30; a stream of one time alone is
    refused), and 5 test documents."""
    rng = np.random.default_rng(0)
    counts = sp.csr_matrix(rng.poisson(1.0, size=(36, 20)) + 1)
    ids = [f"z{(i + 1) % 30:02d}" for i in range(30)] + ["z30"] + [f"t{i}" for i in range(5)]
    docs = make_docs_frame(36, split=["train"] * 31 + ["test"] * 5, doc_id=ids,
                           time=[2000.0] * 30 + [2001.0] + [2000.0] * 5)
    return Corpus(counts, [f"w{i}" for i in range(20)], docs, {"name": "tied"})


def test_time_ordered_run_breaks_ties_by_doc_id(timed):
    """DESIGN.md: time_ordered visits documents in time order, ties by doc id: with every time equal the run trains
    on z00, z01, ..., z29, then z30 (row order would start at z01)."""
    _, method = run(spec(stream="time_ordered", params={"K": 3, "batch_size": 10}, n_checkpoints=1), tied_corpus())
    assert [i for batch in method.trained_ids for i in batch] == [f"z{i:02d}" for i in range(31)]


def test_a_batch_method_makes_one_update_per_pass(monkeypatch, small_corpus):
    """A batch method treats one full pass as one update (DESIGN.md): passes = 2 is 2 updates of 1,500 documents,
    scored after each (docs_seen 1,500 and 3,000), however the ELBO moves (the stopping rule is kept out here);
    passes = 1 is one update, scored once."""
    batch = get_method("batch_lda")

    class NeverConverged(batch):
        def partial_fit(self, b):
            super().partial_fit(b)
            self.converged = False

    monkeypatch.setattr(run_module, "get_method", lambda name: NeverConverged)
    trace, method = run(RunSpec(method="batch_lda", params={"K": 3, "e_step_max_iter": 5}, passes=2,
                                topic_history_words=0, report_elbo=False), small_corpus)
    assert trace["updates"].tolist() == [1, 2] and trace["docs_seen"].tolist() == [1500, 3000]
    assert method.updates == 2
    trace, method = run(RunSpec(method="batch_lda", params={"K": 3, "e_step_max_iter": 5}, passes=1,
                                topic_history_words=0, report_elbo=False), small_corpus)
    assert trace["updates"].tolist() == [1] and trace["docs_seen"].tolist() == [1500] and method.updates == 1


def test_topic_history_lists_each_topics_words_most_probable_first(tmp_path, small_corpus):
    """Hoffman et al. 2010, Fig. 1's topic table reads the top words kept at each checkpoint (model.npz): at the last
    checkpoint, the end of the run, they are each final topic's 5 most probable words, most probable first."""
    trace, method = run(RunSpec(method="online_lda", params={"K": 3, "batch_size": 500}, n_checkpoints=1,
                                topic_history_words=5, report_elbo=False), small_corpus, tmp_path / "run")
    with np.load(tmp_path / "run" / "model.npz") as archive:
        history = archive["_topic_history"]
    topics = method.topics()
    expected = np.stack([np.argsort(-topics[k], kind="stable")[:5] for k in range(3)])
    np.testing.assert_array_equal(history[-1], expected)


def test_run_setting_bounds_accept_their_edges_and_refuse_just_beyond():
    """Seeds up to 2**32 - 1 (a RandomState seed), budgets of one document, all of numba's threads are runs; a seed of 2**32, no passes,
    budgets of no document and an observed fraction of 0 or 1 (nothing observed, or nothing held out) are refused before
    any data is read."""
    spec(seed=2**32 - 1, max_docs=1, max_test_docs=1, train_subset=1).check()
    spec(threads=run_module.kernels.numba.config.NUMBA_NUM_THREADS).check()  # every thread numba allows
    with pytest.raises(StreamError, match="passes must be positive"):
        spec(passes=0).check()
    with pytest.raises(StreamError, match="train_subset must be >= 1, got 0"):  # not an empty split found later
        spec(train_subset=0).check()
    for name in ("max_docs", "max_test_docs"):
        with pytest.raises(ValueError, match=f"'{name}' must be >= 1"):
            spec(**{name: 0}).check()
    with pytest.raises(ValueError, match=r"'seed' must be < 2\*\*32"):
        spec(seed=2**32).check()
    for fraction in (0.0, 1.0):
        with pytest.raises(ValueError, match=r"'observed_fraction' must lie in \(0, 1\)"):
            spec(observed_fraction=fraction).check()


def test_provenance_marks_uncommitted_code_and_method_packages_name_a_peers_library(tmp_path, monkeypatch):
    """git_sha is HEAD plus '-dirty' when code differs from the commit; a method file's 'from sklearn.x import'
    records the scikit-learn distribution and its version (its top-level module, not a submodule)."""
    from importlib import metadata
    from types import SimpleNamespace

    monkeypatch.delenv("TOPICBENCH_GIT_SHA", raising=False)
    outputs = iter(["abc123\n", " M topicbench/run.py\n", ""])
    monkeypatch.setattr(run_module.subprocess, "run", lambda *a, **k: SimpleNamespace(stdout=next(outputs)))
    assert run_module.provenance.__wrapped__()["git_sha"] == "abc123-dirty"  # uncached: runs may have filled it
    plugin = tmp_path / "peer.py"
    plugin.write_text("import numpy as np\nfrom sklearn.decomposition import NMF\n")
    assert run_module.method_packages(plugin) == f"scikit-learn {metadata.version('scikit-learn')}"


def test_a_subset_of_the_whole_split_and_topics_of_no_weight_are_written_as_such():
    """train_subset equal to the training split is that split (only a larger one is refused); topics.tsv gives
    topics of zero total weight a share of 0, not 0/0, and weights summing below 1 their shares, by hand."""
    from types import SimpleNamespace

    assert run_module._subset_rows(5, 5, 0, "train_subset").tolist() == [0, 1, 2, 3, 4]
    method = SimpleNamespace(topics=lambda: np.eye(2), topic_weights=lambda: np.zeros(2))
    assert run_module.top_words_table(method, ["a", "b"])["weight"].tolist() == [0.0, 0.0]
    method = SimpleNamespace(topics=lambda: np.eye(2), topic_weights=lambda: np.array([0.25, 0.5]))  # sum below 1
    assert run_module.top_words_table(method, ["a", "b"])["weight"].tolist() == [2 / 3, 1 / 3]  # heaviest first


def test_compile_fit_and_evaluation_clocks_add_up_to_the_runs_time(timed, small_corpus):
    """Every tick of the stub's clock is a warm-up, an update or a scoring, so compile_wall_s + the last row's
    fit_wall_s (scored at the end, after the last update) + the rows' eval_wall_s is the clock's whole advance during
    the run (the clock starts far from 0, so a clock read as now + start instead of now - start cannot pass); each
    checkpoint calls predict_words twice, 100 s each: the contract check over the whole vocabulary
    (run.check_predictive) and the scoring."""
    _, clock = timed
    clock.advance(5000.0, 5000.0)
    start = clock.wall
    trace, _ = run(spec(max_docs=400, n_checkpoints=3), small_corpus)
    assert trace["docs_seen"].iloc[-1] == 400 and len(trace) > 1
    spent = trace["compile_wall_s"].iloc[0] + trace["fit_wall_s"].iloc[-1] + trace["eval_wall_s"].sum()
    assert spent == clock.wall - start
    assert (trace["eval_wall_s"] == 2 * EVAL_WALL).all() and (trace["compile_wall_s"] >= COMPILE_WALL).all()


def test_documents_the_protocol_cannot_score_are_counted_apart(timed, small_corpus):
    """observed_fraction 0.997 holds out N_d - round(0.997 N_d) tokens: none of a test document shorter than 167
    tokens (all of them observed), one or more of a longer one. heldout_docs counts the longer ones, heldout_unscored
    the shorter ones, by hand from the test split's lengths; together the 200 test documents."""
    lengths = np.asarray(small_corpus.split("test").counts.sum(axis=1)).ravel()
    held = lengths - np.round(0.997 * lengths)
    trace, _ = run(spec(observed_fraction=0.997, max_docs=100, n_checkpoints=1), small_corpus)
    assert 0 < (held == 0).sum() < len(lengths)  # both kinds are present, so both counts are tested
    assert (trace["heldout_docs"] == (held > 0).sum()).all()
    assert (trace["heldout_unscored"] == (held == 0).sum()).all()


def test_in_stream_splits_are_drawn_by_the_eval_seed(timed, small_corpus):
    """every_nth_batch scores a minibatch with a split of its own (salted by the batch index), still drawn by the eval
    seed: two eval seeds under one seed train identically and score the same minibatches on other splits (here the
    word-frequency baseline, which no training touches, differs)."""
    one = dict(holdout="every_nth_batch", holdout_n=1, max_docs=200)
    t0, m0 = run(spec(eval_seed=0, **one), small_corpus)
    t1, m1 = run(spec(eval_seed=1, **one), small_corpus)
    assert m0.trained_ids == m1.trained_ids and t0["docs_seen"].tolist() == t1["docs_seen"].tolist()
    assert (t0["unigram_loglik_per_word"] != t1["unigram_loglik_per_word"]).all()


def test_edges_of_the_run_settings_are_runs(timed, small_corpus, tmp_path):
    """A minibatch of the whole training split (batch_size = its 100 documents) and a topic history of every word
    (topic_history_words = V) are runs, the history each topic's words, most probable first, beside the documents seen
    at each snapshot (the trace's, every checkpoint of this fixed policy a test one); topic_history_words = 0
    keeps no history in model.npz."""
    whole = spec(params={"K": 3, "batch_size": 100}, train_subset=100, n_checkpoints=1)
    trace, method = run(replace(whole, topic_history_words=small_corpus.n_words), small_corpus, tmp_path / "all")
    with np.load(tmp_path / "all" / "model.npz") as archive:
        history, when = archive["_topic_history"], archive["_topic_history_docs"]
    assert when.tolist() == trace["docs_seen"].tolist() and len(when) == len(history)  # each snapshot's documents seen
    topics = method.topics()
    np.testing.assert_array_equal(history[-1], np.stack([np.argsort(-row, kind="stable") for row in topics]))
    run(whole, small_corpus, tmp_path / "none")
    with np.load(tmp_path / "none" / "model.npz") as archive:
        assert not any(name.startswith("_topic_history") for name in archive.files)


def test_max_test_docs_scores_a_draw_of_the_eval_seed_over_the_whole_test_split(timed, small_corpus):
    """max_test_docs = 20 of the 200 test documents scores a seeded draw, not the split's first 20 (a test split in
    stream order would give its oldest documents): the held-out tokens (N_d - round(N_d / 2) per document, fixed by
    the document alone) differ between two eval seeds and from the first 20 documents' total, by hand."""
    lengths = np.asarray(small_corpus.split("test").counts.sum(axis=1)).ravel()
    first = int((lengths[:20] - np.round(0.5 * lengths[:20])).sum())
    tokens = [int(run(spec(max_test_docs=20, eval_seed=seed, max_docs=100, n_checkpoints=1),
                      small_corpus)[0]["heldout_tokens"].iloc[-1]) for seed in (0, 1)]
    assert tokens[0] != tokens[1] and first not in tokens, (tokens, first)


def test_trace_names_the_configs_dataset_and_falls_back_to_the_corpus_name(small_corpus):
    """The workflow's dataset key (a config name such as 'healthtweets', whose recipe's corpus is named otherwise) is
    the trace's dataset column, which the figures select on; a run without one records the corpus's own name."""
    assert small_corpus.meta["name"] != "my_key"
    one = dict(max_docs=100, n_checkpoints=1)
    assert (run(spec(dataset="my_key", **one), small_corpus)[0]["dataset"] == "my_key").all()
    assert (run(spec(**one), small_corpus)[0]["dataset"] == small_corpus.meta["name"]).all()
