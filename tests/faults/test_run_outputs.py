"""A run's outputs are one unit: a kill or a full disk at any write step leaves the complete old run or the
complete new one, never a mix; the output location is checked before compute; an orphaned fit stops; a broken
model or trace read later is named."""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

from _run_util import FAST_RUN, REPO, RUN_FILES, checksums, env, hidden_leftovers, tiny_corpus  # noqa: F401
from topicbench import run as run_module
from topicbench.cli import main as cli
from topicbench.run import OutputError, RunSpec, load_model, run

SPEC = dict(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2)
KILL_STEPS = ["run.model", "run.topics", "run.trace", "run.swap", "run.discard_old"]
Old = namedtuple("Old", "dir sums")


def make_old_run(folder, corpus):
    """A complete run of seed 0 in ``folder/run``; returns its folder and checksums."""
    out = folder / "run"
    run(RunSpec(**SPEC, seed=0), corpus, out)
    return Old(out, checksums(out))


def assert_whole(out, old_sums, expect):
    """``out`` holds exactly one complete run: the old one (same bytes) or a new seed-1 one (no old file)."""
    assert sorted(p.name for p in out.iterdir()) == sorted(RUN_FILES)
    sums = checksums(out)
    if expect == "old":
        assert sums == old_sums
        return
    assert all(sums[name] != old_sums[name] for name in ("model.npz", "trace.parquet")), "a mix of old and new"
    assert set(pd.read_parquet(out / "trace.parquet")["seed"]) == {1}
    assert load_model(out / "model.npz").seed == 1


@pytest.fixture(scope="module")
def killed_runs(tmp_path_factory, tiny_corpus):
    """One old run per kill step, each overwritten by a seed-1 run SIGKILLed at that step (all in parallel)."""
    base = tmp_path_factory.mktemp("killed")
    template = make_old_run(base / "template", tiny_corpus)
    procs = {}
    for step in KILL_STEPS:
        shutil.copytree(template.dir, base / step / "run")
        procs[step] = subprocess.Popen(
            [sys.executable, "-m", "topicbench.cli", "run", "--corpus", str(tiny_corpus), "--out", str(base / step / "run"),
             *FAST_RUN, "--seed", "1"], env=env(TOPICBENCH_FAULT_AT=f"kill:{step}"), cwd=REPO,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    codes = {step: (proc.wait(timeout=600), proc.stderr.read()) for step, proc in procs.items()}
    return base, template.sums, codes


@pytest.mark.parametrize("step, expect", [
    pytest.param("run.model", "old", id="kill-before-model"),
    pytest.param("run.topics", "old", id="kill-before-topics"),
    pytest.param("run.trace", "old", id="kill-before-trace"),
    pytest.param("run.swap", "old", id="kill-before-swap"),
    pytest.param("run.discard_old", "new", id="kill-after-swap"),
])
def test_kill_while_writing_over_an_old_run(killed_runs, tiny_corpus, step, expect):
    """SIGKILL at a write step of a run over an earlier one -> the whole old run or the whole new one, never a
    mix; the next run of the folder completes and leaves no staging folder."""
    base, old_sums, codes = killed_runs
    code, err = codes[step]
    assert code == -signal.SIGKILL, err
    out = base / step / "run"
    assert_whole(out, old_sums, expect)
    run(RunSpec(**SPEC, seed=1), tiny_corpus, out)  # the next invocation
    assert_whole(out, old_sums, "new")
    assert hidden_leftovers(out.parent) == []


@pytest.mark.parametrize("step", ["run.model", "run.topics", "run.trace", "run.swap"])
def test_full_disk_while_writing_over_an_old_run(tmp_path, tiny_corpus, capsys, monkeypatch, step):
    """ENOSPC at a write step -> exit 2 naming the run folder; the old run intact, no staging folder left."""
    old = make_old_run(tmp_path, tiny_corpus)
    monkeypatch.setenv("TOPICBENCH_FAULT_AT", f"enospc:{step}")
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(old.dir), *FAST_RUN, "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and str(old.dir) in err and "No space left" in err, err
    assert checksums(old.dir) == old.sums
    assert hidden_leftovers(tmp_path) == []


@pytest.mark.parametrize("step, expect", [("run.trace", "old"), ("run.discard_old", "new")])
def test_sigterm_while_writing_over_an_old_run(tmp_path, tiny_corpus, step, expect):
    """SIGTERM at a write step of a run over an earlier one (Snakemake cancelling the job) -> exit 143, the whole old run
    or the whole new one, and no staging folder left beside it.

    (Was: ended by the signal's default action: the staged copy of a whole run stayed hidden beside the run folder
    until the next run of that folder, forever if the config moved on.)"""
    old = make_old_run(tmp_path, tiny_corpus)

    class DefaultAction(BaseException):
        """Stands in for SIGTERM's default action, which would end this process with no clean-up at all."""

    def default(signum, frame):
        raise DefaultAction

    before = signal.signal(signal.SIGTERM, default)  # (a forked child cannot run the kernels: libgomp stops it)
    try:
        os.environ["TOPICBENCH_FAULT_AT"] = f"term:{step}"
        with pytest.raises(SystemExit) as stop:
            run(RunSpec(**SPEC, seed=1), tiny_corpus, old.dir)
        assert stop.value.code == 143 and signal.getsignal(signal.SIGTERM) is default
    finally:
        os.environ.pop("TOPICBENCH_FAULT_AT", None)
        signal.signal(signal.SIGTERM, before)
    assert_whole(old.dir, old.sums, expect)
    assert hidden_leftovers(tmp_path) == []


def test_no_atomic_exchange_kill_between_renames(tmp_path, tiny_corpus, monkeypatch):
    """A file system without RENAME_EXCHANGE, killed between its two renames -> the next run restores the old
    run first (it is never lost), then replaces it whole."""
    old = make_old_run(tmp_path, tiny_corpus)
    trace, method = run(RunSpec(**SPEC, seed=1), tiny_corpus)  # fitted here; only the write is killed, in a fork
    child = os.fork()
    if child == 0:  # pragma: no cover - the child dies by SIGKILL at run.swap_new (or exits 3 if it does not)
        try:
            os.environ.update(TOPICBENCH_FAULT_AT="kill:run.swap_new", TOPICBENCH_RENAME_EXCHANGE="0")
            run_module.write_outputs(old.dir, trace, method, [f"w{i}" for i in range(method.n_words)],
                                     RunSpec(**SPEC, seed=1))
        finally:
            os._exit(3)
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
    assert not old.dir.exists()
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(".run.old-")]
    assert len(aside) == 1 and checksums(aside[0]) == old.sums
    run_module.check_output_location(old.dir, RunSpec(**SPEC))
    assert checksums(old.dir) == old.sums and hidden_leftovers(tmp_path) == []


