"""Assemble the paper: the template's text, then each mirrored figure or table with its caption."""
import argparse
import os
from pathlib import Path

import pandas as pd

from topicbench import io


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--template", required=True)
    parser.add_argument("--traces", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("parts", nargs="*")
    args = parser.parse_args()
    traces = pd.read_parquet(args.traces)
    out_dir = Path(args.out).parent
    sections = []
    for part in args.parts:
        text = Path(part).read_text(encoding="utf-8")
        png = Path(part).with_suffix(".png")
        if png.exists():
            text += f"\n![{png.stem}]({os.path.relpath(png, out_dir)})\n"
        sections.append(text)
    # one run = one (experiment, dataset, method, label, hyperparameters, seed); other methods' p_ columns are NaN
    run_keys = ["experiment", "dataset", "method", "label", "seed"] + sorted(c for c in traces.columns if c.startswith("p_"))
    runs = traces[run_keys].astype(str).drop_duplicates().shape[0] if len(traces) else 0
    provenance = ", ".join(sorted(traces["git_sha"].unique())) if len(traces) else "none"
    summary = (f"This build aggregates {runs} runs ({len(traces)} checkpoints) from "
               f"{traces['experiment'].nunique() if len(traces) else 0} experiments; code version(s): {provenance}.")
    body = Path(args.template).read_text(encoding="utf-8")
    body = body.replace("{{summary}}", summary).replace("{{mirrors}}", "\n\n".join(sections))
    io.write_text(args.out, body)


if __name__ == "__main__":
    main()
