"""McInerney, Ranganath and Blei 2015, Fig. 3: sensitivity of population VB to its data size alpha. Final
look-ahead log likelihood on the time-ordered stream against log10 alpha, one panel per corpus, with the
true number of training documents N marked (and streaming VB's final score for reference).
"""

import figlib
import numpy as np
import pandas as pd


def final_rows(frame: pd.DataFrame) -> pd.DataFrame:
    keys = [k for k in ("dataset", "label", "method", "seed", "p_log10_population") if k in frame.columns]
    return frame.sort_values("docs_seen").groupby(keys, dropna=False, sort=False).tail(1)


def main():
    parser = figlib.arguments("traces", "png", "pdf", "caption")
    parser.add_argument("--experiments", nargs="+", required=True, help="one per corpus (its look-ahead N scaled to it)")
    parser.add_argument("--corpus-json", nargs="*", default=[], help="accepted for symmetry with Fig. 1; unused")
    args = parser.parse_args()
    frame = pd.concat([figlib.load_traces(args.traces, name) for name in args.experiments], ignore_index=True)
    frame = frame[(frame["eval_kind"] == "lookahead") & (frame["stream"] == "time_ordered")]
    if frame.empty:
        raise SystemExit(f"{args.traces}: experiments {', '.join(args.experiments)} have no time-ordered look-ahead rows")
    datasets = list(dict.fromkeys(frame["dataset"]))  # in the order of the experiments
    fig, axes = figlib.plt.subplots(1, len(datasets), figsize=(4.4 * len(datasets), 3.8), squeeze=False,
                                    layout="constrained")
    rows = []
    for ax, dataset in zip(axes[0], datasets):
        panel = final_rows(frame[frame["dataset"] == dataset])
        pvb = panel[panel["method"] == "population_vb"]
        stats = pvb.groupby("p_log10_population")["loglik_per_word"].agg(["mean", "min", "max"]).sort_index()
        ax.plot(stats.index, stats["mean"], marker="o", color="tab:blue", label="population VB")
        if pvb["seed"].nunique() > 1:
            ax.fill_between(stats.index, stats["min"], stats["max"], color="tab:blue", alpha=0.2, linewidth=0)
        n_true = int(panel["corpus_size"].iloc[0])
        ax.axvline(np.log10(n_true), color="black", linestyle="--", label=f"true N = {n_true:,}")
        svb = panel[panel["method"] == "streaming_vb"]
        svb_final = np.nan
        if not svb.empty:  # at its best setting where the config grids one (e.g. the minibatch size)
            varying = [c for c in svb.columns if c.startswith("p_") and svb[c].nunique(dropna=False) > 1]
            svb_final = float(svb.groupby(varying)["loglik_per_word"].mean().max() if varying else svb["loglik_per_word"].mean())
            ax.axhline(svb_final, color="tab:orange", linestyle=":", label="streaming VB (best setting)")
        ax.set_title(dataset, fontsize=9)
        ax.set_xlabel("log10 alpha")
        if ax is axes[0][0]:
            ax.set_ylabel("final held-out log likelihood per word")
        ax.legend(fontsize=7)
        best = float(stats["mean"].idxmax())
        rows.append({"corpus": dataset, "true N": n_true, "log10 N": round(float(np.log10(n_true)), 3),
                     "best log10 alpha": best, "PVB at best alpha": float(stats["mean"].max()),
                     "PVB at alpha nearest N": float(stats["mean"].iloc[np.argmin(np.abs(stats.index - np.log10(n_true)))]),
                     "streaming VB": svb_final, "seeds": int(pvb["seed"].nunique())})
    table = pd.DataFrame(rows)
    n_ahead = frame.groupby("dataset")["heldout_docs"].max().loc[datasets]
    caption = ("Mirror of McInerney, Ranganath and Blei 2015, Fig. 3 (LDA panels): population VB's final score on the "
               "time-ordered stream for each alpha = 10^x (the hyperparameter log10_population), against the true N and "
               "streaming VB's final score at its best setting. Protocol (the paper's): the look-ahead "
               "policy, the next n stream documents scored before they are trained on, by random halves ("
               + ", ".join(f"{d}: n = {int(n):,}" for d, n in n_ahead.items()) + "), "
               f"{frame['protocol'].iloc[0]}; 'final' is the last checkpoint. K = {int(frame['p_K'].iloc[0])}. "
               f"{figlib.seeds_caption(frame)}. Dashed: the true number of training documents N; dotted: streaming VB.")
    fig.suptitle("McInerney et al. 2015, Fig. 3 (mirror): population VB's sensitivity to alpha (time-ordered stream)",
                 fontsize=10)
    figlib.save_figure(fig, args.png, args.pdf)
    body = "Final look-ahead scores (nats per held-out word, mean over seeds):\n\n" + table.to_markdown(index=False, floatfmt=".4f")
    figlib.write_caption(args.caption, "McInerney et al. 2015, Figure 3", caption, body)


if __name__ == "__main__":
    main()
