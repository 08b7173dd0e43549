"""Atomic file writes: a killed job leaves the old file or none, never a partial one."""
from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import hashlib
import os
import re
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Callable

FAULT_ENV = "TOPICBENCH_FAULT_AT"


def file_sha256(path) -> str:
    """sha256 of a file's bytes, read a MiB at a time (corpus checksums, raw source files, downloads)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_path_argument(value, name: str, error: type[Exception] = ValueError) -> None:
    """Refuse, naming ``name``, a path given to a public function that starts with '~' or is empty, as the CLI and
    the config do: Python expands no '~' (nor do YAML and Snakemake), so '~/x' is a folder named '~' in the current
    folder, and '' is the current folder, named by no one (an unset variable). ``None`` (not given) passes."""
    if value is None:
        return
    text = os.fsdecode(os.fspath(value))
    if not text:
        raise error(f"{name} is empty (an unset variable?): it would be the current folder; give the path")
    if text.startswith("~"):
        raise error(f"{name} {text!r} starts with '~', which is not expanded to the home folder here (it would be a "
                    f"folder named '~'); give the full path (os.path.expanduser)")


def fault_point(step: str) -> None:
    """A named write step where the fault catalogue can strike (tests only; a no-op unless the variable is set).

    ``TOPICBENCH_FAULT_AT=kill:<step>`` SIGKILLs the process at ``step`` (``term:<step>`` sends SIGTERM); ``enospc:<step>`` raises the OSError a
    full disk raises there. Kills are how tests prove that every write step leaves the old result or the new one.
    """
    wanted = os.environ.get(FAULT_ENV)
    if not wanted:
        return
    kind, _, at = wanted.partition(":")
    if at != step:
        return
    if kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "term":  # what Snakemake sends a job it cancels
        os.kill(os.getpid(), signal.SIGTERM)
    elif kind == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC) + f" (injected at {step})")
    else:
        raise ValueError(f"{FAULT_ENV}={wanted!r}: expected kill:<step>, term:<step> or enospc:<step>")


@contextlib.contextmanager
def sigterm_as_exit():
    """SIGTERM (Snakemake cancelling a job, a scheduler before its SIGKILL) as SystemExit(143) while inside: the write
    under way is undone on the way out, as on any error (a corpus's or a run's staging folder removed), where the
    signal's default action would end the process with no clean-up, leaving the staged copy hidden beside the result
    until the next write of that name, forever if the config moved on. The handler before is put back (tests call
    main in-process). For Python between write steps: a fit in a long numba kernel would not see the signal until the
    kernel returns, so only its write is inside."""
    import sys
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        print("topicbench: stopped by SIGTERM; a result not yet in place is discarded", file=sys.stderr, flush=True)
        raise SystemExit(128 + signum)

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside ``path``; rename it over ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_writers_tmp(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    group = _GROUP[-1] if _GROUP else None
    try:
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp's 0600 would survive the rename
        yield tmp
        fault_point("atomic.write")
        if group is not None:
            group.append((tmp, path))  # renamed when the whole group has been written (written_together)
        else:
            os.replace(tmp, path)
    finally:
        if tmp.exists() and (group is None or (tmp, path) not in group):
            tmp.unlink()


_GROUP: list[list[tuple[Path, Path]]] = []


@contextlib.contextmanager
def written_together():
    """Hold back the renames of every :func:`atomic_path` write inside the block until the block succeeds.

    For a job whose result is several files (a figure's png/pdf/md/rst/csv parts, the paper's md/typ/pdf): an
    exception or a kill anywhere while they are written leaves every old file in place, none of the new ones;
    the renames then follow one another in the order the files were written (the one window left: a kill
    between two of these renames). A file written twice in the block is renamed once per write, the last wins.
    Yields the list of (temporary, final) paths staged so far, so a caller can check what the block wrote."""
    staged: list[tuple[Path, Path]] = []
    _GROUP.append(staged)
    try:
        yield staged
    except BaseException:
        _GROUP.pop()
        for tmp, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        raise
    _GROUP.pop()
    try:
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()


def _remove_dead_writers_tmp(path: Path) -> None:
    """Remove ``.<name>.<pid>-<random>.tmp`` files beside ``path`` whose writer is gone (SIGKILLed mid-write):
    nothing else ever removes them. Only that exact pattern, and only for a pid that no longer runs."""
    pattern = re.compile(re.escape(f".{path.name}.") + r"(\d+)-[A-Za-z0-9_]+\.tmp")
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        match = pattern.fullmatch(stale.name)
        if match and not pid_alive(int(match.group(1))):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()


def pid_alive(pid: int) -> bool:
    """Whether a process of that pid still runs (another user's counts): only a dead writer's leftovers are removed."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike, complete: Callable[[Path], bool] | None = None, faults: str = "prepare",
                     ours: Callable[[Path], bool] | None = None):
    """Yield a staging directory beside ``path``; it replaces ``path`` only if the block succeeds.

    Replacing is a rename swap, so after a kill at ANY point ``path`` holds the old directory or the
    new one, whole. The states, with N = ``path.name`` and P = this process's id:

    1. stage: build into ``.N.staging-P`` (flock-ed while we live, so no one else touches it);
       fault points ``<faults>.stage`` and the caller's own write steps.
    2. swap (under an flock of the parent folder): with renameat2(RENAME_EXCHANGE) the staged copy and
       ``path`` trade places in one step (``<faults>.swap``); where the file system cannot exchange,
       ``path`` is renamed to ``.N.old-P`` (``<faults>.swap``), then the staged copy to ``path``
       (``<faults>.swap_new``): the one window where ``path`` is missing.
    3. clean: the old copy is deleted (``<faults>.remove_old``), then ``<faults>.done``.

    A kill leaves ``.N.staging-P`` / ``.N.old-P`` behind; :func:`recover_directory` (run before the
    next swap of ``path`` and by loaders) finishes or undoes the swap: if ``path`` is missing it
    renames the complete staged copy (else the complete old one) back to ``path``, then deletes every
    leftover of a dead process matching exactly those two patterns, nothing else. ``complete(dir)``
    says whether a leftover is whole (for a corpus: its corpus.json, written last, is there); ``ours(dir)``
    whether it holds only what the block writes (a user's folder of a look-alike name is never touched).
    """
    path = Path(path)
    parent, name = path.parent, path.name
    parent.mkdir(parents=True, exist_ok=True)
    complete = complete or (lambda _: False)
    if path.exists() and not path.is_dir():
        raise FileExistsError(errno.EEXIST, "exists and is not a directory", str(path))
    staging = parent / f".{name}.staging-{os.getpid()}"
    with _locked(parent):
        _recover_locked(path, complete, ours)
        if staging.exists():  # our own pid on a leftover (pid reuse): it is stale
            shutil.rmtree(staging)
        staging.mkdir()
    owner = os.open(staging, os.O_RDONLY)
    fcntl.flock(owner, fcntl.LOCK_EX)  # "a live process owns this staging folder"
    old = None
    swapped = False
    try:
        fault_point(f"{faults}.stage")
        yield staging
        _fsync_tree(staging)
        with _locked(parent):
            fault_point(f"{faults}.swap")
            if not path.exists() and not path.is_symlink():
                os.rename(staging, path)
            elif exchange_directories(staging, path):
                old = staging
            else:
                old = parent / f".{name}.old-{os.getpid()}"
                os.rename(path, old)
                fault_point(f"{faults}.swap_new")
                os.rename(staging, path)
            swapped = True
            _fsync_dir(parent)
            fault_point(f"{faults}.remove_old")
            if old is not None:
                shutil.rmtree(old)
        fault_point(f"{faults}.done")
    except BaseException:
        with _locked(parent):
            if old is not None and not swapped and old.exists() and not path.exists():
                os.rename(old, path)  # undo half a swap: the old directory goes back
            for leftover in (staging, old):
                if leftover is not None and leftover != path and leftover.exists():
                    shutil.rmtree(leftover, ignore_errors=True)
        raise
    finally:
        os.close(owner)


