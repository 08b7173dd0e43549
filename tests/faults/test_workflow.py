"""The workflow as Snakemake runs it: the default profile is applied (rerun-incomplete), a killed Snakemake leaves
no orphaned fit and resumes, shell commands quote every value, and a bad config fails at DAG build."""
import base64
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

from _run_util import REPO, TINY, env, hidden_leftovers
from topicbench import io, previous
from topicbench.corpus import load_corpus
from topicbench import grid
from topicbench.grid import AGGREGATE_INPUTS, FOLDER_LOCK, FOLDER_MARK, expand_all, stale_corpora, stale_outputs

# results_dir with a space and a command substitution: every path in the rules' shell commands must be quoted
RESULTS = "res $(touch INJECTED) x"
TINY_CONFIG = {
    "data_dir": "data", "results_dir": RESULTS, "threads_per_run": 1,
    "datasets": {"tiny": {"recipe": "nyt_like", "params": TINY}},
    "experiments": {"exp": {"dataset": "tiny", "seeds": [0], "runs": [
        # ~1 s of fit (passes), long enough to kill Snakemake while it runs
        {"label": "slow", "method": "online_lda", "grid": {"K": [3], "batch_size": [20]},
         "settings": {"passes": 600, "n_checkpoints": 2}}]}},
}
TARGET = f"{RESULTS}/all_traces.parquet"


def snakemake(workdir, *args, config=None, popen=False, timeout=600, **extra_env):
    """Snakemake on the repository's Snakefile from ``workdir`` (the default profile is found beside it)."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--configfile", str(config or "config.yaml"),
           *args]
    if popen:
        return subprocess.Popen(cmd, cwd=workdir, env=env(**extra_env), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
    return subprocess.run(cmd, cwd=workdir, env=env(**extra_env), capture_output=True, text=True, timeout=timeout)


def fits_running(workdir) -> list[int]:
    """Pids of topicbench fits writing under ``workdir``."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = os.readlink(proc / "cwd")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if proc.name.isdigit() and "topicbench" in cmdline and " run " in cmdline and cwd == str(workdir) and state != "Z":
            pids.append(int(proc.name))
    return pids


@pytest.fixture(scope="module")
def killed_then_resumed(tmp_path_factory):
    """The tiny workflow: Snakemake SIGKILLed while its fit runs, then run again to the end."""
    workdir = tmp_path_factory.mktemp("wf")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY_CONFIG))
    proc = snakemake(workdir, "--cores", "1", TARGET, popen=True)
    log = workdir / RESULTS / "logs" / "runs"
    deadline = time.time() + 400
    while not any("docs (" in p.read_text() for p in log.rglob("*.log")) if log.exists() else True:
        assert proc.poll() is None and time.time() < deadline, proc.stdout.read()
        time.sleep(0.2)
    fits = fits_running(workdir)
    proc.send_signal(signal.SIGKILL)  # Snakemake only, not its process group: its fit must stop by itself
    proc.wait()
    deadline = time.time() + 10
    while fits_running(workdir) and time.time() < deadline:
        time.sleep(0.1)
    orphans = fits_running(workdir)
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
    run_dirs = list((workdir / RESULTS / "runs").rglob("seed~0")) if (workdir / RESULTS / "runs").exists() else []
    after_kill = [sorted(p.name for p in d.iterdir()) for d in run_dirs]
    unlock = snakemake(workdir, "--unlock")  # a SIGKILLed Snakemake cannot remove its lock (README, "Profiles")
    assert unlock.returncode == 0, unlock.stderr
    resumed = snakemake(workdir, "--cores", "1", TARGET)
    return workdir, fits, orphans, after_kill, resumed


def test_killed_snakemake_leaves_no_orphaned_fit(killed_then_resumed):
    """Snakemake SIGKILLed mid-fit -> its fit stops within seconds and the run folder holds no partial run."""
    workdir, fits, orphans, after_kill, _ = killed_then_resumed
    assert fits, "the fit should have been running when Snakemake was killed"
    assert orphans == []
    assert all(files == [] for files in after_kill), after_kill


def test_killed_snakemake_resumes(killed_then_resumed):
    """A rerun after Snakemake was SIGKILLed -> completes (the default profile's rerun-incomplete), whole run
    folder, no staging folders left, and no shell command ran from a path value."""
    workdir, _, _, _, resumed = killed_then_resumed
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "Using workflow specific profile" in resumed.stderr and "profiles/default" in resumed.stderr
    (run_dir,) = (workdir / RESULTS / "runs").rglob("seed~0")
    assert sorted(p.name for p in run_dir.iterdir()) == ["model.npz", "topics.tsv", "trace.parquet"]
    assert hidden_leftovers(workdir / RESULTS / "runs") == []
    assert (workdir / TARGET).exists()
    assert not list(workdir.rglob("INJECTED")) and not (REPO / "INJECTED").exists()


def test_rerun_incomplete_is_in_effect(killed_then_resumed):
    """Outputs Snakemake marked incomplete (killed after the fit wrote them) -> the default profile reruns the
    job; without the profile Snakemake would stop with IncompleteFilesException."""
    workdir, *_ = killed_then_resumed
    (trace,) = (workdir / RESULTS / "runs").rglob("trace.parquet")
    marker_dir = workdir / ".snakemake" / "incomplete"
    marker_dir.mkdir(parents=True, exist_ok=True)
    # Snakemake's own record of a job that started and did not finish: one file per output, named by its path
    marker = marker_dir / base64.urlsafe_b64encode(str(trace.relative_to(workdir)).encode()).decode()
    marker.write_text("")
    without = snakemake(workdir, "--cores", "1", "-n", "--workflow-profile", "none", TARGET)
    assert without.returncode != 0 and "incomplete" in (without.stdout + without.stderr).lower()
    plan = snakemake(workdir, "--cores", "1", "-n", TARGET)
    assert plan.returncode == 0 and "fit" in plan.stdout, plan.stdout + plan.stderr
    marker.unlink()


