"""Paisley, Blei and Jordan 2014, Fig. 11.4: C-NMF topic correlations (eq. 11.36) for the most probable topics.

Blocks are sized by |correlation|, green for positive and red for negative; the diagonal (correlation 1)
is kept for calibration, as in the chapter. Topics are sorted by probability (topic_weights)."""

import figlib
import numpy as np

from topicbench.run import load_model


def main():
    parser = figlib.arguments("model", "corpus_json", "png", "pdf", "caption")
    parser.add_argument("--n-topics", type=int, default=40)
    args = parser.parse_args()
    model = load_model(args.model)
    if not hasattr(model, "topic_correlations"):
        raise SystemExit(f"{args.model}: method {model.name!r} has no topic locations (expected cnmf)")
    order = np.argsort(-model.topic_weights(), kind="stable")[: args.n_topics]
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
    caption = (f"Mirror of Paisley et al. 2014, Fig. 11.4. {figlib.corpus_caption(args.corpus_json)}. Correlated NMF with "
               f"K = {hyper['K']}, minibatch {hyper['batch_size']}, m = {hyper['m']}, after {model.docs_seen:,} documents; "
               f"correlations Corr(i, j) = l_i'l_j / (|l_i| |l_j|) (eq. 11.36) between the {n} most probable topics, "
               f"ordered by probability (rank 1 = most probable; the ranks match the topic table). Block side is "
               f"proportional to |correlation|; green positive, red negative; the diagonal is 1, kept for calibration. "
               f"Off-diagonal correlations range from {off.min():.2f} to {off.max():.2f} (mean |corr| {np.abs(off).mean():.2f}).")
    figlib.save_figure(fig, args.png, args.pdf)
    figlib.write_caption(args.caption, "Paisley et al. 2014, Figure 11.4", caption)


if __name__ == "__main__":
    main()
