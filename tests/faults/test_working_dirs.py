"""Fault catalogue, working folders and path spellings: the same prepare started from another folder, or with its paths
spelt another way (relative, '..', a trailing slash, a symbolic link, a space and non-ASCII letters, '~'), reads the
same files and records the same corpus, or stops naming the path before compute. (The workflow's cases, run from
another folder with -s/-d, are in test_workflow.py.)"""
import json
import os

import pytest

from topicbench.grid import GridError, check_workflow_profile, expand_all

try:
    from ._prepare_util import REPO, run_cli
except ImportError:
    from _prepare_util import REPO, run_cli

DOCS = "".join(json.dumps({"id": f"d{i}", "text": f"apple bread cheese w{i % 3} w{i % 4}"}) + "\n" for i in range(12))
LOOSE_PARAMS = {"min_df": 1, "max_df": 1.0}  # every word of a tiny source kept
LOOSE = [arg for name, value in LOOSE_PARAMS.items() for arg in ("--param", f"{name}={value}")]


def test_corpora_dir_spelt_five_ways_from_two_folders_is_one_corpus(tmp_path, capsys, monkeypatch):
    """corpora_dir spelt five ways from two working folders -> one corpus (content, source record, corpora_dir).

    user_text under a corpora_dir spelt relative, with '..' and a trailing slash, through a link, and absolute; its
    path has a space and non-ASCII letters. A relative spelling joined twice, or a record of the spelling, fails it."""
    corpora = tmp_path / "raw corpora é"
    (corpora / "mine").mkdir(parents=True)
    (corpora / "mine" / "docs.jsonl").write_text(DOCS)
    (tmp_path / "linked").symlink_to(corpora)
    (tmp_path / "a" / "b").mkdir(parents=True)
    records = {}
    for where, spelt in [("a", "../raw corpora é"), ("a/b", "../../a/../raw corpora é/"), ("a", "../linked"),
                         ("a/b", "./../../linked/"), ("a", str(corpora))]:
        monkeypatch.chdir(tmp_path / where)
        out = tmp_path / f"out{len(records)}"
        code, err = run_cli(["prepare", "user_text", "--out", os.path.relpath(out), "--corpora-dir", spelt,
                             "--param", "path=mine/docs.jsonl", "--param", "id_column=id", *LOOSE], capsys)
        assert code == 0, (where, spelt, err)
        meta = json.loads((out / "corpus.json").read_text())
        records[where, spelt] = (meta["content_sha256"], meta["source_files"], meta["corpora_dir"],
                                 meta["dataset_params"])
    assert len(set(map(json.dumps, records.values()))) == 1, records
    assert next(iter(records.values()))[2] == str(corpora)


@pytest.mark.parametrize("recipe, key", [pytest.param("user_text", "path", id="user_text-path"),
                                         pytest.param("user_text", "vocab_file", id="user_text-vocab_file"),
                                         pytest.param("user_bow", "vocab", id="user_bow-vocab")])
def test_path_parameter_starting_with_tilde_refused(tmp_path, capsys, monkeypatch, recipe, key):
    """A file parameter '~/...' (path, vocab, vocab_file; neither the shell after '=' nor YAML expands it) -> exit 2
    naming the parameter and '~', no corpus written (was: read from a folder named '~' in the working folder)."""
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "~"
    home.mkdir()
    (home / "docs.jsonl").write_text(DOCS)
    (home / "vocab.txt").write_text("apple\nbread\ncheese\n")
    (home / "docword.txt").write_text("2\n3\n3\n1 1 2\n1 2 1\n2 3 1\n")
    given = {"path": "~/docs.jsonl", "vocab_file": "~/vocab.txt", "vocab": "~/vocab.txt"}[key]
    params = {"user_text": {"path": "~/docs.jsonl" if key == "path" else str(home / "docs.jsonl"), **LOOSE_PARAMS},
              "user_bow": {"path": str(home / "docword.txt"), "test_fraction": 0.0}}[recipe]
    params[key] = given
    args = [arg for name, value in params.items() for arg in ("--param", f"{name}={value}")]
    code, err = run_cli(["prepare", recipe, "--out", "out", *args], capsys)
    assert code == 2 and f"parameter {key} '{given}' starts with '~'" in err, err
    assert not (tmp_path / "out").exists()


