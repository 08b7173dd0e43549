"""Fault catalogue, prepare: where --out points, kills and full disks at every write step, and its parameters.

Each case asserts the exit code, that the message names the culprit, and that nothing was lost or left
behind (sha256 of every pre-existing file; no staging or old folder beside --out).
"""
import json
import os
import shutil
from pathlib import Path

import pytest

from topicbench import io as tb_io
from topicbench.corpus import load_corpus
from topicbench.dataset import prepare
try:
    from ._prepare_util import FAULT_ENV, assert_no_leftovers, digest, good_uci, killed_at, run_cli, run_subprocess, uci_args
except ImportError:
    from _prepare_util import FAULT_ENV, assert_no_leftovers, digest, good_uci, killed_at, run_cli, run_subprocess, uci_args


@pytest.fixture
def src(tmp_path):
    """A tiny UCI source (docword + vocabulary) under tmp/src."""
    return good_uci(tmp_path / "src")


def user_bow(docword, vocab, out, **params):
    return prepare("user_bow", out, format="uci", path=str(docword), vocab=str(vocab), test_fraction=0.2, **params)


# --- where --out points -------------------------------------------------------------------------


def test_out_is_the_folder_of_its_own_input(tmp_path, capsys, monkeypatch):
    """--out the folder holding the source file (prepare user_text --out mydata path=mydata/tweets.csv) -> refused, source kept."""
    monkeypatch.chdir(tmp_path)
    Path("mydata").mkdir()
    Path("mydata/tweets.csv").write_text("text\n" + "".join(f"apple bread cheese tweet{i % 3}\n" for i in range(12)))
    before = digest("mydata")
    code, err = run_cli(["prepare", "user_text", "--out", "mydata", "--param", "format=csv",
                         "--param", "path=mydata/tweets.csv", "--param", "min_df=1"], capsys)
    assert code == 2 and "mydata" in err and "tweets.csv" in err
    assert digest("mydata") == before


@pytest.mark.parametrize("out", [
    pytest.param(".", id="out-dot-current-folder"),
    pytest.param("..", id="out-parent-of-cwd"),
    pytest.param("sub/..", id="out-cwd-spelled-another-way"),
])
def test_out_is_cwd_or_above(tmp_path, capsys, monkeypatch, src, out):
    """--out the current folder or an ancestor of it -> refused before any work, nothing deleted."""
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "notes.txt").write_text("keep me")
    monkeypatch.chdir(work)
    before = digest(tmp_path)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and f"{out}: refusing" in err and "current folder" in err
    assert digest(tmp_path) == before


