"""The workflow config at DAG-build time: schema (unknown keys, unsafe names), grids (types, duplicates,
unknown names), datasets (recipes and their params) and paths all fail before any job, naming the culprit."""
import copy
import os
from pathlib import Path

import pytest
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from _run_util import REPO
from topicbench.grid import (FOLDER_MARK, GridError, check_config_file, check_folders_owned, check_paths, expand_all,
                             mark_folders, run_id)

SCHEMA = str(REPO / "workflow" / "config" / "schema.yaml")
BASE = {
    "data_dir": "data", "results_dir": "results",
    "datasets": {"d": {"recipe": "nyt_like", "params": {"n_train": 300}}},  # above online_lda's default batch_size (256)
    "experiments": {"e": {"dataset": "d", "seeds": [0],
                           "runs": [{"label": "x", "method": "online_lda", "grid": {"K": [3]}}]}},
}


def config(**changes):
    """BASE with dotted-path changes, e.g. config(**{"experiments.e.seeds": [-1]})."""
    out = copy.deepcopy(BASE)
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = out
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return out


def rename_experiment(name):
    out = copy.deepcopy(BASE)
    out["experiments"] = {name: out["experiments"]["e"]}
    return out


@pytest.mark.parametrize("cfg, culprit", [
    pytest.param(config(thread_per_run=2), "thread_per_run", id="top-level-typo"),
    pytest.param(rename_experiment("x$(touch INJECTED)y"), "x$(touch INJECTED)y", id="experiment-shell-injection"),
    pytest.param(rename_experiment("../../../escape"), "../../../escape", id="experiment-path-escape"),
    pytest.param(rename_experiment(".hidden"), ".hidden", id="experiment-leading-dot"),
    pytest.param(rename_experiment("-e"), "-e", id="experiment-leading-dash"),
    pytest.param(config(datasets={"-d": {"recipe": "nyt_like"}}, **{"experiments.e.dataset": "-d"}), "-d",
                 id="dataset-leading-dash"),
    pytest.param(config(**{"experiments.e.runs.0.label": "-x"}), "-x", id="label-leading-dash"),
    pytest.param(config(**{"experiments.e.runs.0.label": "a/b"}), "a/b", id="label-with-slash"),
    pytest.param(config(**{"experiments.e.runs.0.method": "online lda"}), "online lda", id="method-with-space"),
    pytest.param(config(**{"experiments.e.seeds": [0, 0]}), "non-unique", id="duplicate-seeds"),
    pytest.param(config(**{"experiments.e.seeds": [-1]}), "-1", id="negative-seed"),
    pytest.param(config(**{"experiments.e.seeds": [1.5]}), "1.5", id="fractional-seed"),
    pytest.param(config(threads_per_run=0), "0", id="threads_per_run-zero"),
    pytest.param(config(experiments={}), "experiments", id="no-experiments"),
    pytest.param(config(data_dir=""), "data_dir", id="data_dir-empty-is-the-root"),
    pytest.param(config(results_dir=""), "results_dir", id="results_dir-empty-is-the-root"),
    pytest.param(config(corpora_dir=""), "corpora_dir", id="corpora_dir-empty"),
])
def test_schema_rejects(cfg, culprit):
    """A config the schema forbids -> WorkflowError at DAG build naming the key or value."""
    with pytest.raises(WorkflowError) as info:
        validate(copy.deepcopy(cfg), SCHEMA)
    assert culprit in str(info.value)


