"""Hoffman et al. 2010, Fig. 1: perplexity vs documents seen (online full, online subset, batch subset), and the
evolution of one topic as online LDA sees more documents.

The paper's metric is the perplexity bound of eq. 16 on whole held-out documents, exp(-elbo_per_word)
(``VariationalLDA.heldout_elbo``); it is the main panel. Document completion, the harness's common metric, is the
second panel.
"""
import figlib
import numpy as np

FIGURE = figlib.Figure(paper="hoffman", title="Hoffman et al. 2010, Figure 1", experiments=("hoffman_fig1",),
                       models=("online_full",), order=1)
LINES = {"online_full": "-", "online_subset": "--", "batch_subset": "-"}


def line_name(group, label, method, full_size):
    """A line named by the documents its runs trained on (a subset is never called the full corpus)."""
    size = figlib.training_size(group, f"runs of label {label!r}")
    what = figlib.training_set_name(size, full_size)
    return f"{'online LDA' if method == 'online_lda' else 'batch LDA'}, {what}"


def draw(ctx):
    (experiment,) = ctx.experiments
    frame = figlib.bound_perplexity(ctx.frame(experiment), experiment)
    fig, (ax, ax_completion, ax_text) = figlib.plt.subplots(1, 3, figsize=(17, 4.5),
                                                            gridspec_kw={"width_ratios": [1.2, 1.2, 1]})
    full_size = figlib.full_corpus_size(frame)  # the whole training split, whether or not a run trained on it
    for (label, method), group in frame.groupby(["label", "method"], sort=False):
        name = line_name(group, label, method, full_size)
        for axis, y in ((ax, "bound_perplexity"), (ax_completion, "perplexity")):
            figlib.plot_mean_spread(axis, group, "docs_seen", y, name, method=method, linestyle=LINES.get(label, "-"))
    figlib.plot_baseline(ax_completion, frame)
    for axis, title, ylabel in ((ax, "Eq. 16 perplexity bound (the paper's metric)", "held-out perplexity (eq. 16 bound)"),
                                (ax_completion, "Document completion", "held-out perplexity (completion)")):
        axis.set_xscale("log")
        axis.set_xlabel("documents seen (log scale)")
        axis.set_ylabel(ylabel)
        axis.legend(fontsize=8)
        axis.set_title(title, fontsize=10)

    vocab = ctx.vocab(experiment)
    model_path = ctx.model_path(experiment, "online_full")
    history, history_docs = figlib.topic_history(model_path)
    topic = int(np.argmax(ctx.model(experiment, "online_full").topic_weights()))
    columns = np.unique(np.linspace(0, len(history_docs) - 1, min(6, len(history_docs))).round().astype(int))
    ax_text.axis("off")
    n_show = min(8, history.shape[2])
    cell_text = [[vocab[history[c, topic, r]] for c in columns] for r in range(n_show)]
    table = ax_text.table(cellText=cell_text, colLabels=[f"{int(history_docs[c]):,}" for c in columns], loc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(7)
    table.scale(1, 1.3)
    ax_text.set_title(f"Topic {topic} (most prevalent) top words after n documents", fontsize=9)

    caption = (f"Mirror of Hoffman et al. 2010, Fig. 1. {ctx.corpus_caption(experiment)}. "
               f"Left, the paper's metric (sec. 4, eq. 16): the perplexity bound exp(-sum_i ELBO_i / sum_i N_i) on the "
               f"whole test documents, theta_i fitted to each whole document with lambda fixed; the bound is above the "
               f"true perplexity. Middle, the harness's common metric: {frame['protocol'].iloc[0]} on the same test "
               f"documents, perplexity = exp(-per-word log predictive of the unobserved half). "
               f"{figlib.seeds_caption(frame)}. Dotted: word-frequency baseline (completion), from the full corpus's word counts. "
               f"K = {int(frame['p_K'].iloc[0])}; subset = {int(frame.loc[frame['label'] != 'online_full', 'corpus_size'].min()):,} "
               f"documents. Online settings (the paper: S = 1024, kappa = 0.5, tau0 = 1024 on 3.3M documents): "
               + "; ".join(f"{label}: S = {int(g['p_batch_size'].iloc[0])}, kappa = {g['p_kappa'].iloc[0]:g}, "
                           f"tau0 = {g['p_tau0'].iloc[0]:g}, {g['docs_seen'].max():,} documents seen"
                           for label, g in frame[frame['method'] == 'online_lda'].groupby('label')) + ".")
    fig.suptitle("Hoffman et al. 2010, Fig. 1 (mirror)", fontsize=10)
    ctx.save(fig)
    ctx.write(caption)