def test_out_is_home(tmp_path, capsys, monkeypatch, src):
    """--out the home folder -> refused, home untouched."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# mine")
    monkeypatch.setenv("HOME", str(home))
    code, err = run_cli(uci_args(*src, home), capsys)
    assert code == 2 and "home folder" in err and str(home) in err
    assert (home / ".bashrc").read_text() == "# mine" and sorted(os.listdir(home)) == [".bashrc"]


def test_out_is_root(capsys, monkeypatch, src):
    """--out / -> refused, nothing touched.

    This case aims prepare at the real root folder, so it must stay harmless even on code whose guard is broken:
    every call that could delete or move a file raises here instead (a run of this case against the old prepare,
    which emptied --out, deleted a machine's /etc). A broken guard fails the test; it cannot touch the disk.
    """
    def forbidden(*args, **kwargs):
        raise AssertionError(f"prepare --out / tried to delete or move {args[:2]!r}")

    for module, name in ((shutil, "rmtree"), (shutil, "move"), (os, "replace"), (os, "rename"), (os, "remove"),
                         (os, "unlink"), (os, "rmdir"), (os, "removedirs"), (Path, "unlink"), (Path, "rmdir"),
                         (Path, "rename"), (Path, "replace")):
        monkeypatch.setattr(module, name, forbidden)
    monkeypatch.setattr(tb_io, "exchange_directories", forbidden)  # the renameat2 swap goes through ctypes, not os
    code, err = run_cli(uci_args(*src, "/"), capsys)
    assert code == 2 and "/: refusing" in err and "root" in err


def test_out_is_a_foreign_non_empty_folder(tmp_path, capsys, src):
    """--out a non-empty folder that is not a topicbench corpus -> refused, its files kept."""
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "chapter1.tex").write_text("precious")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and str(out) in err and "not a topicbench corpus" in err and "chapter1.tex" in err
    assert digest(out) == before


def test_out_with_a_corpus_json_of_the_wrong_shape(tmp_path, capsys, src):
    """--out a folder whose corpus.json is a JSON list (not ours) plus other files -> refused, kept."""
    out = tmp_path / "other"
    out.mkdir()
    (out / "corpus.json").write_text("[1, 2, 3]")
    (out / "data.csv").write_text("a,b\n")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and "not a topicbench corpus" in err
    assert digest(out) == before


def test_out_holding_only_a_vocabulary_file(tmp_path, capsys, src):
    """--out a folder with just a vocab.txt of the user's (a corpus file name, not a corpus) -> refused, kept."""
    out = tmp_path / "words"
    out.mkdir()
    (out / "vocab.txt").write_text("my\nown\nwords\n")
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and "not a topicbench corpus" in err
    assert (out / "vocab.txt").read_text() == "my\nown\nwords\n"


def test_out_is_an_existing_file(tmp_path, capsys, src):
    """--out names an existing file -> refused naming it, the file kept."""
    out = tmp_path / "results.csv"
    out.write_text("1,2,3\n")
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and str(out) in err and "not a folder" in err
    assert out.read_text() == "1,2,3\n"


def test_out_is_a_symlink_to_the_input_folder(tmp_path, capsys, src):
    """--out a symlink resolving to the folder of the input -> refused (symlinks resolved), input kept."""
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "src")
    before = digest(tmp_path / "src")
    code, err = run_cli(uci_args(*src, link), capsys)
    assert code == 2 and str(link) in err and "input" in err
    assert digest(tmp_path / "src") == before and link.is_symlink()


def test_out_holds_the_vocabulary_file(tmp_path, capsys):
    """--out the folder of the vocab= input only (counts elsewhere) -> refused, vocabulary kept."""
    docword, _ = good_uci(tmp_path / "counts")
    (tmp_path / "words").mkdir()
    vocab = tmp_path / "words" / "vocab.txt"
    vocab.write_text("apple\nbread\ncheese\n")
    code, err = run_cli(uci_args(docword, vocab, tmp_path / "words"), capsys)
    assert code == 2 and "vocab.txt" in err
    assert vocab.read_text() == "apple\nbread\ncheese\n"


