"""The equation-mutant check (issue #10): every mutant in ``tests/mutants/*.py`` must be killed by its tests.

For each mutant (format: ``tests/mutants/__init__.py``): check up front that ``find`` occurs exactly once in
``path`` and that the mutated file compiles; write the mutated file into a scratch copy of the repository
(never the working tree); run the mutant's pytest node ids there in a fresh process (a fork, see Speed).
A kill is pytest's exit code 1 with at least one failed test whose error is not an import, name or syntax
error. Exit codes 0 and 2-5 (interrupted, e.g. a collection error; internal error; usage error; nothing
collected) and timeouts are not kills. Two control mutants prove the runner can say "not killed": a harmless
comment edit must survive, and an import error must not count as a kill.

Speed (the check runs in CI; budget 5 minutes on 2 cores). Mutants run on ``WORKERS`` scratch copies in
parallel. Most of a fresh ``python -m pytest`` is start-up (numpy, scipy, numba, pandas, sklearn, gensim,
pytest: ~4 s CPU), so each copy has a fork server (``SERVER``): a process that imports those once and then,
per mutant, forks a child that forgets every module of the copy (``topicbench*``, ``tests*``, the plugins
loaded by path), runs ``pytest.main`` on the listed node ids in the copy and reports its exit code and, from
a small plugin, each failed test's error. The server runs no numba code that starts threads (forking a
process with threads is unsafe; it checks it has one thread before every fork) and kills a child that
exceeds the timeout. The copies are made with ``shutil.copy2`` (sources keep their mtimes) together with
numba's cache files from ``__pycache__``; numba's cache index is keyed by the source file's mtime and size,
so a mutant of an ordinary module loads the already compiled kernels. After each mutant the original file is
written back with its original mtime. A mutant of a file with cached numba kernels (``cache=True``) changes
that file's stamp, so its kernels are compiled afresh (20-50 s), with the child's NUMBA_CACHE_DIR set to a
throw-away directory so the mutated code never enters, or evicts, the copy's warm cache (checked: the
copy's cache files must be unchanged after such a mutant). Bytecode caching is off (two mutants of one file
of the same size written within one second would otherwise share a stale .pyc). The children get
cores / WORKERS numba threads each.

Environment: TOPICBENCH_MUTANT_WORKERS (default min(2, cores)), TOPICBENCH_MUTANT_TIMEOUT (seconds per
mutant, default 240), TOPICBENCH_MUTANT_REPORT (a file for the summary), TOPICBENCH_MUTANT_EXHAUSTIVE=1 (run all of a mutant's tests instead of stopping at the
first failure, to see every test that kills it; slower). The summary printed at the end lists each mutant,
killed or not, the test(s) that killed it, and its wall and CPU time.
"""
from __future__ import annotations

import importlib
import json
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

COPIED = ("topicbench", "methods", "datasets", "tests", "workflow", "benchmarks", "paper", "tools", "pyproject.toml")  # what the tests read
WORKERS = max(1, int(os.environ.get("TOPICBENCH_MUTANT_WORKERS", min(2, os.cpu_count() or 1))))
TIMEOUT = float(os.environ.get("TOPICBENCH_MUTANT_TIMEOUT", 240))
EXHAUSTIVE = os.environ.get("TOPICBENCH_MUTANT_EXHAUSTIVE", "") == "1"  # run every listed test, not stop at the first failure
CRASHES = ("ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError", "NameError")


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


# the registry reports a plugin file that crashes at import as PluginError naming the file and the crash's type
PLUGIN_CRASH = re.compile(r"[\w.]*PluginError: .*?the plugin file cannot be loaded \((%s)\b" % "|".join(CRASHES))


def _is_crash(error: str) -> bool:
    return error.startswith(CRASHES) or PLUGIN_CRASH.match(error) is not None


def classify(returncode: int, failed: list[str]) -> tuple[bool, str]:
    """``failed``: "node - error" of each failed test (the error's first line starts with its type)."""
    if returncode != 1:
        return False, f"pytest exit code {returncode} (only 1, test failures, is a kill)"
    real = [f for f in failed if not _is_crash(f.split(" - ", 1)[-1])]
    if not real:
        return False, "exit code 1, but only import/name/syntax errors (a crash, not a kill)"
    return True, "killed by " + "; ".join(real)


