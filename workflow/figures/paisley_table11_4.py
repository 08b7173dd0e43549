"""Paisley, Blei and Jordan 2014, Table 11.4: the most probable words of a sample of C-NMF's less probable topics."""
import figlib
from _paisley_topics import draw_table

FIGURE = figlib.Figure(paper="paisley", title="Paisley et al. 2014, Table 11.4", experiments=("paisley_fig11_4",),
                       kind="table", models=("cnmf",), order=4)


def draw(ctx):
    draw_table(ctx, "rest")