def test_out_inside_the_input_folder(tmp_path, capsys):
    """--out inside the folder read as documents (format=files) -> refused: the corpus would be read as input."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"d{i}.txt").write_text(f"apple bread cheese word{i % 2}")
    before = digest(docs)
    code, err = run_cli(["prepare", "user_text", "--out", docs / "corpus", "--param", "format=files",
                         "--param", f"path={docs}", "--param", "min_df=1"], capsys)
    assert code == 2 and "inside the input folder" in err
    assert digest(docs) == before


def test_out_is_the_corpora_dir(tmp_path, capsys, src):
    """--out the --corpora-dir itself -> refused, the corpora kept."""
    before = digest(tmp_path / "src")
    code, err = run_cli(uci_args("docword.txt", "vocab.txt", tmp_path / "src") + ["--corpora-dir", tmp_path / "src"], capsys)
    assert code == 2 and "input" in err
    assert digest(tmp_path / "src") == before


@pytest.mark.parametrize("out", [
    pytest.param("/proc/topicbench-corpus", id="out-in-read-only-proc"),
    pytest.param("{tmp}/a-file/corpus", id="out-under-an-existing-file"),
])
def test_out_cannot_be_created(tmp_path, capsys, src, out):
    """--out inside a location that cannot hold folders (read-only /proc, a file) -> exit 2 naming it, no traceback."""
    (tmp_path / "a-file").write_text("x")
    out = out.format(tmp=tmp_path)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and "error:" in err and ("proc" in err or "a-file" in err)
    assert (tmp_path / "a-file").read_text() == "x"


@pytest.mark.parametrize("flag", ["out", "out-below", "corpora-dir", "path-parameter"])
def test_symlink_loop_named(tmp_path, capsys, src, flag):
    """--out, --corpora-dir or a path parameter through a loop of symbolic links -> exit 2 naming it, not pathlib's
    RuntimeError traceback; the input kept."""
    os.symlink(tmp_path / "loop-b", tmp_path / "loop-a")
    os.symlink(tmp_path / "loop-a", tmp_path / "loop-b")
    before = digest(tmp_path / "src")
    loop = tmp_path / "loop-a"
    args = {"out": uci_args(*src, loop), "out-below": uci_args(*src, loop / "corpus"),
            "corpora-dir": uci_args(*src, tmp_path / "corpus") + ["--corpora-dir", loop],
            "path-parameter": uci_args(loop, src[1], tmp_path / "corpus")}[flag]
    code, err = run_cli(args, capsys)
    assert code == 2 and "cannot follow its symbolic links" in err and str(loop) in err, err
    assert digest(tmp_path / "src") == before and not (tmp_path / "corpus").exists()


def test_out_left_by_snakemake_without_corpus_json_is_replaced(tmp_path, capsys, src):
    """--out holding only corpus files minus corpus.json (Snakemake deleted its output) -> replaced, exit 0."""
    out = tmp_path / "corpus"
    user_bow(*src, out)
    (out / "corpus.json").unlink()
    code, _ = run_cli(uci_args(*src, out), capsys)
    assert code == 0 and load_corpus(out).n_docs == 10
    assert_no_leftovers(out)


# --- kills at every step ------------------------------------------------------------------------

STEPS = ["prepare.stage", "prepare.write_counts", "prepare.write_vocab", "prepare.write_docs", "prepare.write_meta",
         "prepare.swap", "prepare.remove_old", "prepare.done"]


def _old_and_new(tmp_path, src):
    """An existing corpus at out (old: split_seed 1) and the digest the new one (split_seed 2) must have."""
    ref = user_bow(*src, tmp_path / "reference", split_seed=2)
    out = user_bow(*src, tmp_path / "corpus", split_seed=1)
    new = digest(ref)
    new.pop("corpus.json")  # it records nothing path-dependent, but compare the data files exactly
    return out, digest(out), new


def _is_old_or_new(out, old, new):
    now = digest(out)
    data = {k: v for k, v in now.items() if k != "corpus.json"}
    return now == old or data == new


@pytest.mark.parametrize("step", [pytest.param(s, id=f"kill-at-{s}") for s in STEPS]
                         + [pytest.param(s, id=f"kill-at-{s}-two-rename-fallback") for s in
                            ("prepare.swap", "prepare.swap_new", "prepare.remove_old")])
def test_kill_while_replacing_a_corpus(tmp_path, src, step, request):
    """SIGKILL at each prepare step while replacing a corpus -> old or new corpus whole; next load/prepare leaves no leftovers."""
    fallback = "fallback" in request.node.callspec.id
    env = {"TOPICBENCH_RENAME_EXCHANGE": "0"} if fallback else {}
    out, old, new = _old_and_new(tmp_path, src)
    assert killed_at(step, user_bow, *src, out, split_seed=2, env=env)
    if not (fallback and step == "prepare.swap_new"):
        assert _is_old_or_new(out, old, new)  # whole at once: a reader never sees a mix
    else:
        assert not out.exists()  # the one window of the two-rename swap, closed by the next load:
    corpus = load_corpus(out)  # the next reader recovers
    assert corpus.n_docs == 10 and _is_old_or_new(out, old, new)
    assert_no_leftovers(out)
    user_bow(*src, out, split_seed=2)  # and the next prepare succeeds
    assert _is_old_or_new(out, new | {"corpus.json": digest(out)["corpus.json"]}, new)
    assert_no_leftovers(out)


def test_sigterm_while_replacing_a_corpus(tmp_path, src):
    """SIGTERM while a prepare stages a corpus over an old one (Snakemake cancelling the job) -> exit 143, the old
    corpus whole, no staging folder left beside it.

    (Was: ended by the signal's default action, which runs no clean-up: the staged copy stayed hidden beside the corpus
    until the next prepare of that name, forever if the config moved on.)"""
    out, old, _ = _old_and_new(tmp_path, src)
    code, err = run_subprocess(uci_args(*src, out, "--param", "split_seed=2"), env={FAULT_ENV: "term:prepare.write_docs"})
    assert code == 143 and "Traceback" not in err, err
    assert digest(out) == old
    assert_no_leftovers(out)


def test_kill_of_the_streaming_synthetic_writer(tmp_path):
    """SIGKILL while the streaming synthetic writer writes truth.npz over an old corpus -> old corpus whole, then cleaned."""
    params = dict(n_train=30, n_test=5, n_words=50, n_topics=3, seed=1)
    out = prepare("nyt_like", tmp_path / "corpus", **params)
    old = digest(out)
    assert killed_at("prepare.write_truth", prepare, "nyt_like", out, **{**params, "seed": 2})
    assert digest(out) == old
    prepare("nyt_like", out, **{**params, "seed": 2})
    assert_no_leftovers(out)
    assert digest(out) != old


def test_kill_of_a_first_prepare_leaves_nothing_half_made(tmp_path, src):
    """SIGKILL while writing a corpus that did not exist -> no --out at all, and the next prepare removes the staging."""
    out = tmp_path / "corpus"
    assert killed_at("prepare.write_docs", user_bow, *src, out)
    assert not out.exists()
    user_bow(*src, out)
    assert load_corpus(out).n_docs == 10
    assert_no_leftovers(out)


def test_kill_before_the_swap_of_a_first_prepare_is_finished_by_the_next_load(tmp_path, src):
    """SIGKILL after a first corpus is fully staged but before its rename -> the next load finishes the swap, no leftovers."""
    out = tmp_path / "corpus"
    assert killed_at("prepare.swap", user_bow, *src, out)
    assert not out.exists()
    assert load_corpus(out).n_docs == 10
    assert_no_leftovers(out)


def test_only_our_own_leftover_patterns_are_removed(tmp_path, src):
    """A killed prepare's leftovers next to look-alike user folders -> the next prepare removes only its own staging folders."""
    out = user_bow(*src, tmp_path / "corpus")
    assert killed_at("prepare.write_vocab", user_bow, *src, out, split_seed=3)
    for name in (".corpus.staging-x", ".corpus.backup", ".corpus.old-12.bak", "corpus.staging-1"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "keep").write_text(name)
    user_bow(*src, out, split_seed=3)
    left = sorted(p.name for p in tmp_path.iterdir() if "corpus" in p.name)
    assert left == [".corpus.backup", ".corpus.old-12.bak", ".corpus.staging-x", "corpus", "corpus.staging-1"]