@pytest.mark.parametrize("cfg, message", [
    pytest.param(rename_experiment("x$(touch INJECTED)y"), "experiment name 'x$(touch INJECTED)y' is not a safe name",
                 id="grid-experiment-injection"),
    pytest.param(rename_experiment(".."), "experiment name '..' is not a safe name", id="grid-experiment-dotdot"),
    pytest.param(config(datasets={"../d": {"recipe": "nyt_like"}}, **{"experiments.e.dataset": "../d"}),
                 "dataset name '../d'", id="grid-dataset-escape"),
    pytest.param(config(**{"experiments.e.runs.0.label": "../x"}), "run label '../x'", id="grid-label-escape"),
    pytest.param(rename_experiment("-e"), "experiment name '-e' is not a safe name", id="grid-experiment-leading-dash"),
    pytest.param(config(datasets={"-d": {"recipe": "nyt_like"}}, **{"experiments.e.dataset": "-d"}),
                 "dataset name '-d' is not a safe name", id="grid-dataset-leading-dash"),
    pytest.param(config(**{"experiments.e.runs.0.label": "-x"}), "run label '-x' is not a safe name",
                 id="grid-label-leading-dash"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"K": [3], "alpah": [0.1]}}), "unknown hyperparameter(s) ['alpah']",
                 id="grid-unknown-hyperparameter"),
    pytest.param(config(**{"experiments.e.runs.0.method": "online_ldaa"}), "unknown method 'online_ldaa'",
                 id="grid-unknown-method"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"K": []}}), "grid axis 'K' must be a non-empty list",
                 id="grid-empty-axis"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"K": [3, 3]}}), "grid axis 'K' lists 3 twice",
                 id="grid-duplicate-value"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"K": [3, 3.0]}}), "are the same run", id="grid-same-run-twice"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"K": [True]}}), "'K' must be a number", id="grid-K-true"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"alpha": [float("inf")]}}), "'alpha' must be finite", id="grid-alpha-inf"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"batch_size": [2.5]}}), "'batch_size' must be a whole number",
                 id="grid-batch_size-fraction"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"tau0": [0.0]}}), "'tau0' must be >= 1 when kappa > 0",
                 id="grid-tau0-zero"),
    pytest.param(config(**{"experiments.e.settings": {"passes": float("inf")}}), "'passes' must be finite", id="grid-passes-inf"),
    pytest.param(config(**{"experiments.e.settings": {"passes": 0}}), "passes must be positive", id="grid-passes-zero"),
    pytest.param(config(**{"experiments.e.settings": {"holdout": "every_nth_batch", "holdout_n": 0}}), "n must be >= 1",
                 id="grid-holdout_n-zero"),
    pytest.param(config(**{"experiments.e.settings": {"holdout_n": 300}}),
                 "'holdout_n' does not apply to the held-out policy 'fixed'", id="grid-holdout_n-under-the-fixed-policy"),
    pytest.param(config(**{"experiments.e.runs.0.settings": {"holdout": "every_nth_batch", "n_checkpoints": 5}}),
                 "'n_checkpoints' does not apply to the held-out policy 'every_nth_batch'",
                 id="grid-n_checkpoints-under-every_nth_batch"),
    pytest.param(config(**{"experiments.e.settings": {"max_docs": 0}}), "'max_docs' must be >= 1", id="grid-max_docs-zero"),
    pytest.param(config(**{"experiments.e.settings": {"passs": 2}}), "unknown run setting(s) ['passs']",
                 id="grid-unknown-setting"),
    pytest.param(config(**{"experiments.e.seeds": [-1]}), "seeds must be >= 0", id="grid-negative-seed"),
    pytest.param(config(**{"experiments.e.seeds": [1.5]}), "seed must be a whole number", id="grid-fractional-seed"),
    pytest.param(config(**{"experiments.e.seeds": [0, 0]}), "seeds lists 0 twice", id="grid-duplicate-seed"),
    pytest.param(config(**{"experiments.e.datasets": ["d"]}), "either dataset or datasets", id="grid-dataset-and-datasets"),
    pytest.param(config(**{"datasets.d.params": {"n_trian": 100}}), "n_trian", id="dataset-unknown-param"),
    pytest.param(config(**{"datasets.d.recipe": "nyt_lik"}), "unknown dataset 'nyt_lik'", id="dataset-unknown-recipe"),
    pytest.param(config(datasets={"d": {"recipe": "uci_bow", "params": {"collection": "kosx"}}}),
                 "dataset d: dataset uci_bow: parameter collection must be one of",
                 id="dataset-uci-bow-unknown-collection"),
    pytest.param(config(datasets={"d": {"recipe": "sotu", "params": {"unit": "sentence"}}}),
                 "dataset d: dataset sotu: parameter unit must be one of ['paragraph', 'speech'], got 'sentence'",
                 id="dataset-sotu-unknown-unit"),
    pytest.param(config(datasets={"d": {"recipe": "user_text", "params": {"path": "t.xml", "format": "xml"}}}),
                 "dataset d: dataset user_text: parameter format must be one of",
                 id="dataset-user-text-unknown-format"),
    pytest.param(config(datasets={"d": {"recipe": "user_bow", "params": {"path": "c", "vocab": "v", "id_base": 1}}}),
                 "dataset d: user_bow: id_base is for format=ldac only", id="dataset-user-bow-id-base-for-uci"),
    pytest.param(config(**{"experiments.e.settings": {"stream": "time_ordered", "passes": 2}}),
                 "time_ordered is a true stream: one pass only, got passes = 2.0", id="grid-time-ordered-two-passes"),
    pytest.param(config(**{"datasets.d.params": {"n_train": 100, "n_test": 0}}),
                 "holdout fixed scores the test split, but dataset d is prepared with n_test = 0",
                 id="grid-fixed-holdout-on-a-planted-corpus-without-test-documents"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"K": [3], "batch_size": [500]}}),
                 "batch_size = 500 exceeds the 300 training documents of dataset d (n_train)",
                 id="grid-batch_size-above-a-planted-n_train"),
    pytest.param(config(**{"experiments.e.settings": {"train_subset": 400}}),
                 "train_subset = 400 exceeds the 300 training documents of dataset d", id="grid-train_subset-above-n_train"),
    pytest.param(config(**{"experiments.e.settings": {"holdout": "lookahead", "holdout_n": 300}}),
                 "held-out policy lookahead: n = 300 leaves nothing to train on",
                 id="grid-lookahead-window-the-whole-planted-stream"),
    pytest.param(config(**{"experiments.e.settings": {"holdout": "lookahead", "holdout_n": 50, "max_docs": 40}}),
                 "held-out policy lookahead: n = 50 leaves nothing to train on (the stream has 40 documents",
                 id="grid-lookahead-window-beyond-max_docs"),
    pytest.param(config(**{"experiments.e.settings": {"holdout": "every_nth_batch", "holdout_n": 3}}),
                 "held-out policy every_nth_batch: holdout_n = 3 but the stream has only 2 minibatches",
                 id="grid-every_nth_batch-beyond-the-planted-stream"),
    pytest.param(config(**{"datasets.d.params": {"n_train": 300, "min_length": 1, "max_length": 1}}),
                 "no document of dataset d (1 to 1 tokens) can be completed with observed_fraction = 0.5",
                 id="grid-planted-documents-too-short-to-complete"),
    pytest.param(config(**{"datasets.d.params": {"n_train": 300, "min_length": 2, "max_length": 2},
                           "experiments.e.settings": {"observed_fraction": 0.9}}),
                 "no document of dataset d (2 to 2 tokens) can be completed with observed_fraction = 0.9",
                 id="grid-planted-documents-too-short-for-the-observed-fraction"),
    pytest.param(config(datasets={"d": {"recipe": "lee_news_gensim", "params": {"min_df": 0}}}),
                 "dataset d: preprocessing: min_df must be a document count >= 1, got 0",
                 id="dataset-text-min_df-zero"),
    pytest.param(config(datasets={"d": {"recipe": "sotu", "params": {"max_df": 1.5}}}),
                 "dataset d: preprocessing: max_df must be a fraction in (0, 1], got 1.5",
                 id="dataset-text-max_df-above-1"),
    pytest.param(config(**{"datasets.d.params": {"temperature": "1e-400"}}), "temperature: '1e-400' is below the smallest",
                 id="dataset-param-1e-400-underflows-to-zero"),
    pytest.param(config(experiments={}), "defines no experiments", id="grid-no-experiments"),
    pytest.param(config(**{"experiments.e.runs.0.grid": {"tau0": [0.5]}}), "'tau0' must be >= 1 when kappa > 0",
                 id="grid-tau0-below-one-step-size-above-one"),
    pytest.param(config(**{"experiments.e.runs": [
        {"label": "x", "method": "online_lda", "grid": {"K": [3]}},
        {"label": "y", "method": "online_lda", "grid": {"K": [3]}, "settings": {"observed_fraction": 0.8}}]}),
        "run y scores with observed_fraction=0.8 but run x with 0.5", id="grid-two-scoring-protocols-in-one-experiment"),
    pytest.param(config(**{"experiments.e.runs": [
        {"label": "x", "method": "online_lda", "grid": {"K": [3]}},
        {"label": "y", "method": "online_lda", "grid": {"K": [3]}, "settings": {"holdout": "every_nth_batch"}}]}),
        "run y scores with holdout='every_nth_batch'", id="grid-two-held-out-policies-in-one-experiment"),
])
def test_expansion_rejects(cfg, message):
    """A config whose runs cannot be expanded as written -> GridError at DAG build naming the culprit."""
    with pytest.raises(GridError) as info:
        expand_all(cfg)
    assert message in str(info.value)


