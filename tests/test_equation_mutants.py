"""The equation-mutant check (issue #10): every mutant in ``tests/mutants/*.py`` must be killed by its tests.

For each mutant (format: ``tests/mutants/__init__.py``): check up front that ``find`` occurs exactly once in
``path`` and that the mutated file compiles; write the mutated file into a scratch copy of the repository
(never the working tree); run the mutant's pytest node ids there in a subprocess with PYTHONPATH = the copy.
A kill is pytest's exit code 1 with at least one failed test whose error is not an import, name or syntax
error. Exit codes 0 and 2-5 (interrupted, e.g. a collection error; internal error; usage error; nothing
collected) and timeouts are not kills. Two control mutants prove the runner can say "not killed": a harmless
comment edit must survive, and an import error must not count as a kill.

Speed (the check runs in CI; budget 5 minutes on 2 cores). Mutants run on ``WORKERS`` scratch copies in
parallel, one subprocess per copy. The copies are made with ``shutil.copy2`` (sources keep their mtimes)
together with numba's cache files from ``__pycache__``; numba's cache index is keyed by the source file's
mtime and size, so a mutant of an ordinary module loads the already compiled kernels. After each mutant the
original file is written back with its original mtime. A mutant of a file with cached numba kernels
(``cache=True``) changes that file's stamp, so its kernels are compiled afresh (20-50 s), with
NUMBA_CACHE_DIR set to a throw-away directory so the mutated code never enters, or evicts, the copy's warm
cache. Bytecode caching is off in the subprocesses (PYTHONDONTWRITEBYTECODE): two mutants of one file of the
same size written within one second would otherwise share a stale .pyc. The subprocesses get
cores / WORKERS numba threads each.

Environment: TOPICBENCH_MUTANT_WORKERS (default min(2, cores)), TOPICBENCH_MUTANT_TIMEOUT (seconds per
mutant, default 240), TOPICBENCH_MUTANT_REPORT (a file for the summary), TOPICBENCH_MUTANT_EXHAUSTIVE=1 (run all of a mutant's tests instead of stopping at the
first failure, to see every test that kills it; slower). The summary printed at the end lists each mutant,
killed or not, the test(s) that killed it, and its wall and CPU time.
"""
from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from queue import Queue

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # ``tests.mutants`` is imported from the repository root
    sys.path.insert(0, str(REPO))

from tests.mutants import Mutant  # noqa: E402

COPIED = ("topicbench", "methods", "datasets", "tests", "workflow", "pyproject.toml")  # what the tests read
WORKERS = max(1, int(os.environ.get("TOPICBENCH_MUTANT_WORKERS", min(2, os.cpu_count() or 1))))
TIMEOUT = float(os.environ.get("TOPICBENCH_MUTANT_TIMEOUT", 240))
EXHAUSTIVE = os.environ.get("TOPICBENCH_MUTANT_EXHAUSTIVE", "") == "1"  # run every listed test, not stop at the first failure
CRASHES = ("ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError", "NameError")
SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+)(?: - (.*))?$")


def load_mutants(root: Path = REPO) -> list[Mutant]:
    """Every ``MUTANTS`` entry of ``tests/mutants/*.py`` (families absent on this branch simply add none)."""
    mutants = []
    for file in sorted((root / "tests" / "mutants").glob("*.py")):
        if file.name != "__init__.py":
            mutants.extend(importlib.import_module(f"tests.mutants.{file.stem}").MUTANTS)
    return mutants


# The controls: the runner must report both as NOT killed, or its kills mean nothing.
CONTROL_TESTS = ("tests/test_lda.py::test_digamma_matches_scipy",
                 "tests/test_streaming_population.py::test_kappa_half_needs_the_explicit_switch")
HARMLESS = Mutant(id="control_harmless_comment", cites="none: a comment", path="topicbench/lda.py",
                  find="# Hoffman's onlineldavb.py: lambda ~ Gamma(100, 1/100)",
                  replace="# (comment changed by the runner's harmless control mutant)", tests=CONTROL_TESTS)
CRASHING = Mutant(id="control_import_error", cites="none: an import error", path="topicbench/lda.py",
                  find="from . import kernels\n", replace="from . import kernels, no_such_module_for_the_runner\n",
                  tests=CONTROL_TESTS)
MUTANTS = load_mutants()
BY_ID = {m.id: m for m in [*MUTANTS, HARMLESS, CRASHING]}


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool
    reason: str
    returncode: int | None = None
    failed: list[str] = field(default_factory=list)  # "node - error" of each failed test
    seconds: float = 0.0  # wall time
    cpu: float = 0.0  # CPU time of the pytest subprocess
    output: str = ""

    def describe(self) -> str:
        head = (f"mutant {self.mutant.id} ({self.mutant.cites}; {self.mutant.path}) "
                f"{'KILLED' if self.killed else 'NOT killed'}: {self.reason}")
        tail = "\n".join(self.output.strip().splitlines()[-25:])
        return f"{head}\ntests: {' '.join(self.mutant.tests)}\n--- pytest output (tail) ---\n{tail}"


