"""Population VB against streaming VB over the topic prior eta: how much of McInerney et al. 2015's Fig. 1 comparison
the prior decides. Streaming VB's topics are smoothed by eta alone, population VB's also by the residue of their random
start (an SVI step keeps prod_t (1 - rho_t) of it), and McInerney et al.'s eta is in their Appendix C, not in our text.
Final look-ahead score on the time-ordered stream against eta, each method at its best other setting per eta (population
VB's alpha, streaming VB's minibatch size S), one panel per corpus (one experiment eta_pvb_svb_<corpus> each).
"""
import figlib
import pandas as pd
from _mcinerney import best_setting, setting_text

FIGURE = figlib.Figure(paper="mcinerney", title="Topic prior eta: population VB against streaming VB",
                       experiments=("eta_pvb_svb_*",), order=4)
METHODS = ("population_vb", "streaming_vb")


def eta_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (corpus, method, eta): the best other setting by mean final score, and that setting's final scores."""
    rows = []
    for (dataset, method), runs in frame.groupby(["dataset", "method"], sort=False):
        for eta, at_eta in runs.groupby("p_eta"):
            setting, best = best_setting(at_eta)
            final = figlib.final_rows(best)
            rows.append({"corpus": dataset, "method": figlib.name(method), "eta": float(eta),
                         "best setting": setting_text(setting).removeprefix(", best ") or "-",
                         "final loglik/word": float(final["loglik_per_word"].mean()),
                         "min": float(final["loglik_per_word"].min()), "max": float(final["loglik_per_word"].max()),
                         "final unigram": float(final["unigram_loglik_per_word"].mean()),
                         "seeds": int(final["seed"].nunique()), "_method": method})
    return pd.DataFrame(rows)


def draw(ctx):
    frame = pd.concat([ctx.frame(e) for e in ctx.experiments], ignore_index=True)
    frame = frame[(frame["eval_kind"] == "lookahead") & (frame["stream"] == "time_ordered")
                  & frame["method"].isin(METHODS)]
    if frame.empty:
        raise SystemExit(f"{ctx.name}: experiments {', '.join(ctx.experiments)} have no time-ordered look-ahead rows "
                         f"of {' or '.join(METHODS)}")
    table = eta_table(frame)
    corpora = list(dict.fromkeys(table["corpus"]))
    fig, axes = figlib.plt.subplots(1, len(corpora), figsize=(4.6 * len(corpora), 3.8), squeeze=False,
                                    layout="constrained")
    for ax, corpus in zip(axes[0], corpora):
        panel = table[table["corpus"] == corpus]
        for method, rows in panel.groupby("_method", sort=False):
            rows = rows.sort_values("eta")
            ax.plot(rows["eta"], rows["final loglik/word"], marker="o", **figlib.style(method))
            if rows["seeds"].max() > 1:
                ax.fill_between(rows["eta"], rows["min"], rows["max"], color=figlib.METHODS[method].color, alpha=0.2,
                                linewidth=0)
        ax.axhline(panel["final unigram"].mean(), color=figlib.BASELINE.color, linestyle=figlib.BASELINE.linestyle,
                   label=figlib.BASELINE.name)
        ax.set_xscale("log")
        ax.set_title(corpus, fontsize=9)
        ax.set_xlabel("topic prior eta")
        if ax is axes[0][0]:
            ax.set_ylabel("final look-ahead log likelihood per word")
        ax.legend(fontsize=7)
    best = table.loc[table.groupby(["corpus", "method"], sort=False)["final loglik/word"].idxmax()]
    caption = (
        "Population VB (McInerney et al. 2015) against streaming VB (Broderick et al. 2013) over the topic prior eta, on "
        "the time-ordered stream, scored as McInerney et al.'s Fig. 1 (the next n stream documents before they are "
        f"trained on, {frame['protocol'].iloc[0]}); 'final' is the last checkpoint. K = {int(frame['p_K'].iloc[0])}, "
        f"document prior alpha = {frame['p_alpha'].iloc[0]:g}; {figlib.seeds_caption(frame)}. At each eta each method "
        "is shown at its best other setting by the mean final score (population VB's alpha, streaming VB's S), chosen "
        "on the scores shown, so each point is optimistic by that selection. Dotted: the word-frequency baseline on the "
        "same documents. Streaming VB's lambda is eta plus the statistics it has seen; population VB's also keeps the "
        "residue of its random start, a smoothing streaming VB lacks, so a small eta can decide the comparison. This "
        "build, each method's best eta: " + "; ".join(
            f"{r['corpus']} {r['method']} eta = {r['eta']:g} ({r['final loglik/word']:.4f})" for _, r in best.iterrows())
        + ". The findings judge population VB against streaming VB with each at its best eta, paired over seeds. "
        "Table: final look-ahead scores (nats per held-out word, mean and range over seeds).")
    fig.suptitle("Topic prior eta: population VB against streaming VB (time-ordered stream)", fontsize=10)
    ctx.save(fig)
    table = table.drop(columns="_method")
    ctx.write(caption, figlib.markdown_table(table, {"eta": "g"}), table)

