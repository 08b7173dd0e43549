"""Hoffman et al. 2010, Fig. 2: perplexity vs CPU time for each minibatch size, with batch VB on the full corpus and
on a subset. Left, the paper's metric: the eq. 16 perplexity bound on whole held-out documents, exp(-elbo_per_word).
Right, document completion (the harness's common metric) on the same documents.
"""
import figlib

FIGURE = figlib.Figure(paper="hoffman", title="Hoffman et al. 2010, Figure 2", experiments=("hoffman_fig2",), order=2)


def panel(ax, frame, online, sizes, y):
    colors = figlib.plt.cm.viridis
    for i, size in enumerate(sizes):
        group = online[online["p_batch_size"] == size]
        for (label, method), sub in group.groupby(["label", "method"], sort=False):
            if sub[y].isna().all():
                continue  # a peer without the LDA bound (eq. 16 needs q(theta), q(z) of the LDA family)
            name = f"S = {int(size)}" if method == "online_lda" else f"{figlib.name(method)}, S = {int(size)}"
            figlib.plot_mean_spread(ax, sub, "fit_cpu_s", y, name, method=method,
                                    color=colors(i / max(len(sizes) - 1, 1)))
    full_size = figlib.full_corpus_size(frame)  # the whole training split, whether or not a run trained on it
    for label, group in frame[frame["method"] == "batch_lda"].groupby("label", sort=False):
        size = figlib.training_size(group, f"batch VB runs of label {label!r}")
        # named by the documents it trained on, not by its label's wording: a subset is never called the full corpus
        name = f"batch VB, {figlib.training_set_name(size, full_size)}"
        figlib.plot_mean_spread(ax, group, "fit_cpu_s", y, name, method="batch_lda",
                                linestyle="-" if size == full_size else ":")
    ax.set_xscale("log")
    ax.set_xlabel("fit CPU time, seconds (log scale; evaluation excluded)")


def draw(ctx):
    (experiment,) = ctx.experiments
    frame = figlib.bound_perplexity(ctx.frame(experiment), experiment)
    fig, (ax, ax_completion) = figlib.plt.subplots(1, 2, figsize=(13, 4.5))
    online = frame[frame["method"] != "batch_lda"]
    sizes = sorted(online["p_batch_size"].dropna().unique())
    panel(ax, frame, online, sizes, "bound_perplexity")
    panel(ax_completion, frame, online, sizes, "perplexity")
    figlib.plot_baseline(ax_completion, frame)
    ax.set_ylabel("held-out perplexity (eq. 16 bound)")
    ax.set_title("Eq. 16 perplexity bound (the paper's metric)", fontsize=10)
    ax_completion.set_ylabel("held-out perplexity (completion)")
    ax_completion.set_title("Document completion", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    kappas = ", ".join(f"S={int(s)}: kappa={k:g}, tau0={t:g}" for s, k, t in
                       online.groupby("p_batch_size")[["p_kappa", "p_tau0"]].first().itertuples())
    caption = (f"Mirror of Hoffman et al. 2010, Fig. 2. {ctx.corpus_caption(experiment)}. "
               f"Minibatch sizes shown: {', '.join(str(int(s)) for s in sizes)} (the paper's grid is 1, 4, ..., 16384; "
               f"the profile states its subset). Learning parameters per size: {kappas}. "
               f"Left, the paper's metric (sec. 4, eq. 16): the perplexity bound exp(-sum_i ELBO_i / sum_i N_i) on the "
               f"whole held-out documents, theta_i fitted to each whole document with lambda fixed (an upper bound on "
               f"perplexity). Right, the harness's common metric on the same documents: {frame['protocol'].iloc[0]}. "
               f"{figlib.seeds_caption(frame)}. Dotted (right): the word-frequency baseline, from the full corpus's word "
               f"counts. CPU time is process time of the fit (all threads), evaluation and JIT compilation excluded.")
    fig.suptitle("Hoffman et al. 2010, Fig. 2 (mirror)", fontsize=10)
    ctx.save(fig)
    ctx.write(caption)
