"""Equation mutants of the figure files' constants (round 6): a count a table or caption is computed with, the rows a
figure selects. Each survived tests/test_figures.py when generated; the listed test was written for it on hand-made
inputs whose table is known by hand."""
from tests.mutants import Mutant

FIG = "tests/test_figures.py::"

MUTANTS = [
    Mutant(id="figure_paisley_table11_4_twelve_rest_topics", cites="Paisley et al. 2014, Table 11.4 mirror (11 less "
           "probable topics, evenly spaced after the top 40)", path="workflow/figures/_paisley_topics.py",
           find="N_TOP, N_REST, N_WORDS = 40, 11, 10", replace="N_TOP, N_REST, N_WORDS = 40, 12, 10",
           tests=[FIG + "test_paisley_table11_4_samples_eleven_of_the_ranks_after_the_top_forty"]),
]
