"""Paisley, Blei and Jordan 2014, Table 11.3: the most probable words of C-NMF's most probable topics."""
import figlib
from _paisley_topics import draw_table

FIGURE = figlib.Figure(paper="paisley", title="Paisley et al. 2014, Table 11.3", experiments=("paisley_fig11_4",),
                       kind="table", models=("cnmf",), order=3)


def draw(ctx):
    draw_table(ctx, "top")
