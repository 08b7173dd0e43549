"""Provenance and reproducibility (faults, tenth pass): every trace row names what produced it (the corpus's content,
the code's, the peer library's version), a corpus records the raw files it was prepared from, and the same config
and seed give the same numbers whatever the thread count."""
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _run_util import TINY, tiny_corpus  # noqa: F401
from topicbench.cli import main as cli
from topicbench.corpus import content_fingerprint, load_corpus
from topicbench.dataset import prepare
from topicbench.grid import expand_all, stale_corpora, stale_outputs
from topicbench.method import get_method, plugin_file
from topicbench.run import RunSpec, code_fingerprint, run
from topicbench.streams import Minibatch

SPEC = dict(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2, report_elbo=False,
            dataset="tiny", topic_history_words=0)


@pytest.fixture(scope="module")
def two_contents(tmp_path_factory):
    """Corpus 'tiny' prepared twice from the same recipe and parameters (a), and once from other data (b, another
    seed), with a fit on a and on b."""
    root = tmp_path_factory.mktemp("prov")
    a = prepare("nyt_like", root / "a", corpus_name="tiny", **TINY)
    again = prepare("nyt_like", root / "a_again", corpus_name="tiny", **TINY)
    b = prepare("nyt_like", root / "b", corpus_name="tiny", **{**TINY, "seed": 2})
    traces = {}
    for name, corpus in (("a", a), ("b", b)):
        run(RunSpec(**SPEC, seed=0 if name == "a" else 1), corpus, root / f"run_{name}")
        traces[name] = root / f"run_{name}" / "trace.parquet"
    return {"a": a, "again": again, "b": b, "traces": traces, "root": root}


def test_trace_rows_name_the_corpus_content(two_contents):
    """Two corpora of one name, other bytes (prepared again from other data) -> each trace row's corpus_sha256 tells
    them apart; the same bytes prepared twice carry one fingerprint (was: only the name 'tiny' recorded)."""
    a = pd.read_parquet(two_contents["traces"]["a"])
    b = pd.read_parquet(two_contents["traces"]["b"])
    assert a["corpus_sha256"].nunique() == 1 and b["corpus_sha256"].nunique() == 1
    assert a["corpus_sha256"].iloc[0] != b["corpus_sha256"].iloc[0]
    assert a["corpus_sha256"].iloc[0] == content_fingerprint(load_corpus(two_contents["again"]))
    # the same content in memory, or as a view, has the same fingerprint as the prepared corpus records
    loaded = load_corpus(two_contents["a"])
    memory = type(loaded)(loaded.counts, loaded.vocab, loaded.docs, {})
    assert content_fingerprint(memory) == a["corpus_sha256"].iloc[0]
    assert content_fingerprint(loaded.select(np.arange(loaded.n_docs))) == a["corpus_sha256"].iloc[0]


def test_aggregate_refuses_one_dataset_fitted_on_two_contents(two_contents, capsys):
    """Seeds of one dataset fitted before and after its corpus was prepared again from other data -> aggregate exits 2
    naming both traces, no table (was: averaged in every figure as one dataset)."""
    out = two_contents["root"] / "all_traces.parquet"
    code = cli(["aggregate", "--out", str(out), str(two_contents["traces"]["a"]), str(two_contents["traces"]["b"])])
    err = capsys.readouterr().err
    assert code == 2 and str(two_contents["traces"]["a"]) in err and str(two_contents["traces"]["b"]) in err, err
    assert "two different contents of dataset 'tiny'" in err and not out.exists()