def test_yaml11_float_strings_in_a_grid_are_numbers():
    """grid alpha: [1e-4, 0.001] (YAML 1.1 reads '1e-4' as text) -> two float runs, ids by value, no text column."""
    cfg = config(**{"experiments.e.runs.0.grid": {"K": [3], "alpha": ["1e-4", 0.001]}})
    runs = expand_all(cfg)
    alphas = sorted(run["spec"].params["alpha"] for run in runs.values())
    assert alphas == [1e-4, 0.001] and all(isinstance(a, float) for a in alphas)
    assert any("/alpha~0.0001/" in rid for rid in runs), sorted(runs)


def test_grid_values_equal_to_six_digits_are_two_runs():
    """grid alpha: [0.1234567, 0.1234568] (one folder name under %g, 'alpha~0.123457') -> two runs, each folder
    naming its value exactly; values %g writes exactly keep their %g names (was: refused as the same run)."""
    cfg = config(**{"experiments.e.runs.0.grid": {"K": [3], "alpha": [0.1234567, 0.1234568, 1e-4, 2.5e-7]}})
    names = sorted(rid.split("/")[5] for rid in expand_all(cfg))
    assert names == ["alpha~0.0001", "alpha~0.1234567", "alpha~0.1234568", "alpha~2.5e-07"], names


def test_grid_value_with_a_positive_exponent_is_a_folder_name():
    """grid tau0: [1e20, 2.5e6 + 0.5] (%g writes '1e+20', '2.5e+06': '+' is no folder-name character) -> two runs
    named tau0~1e20 and tau0~2500000.5 (was: refused as 'not a safe name')."""
    cfg = config(**{"experiments.e.runs.0.grid": {"K": [3], "tau0": [1e20, 2500000.5]}})
    names = sorted(rid.split("/")[5] for rid in expand_all(cfg))
    assert names == ["tau0~1e20", "tau0~2500000.5"], names


def test_string_values_cannot_leave_results_dir():
    """A text hyperparameter value such as '../x' -> GridError: it would become a path component."""
    with pytest.raises(GridError, match=r"value of 'solver' '\.\./x' is not a safe name"):
        run_id("e", "d", "m", "x", {"solver": "../x"}, 0)


def test_negative_grid_value_is_a_safe_folder_name():
    """A negative hyperparameter value (-1; its folder is 'shift~-1', so the dash leads no name) -> accepted."""
    assert run_id("e", "d", "m", "x", {"shift": -1}, 0) == "e/d/m/label~x/shift~-1/seed~0"


