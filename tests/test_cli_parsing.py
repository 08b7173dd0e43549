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


def test_a_run_spec_is_one_json_object_without_repeated_keys():
    """--spec text: a repeated key (json would keep the last: another seed than one of them says), text that is not
    JSON, or JSON that is not an object -> UsageError naming the argument; nested objects are read whole."""
    from topicbench.cli import _json_object

    assert _json_object('{"seed": 1, "params": {"K": 3}}', "--spec") == {"seed": 1, "params": {"K": 3}}
    for text, message in (('{"seed": 1, "seed": 2}', "--spec: key 'seed' is given twice \\(1 and 2\\)"),
                          ('{"seed": 1', "--spec is not JSON"), ("[1]", "--spec must be a JSON object of RunSpec fields, got list")):
        with pytest.raises(UsageError, match=message):
            _json_object(text, "--spec")


def test_sigterm_inside_a_prepare_exits_143_and_the_handler_is_put_back():
    """SIGTERM while inside -> SystemExit(143) (128 + 15), so the write under way is undone; the handler before is back after."""
    import signal

    from topicbench.cli import _sigterm_as_exit

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as stopped:
        with _sigterm_as_exit():
            os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.code == 143 and signal.getsignal(signal.SIGTERM) is before