# --- a full disk at every write step ------------------------------------------------------------


@pytest.mark.parametrize("step, fallback", [pytest.param(s, False, id=f"enospc-at-{s}") for s in STEPS[:-2]]
                         + [pytest.param("prepare.swap_new", True, id="enospc-at-prepare.swap_new-two-rename-fallback")])
def test_disk_full_while_replacing_a_corpus(tmp_path, capsys, monkeypatch, src, step, fallback):
    """ENOSPC at each write step of a prepare over an old corpus -> exit 2 naming the disk error, old corpus intact, no staging."""
    out = user_bow(*src, tmp_path / "corpus", split_seed=1)
    old = digest(out)
    monkeypatch.setenv(FAULT_ENV, f"enospc:{step}")
    if fallback:
        monkeypatch.setenv("TOPICBENCH_RENAME_EXCHANGE", "0")
    code, err = run_cli(uci_args(*src, out, "--param", "split_seed=2"), capsys)
    assert code == 2 and "No space left on device" in err and step in err
    assert digest(out) == old
    assert_no_leftovers(out)


def test_disk_full_while_removing_the_old_copy(tmp_path, capsys, monkeypatch, src):
    """An error after the new corpus is in place (removing the old copy) -> exit 2, the new corpus whole, no leftovers."""
    out = user_bow(*src, tmp_path / "corpus", split_seed=1)
    monkeypatch.setenv(FAULT_ENV, "enospc:prepare.remove_old")
    code, err = run_cli(uci_args(*src, out, "--param", "split_seed=2"), capsys)
    assert code == 2 and "prepare.remove_old" in err
    assert json.loads((out / "corpus.json").read_text())["dataset_params"]["split_seed"] == 2
    assert_no_leftovers(out)