def test_no_atomic_exchange_error_between_renames(tmp_path, tiny_corpus, monkeypatch):
    """A file system without RENAME_EXCHANGE, an error (not a kill) between its two renames -> OutputError, and the
    old run is back in its folder at once (was: left renamed aside, no run folder, until the next run)."""
    old = make_old_run(tmp_path, tiny_corpus)
    monkeypatch.setattr(run_module.io, "exchange_directories", lambda a, b: False)
    monkeypatch.setenv("TOPICBENCH_FAULT_AT", "enospc:run.swap_new")
    with pytest.raises(OutputError, match=re.escape(str(old.dir))):
        run(RunSpec(**SPEC, seed=1), tiny_corpus, old.dir)
    assert checksums(old.dir) == old.sums and hidden_leftovers(tmp_path) == []


def test_stale_staging_from_a_killed_job_is_removed(tmp_path, tiny_corpus):
    """A staging folder left by a killed run (its process gone) -> removed by the next run of that folder."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f".run.staging-{dead.pid}-abc"
    stale.mkdir()
    (stale / "model.npz").write_bytes(b"half")
    run(RunSpec(**SPEC, seed=0), tiny_corpus, tmp_path / "run")
    assert hidden_leftovers(tmp_path) == []
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(RUN_FILES)


def run_cli(tmp_path, capsys, out, corpus):
    start = time.perf_counter()
    code = cli(["run", "--corpus", str(corpus), "--out", str(out), *FAST_RUN])
    return code, capsys.readouterr().err, time.perf_counter() - start


def test_out_names_an_existing_file(tmp_path, capsys):
    """--out naming an existing file -> exit 2 naming it before the corpus is read; the file untouched."""
    target = tmp_path / "notes.txt"
    target.write_text("keep")
    code, err, _ = run_cli(tmp_path, capsys, target, tmp_path / "no_corpus")
    assert code == 2 and f"--out {target} is an existing file" in err, err
    assert target.read_text() == "keep" and hidden_leftovers(tmp_path) == []


def test_out_below_a_file(tmp_path, capsys):
    """--out under a path component that is a file -> exit 2 naming that file, before the corpus is read."""
    (tmp_path / "f").write_text("keep")
    code, err, _ = run_cli(tmp_path, capsys, tmp_path / "f" / "run", tmp_path / "no_corpus")
    assert code == 2 and f"{tmp_path / 'f'} is a file" in err, err


def test_out_in_a_read_only_place(tmp_path, capsys):
    """--out where nothing can be written (under /proc, read-only even for root) -> exit 2 naming it, before
    the corpus is read."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs Linux /proc as a place no user can write")
    out = "/proc/topicbench_fault/run"
    code, err, _ = run_cli(tmp_path, capsys, out, tmp_path / "no_corpus")
    assert code == 2 and f"--out {out}: cannot write in /proc" in err, err


