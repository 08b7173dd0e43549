"""Hu et al. 2014, Table 1: final held-out perplexity of each method on each small corpus (Figs. 1-2's runs)."""
import pandas as pd

import figlib
from hu_fig1_2 import CLAIM, NAMES
# the paper's Table 1 (PsyRev, NIPS), for orientation only: other corpora, other inference for LDA
PAPER = "LDA 940 / 187, AD-LDA 946 / 177, FTM 911 / 185, LG-NMF 902 / 175, LG-MCMC 919 / 183, LG-OP 915 / 185"


def main():
    parser = figlib.arguments("traces", "table")
    parser.add_argument("--experiments", nargs="+", required=True)
    parser.add_argument("--corpus-json", nargs="+", required=True)
    args = parser.parse_args()
    rows, notes = [], []
    for experiment, corpus in zip(args.experiments, args.corpus_json):
        frame = figlib.load_traces(args.traces, experiment)
        final = frame.sort_values("docs_seen").groupby(["label", "method", "seed"], sort=False).tail(1)
        dataset = frame["dataset"].iloc[0]
        for method, runs in final.groupby("method", sort=False):
            rows.append({"corpus": dataset, "method": NAMES.get(method, method), "perplexity": runs["perplexity"].mean(),
                         "seeds": runs["seed"].nunique()})
        rows.append({"corpus": dataset, "method": "word-frequency baseline", "perplexity": frame["unigram_perplexity"].iloc[0],
                     "seeds": 0})
        notes.append(f"{dataset}: {figlib.corpus_caption(corpus)}; protocol {frame['protocol'].iloc[0]}")
    frame = pd.DataFrame(rows)
    table = frame.pivot(index="method", columns="corpus", values="perplexity")
    table = table.loc[list(dict.fromkeys(frame["method"])), list(dict.fromkeys(frame["corpus"]))]  # experiments' order
    lines = ["| method | " + " | ".join(table.columns) + " |", "|---|" + "---|" * len(table.columns)]
    for method, values in table.iterrows():
        lines.append(f"| {method} | " + " | ".join("" if pd.isna(v) else f"{v:.0f}" for v in values) + " |")
    caption = ("Mirror of Hu et al. 2014, Table 1: held-out perplexity after the last pass, mean over seeds, on the "
               "stand-ins for PsyRev and NIPS (" + "; ".join(notes) + "). The paper's values (PsyRev / NIPS), for "
               f"orientation only since corpora and LDA inference differ: {PAPER}. Protocol: document completion (each "
               f"test document's observed half fits its scores, the other half is predicted), not the paper's eq. 17-18 "
               f"held-out perplexity. {CLAIM}")
    figlib.write_caption(args.table, "Hu et al. 2014, Table 1", caption, "\n".join(lines))


if __name__ == "__main__":
    main()