def mutated_source(mutant: Mutant, root: Path = REPO) -> str:
    """The mutated text of ``mutant.path`` under ``root``; ValueError naming the mutant if it cannot apply."""
    target = root / mutant.path
    if not target.is_file():
        raise ValueError(f"mutant {mutant.id}: no file {mutant.path}")
    text = mutant.apply(target.read_text())
    try:
        compile(text, str(target), "exec")
    except SyntaxError as error:
        raise ValueError(f"mutant {mutant.id}: the mutated {mutant.path} does not compile: {error}") from error
    return text


def classify(returncode: int, output: str) -> tuple[bool, str, list[str]]:
    failed = [f"{m.group(2)} - {m.group(3) or ''}" for m in map(SUMMARY.match, output.splitlines()) if m]
    if returncode != 1:
        return False, f"pytest exit code {returncode} (only 1, test failures, is a kill)", failed
    real = [f for f in failed if not f.split(" - ", 1)[1].startswith(CRASHES)]
    if not real:
        return False, "exit code 1, but only import/name/syntax errors (a crash, not a kill)", failed
    return True, "killed by " + "; ".join(real), failed


class Runner:
    """``workers`` persistent scratch copies of the repository, each serving one mutant at a time."""

    def __init__(self, scratch: Path, workers: int = WORKERS, timeout: float = TIMEOUT):
        self.timeout = timeout
        self.threads = max(1, (os.cpu_count() or 1) // workers)
        self.free: Queue[Path] = Queue()
        for i in range(workers):
            copy = scratch / f"copy{i}"
            make_copy(REPO, copy)
            self.free.put(copy)
        self.pool = ThreadPoolExecutor(max_workers=workers)

    def submit(self, mutant: Mutant) -> Future:
        return self.pool.submit(self.run, mutant)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def run(self, mutant: Mutant) -> Outcome:
        try:
            text = mutated_source(mutant)
        except ValueError as error:
            return Outcome(mutant, False, str(error))
        copy = self.free.get()
        try:
            return self._run_in(copy, mutant, text)
        finally:
            self.free.put(copy)

    def _run_in(self, copy: Path, mutant: Mutant, text: str) -> Outcome:
        target = copy / mutant.path
        original = target.read_bytes()
        stat = target.stat()
        env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1",
               "NUMBA_NUM_THREADS": str(self.threads), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "COLUMNS": "10000",  # wide: pytest cuts the error off FAILED lines to fit
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the suite needs no plugin; hypothesis's alone costs ~1.5 s CPU
        stop = [] if EXHAUSTIVE else ["-x"]
        command = [sys.executable, "-m", "pytest", "-q", *stop, "-rfE", "-p", "no:cacheprovider", *mutant.tests]
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="numba-mutant-") as numba_cache:
            if b"cache=True" in original:  # its kernels recompile: keep them out of the warm cache
                env["NUMBA_CACHE_DIR"] = numba_cache
            try:
                target.write_text(text)
                returncode, cpu, output = run_pytest(command, copy, env, self.timeout)
            finally:
                target.write_bytes(original)
                os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        seconds = time.perf_counter() - start
        if returncode is None:
            return Outcome(mutant, False, f"timed out after {self.timeout:.0f} s (not a kill)", None, [], seconds, cpu,
                           output)
        killed, reason, failed = classify(returncode, output)
        return Outcome(mutant, killed, reason, returncode, failed, seconds, cpu, output)


def run_pytest(command, cwd, env, timeout):
    """(exit code or None on timeout, CPU seconds, output): the CPU time (from wait4) is what the check costs
    on an otherwise idle machine, whatever else shares the cores."""
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(proc.pid, 9)  # our own subprocess's group only
                pid, status, usage = os.wait4(proc.pid, 0)
                status = None
                break
            time.sleep(0.05)
        proc.returncode = 0  # reaped above; keeps Popen from waiting again
        log.seek(0)
        returncode = None if status is None else os.waitstatus_to_exitcode(status)
        return returncode, usage.ru_utime + usage.ru_stime, log.read()


