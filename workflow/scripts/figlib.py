"""The figure layer's contract and shared helpers.

A figure (or table) is one file ``workflow/figures/<name>.py`` holding a declaration and a draw function::

    FIGURE = figlib.Figure(paper="hoffman", title="Hoffman et al. 2010, Figure 1", kind="figure",
                           experiments=("hoffman_fig1",), models=("online_full",))

    def draw(ctx: figlib.Context) -> None: ...

``experiments`` are experiment names or fnmatch patterns (``mcinerney_fig1_*``); the figure is built when at least one
configured experiment matches, and reads every match. ``models`` are run labels: the model.npz of the first run with
that label in each read experiment becomes an input, and ``ctx.model(experiment, label)`` loads it through
``topicbench.run.load_model`` (a Method: ``topics()``, ``topic_weights()``, ``topic_correlations()``...). The outputs
follow from ``kind`` (``figure``: figures/<name>.png, .pdf, .md; ``table``: tables/<name>.md, .csv) plus ``extra``;
``workflow/rules/figures_plugins.smk`` builds every declared figure with one generic rule and ``draw_figure.py``.
"""
from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import json
import sys
from dataclasses import dataclass
from functools import cached_property
from io import BytesIO
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from topicbench import io, traces  # noqa: E402
from topicbench.traces import DRAWN_BY, DRAWN_FROM, PICTURE, TABLE  # noqa: E402  (the part records the paper checks)
from topicbench.traces import BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE  # noqa: E402  (benchmarks.csv's records)

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "figures"

# The papers, in the order of the paper's sections and the report's categories.
PAPERS = {
    "hoffman": "Hoffman, Blei and Bach 2010",
    "paisley": "Paisley, Blei and Jordan 2014",
    "mcinerney": "McInerney, Ranganath and Blei 2015",
    "hu": "Hu, Ryu, Carlson, Wang and Carin 2014",
    "findings": "Findings",
}


@dataclass(frozen=True)
class Style:
    name: str
    color: str
    linestyle: str = "-"


# One table of every method's display name, colour and line style (PyPSA-Eur's nice_names): every figure uses it.
METHODS = {
    "online_lda": Style("online VB LDA", "tab:blue"),
    "batch_lda": Style("batch VB LDA", "black"),
    "bnmf": Style("Bayesian NMF (SVI)", "tab:purple"),
    "cnmf": Style("correlated NMF (SVI)", "tab:red"),
    "population_vb": Style("population VB", "tab:green"),
    "streaming_vb": Style("streaming VB", "tab:orange"),
    "lgnmf": Style("LG-NMF", "tab:brown"),
    "gensim_lda": Style("gensim online LDA", "tab:cyan", "--"),
    "sklearn_lda": Style("scikit-learn online LDA", "tab:olive", "--"),
    "sklearn_nmf": Style("scikit-learn MiniBatchNMF (KL)", "tab:pink", "--"),
    "gensim_nmf": Style("gensim Nmf", "tab:gray", "-."),
}
BASELINE = Style("word-frequency baseline", "grey", ":")


def style(method: str, **override) -> dict:
    """matplotlib keywords (label, color, linestyle) of a method, from METHODS."""
    s = METHODS.get(method, Style(method, "tab:gray"))
    return {"label": s.name, "color": s.color, "linestyle": s.linestyle, **override}


def name(method: str) -> str:
    return METHODS[method].name if method in METHODS else method


