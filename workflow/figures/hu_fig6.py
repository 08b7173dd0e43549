"""Hu et al. 2014, Fig. 6: online LG-NMF against online VB LDA, held-out perplexity vs fit time."""
import figlib
from _hu import draw_online

FIGURE = figlib.Figure(paper="hu", title="Hu et al. 2014, Figure 6", experiments=("hu_fig5",), order=6)


def draw(ctx):
    draw_online(ctx, "fit_wall_s", "fit wall time, seconds (log scale; evaluation excluded)", 6,
                "held-out perplexity vs fit time (LG-NMF's grid points run one after another here; the paper ran its 8 "
                "in parallel).")