# The fork server: run with ``python -c SERVER <copy> <modules to import, JSON>`` and cwd = the copy. Requests
# on stdin and replies on stdout are JSON lines; the children's output goes to a log file per request.
SERVER = r"""
import importlib, json, os, sys, time, traceback
copy, heavy = sys.argv[1], json.loads(sys.argv[2])
replies = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)  # a stray print while importing cannot corrupt the replies
for name in heavy:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
import gc, numba, pytest
import topicbench.kernels  # its vector width (_prefer_wide_vectors) before the line below fixes numba's machine
numba.njit(lambda x: x + 1)(1)  # numba's compiler and LLVM start up here, once; not parallel: no threads
gc.freeze()  # the imports above are permanent: pytest's gc.collect() calls in each child skip them (~1 s CPU a mutant)
MINE = ("topicbench", "tests", "conftest", "methods", "datasets", "workflow")


def child(request):
    os.setsid()  # the server's timeout kills the child's whole group
    null, log = os.open(os.devnull, os.O_RDONLY), os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(null, 0), os.dup2(log, 1), os.dup2(log, 2)
    if request["numba_cache"]:  # read by numba's cache locator when a cache=True kernel is defined
        os.environ["NUMBA_CACHE_DIR"] = request["numba_cache"]
        numba.core.config.reload_config()
        assert numba.config.CACHE_DIR == request["numba_cache"], numba.config.CACHE_DIR
    for name, module in list(sys.modules.items()):  # nothing of the copy survives from the server (or it is stale)
        if (name.split(".")[0] in MINE or name.startswith("_topicbench_")
                or str(getattr(module, "__file__", None) or "").startswith(copy)):
            del sys.modules[name]
    os.chdir(copy)
    sys.path[:] = [copy] + [p for p in sys.path if p not in ("", ".", copy)]
    importlib.invalidate_caches()
    failed = []

    class Recorder:  # "node - error" of each failed test, collection or setup: no parsing of pytest's output
        def pytest_runtest_logreport(self, report):
            if report.failed:
                crash = getattr(report.longrepr, "reprcrash", None)
                error = " ".join((crash.message if crash else str(report.longrepr)).split())  # on one line
                failed.append(f"{report.nodeid} - {error}")
        pytest_collectreport = pytest_runtest_logreport

    code = int(pytest.main(request["args"], plugins=[Recorder()]))
    with open(request["result"], "w") as out:
        json.dump({"failed": failed}, out)
    return code


for line in sys.stdin:
    request = json.loads(line)
    if len(os.listdir("/proc/self/task")) != 1:  # a fork copies one thread; locks other threads held stay held
        replies.write(json.dumps({"error": "the fork server has started threads; forking is unsafe"}) + "\n")
        continue
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = child(request)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(), sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + request["timeout"]
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.killpg(pid, 9)  # the child's own group (setsid above)
            done, status, usage = os.wait4(pid, 0)
            status = None
            break
        time.sleep(0.02)
    failed = []
    if status is not None and os.path.exists(request["result"]):
        with open(request["result"]) as result:
            failed = json.load(result)["failed"]
    replies.write(json.dumps({"returncode": None if status is None else os.waitstatus_to_exitcode(status),
                              "cpu": usage.ru_utime + usage.ru_stime, "failed": failed}) + "\n")
"""
# What the server imports once (what the mutants' tests import that is slow to import); missing ones are skipped.
HEAVY = ("numpy", "scipy.special", "scipy.stats", "scipy.optimize", "scipy.sparse", "scipy.linalg", "numba",
         "numba.core.typed_passes", "numba.parfors.parfor", "numba.parfors.parfor_lowering", "pandas", "pyarrow",
         "pyarrow.parquet", "sklearn.decomposition", "gensim", "gensim.models", "yaml", "threadpoolctl", "psutil",
         "pytest", "matplotlib", "matplotlib.pyplot", "hypothesis")  # hypothesis: its pytest plugin imports it at the summary


class ForkServer:
    """One ``SERVER`` process serving one scratch copy, one mutant at a time."""

    def __init__(self, copy: Path, threads: int):
        self.copy, self.log = copy, tempfile.TemporaryFile("w+")
        env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1",
               "NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1",  # set before numpy loads its BLAS: it starts no thread pool in the server
               "JE_ARROW_MALLOC_CONF": "background_thread:false",  # pyarrow's jemalloc starts a thread when loaded
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the suite needs no plugin; hypothesis's alone costs ~1.5 s CPU
        env.pop("NUMBA_CACHE_DIR", None)  # the copy's own (in-tree) cache is the warm one
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(copy), json.dumps(HEAVY)], cwd=copy,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True)

    def run(self, args: list[str], numba_cache: str | None, timeout: float) -> tuple[int | None, float, list[str], str]:
        """(exit code or None on timeout, CPU seconds of the child, its failed tests, its output)."""
        with tempfile.TemporaryDirectory(prefix="mutant-run-") as tmp:
            request = dict(args=args, numba_cache=numba_cache, timeout=timeout, log=f"{tmp}/log", result=f"{tmp}/result")
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            if not line or "error" in json.loads(line):
                self.log.seek(0)
                raise RuntimeError(f"the fork server of {self.copy} failed: {line.strip()}\n{self.log.read()[-3000:]}")
            reply = json.loads(line)
            output = Path(tmp, "log").read_text(errors="replace") if Path(tmp, "log").exists() else ""
        return reply["returncode"], reply["cpu"], reply["failed"], output

    def close(self) -> float:
        """Stop the server; its CPU seconds, children included."""
        self.proc.stdin.close()
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)  # reaped above; keeps Popen from waiting again
        self.log.close()
        return usage.ru_utime + usage.ru_stime