def test_out_holding_other_files_is_not_replaced(tmp_path, capsys):
    """--out naming a folder with files that are not a run's -> exit 2 listing them; nothing deleted."""
    (tmp_path / "thesis.tex").write_text("years of work")
    code, err, _ = run_cli(tmp_path, capsys, tmp_path, tmp_path / "no_corpus")
    assert code == 2 and "thesis.tex" in err, err
    assert (tmp_path / "thesis.tex").read_text() == "years of work"


def test_out_is_a_symlink(tmp_path, capsys):
    """--out naming a symbolic link -> exit 2 (the swap would replace the link, not the run behind it)."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    code, err, _ = run_cli(tmp_path, capsys, tmp_path / "link", tmp_path / "no_corpus")
    assert code == 2 and "symbolic link" in err and (tmp_path / "link").is_symlink()


def test_full_disk_found_before_compute(tmp_path, tiny_corpus, capsys, monkeypatch):
    """A disk without room for the model -> exit 2 naming the folder and the sizes, before the fit starts."""
    monkeypatch.setattr(run_module.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9 - 1000, 1000))
    monkeypatch.setattr(run_module, "_run", lambda *a: pytest.fail("the fit started"))
    code, err, _ = run_cli(tmp_path, capsys, tmp_path / "run", tiny_corpus)
    assert code == 2 and f"--out {tmp_path / 'run'}" in err and "MiB free" in err, err
    assert not (tmp_path / "run").exists()


def test_unwritable_out_found_before_compute(tmp_path, tiny_corpus, capsys, monkeypatch):
    """A write probe failing with ENOSPC -> exit 2 naming the folder, before the fit starts."""
    monkeypatch.setenv("TOPICBENCH_FAULT_AT", "enospc:run.check_out")
    monkeypatch.setattr(run_module, "_run", lambda *a: pytest.fail("the fit started"))
    code, err, _ = run_cli(tmp_path, capsys, tmp_path / "run", tiny_corpus)
    assert code == 2 and f"--out {tmp_path / 'run'}: cannot write" in err, err


def test_outputs_readable_like_any_file(tmp_path, tiny_corpus):
    """A finished run -> folder and files carry the umask's permissions, not the 0700/0600 of temp files."""
    run(RunSpec(**SPEC), tiny_corpus, tmp_path / "run")
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE((tmp_path / "run").stat().st_mode) == 0o777 & ~mask
    for name in RUN_FILES:
        assert stat.S_IMODE((tmp_path / "run" / name).stat().st_mode) == 0o666 & ~mask, name


def test_orphaned_fit_stops_when_its_parent_dies(tmp_path, tiny_corpus):
    """The parent of a --exit-with-parent fit SIGKILLed (as a killed Snakemake) -> the fit stops within seconds
    and never writes the run folder."""
    out, log, pidfile = tmp_path / "run", tmp_path / "fit.log", tmp_path / "pid"
    args = " ".join([sys.executable, "-m", "topicbench.cli", "run", "--exit-with-parent", "--corpus", str(tiny_corpus),
                     "--out", str(out), *FAST_RUN, "--set", "passes=100000"])
    parent = subprocess.Popen(["sh", "-c", f"{args} 2> {log} & echo $! > {pidfile}; wait"], env=env(), cwd=REPO)
    deadline = time.time() + 300
    while not (log.exists() and "docs (" in log.read_text()):  # the fit is under way
        assert time.time() < deadline and parent.poll() is None, log.read_text() if log.exists() else ""
        time.sleep(0.2)
    child = int(pidfile.read_text())
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 10
    while os.path.exists(f"/proc/{child}") and "Z" not in open(f"/proc/{child}/stat").read().split()[2]:
        if time.time() > deadline:
            os.kill(child, signal.SIGKILL)
            pytest.fail("the orphaned fit kept running")
        time.sleep(0.1)
    assert not out.exists()


