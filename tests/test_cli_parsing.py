"""The command line's own parsing and process checks, in-process (the commands themselves: tests/faults/)."""
import os
import subprocess
import sys

import pytest

from topicbench.cli import UsageError, _alive, _parse_assignments


def test_assignments_are_name_value_pairs_read_as_yaml():
    """' a =1' is a = 1 (the name stripped), the value YAML (a list, a string with spaces, an empty value None, a
    value holding '='); no '=', an empty name, a name twice or an unreadable YAML value -> UsageError naming it."""
    assert _parse_assignments([" a =1", "b=x y", "c=[1, 2]", "d=", "e=a=b"], "--param") == \
        {"a": 1, "b": "x y", "c": [1, 2], "d": None, "e": "a=b"}
    assert _parse_assignments(None, "--param") == {}
    for pairs, message in ((["=1"], "'=1' is not NAME=VALUE"), ([" =1"], "' =1' is not NAME=VALUE"),
                           (["a"], "'a' is not NAME=VALUE"), (["a=1", " a=2"], "--set a is given twice"),
                           (["a=*x"], "--set a: cannot read the value '\\*x'")):
        with pytest.raises(UsageError, match=message):
            _parse_assignments(pairs, "--set")


def test_a_process_is_alive_until_it_exits_and_a_zombie_is_not():
    """This process is alive; a child that exited but is not yet reaped (a zombie) is not, nor once reaped."""
    assert _alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, left a zombie
    assert not _alive(child.pid)
    child.wait()
    assert not _alive(child.pid)


def test_without_proc_the_kernel_tells_whether_a_process_runs(monkeypatch):
    """No /proc (open raises OSError): a reaped child is gone, this process runs (signal 0 asks the kernel)."""
    import topicbench.cli as cli

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()

    def no_proc(*args, **kwargs):
        raise PermissionError("no /proc here")

    monkeypatch.setattr(cli, "open", no_proc, raising=False)
    assert not cli._alive(child.pid)
    assert cli._alive(os.getpid())