def test_second_workflow_on_the_results_dir_refused(killed_then_resumed):
    """A second Snakemake on the results_dir another workflow runs on -> it exits naming the folder before any job.

    The first one's files untouched. Snakemake's own lock does not reach from another working directory (or with
    --nolock). (Was: both ran, each deleting and rewriting the other's outputs.)"""
    workdir, *_ = killed_then_resumed
    table = workdir / TARGET
    before = table.read_bytes(), table.stat().st_mtime_ns
    with open(workdir / RESULTS / FOLDER_LOCK, "a+") as held:  # as the running workflow's onstart holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        second = snakemake(workdir, "--cores", "1", "--forcerun", "aggregate", TARGET)
    out = second.stdout + second.stderr
    assert second.returncode != 0 and "is in use by another topicbench workflow" in out and RESULTS in out, out[-2000:]
    assert re.search(r"^aggregate +1$", out, re.M) and "Finished jobid" not in out, out[-2000:]  # planned, not run
    assert (table.read_bytes(), table.stat().st_mtime_ns) == before


def test_second_workflow_on_the_data_dir_refused(tmp_path):
    """A workflow starting on a data_dir another workflow holds (its own results_dir) -> GridError naming data_dir and
    the holder; the first one's lock kept. (One could re-prepare a corpus with other parameters under the other's fits.)"""
    config = {"results_dir": str(tmp_path / "res"), "data_dir": str(tmp_path / "data")}
    (tmp_path / "data").mkdir()
    with open(tmp_path / "data" / FOLDER_LOCK, "a+") as held:  # another open file: its flock conflicts with ours
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("pid 12345 on elsewhere")
        held.flush()
        try:
            with pytest.raises(grid.GridError, match=r"data_dir .*data' is in use by another topicbench workflow "
                                                     r"\(pid 12345 on elsewhere"):
                grid.lock_folders(config)
        finally:
            fd = grid._HELD_LOCKS.pop(str((tmp_path / "res" / FOLDER_LOCK).resolve()), None)
            if fd is not None:
                os.close(fd)
        assert fd is not None  # results_dir was free: locked, then released here
        held.seek(0)
        assert held.read() == "pid 12345 on elsewhere"


def run_files(run_dir) -> dict[str, tuple[bytes, int]]:
    """{name: (bytes, inode)} of a run folder's files; {} when there is no folder."""
    return {p.name: (p.read_bytes(), p.stat().st_ino) for p in run_dir.iterdir()} if run_dir.is_dir() else {}


def test_failed_prepare_keeps_the_old_corpus(killed_then_resumed, tmp_path):
    """A prepare rerun that fails (its process killed while it stages the new corpus) -> the old corpus.json back, the
    very file, beside the old corpus it describes, with a message; the next run prepares it again.

    Was: Snakemake deleted corpus.json before the job ran and prepares kept no previous result, so the old corpus could
    no longer be loaded and no run could read it. The folder is swapped in whole (io.atomic_directory), so a missing
    corpus.json after the job means the folder is still the old one."""
    workdir = tmp_path / "wf"
    shutil.copytree(killed_then_resumed[0], workdir, symlinks=True)  # the module's results stay as they are
    meta = workdir / "data" / "corpora" / "tiny" / "corpus.json"
    old = (meta.read_bytes(), meta.stat().st_ino)
    target = str(meta.relative_to(workdir))
    failed = snakemake(workdir, "--cores", "1", "--forcerun", "prepare_corpus", "--", target,
                       TOPICBENCH_FAULT_AT="kill:prepare.stage")
    assert failed.returncode != 0 and "its previous result was put back" in failed.stderr, failed.stderr[-3000:]
    assert (meta.read_bytes(), meta.stat().st_ino) == old
    assert load_corpus(meta.parent).n_docs > 0  # the old corpus whole again
    fixed = snakemake(workdir, "--cores", "1", target)
    assert fixed.returncode == 0 and "put back after its rerun failed" in fixed.stderr, fixed.stderr[-3000:]
    assert meta.stat().st_ino != old[1] and not (workdir / "data" / previous.AREA).exists()


def test_prepare_killed_after_its_swap_leaves_no_mix(killed_then_resumed, tmp_path):
    """A prepare rerun killed after swapping in its new corpus folder (Snakemake then removes its corpus.json) -> the
    new corpus's files only, never the old corpus.json beside them, with a warning; the next run prepares it again.

    Was: the old corpus.json was put back into the new folder, a mix that failed to load (checksum mismatch)."""
    workdir = tmp_path / "wf"
    shutil.copytree(killed_then_resumed[0], workdir, symlinks=True)
    meta = workdir / "data" / "corpora" / "tiny" / "corpus.json"
    old_ino = meta.stat().st_ino
    target = str(meta.relative_to(workdir))
    failed = snakemake(workdir, "--cores", "1", "--forcerun", "prepare_corpus", "--", target,
                       TOPICBENCH_FAULT_AT="kill:prepare.done")
    assert failed.returncode != 0 and "replaced its folder and did not complete" in failed.stderr, failed.stderr[-3000:]
    assert not meta.exists() and meta.parent.is_dir()  # the new folder, its corpus.json removed: no old one put in it
    assert not (workdir / "data" / previous.AREA).exists()
    fixed = snakemake(workdir, "--cores", "1", target)
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert meta.stat().st_ino != old_ino and load_corpus(meta.parent).n_docs > 0


