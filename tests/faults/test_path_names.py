"""Names that reach paths on other file systems (faults, eighth pass): a results_dir kept on NTFS, a Windows share or
macOS is one folder for names Linux keeps apart, and a device for some names. Every name that becomes a folder
(experiment, dataset, run label, method, corpus --name, a text hyperparameter value) is refused at DAG build or at
the CLI, naming it, before any work."""
import copy
import os
import unicodedata

import pytest

from test_config import BASE, config, rename_experiment
from test_plugins import plugin
from topicbench.grid import GridError, expand_all
from topicbench.method import PluginError, registry

WINDOWS_DEVICES = ["CON", "nul", "Prn", "aux", "COM1", "lpt9", "con.txt", "NUL.tar.gz"]


@pytest.mark.parametrize("name", WINDOWS_DEVICES)
@pytest.mark.parametrize("where", ["experiment", "dataset", "label"])
def test_windows_device_name_refused(where, name):
    """An experiment, dataset or run label named like a Windows device (CON, nul, COM1, con.txt, any case) -> GridError
    naming it (on NTFS or a Windows share that folder is the console or the null device, not a folder)."""
    if where == "experiment":
        cfg = rename_experiment(name)
    elif where == "dataset":
        cfg = config(datasets={name: {"recipe": "nyt_like"}}, **{"experiments.e.dataset": name})
    else:
        cfg = config(**{"experiments.e.runs.0.label": name})
    with pytest.raises(GridError) as info:
        expand_all(cfg)
    assert f"{name!r} is not a safe name" in str(info.value) and "Windows device name" in str(info.value)


@pytest.mark.parametrize("name", ["conx", "console", "com10", "nul_", "auxiliary", "lpt"])
def test_names_that_only_start_like_a_device_are_accepted(name):
    """A name that merely starts like a device (console, com10, nul_) -> accepted (only the device names themselves,
    alone or before a dot, are refused)."""
    assert expand_all(rename_experiment(name))


@pytest.mark.parametrize("cfg, culprit", [
    pytest.param(rename_experiment("exp."), "'exp.'", id="experiment-trailing-dot"),
    pytest.param(config(datasets={"d.": {"recipe": "nyt_like"}}, **{"experiments.e.dataset": "d."}), "'d.'",
                 id="dataset-trailing-dot"),
    pytest.param(config(**{"experiments.e.runs.0.label": "x.."}), "'x..'", id="label-trailing-dots"),
    pytest.param(config(**{"experiments.e.runs.0.label": "x "}), "'x '", id="label-trailing-space"),
])
def test_name_ending_in_dot_or_space_refused(cfg, culprit):
    """A name ending in '.' or a space (Windows and SMB strip both: 'exp.' is 'exp' there) -> GridError naming it."""
    with pytest.raises(GridError) as info:
        expand_all(cfg)
    assert f"{culprit} is not a safe name" in str(info.value), str(info.value)


@pytest.mark.parametrize("form", ["NFC", "NFD"])
@pytest.mark.parametrize("where", ["experiment", "label"])
def test_names_differing_by_unicode_normalisation_refused(where, form):
    """'café' in NFC beside 'café' in NFD (two folders on Linux, one on macOS) -> GridError naming the name in
    either form (names are ASCII), so no two runs share a folder."""
    name = unicodedata.normalize(form, "caf\u00e9")
    cfg = rename_experiment(name) if where == "experiment" else config(**{"experiments.e.runs.0.label": name})
    with pytest.raises(GridError) as info:
        expand_all(cfg)
    assert f"{name!r} is not a safe name" in str(info.value) and "ASCII" in str(info.value)


def test_names_differing_by_case_folding_beyond_ascii_refused():
    """Labels 'STRASSE' and 'straße' (one name once case-folded: 'strasse') -> GridError naming the non-ASCII one."""
    cfg = copy.deepcopy(BASE)
    runs = cfg["experiments"]["e"]["runs"]
    runs[:] = [{**runs[0], "label": "STRASSE"}, {**runs[0], "label": "stra\u00dfe"}]
    with pytest.raises(GridError) as info:
        expand_all(cfg)
    assert "'stra\u00dfe' is not a safe name" in str(info.value)