@dataclass(frozen=True)
class Figure:
    paper: str  # a key of PAPERS: the paper's section and the report's category
    title: str
    experiments: tuple[str, ...]  # names or fnmatch patterns
    kind: str = "figure"  # "figure" (png, pdf, md) or "table" (md, csv)
    models: tuple[str, ...] = ()  # run labels whose first run's model.npz the draw reads, per experiment
    extra: tuple[str, ...] = ()  # further outputs, relative to the results directory
    order: int = 0  # position within the paper's section

    def __post_init__(self):
        for field in ("experiments", "models", "extra"):  # a bare string would be read letter by letter: "hu_*"
            value = getattr(self, field)                  # as the patterns h, u, _ and * (every experiment)
            if not isinstance(value, (tuple, list)) or not all(isinstance(v, str) and v for v in value):
                raise ValueError(f"Figure {self.title!r}: {field} must be a tuple of names, got {value!r}")
        if not self.experiments:
            raise ValueError(f"Figure {self.title!r}: experiments names no experiment")
        for path in self.extra:  # written under the results directory, beside the figure's own outputs only
            parts = Path(path).parts
            if Path(path).is_absolute() or ".." in parts or parts[0] not in ("figures", "tables") or len(parts) < 2:
                raise ValueError(f"Figure {self.title!r}: extra output {path!r} must be a file under figures/ or "
                                 f"tables/ of the results directory (relative, no '..')")
        if self.paper not in PAPERS:
            raise ValueError(f"Figure {self.title!r}: paper {self.paper!r} is not one of {', '.join(PAPERS)}; a new "
                             f"paper is one line in figlib.PAPERS (workflow/scripts/figlib.py): its key, its authors")
        if self.kind not in ("figure", "table"):
            raise ValueError(f"Figure {self.title!r}: kind {self.kind!r} must be 'figure' or 'table'")

    def outputs(self, name: str) -> dict[str, str]:
        """Output paths relative to the results directory, by role (the rule prefixes the results directory)."""
        if self.kind == "figure":
            paths = {"png": f"figures/{name}.png", "pdf": f"figures/{name}.pdf", "md": f"figures/{name}.md"}
        else:
            paths = {"md": f"tables/{name}.md", "csv": f"tables/{name}.csv"}
        paths["rst"] = f"report/captions/{name}.rst"  # the report's caption
        paths.update({f"extra{i}": path for i, path in enumerate(self.extra)})
        return paths


def load_plugin(name: str):
    if str(PLUGIN_DIR) not in sys.path:  # figure files share helpers through _*.py modules beside them
        sys.path.insert(0, str(PLUGIN_DIR))
    path = PLUGIN_DIR / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"topicbench_figure_{name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # a figure file that raises at import, or declares an impossible FIGURE: name the file
        raise ValueError(f"{path}: the figure file cannot be loaded ({type(err).__name__}: {err})") from err
    if not isinstance(getattr(module, "FIGURE", None), Figure) or not callable(getattr(module, "draw", None)):
        raise ValueError(f"{path}: a figure file needs FIGURE = figlib.Figure(...) and def draw(ctx)")
    return module


def draw_plugin(plugin, ctx: "Context") -> None:
    """Call a figure file's ``draw(ctx)`` so that all its outputs appear together or none do, naming the file when it
    raises or returns without writing one of its declared outputs (which Snakemake would report only as missing
    files, after its latency wait, naming no figure file)."""
    path = PLUGIN_DIR / f"{ctx.name}.py"
    with io.written_together() as staged:
        try:
            plugin.draw(ctx)
        except (SystemExit, KeyboardInterrupt):
            raise
        except Exception as err:
            raise ValueError(f"{path}: draw(ctx) raised {type(err).__name__} ({err}); nothing was written") from err
        written = {Path(final).absolute() for _, final in staged}
        missing = [role for role, out in ctx._outputs.items() if Path(out).absolute() not in written]
        if missing:
            raise ValueError(f"{path}: draw(ctx) returned without writing its declared output(s) "
                             f"{', '.join(missing)} ({ctx._outputs[missing[0]]}): ctx.save(fig) writes png and pdf, "
                             f"ctx.write(caption, body[, table]) the md, rst (and a table's csv), ctx.output('extraN') "
                             f"names each extra file; nothing was written")