@pytest.fixture(scope="module")
def failed_reruns(killed_then_resumed):
    """The module's workflow after a change only Snakemake's records see (corpus.json reformatted: the same corpus, so
    no record of topicbench's finds it stale), rerun three times: Snakemake SIGKILLed while the fit reruns, then a
    rerun whose fit is SIGKILLed (a fault), then one with the fault gone. Leaves the module's results current."""
    workdir, *_ = killed_then_resumed
    results = workdir / RESULTS
    left_by_success = sorted(p.name for p in results.iterdir() if p.name == previous.AREA)
    (run_dir,) = (results / "runs").rglob("seed~0")
    old = run_files(run_dir)
    corpus = workdir / "data" / "corpora" / "tiny" / "corpus.json"
    corpus.write_text(json.dumps(json.loads(corpus.read_text()), indent=1))
    proc = snakemake(workdir, "--cores", "1", TARGET, popen=True)
    (log,) = (results / "logs" / "runs").rglob("*.log")
    deadline = time.time() + 400
    while not (fits_running(workdir) and log.exists() and "docs (" in log.read_text()):  # a new log: mid-fit
        assert proc.poll() is None and time.time() < deadline, proc.stdout.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while fits_running(workdir) and time.time() < deadline:
        time.sleep(0.1)
    for pid in fits_running(workdir):  # an orphan is test_killed_snakemake_leaves_no_orphaned_fit's case
        os.kill(pid, signal.SIGKILL)
    after_kill = (sorted(run_files(run_dir)), len(previous.pending(results)))
    assert snakemake(workdir, "--unlock").returncode == 0  # the next Snakemake, before its DAG: the old run back
    after_unlock = run_files(run_dir)
    failed = snakemake(workdir, "--cores", "1", TARGET, TOPICBENCH_FAULT_AT="kill:run.trace")
    after_fail = (run_files(run_dir), previous.pending(results))
    fixed = snakemake(workdir, "--cores", "1", TARGET)
    after_fix = {name: ino for name, (_, ino) in run_files(run_dir).items()}
    return SimpleNamespace(old=old, left_by_success=left_by_success, after_kill=after_kill, after_unlock=after_unlock,
                           failed=failed, after_fail=after_fail, fixed=fixed, after_fix=after_fix,
                           area_after_fix=(results / previous.AREA).exists())


def test_killed_rerun_leaves_no_mix_and_keeps_the_old_run(failed_reruns):
    """Snakemake SIGKILLed while a fit reruns -> the run folder holds no run or a whole new one, the old run is kept
    aside, and the next workflow puts it back before its DAG (then reruns it)."""
    files, kept = failed_reruns.after_kill
    assert files in ([], sorted(failed_reruns.old)) and kept == 2  # the fit's and the aggregate's
    assert failed_reruns.after_unlock == failed_reruns.old


def test_failed_rerun_keeps_the_old_run(failed_reruns):
    """A fit that fails on rerun (its process SIGKILLed) -> its old trace, model and topics back, the very files,
    with a message saying so; the run with the fault fixed reruns it (Snakemake alone would take the restored run
    for current: it recorded the failed job as finished) and leaves nothing kept aside."""
    failed, fixed = failed_reruns.failed, failed_reruns.fixed
    assert failed.returncode != 0 and "its previous result was put back" in failed.stderr, failed.stderr[-3000:]
    assert failed_reruns.after_fail == (failed_reruns.old, [])  # the very files back, nothing left kept aside
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert sorted(failed_reruns.after_fix) == sorted(failed_reruns.old)
    assert all(ino != failed_reruns.old[name][1] for name, ino in failed_reruns.after_fix.items()), (  # new files
        fixed.stderr[-3000:])
    assert "put back after its rerun failed" in fixed.stderr  # the reason it reran
    assert failed_reruns.left_by_success == [] and not failed_reruns.area_after_fix


def test_failed_rerun_of_the_benchmarks_table_keeps_the_old_one(killed_then_resumed, tmp_path):
    """A benchmarks rerun that fails (a record that is not Snakemake's) -> the old table and picture put back.

    The very files, with a message; the job names the record (was: Snakemake deleted both outputs before the job ran and
    only fits and aggregate were kept, so nothing was left; and a record without rows made its job's row vanish).
    Figure and paper jobs are kept the same way (common.smk keeps_previous)."""
    import runpy

    workdir = tmp_path / "wf"
    shutil.copytree(killed_then_resumed[0], workdir, symlinks=True)  # the module's results stay as they are
    results = workdir / RESULTS
    table, picture = results / "tables" / "benchmarks.csv", results / "figures" / "benchmarks.png"
    records = sorted(map(str, (results / "benchmarks").rglob("*.tsv")))
    smk = SimpleNamespace(scriptdir=str(REPO / "workflow" / "scripts"), output=SimpleNamespace(
        table=str(table), figure=str(picture)), input=SimpleNamespace(records=records, corpora=[
            str(workdir / "data" / "corpora" / "tiny" / "corpus.json")], traces=list(map(str, results.rglob("trace.parquet")))))
    runpy.run_path(str(REPO / "workflow" / "scripts" / "benchmarks_table.py"), init_globals={"snakemake": smk})
    old = {path: (path.read_bytes(), path.stat().st_ino) for path in (table, picture)}  # the table as its job wrote it
    record = results / "benchmarks" / "prepare" / "tiny.tsv"
    record.write_text("edited by hand\n")  # newer than the table: the job reruns
    failed = snakemake(workdir, "--cores", "1", str(table.relative_to(workdir)))
    assert failed.returncode != 0 and "its previous result was put back" in failed.stderr, failed.stderr[-3000:]
    assert f"{record.relative_to(workdir)}: not a Snakemake benchmark record" in failed.stdout + failed.stderr
    assert {path: (path.read_bytes(), path.stat().st_ino) for path in (table, picture)} == old


@pytest.fixture(scope="module")
def spelled_plan(killed_then_resumed):
    """Snakemake's plan of the whole workflow (the default target: figures and paper too) from the module's working
    directory, which is not the repository, with the module's folders spelled otherwise (results_dir './res/',
    data_dir './data/'), a run setting edited and .snakemake gone (so only the outputs' own records find what is stale).
    """
    workdir, *_ = killed_then_resumed
    with faulted(workdir, "setting-edited") as config, without_snakemake_records(workdir):
        (workdir / "spelled.yaml").write_text(yaml.safe_dump({**config, "results_dir": f"./{RESULTS}/",
                                                              "data_dir": "./data/"}))
        return snakemake(workdir, "--cores", "1", "-n", config=workdir / "spelled.yaml")