def test_path_parameter_starting_with_tilde_refused_at_dag_build(tmp_path, monkeypatch):
    """A workflow dataset whose path is '~/docs.jsonl' -> GridError at DAG build naming the dataset, the parameter and
    '~' (was: prepared from a folder named '~' in the working directory)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "~").mkdir()
    (tmp_path / "~" / "docs.jsonl").write_text(DOCS)
    cfg = {"data_dir": "data", "results_dir": "results",
           "datasets": {"d": {"recipe": "user_text", "params": {"path": "~/docs.jsonl"}}},
           "experiments": {"e": {"dataset": "d", "seeds": [0], "runs": [{"label": "x", "method": "online_lda",
                                                                         "grid": {"K": [3], "batch_size": [4]}}]}}}
    with pytest.raises(GridError, match=r"dataset d: .*parameter path '~/docs.jsonl' starts with '~'"):
        expand_all(cfg)


def test_linked_documents_named_alike_under_a_relative_or_absolute_corpora_dir(tmp_path, capsys, monkeypatch):
    """Documents linked into corpora_dir, path absolute, corpora_dir relative -> recorded by their names under it.

    As with corpora_dir absolute, so a corpus prepared by hand is not stale to the workflow for its spelling (was: the
    linked files recorded by their absolute paths outside it, 'source file docs/linked/d0.txt added')."""
    (tmp_path / "elsewhere").mkdir()
    for i in range(4):
        (tmp_path / "elsewhere" / f"d{i}.txt").write_text(f"apple bread cheese w{i % 3}\n")
    (tmp_path / "corpora" / "docs").mkdir(parents=True)
    (tmp_path / "corpora" / "docs" / "own.txt").write_text("bread cheese w1\n")
    (tmp_path / "corpora" / "docs" / "linked").symlink_to(tmp_path / "elsewhere")
    monkeypatch.chdir(tmp_path)
    names = []
    for corpora_dir in ("corpora", str(tmp_path / "corpora")):
        out = tmp_path / f"out{len(names)}"
        code, err = run_cli(["prepare", "user_text", "--out", out, "--corpora-dir", corpora_dir, "--param", "format=files",
                             "--param", f"path={tmp_path / 'corpora' / 'docs'}", *LOOSE], capsys)
        assert code == 0, err
        names.append(sorted(json.loads((out / "corpus.json").read_text())["source_files"]))
    assert names[0] == names[1] == ["docs/linked/d0.txt", "docs/linked/d1.txt", "docs/linked/d2.txt",
                                    "docs/linked/d3.txt", "docs/own.txt"], names


@pytest.mark.parametrize("cache, folder", [pytest.param("", ".", id="empty"),
                                           pytest.param("~/cache", "~/cache", id="tilde")])
def test_download_cache_variable_empty_or_tilde_refused(tmp_path, capsys, monkeypatch, cache, folder):
    """$TOPICBENCH_CACHE empty or '~/...' -> exit 2 naming the variable, nothing read or written in the working folder.

    Was: the download cache was the working folder (empty) or a folder named '~' in it, so uci_bow read (or would have
    downloaded into) whatever uci_bow/ files lay there."""
    import gzip

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOPICBENCH_CACHE", cache)
    (tmp_path / folder / "uci_bow").mkdir(parents=True)
    (tmp_path / folder / "uci_bow" / "docword.kos.txt.gz").write_bytes(gzip.compress(b"2\n2\n2\n1 1 3\n2 2 1\n"))
    (tmp_path / folder / "uci_bow" / "vocab.kos.txt").write_text("apple\nbread\n")
    code, err = run_cli(["prepare", "uci_bow", "--out", tmp_path / "out", "--param", "collection=kos"], capsys)
    assert code == 2 and f"$TOPICBENCH_CACHE is {cache!r}" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv", [pytest.param(["--workflow-profile", "profiles/ci"], id="repository-relative"),
                                  pytest.param(["--workflow-profile=profiles/nope"], id="misspelt")])
def test_workflow_profile_snakemake_would_not_find_refused(tmp_path, argv):
    """snakemake -s <repo>/Snakefile --workflow-profile profiles/ci from another folder -> GridError naming it.

    Snakemake looks for a workflow profile in the folder it was started from and in profiles/ beside the Snakefile, and
    runs without one it does not find, silently: here the default job instead of the ci one (found by name, 'ci', or by
    its full path, which pass)."""
    with pytest.raises(GridError, match=rf"--workflow-profile '{argv[-1].split('=')[-1]}' names no profile"):
        check_workflow_profile(["snakemake", "-s", str(REPO / "Snakefile"), *argv, "-n"], REPO, cwd=tmp_path)
    for found in (["--workflow-profile", "ci"], ["--workflow-profile", str(REPO / "profiles" / "ci")],
                  ["--workflow-profile", "none"], []):
        check_workflow_profile(["snakemake", *found], REPO, cwd=tmp_path)
    check_workflow_profile(["snakemake", "--workflow-profile", "profiles/ci"], REPO, cwd=REPO)


@pytest.fixture(scope="module")
def tilde_folder(tmp_path_factory):
    """A working folder holding a folder literally named '~' with everything the API cases would read from it: a
    user_text source under ~/raw, a tiny corpus ~/corpus, a run's ~/run/model.npz, a cached file ~/cache/file."""
    from topicbench.dataset import prepare
    from topicbench.run import RunSpec, run

    root = tmp_path_factory.mktemp("tilde_api")
    home = root / "~"
    (home / "raw" / "mine").mkdir(parents=True)
    (home / "raw" / "mine" / "docs.jsonl").write_text(DOCS)
    corpus = prepare("nyt_like", home / "corpus", n_train=30, n_test=6, n_words=20, n_topics=2, min_length=8,
                     max_length=12)
    run(RunSpec(method="online_lda", params={"K": 2, "batch_size": 10}, n_checkpoints=1, report_elbo=False,
                topic_history_words=0), corpus, home / "run")
    (home / "cache").mkdir()
    (home / "cache" / "file").write_text("cached")
    return root