# --- parameters ---------------------------------------------------------------------------------


@pytest.mark.parametrize("param, named", [
    pytest.param("colection=kos", "colection", id="param-unknown-name"),
    pytest.param("min_df=2.5", "min_df", id="param-int-given-fraction"),
    pytest.param("min_df=true", "min_df", id="param-int-given-bool"),
    pytest.param("max_df=abc", "max_df", id="param-float-given-word"),
    pytest.param("max_df=.nan", "max_df", id="param-float-given-nan"),
    pytest.param("dedupe=yes please", "dedupe", id="param-bool-given-word"),
    pytest.param("path=3", "path", id="param-path-given-number"),
    pytest.param("split_seed=-1", "split_seed", id="param-negative-seed-before-reading"),
    pytest.param("test_fraction=-0.1", "test_fraction", id="param-negative-test-fraction-before-reading"),
    pytest.param("test_fraction=1", "test_fraction", id="param-test-fraction-one-before-reading"),
])
def test_bad_parameter_fails_before_any_work(tmp_path, capsys, param, named):
    """A dataset parameter unknown or of the wrong type -> exit 2 naming it, before --out is created."""
    (tmp_path / "t.csv").write_text("text\napple bread\n")
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=csv"]
    if not param.startswith("path="):
        args += ["--param", f"path={tmp_path / 't.csv'}"]
    code, err = run_cli(args + ["--param", param], capsys)
    assert code == 2 and (f"parameter {named} must be" in err or f"unknown parameter(s) ['{named}']" in err)
    assert not (tmp_path / "out").exists()


def test_dataset_parameter_read_as_octal(tmp_path, capsys):
    """--param vocab_size=010 (YAML 1.1 octal 8) -> exit 2 naming the parameter and both readings, nothing written."""
    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", "--param", "n_train=010"], capsys)
    assert code == 2 and "--param n_train: '010' reads as 8" in err
    assert not (tmp_path / "out").exists()


def test_synthetic_corpus_larger_than_the_disk(tmp_path, capsys):
    """n_train=1e15 for a planted corpus -> exit 2 naming n_train and the free space, before a document is generated
    (was: it generated documents until the disk filled)."""
    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", "--param", "n_train=1e15"], capsys)
    assert code == 2 and "n_train + n_test = 1,000,000,000,001,000 documents need at least" in err, err
    assert not (tmp_path / "out").exists()


def test_nearly_full_disk_named_in_a_unit_that_shows_it(tmp_path, capsys, monkeypatch):
    """A planted corpus over a nearly full disk (a few KiB free) -> exit 2 giving both amounts in units that show
    them (was: 'need at least 0.0 GiB ..., more than its 0.0 GiB free')."""
    import collections
    import shutil

    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(2**30, 2**30 - 3000, 3000))
    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", "--param", "n_train=1000", "--param",
                         "n_test=200"], capsys)
    assert code == 2 and "need at least 18.8 KiB in" in err and "more than its 2.9 KiB free" in err, err
    assert not (tmp_path / "out").exists()


def test_synthetic_negative_seed(tmp_path, capsys):
    """seed=-1 for a synthetic corpus -> exit 2 naming seed (not numpy's 'expected non-negative integer')."""
    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", "--param", "n_train=10", "--param", "n_test=2",
                         "--param", "n_words=20", "--param", "n_topics=2", "--param", "seed=-1"], capsys)
    assert code == 2 and "parameter seed must be a seed in [0, 2**63), got -1" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", [
    pytest.param("../../x", id="name-with-dotdot"),
    pytest.param("a\nb", id="name-with-newline"),
    pytest.param("$(rm -rf ~)", id="name-with-shell"),
    pytest.param("-x", id="name-with-leading-dash"),
])
def test_unsafe_corpus_name(tmp_path, capsys, name):
    """--name that is not a safe name (it becomes the runs' dataset column) -> exit 2 naming it, before any work."""
    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", f"--name={name}", "--param", "n_train=10"],
                        capsys)  # --name=-x: the workflow's `--name -x` would be read as an option, not the name
    assert code == 2 and f"--name {name!r} is not a safe corpus name" in err
    assert not (tmp_path / "out").exists()