def test_workflow_runs_outside_the_repository(spelled_plan):
    """`snakemake -s <repo>/Snakefile` from another working directory -> the whole DAG builds, figures and paper too.

    (Was: 'Missing input files for rule figure_findings: workflow/figures/findings.py', the repository's files read
    relative to the working directory.)"""
    plan = spelled_plan.stdout + spelled_plan.stderr
    assert spelled_plan.returncode == 0, plan[-3000:]
    for rule in ("rule figure_findings:", "rule paper:", "rule benchmarks:"):
        assert rule in plan, plan[-3000:]


def test_figure_job_lists_the_helpers_its_file_imports(spelled_plan):
    """A figure helper file edited (workflow/figures/_claims.py, which findings.py imports) -> the figure is redrawn:
    its job lists the helper among its inputs, as it lists the figure file and figlib.py.

    (Was: only the figure's own file; an edited helper left the old figure standing as current.)"""
    lines = spelled_plan.stdout.splitlines()
    start = lines.index("rule figure_findings:")
    (inputs,) = [line for line in lines[start:start + 3] if line.strip().startswith("input:")]
    listed = {Path(p.strip()) for p in inputs.split(":", 1)[1].split(",")}
    figures = REPO / "workflow" / "figures"
    assert {figures / "findings.py", figures / "_claims.py", REPO / "workflow" / "scripts" / "figlib.py"} <= listed, \
        inputs


@pytest.mark.parametrize("change, culprit", [
    pytest.param({"thread_per_run": 2}, "thread_per_run", id="workflow-top-level-typo"),
    pytest.param({"experiments": {"x$(touch INJECTED)y": TINY_CONFIG["experiments"]["exp"]}}, "x$(touch INJECTED)y",
                 id="workflow-experiment-injection"),
    pytest.param({"datasets": {"tiny": {"recipe": "nyt_like", "params": {**TINY, "n_trian": 5}}}}, "n_trian",
                 id="workflow-unknown-dataset-param"),
    pytest.param({"experiments": {"exp": {**TINY_CONFIG["experiments"]["exp"], "seeds": [-1]}}}, "-1",
                 id="workflow-negative-seed"),
])
def test_bad_config_fails_at_dag_build(tmp_path, change, culprit):
    """A bad config -> Snakemake exits non-zero at DAG build naming the culprit; no job ran, no command ran."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({**TINY_CONFIG, **change}))
    result = snakemake(tmp_path, "--cores", "1", TARGET)
    assert result.returncode != 0 and culprit in result.stderr + result.stdout, result.stderr[-2000:]
    assert not (tmp_path / "data").exists() and not list(tmp_path.rglob("INJECTED"))



def test_workflow_marks_its_folders(killed_then_resumed):
    """A workflow that ran -> results_dir and data_dir carry topicbench's mark, so a rerun may replace their files."""
    workdir, *_ = killed_then_resumed
    assert (workdir / RESULTS / FOLDER_MARK).exists() and (workdir / "data" / FOLDER_MARK).exists()


def test_user_results_folder_fails_at_dag_build(tmp_path):
    """results_dir a user's folder holding all_traces.parquet -> Snakemake exits at DAG build naming it, file untouched.

    The workflow writes that name, and Snakemake deletes a job's old outputs before it runs the job."""
    mine = tmp_path / RESULTS
    mine.mkdir()
    (mine / "all_traces.parquet").write_text("my own table")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(TINY_CONFIG))
    result = snakemake(tmp_path, "--cores", "1", TARGET)
    assert result.returncode != 0 and "already holds all_traces.parquet" in result.stderr + result.stdout, \
        result.stderr[-2000:]
    assert (mine / "all_traces.parquet").read_text() == "my own table" and not (tmp_path / "data").exists()


USER_CORPUS = "data/corpora/tiny/corpus.json"
PLANTED_CORPUS = "data/corpora/planted/corpus.json"


@pytest.fixture(scope="module")
def user_corpus(tmp_path_factory):
    """A user_text corpus prepared by the workflow from corpora_dir 'corpora' (relative): the working directory; and
    beside it a planted corpus (nyt_like), which reads nothing from corpora_dir."""
    workdir = tmp_path_factory.mktemp("user_corpus")
    (workdir / "corpora").mkdir()
    (workdir / "corpora" / "d.jsonl").write_text("".join(f'{{"text": "apple banana cherry w{i % 3} w{i % 4}"}}\n'
                                                         for i in range(40)))
    config = {**TINY_CONFIG, "corpora_dir": "corpora",
              "datasets": {"tiny": {"recipe": "user_text", "params": {"path": "d.jsonl", "max_df": 1.0}},
                           "planted": {"recipe": "nyt_like", "params": {**TINY, "n_train": 30, "n_test": 6}}}}
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    done = snakemake(workdir, "--cores", "1", USER_CORPUS, PLANTED_CORPUS)
    assert done.returncode == 0 and (workdir / USER_CORPUS).exists(), done.stderr[-2000:]
    return workdir, config


