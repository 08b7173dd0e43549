"""Faults while a job writes a result of several files (a figure's parts, the paper, the benchmarks table and
picture, a source model): the old set or the new one, never new files beside old ones."""
import os
import runpy
import signal
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from _run_util import REPO

SCRIPTS = REPO / "workflow" / "scripts"
sys.path.insert(0, str(SCRIPTS))
import build_paper  # noqa: E402
import figlib  # noqa: E402


def snapshot(paths):
    return {Path(p).name: Path(p).read_bytes() for p in paths}


def hidden(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith("."))


def in_child(func):
    """``func()`` in a forked child; how it ended: "killed" (SIGKILL), "raised" or "ok"."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            func()
        except BaseException:  # noqa: BLE001
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return "killed"
    return "raised" if os.WEXITSTATUS(status) else "ok"


# -- a figure's parts --------------------------------------------------------------------------------------------

def figure_job(tmp_path, word, fault=None):
    """Run workflow/scripts/draw_figure.py as the figure rule does, over a plugin that draws ``word``; ``fault``
    strikes after the picture is saved and before the Markdown part is written."""
    traces = tmp_path / "all_traces.parquet"
    if not traces.exists():
        pd.DataFrame({"experiment": ["exp"], "docs_seen": [1], "perplexity": [1.0]}).to_parquet(traces)

    def draw(ctx):
        fig, ax = figlib.plt.subplots(figsize=(2, 2))
        ax.set_title(word)
        ctx.save(fig)
        if fault == "raise":
            raise RuntimeError("the plugin fails after drawing")
        if fault == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        ctx.write(f"Caption {word}.", body=f"Body {word}.")

    plugin = SimpleNamespace(FIGURE=figlib.Figure(paper="hoffman", title="T", experiments=("exp",)), draw=draw)
    outputs = {role: str(tmp_path / "figs" / f"fig.{role}") for role in ("png", "pdf", "md", "rst")}
    smk = SimpleNamespace(scriptdir=str(SCRIPTS), params=SimpleNamespace(figure="fig", experiments=["exp"],
                                                                         corpora={}, models={}),
                          input=SimpleNamespace(traces=str(traces)), output=SimpleNamespace(items=outputs.items))
    original = figlib.load_plugin
    figlib.load_plugin = lambda name: plugin
    try:
        runpy.run_path(str(SCRIPTS / "draw_figure.py"), init_globals={"snakemake": smk})
    finally:
        figlib.load_plugin = original
    return list(outputs.values())


@pytest.mark.parametrize("fault", ["raise", "kill"])
def test_figure_failing_between_its_parts_keeps_the_old_parts(tmp_path, fault):
    """A figure plugin that fails (or is SIGKILLed) after saving its picture, before writing its caption -> every
    old part (png, pdf, md, rst) intact, no new picture under the old caption, no hidden leftovers after the next
    write."""
    paths = figure_job(tmp_path, "old")
    old = snapshot(paths)
    assert in_child(lambda: figure_job(tmp_path, "new", fault)) == ("killed" if fault == "kill" else "raised")
    assert snapshot(paths) == old
    assert fault == "kill" or hidden(tmp_path / "figs") == []
    figure_job(tmp_path, "new")  # the next run writes the new set and clears a killed writer's temporary files
    new = snapshot(paths)
    assert all(new[f"fig.{k}"] != old[f"fig.{k}"] for k in ("png", "md", "rst"))
    assert hidden(tmp_path / "figs") == []


# -- the paper ---------------------------------------------------------------------------------------------------

def paper_job(tmp_path, experiments):
    traces = tmp_path / "all_traces.parquet"
    n = len(experiments)
    pd.DataFrame({"experiment": experiments, "dataset": ["d"] * n, "method": ["oLDA"] * n, "label": ["l"] * n,
                  "seed": list(range(n)), "corpus_size": [10] * n, "git_sha": ["abc"] * n, "docs_seen": [1] * n,
                  "fit_wall_s": [1.0] * n, "perplexity": [1.0] * n}).to_parquet(traces)
    out = {k: str(tmp_path / "paper" / f"topicbench.{k}") for k in ("md", "typ", "pdf")}
    smk = SimpleNamespace(input=SimpleNamespace(traces=str(traces), template=str(REPO / "paper" / "topicbench.md"),
                                                benchmarks=[]),
                          output=SimpleNamespace(**out), params=SimpleNamespace(parts=[], papers=figlib.PAPERS))
    build_paper.main(smk)
    return list(out.values())


@pytest.mark.parametrize("step", ["compile_pdf", "to_markdown"])
def test_paper_failing_between_its_files_keeps_the_old_paper(tmp_path, monkeypatch, step):
    """The paper build failing after its Typst source (compile_pdf) or after its PDF (to_markdown) -> md, typ and
    pdf all the old paper's, never a new source beside an old PDF; no temporary file left."""
    paths = paper_job(tmp_path, ["a"])
    old = snapshot(paths)
    assert b"1 checkpoints" in old["topicbench.md"]

    def broken(*args, **kwargs):
        raise RuntimeError(f"injected in {step}")

    monkeypatch.setattr(build_paper, step, broken)
    with pytest.raises(RuntimeError, match="injected"):
        paper_job(tmp_path, ["a", "b"])
    assert snapshot(paths) == old
    assert hidden(tmp_path / "paper") == []
    monkeypatch.undo()
    new = snapshot(paper_job(tmp_path, ["a", "b"]))
    assert b"2 checkpoints" in new["topicbench.md"] and new["topicbench.typ"] != old["topicbench.typ"]


