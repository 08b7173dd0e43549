"""Hu et al. 2014, Table 1: final held-out perplexity of each method on each small corpus (Figs. 1-2's runs), with
the final model's topic quality."""
import figlib
import pandas as pd
from _hu import CLAIM

FIGURE = figlib.Figure(paper="hu", title="Hu et al. 2014, Table 1", experiments=("hu_fig1", "hu_fig2"), kind="table",
                       order=3)
# the paper's Table 1 (PsyRev, NIPS), for orientation only: other corpora, other inference for LDA
PAPER = "LDA 940 / 187, AD-LDA 946 / 177, FTM 911 / 185, LG-NMF 902 / 175, LG-MCMC 919 / 183, LG-OP 915 / 185"


def draw(ctx):
    rows, notes = [], []
    for experiment in ctx.experiments:
        frame = ctx.frame(experiment)
        final = figlib.final_rows(frame)
        dataset = frame["dataset"].iloc[0]
        summary = final.groupby("method", sort=False).agg(perplexity=("perplexity", "mean"),
                                                          seeds=("seed", "nunique"))
        summary = summary.join(figlib.quality_columns(final, ["method"])).reset_index()
        rows.append(summary.assign(corpus=dataset, method=summary["method"].map(figlib.name)))
        rows.append(pd.DataFrame([{"corpus": dataset, "method": figlib.BASELINE.name,
                                   "perplexity": frame["unigram_perplexity"].iloc[0]}]))
        notes.append(f"{dataset}: {ctx.corpus_caption(experiment)}; protocol {frame['protocol'].iloc[0]}")
    table = pd.concat(rows, ignore_index=True)
    table = table[["corpus", "method", *[c for c in table.columns if c not in ("corpus", "method")]]]
    caption = ("Mirror of Hu et al. 2014, Table 1: held-out perplexity after the last pass, mean over seeds, on the "
               "stand-ins for PsyRev and NIPS (" + "; ".join(notes) + "), with the final model's topic quality. The "
               f"paper's values (PsyRev / NIPS), for orientation only since corpora and LDA inference differ: {PAPER}. "
               "Protocol: document completion (each test document's observed half fits its scores, the other half is "
               f"predicted), not the paper's eq. 17-18 held-out perplexity. {figlib.QUALITY_NOTE} {CLAIM}")
    ctx.write(caption, figlib.markdown_table(table, {"perplexity": ".0f", "seeds": ".0f", "NPMI": ".3f",
                                                     "diversity": ".3f", "recovery cos": ".3f",
                                                     "recovered >0.9": ".2f"}), table)