def make_copy(repo: Path, dest: Path) -> None:
    """Copy what the tests read, keeping mtimes and numba's cache files (not bytecode), and check that a
    subprocess with PYTHONPATH = dest imports topicbench from dest."""
    def ignore(_, names):
        return [n for n in names if n.endswith(".pyc") or n == ".pytest_cache"]

    dest.mkdir(parents=True)
    for name in COPIED:
        source = repo / name
        if source.is_dir():
            shutil.copytree(source, dest / name, copy_function=shutil.copy2, ignore=ignore, symlinks=True)
        elif source.exists():
            shutil.copy2(source, dest / name)
    where = subprocess.run([sys.executable, "-c", "import topicbench; print(topicbench.__file__)"], cwd=dest,
                           env={**os.environ, "PYTHONPATH": str(dest), "PYTHONDONTWRITEBYTECODE": "1"},
                           capture_output=True, text=True, check=True).stdout.strip()
    if Path(where).resolve() != (dest / "topicbench" / "__init__.py").resolve():
        raise RuntimeError(f"the scratch copy {dest} imports topicbench from {where}, not from the copy")


# -- the pytest side ------------------------------------------------------------------------------------
def _selected_ids(request) -> list[str]:
    """The mutants of the selected tests of this module (so ``-k some_id`` runs one mutant, not all)."""
    ids = []
    for item in request.session.items:
        if Path(str(item.path)) != Path(__file__):
            continue
        if item.originalname == "test_mutant_is_killed":
            ids.append(item.callspec.params["mutant_id"])
        elif item.originalname == "test_harmless_mutant_survives":
            ids.append(HARMLESS.id)
        elif item.originalname == "test_import_error_is_not_a_kill":
            ids.append(CRASHING.id)
    return ids


@pytest.fixture(scope="module")
def outcomes(request, tmp_path_factory):
    ids = _selected_ids(request)
    runner = Runner(tmp_path_factory.mktemp("mutants"))
    start = time.perf_counter()
    # mutants of numba-cached files compile for tens of seconds: start those first so the workers end together
    slow_first = sorted(ids, key=lambda i: b"cache=True" not in (REPO / BY_ID[i].path).read_bytes())
    futures = {i: runner.submit(BY_ID[i]) for i in slow_first}
    yield futures
    runner.close()
    done = {i: f.result() for i, f in futures.items() if f.done() and not f.cancelled() and f.exception() is None}
    lines = [f"equation mutants: {len(futures)} run on {WORKERS} workers in {time.perf_counter() - start:.0f} s wall, "
             f"{sum(o.cpu for o in done.values()):.0f} s CPU"]
    lines += [f"  {'KILLED  ' if o.killed else 'SURVIVED'} {o.seconds:5.1f} s wall {o.cpu:5.1f} s CPU  {i}: {o.reason[:300]}"
              for i, o in done.items()]
    if os.environ.get("TOPICBENCH_MUTANT_REPORT"):
        Path(os.environ["TOPICBENCH_MUTANT_REPORT"]).write_text("\n".join(lines) + "\n")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None and futures:
        with capture.global_and_fixture_disabled():  # fixture teardown output is captured otherwise
            reporter.write_line("")
            for line in lines:
                reporter.write_line(line)


@pytest.mark.parametrize("mutant_id", [m.id for m in MUTANTS])
def test_mutant_is_killed(mutant_id, outcomes):
    outcome = outcomes[mutant_id].result()
    assert outcome.killed, outcome.describe()


def test_harmless_mutant_survives(outcomes):
    """A comment edit changes no equation: if the runner called it killed, its kills would prove nothing."""
    outcome = outcomes[HARMLESS.id].result()
    assert not outcome.killed and outcome.returncode == 0, outcome.describe()


def test_import_error_is_not_a_kill(outcomes):
    """A mutant that breaks an import makes the tests error, not fail on an equation: not a kill."""
    outcome = outcomes[CRASHING.id].result()
    assert not outcome.killed and outcome.returncode is not None, outcome.describe()


# -- fast checks, no subprocess ---------------------------------------------------------------------------
@pytest.mark.parametrize("mutant_id", list(BY_ID))
def test_find_matches_the_current_source(mutant_id):
    """A refactor that orphans a mutant (its ``find`` gone or duplicated) fails here, naming the mutant."""
    mutant = BY_ID[mutant_id]
    mutated_source(mutant)  # raises ValueError naming the mutant
    for node in mutant.tests:
        assert (REPO / node.split("::")[0]).is_file(), f"mutant {mutant_id}: no test file for {node}"


def test_mutant_ids_are_unique():
    ids = [m.id for m in MUTANTS] + [HARMLESS.id, CRASHING.id]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_classify_counts_only_test_failures():
    assert classify(1, "FAILED tests/a.py::t - AssertionError: x\n")[0]
    assert not classify(2, "ERROR tests/a.py - ImportError: y\n")[0]
    assert not classify(1, "FAILED tests/a.py::t - ModuleNotFoundError: z\n")[0]
    assert not classify(1, "FAILED tests/a.py::t - ImportError: cannot import name 'x'\n")[0]
    assert not classify(0, "")[0] and not classify(5, "")[0]