_LEFTOVER = r"^\.{name}\.(staging|old)-\d+$"


def leftovers(path: str | os.PathLike) -> list[Path]:
    """The staging / old folders a (killed) :func:`atomic_directory` of ``path`` may have left beside it."""
    path = Path(path)
    pattern = re.compile(_LEFTOVER.format(name=re.escape(path.name)))
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    return sorted(path.parent / n for n in names if pattern.match(n) and (path.parent / n).is_dir()
                  and not (path.parent / n).is_symlink())


def recover_directory(path: str | os.PathLike, complete: Callable[[Path], bool],
                      ours: Callable[[Path], bool] | None = None) -> list[str]:
    """Finish or undo the swap of a killed :func:`atomic_directory` and delete its leftovers; returns what it did."""
    path = Path(path)
    if not leftovers(path):
        return []  # the common case: no lock, works on read-only folders
    with _locked(path.parent):
        return _recover_locked(path, complete, ours)


def _recover_locked(path: Path, complete, ours=None) -> list[str]:
    done, dead = [], []
    for folder in leftovers(path):
        if ours is not None and not ours(folder):
            continue  # a user's folder that only looks like a leftover
        fd = os.open(folder, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live prepare is staging here
        finally:
            os.close(fd)
        dead.append(folder)
    if not path.exists() and not path.is_symlink():
        # a staged copy is newer than an old one: finish the swap the dead process began, else undo it
        for folder in sorted(dead, key=lambda f: ".old-" in f.name):
            if complete(folder):
                os.rename(folder, path)
                dead.remove(folder)
                done.append(f"{folder.name} -> {path.name}")
                break
    for folder in dead:
        shutil.rmtree(folder)
        done.append(f"removed {folder.name}")
    if done:
        _fsync_dir(path.parent)
    return done


@contextlib.contextmanager
def _locked(folder: Path):
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def exchange_directories(a: Path, b: Path) -> bool:
    """Atomically swap two directories (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    if os.environ.get("TOPICBENCH_RENAME_EXCHANGE") == "0":  # tests: exercise the two-rename fallback
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _fsync_tree(folder: Path) -> None:
    """Flush a staged folder's files and entries so a power cut cannot leave a renamed-in corpus empty."""
    for entry in folder.iterdir():
        if entry.is_file():
            fd = os.open(entry, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_parquet(path, frame, metadata: dict[str, str] | None = None) -> None:
    """``frame`` as Parquet, with ``metadata`` added to the schema's key-value metadata (read back by
    ``parquet_metadata``, ignored by pandas)."""
    schema = None
    if metadata:
        import pyarrow as pa

        schema = pa.Schema.from_pandas(frame, preserve_index=False)
        schema = schema.with_metadata({**(schema.metadata or {}), **{k.encode(): v.encode() for k, v in metadata.items()}})
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False, **({"schema": schema} if schema is not None else {}))


def parquet_metadata(path, key: str) -> str | None:
    """One key of a Parquet file's schema metadata (``write_parquet``), or None; only the footer is read."""
    import pyarrow.parquet as pq

    value = (pq.read_schema(path).metadata or {}).get(key.encode())
    return None if value is None else value.decode()


def save_npz(path, arrays: dict) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            import numpy as np

            np.savez_compressed(handle, **arrays)