def test_changed_user_corpus_file_reprepares(user_corpus):
    """A user's corpus file (user_text path) edited after its prepare -> Snakemake plans the prepare again (the file
    is the rule's input), never fits on the stale corpus."""
    workdir, _ = user_corpus
    assert "Nothing to be done" in snakemake(workdir, "--cores", "1", "-n", USER_CORPUS).stdout
    source = workdir / "corpora" / "d.jsonl"
    text, stat = source.read_bytes(), source.stat()
    time.sleep(1.1)  # a later modification time than the corpus.json (file systems with 1 s resolution)
    try:
        with open(source, "a") as handle:
            handle.write('{"text": "durian elder fig"}\n')
        plan = snakemake(workdir, "--cores", "1", "-n", USER_CORPUS)
        assert plan.returncode == 0 and "prepare_corpus" in plan.stdout and "d.jsonl" in plan.stdout, plan.stdout[-2000:]
    finally:  # the prepared corpus current again, for the module's other cases
        source.write_bytes(text)
        os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_corpora_dir_spelt_another_way_from_another_folder_reruns_nothing(user_corpus, tmp_path):
    """The same config with corpora_dir spelt another way, run from another folder (-d, --configfile) -> nothing reruns.

    corpora_dir 'corpora' first, then absolute through a symbolic link with a trailing slash, from a folder beside the
    working directory. Was: the prepare rule's --corpora-dir param and input paths held the spelling, so Snakemake
    prepared every corpus again, and fitted every run on it."""
    workdir, config = user_corpus
    (tmp_path / "linked").symlink_to(workdir / "corpora")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({**config, "corpora_dir": f"{tmp_path}/linked/"}))
    plan = snakemake(tmp_path, "-d", workdir, "--cores", "1", "-n", USER_CORPUS)
    assert plan.returncode == 0 and "Nothing to be done" in plan.stdout + plan.stderr, (plan.stdout + plan.stderr)[-2000:]


def test_planted_corpus_does_not_depend_on_corpora_dir(user_corpus, tmp_path):
    """corpora_dir moved to another folder -> the planted corpus (nyt_like, which reads nothing there) is not prepared again.

    Its prepare job gets no --corpora-dir and no input under it; the user_text corpus, which reads there, still
    follows corpora_dir (its copy under the new folder is planned to be prepared). Was: every planted prepare took
    --corpora-dir, so moving corpora_dir prepared them all again, and fitted every run on them."""
    workdir, config = user_corpus
    shutil.copytree(workdir / "corpora", tmp_path / "moved")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({**config, "corpora_dir": str(tmp_path / "moved")}))
    plan = snakemake(tmp_path, "-d", workdir, "--cores", "1", "-n", PLANTED_CORPUS, USER_CORPUS)
    shown = plan.stdout + plan.stderr
    assert plan.returncode == 0 and "dataset=tiny" in shown and "dataset=planted" not in shown, shown[-3000:]


@pytest.mark.parametrize("profile, config", [pytest.param([], "workflow/config/default.yaml", id="default-config"),
                                             pytest.param(["--workflow-profile", "ci"], "workflow/config/ci.yaml",
                                                          id="ci-profile-config")])
def test_config_found_from_another_working_directory(tmp_path, profile, config):
    """snakemake -s <repo>/Snakefile -d <another folder> [--workflow-profile ci] -> its config read from the repository.

    Was: the default config and the ci profile's configfile looked for in the working directory ('Workflow defines
    configfile workflow/config/default.yaml but it is not present'; a traceback, 'No such file: workflow/config/ci.yaml')."""
    plan = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
                           *profile, "-n", "data/ci/corpora/nyt_like_ci/corpus.json" if profile else
                           "data/corpora/nyt_like/corpus.json"], cwd=tmp_path, env=env(), capture_output=True,
                          text=True, timeout=300)
    out = plan.stdout + plan.stderr
    assert plan.returncode == 0 and re.search(rf"Config file\(s\): \[.*{config}'\)?\]", out), out[-2000:]


# -- stale outputs: every output records what it was made from, and the workflow reruns it when that disagrees with
# the config, whatever Snakemake's own records in .snakemake/metadata say (gone, or overruled by --touch)

@contextmanager
def without_snakemake_records(workdir):
    """Snakemake's records of past jobs (.snakemake/metadata) gone, as after `rm -rf .snakemake` or in a fresh
    checkout with copied results; put back afterwards, so the module's workflow stays as it was."""
    records, aside = workdir / ".snakemake" / "metadata", workdir / "metadata.aside"
    records.rename(aside)
    try:
        yield
    finally:
        shutil.rmtree(records, ignore_errors=True)
        aside.rename(records)


def stale_state(workdir, config: dict) -> dict[str, str]:
    """What the workflow would force for ``config`` over the module's results: {path relative to workdir: why}."""
    runs = expand_all({**config, "results_dir": str(workdir / RESULTS)})
    found = {**stale_corpora(workdir / "data", config["datasets"], {e["dataset"] for e in runs.values()}),
             **stale_outputs(workdir / RESULTS, runs)}
    return {str(Path(path).relative_to(workdir)): why for path, why in found.items()}


@contextmanager
def faulted(workdir, fault):
    """The module's workflow with one hand-made fault, undone afterwards; yields the config to plan with."""
    table, (trace,) = workdir / TARGET, list((workdir / RESULTS / "runs").rglob("trace.parquet"))
    shard = next((workdir / "data" / "corpora" / "tiny" / "counts").glob("*.data.npy"), None)  # None: moved aside
    saved = table.read_bytes()
    run_dir, aside = trace.parent, trace.parent.parent / "run.aside"
    experiment, config = TINY_CONFIG["experiments"]["exp"], dict(TINY_CONFIG)
    if fault == "setting-edited":
        run = {**experiment["runs"][0], "settings": {**experiment["runs"][0]["settings"], "n_checkpoints": 3}}
        config["experiments"] = {"exp": {**experiment, "runs": [run]}}
    elif fault == "threads-changed":
        config["threads_per_run"] = 2
    elif fault == "dataset-param-edited":
        config["datasets"] = {"tiny": {"recipe": "nyt_like", "params": {**TINY, "n_train": 100}}}
    elif fault == "recipe-changed":  # another recipe whose parameters resolve to the very same values
        config["datasets"] = {"tiny": {"recipe": "science_like", "params": {**TINY, "chunk_size": 5000,
                                                                             "temperature": 0.8}}}
    elif fault == "shard-deleted":
        shard.rename(shard.with_name("aside"))
    elif fault == "trace-deleted":  # the rest of the run folder kept: a by-hand way to ask for the run again
        shutil.copytree(run_dir, aside)
        trace.unlink()
    elif fault == "run-folder-deleted":
        run_dir.rename(aside)
    elif fault in ("seed-removed", "older-table-copy"):  # a table holding a run no longer configured; a plain copy
        frame = pd.read_parquet(table)
        record = {str(trace.relative_to(table.parent)): hashlib.sha256(trace.read_bytes()).hexdigest(),
                  "runs/exp/tiny/online_lda/label~slow/K~3/batch_size~20/seed~1/trace.parquet": "0" * 64}
        io.write_parquet(table, pd.concat([frame, frame.assign(seed=1)]),
                         {AGGREGATE_INPUTS: json.dumps(record)} if fault == "seed-removed" else None)
    try:
        yield config
    finally:
        table.write_bytes(saved)
        if shard is not None and shard.with_name("aside").exists():
            shard.with_name("aside").rename(shard)
        if aside.exists():
            shutil.rmtree(run_dir, ignore_errors=True)
            aside.rename(run_dir)


