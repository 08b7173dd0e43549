"""Hu et al. 2014, Figs. 1-2: held-out perplexity vs computation time on a small corpus, LG-NMF against LDA.

The paper's LDA, AD-LDA, FTM and LG-MCMC are Gibbs samplers and LG-OP an ordinal-probit variant; none is in
the harness, so the LDA side is batch and online variational LDA. The paper ran LG-NMF's grid points in
parallel and timed one of them; we fit them one after another, so LG-NMF is drawn twice: total fit time,
and total divided by the grid size (the paper's per-grid-point clock).
"""
import figlib

STYLE = {"lgnmf": dict(color="tab:red"), "batch_lda": dict(color="black"), "online_lda": dict(color="tab:blue")}
NAMES = {"lgnmf": "LG-NMF", "batch_lda": "batch VB LDA", "online_lda": "online VB LDA"}
# the paper's claim and what we measured on real stand-ins (benchmarks/RESULTS.md, "LG-NMF on real text")
CLAIM = ("The paper's claim (sec. 5.1, Figs. 1-2, Table 1): LG-NMF reaches LDA's perplexity (PsyRev 902 vs 940, NIPS 175 "
         "vs 187) at a small fraction of the computation. Our finding: as printed (grid weighted by eq. 8's Laplace "
         "posterior) it does not, because eq. 8 peaks at an over-regularised alpha under the N(., 1) likelihood: on "
         "Cora (the paper profile's PsyRev stand-in, K = 50, 15 passes) it scores -7.211 nats/word against -7.208 for "
         "word frequencies and -7.131 for batch VB LDA; the default's deviation (grid placed and weighted by a "
         "validation split's log predictive) scores -6.981, and -6.848 on BBC News (LDA -6.839, word frequencies "
         "-7.363). LG-NMF's CPU time per fit is several times batch VB LDA's here (the sec. 3.4 search alone is about "
         "17 MAP fits of 5 block cycles), not a fraction of it.")


def main():
    parser = figlib.arguments("traces", "experiment", "corpus_json", "figure", "stands_in_for", "png", "pdf", "caption")
    args = parser.parse_args()
    frame = figlib.load_traces(args.traces, args.experiment)
    fig, ax = figlib.plt.subplots(figsize=(6.5, 4.2))
    for (label, method), runs in frame.groupby(["label", "method"], sort=False):
        name = NAMES.get(method, method)
        figlib.plot_mean_spread(ax, runs, "fit_wall_s", "perplexity", name, **STYLE.get(method, {}))
        if method == "lgnmf":
            per_point = runs.assign(fit_wall_s=runs["fit_wall_s"] / runs["p_grid_size"])
            figlib.plot_mean_spread(ax, per_point, "fit_wall_s", "perplexity", f"{name}, time / grid size",
                                    linestyle="--", **STYLE["lgnmf"])
    figlib.plot_unigram(ax, frame)
    ax.set_xscale("log")
    ax.set_xlabel("fit wall time, seconds (log scale; evaluation excluded)")
    ax.set_ylabel("held-out perplexity")
    ax.legend(fontsize=8)
    lgnmf = frame[frame["method"] == "lgnmf"]
    grid = ""
    if not lgnmf.empty:
        row = lgnmf.iloc[0]
        grid = (f" LG-NMF: K = {int(row['p_K'])}, {int(row['p_grid_size'])} grid points, grid = {row['p_grid']} "
                f"(laplace: sec. 3.4, placed by a search over log10 alpha in [{row['p_log10_alpha_min']:g}, "
                f"{row['p_log10_alpha_max']:g}] during the first pass, whose clock includes it), weighted by "
                f"criterion = {row['p_criterion']}, one block cycle per pass.")
    caption = (f"Mirror of Hu et al. 2014, Fig. {args.figure}, on a stand-in for {args.stands_in_for} (not available "
               f"here): {figlib.corpus_caption(args.corpus_json)}. The paper compares Gibbs-sampled LDA, AD-LDA, FTM "
               f"and LG-MCMC, and LG-OP; the harness has none of them, so LG-NMF is set against variational LDA.{grid} "
               f"Each point is one pass over the training documents. Protocol: {frame['protocol'].iloc[0]}. "
               f"{figlib.seeds_caption(frame)}. Wall time of the fit; LG-NMF's grid points run one after another "
               f"here, so its curve is drawn at total time and at total / grid size (the paper ran the grid in parallel). "
               f"{CLAIM}")
    fig.suptitle(f"Hu et al. 2014, Fig. {args.figure} (mirror)", fontsize=10)
    figlib.save_figure(fig, args.png, args.pdf)
    figlib.write_caption(args.caption, f"Hu et al. 2014, Figure {args.figure}", caption)


if __name__ == "__main__":
    main()