@pytest.mark.parametrize("column", ["corpus_sha256", "code_sha256", "method_packages"])
def test_aggregate_refuses_a_trace_without_the_new_provenance(two_contents, tmp_path, capsys, column):
    """A trace without corpus_sha256, code_sha256 or method_packages (written before they were recorded) -> exit 2
    naming the column and the trace, no table."""
    frame = pd.read_parquet(two_contents["traces"]["a"]).drop(columns=[column])
    bad = tmp_path / "old" / "trace.parquet"
    bad.parent.mkdir()
    frame.to_parquet(bad)
    code = cli(["aggregate", "--out", str(tmp_path / "all.parquet"), str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and f"trace {bad}" in err and column in err, err
    assert not (tmp_path / "all.parquet").exists()


def test_uncommitted_edits_of_a_method_file_are_told_apart(two_contents, tmp_path):
    """A method file edited twice without a commit (git_sha '<sha>-dirty' both times) -> the two code_sha256 differ, and
    a trace row's code_sha256 is its method file's and package's (was: one '-dirty' for any edit)."""
    first, second = tmp_path / "one" / "mine.py", tmp_path / "two" / "mine.py"
    for path, rho in ((first, "0.5"), (second, "0.6")):
        path.parent.mkdir()
        path.write_text(f"RHO = {rho}\n")
    assert code_fingerprint(first) != code_fingerprint(second)
    row = pd.read_parquet(two_contents["traces"]["a"]).iloc[0]
    assert row["code_sha256"] == code_fingerprint(plugin_file(get_method("online_lda")))
    assert row["method_packages"] == ""  # numpy, scipy, numba: recorded in their own columns


def test_peer_rows_record_their_library_version(two_contents, tmp_path):
    """A peer's run (sklearn_lda) -> every row names scikit-learn and its version (was: only numpy, scipy, numba and
    pandas versions recorded, so a peer's numbers could not be traced to its library)."""
    import sklearn

    trace, _ = run(RunSpec(**{**SPEC, "method": "sklearn_lda"}), two_contents["a"])
    assert trace["method_packages"].nunique() == 1 and f"scikit-learn {sklearn.__version__}" in trace["method_packages"][0]


def _lee(folder, lines):
    (folder / "lee_news_gensim").mkdir(parents=True, exist_ok=True)
    (folder / "lee_news_gensim" / "lee_background.cor").write_text("".join(f"{line}\n" for line in lines))


LEE_LINES = [f"apple banana cherry w{i % 5} w{i % 7} w{i % 3}" for i in range(40)]


@pytest.fixture(scope="module")
def lee_workflow(tmp_path_factory):
    """lee_news_gensim prepared, as the workflow does, from a corpora_dir holding a small stand-in of its file."""
    root = tmp_path_factory.mktemp("lee")
    _lee(root / "corpora", LEE_LINES)
    datasets = {"lee": {"recipe": "lee_news_gensim", "params": {"max_df": 1.0}}}
    prepare("lee_news_gensim", root / "data" / "corpora" / "lee", corpora_dir=root / "corpora", corpus_name="lee",
            max_df=1.0)
    return root, datasets


@pytest.mark.parametrize("change", [
    pytest.param("edited", id="source-file-edited-under-corpora_dir"),
    pytest.param("added", id="source-file-added-under-corpora_dir"),
    pytest.param("other-copy", id="another-corpora_dir-with-other-bytes"),
    pytest.param("same-copy", id="another-corpora_dir-with-the-same-bytes"),
    pytest.param("same-bytes-touched", id="source-file-touched-same-bytes"),
])
def test_changed_source_under_corpora_dir_makes_the_corpus_stale(lee_workflow, tmp_path, change):
    """A real corpus's raw file under corpora_dir edited, added, or another corpora_dir of other bytes -> the prepared
    corpus is stale, named with the file (was: not an input of the prepare, so fits ran on the old corpus); the same
    bytes in another copy or touched -> not stale."""
    root, datasets = lee_workflow
    corpora = tmp_path / "corpora"
    shutil.copytree(root / "corpora", corpora, copy_function=shutil.copy)  # new mtimes: the bytes are compared
    if change == "same-bytes-touched":
        os.utime(corpora / "lee_news_gensim" / "lee_background.cor", (1e9, 1e9))
    elif change == "edited":
        _lee(corpora, [*LEE_LINES[:-1], "durian elder fig"])
    elif change == "added":
        (corpora / "lee_news_gensim" / "extra.cor").write_text("more text\n")
    elif change == "other-copy":
        _lee(corpora, LEE_LINES[:-2])
    stale = stale_corpora(root / "data", datasets, {"lee"}, corpora)
    meta_path = str(root / "data" / "corpora" / "lee" / "corpus.json")
    if change in ("same-copy", "same-bytes-touched"):
        assert stale == {}, stale
    else:
        name = "lee_news_gensim/extra.cor" if change == "added" else "lee_news_gensim/lee_background.cor"
        assert meta_path in stale and name in stale[meta_path], stale
    assert stale_corpora(root / "data", datasets, {"lee"}, root / "corpora") == {}  # the original: current


def test_fit_on_a_corpus_prepared_again_is_stale(tmp_path):
    """A fit whose corpus was prepared again with other bytes since (its outputs touched newer, or copied in) -> its
    model is stale, found by the corpus fingerprint it records (was: kept, its numbers from the old corpus)."""
    config = {"data_dir": str(tmp_path / "data"), "results_dir": str(tmp_path / "res"), "threads_per_run": 1,
              "datasets": {"tiny": {"recipe": "nyt_like", "params": TINY}},
              "experiments": {"e": {"dataset": "tiny", "seeds": [0], "runs": [
                  {"label": "x", "method": "online_lda", "grid": {"K": [3], "batch_size": [20]},
                   "settings": {"n_checkpoints": 2}}]}}}
    runs = expand_all(config)
    corpus = tmp_path / "data" / "corpora" / "tiny"
    prepare("nyt_like", corpus, corpus_name="tiny", **TINY)
    (rid, entry), = runs.items()
    run(entry["spec"], corpus, tmp_path / "res" / "runs" / rid)
    assert stale_outputs(tmp_path / "res", runs, tmp_path / "data") == {}
    prepare("nyt_like", corpus, corpus_name="tiny", **{**TINY, "seed": 5})
    stale = stale_outputs(tmp_path / "res", runs, tmp_path / "data")
    model = str(tmp_path / "res" / "runs" / rid / "model.npz")
    assert model in stale and "another content of corpus tiny" in stale[model], stale


KERNELS_REACHED_IN_FIT = """
import json, sys
import numpy as np
from numba.core.registry import CPUDispatcher
from topicbench import lgnmf_kernels
from topicbench.corpus import load_corpus
from topicbench.method import get_method
from topicbench.streams import Minibatch

def compiled():
    return {name: len(f.overloads) for name, f in vars(lgnmf_kernels).items() if isinstance(f, CPUDispatcher)}

train = load_corpus(sys.argv[1]).split("train")
rows = np.arange(40)
batch = Minibatch(train.rows(rows), rows, rows, None, 0)
new = {}
for mode, params in (("batch", {}), ("online", {"batch_size": 40})):
    method = get_method("lgnmf")(train.n_words, seed=0, threads=2, corpus_size=train.n_docs, K=3, **params)
    method.warm_up(Minibatch(batch.counts[:2], rows[:2], rows[:2], None, 0))
    before = compiled()
    method.partial_fit(batch)
    new[mode] = {name: n - before[name] for name, n in compiled().items() if n != before[name]}
print(json.dumps(new))
"""


def test_lgnmf_kernels_compile_before_the_fit_clock(tiny_corpus):
    """LG-NMF's first update in a fresh process (numba kernels not yet compiled or loaded from the cache) -> its warm-up
    has compiled every lgnmf_kernels kernel the update calls, so none is compiled on the fit clock (was: a no-op
    warm-up, ~0.9 s of a cold first update counted as fit_wall_s)."""
    import json
    import subprocess
    import sys

    from _run_util import REPO, env

    done = subprocess.run([sys.executable, "-c", KERNELS_REACHED_IN_FIT, str(tiny_corpus)], capture_output=True,
                          text=True, env=env(), cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"batch": {}, "online": {}}


def test_threads_above_a_user_set_numba_cap_names_the_variable(monkeypatch):
    """threads=2 under a user's NUMBA_NUM_THREADS=1 on a machine of more CPUs -> ValueError naming NUMBA_NUM_THREADS
    before any data is read (was: 'more than the 1 CPUs this machine offers', blaming the machine)."""
    from topicbench import kernels

    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    monkeypatch.setattr(kernels.numba.config, "NUMBA_NUM_THREADS", 1)
    with pytest.raises(ValueError, match="NUMBA_NUM_THREADS=1 set in the environment"):
        RunSpec(**{**SPEC, "threads": 2}).check()


def test_table_csv_rows_name_the_traces_they_were_drawn_from(two_contents, tmp_path):
    """A table figure's csv (results/tables/<name>.csv) -> every row names the sha256 of the all_traces.parquet it was
    drawn from, whose rows carry each run's provenance (was: only its Markdown part recorded it; the csv rows none)."""
    import hashlib
    import sys

    from _run_util import REPO

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import figlib

    traces = tmp_path / "all_traces.parquet"
    pd.read_parquet(two_contents["traces"]["a"]).assign(experiment="e").to_parquet(traces)
    figure = figlib.Figure(paper=next(iter(figlib.PAPERS)), title="t", experiments=("e",), kind="table")
    outputs = {role: str(tmp_path / path) for role, path in figure.outputs("t").items()}
    for path in outputs.values():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    ctx = figlib.Context("t", figure, ["e"], str(traces), {}, {}, outputs)
    ctx.write("caption", table=ctx.frame("e").groupby("method", as_index=False)["perplexity"].mean())
    written = pd.read_csv(outputs["csv"])
    assert set(written["drawn_from_all_traces_sha256"]) == {hashlib.sha256(traces.read_bytes()).hexdigest()}


def _uci_kos(folder, last_count):
    import gzip

    folder.mkdir(parents=True, exist_ok=True)
    rows = [(d, w, 1 + (d + w) % 3) for d in range(1, 21) for w in (1, 2, 3)] + [(20, 4, last_count)]
    (folder / "docword.kos.txt.gz").write_bytes(gzip.compress(
        ("20\n4\n" + f"{len(rows)}\n" + "".join(f"{d} {w} {c}\n" for d, w, c in rows)).encode()))
    (folder / "vocab.kos.txt").write_text("apple\nbread\ncheese\ndates\n")


@pytest.mark.parametrize("where", [pytest.param("corpora_dir", id="uci-bow-file-edited-under-corpora_dir"),
                                   pytest.param("cache", id="uci-bow-file-edited-in-the-download-cache")])
def test_uci_bow_source_edited_makes_the_corpus_stale(tmp_path, monkeypatch, where):
    """A uci_bow raw file (corpora_dir/uci_bow/ or the download cache) edited after its prepare -> the corpus is stale,
    named with the file (was: the recipe found its files without source_dir, so corpus.json recorded none of them)."""
    monkeypatch.setenv("TOPICBENCH_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / ("corpora" if where == "corpora_dir" else "cache") / "uci_bow"
    _uci_kos(folder, 2)
    corpora = tmp_path / "corpora" if where == "corpora_dir" else None
    datasets = {"kos": {"recipe": "uci_bow", "params": {"test_fraction": 0.2}}}
    prepare("uci_bow", tmp_path / "data" / "corpora" / "kos", corpora_dir=corpora, corpus_name="kos", test_fraction=0.2)
    assert stale_corpora(tmp_path / "data", datasets, {"kos"}, corpora) == {}
    _uci_kos(folder, 5)  # one count edited
    stale = stale_corpora(tmp_path / "data", datasets, {"kos"}, corpora)
    meta_path = str(tmp_path / "data" / "corpora" / "kos" / "corpus.json")
    assert meta_path in stale and "docword.kos.txt.gz changed" in stale[meta_path], stale


def test_document_read_through_a_folder_link_is_fingerprinted(tmp_path):
    """A document read through a symlinked subfolder of a user_text folder, edited -> the corpus is stale, naming it.

    read_text_files follows the link (was: the fingerprint's rglob did not, so corpus.json recorded no file behind it
    and fits ran on the old corpus)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "elsewhere").mkdir()
    for i in range(6):
        (tmp_path / "docs" / f"a{i}.txt").write_text(f"apple bread cheese w{i % 3}\n")
        (tmp_path / "elsewhere" / f"b{i}.txt").write_text(f"bread cheese dates w{i % 2}\n")
    (tmp_path / "docs" / "linked").symlink_to(tmp_path / "elsewhere")
    params = {"format": "files", "path": str(tmp_path / "docs"), "min_df": 1, "max_df": 1.0, "test_fraction": 0.2}
    datasets = {"u": {"recipe": "user_text", "params": params}}
    prepare("user_text", tmp_path / "data" / "corpora" / "u", corpus_name="u", **params)
    assert load_corpus(tmp_path / "data" / "corpora" / "u").n_docs == 12  # the linked documents were read
    assert stale_corpora(tmp_path / "data", datasets, {"u"}) == {}
    (tmp_path / "elsewhere" / "b3.txt").write_text("durian elder fig\n")
    stale = stale_corpora(tmp_path / "data", datasets, {"u"})
    meta_path = str(tmp_path / "data" / "corpora" / "u" / "corpus.json")
    assert meta_path in stale and "b3.txt changed" in stale[meta_path], stale


def test_benchmarks_rows_carry_their_jobs_provenance(two_contents, tmp_path):
    """benchmarks.csv (each fit's and prepare's wall time and memory) -> every row names its job's code, versions,
    host and corpus content: a fit's from its trace, a prepare's from its corpus.json (was: the job's name only, so a
    row copied out of the table could not be traced).

    Each record is read below results_dir, which may itself lie under folders named benchmarks/prepare and runs, and
    hold an experiment named prepare (was: a fit's record under such a results_dir was taken for a prepare's)."""
    import json
    import runpy
    from types import SimpleNamespace

    from topicbench.dataset import get_dataset
    from topicbench.traces import PROVENANCE

    rid, results = "prepare/tiny/online_lda/label~x/K~3/seed~0", tmp_path / "benchmarks" / "prepare" / "runs" / "results"
    trace = results / "runs" / rid / "trace.parquet"
    trace.parent.mkdir(parents=True)
    shutil.copy(two_contents["traces"]["a"], trace)
    corpus_json = tmp_path / "data" / "corpora" / "tiny" / "corpus.json"
    corpus_json.parent.mkdir(parents=True)
    shutil.copy(Path(two_contents["a"]) / "corpus.json", corpus_json)
    records = [results / "benchmarks" / "runs" / f"{rid}.tsv", results / "benchmarks" / "prepare" / "tiny.tsv"]
    for record in records:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text("s\tmax_rss\n1.5\t10\n")
    scripts = Path(__file__).resolve().parents[2] / "workflow" / "scripts"
    smk = SimpleNamespace(scriptdir=str(scripts), input=SimpleNamespace(
        records=[str(r) for r in records], traces=[str(trace)], corpora=[str(corpus_json)]),
        output=SimpleNamespace(table=str(results / "tables" / "b.csv"), figure=str(results / "figures" / "b.png")))
    runpy.run_path(str(scripts / "benchmarks_table.py"), init_globals={"snakemake": smk})
    table = pd.read_csv(results / "tables" / "b.csv", keep_default_na=False)
    assert list(table.columns[:5]) == ["stage", "method", "job", "s", "max_rss"]  # no index column
    assert table[["stage", "method", "job"]].values.tolist() == [["fit", "online_lda", rid], ["prepare", "prepare", "tiny"]]
    table = table.set_index("stage")
    fit_row = pd.read_parquet(trace).iloc[0]
    for column in PROVENANCE:
        assert str(table.loc["fit", column]) == str(fit_row[column]), column
    meta = json.loads(corpus_json.read_text())
    assert table.loc["prepare", "corpus_sha256"] == meta["content_sha256"]
    assert table.loc["prepare", "code_sha256"] == code_fingerprint(plugin_file(get_dataset("nyt_like")))
    assert table.loc["prepare", "git_sha"] and table.loc["prepare", "host"] == fit_row["host"]


@pytest.mark.parametrize("damage", ["null", "dropped"])
def test_benchmarks_row_of_a_trace_without_provenance_is_refused(tmp_path, damage):
    """A fit's trace with an empty or missing provenance column -> the benchmarks job stops naming it, writes nothing.

    Was: the table took the trace's first row as it was, so a row with no git_sha was written (a prepare's row
    without its record was already refused). The benchmarks job reads the traces, not aggregate's checked table."""
    import runpy
    import sys
    from types import SimpleNamespace

    from _run_util import REPO
    from topicbench.traces import PROVENANCE

    scripts = REPO / "workflow" / "scripts"
    sys.path.insert(0, str(scripts))
    record, trace = tmp_path / "benchmarks" / "runs" / "e" / "d" / "m" / "r.tsv", tmp_path / "runs/e/d/m/r/trace.parquet"
    for path in (record, trace):
        path.parent.mkdir(parents=True)
    record.write_text("s\tmax_rss\n1.5\t10\n")
    frame = pd.DataFrame([{column: "x" for column in PROVENANCE}] * 2)
    frame = frame.drop(columns=["git_sha"]) if damage == "dropped" else frame.assign(git_sha=[None, "x"])
    frame.to_parquet(trace)
    smk = SimpleNamespace(scriptdir=str(scripts), input=SimpleNamespace(records=[str(record)], traces=[str(trace)],
                                                                        corpora=[]),
                          output=SimpleNamespace(table=str(tmp_path / "tables" / "b.csv"),
                                                 figure=str(tmp_path / "figures" / "b.png")))
    with pytest.raises(SystemExit, match=f"{trace}: records no single git_sha"):
        runpy.run_path(str(scripts / "benchmarks_table.py"), init_globals={"snakemake": smk})
    assert not (tmp_path / "tables").exists() and not (tmp_path / "figures").exists()


def test_paper_counts_a_fit_record_under_a_prepare_folder_as_a_fit(tmp_path):
    """A fit's benchmark record whose path holds /prepare/ (an experiment named prepare) -> counted as a fit job.

    Was: any record path holding /prepare/ was counted as a prepare's, so the paper's provenance gave wrong job counts."""
    import sys

    from _run_util import REPO

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import build_paper

    records = [tmp_path / "prepare" / "benchmarks" / "runs" / "prepare" / "d" / "m" / "label~x" / "seed~0.tsv",
               tmp_path / "prepare" / "benchmarks" / "prepare" / "d.tsv"]
    for record, seconds in zip(records, (3, 4)):
        record.parent.mkdir(parents=True)
        record.write_text(f"s\tmax_rss\n{seconds}\t10\n")
    summary = build_paper.benchmark_summary([str(r) for r in records])
    assert "fit: 1 jobs, 3 s wall" in summary and "prepare: 1 jobs, 4 s wall" in summary, summary


def test_corpus_prepared_by_other_code_is_stale(tmp_path):
    """A prepared corpus recording other code than its recipe's file and the package now -> stale, prepared again.

    Copied in from another checkout, or marked current by --touch after an edit: Snakemake sees only mtimes."""
    datasets = {"tiny": {"recipe": "nyt_like", "params": TINY}}
    prepare("nyt_like", tmp_path / "data" / "corpora" / "tiny", corpus_name="tiny", **TINY)
    assert stale_corpora(tmp_path / "data", datasets, {"tiny"}) == {}
    meta_path = tmp_path / "data" / "corpora" / "tiny" / "corpus.json"
    meta = json.loads(meta_path.read_text())
    meta["prepared_by"]["code_sha256"] = "0" * 64  # as another version of the code records it
    meta_path.write_text(json.dumps(meta))
    stale = stale_corpora(tmp_path / "data", datasets, {"tiny"})
    assert "prepared by other code" in stale.get(str(meta_path), ""), stale


@pytest.mark.parametrize("file, damage", [
    pytest.param("counts/00000.indices.npy", lambda f: f.write_bytes(f.read_bytes()[:-4]), id="shard-truncated"),
    pytest.param("counts/00001.indptr.npy", lambda f: f.write_bytes(b""), id="last-shard-emptied"),
    pytest.param("docs.parquet", lambda f: f.write_bytes(f.read_bytes() + b"\0"), id="docs-grown")])
def test_corpus_file_of_another_size_is_stale(tmp_path, monkeypatch, file, damage):
    """A prepared corpus's shard or file whose size is not the one recorded -> stale at DAG build, prepared again.

    A disk that filled or a copy cut short: every fit on it failed naming the file, and Snakemake never re-prepared
    it. Found by a stat against the sizes the manifest and corpus.json record (no shard is read); a corpus recording
    no sizes (prepared before they were recorded) is left to the fit's checksums."""
    monkeypatch.setattr("topicbench.corpus.SHARD_ROWS", 100)  # two shards
    datasets = {"tiny": {"recipe": "nyt_like", "params": TINY}}
    folder = tmp_path / "data" / "corpora" / "tiny"
    prepare("nyt_like", folder, corpus_name="tiny", **TINY)
    assert (folder / "counts" / "00001.indptr.npy").is_file()
    assert stale_corpora(tmp_path / "data", datasets, {"tiny"}) == {}
    damage(folder / file)
    stale = stale_corpora(tmp_path / "data", datasets, {"tiny"}).get(str(folder / "corpus.json"), "")
    assert f"{file} not of the size recorded" in stale, stale
    for record in (folder / "corpus.json", folder / "counts" / "manifest.json"):  # prepared before sizes were recorded
        meta = json.loads(record.read_text())
        meta.pop("bytes", None)
        for shard in meta.get("shards", []):
            del shard["bytes"]
        record.write_text(json.dumps(meta))
    assert stale_corpora(tmp_path / "data", datasets, {"tiny"}) == {}


def test_fit_by_other_code_is_stale(tmp_path, tiny_corpus):
    """A run whose model.npz records other code than its method's file and the package now -> stale, fitted again.

    Copied in from another checkout, or marked current by --touch after an edit: Snakemake sees only mtimes."""
    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2, dataset="tiny")
    spec.check()
    runs = {"e/tiny/online_lda/label~x/seed~0": {"dataset": "tiny", "spec": spec}}
    model = tmp_path / "runs" / "e/tiny/online_lda/label~x/seed~0" / "model.npz"
    run(spec, tiny_corpus, model.parent)
    assert stale_outputs(tmp_path, runs) == {}
    with np.load(model) as archive:
        state = {key: archive[key] for key in archive.files}
    assert str(state["_code_sha256"]) == code_fingerprint(plugin_file(get_method("online_lda")))
    state["_code_sha256"] = np.array("0" * 64)  # as another version of the code records it
    np.savez(model, **state)
    assert "fitted by other code" in stale_outputs(tmp_path, runs).get(str(model), ""), stale_outputs(tmp_path, runs)


def test_truncated_trace_left_in_a_run_folder_is_stale(tmp_path, tiny_corpus):
    """A run folder whose trace.parquet was truncated since its fit -> stale, fitted again (was: aggregate stopped on
    it at every workflow run until it was deleted by hand)."""
    spec = RunSpec(method="online_lda", params={"K": 3, "batch_size": 20}, n_checkpoints=2, dataset="tiny")
    spec.check()
    runs = {"e/tiny/online_lda/label~x/seed~0": {"dataset": "tiny", "spec": spec}}
    trace = tmp_path / "runs" / "e/tiny/online_lda/label~x/seed~0" / "trace.parquet"
    run(spec, tiny_corpus, trace.parent)
    assert stale_outputs(tmp_path, runs) == {}
    trace.write_bytes(trace.read_bytes()[:200])
    assert "not a readable Parquet file" in stale_outputs(tmp_path, runs).get(str(trace), ""), stale_outputs(tmp_path, runs)


def test_figure_drawn_by_other_code_is_stale(tmp_path):
    """A figure or table part recording other drawing code than its figure file, helpers and figlib.py now -> stale,
    drawn again; one drawn by the current code, or drawn before the record existed, is left alone.

    Copied in from another checkout, or marked current by --touch after an edit: Snakemake sees only mtimes."""
    import sys

    from _run_util import REPO

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import figlib
    from topicbench.traces import DRAWN_BY, DRAWN_FROM

    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": ["e", "e"], "method": ["online_lda", "bnmf"], "perplexity": [9.0, 8.0]}).to_parquet(traces)
    figure = figlib.load_plugin("findings").FIGURE
    outputs = {role: str(tmp_path / path) for role, path in figure.outputs("findings").items()}
    for path in outputs.values():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    ctx = figlib.Context("findings", figure, ["e"], str(traces), {}, {}, outputs)
    ctx.write("caption", table=ctx.frame("e").groupby("method", as_index=False)["perplexity"].mean())
    figures = {"findings": (figure, ["e"])}
    md = Path(outputs["md"])
    lines = md.read_text().splitlines()
    assert f"{DRAWN_BY}{figlib.code_sha256('findings')} -->" in lines and lines[-1].startswith(DRAWN_FROM)
    assert figlib.stale_figures(tmp_path, figures) == {}
    md.write_text(md.read_text().replace(figlib.code_sha256("findings"), "0" * 64))  # as other code records it
    assert "drawn by other code than figure file findings.py" in figlib.stale_figures(tmp_path, figures).get(str(md), "")
    md.write_text("\n".join(line for line in lines if not line.startswith(DRAWN_BY)) + "\n")  # drawn before the record
    assert figlib.stale_figures(tmp_path, figures) == {}


def test_figure_code_covers_its_helpers_and_figlib(tmp_path, monkeypatch):
    """A helper the figure imports (through another helper too), figlib.py or draw_figure.py edited -> another
    recorded code, so the figure is stale; a helper it does not import edited -> the same code."""
    import sys

    from _run_util import REPO

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import figlib

    files = {"fig.py": "import _a\n", "_a.py": "import _b\n", "_b.py": "X = 1\n", "_unused.py": ""}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "figlib.py").write_text(Path(figlib.__file__).read_text())
    (tmp_path / "draw_figure.py").write_text((Path(figlib.__file__).parent / "draw_figure.py").read_text())
    monkeypatch.setattr(figlib, "PLUGIN_DIR", tmp_path)
    monkeypatch.setattr(figlib, "__file__", str(tmp_path / "figlib.py"))
    before = figlib.code_sha256("fig")
    (tmp_path / "_unused.py").write_text("Y = 2\n")
    assert figlib.code_sha256("fig") == before
    for name in ("fig.py", "_b.py", "figlib.py", "draw_figure.py"):
        (tmp_path / name).write_text((tmp_path / name).read_text() + "# edited\n")
        assert figlib.code_sha256("fig") != before, name
        before = figlib.code_sha256("fig")


