"""Hu et al. 2014, Fig. 5: online LG-NMF against online VB LDA, held-out perplexity vs documents seen."""
import figlib
from _hu import draw_online

FIGURE = figlib.Figure(paper="hu", title="Hu et al. 2014, Figure 5", experiments=("hu_fig5",), order=5)


def draw(ctx):
    draw_online(ctx, "docs_seen", "documents seen (log scale)", 5, "held-out perplexity vs documents seen.")
