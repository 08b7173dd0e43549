"""One table of Snakemake's benchmark records (fit and prepare jobs) and a picture of wall time against peak memory.
Each row carries its job's provenance (traces.PROVENANCE): a fit's from its trace, a prepare's from its corpus.json;
and the code that drew the table and the sha256 of its picture (traces.BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE).
Run by the benchmarks rule's ``script:`` directive (workflow/rules/paper.smk)."""
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(snakemake.scriptdir)))  # noqa: F821 (figlib beside this script)
import figlib  # noqa: E402
from topicbench.traces import BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE, PROVENANCE  # noqa: E402


def main(smk):
    with figlib.io.written_together():  # the table and its picture: both new or both old
        draw(smk)


def job_provenance(stage: str, job: str, traces: list[str], corpora: list[str]) -> dict:
    """The provenance of a fit (its trace's first row) or a prepare (its corpus.json's ``prepared_by`` and content),
    or an error naming the file without it: a row that cannot be traced is not written."""
    wanted = f"/runs/{job}/trace.parquet" if stage == "fit" else f"/corpora/{job}/corpus.json"
    path = next((p for p in (traces if stage == "fit" else corpora) if p.endswith(wanted)), None)
    if path is None:
        raise SystemExit(f"benchmark record of {stage} job {job}: no input ends in {wanted}, whose provenance it needs")
    if stage == "fit":
        frame = pd.read_parquet(path)
        given = frame.iloc[0].to_dict() if len(frame) else {}
        missing = [c for c in PROVENANCE if c not in frame or frame[c].isna().any() or frame[c].nunique() != 1]
        if missing:
            raise SystemExit(f"{path}: records no single {', '.join(missing)} (missing, empty or differing between its "
                             f"rows): not a whole topicbench trace; fit it again")
        return {c: given[c] for c in PROVENANCE}
    meta = json.loads(Path(path).read_text(encoding="utf-8"))
    given = {**(meta.get("prepared_by") or {}), "corpus_sha256": meta.get("content_sha256")}
    missing = [c for c in PROVENANCE if not isinstance(given.get(c), str)]
    if missing:
        raise SystemExit(f"{path}: records no {', '.join(missing)} (prepared before prepares recorded their code): "
                         f"prepare it again")
    return {c: given[c] for c in PROVENANCE}


def draw(smk):
    rows = []
    records = Path(smk.output.table).parent.parent / "benchmarks"  # results_dir/tables/benchmarks.csv
    for path in smk.input.records:
        record = pd.read_csv(path, sep="\t")
        if record.empty or not {"s", "max_rss"} <= set(record.columns):  # a job's row would vanish, or hold nothing
            raise SystemExit(f"{path}: not a Snakemake benchmark record (no row with s and max_rss); its job's row "
                             f"cannot be written: run that job again (snakemake --forcerun its rule)")
        # <results>/benchmarks/prepare/<dataset>.tsv or <results>/benchmarks/runs/<run id>.tsv, read below results_dir
        # (which may itself lie under a folder named benchmarks/runs or prepare)
        kind, _, job = Path(path).relative_to(records).as_posix().partition("/")
        stage, job = {"prepare": "prepare", "runs": "fit"}[kind], job.removesuffix(".tsv")
        method = job.split("/")[2] if stage == "fit" else "prepare"
        provenance = job_provenance(stage, job, list(smk.input.traces), list(smk.input.corpora))
        rows.append(record.assign(stage=stage, job=job, method=method, **provenance))
    table = pd.concat(rows, ignore_index=True)
    table = table[["stage", "method", "job"] + [c for c in table.columns if c not in ("stage", "method", "job")]]
    fig, ax = figlib.plt.subplots(figsize=(6.5, 4.2))
    for method, group in table.groupby("method"):
        kw = figlib.style(method) if method in figlib.METHODS else {"label": method, "color": "grey"}
        ax.scatter(group["s"], group["max_rss"], s=14, color=kw["color"], label=kw["label"])
    ax.set_xscale("log")
    ax.set_xlabel("job wall time, s (log scale)")
    ax.set_ylabel("peak resident memory, MB")
    ax.legend(fontsize=7)
    ax.set_title(f"{len(table)} jobs: {table['s'].sum():,.0f} s wall in total", fontsize=9)
    picture = figlib.save_figure(fig, smk.output.figure)
    # what drew the table and the picture written with it, which the workflow compares at DAG build (stale_benchmarks)
    table = table.assign(**{BENCHMARKS_DRAWN_BY: figlib.benchmarks_code_sha256(), BENCHMARKS_PICTURE: picture})
    figlib.io.write_text(smk.output.table, table.to_csv(index=False))


main(snakemake)  # noqa: F821