@pytest.mark.parametrize("fault, stale, why", [
    pytest.param("setting-edited", "model.npz", "recorded spec differs", id="workflow-stale-fit-setting-edited"),
    pytest.param("seed-removed", "all_traces.parquet", "not aggregated from exactly", id="workflow-stale-seed-removed"),
    pytest.param("older-table-copy", "all_traces.parquet", "not aggregated from exactly",
                 id="workflow-stale-older-table-copy"),
    pytest.param("dataset-param-edited", "corpus.json", "recorded dataset parameters differ",
                 id="workflow-stale-dataset-param-edited"),
    pytest.param("shard-deleted", "corpus.json", ".data.npy missing", id="workflow-stale-shard-deleted"),
    pytest.param("recipe-changed", "corpus.json", "recorded recipe 'nyt_like' differs", id="workflow-stale-recipe-changed"),
    pytest.param("threads-changed", None, None, id="workflow-threads-changed-not-stale"),
    pytest.param("trace-deleted", ["trace.parquet", "all_traces.parquet"], "missing", id="workflow-stale-trace-deleted"),
    pytest.param("run-folder-deleted", "all_traces.parquet", "missing", id="workflow-stale-run-folder-deleted"),
])
def test_stale_output_is_found_by_its_record(killed_then_resumed, fault, stale, why):
    """An output no longer matching the config (settings, seeds, dataset, by-hand copies) -> found by its record.

    Found from the output's own record and forced at DAG build, whatever .snakemake holds; threads alone: none.
    (Was, for another recipe with the same resolved parameters: the old corpus kept, its recipe unrecorded.)"""
    workdir, *_ = killed_then_resumed
    assert stale_state(workdir, TINY_CONFIG) == {}
    with faulted(workdir, fault) as config:
        found = stale_state(workdir, config)
    assert [Path(p).name for p in found] == (stale if isinstance(stale, list) else [stale] if stale else []), found
    assert all(why in reason for reason in found.values()), found


def test_stale_outputs_rerun_without_snakemake_records(killed_then_resumed):
    """Setting edited, seed's run left in all_traces, shard deleted, .snakemake gone -> prepare, fit, aggregate rerun.

    Snakemake plans them again (forced, each named on stderr), never reuses them. A trace deleted by hand is forced too
    (was: 'Nothing to be done' for it alone: Snakemake rebuilds no missing intermediate under an up-to-date target)."""
    workdir, *_ = killed_then_resumed
    with faulted(workdir, "setting-edited") as config, faulted(workdir, "seed-removed"), \
            faulted(workdir, "shard-deleted"), faulted(workdir, "trace-deleted"), without_snakemake_records(workdir):
        (workdir / "edited.yaml").write_text(yaml.safe_dump(config))
        plan = snakemake(workdir, "--cores", "1", "-n", TARGET, config=workdir / "edited.yaml")
    for rule in ("prepare_corpus", "fit", "aggregate"):
        assert plan.returncode == 0 and f"rule {rule}:" in plan.stdout, plan.stdout + plan.stderr[-2000:]
    for why in ("recorded spec differs", "not aggregated from exactly", ".data.npy missing",
                "trace.parquet is stale (it is missing from its run folder"):
        assert why in plan.stderr, plan.stderr[-2000:]
    assert stale_state(workdir, TINY_CONFIG) == {}


def test_folders_spelled_otherwise_still_force_stale_outputs(spelled_plan):
    """results_dir './res/', data_dir './data/', a setting edited, .snakemake gone -> stale fit and aggregate planned.

    The same folders, spelled otherwise. (Was: 'No rule to produce res/.../model.npz': the jobs' outputs read './res//runs/...', the forced paths
    'res/runs/...', and Snakemake matches files as strings.)"""
    assert spelled_plan.returncode == 0 and "recorded spec differs" in spelled_plan.stderr, \
        (spelled_plan.stdout + spelled_plan.stderr)[-3000:]
    assert "rule fit:" in spelled_plan.stdout and "rule aggregate:" in spelled_plan.stdout, spelled_plan.stdout[-3000:]


def test_results_dir_dot_still_forces_stale_outputs(killed_then_resumed):
    """results_dir '.' (Snakemake started inside it), a setting edited -> the stale fit and the aggregate are
    planned again. (Was: 'No rule to produce runs/.../model.npz': the jobs' outputs read './runs/...'.)"""
    workdir, *_ = killed_then_resumed
    inside = workdir / RESULTS
    with faulted(workdir, "setting-edited") as config:
        (workdir / "dot.yaml").write_text(yaml.safe_dump({**config, "results_dir": ".", "data_dir": "../data"}))
        try:
            plan = snakemake(inside, "--cores", "1", "-n", config=workdir / "dot.yaml")
        finally:
            shutil.rmtree(inside / ".snakemake", ignore_errors=True)
    assert plan.returncode == 0 and "recorded spec differs" in plan.stderr, (plan.stdout + plan.stderr)[-3000:]
    assert "rule fit:" in plan.stdout and "rule aggregate:" in plan.stdout, plan.stdout[-3000:]