def test_benchmarks_table_drawn_by_other_code_is_stale(tmp_path, monkeypatch):
    """benchmarks.csv of other code than benchmarks_table.py and figlib.py, or beside another png -> stale, redrawn.

    One of the current code, or drawn before the record existed, is left alone (was: no record, so a table copied in
    or --touch-ed after an edit was kept).

    Copied in from another checkout, or marked current by --touch after an edit: Snakemake sees only mtimes."""
    import runpy
    import sys
    from types import SimpleNamespace

    from _run_util import REPO

    scripts = REPO / "workflow" / "scripts"
    sys.path.insert(0, str(scripts))
    import figlib
    from topicbench.traces import BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE, PROVENANCE

    record, trace = tmp_path / "benchmarks" / "runs" / "e" / "d" / "m" / "r.tsv", tmp_path / "runs/e/d/m/r/trace.parquet"
    for path in (record, trace):
        path.parent.mkdir(parents=True)
    record.write_text("s\tmax_rss\n1.5\t10\n")
    pd.DataFrame([{column: "x" for column in PROVENANCE}]).to_parquet(trace)
    table, picture = tmp_path / "tables" / "benchmarks.csv", tmp_path / "figures" / "benchmarks.png"
    smk = SimpleNamespace(scriptdir=str(scripts), input=SimpleNamespace(records=[str(record)], traces=[str(trace)],
                                                                        corpora=[]),
                          output=SimpleNamespace(table=str(table), figure=str(picture)))
    runpy.run_path(str(scripts / "benchmarks_table.py"), init_globals={"snakemake": smk})
    drawn = table.read_text()
    assert figlib.stale_benchmarks(table, picture) == {}
    table.write_text(drawn.replace(figlib.benchmarks_code_sha256(), "0" * 64))  # as other code records it
    assert "drawn by other code than workflow/scripts/benchmarks_table.py" in \
        figlib.stale_benchmarks(table, picture).get(str(table), "")
    table.write_text(drawn)
    picture.write_bytes(picture.read_bytes() + b"\0")  # another picture beside it
    assert "not the picture written with it" in figlib.stale_benchmarks(table, picture).get(str(table), "")
    pd.read_csv(table).drop(columns=[BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE]).to_csv(table, index=False)
    assert figlib.stale_benchmarks(table, picture) == {}  # drawn before the record existed
    copy = tmp_path / "copy"  # the recorded code covers the script and figlib.py
    copy.mkdir()
    for name in ("benchmarks_table.py", "figlib.py"):
        (copy / name).write_text((scripts / name).read_text())
    monkeypatch.setattr(figlib, "__file__", str(copy / "figlib.py"))
    before = figlib.benchmarks_code_sha256()
    for name in ("benchmarks_table.py", "figlib.py"):
        (copy / name).write_text((copy / name).read_text() + "# edited\n")
        assert figlib.benchmarks_code_sha256() != before, name
        before = figlib.benchmarks_code_sha256()


def test_paper_built_by_other_code_is_stale(tmp_path):
    """A paper recording other building code than build_paper.py and its template hold now -> stale, built again; one
    built by the current code, built before the record existed, or not there, is left alone.

    Copied in from another checkout, or marked current by --touch after an edit: Snakemake sees only mtimes."""
    import sys

    from _run_util import REPO

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import build_paper
    from topicbench.traces import BUILT_BY

    script, template = REPO / "workflow" / "scripts" / "build_paper.py", tmp_path / "template.md"
    template.write_text("# Paper\n\n{{mirrors}}\n")
    md = tmp_path / "paper" / "topicbench.md"
    assert build_paper.stale_paper(md, script, template) == {}
    md.parent.mkdir()
    md.write_text(f"# Paper\n\n{BUILT_BY}{build_paper.code_sha256(script, template)} -->\n")
    assert build_paper.stale_paper(md, script, template) == {}
    template.write_text("# Paper, edited\n\n{{mirrors}}\n")
    assert "built by other code than workflow/scripts/build_paper.py" in \
        build_paper.stale_paper(md, script, template).get(str(md), "")
    md.write_text("# Paper\n")  # built before the record existed
    assert build_paper.stale_paper(md, script, template) == {}
