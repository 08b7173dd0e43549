"""What every figure and table script shares: reading traces, seed aggregation, captions, atomic saving."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from topicbench import io  # noqa: E402


def arguments(*required: str) -> argparse.ArgumentParser:
    """A parser with each name as a required ``--option`` (underscores become dashes): the scripts' shared inputs."""
    parser = argparse.ArgumentParser()
    for name in required:
        parser.add_argument(f"--{name.replace('_', '-')}", required=True)
    return parser


def load_traces(path: str, experiment: str) -> pd.DataFrame:
    frame = pd.read_parquet(path)
    frame = frame[frame["experiment"] == experiment]
    if frame.empty:
        raise SystemExit(f"{path}: no rows for experiment {experiment!r}")
    return frame


def run_label(frame: pd.DataFrame) -> pd.Series:
    """The run-group label from the run's parameters (as in the run directory's label~ segment)."""
    return frame["label"] if "label" in frame.columns else frame["method"]


def corpus_caption(corpus_json: str) -> str:
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


def plot_mean_spread(ax, frame: pd.DataFrame, x: str, y: str, label: str, **style):
    stats = mean_spread(frame, x, y)
    (line,) = ax.plot(stats["x"], stats["mean"], label=label, marker="o", markersize=3, **style)
    if frame["seed"].nunique() > 1:
        ax.fill_between(stats["x"], stats["low"], stats["high"], color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def plot_unigram(ax, frame: pd.DataFrame):
    """The word-frequency baseline of the held-out set (every figure's floor), as a dotted line."""
    ax.axhline(frame["unigram_perplexity"].iloc[0], color="grey", linestyle=":", linewidth=1, label="word-frequency baseline")


def save_figure(fig, png: str, pdf: str | None = None) -> None:
    for path in [p for p in (png, pdf) if p]:
        with io.atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix.lstrip("."), bbox_inches="tight", dpi=150)
    plt.close(fig)


def write_caption(path: str, title: str, caption: str, body: str = "") -> None:
    io.write_text(path, f"### {title}\n\n{caption}\n\n{body}".rstrip() + "\n")


def bound_perplexity(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Hoffman et al. 2010 eq. 16's perplexity bound, exp(-elbo_per_word) on whole held-out documents, as a column.

    Fails if the runs did not record the bound (``report_elbo: false``) rather than plotting nothing.
    """
    if "elbo_per_word" not in frame or frame["elbo_per_word"].isna().all():
        raise SystemExit(f"experiment {experiment}: no elbo_per_word in the traces; set report_elbo: true for it")
    return frame.assign(bound_perplexity=np.exp(-frame["elbo_per_word"]))