def test_name_over_255_bytes_in_utf8_refused():
    """A label of 130 'é' (260 bytes in UTF-8, beyond a folder name's 255) -> GridError naming it, not ENAMETOOLONG.

    Refused as non-ASCII before its length counts, so the job's mkdir never meets it."""
    name = "\u00e9" * 130
    with pytest.raises(GridError) as info:
        expand_all(config(**{"experiments.e.runs.0.label": name}))
    assert "is not a safe name" in str(info.value)


@pytest.mark.parametrize("name", ["CON", "nul.x", "my_method."])
def test_method_plugin_named_like_a_device_refused(tmp_path, name):
    """A method plugin whose name is a Windows device name or ends in '.' -> PluginError naming the file."""
    path = plugin(tmp_path / "methods", name=repr(name))
    with pytest.raises(PluginError) as info:
        registry(tmp_path / "methods")
    assert str(path) in str(info.value) and f"plugin name {name!r} is not a safe name" in str(info.value)


@pytest.mark.parametrize("name", ["AUX", "com3.corpus", "corpus."])
def test_corpus_name_like_a_device_refused(tmp_path, capsys, name):
    """prepare --name AUX / com3.corpus / corpus. -> exit 2 naming it, nothing written."""
    from _prepare_util import run_cli

    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", f"--name={name}", "--param", "n_train=10"],
                        capsys)
    assert code == 2 and f"--name {name!r} is not a safe corpus name" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("setting", ["--experiment=NUL", "--set=label=lpt1"])
def test_run_setting_named_like_a_device_refused(tmp_path, capsys, setting):
    """topicbench run --experiment=NUL or label=lpt1 -> exit 2 naming the setting, before the corpus is read."""
    from topicbench.cli import main

    code = main(["run", "--corpus", str(tmp_path / "no-corpus"), "--out", str(tmp_path / "out"), "--method",
                 "online_lda", setting])
    err = capsys.readouterr().err
    assert code == 2 and "is not a safe name" in err and "Windows device" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, culprit", [
    pytest.param(["run", "--corpus=", "--out=r", "--method=online_lda"], "--corpus", id="run-corpus-empty"),
    pytest.param(["run", "--corpus=c", "--out=", "--method=online_lda"], "--out", id="run-out-empty"),
    pytest.param(["corpus", "info", ""], "PATH", id="corpus-info-path-empty"),
    pytest.param(["prepare", "nyt_like", "--out="], "--out", id="prepare-out-empty"),
    pytest.param(["prepare", "nyt_like", "--out=c", "--corpora-dir="], "--corpora-dir", id="prepare-corpora-dir-empty"),
    pytest.param(["aggregate", "--out=", "t.parquet"], "--out", id="aggregate-out-empty")])
def test_empty_path_argument_refused(tmp_path, capsys, monkeypatch, args, culprit):
    """A path argument that is empty (an unset shell variable: --corpus=$CORPUS) -> exit 2 naming the flag.

    Nothing written (was: read as the current folder, e.g. 'counts/manifest.json: missing' naming no argument)."""
    from topicbench.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and f"error: {culprit} is empty" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    pytest.param(["aggregate", "--out=notes.txt/all.parquet", "t.parquet"], id="aggregate-out-under-a-file"),
    pytest.param(["prepare", "nyt_like", "--out=notes.txt/corpus"], id="prepare-out-under-a-file"),
    pytest.param(["run", "--corpus=c", "--out=notes.txt/run", "--method=online_lda"], id="run-out-under-a-file"),
])
def test_out_below_a_file_refused(tmp_path, capsys, monkeypatch, args):
    """--out below a user's file (notes.txt/all.parquet) -> exit 2 saying notes.txt is a file; the file kept.

    Was: aggregate's write said only '[Errno 17] File exists: notes.txt/all.parquet', prepare's 'notes.txt: File
    exists' (run already named the file)."""
    from topicbench.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("precious")
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / 'notes.txt'} is a file, not a" in err, err
    assert (tmp_path / "notes.txt").read_text() == "precious" and sorted(os.listdir(tmp_path)) == ["notes.txt"]