def test_touch_cannot_mark_stale_fit_fresh(killed_then_resumed):
    """`snakemake --touch` after a config edit (passes) -> the next run still reruns the fit and the aggregate.

    Their outputs then record the new spec; no staging folder is left behind."""
    workdir, *_ = killed_then_resumed
    config = {**TINY_CONFIG, "experiments": {"exp": {**TINY_CONFIG["experiments"]["exp"], "runs": [
        {**TINY_CONFIG["experiments"]["exp"]["runs"][0], "settings": {"passes": 300, "n_checkpoints": 2}}]}}}
    (workdir / "touched.yaml").write_text(yaml.safe_dump(config))
    touched = snakemake(workdir, "--cores", "1", "--touch", TARGET, config=workdir / "touched.yaml")
    assert touched.returncode == 0, touched.stderr[-2000:]
    rerun = snakemake(workdir, "--cores", "1", TARGET, config=workdir / "touched.yaml")
    assert rerun.returncode == 0 and "recorded spec differs" in rerun.stderr, rerun.stderr[-3000:]
    (model,) = (workdir / RESULTS / "runs").rglob("model.npz")
    with np.load(model) as archive:
        assert json.loads(str(archive["_spec_json"]))["passes"] == 300
    assert stale_state(workdir, config) == {}
    assert hidden_leftovers(workdir / RESULTS / "runs") == []


def test_paper_refuses_figure_of_another_aggregate(tmp_path):
    """A figure part drawn from another all_traces.parquet than the paper's -> the paper exits naming that part.

    E.g. --allowed-rules paper after a new aggregate, --touch, a figure put back by hand; no paper file is written."""
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import build_paper
    import figlib

    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": ["exp"], "perplexity": [1.0]}).to_parquet(traces)
    digest = hashlib.sha256(traces.read_bytes()).hexdigest()
    parts = []
    (tmp_path / "table.csv").write_text("a,b\n1,2\n")
    for name, drawn_from in (("current", digest), ("older", "0" * 64), ("unrecorded", None)):
        shutil.copy(tmp_path / "table.csv", tmp_path / f"{name}.csv")  # a table part's csv, recorded in its part
        figlib.write_caption(str(tmp_path / f"{name}.md"), name, "A caption.", "Body.", drawn_from=drawn_from,
                             table=hashlib.sha256(b"a,b\n1,2\n").hexdigest())
        parts.append({"paper": "hoffman", "title": name, "md": str(tmp_path / f"{name}.md"), "png": None})
    out = {"md": tmp_path / "paper" / "topicbench.md", "typ": tmp_path / "paper" / "topicbench.typ",
           "pdf": tmp_path / "paper" / "topicbench.pdf"}
    for bad in parts[1:]:
        smk = SimpleNamespace(input=SimpleNamespace(traces=str(traces), template=str(REPO / "paper" / "topicbench.md"),
                                                    benchmarks=[]),
                              output=SimpleNamespace(**{k: str(v) for k, v in out.items()}),
                              params=SimpleNamespace(parts=[parts[0], bad], papers=figlib.PAPERS))
        with pytest.raises(SystemExit, match=f"{bad['md']} was drawn from an"):
            build_paper.main(smk)
    assert not (tmp_path / "paper").exists()
    assert [b for b in build_paper.parse_markdown((tmp_path / "current.md").read_text()) if "sha256" in str(b)] == []


@pytest.mark.parametrize("kind, replaced", [pytest.param("figure", True, id="figure-png-replaced-by-hand"),
                                            pytest.param("table", True, id="table-csv-replaced-by-hand"),
                                            pytest.param("figure", False, id="figure-png-as-drawn"),
                                            pytest.param("table", False, id="table-csv-as-written")])
def test_paper_refuses_a_part_file_replaced_by_hand(tmp_path, kind, replaced):
    """A figure's png or a table's csv replaced after its part was drawn -> the paper exits naming it; as drawn: accepted.

    By hand, or copied from another build; no paper file written (was: set in the paper under the drawn part's caption;
    findings.csv gives the paper's verdict counts)."""
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import build_paper
    import figlib

    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": ["exp"], "perplexity": [1.0]}).to_parquet(traces)
    figure = figlib.Figure(paper="hoffman", title="T", experiments=("exp",), kind=kind)
    outputs = {role: str(tmp_path / path) for role, path in figure.outputs("fig").items()}
    for path in outputs.values():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    ctx = figlib.Context("fig", figure, ["exp"], str(traces), {}, {}, outputs)
    data = outputs["png" if kind == "figure" else "csv"]
    for word in ("other", "drawn"):  # the first stands for a picture or table of another build
        if kind == "figure":
            fig, ax = figlib.plt.subplots(figsize=(1, 1))
            ax.set_title(word)
            ctx.save(fig)
        ctx.write("A caption.", table=pd.DataFrame({"verdict": [word]}) if kind == "table" else None)
        if word == "other":
            shutil.copy(data, tmp_path / "other")
    if replaced:
        shutil.copy(tmp_path / "other", data)
    out = {"md": tmp_path / "paper" / "topicbench.md", "typ": tmp_path / "paper" / "topicbench.typ",
           "pdf": tmp_path / "paper" / "topicbench.pdf"}
    part = {"paper": "hoffman", "title": "T", "md": outputs["md"], "png": outputs.get("png")}
    if replaced:
        smk = SimpleNamespace(input=SimpleNamespace(traces=str(traces), template=str(REPO / "paper" / "topicbench.md"),
                                                    benchmarks=[]),
                              output=SimpleNamespace(**{k: str(v) for k, v in out.items()}),
                              params=SimpleNamespace(parts=[part], papers=figlib.PAPERS))
        with pytest.raises(SystemExit, match=f"{data} is not the {'picture' if kind == 'figure' else 'table'} written "
                                             f"with"):
            build_paper.main(smk)
        assert not (tmp_path / "paper").exists()
    else:
        build_paper.check_parts([part], str(traces), hashlib.sha256(traces.read_bytes()).hexdigest())