class Runner:
    """``workers`` persistent scratch copies of the repository, each with its fork server, one mutant at a time."""

    def __init__(self, scratch: Path, workers: int = WORKERS, timeout: float = TIMEOUT):
        self.timeout = timeout
        threads = max(1, (os.cpu_count() or 1) // workers)
        self.free: Queue[ForkServer] = Queue()
        self.servers = []
        for i in range(workers):
            copy = scratch / f"copy{i}"
            make_copy(REPO, copy)
            self.servers.append(ForkServer(copy, threads))  # imports while the next copy is made
            self.free.put(self.servers[-1])
        self.pool = ThreadPoolExecutor(max_workers=workers)

    def submit(self, mutant: Mutant) -> Future:
        return self.pool.submit(self.run, mutant)

    def close(self) -> float:
        """Stop everything; the CPU seconds of the servers and all their children."""
        self.pool.shutdown(wait=True, cancel_futures=True)
        return sum(server.close() for server in self.servers)

    def run(self, mutant: Mutant) -> Outcome:
        try:
            text = mutated_source(mutant)
        except ValueError as error:
            return Outcome(mutant, False, str(error))
        server = self.free.get()
        try:
            return self._run_in(server, mutant, text)
        finally:
            self.free.put(server)

    def _run_in(self, server: ForkServer, mutant: Mutant, text: str) -> Outcome:
        target = server.copy / mutant.path
        original = target.read_bytes()
        stat = target.stat()
        stop = [] if EXHAUSTIVE else ["-x"]
        args = ["-q", *stop, "-rfE", "-p", "no:cacheprovider", *mutant.tests]
        kernels = b"cache=True" in original  # its kernels recompile: keep them out of the warm cache
        warm = numba_cache_files(server.copy) if kernels else None
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="numba-mutant-") as numba_cache:
            try:
                target.write_text(text)
                returncode, cpu, failed, output = server.run(args, numba_cache if kernels else None, self.timeout)
            finally:
                target.write_bytes(original)
                os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        seconds = time.perf_counter() - start
        if kernels and numba_cache_files(server.copy) != warm:
            return Outcome(mutant, False, "the mutant changed the copy's warm numba cache (its NUMBA_CACHE_DIR was "
                           "not honoured); no verdict", returncode, failed, seconds, cpu, output)
        if returncode is None:
            return Outcome(mutant, False, f"timed out after {self.timeout:.0f} s (not a kill)", None, failed, seconds,
                           cpu, output)
        killed, reason = classify(returncode, failed)
        return Outcome(mutant, killed, reason, returncode, failed, seconds, cpu, output)


def numba_cache_files(copy: Path) -> dict[str, tuple[int, int]]:
    """(mtime, size) of each numba cache file (index .nbi, data .nbc) in the copy."""
    return {str(f): (f.stat().st_mtime_ns, f.stat().st_size) for pattern in ("*.nbi", "*.nbc")
            for f in copy.rglob(pattern)}


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
    total_cpu = runner.close()
    done = {i: f.result() for i, f in futures.items() if f.done() and not f.cancelled() and f.exception() is None}
    children = sum(o.cpu for o in done.values())
    lines = [f"equation mutants: {len(futures)} run on {WORKERS} workers in {time.perf_counter() - start:.0f} s wall, "
             f"{total_cpu:.0f} s CPU ({children:.0f} s in the mutants' runs, {total_cpu - children:.0f} s in the fork "
             f"servers' start-up)"]
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
    assert classify(1, ["tests/a.py::t - AssertionError: x"])[0]
    assert classify(1, ["tests/a.py::t - ImportError: y", "tests/a.py::u - assert 1 == 2"])[0]
    assert not classify(2, ["tests/a.py - ImportError: y"])[0]
    assert not classify(1, ["tests/a.py::t - ModuleNotFoundError: z"])[0]
    assert not classify(1, ["tests/a.py::t - ImportError: cannot import name 'x'"])[0]
    assert not classify(1, ["tests/a.py::t - topicbench.method.PluginError: /c/methods/a.py: the plugin file cannot be "
                            "loaded (ImportError: cannot import name 'x')"])[0]  # a plugin's import crash, named
    assert classify(1, ["tests/a.py::t - topicbench.method.PluginError: /c/methods/a.py: plugin name 3 is not a safe "
                        "name"])[0]
    assert not classify(1, [])[0] and not classify(0, [])[0] and not classify(5, [])[0]
