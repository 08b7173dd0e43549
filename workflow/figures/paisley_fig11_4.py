"""Paisley, Blei and Jordan 2014, Fig. 11.4: C-NMF topic correlations (eq. 11.36) for the most probable topics.

Blocks are sized by |correlation|, green for positive and red for negative; the diagonal (correlation 1) is kept for
calibration, as in the chapter. Topics are sorted by probability (topic_weights). Where the corpus plants a topic
correlation (truth.npz ``correlation``), the caption compares the learned one with it through the matched topics."""
import figlib
import numpy as np

FIGURE = figlib.Figure(paper="paisley", title="Paisley et al. 2014, Figure 11.4", experiments=("paisley_fig11_4",),
                       models=("cnmf",), order=2)
N_TOPICS = 40


def planted_agreement(model, truth):
    """Pearson correlation between the off-diagonal planted correlations and the learned ones of the fitted topics
    matched to each planted topic (best cosine), or None without a planted correlation."""
    if not truth or "correlation" not in truth:
        return None
    fitted = model.topics() / np.linalg.norm(model.topics(), axis=1, keepdims=True)
    planted = truth["topics"] / np.linalg.norm(truth["topics"], axis=1, keepdims=True)
    match = np.argmax(planted @ fitted.T, axis=1)
    learned = model.topic_correlations()[np.ix_(match, match)]
    off = ~np.eye(len(match), dtype=bool)
    return float(np.corrcoef(truth["correlation"][off], learned[off])[0, 1])


def draw(ctx):
    (experiment,) = ctx.experiments
    model = ctx.model(experiment, "cnmf")
    if not hasattr(model, "topic_correlations"):
        raise SystemExit(f"{experiment}: method {model.name!r} has no topic locations (expected cnmf)")
    order = np.argsort(-model.topic_weights(), kind="stable")[:N_TOPICS]
    corr = model.topic_correlations()[np.ix_(order, order)]
    n = len(order)
    fig, ax = figlib.plt.subplots(figsize=(7, 7))
    for i in range(n):
        for j in range(n):
            side = abs(corr[i, j])
            ax.add_patch(figlib.plt.Rectangle((j - side / 2, i - side / 2), side, side, linewidth=0,
                                              color="green" if corr[i, j] >= 0 else "red"))
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_aspect("equal")
    ticks = np.arange(n)
    ax.set_xticks(ticks, [str(t + 1) for t in ticks], fontsize=6)
    ax.set_yticks(ticks, [str(t + 1) for t in ticks], fontsize=6)
    ax.set_xlabel("topic rank by probability")
    ax.set_ylabel("topic rank by probability")
    ax.grid(False)
    fig.suptitle("Paisley, Blei and Jordan 2014, Fig. 11.4 (mirror)", fontsize=10)
    off = corr[~np.eye(n, dtype=bool)]
    hyper = model.hyper
    agreement = planted_agreement(model, ctx.truth(experiment))
    planted = ("The corpus plants no topic correlation, so whether these are meaningful cannot be checked against a "
               "truth." if agreement is None else
               f"The corpus plants a topic correlation (truth.npz); matching each planted topic to its closest fitted "
               f"topic, the learned and planted off-diagonal correlations correlate at r = {agreement:.2f}.")
    caption = (f"Mirror of Paisley et al. 2014, Fig. 11.4. {ctx.corpus_caption(experiment)}. Correlated NMF with "
               f"K = {hyper['K']}, minibatch {hyper['batch_size']}, m = {hyper['m']}, after {model.docs_seen:,} documents; "
               f"correlations Corr(i, j) = l_i'l_j / (|l_i| |l_j|) (eq. 11.36) between the {n} most probable topics, "
               f"ordered by probability (rank 1 = most probable; the ranks match the topic table). Block side is "
               f"proportional to |correlation|; green positive, red negative; the diagonal is 1, kept for calibration. "
               f"Off-diagonal correlations range from {off.min():.2f} to {off.max():.2f} (mean |corr| "
               f"{np.abs(off).mean():.2f}). {planted}")
    ctx.save(fig)
    ctx.write(caption)
