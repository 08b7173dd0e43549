"""Hu et al. 2014, Fig. 2: held-out perplexity vs computation time on a stand-in for NIPS, LG-NMF against LDA."""
import figlib
from _hu import draw_small

FIGURE = figlib.Figure(paper="hu", title="Hu et al. 2014, Figure 2", experiments=("hu_fig2",), order=2)


def draw(ctx):
    draw_small(ctx)