def test_synthetic_int_parameter_given_bool(tmp_path, capsys):
    """n_train=true for a synthetic corpus -> exit 2 naming n_train (not 1 document)."""
    code, err = run_cli(["prepare", "nyt_like", "--out", tmp_path / "out", "--param", "n_train=true"], capsys)
    assert code == 2 and "parameter n_train must be" in err and not (tmp_path / "out").exists()


def test_exponent_is_a_number(tmp_path, src):
    """split_seed=1e3 on the command line -> the integer 1000 (a number, not the string '1e3'), recorded as such."""
    from topicbench import cli

    assert cli.main(uci_args(*src, tmp_path / "out", "--param", "split_seed=1e3")) == 0
    assert json.loads((tmp_path / "out" / "corpus.json").read_text())["dataset_params"]["split_seed"] == 1000


def test_cli_error_is_one_line_without_traceback(tmp_path, src):
    """A refused --out through the real console entry point -> exit 2, one 'error: <path>: ...' line, no traceback."""
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "a.txt").write_text("a")
    code, err = run_subprocess(uci_args(*src, tmp_path / "keep"))
    assert code == 2 and "Traceback" not in err
    assert err.strip().count("\n") == 0 and f"error: {tmp_path / 'keep'}:" in err
    assert (tmp_path / "keep" / "a.txt").read_text() == "a"


