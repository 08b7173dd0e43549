"""Atomic file writes: a killed job leaves the old file or none, never a partial one."""
from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import tempfile
from pathlib import Path

FAULT_ENV = "TOPICBENCH_FAULT_AT"


def fault_point(step: str) -> None:
    """A named write step where the fault catalogue can strike (tests only; a no-op unless the variable is set).

    ``TOPICBENCH_FAULT_AT=kill:<step>`` SIGKILLs the process at ``step``; ``enospc:<step>`` raises the OSError a
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
    elif kind == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC) + f" (injected at {step})")
    else:
        raise ValueError(f"{FAULT_ENV}={wanted!r}: expected kill:<step> or enospc:<step>")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside ``path``; rename it over ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp's 0600 would survive the rename
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike):
    """Yield a staging directory beside ``path``; it replaces ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        yield staging
        if path.exists():
            shutil.rmtree(path)
        os.replace(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_parquet(path, frame) -> None:
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False)


def save_npz(path, arrays: dict) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            import numpy as np

            np.savez_compressed(handle, **arrays)
