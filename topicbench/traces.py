"""What a trace table's columns mean to everything that reads traces: which columns tell runs apart, and which
every row must carry. Kept free of heavy imports, so figure and paper jobs can group runs without loading numba."""
from __future__ import annotations

# what tells one run apart from another: these columns and every hyperparameter column (p_*); a trace is one run,
# and figures, the paper and ``topicbench aggregate`` group checkpoints into runs by ``run_columns``
RUN_IDENTITY = ("experiment", "dataset", "method", "label", "seed")

# what every trace row records besides its scores: the run's identity, and its PROVENANCE: the code behind it (run.provenance, the method
# file's and package's code_sha256, a peer's method_packages) and the corpus's content (corpus_sha256);
# ``topicbench aggregate`` refuses a trace without them (a figure or the paper would show a run it cannot trace); a
# prepare records its PROVENANCE in corpus.json (``prepared_by``), and each row of benchmarks.csv carries its job's
PROVENANCE = ("git_sha", "topicbench_version", "python_version", "numpy_version", "scipy_version", "numba_version",
              "pandas_version", "host", "corpus_sha256", "code_sha256", "method_packages")
TRACE_IDENTITY = RUN_IDENTITY + ("protocol", "docs_seen", "loglik_per_word") + PROVENANCE


def run_columns(columns) -> list[str]:
    """The columns of a trace table (its ``.columns`` or any iterable of names) that tell runs apart."""
    columns = list(columns)
    return [c for c in RUN_IDENTITY if c in columns] + sorted(c for c in columns if c.startswith("p_"))


# What a figure or table part (its Markdown, read by the paper) records, written by figlib.write_caption and checked by
# build_paper.check_parts: the sha256 of the png (a figure) or csv (a table) written with it, then, as its last line,
# that of the all_traces.parquet it was drawn from. The paper refuses a part of another aggregate, or a picture or table
# replaced by hand. DRAWN_BY records the code that drew it (figlib.code_sha256): the workflow redraws a part whose
# code changed since, even when Snakemake's mtimes say current (--touch, a figure copied in; figlib.stale_figures).
PICTURE = "<!-- picture sha256 "
TABLE = "<!-- table sha256 "
DRAWN_BY = "<!-- drawn by code sha256 "
# The paper's Markdown ends with the same record of the code that built it (build_paper.code_sha256: its script and
# template), so a paper built by other code and then copied in or --touch-ed is built again (build_paper.stale_paper).
BUILT_BY = "<!-- built by code sha256 "
DRAWN_FROM = "<!-- drawn from all_traces.parquet sha256 "
# tables/benchmarks.csv records, in columns of every row, the code that drew it (figlib.benchmarks_code_sha256) and the
# sha256 of the benchmarks.png written with it: a table of other code, or beside another picture, is drawn again
# (figlib.stale_benchmarks, forced in paper.smk)
BENCHMARKS_DRAWN_BY = "drawn_by_code_sha256"
BENCHMARKS_PICTURE = "picture_sha256"