def test_worker_restart_after_a_long_evaluation_is_not_fit_time(monkeypatch, tiny_corpus):
    """sklearn_lda's workers idle past joblib's timeout after a checkpoint -> no worker starts on the fit clock.

    joblib's 300 s, here 0.2 s, pass between a checkpoint's last prediction and the next update (was: that update
    restarted the workers, and their start-up counted as fit time)."""
    import joblib
    import psutil

    from topicbench.method import get_method

    cls = get_method("sklearn_lda")
    fit, check_own_generator = cls.partial_fit, run_module.check_own_generator
    waits, started = [], []  # the worker processes each update after a wait starts

    def watched(self, batch):
        before = {p.pid for p in psutil.Process().children(recursive=True)}
        fit(self, batch)
        if waits:  # not the warm-up's updates, which start the workers off the clock
            started.extend(p.pid for p in psutil.Process().children(recursive=True) if p.pid not in before)

    def then_wait(*args):  # ends the warm-up and each checkpoint, after their last prediction
        check_own_generator(*args)
        time.sleep(0.5)
        waits.append(args[-1])

    monkeypatch.setattr(cls, "partial_fit", watched)
    monkeypatch.setattr(run_module, "check_own_generator", then_wait)
    with joblib.parallel_config(backend="loky", idle_worker_timeout=0.2):
        trace, _ = run(RunSpec(method="sklearn_lda", params={"K": 3, "batch_size": 40}, threads=2, n_checkpoints=2,
                               report_elbo=False, topic_history_words=0), tiny_corpus, progress_every_s=1e9)
    assert len(waits) >= 2 and trace["fit_cpu_workers_s"].iloc[-1] > 0, waits  # updates after waits, in workers
    assert started == [], f"workers {started} started inside partial_fit"


def test_corrupt_model_named_by_load_model(tmp_path, tiny_corpus):
    """A truncated model.npz read by load_model (as the figures do) -> OutputError naming the file."""
    old = make_old_run(tmp_path, tiny_corpus)
    path = old.dir / "model.npz"
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(OutputError, match=f"model file {path} is unreadable"):
        load_model(path)


def test_missing_model_named_by_load_model(tmp_path):
    """load_model of a run whose model.npz is missing -> OutputError naming the file."""
    with pytest.raises(OutputError, match=f"model file {tmp_path / 'model.npz'} does not exist"):
        load_model(tmp_path / "model.npz")


def test_foreign_npz_named_by_load_model(tmp_path):
    """An .npz that is not a topicbench model -> OutputError naming the file, not a KeyError."""
    np.savez(tmp_path / "model.npz", x=np.zeros(3))
    with pytest.raises(OutputError, match="not a topicbench model"):
        load_model(tmp_path / "model.npz")


def test_aggregate_names_a_corrupt_trace(tmp_path, tiny_corpus, capsys):
    """aggregate over a truncated trace.parquet -> exit 2 naming the trace; no output written."""
    old = make_old_run(tmp_path, tiny_corpus)
    bad = old.dir / "trace.parquet"
    bad.write_bytes(bad.read_bytes()[:100])
    code = cli(["aggregate", "--out", str(tmp_path / "all.parquet"), str(bad)])
    assert code == 2 and f"trace {bad} is unreadable" in capsys.readouterr().err
    assert not (tmp_path / "all.parquet").exists()


def test_aggregate_names_a_column_of_mixed_types(tmp_path, capsys):
    """Traces whose p_alpha is text in one and a number in another -> exit 2 naming the column and files."""
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pd.DataFrame({"p_alpha": ["1e-4"], "loglik_per_word": [-7.0]}).to_parquet(a)
    pd.DataFrame({"p_alpha": [0.001], "loglik_per_word": [-7.1]}).to_parquet(b)
    code = cli(["aggregate", "--out", str(tmp_path / "all.parquet"), str(a), str(b)])
    err = capsys.readouterr().err
    assert code == 2 and "column 'p_alpha'" in err and str(a) in err and str(b) in err, err
    assert not (tmp_path / "all.parquet").exists()


