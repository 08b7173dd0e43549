"""McInerney, Ranganath and Blei 2015, Fig. 3: sensitivity of population VB to its data size alpha. Final look-ahead
log likelihood on the time-ordered stream against log10 alpha, one panel per corpus, with the true number of
training documents N marked (and streaming VB's final score at its best setting for reference)."""
import figlib
import numpy as np
import pandas as pd
from _mcinerney import best_setting, load

FIGURE = figlib.Figure(paper="mcinerney", title="McInerney et al. 2015, Figure 3", experiments=("mcinerney_fig1_*",),
                       order=2)


def alpha_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per corpus: the alpha grid's best point, the score there and at the grid point nearest the true N, and streaming
    VB's best final score (time-ordered stream, means over seeds)."""
    frame = frame[frame["stream"] == "time_ordered"]
    rows = []
    for dataset, panel in frame.groupby("dataset", sort=False):
        final = figlib.final_rows(panel)
        pvb = final[final["method"] == "population_vb"]
        stats = pvb.groupby("p_log10_population")["loglik_per_word"].agg(["mean", "min", "max"]).sort_index()
        n_true = int(panel["corpus_size"].iloc[0])
        svb = final[final["method"] == "streaming_vb"]
        svb_final = float(figlib.final_rows(best_setting(svb)[1])["loglik_per_word"].mean()) if not svb.empty else np.nan
        nearest = int(np.argmin(np.abs(stats.index - np.log10(n_true))))
        rows.append({"corpus": dataset, "true N": n_true, "log10 N": round(float(np.log10(n_true)), 3),
                     "best log10 alpha": float(stats["mean"].idxmax()), "PVB at best alpha": float(stats["mean"].max()),
                     "log10 alpha nearest N": float(stats.index[nearest]),
                     "PVB at alpha nearest N": float(stats["mean"].iloc[nearest]),
                     "streaming VB": svb_final, "seeds": int(pvb["seed"].nunique()), "_stats": stats})
    return pd.DataFrame(rows)


def draw(ctx):
    frame = load(ctx)
    table = alpha_table(frame)
    fig, axes = figlib.plt.subplots(1, len(table), figsize=(4.4 * len(table), 3.8), squeeze=False, layout="constrained")
    for ax, (_, row) in zip(axes[0], table.iterrows()):
        stats = row["_stats"]
        ax.plot(stats.index, stats["mean"], marker="o", **figlib.style("population_vb"))
        if row["seeds"] > 1:
            ax.fill_between(stats.index, stats["min"], stats["max"], color=figlib.METHODS["population_vb"].color,
                            alpha=0.2, linewidth=0)
        ax.axvline(np.log10(row["true N"]), color="black", linestyle="--", label=f"true N = {row['true N']:,}")
        if np.isfinite(row["streaming VB"]):
            ax.axhline(row["streaming VB"], **figlib.style("streaming_vb", linestyle=":", label="streaming VB (best setting)"))
        ax.set_title(row["corpus"], fontsize=9)
        ax.set_xlabel("log10 alpha")
        if ax is axes[0][0]:
            ax.set_ylabel("final held-out log likelihood per word")
        ax.legend(fontsize=7)
    ordered = frame[frame["stream"] == "time_ordered"]
    n_ahead = ordered.groupby("dataset")["heldout_docs"].max()
    caption = ("Mirror of McInerney, Ranganath and Blei 2015, Fig. 3 (LDA panels): population VB's final score on the "
               "time-ordered stream for each alpha = 10^x (the hyperparameter log10_population), against the true N and "
               "streaming VB's final score at its best setting. Protocol (the paper's): the look-ahead "
               "policy, the next n stream documents scored before they are trained on, by random halves ("
               + ", ".join(f"{d}: n = {int(n_ahead[d]):,}" for d in table["corpus"]) + "), "
               f"{ordered['protocol'].iloc[0]}; 'final' is the last checkpoint. K = {int(ordered['p_K'].iloc[0])}. "
               f"{figlib.seeds_caption(ordered)}. Dashed: the true number of training documents N; dotted: streaming VB. "
               f"Table: final look-ahead scores (nats per held-out word, mean over seeds).")
    fig.suptitle("McInerney et al. 2015, Fig. 3 (mirror): population VB's sensitivity to alpha (time-ordered stream)",
                 fontsize=10)
    ctx.save(fig)
    ctx.write(caption, figlib.markdown_table(table.drop(columns="_stats")))