def _api_calls():
    from topicbench import download
    from topicbench.corpus import CorpusError, load_corpus, save_corpus
    from topicbench.dataset import get_dataset, prepare
    from topicbench.run import RunSpec, load_model, run

    spec = RunSpec(method="online_lda", params={"K": 2, "batch_size": 10}, n_checkpoints=1, report_elbo=False,
                   topic_history_words=0)
    return {
        "prepare-corpora_dir": (lambda: prepare("user_text", "out", corpora_dir="~/raw", path="mine/docs.jsonl",
                                                **LOOSE_PARAMS), CorpusError, "corpora_dir '~/raw'"),
        "prepare-out_dir": (lambda: prepare("nyt_like", "~/new", n_train=30, n_test=6, n_words=20, n_topics=2),
                            CorpusError, "out_dir '~/new'"),
        "load_corpus-path": (lambda: load_corpus("~/corpus"), CorpusError, "path '~/corpus'"),
        "save_corpus-path": (lambda: save_corpus(load_corpus("corpus_abs"), "~/copy"), CorpusError, "path '~/copy'"),
        "run-corpus": (lambda: run(spec, "~/corpus"), ValueError, "corpus '~/corpus'"),
        "run-out_dir": (lambda: run(spec, "corpus_abs", "~/run2"), ValueError, "out_dir '~/run2'"),
        "load_model-path": (lambda: load_model("~/run/model.npz"), ValueError, "path '~/run/model.npz'"),
        "fetch-dest": (lambda: download.fetch("http://127.0.0.1:9/none", "~/cache/file"), download.DownloadError,
                       "dest '~/cache/file'"),
        "fetch_uci_bow-cache": (lambda: download.fetch_uci_bow("kos", cache="~/cache"), download.DownloadError,
                                "cache '~/cache'"),
        "recipe-source_dir": (lambda: get_dataset("nyt_topmost").source_dir("~/raw", "mine"), CorpusError,
                              "corpora_dir '~/raw'"),
    }


@pytest.mark.parametrize("call", ["prepare-corpora_dir", "prepare-out_dir", "load_corpus-path", "save_corpus-path",
                                  "run-corpus", "run-out_dir", "load_model-path", "fetch-dest", "fetch_uci_bow-cache",
                                  "recipe-source_dir"])
def test_python_api_path_starting_with_tilde_refused(tilde_folder, monkeypatch, call):
    """A path starting with '~' given to a public Python function -> an error naming the parameter, before any work.

    Python expands no '~'. The functions: prepare's corpora_dir and out_dir, load_corpus, save_corpus, run's corpus and out_dir, load_model,
    the downloads' dest and cache, a recipe's corpora_dir; nothing is read from or written to the folder named '~'."""
    try:
        from ._prepare_util import digest
    except ImportError:
        from _prepare_util import digest

    monkeypatch.chdir(tilde_folder)
    (tilde_folder / "corpus_abs").unlink(missing_ok=True)
    (tilde_folder / "corpus_abs").symlink_to(tilde_folder / "~" / "corpus")  # the same corpus, named without '~'
    before = digest(tilde_folder / "~")
    function, error, named = _api_calls()[call]
    with pytest.raises(error, match=f"{named} starts with '~'"):
        function()
    assert digest(tilde_folder / "~") == before
    assert sorted(p.name for p in tilde_folder.iterdir()) == ["corpus_abs", "~"]


def test_python_api_empty_path_refused(tilde_folder, monkeypatch):
    """An empty path given to a public Python function (load_corpus(""), an unset variable) -> CorpusError naming the
    parameter, not the current folder read (here a corpus, which the old code loaded as if it had been named)."""
    from topicbench.corpus import CorpusError, load_corpus

    monkeypatch.chdir(tilde_folder / "~" / "corpus")
    with pytest.raises(CorpusError, match="path is empty"):
        load_corpus("")