@pytest.mark.parametrize("fault", ["enospc:aggregate.write", "enospc:atomic.replace"])
def test_aggregate_full_disk_keeps_the_old_table(tmp_path, tiny_corpus, capsys, monkeypatch, fault):
    """ENOSPC while aggregate writes all_traces.parquet -> exit 2 naming the file; the old table intact, no
    temporary file left."""
    old = make_old_run(tmp_path, tiny_corpus)
    table = tmp_path / "all.parquet"
    assert cli(["aggregate", "--out", str(table), str(old.dir / "trace.parquet")]) == 0
    before = checksums(tmp_path)
    if fault == "enospc:atomic.replace":  # the disk fills inside the parquet writer itself
        def full(*args, **kwargs):
            raise OSError(28, "No space left on device", str(table))
        monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    else:
        monkeypatch.setenv("TOPICBENCH_FAULT_AT", fault)
    code = cli(["aggregate", "--out", str(table), str(old.dir / "trace.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "No space left" in err and str(table) in err, err
    assert checksums(tmp_path) == before and hidden_leftovers(tmp_path) == []


def test_aggregate_while_a_run_swaps_in_a_new_trace(tmp_path, tiny_corpus, monkeypatch):
    """A run writing its folder again while aggregate reads its trace -> the table holds the rows of the very trace
    whose sha256 it records, so its record tells a stale table (it recorded the old trace's sha256 beside the new
    trace's rows)."""
    import hashlib
    from pathlib import Path

    from topicbench import io as tb_io
    from topicbench.grid import AGGREGATE_INPUTS

    old = make_old_run(tmp_path, tiny_corpus)
    trace, method = run(RunSpec(**SPEC, seed=1), tiny_corpus)  # no out_dir: nothing written yet
    read_bytes, swapped = Path.read_bytes, []

    def read_then_swap(path):  # the run's swap lands just after aggregate's first read of the trace
        data = read_bytes(path)
        if path.name == "trace.parquet" and not swapped:
            swapped.append(path)
            run_module.write_outputs(old.dir, trace, method, [f"w{i}" for i in range(method.n_words)],
                                     RunSpec(**SPEC, seed=1))
        return data

    monkeypatch.setattr(Path, "read_bytes", read_then_swap)
    table = tmp_path / "all.parquet"
    assert cli(["aggregate", "--out", str(table), str(old.dir / "trace.parquet")]) == 0
    monkeypatch.undo()
    assert swapped
    recorded = json.loads(tb_io.parquet_metadata(table, AGGREGATE_INPUTS))
    seeds = set(pd.read_parquet(table)["seed"])
    held = old.sums["trace.parquet"] if seeds == {0} else hashlib.sha256((old.dir / "trace.parquet").read_bytes()).hexdigest()
    assert len(seeds) == 1 and list(recorded.values()) == [held], f"rows of seed {seeds} under another trace's sha256"


def test_empty_trace_is_never_written_as_a_run(tmp_path, tiny_corpus):
    """write_outputs given a trace with no row (a run that scored nothing) -> OutputError; the old run untouched."""
    out = tmp_path / "run"
    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2)
    trace, method = run(spec, tiny_corpus, out)
    before = checksums(out)
    with pytest.raises(OutputError, match="scored nothing"):
        run_module.write_outputs(out, trace.iloc[:0], method, ["w"] * 60, spec)
    assert checksums(out) == before and not hidden_leftovers(tmp_path)


@pytest.mark.parametrize("name, content", [
    pytest.param("model.npz", b"my own notes, not a model", id="user-file-named-model.npz"),
    pytest.param("trace.parquet", b"a,b\n1,2\n", id="user-csv-named-trace.parquet"),
    pytest.param("topics.tsv", b"my topics\n", id="user-file-named-topics.tsv"),
])
def test_out_holding_a_user_file_with_a_run_file_name(tmp_path, tiny_corpus, name, content):
    """--out holding a user's file that merely carries a run file's name -> exit 2 naming it; the file kept."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / name).write_bytes(content)
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(out), *FAST_RUN])
    assert code == 2 and (out / name).read_bytes() == content and sorted(os.listdir(out)) == [name]
    assert not hidden_leftovers(tmp_path)


@pytest.mark.parametrize("target", [
    pytest.param("user-file", id="aggregate-out-a-user-file"),
    pytest.param("input", id="aggregate-out-one-of-its-inputs"),
    pytest.param("run-trace", id="aggregate-out-a-run-trace"),
    pytest.param("user-parquet", id="aggregate-out-a-users-parquet-table"),
    pytest.param("corpus-docs", id="aggregate-out-a-corpus-docs-parquet"),
    pytest.param("link-to-table", id="aggregate-out-a-symlink-to-an-earlier-table"),
    pytest.param("table-in-run-folder", id="aggregate-out-an-earlier-table-inside-a-run-folder"),
    pytest.param("folder", id="aggregate-out-a-folder"),
    pytest.param("dangling-link", id="aggregate-out-a-dangling-symlink"),
])
def test_aggregate_never_overwrites_what_is_not_its_table(tmp_path, tiny_corpus, capsys, target):
    """aggregate --out naming a user's file, one of its inputs or a run's trace -> exit 2 naming it; the file kept.

    Also a symlink (dangling, or to an earlier table: the link is the user's), a folder, and an earlier table inside a
    run folder.

    A Parquet file that is not an aggregate table too: a user's own, or a corpus's docs.parquet (was: any Parquet file
    outside a run folder was taken for an earlier table and replaced)."""
    runs = [tmp_path / "r0", tmp_path / "r1"]
    for seed, folder in enumerate(runs):
        assert cli(["run", "--corpus", str(tiny_corpus), "--out", str(folder), "--seed", str(seed), *FAST_RUN]) == 0
    out = {"user-file": tmp_path / "notes.txt", "input": runs[0] / "trace.parquet",
           "run-trace": runs[1] / "trace.parquet", "user-parquet": tmp_path / "mine.parquet",
           "corpus-docs": tmp_path / "corpus" / "docs.parquet", "link-to-table": tmp_path / "link.parquet",
           "table-in-run-folder": runs[1] / "all.parquet", "folder": tmp_path / "folder",
           "dangling-link": tmp_path / "dangling.parquet"}[target]
    if target in ("link-to-table", "table-in-run-folder"):  # a real earlier table, reached another way
        table = tmp_path / "all.parquet" if target == "link-to-table" else out
        assert cli(["aggregate", "--out", str(table), str(runs[1] / "trace.parquet")]) == 0
        if target == "link-to-table":
            out.symlink_to(table)
    if target == "folder":
        out.mkdir()
        (out / "x").write_text("mine")
    if target == "dangling-link":
        out.symlink_to(tmp_path / "elsewhere.parquet")
    if target == "user-file":
        out.write_text("precious")
    if target == "user-parquet":
        pd.DataFrame({"my": [1.0, 2.0]}).to_parquet(out)
    if target == "corpus-docs":
        shutil.copytree(tiny_corpus, out.parent)
    before = checksums(tmp_path)
    capsys.readouterr()
    code = cli(["aggregate", "--out", str(out), str(runs[0] / "trace.parquet")])
    assert code == 2 and f"--out {out}" in capsys.readouterr().err
    assert checksums(tmp_path) == before and (target not in ("link-to-table", "dangling-link") or out.is_symlink())


def test_killed_atomic_write_leaves_no_temporary_file(tmp_path, tiny_corpus):
    """SIGKILL inside an atomic file write (aggregate's table, as figures and the paper write theirs) -> the old file
    intact, and the next write of that file removes the dead writer's hidden temporary file."""
    old = make_old_run(tmp_path, tiny_corpus)
    table = tmp_path / "all.parquet"
    args = [sys.executable, "-m", "topicbench.cli", "aggregate", "--out", str(table), str(old.dir / "trace.parquet")]
    assert subprocess.run(args, env=env(), cwd=REPO, capture_output=True).returncode == 0
    before = checksums(tmp_path)
    killed = subprocess.run(args, env=env(TOPICBENCH_FAULT_AT="kill:atomic.write"), cwd=REPO, capture_output=True)
    assert killed.returncode == -signal.SIGKILL and checksums(tmp_path) != before  # the temporary file is there
    assert {k: v for k, v in checksums(tmp_path).items() if not k.startswith(".")} == before
    assert subprocess.run(args, env=env(), cwd=REPO, capture_output=True).returncode == 0
    assert hidden_leftovers(tmp_path) == []


@pytest.mark.parametrize("copy", [
    pytest.param(False, id="aggregate-same-trace-twice"),
    pytest.param(True, id="aggregate-two-copies-of-one-run"),
])
def test_aggregate_refuses_one_run_twice(tmp_path, tiny_corpus, capsys, copy):
    """aggregate given one trace twice, or a copied run folder beside its original -> exit 2 naming both paths,
    no table (its rows would count twice in every mean)."""
    old = make_old_run(tmp_path, tiny_corpus)
    second = old.dir / "trace.parquet"
    if copy:
        shutil.copytree(old.dir, tmp_path / "copy")
        second = tmp_path / "copy" / "trace.parquet"
    code = cli(["aggregate", "--out", str(tmp_path / "all.parquet"), str(old.dir / "trace.parquet"), str(second)])
    err = capsys.readouterr().err
    assert code == 2 and str(old.dir / "trace.parquet") in err and str(second) in err, err
    assert not (tmp_path / "all.parquet").exists()


def test_load_model_of_another_method_named(tmp_path, tiny_corpus):
    """A model.npz whose _method names another method than its arrays -> OutputError naming the file and the
    method, not a KeyError."""
    old = make_old_run(tmp_path, tiny_corpus)
    state = dict(np.load(old.dir / "model.npz"))
    state["_method"] = np.array("bnmf")
    np.savez(tmp_path / "model.npz", **state)
    with pytest.raises(OutputError, match=r"model\.npz.*bnmf"):
        load_model(tmp_path / "model.npz")


def test_load_model_vocabulary_size_mismatch(tmp_path, tiny_corpus):
    """load_model(path, n_words=V) where the model was fitted over another vocabulary size -> OutputError naming
    the file and both sizes (never a model silently of the stored size)."""
    old = make_old_run(tmp_path, tiny_corpus)
    with pytest.raises(OutputError, match=r"model\.npz.*60.*50|model\.npz.*50.*60"):
        load_model(old.dir / "model.npz", n_words=50)


def test_out_inside_a_corpus_folder(tmp_path, tiny_corpus, capsys):
    """--out inside a corpus folder (which a later prepare replaces as a whole, run and all) -> exit 2 naming the
    corpus folder, before the fit; the corpus unchanged."""
    before = checksums(tiny_corpus)
    code, err, _ = run_cli(tmp_path, capsys, tiny_corpus / "runs" / "r1", tiny_corpus)
    assert code == 2 and str(tiny_corpus) in err and "corpus" in err, err
    assert checksums(tiny_corpus) == before


def test_figure_reads_a_model_of_another_vocabulary(tmp_path, tiny_corpus):
    """A figure's model fitted over another vocabulary size than its corpus -> OutputError naming the model and
    both sizes, not topics labelled with the wrong words."""
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import figlib

    old = make_old_run(tmp_path, tiny_corpus)
    corpus = tmp_path / "corpus"
    shutil.copytree(tiny_corpus, corpus)
    meta = json.loads((corpus / "corpus.json").read_text())
    meta["n_words"] = 50  # only what the figure reads matters here
    (corpus / "corpus.json").write_text(json.dumps(meta))
    ctx = figlib.Context("f", None, ["e"], None, {"e": str(corpus)}, {"e/l": str(old.dir / "model.npz")}, {})
    with pytest.raises(OutputError, match=r"model\.npz.*60 words.*50"):
        ctx.model("e", "l")


def test_out_name_too_long_found_before_compute(tmp_path, tiny_corpus, capsys, monkeypatch):
    """--out of a legal name too long with the staging suffix (ENAMETOOLONG) -> exit 2 naming it, before the fit."""
    monkeypatch.setattr(run_module, "_run", lambda *a: pytest.fail("the fit started"))
    out = tmp_path / ("r" * 245)  # 245 bytes is a legal name; ".<name>.staging-<pid>-xxxxxxxx" is not
    code, err, _ = run_cli(tmp_path, capsys, out, tiny_corpus)
    assert code == 2 and "rrrrrrrrrr" in err and "bytes" in err and "255" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage", [
    pytest.param("drop-git_sha", id="trace-without-git_sha"),
    pytest.param("null-seed", id="trace-with-an-empty-seed"),
    pytest.param("null-seed-alone", id="only-trace-with-no-seed-in-any-row"),  # one run, and no other's seed type
    pytest.param("nan-loglik", id="trace-with-a-nan-score"),  # a claim's pivot over seeds would leave the seed out
])
def test_aggregate_refuses_a_trace_without_provenance(tmp_path, tiny_corpus, capsys, damage):
    """A trace without a provenance or identity column (git_sha), or empty in a row -> exit 2 naming it, no table.

    A NaN score too, which the runner never writes (was: let through, and a claim dropped that seed silently)."""
    old = make_old_run(tmp_path, tiny_corpus)
    frame = pd.read_parquet(old.dir / "trace.parquet")
    column = {"drop-git_sha": "git_sha", "nan-loglik": "loglik_per_word"}.get(damage, "seed")
    if damage == "drop-git_sha":
        frame = frame.drop(columns=["git_sha"])
    elif damage == "nan-loglik":
        frame.loc[len(frame) - 1, "loglik_per_word"] = np.nan
    else:
        frame["seed"] = frame["seed"].astype("float64")
        frame.loc[0 if damage == "null-seed" else slice(None), "seed"] = np.nan
    bad = tmp_path / "hand" / "trace.parquet"
    bad.parent.mkdir()
    frame.to_parquet(bad)
    others = [] if damage == "null-seed-alone" else [str(old.dir / "trace.parquet")]
    code = cli(["aggregate", "--out", str(tmp_path / "all.parquet"), *others, str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and f"trace {bad}" in err and column in err, err
    assert not (tmp_path / "all.parquet").exists()


@pytest.mark.parametrize("kind", ["old", "staging"])
def test_look_alike_user_folder_beside_a_run_is_kept(tmp_path, tiny_corpus, kind):
    """A user's folder named like a dead run's leftover (.run.old-<pid>) holding notes -> kept, the run written."""
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is free: the folder looks like a killed run's
    mine = tmp_path / (f".run.old-{dead.pid}" if kind == "old" else f".run.staging-{dead.pid}-mybackup")
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    make_old_run(tmp_path, tiny_corpus)
    run(RunSpec(**SPEC, seed=1), tiny_corpus, tmp_path / "run")
    assert (mine / "notes.txt").read_text() == "keep me"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(RUN_FILES)


def test_model_beyond_memory_found_before_compute(tmp_path, tiny_corpus, capsys, monkeypatch):
    """K so large the K x V model cannot fit in the memory available -> exit 2 naming K, before the fit (no MemoryError)."""
    monkeypatch.setattr(run_module, "available_memory", lambda: 2**20, raising=False)  # 1 MiB: K=1000 over 60 words needs 1.4 MB
    monkeypatch.setattr(run_module, "_run", lambda *a: pytest.fail("the fit started"))
    code = cli(["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "run"), "--method", "online_lda",
                "--param", "K=1000", "--param", "batch_size=20"])
    err = capsys.readouterr().err
    assert code == 2 and "'K' = 1000 over 60 words" in err and "memory" in err, err
    assert not (tmp_path / "run").exists()


def test_out_ending_in_dotdot_found_before_compute(tmp_path, tiny_corpus, capsys, monkeypatch):
    """--out dd/sub/.. (a name a folder cannot be renamed onto: EBUSY after the fit) -> exit 2 naming it, before the fit."""
    monkeypatch.setattr(run_module, "_run", lambda *a: pytest.fail("the fit started"))
    code, err, _ = run_cli(tmp_path, capsys, tmp_path / "dd" / "sub" / "..", tiny_corpus)
    assert code == 2 and "ends in '..'" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("exchange, pause_at, existing", [
    pytest.param(True, "run.topics", True, id="concurrent-run-between-two-file-writes"),
    pytest.param(False, "run.swap_new", True, id="concurrent-run-between-the-two-renames"),
])
def test_two_runs_writing_one_folder_at_once(tmp_path, tiny_corpus, monkeypatch, exchange, pause_at, existing):
    """Two runs writing one run folder at once -> one whole run of one seed there, never a mix; no leftovers.

    The second run's whole write falls inside the first's: between its model and its topics (caught only by
    staging), or between the two renames of a swap without RENAME_EXCHANGE (where the first used to leave the
    old run renamed aside)."""
    out = tmp_path / "run"
    if existing:
        make_old_run(tmp_path, tiny_corpus)
    if not exchange:
        monkeypatch.setattr(run_module.io, "exchange_directories", lambda a, b: False)
    fitted = {seed: run(RunSpec(**SPEC, seed=seed), tiny_corpus) for seed in (1, 2)}  # no out_dir: nothing written
    real_fault_point, inside = run_module.io.fault_point, []

    def fault_point(step):  # run 2 writes the whole folder while run 1 stands at ``pause_at``
        if step == pause_at and not inside:
            inside.append(step)
            trace, method = fitted[2]
            run_module.write_outputs(out, trace, method, [f"w{i}" for i in range(method.n_words)], RunSpec(**SPEC, seed=2))
        real_fault_point(step)

    monkeypatch.setattr(run_module.io, "fault_point", fault_point)
    trace, method = fitted[1]
    try:
        run_module.write_outputs(out, trace, method, [f"w{i}" for i in range(method.n_words)], RunSpec(**SPEC, seed=1))
        first = "ok"
    except OutputError as err:  # refused because the other run's folder took its place: it says so
        first = str(err)
    monkeypatch.undo()
    assert inside == [pause_at]
    assert sorted(p.name for p in out.iterdir()) == sorted(RUN_FILES)
    seeds = set(pd.read_parquet(out / "trace.parquet")["seed"])
    assert len(seeds) == 1 and load_model(out / "model.npz").seed in seeds, "a mix of the two runs"
    winner = seeds.pop()
    expected_topics = run_module.top_words_table(fitted[winner][1], [f"w{i}" for i in range(fitted[winner][1].n_words)])
    assert (out / "topics.tsv").read_text() == expected_topics.to_csv(sep="\t", index=False)
    assert first == "ok" or winner == 2, first
    run_module.check_output_location(out, RunSpec(**SPEC))  # the next run of the folder tidies what a loser left
    assert hidden_leftovers(tmp_path) == []


@pytest.mark.parametrize("untracked, dirty", [
    pytest.param("methods/my_method.py", True, id="provenance-untracked-method-file"),
    pytest.param("datasets/my_recipe.py", True, id="provenance-untracked-recipe-file"),
    pytest.param("notes.txt", False, id="provenance-untracked-notes-not-code"),
])
def test_provenance_of_code_the_commit_does_not_hold(tmp_path, monkeypatch, untracked, dirty):
    """A method or recipe file dropped into the checkout and never committed -> git_sha ends in '-dirty' (was: the
    bare commit, which does not hold the code that ran); an untracked non-code file leaves it clean."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for folder in ("methods", "datasets"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "kept.py").write_text("x = 1\n")
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "c"], cwd=tmp_path, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    (tmp_path / untracked).write_text("class Mine: pass\n")
    monkeypatch.setattr(run_module, "REPO_ROOT", tmp_path)
    monkeypatch.delenv("TOPICBENCH_GIT_SHA", raising=False)
    run_module.provenance.cache_clear()
    try:
        sha = run_module.provenance()["git_sha"]
    finally:
        run_module.provenance.cache_clear()
    assert sha == head + ("-dirty" if dirty else "")
