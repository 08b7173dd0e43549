"""The runner's arithmetic around the fit, each by hand on a tiny input: the disk and memory a run is refused for, the
names a file system takes, the topic contract's tolerance, the warm-up's count cap, the code fingerprint, the
progress line's pace and the checks of held-out tokens before a fit. None of these fits a model."""
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

import topicbench.run as run_module
from topicbench.evaluate import Protocol, protocol_splits
from topicbench.method import ParamError, PluginError
from topicbench.run import OutputError, RunSpec, check_output_location, check_topics
from topicbench.streams import Stream, StreamError


def test_disk_and_memory_refused_exactly_beyond_the_models_size(tmp_path, monkeypatch):
    """A K x V float64 model staged beside the old one needs 2 * 8 K V bytes + 1 MiB of disk, and a fit holds three
    K x V float64 arrays (3 * 8 K V bytes of memory): K = 7 over 50 words needs 6,656 + 2**20 bytes of disk and
    8,400 bytes of memory; exactly that is enough, a byte less is refused naming what it needs."""
    spec, corpus = RunSpec(method="online_lda", params={"K": 7}), SimpleNamespace(n_words=50)
    disk, memory = 2 * 8 * 7 * 50 + 2**20, 3 * 8 * 7 * 50
    free = {"disk": disk, "memory": memory}
    monkeypatch.setattr(run_module.shutil, "disk_usage", lambda path: SimpleNamespace(free=free["disk"]))
    monkeypatch.setattr(run_module, "available_memory", lambda: free["memory"])
    check_output_location(tmp_path / "run", spec, corpus)
    free["disk"] = disk - 1
    with pytest.raises(OutputError, match="MiB free"):
        check_output_location(tmp_path / "run", spec, corpus)
    free.update(disk=disk, memory=memory - 1)
    with pytest.raises(ParamError, match="'K' = 7"):
        check_output_location(tmp_path / "run", spec, corpus)


def test_a_folder_name_of_the_file_systems_longest_is_taken(tmp_path):
    """A folder on the way to --out (not created yet) named with NAME_MAX bytes is legal, so the run is not refused
    (a name one byte longer is refused by the file system itself, ENAMETOOLONG naming the path)."""
    import os

    spec, longest = RunSpec(method="online_lda", params={"K": 2}), os.pathconf(tmp_path, "PC_NAME_MAX")
    check_output_location(tmp_path / ("d" * longest) / "run", spec)
    with pytest.raises(OSError, match="too long"):
        check_output_location(tmp_path / ("d" * (longest + 1)) / "run", spec)


class Topics:
    """A method's face to check_topics: given topics, unit weights."""

    name = "stub"

    def __init__(self, topics):
        self._topics = topics
        self.n_topics, self.n_words = topics.shape

    def topics(self):
        return self._topics

    def topic_weights(self):
        return np.ones(self.n_topics)


def test_topic_contract_takes_zeros_and_rounding_refuses_mass_off_one():
    """Rows are probability vectors or all zero: zero entries and an all-zero row pass; float32 rows over V = 10,000
    words may be off 1 by rounding (the tolerance is 4 V eps, 4.8e-3 for float32), so 1 + 1e-4 passes; 1 + 1e-2 in
    float32, and 1 + 1e-5 in float64 over 3 words (tolerance 1e-6), are refused naming the topic."""
    check_topics(Topics(np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])), "here", "")
    V = 10_000
    rounded = np.full((1, V), 1 / V, dtype=np.float32)
    rounded[0, 0] += np.float32(1e-4)
    check_topics(Topics(rounded), "here", "")
    rounded[0, 0] += np.float32(1e-2)
    with pytest.raises(PluginError, match="topic 0 sums to 1.01"):
        check_topics(Topics(rounded), "here", "")
    with pytest.raises(PluginError, match="topic 1 sums to"):
        check_topics(Topics(np.array([[0.2, 0.3, 0.5], [0.2, 0.3, 0.5 + 1e-5]])), "here", "")


