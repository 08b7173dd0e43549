"""Hu et al. 2014, Fig. 1: held-out perplexity vs computation time on a stand-in for PsyRev, LG-NMF against LDA."""
import figlib
from _hu import draw_small

FIGURE = figlib.Figure(paper="hu", title="Hu et al. 2014, Figure 1", experiments=("hu_fig1",), order=1)


def draw(ctx):
    draw_small(ctx)
