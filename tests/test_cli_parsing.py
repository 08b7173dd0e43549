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
            # installed before the signal is sent: without it SIGTERM would end pytest itself
            assert signal.getsignal(signal.SIGTERM) is not before
            os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.code == 143 and signal.getsignal(signal.SIGTERM) is before


def test_a_trace_must_be_one_run_named_as_its_folder_says(tmp_path):
    """runs/<experiment>/<dataset>/<method>/label~<l>/<p~v>.../seed~<s>/trace.parquet: a trace whose rows agree with
    every part of its folder passes; one part wrong (experiment, dataset, method, label, K, seed) -> refused naming it;
    rows of two runs, or two traces of one run, -> refused; a trace outside that layout is not read by its folder."""
    import pandas as pd

    from topicbench.cli import _check_run_identities

    run = {"experiment": "e", "dataset": "d", "method": "online_lda", "label": "x", "seed": 0, "p_K": 3, "p_kappa": 0.5}
    frame = pd.DataFrame([run])  # a trace of one checkpoint

    def folder(experiment="e", dataset="d", method="online_lda", label="x", k="3", seed="0"):
        return str(tmp_path / "runs" / experiment / dataset / method / f"label~{label}" / f"K~{k}" / "kappa~0.5" /
                   f"seed~{seed}" / "trace.parquet")

    _check_run_identities([folder(), str(tmp_path / "elsewhere.parquet")], [pd.DataFrame([run, run]), frame.assign(seed=1)])
    for wrong, message in ((dict(experiment="e2"), "experiment 'e2' but records experiment 'e'"),
                           (dict(dataset="d2"), "dataset 'd2' but records dataset 'd'"),
                           (dict(method="batch_lda"), "method 'batch_lda' but records method 'online_lda'"),
                           (dict(label="y"), "label 'y' but records label 'x'"), (dict(k="4"), "K '4' but records K '3'"),
                           (dict(seed="1"), "seed '1' but records seed '0'")):
        with pytest.raises(UsageError, match=f"is in the folder of {message}"):
            _check_run_identities([folder(**wrong)], [frame])
    with pytest.raises(UsageError, match="holds 2 runs \\(its rows disagree on seed\\)"):
        _check_run_identities([folder()], [pd.DataFrame([run, {**run, "seed": 1}])])
    with pytest.raises(UsageError, match="are the same run"):
        _check_run_identities([folder(), str(tmp_path / "copy.parquet")], [frame, frame])


def test_one_dataset_is_fitted_on_one_corpus_content():
    """Two traces of dataset d on corpus_sha256 aaa... and bbb... -> refused naming both; on one content -> accepted."""
    import pandas as pd

    from topicbench.cli import _check_one_corpus_per_dataset

    first, second = (pd.DataFrame({"dataset": ["d", "d"], "corpus_sha256": [sha * 64] * 2}) for sha in "ab")
    _check_one_corpus_per_dataset(["t1", "t2"], [first, first.copy()])
    with pytest.raises(UsageError, match="traces t1 and t2 were fitted on two different contents of dataset 'd'"):
        _check_one_corpus_per_dataset(["t1", "t2"], [first, second])


def test_undecodable_or_unexpanded_arguments_exit_2_naming_them(capsys, tmp_path):
    """A trace path holding a byte the locale could not decode, or --out '~/x' the shell left unexpanded -> exit 2
    naming the argument, before any file is touched."""
    from topicbench.cli import main

    assert main(["aggregate", "--out", str(tmp_path / "all.parquet"), "caf\udce9.parquet"]) == 2
    assert "is not text in this locale" in capsys.readouterr().err
    assert main(["aggregate", "--out", "~/all.parquet", str(tmp_path / "t.parquet")]) == 2
    assert "--out '~/all.parquet' starts with '~'" in capsys.readouterr().err
    assert not (tmp_path / "all.parquet").exists()