def test_warm_up_caps_counts_and_leaves_the_stream_alone():
    """The warm-up's two documents are the stream's first two with each count capped at WARM_UP_MAX_COUNT (100):
    [[1000, 3], [0, 100]] -> [[100, 3], [0, 100]]; the stream's own counts are not touched."""
    counts = sp.csr_matrix(np.array([[1000, 3], [0, 100], [5, 5]]))
    seen = []
    method = SimpleNamespace(warm_up=lambda batch: seen.append(batch.counts.toarray()))
    run_module._warm_up(method, Stream(counts, np.arange(3), 2))
    np.testing.assert_array_equal(seen[0], [[100, 3], [0, 100]])
    assert counts[0, 0] == 1000


def test_code_fingerprint_reads_the_method_files_name_and_bytes(tmp_path):
    """code_sha256 tells two method files apart by their bytes and by their name, and is the same for the same name
    and bytes in another folder."""
    fingerprint = {}
    for folder, name, text in (("a", "m.py", "x = 1\n"), ("b", "m.py", "x = 1\n"), ("c", "m.py", "x = 2\n"),
                               ("d", "n.py", "x = 1\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(text)
        fingerprint[folder] = run_module.code_fingerprint(tmp_path / folder / name)
    assert fingerprint["a"] == fingerprint["b"]
    assert len({fingerprint["a"], fingerprint["c"], fingerprint["d"]}) == 3


def test_progress_line_every_few_seconds(monkeypatch, capsys):
    """A line when every_s (5 s) have passed since the last one, not before (4.9 s); a forced line at any time."""
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(run_module, "time", SimpleNamespace(monotonic=lambda: clock.now))
    report = run_module._Progress("label", 10)
    printed = []
    for now, force in ((104.9, False), (105.0, False), (105.0, False), (105.1, True), (109.9, False), (110.1, False)):
        clock.now = now
        report(1, 0.0, force=force)
        printed.append(bool(capsys.readouterr().err))
    assert printed == [False, True, False, True, False, True]


def test_documents_observing_nothing_named_when_no_token_is_held_out():
    """Three documents of 3 tokens observe round(0.9 * 3) = 3 tokens each (none held out) and two documents have no
    token at all: the test split is refused, naming the 2 that observe nothing."""
    counts = sp.csr_matrix(np.array([[1, 2], [0, 0], [3, 0], [0, 0], [2, 1]]))
    spec = RunSpec(method="online_lda", observed_fraction=0.9)
    splits = protocol_splits(counts, Protocol(0.9, 1, 0))
    with pytest.raises(StreamError, match=r"\(2 observe nothing"):
        run_module._check_heldout_tokens(splits, spec, "the test split")


def test_scheduled_windows_read_beyond_the_first_chunk_of_rows():
    """The lengths of the planned rows are read 65,536 rows at a time: with 70,000 planned rows of 4 tokens a window
    scoring only the last row is completable; one scoring a row of 1 token (observe 0 or 1 of it) is refused."""
    n = 70_000
    lengths = np.full(n, 4)
    lengths[5] = 1
    train = SimpleNamespace(n_docs=n, rows=lambda rows: sp.csr_matrix(lengths[rows][:, None]))
    spec = RunSpec(method="online_lda")
    protocol = Protocol(spec.observed_fraction, spec.folds, 0)
    everything = np.arange(n)

    def holdout(scored):
        return SimpleNamespace(name="stub", scheduled=lambda order, batch_size: [(n, everything), (n, scored)])

    run_module._check_scheduled_windows(holdout(np.array([n - 1])), everything, n, train, protocol, spec)
    with pytest.raises(StreamError, match="holds out no token"):
        run_module._check_scheduled_windows(holdout(np.array([5])), everything, n, train, protocol, spec)


def test_a_workers_cpu_is_its_own_clock_plus_its_waited_for_childrens(monkeypatch):
    """A descendant's CPU: its process clock (or, where a system has no per-process clocks, its user + system time)
    plus the user and system time of the children it waited for; times 1, 2, 4, 8 s and a clock of 16 s give 28 s,
    and 15 s without the clock."""
    import os
    from collections import namedtuple

    from topicbench import workers

    times = namedtuple("times", "user system children_user children_system")(1.0, 2.0, 4.0, 8.0)
    monkeypatch.setattr(workers.psutil, "Process", lambda pid: SimpleNamespace(cpu_times=lambda: times))
    monkeypatch.setattr(workers.time, "clock_gettime", lambda clock: 16.0)
    assert workers._own_and_waited_cpu_s(os.getpid()) == 28.0

    def no_clock(clock):
        raise OSError("no per-process clock")

    monkeypatch.setattr(workers.time, "clock_gettime", no_clock)
    assert workers._own_and_waited_cpu_s(os.getpid()) == 15.0


@pytest.mark.parametrize("folds, longest, refused", [(1, 0, False), (2, 1, True), (2, 2, False), (5, 5, False),
                                                     (6, 5, True)])
def test_folds_refused_only_past_the_longest_document(folds, longest, refused):
    """folds = the longest document's length is leave-one-out, still allowed; one more holds out nothing new.
    folds = 1 (no k-fold completion) passes even with no tokens at all."""
    spec = SimpleNamespace(folds=folds)
    if refused:
        with pytest.raises(StreamError, match=f"'folds' = {folds} exceeds the {longest} tokens"):
            run_module._check_folds(longest, spec, "of the test split")
    else:
        run_module._check_folds(longest, spec, "of the test split")


def test_scheduled_windows_measure_every_planned_row_for_completion_and_folds():
    """Four planned training rows of 5, 1, 3 and 2 tokens, scored in two windows, [0, 1] and [2, 3]. Halves
    (observed_fraction 0.5) complete a document of N >= 2 tokens (round(N / 2) of them observed, 0 < that < N): window
    [0, 1] holds one, row 0, so neither window is refused. k folds need a document of at least k tokens (each fold holds
    one out): folds = 5, the longest planned row, is allowed, folds = 6 refused naming 5 tokens -- the longest of every
    row, not of the shortest nor of the rows after the first."""
    lengths = np.array([5, 1, 3, 2])
    train = SimpleNamespace(n_docs=4, rows=lambda rows: sp.csr_matrix(lengths[rows][:, None]))
    policy = SimpleNamespace(name="stub", scheduled=lambda order, batch_size: [(2, np.array([0, 1])),
                                                                              (4, np.array([2, 3]))])
    order = np.arange(4)
    for folds in (1, 5):
        spec = RunSpec(method="online_lda", folds=folds)
        run_module._check_scheduled_windows(policy, order, 2, train, Protocol(0.5, folds, 0), spec)
    spec = RunSpec(method="online_lda", folds=6)
    with pytest.raises(StreamError, match="'folds' = 6 exceeds the 5 tokens of the longest document"):
        run_module._check_scheduled_windows(policy, order, 2, train, Protocol(0.5, 6, 0), spec)


def test_one_nan_among_finite_topic_entries_is_a_divergence():
    """A single NaN (or inf) entry in otherwise finite topics, or in the topic weights, is a diverged fit named as
    such (FitDiverged), not a topic whose mass merely fails to sum to 1 nor a pass."""
    from topicbench.run import FitDiverged

    for bad in (np.nan, np.inf):
        with pytest.raises(FitDiverged, match="topics hold NaN or inf"):
            check_topics(Topics(np.array([[0.5, 0.5, 0.0], [0.2, 0.3, bad]])), "here", "")
    weighted = Topics(np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]))
    weighted.topic_weights = lambda: np.array([1.0, np.nan])
    with pytest.raises(FitDiverged, match="topic weights hold NaN or inf"):
        check_topics(weighted, "here", "")
