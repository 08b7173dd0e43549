"""Equation mutants of what a reader of the paper sees (round 20): figlib's shared curve, the mirrors' curves, axes and
order, build_paper's Typst and provenance, benchmarks_table's picture. Each survived the fast figure tests when
generated (single tokens: columns, aggregates, axes, elements, conditions); the listed test was written for it on
hand-made inputs whose plotted arrays, cells or text are known by hand."""
from tests.mutants import Mutant

FIG = "tests/test_figures.py::"
FIGLIB, PAPER, BENCH = "workflow/scripts/figlib.py", "workflow/scripts/build_paper.py", "workflow/scripts/benchmarks_table.py"
CURVE = FIG + "test_plot_mean_spread_draws_the_mean_over_seeds_and_its_min_max_band"

MUTANTS = [
    Mutant(id="paper_curve_x_is_the_median_over_seeds", cites="every mirror's curve: the mean over seeds at each "
           "checkpoint, x as well as y (figlib.mean_spread)", path=FIGLIB,
           find='agg(x=(x, "mean"), mean=(y, "mean")', replace='agg(x=(x, "median"), mean=(y, "mean")', tests=[CURVE]),
    Mutant(id="paper_curve_band_low_edge_is_the_maximum", cites="every mirror's curve: shaded from the seeds' minimum "
           "to their maximum (figlib.seeds_caption)", path=FIGLIB,
           find='ax.fill_between(stats["x"], stats["low"], stats["high"]',
           replace='ax.fill_between(stats["x"], stats["high"], stats["high"]', tests=[CURVE]),
    Mutant(id="paper_hoffman_fig2_linear_time_axis", cites="Hoffman et al. 2010, Fig. 2 mirror (perplexity against "
           "CPU time on a log axis)", path="workflow/figures/hoffman_fig2.py", find='    ax.set_xscale("log")\n',
           replace='    ax.set_xscale("linear")\n',
           tests=[FIG + "test_hoffman_fig2_draws_every_online_method_and_batch_vb_against_cpu_seconds"]),
    Mutant(id="paper_hoffman_fig2_set_before_fig1", cites="Hoffman et al. 2010 section of the paper: Fig. 1, Fig. 2, "
           "Table 1 in the paper's order (Figure.order)", path="workflow/figures/hoffman_fig2.py",
           find='experiments=("hoffman_fig2",), order=2)', replace='experiments=("hoffman_fig2",), order=0)',
           tests=[FIG + "test_the_paper_profile_sets_its_mirrors_in_the_papers_order"]),
    Mutant(id="paper_hu_fig4_last_row_by_method", cites="Hu et al. 2014, Fig. 4 mirror (the grid scores of LG-NMF's "
           "last checkpoint, by documents seen)", path="workflow/figures/hu_fig4.py",
           find='return frame.sort_values("docs_seen").iloc[-1]', replace='return frame.sort_values("method").iloc[-1]',
           tests=[FIG + "test_hu_helpers_by_hand"]),
    Mutant(id="paper_mcinerney_fig1_baseline_against_its_score", cites="McInerney et al. 2015, Fig. 1 mirror (the "
           "word-frequency baseline against documents seen)", path="workflow/figures/mcinerney_fig1.py",
           find='ax.plot(base["x"], base["mean"],', replace='ax.plot(base["mean"], base["mean"],',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="paper_mcinerney_fig1_without_streaming_vb", cites="McInerney et al. 2015, Fig. 1 mirror (population VB, "
           "streaming VB and SVI lines)", path="workflow/figures/mcinerney_fig1.py",
           find='for method in ("population_vb", "streaming_vb", "online_lda"):',
           replace='for method in ("population_vb", "online_lda"):',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="paper_mcinerney_fig3_axes_swapped", cites="McInerney et al. 2015, Fig. 3 mirror (population VB's final "
           "score against log10 alpha)", path="workflow/figures/mcinerney_fig3.py",
           find='ax.plot(stats.index, stats["mean"], marker="o"', replace='ax.plot(stats["mean"], stats.index, marker="o"',
           tests=[FIG + "test_mcinerney_fig3_caption_names_the_look_ahead_window"]),
    Mutant(id="paper_paisley_fig11_3_without_cnmf", cites="Paisley et al. 2014, Fig. 11.3 mirror (B-NMF, C-NMF and "
           "online LDA in each panel)", path="workflow/figures/paisley_fig11_3.py",
           find='METHODS = ("bnmf", "cnmf", "online_lda")', replace='METHODS = ("bnmf", "online_lda")',
           tests=[FIG + "test_paisley_fig11_3_table_is_the_mean_over_seeds_and_the_caption_names_the_nth_batch"]),
    Mutant(id="paper_typst_drops_the_figures", cites="the paper's PDF: each mirror's picture with its caption "
           "(build_paper.to_typst)", path=PAPER, find='        elif kind == "figure":\n            path = "/"',
           replace='        elif False:\n            path = "/"', tests=[FIG + "test_typst_text_is_escaped_as_string_literals"]),
    Mutant(id="paper_fallback_typeset_claims_typst", cites="the paper's provenance: 'Typeset by' names the matplotlib "
           "fallback when Typst fails", path=PAPER, find="        if used != typeset:  # typst failed",
           replace="        if False:  # typst failed",
           tests=[FIG + "test_paper_when_typst_fails_says_so_and_fills_what_the_build_lacks"]),
    Mutant(id="paper_shorttext_final_score_median_over_seeds", cites="short-text figure's table (the final look-ahead "
           "score: the mean over seeds)", path="workflow/figures/shorttext_alpha.py",
           find='"final loglik/word": float(last["loglik_per_word"].mean()),',
           replace='"final loglik/word": float(last["loglik_per_word"].median()),',
           tests=[FIG + "test_shorttext_figure_tables_first_final_and_baseline_and_says_which_lines_end_below"]),
    Mutant(id="paper_hoffman_table1_without_npmi", cites="Hoffman et al. 2010, Table 1 mirror (the best setting's "
           "topic quality: NPMI, diversity, recovery)", path="workflow/figures/hoffman_table1.py",
           find='quality = [c for c in ("NPMI", "diversity", "recovery cos") if c in best.columns]',
           replace='quality = [c for c in ("diversity", "recovery cos") if c in best.columns]',
           tests=[FIG + "test_hoffman_table1_lists_each_minibatch_sizes_lowest_bound_setting"]),
    Mutant(id="paper_fallback_line_step", cites="the fallback PDF (lines stepped down by 1.35 line heights)", path=PAPER,
           find="y -= size / 72 * 1.35", replace="y -= size / 72 * 1.5",
           tests=[FIG + "test_fallback_pdf_lays_out_the_title_note_wrapped_text_pictures_and_table_rows"]),
    Mutant(id="paper_fallback_wraps_by_a_count_of_characters", cites="the fallback PDF (each line fits the A4 text "
           "width as drawn, not a count of characters)", path=PAPER, find="        if line and width_of(candidate) > room:",
           replace="        if line and len(candidate) > 116:",
           tests=[FIG + "test_fallback_pdf_lays_out_the_title_note_wrapped_text_pictures_and_table_rows"]),
    Mutant(id="paper_fallback_room_past_the_margin", cites="the fallback PDF (lines end inside the right margin)",
           path=PAPER, find="(W - 2 * margin) * 72 - size / 2):", replace="(W - 2 * margin) * 72 + size * 6):",
           tests=[FIG + "test_fallback_pdf_lays_out_the_title_note_wrapped_text_pictures_and_table_rows"]),
    Mutant(id="paper_fallback_cut_word_drops_the_lines_words", cites="the fallback PDF (a word wider than a line is "
           "cut where it fills the line it starts on, after that line's words)", path=PAPER,
           find="lines.append(head + word[:lo] if lo else line)", replace="lines.append(word[:lo] if lo else line)",
           tests=[FIG + "test_fallback_pdf_lays_out_the_title_note_wrapped_text_pictures_and_table_rows"]),
    Mutant(id="paper_hoffman_faster_judges_a_mix_of_runs", cites="Hoffman et al. 2010, Fig. 2 claim (two runs of one "
           "seed and label cannot be judged: _claims.several_runs)", path="workflow/figures/_claims.py",
           find='    duplicated = several_runs(compared, ["seed", "method", "label"], experiment)\n    if duplicated:',
           replace='    duplicated = several_runs(compared, ["seed", "method", "label"], experiment)\n    if False:',
           tests=[FIG + "test_hoffman_faster_refuses_two_runs_of_one_seed_and_label"]),
    Mutant(id="paper_benchmarks_axes_swapped", cites="the benchmarks picture (wall time on x, peak memory on y)",
           path=BENCH, find='ax.scatter(group["s"], group["max_rss"],', replace='ax.scatter(group["max_rss"], group["s"],',
           tests=[FIG + "test_benchmarks_table_and_picture_by_hand"]),
    Mutant(id="paper_benchmarks_trace_without_rows_passes", cites="the benchmarks table (a fit's row needs one "
           "provenance value per column: a trace without rows is refused)", path=BENCH,
           find="frame[c].nunique() != 1]", replace="frame[c].nunique() > 1]",
           tests=[FIG + "test_benchmarks_table_refuses_a_row_it_cannot_fill"]),
]