def test_non_ascii_out_under_the_c_locale(tmp_path):
    """A non-ASCII --out under LANG=C (surrogates pyarrow and JSON refuse after the read) -> exit 2 naming the
    argument and the locale, before any work, nothing written."""
    docword, vocab = good_uci(tmp_path)
    out = tmp_path / "cörpus"
    code, err = run_subprocess(uci_args(docword, vocab, out), env={"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                                                                    "PYTHONCOERCECLOCALE": "0"})
    assert code == 2 and "rpus" in err and "UTF-8" in err and "Traceback" not in err, err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_out_a_corpus_that_also_holds_a_users_folder(tmp_path, capsys, src):
    """--out an existing corpus folder that also holds a user's entry (a run written inside it, notes) -> refused
    naming the entry, which replacing the corpus would delete; the corpus and the entry kept."""
    out = tmp_path / "corpus"
    assert run_cli(uci_args(*src, out), capsys)[0] == 0
    (out / "my_run").mkdir()
    (out / "my_run" / "notes.txt").write_text("precious")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and str(out) in err and "my_run" in err, err
    assert digest(out) == before


def test_out_a_corpus_that_also_holds_a_users_file(tmp_path, capsys, src):
    """--out an existing corpus folder that also holds a user's file beside the corpus files -> refused naming the
    file, which replacing the corpus would delete; the corpus and the file kept."""
    out = tmp_path / "corpus"
    assert run_cli(uci_args(*src, out), capsys)[0] == 0
    (out / "notes.txt").write_text("precious")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and "notes.txt" in err, err
    assert digest(out) == before


@pytest.mark.parametrize("entry", ["notes.txt", "my_run/trace.parquet"])
@pytest.mark.parametrize("meta", ["corpus", "left-by-snakemake"])
def test_out_a_corpus_whose_counts_folder_holds_a_users_entry(tmp_path, capsys, src, entry, meta):
    """--out a corpus (or its data files Snakemake left) whose counts/ also holds a user's file or folder -> refused.

    The entry is named and kept with the corpus (was: only the corpus folder's own entries were checked, and replacing
    the corpus deleted counts/ with the user's file in it)."""
    out = tmp_path / "corpus"
    assert run_cli(uci_args(*src, out), capsys)[0] == 0
    if meta == "left-by-snakemake":
        (out / "corpus.json").unlink()
    (out / "counts" / entry).parent.mkdir(exist_ok=True)
    (out / "counts" / entry).write_text("precious")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and f"counts/{entry.split('/')[0]}" in err, err
    assert digest(out) == before


@pytest.mark.parametrize("where", ["sub", "counts/sub"])
def test_out_inside_another_corpus(tmp_path, capsys, src, where):
    """--out a new folder inside an existing corpus (or its counts/) -> refused naming that corpus, nothing written.

    As a run's --out is: the outer corpus would hold a folder that is not its own (was: written there)."""
    outer = tmp_path / "corpus"
    assert run_cli(uci_args(*src, outer), capsys)[0] == 0
    before = digest(outer)
    code, err = run_cli(uci_args(*src, outer / where), capsys)
    assert code == 2 and f"inside the corpus folder {outer}" in err, err
    assert digest(outer) == before


def test_out_a_corpus_whose_counts_were_deleted(tmp_path, capsys, src):
    """--out a corpus whose corpus.json and counts/ are gone (Snakemake deleted the first, the user the second) ->
    refused naming what it holds and what is missing, the files kept (was: 'not a topicbench corpus (4 entries, e.g.
    'docs.parquet')', as for a folder of someone else's)."""
    import shutil

    out = tmp_path / "corpus"
    assert run_cli(uci_args(*src, out), capsys)[0] == 0
    (out / "corpus.json").unlink()
    shutil.rmtree(out / "counts")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and "without the rest of its data" in err and "docs.parquet, vocab.txt" in err, err
    assert digest(out) == before


def test_out_left_by_snakemake_beside_a_users_file(tmp_path, capsys, src):
    """--out a corpus's data files without corpus.json (what Snakemake leaves) plus a user's file -> refused as no
    corpus, the files kept: only the data files alone are the remains of a corpus."""
    out = tmp_path / "corpus"
    assert run_cli(uci_args(*src, out), capsys)[0] == 0
    (out / "corpus.json").unlink()
    (out / "notes.txt").write_text("precious")
    before = digest(out)
    code, err = run_cli(uci_args(*src, out), capsys)
    assert code == 2 and "not a topicbench corpus" in err, err
    assert digest(out) == before


def test_out_with_an_unexpanded_tilde(tmp_path, capsys, src, monkeypatch):
    """--out=~/corpus (the shell does not expand ~ after '=') -> exit 2 naming --out, no folder named '~' made."""
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(uci_args(*src, "~/corpus"), capsys)
    assert code == 2 and "--out" in err and "'~'" in err, err
    assert not (tmp_path / "~").exists()


@pytest.mark.parametrize("notes", ["notes.txt", "counts/notes.txt"])
@pytest.mark.parametrize("kind", ["old", "staging"])
def test_look_alike_user_folder_beside_a_corpus_is_kept(tmp_path, src, kind, notes):
    """A user's folder named like a dead prepare's leftover (.corpus.old-<pid>) holding notes -> kept by load and prepare.

    Notes inside a counts folder too (was: a counts folder was taken as a corpus's whatever it held)."""
    import subprocess
    import sys

    out = user_bow(*src, tmp_path / "corpus")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid is free: the folder looks like a killed prepare's
    mine = tmp_path / f".corpus.{kind}-{dead.pid}"
    (mine / "counts").mkdir(parents=True)
    (mine / notes).write_text("keep me")
    load_corpus(out)
    user_bow(*src, out, split_seed=3)
    assert (mine / notes).read_text() == "keep me"


def test_out_is_a_symlink_to_another_corpus(tmp_path, capsys, src):
    """--out a symlink (data_dir/corpora/x) to a corpus kept elsewhere -> refused, the corpus behind it untouched."""
    elsewhere = user_bow(*src, tmp_path / "elsewhere" / "mine")
    before = digest(elsewhere)
    link = tmp_path / "data" / "corpora" / "x"
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere)
    code, err = run_cli(uci_args(*src, link, "--param", "split_seed=2"), capsys)
    assert code == 2 and str(link) in err and "symbolic link" in err, err
    assert digest(elsewhere) == before and link.is_symlink()