# -- the benchmarks table and its picture --------------------------------------------------------------------------

@pytest.mark.parametrize("failing", ["save_figure", "write_text"])
def test_benchmarks_job_failing_keeps_the_old_table(tmp_path, monkeypatch, failing):
    """The benchmarks job failing while it saves its picture, or while it writes its table after the picture -> the
    old table and picture kept, not a new one beside the old other."""
    from topicbench.traces import PROVENANCE

    records = tmp_path / "benchmarks" / "runs" / "exp" / "ds" / "oLDA" / "r.tsv"
    records.parent.mkdir(parents=True)
    trace = tmp_path / "runs" / "exp" / "ds" / "oLDA" / "r" / "trace.parquet"
    trace.parent.mkdir(parents=True)
    pd.DataFrame([{column: "x" for column in PROVENANCE}]).to_parquet(trace)

    def job(seconds):
        records.write_text(f"s\tmax_rss\n{seconds}\t10\n")
        smk = SimpleNamespace(scriptdir=str(SCRIPTS), input=SimpleNamespace(records=[str(records)], traces=[str(trace)],
                                                                            corpora=[]),
                              output=SimpleNamespace(table=str(tmp_path / "tables" / "b.csv"),
                                                     figure=str(tmp_path / "figures" / "b.png")))
        runpy.run_path(str(SCRIPTS / "benchmarks_table.py"), init_globals={"snakemake": smk})

    job(1.5)
    old = snapshot([tmp_path / "tables" / "b.csv", tmp_path / "figures" / "b.png"])

    def broken(*args, **kwargs):
        raise OSError(f"injected in {failing}")

    monkeypatch.setattr(figlib if failing == "save_figure" else figlib.io, failing, broken)
    with pytest.raises(OSError, match="injected"):
        job(2.5)
    assert snapshot([tmp_path / "tables" / "b.csv", tmp_path / "figures" / "b.png"]) == old


# -- a source model (tools/fit_source_models.py) -------------------------------------------------------------------

def test_source_model_torn_write_keeps_the_old_model(tmp_path, monkeypatch):
    """fit_source_models.py failing mid-way through writing a source model's npz -> the old npz intact (a later
    semi-synthetic prepare reads it)."""
    sys.path.insert(0, str(REPO / "tools"))
    import fit_source_models

    monkeypatch.setattr(fit_source_models, "OUT", tmp_path)
    name = sorted(fit_source_models.SOURCES)[0]
    monkeypatch.setattr(fit_source_models, "fit", lambda n, d: {"x": np.arange(3.0), "info": np.array(
        '{"fit": "f", "kept_words": 1, "kept_topic_mass": 1.0}')})
    fit_source_models.main(["--only", name])
    old = (tmp_path / f"{name}.npz").read_bytes()

    def torn(handle, **arrays):
        (handle if hasattr(handle, "write") else open(handle, "wb")).write(b"PK\x03\x04 torn")
        raise OSError("injected mid-write")

    monkeypatch.setattr(np, "savez_compressed", torn)
    with pytest.raises(OSError, match="injected"):
        fit_source_models.main(["--only", name])
    assert (tmp_path / f"{name}.npz").read_bytes() == old
    assert hidden(tmp_path) == []
