"""Hu et al. 2014, Fig. 4: the Laplace-approximate posterior over LG-NMF's hyperparameter grid.

The paper's Fig. 4 is the 2-D posterior over (alpha_1, alpha_2) for text and votes, against LG-MCMC. The
harness models text only (theta = alpha_1) and has no LG-MCMC, so this draws each corpus's 1-D posterior
log p~(alpha | C) at the grid points (eq. 8) and the resulting weights Delta_m p~(alpha_m | C) (eq. 13),
read from the final model of each corpus's LG-NMF run.
"""
import numpy as np

import figlib


def main():
    parser = figlib.arguments("png", "pdf", "caption")
    parser.add_argument("--models", nargs="+", required=True, help="model.npz of an lgnmf run, one per corpus")
    parser.add_argument("--corpus-json", nargs="+", required=True)
    args = parser.parse_args()
    fig, axes = figlib.plt.subplots(1, len(args.models), figsize=(4.6 * len(args.models), 3.6), squeeze=False,
                                    layout="constrained")
    notes = []
    for ax, model_path, corpus in zip(axes[0], args.models, args.corpus_json):
        with np.load(model_path) as model:
            log10_alpha = model["grid_log_alpha"] / np.log(10.0)
            log_post = model["log_posterior"]
            weights = model["grid_weights"]
        relative = log_post - log_post.max()
        ax.plot(log10_alpha, relative, marker="o", color="tab:red", label="log p~(alpha | C), relative to its maximum")
        ax.set_xlabel("log10 alpha (grid points)")
        ax.set_ylabel("log posterior (nats, relative)")
        twin = ax.twinx()
        width = np.diff(log10_alpha).mean() if len(log10_alpha) > 1 else 1.0
        twin.bar(log10_alpha, weights, width=0.8 * width, alpha=0.3, color="tab:blue", label="grid weight")
        twin.set_ylim(0, 1)
        twin.set_ylabel("grid weight (eq. 13)")
        name = figlib.corpus_caption(corpus).split(":")[0]
        ax.set_title(name, fontsize=8)
        best = int(np.argmax(weights))
        notes.append(f"{name}: weight {weights[best]:.3f} at log10 alpha = {log10_alpha[best]:.2f}, "
                     f"{int(np.sum(weights > 0.01))} of {len(weights)} grid points above 0.01")
    caption = ("Mirror of Hu et al. 2014, Fig. 4 (text only): the Laplace-approximate posterior over the LG-NMF "
               "hyperparameter alpha at its grid points (line, eq. 8, relative to its maximum) and the model-averaging "
               "weights Delta_m p~(alpha_m | C) (bars, eq. 13), from the last pass of each corpus's LG-NMF run. The "
               "paper's panel is the 2-D posterior over (alpha_1, alpha_2) for text and roll-call votes against "
               "LG-MCMC; the harness has neither votes nor LG-MCMC. " + "; ".join(notes) + ".")
    fig.suptitle("Hu et al. 2014, Fig. 4 (mirror, text only)", fontsize=10)
    figlib.save_figure(fig, args.png, args.pdf)
    figlib.write_caption(args.caption, "Hu et al. 2014, Figure 4", caption)


if __name__ == "__main__":
    main()
