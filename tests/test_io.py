"""topicbench.io's atomic file writes: the old file or the new one, no partial file left, the umask's mode,
and only a dead writer's temporary files removed."""
import os
import subprocess
import sys

import pytest

from topicbench import io


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "result.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="writer failed"):
        with io.atomic_path(target) as tmp:
            tmp.write_text("half of the new")
            raise RuntimeError("writer failed")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.txt"]


def test_a_written_file_has_the_umask_mode_not_mkstemps_0600(tmp_path):
    old = os.umask(0o022)
    try:
        io.write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644  # 0o666 & ~0o022, by hand


def test_only_a_dead_writers_temporary_is_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(dead.stdout)
    assert not io.pid_alive(dead_pid)
    live = tmp_path / f".a.txt.{os.getpid()}-abc123.tmp"  # a writer that still runs (this process)
    stale = tmp_path / f".a.txt.{dead_pid}-abc123.tmp"
    user = tmp_path / ".a.txt.notes.tmp"  # not the writers' pattern: the user's
    for path in (live, stale, user):
        path.write_text("partial")
    io.write_text(tmp_path / "a.txt", "new")
    assert (tmp_path / "a.txt").read_text() == "new"
    assert live.exists() and user.exists() and not stale.exists()


def test_a_pid_we_may_not_signal_is_alive(monkeypatch):
    """os.kill(pid, 0) raising PermissionError means the process exists (another user's): its files are kept."""
    def refuse(pid, sig):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(io.os, "kill", refuse)
    assert io.pid_alive(12345)


def test_an_error_between_the_two_renames_puts_the_old_directory_back(tmp_path, monkeypatch):
    """Without RENAME_EXCHANGE the swap is two renames (path -> .N.old-P, staging -> path); an error between them
    (a full disk at ``<faults>.swap_new``) must rename the old directory back at once, never delete it."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "f.txt").write_text("old")
    monkeypatch.setenv("TOPICBENCH_RENAME_EXCHANGE", "0")
    monkeypatch.setenv(io.FAULT_ENV, "enospc:t.swap_new")
    with pytest.raises(OSError, match="injected at t.swap_new"):
        with io.atomic_directory(out, faults="t") as staging:
            (staging / "f.txt").write_text("new")
    assert (out / "f.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging or old copy left beside it