def test_folders_starting_with_a_dash_reach_the_commands_as_values(tmp_path, monkeypatch):
    """results_dir -res and data_dir -data -> every shell command the workflow plans reads them as values and
    runs to the end (was: `--out -data/corpora/tiny`, which the command reads as an unknown option)."""
    import shlex

    from topicbench.cli import main as cli

    config = {**TINY_CONFIG, "results_dir": "-res", "data_dir": "-data",
              "experiments": {"exp": {"dataset": "tiny", "seeds": [0], "runs": [
                  {"label": "x", "method": "online_lda", "grid": {"K": [3], "batch_size": [20]},
                   "settings": {"n_checkpoints": 2}}]}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    plan = snakemake(tmp_path, "--dry-run", "--printshellcmds", "--", "-res/all_traces.parquet")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    commands = [line.split("Shell command: ", 1)[1] for line in plan.stdout.splitlines() if "Shell command: " in line]
    assert [shlex.split(c)[1 if c.startswith("exec ") else 0:][:2] for c in commands] == [
        ["topicbench", "prepare"], ["topicbench", "run"], ["topicbench", "aggregate"]], commands
    monkeypatch.chdir(tmp_path)
    for command in commands:  # as the shell would run them, minus exec, the log redirection and the parent watch
        words = shlex.split(command.split(" > ", 1)[0])
        argv = [w for w in words if w not in ("exec", "--exit-with-parent")][1:]
        assert cli(argv) == 0, command
    assert len(pd.read_parquet(tmp_path / "-res" / "all_traces.parquet")) == 2


@pytest.mark.parametrize("command", ["run", "prepare"])
def test_job_whose_snakemake_dies_while_it_starts_stops(killed_then_resumed, tmp_path, command):
    """Snakemake SIGKILLed while a fit's or prepare's Python is still starting -> the job stops without writing.

    Was: the fit read init as its parent (it reads its parent's pid only once started) and the prepare, under a
    shell that outlives Snakemake, never watched it; both wrote their result after the workflow was gone."""
    if command == "run":  # the prepared corpus: only the fit runs
        shutil.copytree(killed_then_resumed[0] / "data", tmp_path / "data")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(TINY_CONFIG))
    hold = tmp_path / "hold"  # holds the job's start-up (not Snakemake's) until Snakemake is gone
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(
        "import os, time\nargs = open('/proc/self/cmdline', 'rb').read().split(b'\\0')\n"
        f"if len(args) > 2 and args[1].endswith(b'topicbench') and args[2] == b'{command}':\n"
        "    parent, deadline = os.getppid(), time.time() + 30\n"
        "    while os.path.exists(f'/proc/{os.environ[\"TOPICBENCH_WORKFLOW_PID\"]}/cmdline') and time.time() < deadline:\n"
        "        time.sleep(0.05)\n")

    def jobs() -> list[int]:
        pids = []
        for proc in Path("/proc").iterdir():
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if (len(args) > 2 and args[1].endswith(b"topicbench") and args[2] == command.encode() and state != "Z"
                        and os.readlink(proc / "cwd") == str(tmp_path)):
                    pids.append(int(proc.name))
            except (OSError, ValueError):
                continue
        return pids

    proc = snakemake(tmp_path, "--cores", "1", TARGET, popen=True, PYTHONPATH=f"{hold}{os.pathsep}{REPO}")
    deadline = time.time() + 120
    while not jobs():
        assert proc.poll() is None and time.time() < deadline, proc.stdout.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 30
    while jobs():
        if time.time() > deadline:
            for pid in jobs():
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the orphaned {command} kept running")
        time.sleep(0.1)
    (log,) = (tmp_path / RESULTS / "logs").rglob("*.log")
    assert "exited; stopping" in log.read_text(), log.read_text()
    if command == "run":
        assert not list((tmp_path / RESULTS / "runs").rglob("*.parquet")), log.read_text()
    else:
        assert not (tmp_path / "data" / "corpora" / "tiny" / "corpus.json").exists(), log.read_text()


@pytest.mark.parametrize("rule, part, why", [
    pytest.param("figure_findings", "tables/findings.md", "drawn by other code than figure file findings.py",
                 id="figure-drawn-by-other-code"),
    pytest.param("paper", "paper/topicbench.md", "built by other code than workflow/scripts/build_paper.py",
                 id="paper-built-by-other-code"),
    pytest.param("benchmarks", "tables/benchmarks.csv", "drawn by other code than workflow/scripts/benchmarks_table.py",
                 id="benchmarks-drawn-by-other-code")])
def test_output_of_other_drawing_code_reruns_at_dag_build(tmp_path, rule, part, why):
    """A figure part, the paper or the benchmarks table recording other code than its files hold now -> stale, its job
    forced at DAG build.

    Copied in from another checkout, or marked current by --touch after an edit: Snakemake sees only mtimes."""
    from topicbench.traces import BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE, BUILT_BY, DRAWN_BY, DRAWN_FROM

    (tmp_path / "config.yaml").write_text(yaml.safe_dump(TINY_CONFIG))
    (tmp_path / RESULTS).mkdir()
    (tmp_path / RESULTS / FOLDER_MARK).touch()
    md = tmp_path / RESULTS / part
    md.parent.mkdir()
    md.write_text({"paper": f"# Paper\n\n{BUILT_BY}{'0' * 64} -->\n",
                   "benchmarks": f"stage,s,{BENCHMARKS_DRAWN_BY},{BENCHMARKS_PICTURE}\nfit,1.5,{'0' * 64},{'1' * 64}\n"}.get(
        rule, f"### Findings\n\nA caption.\n\n{DRAWN_BY}{'0' * 64} -->\n\n{DRAWN_FROM}{'1' * 64} -->\n"))
    plan = snakemake(tmp_path, "--cores", "1", "-n")
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert f"{md.relative_to(tmp_path)} is stale (it was {why}" in plan.stderr, plan.stderr[-3000:]
    lines = plan.stdout.splitlines()
    job = lines[lines.index(f"rule {rule}:"):]
    reason = next(line for line in job if line.strip().startswith("reason:"))
    assert "Forced execution" in reason, reason
