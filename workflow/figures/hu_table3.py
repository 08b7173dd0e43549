"""Hu et al. 2014, Table 3: final held-out perplexity of online LG-NMF and online VB LDA (Figs. 5-6's runs), with
the final model's topic quality."""
import figlib
import pandas as pd
from _hu import online_name, online_settings

FIGURE = figlib.Figure(paper="hu", title="Hu et al. 2014, Table 3", experiments=("hu_fig5",), kind="table", order=7)


def draw(ctx):
    (experiment,) = ctx.experiments
    frame = ctx.frame(experiment)
    final = figlib.final_rows(frame)
    summary = final.groupby("method", sort=False).agg(perplexity=("perplexity", "mean"), fit_s=("fit_wall_s", "mean"),
                                                      docs=("docs_seen", "max"), seeds=("seed", "nunique"))
    summary = summary.join(figlib.quality_columns(final, ["method"])).reset_index()
    table = pd.concat([
        summary.assign(method=summary["method"].map(online_name)).rename(
            columns={"docs": "documents seen", "fit_s": "fit wall s"}),
        pd.DataFrame([{"method": figlib.BASELINE.name, "perplexity": frame["unigram_perplexity"].iloc[0]}])],
        ignore_index=True)
    caption = ("Mirror of Hu et al. 2014, Table 3: final held-out perplexity (mean over seeds) and the final model's "
               "topic quality. The paper's values on Wikipedia, for orientation only: LDA-VB 1761, Adapt-SVI 1666, "
               f"LG-NMF 1683. {figlib.QUALITY_NOTE} {online_settings(ctx, frame)}")
    ctx.write(caption, figlib.markdown_table(table, {"perplexity": ".0f", "fit wall s": ".1f", "documents seen": ",.0f",
                                                     "seeds": ".0f", "NPMI": ".3f", "diversity": ".3f",
                                                     "recovery cos": ".3f", "recovered >0.9": ".2f"}), table)