@pytest.mark.parametrize("key", ["results_dir", "data_dir"])
def test_output_folder_below_a_file(tmp_path, key):
    """results_dir/data_dir below an existing file (x/results where x is a file) -> GridError at DAG build naming
    both, the file untouched (was: passed, then NotADirectoryError from the workflow's onstart)."""
    blocker = tmp_path / "x"
    blocker.write_text("keep me")
    folders = {"results_dir": str(tmp_path / "results"), "data_dir": str(tmp_path / "data")}
    folders[key] = str(blocker / "results")
    cfg = config(**folders)
    with pytest.raises(GridError, match=rf"{key} '{blocker}/results' cannot be made: '{blocker}' is not a folder"):
        check_paths(cfg, expand_all(cfg))
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("key", ["results_dir", "data_dir"])
def test_output_folder_in_a_read_only_place(tmp_path, key):
    """results_dir/data_dir where nothing can be written (under /proc, read-only even for root) -> GridError at DAG
    build naming it (was: passed, then a traceback from the workflow's onstart)."""
    folders = {"results_dir": str(tmp_path / "results"), "data_dir": str(tmp_path / "data")}
    folders[key] = "/proc/topicbench-results"
    cfg = config(**folders)
    with pytest.raises(GridError, match=f"{key} '/proc/topicbench-results' is not writable: nothing can be written "
                                        f"in '/proc'"):
        check_paths(cfg, expand_all(cfg))
    assert not Path("/proc/topicbench-results").exists()


@pytest.mark.parametrize("variable, fault", [pytest.param("TMPDIR", "read-only", id="TMPDIR-read-only"),
                                             pytest.param("TMPDIR", "full", id="TMPDIR-on-a-full-disk"),
                                             pytest.param("TMP", "full", id="TMP-on-a-full-disk"),
                                             pytest.param("TMPDIR", "short", id="TMPDIR-takes-part-of-the-probe")])