def helper_files(name: str) -> list[Path]:
    """The helper files (``_*.py`` beside the figure files) that figure file ``name`` imports, directly or through
    another helper: inputs of its rule, so an edited helper redraws the figures that use it."""
    import ast

    found, todo = set(), [PLUGIN_DIR / f"{name}.py"]
    while todo:
        tree = ast.parse(todo.pop().read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                       [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for module in modules:
                path = PLUGIN_DIR / f"{module.split('.')[0]}.py"
                if module.startswith("_") and path.is_file() and path not in found:
                    found.add(path)
                    todo.append(path)
    return sorted(found)


def files_sha256(paths) -> str:
    """One sha256 over these files, each by name and content."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\0".encode())
    return digest.hexdigest()


def code_sha256(name: str) -> str:
    """The sha256 of the code that draws figure file ``name``: the file, its helpers (helper_files), this figlib and
    draw_figure.py (the rule's entry point beside it), each by name and content; recorded in the figure's part
    (DRAWN_BY) and compared by stale_figures."""
    here = Path(__file__).resolve()
    return files_sha256((PLUGIN_DIR / f"{name}.py", *helper_files(name), here, here.parent / "draw_figure.py"))


def benchmarks_code_sha256() -> str:
    """The sha256 of the code that draws tables/benchmarks.csv and its picture: benchmarks_table.py (the repository's
    file beside this one; Snakemake runs a copy of it) and this figlib. Recorded in each row (BENCHMARKS_DRAWN_BY)."""
    here = Path(__file__).resolve()
    return files_sha256((here.parent / "benchmarks_table.py", here))


def stale_benchmarks(table, picture) -> dict[str, str]:
    """{table: why} when benchmarks.csv records other drawing code than benchmarks_table.py and figlib.py hold now, or
    a picture other than the one written with it (Snakemake sees only mtimes: a table copied in, or marked current by
    --touch after an edit). A table recording no code (drawn before the record existed) or unreadable is left to
    Snakemake's own checks, as a missing picture is."""
    columns = (BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE)
    try:
        frame = pd.read_csv(table, usecols=lambda c: c in columns, dtype=str, keep_default_na=False)
    except (OSError, ValueError, UnicodeDecodeError):  # pandas' parser errors are ValueErrors
        return {}
    code = set(frame.get(BENCHMARKS_DRAWN_BY, ()))
    if code and code != {benchmarks_code_sha256()}:
        return {str(table): "it was drawn by other code than workflow/scripts/benchmarks_table.py and figlib.py hold now"}
    pictures = set(frame.get(BENCHMARKS_PICTURE, ()))
    if code and Path(picture).is_file() and pictures != {io.file_sha256(picture)}:
        return {str(table): f"{picture} is not the picture written with it"}
    return {}


def stale_figures(results_dir, figures: dict) -> dict[str, str]:
    """Drawn parts (of ``figures``, as discover returns them) recording other drawing code than the figure file, its
    helpers and figlib hold now: {md path: why}. Snakemake compares only mtimes, so a figure copied in from another
    checkout, or marked current by --touch after an edit, would be kept. A part recording no code (drawn before the
    record existed) or unreadable is left to Snakemake and the paper's own checks."""
    stale = {}
    for name, (figure, _) in figures.items():
        md = Path(results_dir) / figure.outputs(name)["md"]
        try:
            lines = md.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        recorded = [line.removeprefix(DRAWN_BY).removesuffix(" -->") for line in lines if line.startswith(DRAWN_BY)]
        if recorded and recorded[-1] != code_sha256(name):
            stale[str(md)] = (f"it was drawn by other code than figure file {name}.py, its helpers and figlib.py hold "
                              f"now")
    return stale


def discover(experiments: list[str]) -> dict[str, tuple[Figure, list[str]]]:
    """Every figure file whose experiments match a configured one: name -> (declaration, matched experiments),
    in paper order. Files starting with an underscore are helpers, not figures."""
    found = {}
    for path in sorted(PLUGIN_DIR.glob("[!_]*.py")):
        figure = load_plugin(path.stem).FIGURE
        matched = [e for e in experiments if any(fnmatch.fnmatchcase(e, p) for p in figure.experiments)]
        if matched:
            found[path.stem] = (figure, matched)
    papers = list(PAPERS)
    return dict(sorted(found.items(), key=lambda kv: (papers.index(kv[1][0].paper), kv[1][0].order, kv[0])))


class Context:
    """What a draw function gets: the read experiments' traces, their corpora and models, and its outputs."""

    def __init__(self, name, figure, experiments, traces, corpora, models, outputs):
        self.name, self.figure, self.experiments = name, figure, list(experiments)
        self._traces_path, self._corpora, self._models, self._outputs = traces, dict(corpora), dict(models), dict(outputs)

    @cached_property
    def traces(self) -> pd.DataFrame:
        data = Path(self._traces_path).read_bytes()  # hashed as read: the record names the table drawn from
        self.traces_sha256 = hashlib.sha256(data).hexdigest()
        frame = pd.read_parquet(BytesIO(data))
        return frame[frame["experiment"].isin(self.experiments)]

    def frame(self, experiment: str | None = None) -> pd.DataFrame:
        """The traces of one experiment (or of all read ones); an error naming it when it has no rows."""
        frame = self.traces if experiment is None else self.traces[self.traces["experiment"] == experiment]
        if frame.empty:
            raise SystemExit(f"{self.name}: no trace rows for experiment {experiment or self.experiments}")
        return frame

    def corpus_dir(self, experiment: str) -> Path:
        return Path(self._corpora[experiment])

    def corpus(self, experiment: str) -> dict:
        return json.loads((self.corpus_dir(experiment) / "corpus.json").read_text())

    def corpus_caption(self, experiment: str) -> str:
        return corpus_caption(self.corpus_dir(experiment) / "corpus.json")

    def vocab(self, experiment: str) -> list[str]:
        return (self.corpus_dir(experiment) / "vocab.txt").read_text(encoding="utf-8").splitlines()

    def truth(self, experiment: str) -> dict | None:
        """The planted parameters of a synthetic corpus (truth.npz: topics, theta, maybe correlation), or None."""
        path = self.corpus_dir(experiment) / "truth.npz"
        if not path.exists():
            return None
        with np.load(path) as archive:
            return {k: archive[k] for k in archive.files}

    def model_path(self, experiment: str, label: str) -> str:
        key = f"{experiment}/{label}"
        if key not in self._models:
            raise SystemExit(f"{self.name}: no model of run label {label!r} in experiment {experiment} "
                             f"(declare it in FIGURE.models; have: {', '.join(self._models) or 'none'})")
        return self._models[key]

    def model(self, experiment: str, label: str):
        from topicbench.run import load_model

        # over the experiment's corpus: a model of another vocabulary would label its topics with the wrong words
        return load_model(self.model_path(experiment, label), n_words=self.corpus(experiment).get("n_words"))

    def output(self, role: str) -> str:
        return self._outputs[role]

    def save(self, fig) -> None:
        self.picture_sha256 = save_figure(fig, self.output("png"), self.output("pdf"))

    def write(self, caption: str, body: str = "", table: pd.DataFrame | None = None) -> None:
        """The Markdown part (title, caption, body) read by the paper, its report caption, and a table's csv."""
        self.traces  # noqa: B018 (read, so the part records the table it was drawn from)
        picture = getattr(self, "picture_sha256", None)
        if self.figure.kind == "figure" and picture is None:
            raise ValueError(f"{self.name}: a figure must save its picture (ctx.save) before writing its part, which "
                             f"records the picture's sha256")
        csv = None
        if self.figure.kind == "table":
            if table is None:
                raise ValueError(f"{self.name}: a table figure must pass its table to ctx.write")
            # every row names the all_traces.parquet it was drawn from, whose rows carry each run's provenance
            csv = table.assign(drawn_from_all_traces_sha256=self.traces_sha256).to_csv(index=False)
        # the drawing code's record; none for a Context made by hand for no figure file (a draw always has its file)
        code = code_sha256(self.name) if (PLUGIN_DIR / f"{self.name}.py").is_file() else None
        write_caption(self.output("md"), self.figure.title, caption, body, drawn_from=self.traces_sha256,
                      picture=picture, table=None if csv is None else hashlib.sha256(csv.encode("utf-8")).hexdigest(),
                      code=code)
        io.write_text(self.output("rst"), rst_caption(self.figure.title, caption))
        if csv is not None:
            io.write_text(self.output("csv"), csv)


# -- shared helpers ----------------------------------------------------------------------------------------------

def run_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that tell runs apart: their identity and every hyperparameter (p_*) column."""
    return traces.run_columns(frame.columns)


def training_size(runs: pd.DataFrame, what: str) -> int:
    """The training documents of the runs drawn as one line (``corpus_size``), so that a line is named by what it
    trained on, not by its label's wording; runs of ``what`` on different numbers of documents are no one line."""
    sizes = sorted(int(n) for n in runs["corpus_size"].unique())
    if len(sizes) != 1:
        raise ValueError(f"{what} trained on {sizes} documents: one line would mix a subset with another; give each "
                         f"its own label")
    return sizes[0]


def full_corpus_size(frame: pd.DataFrame) -> int | None:
    """The documents of the whole training split the runs drew from (``train_split_docs``); None for traces written
    before that column, or drawn from different splits. The largest run is not it: every run may train on a subset."""
    if "train_split_docs" not in frame or frame["train_split_docs"].isna().any():
        return None
    sizes = frame["train_split_docs"].unique()
    return int(sizes[0]) if len(sizes) == 1 else None


def training_set_name(size: int, full_size: int | None) -> str:
    """"full corpus" only for runs that trained on the whole training split; otherwise "N-doc subset", or "N docs"
    where the split's size is not known (``full_corpus_size``)."""
    if full_size is None:
        return f"{size:,} docs"
    return "full corpus" if size == full_size else f"{size:,}-doc subset"


def final_rows(frame: pd.DataFrame, keys: list[str] | None = None) -> pd.DataFrame:
    """The last checkpoint of every run (by docs_seen), runs told apart by ``keys`` (default: run_columns)."""
    keys = run_columns(frame) if keys is None else keys
    return frame.sort_values("docs_seen", kind="stable").groupby(keys, dropna=False, sort=False).tail(1)


def topic_history(model_path: str) -> tuple[np.ndarray, np.ndarray]:
    """The runner's record of top words over time: (history [checkpoints, K, words], docs_seen per checkpoint).

    ``topicbench.run`` stores it in model.npz under the private keys ``_topic_history`` and ``_topic_history_docs``
    (``load_model`` drops them); this is the one place a figure reads them."""
    with np.load(model_path, allow_pickle=False) as archive:
        if "_topic_history" not in archive.files:
            raise SystemExit(f"{model_path}: no topic history (the run had topic_history_words: 0)")
        return archive["_topic_history"], archive["_topic_history_docs"]


def corpus_caption(corpus_json) -> str:
    meta = json.loads(Path(corpus_json).read_text())
    return (f"corpus {meta.get('name', '?')} ({meta.get('source', '?')}): {meta.get('n_train', 0):,} training and "
            f"{meta.get('n_test', 0):,} test documents, V = {meta.get('n_words', 0):,}, {meta.get('n_tokens', 0):,} tokens")


def seeds_caption(frame: pd.DataFrame) -> str:
    seeds = sorted(frame["seed"].unique())
    spread = "; curves are the mean over seeds, shaded from the minimum to the maximum" if len(seeds) > 1 else ""
    return f"seeds {', '.join(map(str, seeds))}{spread}"


def mean_spread(frame: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """Mean and min/max of ``y`` over seeds at each checkpoint (checkpoints are aligned by position)."""
    frame = frame.sort_values(["seed", "docs_seen"]).copy()
    frame["checkpoint"] = frame.groupby("seed").cumcount()
    return frame.groupby("checkpoint").agg(x=(x, "mean"), mean=(y, "mean"), low=(y, "min"), high=(y, "max")).reset_index()


def plot_mean_spread(ax, frame: pd.DataFrame, x: str, y: str, label: str | None = None, method: str | None = None,
                     **kwargs):
    """One curve, mean over seeds with a min-max band; styled from METHODS when ``method`` is given. ``frame`` holds one
    run per seed: the checkpoints of two (another grid point under one label, two experiments) would interleave."""
    kw = style(method) if method else {}
    kw.update(kwargs)
    if label is not None:
        kw["label"] = label
    runs = frame.drop_duplicates(run_columns(frame))
    per_seed = runs.groupby("seed").size()
    if len(per_seed) and per_seed.max() > 1:
        same = runs[runs["seed"] == per_seed.idxmax()]
        differ = [c for c in run_columns(runs) if same[c].nunique(dropna=False) > 1]
        raise ValueError(f"the curve {kw.get('label', method)!r} holds {per_seed.max()} runs of seed {per_seed.idxmax()} "
                         f"(they differ in {', '.join(differ) or 'nothing recorded'}): a curve is the mean over seeds "
                         f"of one run each; give such runs distinct labels")
    stats = mean_spread(frame, x, y)
    (line,) = ax.plot(stats["x"], stats["mean"], marker="o", markersize=3, **kw)
    if frame["seed"].nunique() > 1:
        ax.fill_between(stats["x"], stats["low"], stats["high"], color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def plot_baseline(ax, frame: pd.DataFrame, column: str = "unigram_perplexity"):
    """The word-frequency baseline of the held-out set (every figure's floor), as a dotted horizontal line: that of the
    runs trained on the whole training split (the most ``corpus_size``), since a run on a ``train_subset`` counts its
    word frequencies on the subset only, however many documents its passes see."""
    if "corpus_size" in frame:
        frame = frame[frame["corpus_size"] == frame["corpus_size"].max()]
    ax.axhline(frame[column].iloc[0], color=BASELINE.color, linestyle=BASELINE.linestyle, linewidth=1,
               label=BASELINE.name)


def markdown_table(frame: pd.DataFrame, floatfmt: str | dict = ".4f") -> str:
    """A pipe table; floats formatted with ``floatfmt`` (one format, or column -> format with ".4f" for the rest),
    NaN left blank, numbers right-aligned."""
    formats = floatfmt if isinstance(floatfmt, dict) else {}
    default = ".4f" if isinstance(floatfmt, dict) else floatfmt

    def cell(column, v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else format(v, formats.get(column, default))
        return str(v).replace("|", "\\|")

    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(cell(c, v) for c, v in zip(frame.columns, row)) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def quality_columns(final: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean topic quality of final checkpoints (NPMI, topic diversity, planted-topic recovery where known) by ``by``;
    columns with no value anywhere are dropped (recovery exists on planted corpora only)."""
    cols = {"npmi": "NPMI", "topic_diversity": "diversity", "recovery_cosine": "recovery cos",
            "recovery_frac_090": "recovered >0.9"}
    present = [c for c in cols if c in final.columns and final[c].notna().any()]
    out = final.groupby(by, sort=False)[present].mean().rename(columns=cols)
    return out


QUALITY_NOTE = ("NPMI: mean normalised pointwise mutual information of each topic's 10 top words over the test documents' "
                "co-occurrences; diversity: share of unique words among all topics' 25 top words; recovery cos: mean "
                "best-match cosine between the planted and the fitted topics, recovered >0.9: share of planted topics "
                "matched above cosine 0.9 (planted corpora only); all on the final model (topicbench/quality.py).")


def save_figure(fig, png: str, pdf: str | None = None) -> str:
    """Writes the picture (and its pdf); returns the png's sha256, which the figure's part records."""
    for path in [p for p in (png, pdf) if p]:
        with io.atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix.lstrip("."), bbox_inches="tight", dpi=150)
            if path == png:
                digest = io.file_sha256(tmp)
    plt.close(fig)
    return digest


def write_caption(path: str, title: str, caption: str, body: str = "", drawn_from: str | None = None,
                  picture: str | None = None, table: str | None = None, code: str | None = None) -> None:
    """The Markdown part, ending with its records (topicbench.traces): DRAWN_FROM stays the last line."""
    record = "".join(f"\n\n{prefix}{digest} -->" for prefix, digest in ((PICTURE, picture), (TABLE, table),
                                                                         (DRAWN_BY, code), (DRAWN_FROM, drawn_from))
                     if digest)
    io.write_text(path, f"### {title}\n\n{caption}\n\n{body}".rstrip() + record + "\n")


def rst_caption(title: str, caption: str) -> str:
    """The caption as reStructuredText for the Snakemake report (rst's inline markup characters escaped)."""
    text = caption
    for ch in ("\\", "*", "`", "_", "|"):
        text = text.replace(ch, "\\" + ch)
    return f"**{title}.** {text}\n"


def bound_perplexity(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Hoffman et al. 2010 eq. 16's perplexity bound, exp(-elbo_per_word) on whole held-out documents, as a column.

    Fails if the runs did not record the bound (``report_elbo: false``) rather than plotting nothing.
    """
    if "elbo_per_word" not in frame or frame["elbo_per_word"].isna().all():
        raise SystemExit(f"experiment {experiment}: no elbo_per_word in the traces; set report_elbo: true for it")
    return frame.assign(bound_perplexity=np.exp(-frame["elbo_per_word"]))


@dataclass(frozen=True)
class GridRecord:
    """LG-NMF's hyperparameter grid after a fit (Hu et al. 2014, sec. 3.4 and eq. 13), for Fig. 4."""
    log10_alpha: np.ndarray  # the grid points
    weights: np.ndarray  # eq. 13's weights (or the validation criterion's)
    validation: np.ndarray  # validation log predictive per token per grid point (NaN under criterion = evidence)
    search: np.ndarray  # the search's evaluations: columns log10 alpha, eq. 8 + log alpha, validation per token
    mode_log10_alpha: float
    log10_alpha_sd: float


def lgnmf_grid(model) -> GridRecord:
    """The grid record of a loaded LG-NMF model (``topicbench.run.load_model``), from the attributes its ``state()``
    documents (methods/lgnmf.py): the one place the figures read them."""
    if model.name != "lgnmf":
        raise SystemExit(f"lgnmf_grid: model is {model.name!r}, not lgnmf")
    return GridRecord(np.asarray(model.grid_log_alpha) / np.log(10.0), np.asarray(model.grid_weights),
                      np.asarray(model.validation), np.asarray(model.search).reshape(-1, 3),
                      float(model.mode_log10_alpha), float(model.log10_alpha_sd))
