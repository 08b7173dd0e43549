"""Paisley, Blei and Jordan 2014, Fig. 11.3: held-out per-word log likelihood vs documents seen, one panel per
(K, minibatch size), for B-NMF, C-NMF and online LDA; every tenth minibatch scored by threefold completion."""
import figlib
import pandas as pd

FIGURE = figlib.Figure(paper="paisley", title="Paisley et al. 2014, Figure 11.3", experiments=("paisley_fig11_3",),
                       order=1)
PAPER_K = [50, 100, 150]
PAPER_BATCH = [500, 1000, 1500, 2000]
METHODS = ("bnmf", "cnmf", "online_lda")


def draw(ctx):
    (experiment,) = ctx.experiments
    frame = ctx.frame(experiment)
    frame = frame[frame["eval_kind"] == "batch"]
    if frame.empty:
        raise SystemExit(f"experiment {experiment} has no every_nth_batch rows")
    Ks = sorted(int(k) for k in frame["p_K"].unique())
    sizes = sorted(int(s) for s in frame["p_batch_size"].unique())
    fig, axes = figlib.plt.subplots(len(Ks), len(sizes), figsize=(3.2 * len(sizes) + 1, 2.6 * len(Ks) + 0.5),
                                    squeeze=False, sharey=True)
    for row, K in enumerate(Ks):
        for col, size in enumerate(sizes):
            ax = axes[row, col]
            panel = frame[(frame["p_K"] == K) & (frame["p_batch_size"] == size)]
            for method in METHODS:
                runs = panel[panel["method"] == method]
                if not runs.empty:
                    figlib.plot_mean_spread(ax, runs, "docs_seen", "loglik_per_word", method=method)
            ax.set_title(f"K = {K}, |C_t| = {size}", fontsize=8)
            ax.tick_params(labelsize=7)
            if row == len(Ks) - 1:
                ax.set_xlabel("documents seen", fontsize=8)
            if col == 0:
                ax.set_ylabel("held-out log likelihood / word", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Paisley, Blei and Jordan 2014, Fig. 11.3 (mirror)", fontsize=10)
    fig.tight_layout()

    final = figlib.final_rows(frame)
    keys = ["p_K", "p_batch_size", "method"]
    scores = final.groupby(keys, sort=False).agg(loglik=("loglik_per_word", "mean"), sd=("loglik_per_word", "std"),
                                                seeds=("seed", "nunique"))
    table = scores.join(figlib.quality_columns(final, keys)).reset_index()
    table = pd.DataFrame({"K": table["p_K"].astype(int), "minibatch": table["p_batch_size"].astype(int),
                          "method": table["method"].map(figlib.name), "loglik / word": table["loglik"],
                          **{c: table[c] for c in table.columns if c in ("NPMI", "diversity", "recovery cos")}})
    shrunk = Ks != PAPER_K or sizes != PAPER_BATCH
    grid = (f"Panels: K in {{{', '.join(map(str, Ks))}}} x minibatch size in {{{', '.join(map(str, sizes))}}}"
            + (" (the chapter's grid is K in {50, 100, 150} x {500, 1000, 1500, 2000} over 1.8M NYT articles; "
               "this profile shrinks it)" if shrunk else " (the chapter's grid)"))
    cnmf = frame[frame["method"] == "cnmf"]
    m_note = f"C-NMF latent dimension m = {', '.join(str(int(v)) for v in sorted(cnmf['p_m'].unique()))}. " if not cnmf.empty else ""
    corpus_sizes = ", ".join(f"{v:,}" for v in sorted(frame["corpus_size"].unique()))
    first = frame.sort_values("docs_seen").iloc[0]  # the first held-out batch is batch n - 1 (0-based)
    every_n = int(round(first["docs_seen"] / first["p_batch_size"])) + 1
    excluded = int(frame["heldout_excluded"].sum()) if "heldout_excluded" in frame else 0
    passes = (frame["docs_seen"] / frame["corpus_size"]).max()
    caption = (f"Mirror of Paisley et al. 2014, Fig. 11.3. {ctx.corpus_caption(experiment)}. {grid}. "
               f"Protocol (sec. 11.6): every {every_n}th minibatch is held out for testing, scored before it is trained "
               f"on, then processed as usual; each of its documents is partitioned into thirds, the local variables are "
               f"fitted to two thirds with the globals fixed and the remaining third is predicted, in turn for each third "
               f"({frame['protocol'].iloc[0]}), and the per-word log likelihoods of all tested words are averaged. "
               f"The paper relies on 'every testing batch represents a new sample from the corpus'; here only documents "
               f"never trained on are scored"
               + (f" ({excluded:,} already-trained documents were dropped from testing batches; scored batches end at "
                  f"{passes:.2f} passes)" if excluded else " (none had to be dropped)")
               + f". Step size rho_t = (tau0 + t)^-kappa with "
               f"tau0 = {frame['p_tau0'].iloc[0]:g}, kappa = {frame['p_kappa'].iloc[0]:g}; c0 = 0.05 V, a0 = b0 = 1/K; "
               f"online LDA with alpha = 1/K and eta = c0/V. {m_note}Training corpus size D = {corpus_sizes}. "
               f"{figlib.seeds_caption(frame)}. Table: the last held-out batch's per-word log likelihood, mean over "
               f"seeds, with the final model's topic quality. {figlib.QUALITY_NOTE}")
    ctx.save(fig)
    ctx.write(caption, figlib.markdown_table(table, {"loglik / word": ".4f", "NPMI": ".3f", "diversity": ".3f",
                                                     "recovery cos": ".3f"}))