def test_temporary_folder_that_takes_no_file(tmp_path, monkeypatch, variable, fault):
    """TMPDIR (or TMP) a read-only folder or one on a full disk -> GridError at DAG build naming the variable and the
    error (was: Snakemake's job scheduler stopped with a traceback writing its pulp problem file there). A full disk
    fails the write, or writes only part of the probe."""
    from topicbench.grid import check_temp_folders

    folder = "/proc" if fault == "read-only" else str(tmp_path)
    if fault == "full":
        def full(fd, data):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(os, "write", full)
    if fault == "short":
        write = os.write
        monkeypatch.setattr(os, "write", lambda fd, data: write(fd, data[:len(data) // 2]))
    with pytest.raises(GridError, match=rf"{variable} '{folder}' cannot hold a temporary file \((No such file|No space)"):
        check_temp_folders({variable: folder})
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []  # the probe removed
    check_temp_folders({variable: str(tmp_path), "TEMP": str(tmp_path / "none")})  # a folder with room; none at all
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("key", ["results_dir", "data_dir"])
def test_output_folder_on_a_full_disk(tmp_path, monkeypatch, key):
    """results_dir/data_dir on a full disk (a file can be made there, its bytes not written) -> GridError at DAG build
    naming it and the error (was: passed, then the onstart's bare '[Errno 28] No space left on device')."""
    (tmp_path / "full").mkdir()
    fsync = os.fsync

    def full_disk(fd):  # where a full disk's error surfaces at the latest
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(tmp_path / "full")):
            raise OSError(28, "No space left on device")
        fsync(fd)

    folders = {"results_dir": str(tmp_path / "results"), "data_dir": str(tmp_path / "data")}
    folders[key] = str(tmp_path / "full" / "out")
    cfg = config(**folders)
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(GridError, match=rf"{key} '{folders[key]}' is not writable: .*\(No space left on device\)"):
        check_paths(cfg, expand_all(cfg))
    monkeypatch.undo()
    assert list((tmp_path / "full").iterdir()) == []  # no folder made, the probe removed


def test_results_dir_that_is_a_file(tmp_path):
    """results_dir naming an existing file -> GridError naming it, the file untouched."""
    target = tmp_path / "results"
    target.write_text("keep me")
    cfg = config(results_dir=str(target), data_dir=str(tmp_path / "data"))
    with pytest.raises(GridError, match="results_dir .* is a file"):
        check_paths(cfg, expand_all(cfg))
    assert target.read_text() == "keep me"


@pytest.mark.parametrize("key", ["results_dir", "data_dir"])
def test_empty_output_folder_is_not_the_root(tmp_path, key):
    """results_dir or data_dir '' (the workflow writes f"{data_dir}/corpora/...": /corpora at the root) -> GridError
    naming the key, also where the schema is not applied (was: a prepare planned into /corpora/<name>)."""
    cfg = config(**{"results_dir": str(tmp_path / "results"), "data_dir": str(tmp_path / "data"), key: ""})
    with pytest.raises(GridError, match=f"{key} is empty"):
        check_paths(cfg, expand_all(cfg))


@pytest.mark.parametrize("key, user_file", [
    pytest.param("results_dir", "all_traces.parquet", id="results_dir-user-all_traces"),
    pytest.param("results_dir", "figures/hoffman_fig1.png", id="results_dir-user-figures"),
    pytest.param("results_dir", "paper/topicbench.md", id="results_dir-user-paper"),
    pytest.param("data_dir", "corpora/nyt_like/corpus.json", id="data_dir-user-corpora"),
])
def test_user_folder_with_workflow_names(tmp_path, key, user_file):
    """A user's folder holding a name the workflow writes as results_dir/data_dir -> GridError naming it, file kept.

    Snakemake would delete the file before the job. Once the folder carries topicbench's mark (left by the
    workflow's onstart), the same check passes."""
    folders = {"results_dir": tmp_path / "mine", "data_dir": tmp_path / "data"}
    folders[key] = tmp_path / "mine"
    if key == "data_dir":
        folders["results_dir"] = tmp_path / "results"
    target = tmp_path / "mine" / user_file
    target.parent.mkdir(parents=True)
    target.write_text("keep me")
    (tmp_path / "mine" / "notes.txt").write_text("mine too")
    cfg = config(**{k: str(v) for k, v in folders.items()})
    with pytest.raises(GridError, match=f"{key} .*mine.* already holds {user_file.split('/')[0]}.*{FOLDER_MARK}"):
        check_folders_owned(cfg)
    assert target.read_text() == "keep me"
    mark_folders(cfg)
    check_folders_owned(cfg)


def test_user_folder_with_other_files_is_accepted(tmp_path):
    """A user's results_dir holding only names the workflow never writes -> accepted, the mark added beside them.

    Its jobs cannot touch those files."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("keep me")
    cfg = config(results_dir=str(mine), data_dir=str(tmp_path / "data"))
    check_folders_owned(cfg)
    mark_folders(cfg)
    assert (mine / FOLDER_MARK).exists() and (mine / "thesis.tex").read_text() == "keep me"


@pytest.mark.parametrize("corpora_dir", [
    pytest.param(None, id="corpora_dir-not-set"),
    pytest.param("/nonexistent/corpora", id="corpora_dir-missing"),
    pytest.param("EMPTY", id="corpora_dir-without-this-corpus"),
])
def test_real_dataset_without_corpora_dir(corpora_dir, tmp_path):
    """A real-corpus experiment with corpora_dir unset, missing, or without that corpus's folder -> GridError at DAG
    build naming the dataset and corpora_dir, not a failed prepare job."""
    cfg = config(datasets={**BASE["datasets"], "news": {"recipe": "20news_bydate"}}, **{"experiments.e.dataset": "news"})
    if corpora_dir == "EMPTY":
        corpora_dir = str(tmp_path)  # exists, but holds no 20news_bydate/
    if corpora_dir:
        cfg["corpora_dir"] = corpora_dir
    with pytest.raises(GridError, match="dataset news .*corpora_dir"):
        expand_all(cfg)
    cfg["experiments"]["e"]["dataset"] = "d"  # declared but unused: never prepared, so no error
    expand_all(cfg)


def test_duplicate_experiment_in_yaml(tmp_path):
    """The same experiment name twice in a config file -> GridError naming the key and both lines."""
    path = tmp_path / "c.yaml"
    path.write_text("experiments:\n  e:\n    dataset: d\n  e:\n    dataset: d2\n")
    with pytest.raises(GridError, match=r"c.yaml, line 4: key 'e' appears twice in one mapping \(first on line 2\)"):
        check_config_file(path)


def test_yaml_merge_keys_are_not_duplicates(tmp_path):
    """An override after a YAML merge key (<<: *base, as ci.yaml does) -> accepted."""
    path = tmp_path / "c.yaml"
    path.write_text("a: &base {x: 1, y: 2}\nb:\n  <<: *base\n  x: 3\n")
    check_config_file(path)
    for shipped in ("ci", "default", "paper"):
        check_config_file(Path(REPO) / "workflow" / "config" / f"{shipped}.yaml")


@pytest.mark.parametrize("text, shown, read", [
    pytest.param("K: [010]", "'010'", "8", id="config-octal-010"),
    pytest.param("tau0: [1:30]", "'1:30'", "90", id="config-base60-1:30"),
    pytest.param("seed: 0b11", "'0b11'", "3", id="config-binary-0b11"),
])
def test_yaml11_only_numbers_in_a_config_file(tmp_path, text, shown, read):
    """A config number YAML 1.1 reads as another value (010 is 8, 1:30 is 90) -> GridError naming file, line and both."""
    path = tmp_path / "c.yaml"
    path.write_text(f"experiments:\n  e:\n    grid:\n      {text}\n      quoted: ['010', \"1:30\"]\n      same: [07, 0x10]\n")
    with pytest.raises(GridError, match=rf"c.yaml, line 4: {shown} reads as {read} in YAML 1.1"):
        check_config_file(path)


@pytest.mark.parametrize("text, line, shown, read", [
    pytest.param("datasets:\n  no:\n    recipe: nyt_like", 3, "'no'", "False", id="config-dataset-named-no"),
    pytest.param("experiments:\n  on:\n    dataset: d", 3, "'on'", "True", id="config-experiment-named-on"),
    pytest.param("experiments:\n  e:\n    runs: [{label: off}]", 4, "'off'", "False", id="config-label-off"),
    pytest.param("experiments:\n  e:\n    settings: {report_elbo: yes}", 4, "'yes'", "True", id="config-setting-yes"),
])
def test_yaml11_only_booleans_in_a_config_file(tmp_path, text, line, shown, read):
    """A config word only YAML 1.1 reads as a boolean (a dataset named no, label: off) -> GridError naming file, line,
    the word and its reading (was: 'dataset name False is not a safe name', or yes silently true)."""
    path = tmp_path / "c.yaml"
    path.write_text(f"results_dir: res\n{text}\nquoted: ['no', \"on\", true, false]\n")
    with pytest.raises(GridError, match=rf"c.yaml, line {line}: {shown} reads as the boolean {read} in YAML 1.1"):
        check_config_file(path)


@pytest.mark.parametrize("layout", [
    pytest.param({"results_dir": "data/corpora/d", "data_dir": "data"}, id="results_dir-inside-a-corpus-folder"),
    pytest.param({"results_dir": "data/corpora", "data_dir": "data"}, id="results_dir-is-data_dir-corpora"),
    pytest.param({"results_dir": "res", "data_dir": "res/runs"}, id="data_dir-inside-results_dir-runs"),
    pytest.param({"results_dir": "corpora/res", "data_dir": "data", "corpora_dir": "corpora"},
                 id="results_dir-inside-corpora_dir"),
    pytest.param({"results_dir": "res", "data_dir": "corpora", "corpora_dir": "corpora"}, id="data_dir-is-corpora_dir"),
])
def test_output_folders_inside_each_other(tmp_path, layout):
    """results_dir/data_dir inside a folder the other replaces (a corpus, runs/) or in corpora_dir -> GridError at
    DAG build naming both keys (a prepare or a run swap would take the other's files with it)."""
    (tmp_path / "corpora").mkdir()
    cfg = config(**{key: str(tmp_path / value) for key, value in layout.items()})
    with pytest.raises(GridError, match=r"(results_dir|data_dir) .* inside .*(data_dir|results_dir|corpora_dir)"):
        check_paths(cfg, expand_all(cfg))


@pytest.mark.parametrize("key, target, other", [
    pytest.param("results_dir", "data/corpora/d", {"data_dir": "data"}, id="results_dir-linked-into-a-corpus-folder"),
    pytest.param("data_dir", "res/runs/x", {"results_dir": "res"}, id="data_dir-linked-into-results_dir-runs"),
    pytest.param("results_dir", "corpora/res", {"data_dir": "data", "corpora_dir": "corpora"},
                 id="results_dir-linked-into-corpora_dir"),
])
def test_output_folder_linked_inside_another(tmp_path, key, target, other):
    """results_dir/data_dir a symbolic link to a folder inside a corpus folder, runs/ or corpora_dir -> GridError at
    DAG build naming both keys, as for the same folder spelt out (was: accepted, paths compared as spelt only)."""
    (tmp_path / target).mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / target)
    cfg = config(**{key: str(tmp_path / "link"), **{k: str(tmp_path / v) for k, v in other.items()}})
    with pytest.raises(GridError, match=rf"{key} .* inside .*(data_dir|results_dir|corpora_dir).* symbolic link"):
        check_paths(cfg, expand_all(cfg))


@pytest.mark.parametrize("corpora, owner", [
    pytest.param("data/corpora/d", "data_dir", id="corpora_dir-is-a-corpus-folder"),
    pytest.param("res/runs", "results_dir", id="corpora_dir-is-results_dir-runs"),
])
def test_corpora_dir_inside_an_output_folder(tmp_path, corpora, owner):
    """corpora_dir inside data_dir/corpora (a corpus folder a prepare replaces) or results_dir/runs -> GridError at DAG
    build naming both (was: accepted; the prepare job then refused its own output folder, or runs filled it)."""
    (tmp_path / corpora).mkdir(parents=True)
    cfg = config(results_dir=str(tmp_path / "res"), data_dir=str(tmp_path / "data"),
                 corpora_dir=str(tmp_path / corpora))
    with pytest.raises(GridError, match=rf"corpora_dir .* lies inside {owner}'s"):
        check_paths(cfg, expand_all(cfg))


@pytest.mark.parametrize("key", ["results_dir", "data_dir"])
def test_dataset_input_folder_holding_an_output_folder(tmp_path, key):
    """A user_text folder (path=<folder>) that holds results_dir or data_dir -> GridError at DAG build naming both.

    (Was: accepted; the corpus would read the workflow's own outputs, and its input folder change with every job.)"""
    (tmp_path / "texts").mkdir()
    cfg = config(**{"results_dir": str(tmp_path / "res"), "data_dir": str(tmp_path / "data"),
                    key: str(tmp_path / "texts" / "out")},
                 datasets={"d": {"recipe": "user_text", "params": {"format": "files", "path": str(tmp_path / "texts")}}})
    with pytest.raises(GridError, match=rf"dataset d: its input folder .*texts' holds {key}"):
        check_paths(cfg, expand_all(cfg))


def test_results_dir_equal_to_data_dir_is_accepted(tmp_path):
    """results_dir == data_dir (their entries never clash: corpora/ versus runs/, figures/...) -> accepted."""
    cfg = config(results_dir=str(tmp_path / "out"), data_dir=str(tmp_path / "out"))
    check_paths(cfg, expand_all(cfg))


@pytest.mark.parametrize("key", ["results_dir", "data_dir", "corpora_dir"])
def test_tilde_is_not_the_home_folder(tmp_path, monkeypatch, key):
    """results_dir: ~/results in a config (YAML and Snakemake do not expand ~) -> GridError naming the key, no
    folder literally named '~' made in the working directory."""
    monkeypatch.chdir(tmp_path)
    cfg = config(results_dir=str(tmp_path / "r"), data_dir=str(tmp_path / "d"))
    cfg[key] = "~/topicbench_out"
    with pytest.raises(GridError, match=f"{key} .*'~'"):
        check_paths(cfg, expand_all(cfg))
    assert not (tmp_path / "~").exists()


@pytest.mark.parametrize("param, value", [pytest.param("n_train", 0, id="synthetic-n_train-zero"),
                                          pytest.param("temperature", 0.0, id="synthetic-temperature-zero"),
                                          pytest.param("min_length", 50, id="synthetic-min_length-above-max")])
def test_synthetic_dataset_out_of_range_at_dag_build(param, value):
    """A synthetic dataset parameter of the right type but out of range (n_train: 0, temperature: 0) -> GridError at
    DAG build naming the dataset and the parameter, not a failed prepare job after other jobs ran."""
    params = {"n_train": 120, "n_test": 20, "n_words": 60, "n_topics": 3, "min_length": 20, "max_length": 40}
    cfg = config(datasets={"d": {"recipe": "nyt_like", "params": {**params, param: value}}})
    with pytest.raises(GridError, match=f"dataset d: .*{param}"):
        expand_all(cfg)


@pytest.mark.parametrize("cfg, message", [
    pytest.param(rename_experiment("e" * 240), "240 characters", id="experiment-name-240-chars"),
    pytest.param(config(**{"experiments.e.runs.0.label": "x" * 251}), "251 characters", id="label-251-chars"),
    pytest.param(config(datasets={"d" * 230: BASE["datasets"]["d"]}, **{"experiments.e.dataset": "d" * 230}),
                 "230 characters", id="dataset-name-230-chars"),
])
def test_name_too_long_for_a_folder(cfg, message):
    """A name too long for a folder with its prefix or staging suffix (ENAMETOOLONG) -> GridError at DAG build."""
    with pytest.raises(GridError, match=message):
        expand_all(cfg)


@pytest.mark.parametrize("cfg, message", [
    pytest.param({**rename_experiment("exp"), "experiments": {"exp": BASE["experiments"]["e"],
                                                              "Exp": BASE["experiments"]["e"]}},
                 "differ only in letter case", id="experiments-exp-and-Exp"),
    pytest.param(config(datasets={"d": BASE["datasets"]["d"], "D": BASE["datasets"]["d"]},
                        **{"experiments.e.datasets": ["d", "D"]}, **{"experiments.e.dataset": None}),
                 "differ only in letter case", id="datasets-d-and-D"),
    pytest.param(config(**{"experiments.e.runs": [{"label": "x", "method": "online_lda", "grid": {"K": [3]}},
                                                  {"label": "X", "method": "online_lda", "grid": {"K": [3]}}]}),
                 "differ only in letter case", id="labels-x-and-X"),
])
def test_names_differing_only_in_case(cfg, message):
    """Two names differing only in case (one folder on macOS/Windows) -> GridError at DAG build naming both."""
    cfg = {k: v for k, v in cfg.items()}
    for experiment in cfg["experiments"].values():
        if experiment.get("dataset", "") is None:
            del experiment["dataset"]
    with pytest.raises(GridError, match=message):
        expand_all(cfg)


@pytest.mark.parametrize("text", [
    pytest.param("experiments:\n  e:\n    runs:\n      - grid: {alpha: [1.0e-400]}\n", id="config-float-1.0e-400"),
    pytest.param("experiments:\n  e:\n    runs:\n      - grid: {alpha: [1e-400]}\n", id="config-text-1e-400"),
])
def test_number_below_the_smallest_float_in_a_config_file(tmp_path, text):
    """A nonzero config number that reads as 0.0 (alpha: 1.0e-400) -> GridError naming the value (and file:line)."""
    path = tmp_path / "c.yaml"
    path.write_text(text)
    if "[1e-400]" in text:  # YAML 1.1 leaves it text: the grid's type conversion names it
        cfg = config(**{"experiments.e.runs.0.grid": {"K": [3], "alpha": ["1e-400"]}})
        with pytest.raises(GridError, match=r"'1e-400' is below the smallest float"):
            expand_all(cfg)
        return
    with pytest.raises(GridError, match=r"c\.yaml, line 4: '1\.0e-400' is below the smallest float"):
        check_config_file(path)


@pytest.mark.parametrize("key", ["results_dir", "data_dir", "corpora_dir"])
def test_brace_in_a_folder_name(tmp_path, key):
    """results_dir '/x/res{x}' (Snakemake reads {x} as a wildcard; its error names a rule, not the key) -> GridError naming it."""
    cfg = config(results_dir=str(tmp_path / "results"), data_dir=str(tmp_path / "data"))
    cfg[key] = str(tmp_path / "res{x}")
    with pytest.raises(GridError, match=rf"{key} .*res\{{x\}}' holds a brace"):
        check_paths(cfg, expand_all(cfg))


@pytest.mark.parametrize("key", ["results_dir", "data_dir", "corpora_dir"])
@pytest.mark.parametrize("char", [pytest.param("\n", id="newline"), pytest.param("\t", id="tab")])
def test_control_character_in_a_folder_name(tmp_path, key, char):
    """results_dir 'res<newline>x' or 'res<tab>x' -> GridError naming the key and the character, no folder made.

    (Was: accepted; a pasted line break, of which Snakemake only warns, breaks every log and path list it prints.)"""
    cfg = config(results_dir=str(tmp_path / "results"), data_dir=str(tmp_path / "data"))
    cfg[key] = str(tmp_path / f"res{char}x")
    with pytest.raises(GridError) as info:
        check_paths(cfg, expand_all(cfg))
    assert str(info.value).startswith(key) and f"holds a control character ({char!r})" in str(info.value)
    assert not (tmp_path / f"res{char}x").exists()


def test_control_character_in_a_dataset_file_path(tmp_path):
    """A user_text path naming a file 'a<newline>b.jsonl' (a prepare input) -> GridError naming the dataset and the
    parameter, as for a brace (was: accepted, Snakemake warning of a line break in a file path)."""
    (tmp_path / "a\nb.jsonl").write_text('{"text": "apple bread"}\n')
    cfg = config(results_dir=str(tmp_path / "results"), data_dir=str(tmp_path / "data"),
                 datasets={"d": {"recipe": "user_text", "params": {"path": str(tmp_path / "a\nb.jsonl")}}})
    with pytest.raises(GridError) as info:
        expand_all(cfg)
    assert str(info.value).startswith("dataset d: parameter path") and "control character ('\\n')" in str(info.value)


@pytest.mark.parametrize("relative", [pytest.param(False, id="absolute-path"),
                                      pytest.param(True, id="path-under-corpora_dir")])
def test_brace_in_a_dataset_file_path(tmp_path, relative):
    """A user_text path '/x/we{ird}.jsonl' (a prepare input; Snakemake: {ird} a wildcard) -> GridError naming the dataset.

    At DAG build, with the parameter (was: Snakemake's WildcardError, naming the prepare rule only)."""
    (tmp_path / "we{ird}.jsonl").write_text('{"text": "apple bread"}\n')
    path = "we{ird}.jsonl" if relative else str(tmp_path / "we{ird}.jsonl")
    cfg = config(results_dir=str(tmp_path / "results"), data_dir=str(tmp_path / "data"),
                 datasets={"d": {"recipe": "user_text", "params": {"path": path}}})
    if relative:
        cfg["corpora_dir"] = str(tmp_path)
    with pytest.raises(GridError, match=r"dataset d: parameter path .*we\{ird\}.jsonl' names a file whose path holds a "
                                        r"brace"):
        expand_all(cfg)


@pytest.mark.parametrize("case", ["path-missing", "path-a-dangling-link", "path-a-link-loop", "corpora_dir-not-mounted",
                                  "vocab_file-missing"])
def test_dataset_file_parameter_naming_nothing(tmp_path, case):
    """A used dataset's file parameter naming nothing (missing, a dangling link or a loop, corpora_dir not there) ->
    GridError at DAG build naming the dataset and the parameter.

    (Was: passed; the changed config forced the prepare, Snakemake deleted the old corpus's corpus.json and the
    prepare failed, leaving the old corpus unloadable.)"""
    corpora = tmp_path / "corpora"
    corpora.mkdir()
    (corpora / "d.jsonl").write_text('{"text": "apple bread"}\n')
    (corpora / "dangling.jsonl").symlink_to(corpora / "gone.jsonl")
    (corpora / "loop.jsonl").symlink_to(corpora / "loop.jsonl")
    params, corpora_dir = {"path": "d.jsonl"}, str(corpora)
    if case == "corpora_dir-not-mounted":
        corpora_dir = str(tmp_path / "unmounted")
    elif case == "vocab_file-missing":
        params["vocab_file"] = "v.txt"
    else:
        params["path"] = {"path-missing": "nope.jsonl", "path-a-dangling-link": "dangling.jsonl",
                          "path-a-link-loop": "loop.jsonl"}[case]
    cfg = config(results_dir=str(tmp_path / "results"), data_dir=str(tmp_path / "data"), corpora_dir=corpora_dir,
                 datasets={"d": {"recipe": "user_text", "params": params}})
    key = "vocab_file" if case == "vocab_file-missing" else "path"
    with pytest.raises(GridError, match=rf"dataset d: parameter {key} '{params[key]}' names no readable file"):
        expand_all(cfg)
    params.update(path="d.jsonl", vocab_file=None)
    expand_all({**cfg, "corpora_dir": str(corpora)})  # the file there: no error


@pytest.mark.parametrize("where", ["data_dir-corpora-d", "results_dir-runs-e"])
def test_symlink_below_an_output_folder(tmp_path, where):
    """data_dir/corpora/d (or results_dir/runs/e) a symlink to a user's folder elsewhere -> GridError naming it; kept."""
    cfg = config(results_dir=str(tmp_path / "results"), data_dir=str(tmp_path / "data"))
    mine = tmp_path / "elsewhere"
    mine.mkdir()
    (mine / "corpus.json").write_text("{}")
    link = tmp_path / ("data/corpora/d" if where.startswith("data") else "results/runs/e")
    link.parent.mkdir(parents=True)
    link.symlink_to(mine)
    with pytest.raises(GridError, match=f"{link} is a symbolic link"):
        check_paths(cfg, expand_all(cfg))
    assert (mine / "corpus.json").read_text() == "{}"


@pytest.mark.parametrize("name", ["CON", "nul", "nul.txt", "Com1", "LPT9.log", "aux.", "a."])
def test_schema_name_pattern_is_safe_name(name):
    """A Windows device name (CON, nul.txt) or a trailing dot as a name -> the schema refuses what SAFE_NAME refuses.

    The schema names the culprit at validation, as for every other unsafe name. (Its pattern is spelt for JSON
    Schema's regex dialect; '$' before a final newline is Python's quirk, and grid.py refuses that one.)"""
    import re

    import yaml
    from topicbench.method import SAFE_NAME

    pattern = yaml.safe_load(open(SCHEMA))["$defs"]["name"]["pattern"]
    assert not SAFE_NAME.fullmatch(name) and not re.search(pattern, name)
    with pytest.raises(WorkflowError, match=re.escape(name)):
        validate(rename_experiment(name), SCHEMA)
    for near_miss in ("console", "com10", "nul_x", "Lpt", "a.b", "x-", "_"):  # safe names both accept
        assert SAFE_NAME.fullmatch(near_miss) and re.search(pattern, near_miss), near_miss
