"""Equation mutants of the findings and the figures (round 5): a verdict's threshold, a test's replicate count, an
aggregate or a column that reaches a table, a caption or the paper. Each survived the suite when generated (single
tokens: flipped comparisons, aggregates, columns, constants); the listed test was written for it on hand-made traces
whose verdict is known by hand, on both sides of the threshold.
"""
from tests.mutants import Mutant

FIG = "tests/test_figures.py::"
CLAIMS = "workflow/figures/_claims.py"
PAISLEY_TWO = FIG + "test_paisley_comparable_judges_two_replicates_and_names_each_pair_once"

MUTANTS = [
    Mutant(id="findings_constant_difference_t_zero", cites="the claims' paired t test (no spread, nonzero mean: "
           "t = sign(mean) inf)", path=CLAIMS, find="t, p = (np.sign(mean) * np.inf, 0.0)",
           replace="t, p = (np.sign(mean) / np.inf, 0.0)", tests=[FIG + "test_a_constant_nonzero_difference_has_an_infinite_t"]),
    Mutant(id="findings_reached_needs_three_replicates", cites="the 'reaches' claims (two replicates can be judged)",
           path=CLAIMS, find='    n = reached + never\n    if n < 2:', replace='    n = reached + never\n    if n <= 2:',
           tests=[FIG + "test_reached_or_not_judges_two_replicates"]),
    Mutant(id="findings_hoffman_best_setting_text_most_seeds", cites="Hoffman et al. 2010, Table 1 claim (the test "
           "text follows the fewest seeds)", path=CLAIMS, find='"runs, so the test is optimistic)" if min(ns) >= 2',
           replace='"runs, so the test is optimistic)" if max(ns) >= 2',
           tests=[FIG + "test_hoffman_best_setting_test_text_follows_the_fewest_seeds"]),
    Mutant(id="findings_hoffman_best_setting_text_three_seeds", cites="Hoffman et al. 2010, Table 1 claim (two seeds "
           "are tested)", path=CLAIMS, find='"runs, so the test is optimistic)" if min(ns) >= 2',
           replace='"runs, so the test is optimistic)" if min(ns) > 2',
           tests=[FIG + "test_hoffman_best_setting_test_text_follows_the_fewest_seeds"]),
    Mutant(id="findings_paisley_needs_three_methods", cites="Paisley et al. 2014, Fig. 11.3 claim (any two of the "
           "three methods compare)", path=CLAIMS, find="if len(methods) < 2:", replace="if len(methods) <= 2:",
           tests=[FIG + "test_paisley_comparable_judges_two_methods"]),
    Mutant(id="findings_paisley_pairs_repeated", cites="Paisley et al. 2014, Fig. 11.3 claim (each pair once)",
           path=CLAIMS, find="for b in methods[i + 1:]:", replace="for b in methods[i - 1:]:", tests=[PAISLEY_TWO]),
    Mutant(id="findings_paisley_interval_hidden_at_two", cites="Paisley et al. 2014, Fig. 11.3 claim (the interval "
           "of two replicates is shown)", path=CLAIMS, find='+ ("" if n < 2 else f" [{s', replace='+ ("" if n <= 2 else f" [{s',
           tests=[PAISLEY_TWO]),
    Mutant(id="findings_paisley_inside_needs_three", cites="Paisley et al. 2014, Fig. 11.3 claim (two replicates "
           "are judged)", path=CLAIMS, find='inside.append(n >= 2 and', replace='inside.append(n > 2 and', tests=[PAISLEY_TWO]),
    Mutant(id="findings_paisley_outside_needs_three", cites="Paisley et al. 2014, Fig. 11.3 claim (two replicates "
           "are judged)", path=CLAIMS, find='outside.append(n >= 2 and', replace='outside.append(n > 2 and', tests=[PAISLEY_TWO]),
    Mutant(id="findings_paisley_two_replicates_untested", cites="Paisley et al. 2014, Fig. 11.3 claim (two "
           "replicates are judged)", path=CLAIMS, find='    if n < 2:\n        return Judgement("cannot be judged", numbers, "", f"too few replicates for a test (n = {n}); {test}", n)',
           replace='    if n <= 2:\n        return Judgement("cannot be judged", numbers, "", f"too few replicates for a test (n = {n}); {test}", n)',
           tests=[PAISLEY_TWO]),
    Mutant(id="findings_hoffman_faster_needs_either_method", cites="Hoffman et al. 2010, Fig. 2 claim (batch VB and "
           "online LDA both needed, else cannot be judged)", path=CLAIMS, find="if batch.empty or online.empty:",
           replace="if batch.empty and online.empty:",
           tests=[FIG + "test_hoffman_faster_without_one_of_its_methods_cannot_be_judged"]),
    Mutant(id="findings_mcinerney_grid_from_log10_n_brackets", cites="McInerney et al. 2015, Fig. 3 claim (the grid "
           "brackets log10 N strictly, at its lower end too)", path=CLAIMS,
           find="if not (table.columns.min() < log_n < table.columns.max()):",
           replace="if not (table.columns.min() <= log_n < table.columns.max()):",
           tests=[FIG + "test_mcinerney_alpha_not_n_grid_starting_at_log10_n_does_not_bracket_it"]),
    Mutant(id="findings_hoffman_larger_corpus_only_two_labels", cites="Hoffman et al. 2010, Fig. 1 claim (online_full "
           "and online_subset among the experiment's labels)", path=CLAIMS,
           find='if not {"online_full", "online_subset"} <= set(', replace='if not {"online_full", "online_subset"} >= set(',
           tests=[FIG + "test_hoffman_larger_corpus_reads_its_two_labels_beside_batch_vbs"]),
    Mutant(id="findings_paisley_interval_shown_only_at_two", cites="Paisley et al. 2014, Fig. 11.3 claim (every "
           "tested pair's interval is shown)", path=CLAIMS, find='+ ("" if n < 2 else f" [{s', replace='+ ("" if n > 2 else f" [{s',
           tests=[PAISLEY_TWO]),
    Mutant(id="findings_mcinerney_gap_needs_three_seeds", cites="McInerney et al. 2015, Fig. 3 claim (a gap on two "
           "seeds is tested)", path=CLAIMS, find='gap = best != nearest and s["n"] >= 2',
           replace='gap = best != nearest and s["n"] > 2', tests=[FIG + "test_mcinerney_alpha_not_n_judges_a_gap_on_two_seeds"]),
    Mutant(id="findings_mcinerney_p_hidden_at_two_seeds", cites="McInerney et al. 2015, Fig. 3 claim (the p value of a "
           "two-seed gap is shown)", path=CLAIMS, find='("" if s["n"] < 2 else f" (p = {s',
           replace='("" if s["n"] <= 2 else f" (p = {s', tests=[FIG + "test_mcinerney_alpha_not_n_judges_a_gap_on_two_seeds"]),
    Mutant(id="findings_mcinerney_two_seeds_untested", cites="McInerney et al. 2015, Fig. 3 claim (two seeds tell a "
           "gap from noise)", path=CLAIMS, find="if min(n_seeds) < 2:", replace="if min(n_seeds) <= 2:",
           tests=[FIG + "test_mcinerney_alpha_not_n_judges_a_gap_on_two_seeds"]),
    Mutant(id="findings_mcinerney_untested_n_most_seeds", cites="McInerney et al. 2015, Fig. 3 claim (n: the fewest "
           "seeds of a corpus)", path=CLAIMS, find="return Judgement(\"cannot be judged\", numbers, \"\", f\"too few seeds to tell a gap from noise (n = {min(n_seeds)})\",\n                         min(n_seeds))",
           replace="return Judgement(\"cannot be judged\", numbers, \"\", f\"too few seeds to tell a gap from noise (n = {min(n_seeds)})\",\n                         max(n_seeds))",
           tests=[FIG + "test_mcinerney_alpha_not_n_reports_the_fewest_seeds_over_its_corpora"]),
    Mutant(id="findings_mcinerney_n_most_seeds", cites="McInerney et al. 2015, Fig. 3 claim (n: the fewest seeds of a "
           "corpus)", path=CLAIMS, find="\"significantly on at least half of the corpora ('often differs')\", min(n_seeds))",
           replace="\"significantly on at least half of the corpora ('often differs')\", max(n_seeds))",
           tests=[FIG + "test_mcinerney_alpha_not_n_reports_the_fewest_seeds_over_its_corpora"]),
    Mutant(id="findings_paisley_correlation_no_truth_crashes", cites="Paisley et al. 2014, Fig. 11.4 claim (no planted "
           "correlation: cannot be judged)", path=CLAIMS, find='if not truth or "correlation" not in truth:',
           replace='if not truth and "correlation" not in truth:',
           tests=[FIG + "test_paisley_correlation_judge_without_a_planted_correlation_cannot_be_judged"]),
    Mutant(id="findings_paisley_correlation_negative_tail_flipped", cites="Paisley et al. 2014, Fig. 11.4 claim (not "
           "reproduced: r < 0 in the significant lower tail)", path=CLAIMS,
           find='"not reproduced" if r < 0 and stats.norm.cdf(z) < LEVEL', replace='"not reproduced" if r > 0 and stats.norm.cdf(z) < LEVEL',
           tests=[FIG + "test_paisley_correlation_judge_calls_a_strong_negative_r_not_reproduced"]),
    Mutant(id="findings_scaling_batch_second_part_from_the_middle", cites="the harness's scaling claim (diminishing "
           "return: (largest - middle) - (middle - smallest))", path=CLAIMS,
           find="- (g.iloc[len(g) // 2] - g.iloc[0]) for g in groups]", replace="- (g.iloc[len(g) // 2] - g.iloc[1]) for g in groups]",
           tests=[FIG + "test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes"]),
    Mutant(id="findings_line_names_every_setting", cites="the baseline claim's line names (the settings that vary "
           "among a label's runs)", path=CLAIMS,
           find='varying = [c for c in runs.columns if c.startswith("p_") and runs[c].nunique(dropna=False) > 1]\n        if runs["dataset"]',
           replace='varying = [c for c in runs.columns if c.startswith("p_") and runs[c].nunique(dropna=False) >= 1]\n        if runs["dataset"]',
           tests=[FIG + "test_beats_baseline_names_a_line_by_the_settings_that_vary_only"]),
    Mutant(id="findings_mcinerney_pvb_without_svb_kept", cites="McInerney et al. 2015, Fig. 1 claim (a (corpus, seed) "
           "without both methods is left out)", path=CLAIMS, find="if pvb.empty or svb.empty:\n            continue",
           replace="if pvb.empty and svb.empty:\n            continue",
           tests=[FIG + "test_mcinerney_pvb_beats_svb_skips_a_corpus_without_streaming_vb"]),
    Mutant(id="findings_line_names_dataset_subtracted", cites="the baseline claim's line names (the dataset where an "
           "experiment spans several)", path=CLAIMS, find='varying = ["dataset"] + varying', replace='varying = ["dataset"] - varying',
           tests=[FIG + "test_beats_baseline_names_the_dataset_of_a_line_spanning_several"]),
    Mutant(id="findings_baseline_two_seeds_untested", cites="the baseline claim (a line on two seeds is tested)",
           path=CLAIMS, find="            if j.n < 2:\n                one_seed += 1", replace="            if j.n <= 2:\n                one_seed += 1",
           tests=[FIG + "test_beats_baseline_tests_a_line_on_two_seeds"]),
    Mutant(id="findings_mcinerney_best_alpha_by_median", cites="McInerney et al. 2015, Fig. 3 claim (the best alpha: "
           "the highest mean over seeds)", path=CLAIMS, find="best = table.mean().idxmax()", replace="best = table.median().idxmax()",
           tests=[FIG + "test_mcinerney_alpha_not_n_best_alpha_is_the_mean_over_seeds"]),
    Mutant(id="findings_mcinerney_p_shown_only_at_two_seeds", cites="McInerney et al. 2015, Fig. 3 claim (every tested "
           "gap's p value is shown)", path=CLAIMS, find='("" if s["n"] < 2 else f" (p = {s',
           replace='("" if s["n"] > 2 else f" (p = {s', tests=[FIG + "test_mcinerney_alpha_not_n_best_alpha_is_the_mean_over_seeds"]),
    Mutant(id="findings_baseline_two_seed_line_unnamed", cites="the baseline claim (a tested line not above is named)",
           path=CLAIMS, find='if j.verdict != "reproduced" and (j.n >= 2 or', replace='if j.verdict != "reproduced" and (j.n > 2 or',
           tests=[FIG + "test_beats_baseline_names_a_two_seed_line_inside_the_noise"]),
    Mutant(id="findings_baseline_p_hidden_at_two_seeds", cites="the baseline claim (a tested line's p value is shown)",
           path=CLAIMS, find="(f\" (p = {s['p']:.3g})\" if j.n >= 2 else",
           replace="(f\" (p = {s['p']:.3g})\" if j.n > 2 else",
           tests=[FIG + "test_beats_baseline_names_a_two_seed_line_inside_the_noise"]),
    Mutant(id="findings_mcinerney_insignificant_gap_contradicts", cites="McInerney et al. 2015, Fig. 3 claim: a best "
           "alpha away from N by less than the seed noise is inside the noise (mixed), not a contradiction", path=CLAIMS,
           find='else "mixed" if any(elsewhere) else', replace='else "mixed" if False else',
           tests=[FIG + "test_mcinerney_alpha_not_n_counts_only_a_significant_gap"]),
    Mutant(id="findings_mcinerney_mixed_needs_every_corpus_elsewhere", cites="McInerney et al. 2015, Fig. 3 claim "
           "(mixed: the best alpha differs on some corpora, fewer than half)", path=CLAIMS,
           find='else "mixed" if any(elsewhere) else', replace='else "mixed" if all(elsewhere) else',
           tests=[FIG + "test_mcinerney_alpha_not_n_one_corpus_of_three_is_mixed"]),
    Mutant(id="findings_mcinerney_best_at_n_counted_as_elsewhere", cites="McInerney et al. 2015, Fig. 3 claim: the best "
           "alpha at the grid point nearest N on every corpus contradicts it", path=CLAIMS,
           find="elsewhere.append(best != nearest)", replace="elsewhere.append(best == nearest)",
           tests=[FIG + "test_mcinerney_alpha_not_n_follows_where_the_best_alpha_is"]),
    Mutant(id="findings_baseline_and_zero_more", cites="the baseline claim's text (four lines named, the rest counted)",
           path=CLAIMS, find='more" if len(shown) > 4 else', replace='more" if len(shown) >= 4 else',
           tests=[FIG + "test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest"]),
    Mutant(id="findings_hu_fraction_needs_either_method", cites="Hu et al. 2014, Figs. 1-2 claim (LDA and LG-NMF both "
           "needed, else cannot be judged)", path=CLAIMS, find="if lda.empty or lg.empty:", replace="if lda.empty and lg.empty:",
           tests=[FIG + "test_hu_fraction_without_one_of_its_methods_cannot_be_judged"]),
    Mutant(id="findings_hu_fraction_lda_on_the_cpu_clock", cites="Hu et al. 2014, Figs. 1-2 claim (both methods on "
           "the wall clock)", path=CLAIMS, find='float(lda["fit_wall_s"].iloc[-1])', replace='float(lda["fit_cpu_s"].iloc[-1])',
           tests=[FIG + "test_hu_fraction_reads_ldas_time_on_the_wall_clock_too"]),
    Mutant(id="findings_shorttext_skips_one_seed_not_one_setting", cites="short-text claim (a method needs two alpha = "
           "eta settings; one seed is kept, untested)", path=CLAIMS, find="if table.shape[1] < 2:", replace="if table.shape[0] < 2:",
           tests=[FIG + "test_shorttext_alpha_skips_a_method_with_one_setting"]),
    Mutant(id="findings_shorttext_p_hidden_at_two_seeds", cites="short-text claim (a tested pair's p value is shown)",
           path=CLAIMS, find='parts.append(j.numbers + ("" if j.n < 2 else', replace='parts.append(j.numbers + ("" if j.n <= 2 else',
           tests=[FIG + "test_shorttext_alpha_shows_the_p_value_of_two_seeds"]),
    Mutant(id="findings_reached_counts_only_the_never", cites="the 'reaches' claims (replicates: those that reached and "
           "those that never did)", path=CLAIMS, find="    n = reached + never\n", replace="    n = never\n",
           tests=[FIG + "test_reached_or_not_judges_two_replicates"]),
    Mutant(id="findings_scaling_drops_runs_lacking_a_setting", cites="the harness's scaling claims (runs grouped "
           "whatever settings they lack)", path=CLAIMS, find="for key, g in final.groupby(keys, dropna=False):",
           replace="for key, g in final.groupby(keys, dropna=True):",
           tests=[FIG + "test_scaling_k_groups_runs_with_a_setting_they_lack"]),
    Mutant(id="findings_scaling_group_of_one_value", cites="the harness's scaling claims (a group needs two values of "
           "the gridded setting)", path=CLAIMS, find="if g[column].nunique() >= 2:", replace="if g[column].count() >= 2:",
           tests=[FIG + "test_scaling_k_averages_the_labels_at_one_k_and_skips_groups_of_one_k"]),
    Mutant(id="findings_scaling_median_over_labels", cites="the harness's scaling claims (the mean score at each value)",
           path=CLAIMS, find='groups.append(g.groupby(column)["loglik_per_word"].mean().sort_index())',
           replace='groups.append(g.groupby(column)["loglik_per_word"].median().sort_index())',
           tests=[FIG + "test_scaling_k_averages_the_labels_at_one_k_and_skips_groups_of_one_k"]),
    Mutant(id="findings_paisley_numbers_without_the_pairs", cites="Paisley et al. 2014, Fig. 11.3 claim (the numbers "
           "give each pair's difference)", path=CLAIMS, find='(panel, seed) replicates: " + "; ".join(parts)',
           replace='(panel, seed) replicates: "', tests=[PAISLEY_TWO]),
    Mutant(id="findings_line_names_ignore_an_unset_setting", cites="the baseline claim's line names (an unset setting "
           "differs from a set one)", path=CLAIMS,
           find='c.startswith("p_") and runs[c].nunique(dropna=False) > 1]\n        if runs["dataset"]',
           replace='c.startswith("p_") and runs[c].nunique(dropna=True) > 1]\n        if runs["dataset"]',
           tests=[FIG + "test_beats_baseline_tells_an_unset_setting_from_a_set_one"]),
    Mutant(id="findings_line_names_never_the_dataset", cites="the baseline claim's line names (the dataset where an "
           "experiment spans several)", path=CLAIMS, find='if runs["dataset"].nunique() > 1:', replace='if runs["dataset"].nunique() < 1:',
           tests=[FIG + "test_beats_baseline_names_the_dataset_of_a_line_spanning_several"]),
    Mutant(id="findings_paired_upper_end_without_the_mean", cites="the claims' paired t test (95% interval mean +- "
           "t se)", path=CLAIMS, find='"hi": mean + crit * se}', replace='"hi": crit * se}',
           tests=[FIG + "test_paired_interval_is_centred_on_the_mean"]),
    Mutant(id="findings_scaling_batch_second_gain_alone", cites="the harness's scaling claim (diminishing return: the "
           "second gain minus the first)", path=CLAIMS, find="second = [(g.iloc[-1] - g.iloc[len(g) // 2]) - (g.iloc[len(g) // 2] - g.iloc[0]) for g in groups]",
           replace="second = [(g.iloc[-1] - g.iloc[len(g) // 2]) for g in groups]",
           tests=[FIG + "test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes"]),
    Mutant(id="findings_scaling_batch_numbers_of_one_part", cites="the harness's scaling claim (numbers of both parts)",
           path=CLAIMS, find='return Judgement(verdict, a.numbers + "; " + b.numbers, "",', replace='return Judgement(verdict, a.numbers + "; ", "",',
           tests=[FIG + "test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes"]),
    Mutant(id="findings_scaling_batch_test_of_one_part", cites="the harness's scaling claim (the tests of both parts)",
           path=CLAIMS, find='"", a.test + "; " + b.test, a.n)', replace='"", a.test + "; ", a.n)',
           tests=[FIG + "test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes"]),
    Mutant(id="findings_scaling_batch_test_of_the_second_part", cites="the harness's scaling claim (the tests of both "
           "parts)", path=CLAIMS, find='"", a.test + "; " + b.test, a.n)', replace='"", b.test, a.n)',
           tests=[FIG + "test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes"]),
    Mutant(id="findings_test_text_df_is_n", cites="the claims' paired t test (df = n - 1 in the test text)", path=CLAIMS,
           find="df = {s['n'] - 1}, p", replace="df = {s['n']}, p", tests=[FIG + "test_paired_interval_is_centred_on_the_mean"]),
    Mutant(id="findings_test_text_df_minus_one", cites="the claims' paired t test (df = n - 1 in the test text)",
           path=CLAIMS, find="df = {s['n'] - 1}, p", replace="df = {-1}, p", tests=[FIG + "test_paired_interval_is_centred_on_the_mean"]),
    Mutant(id="findings_hoffman_larger_corpus_subset_only", cites="Hoffman et al. 2010, Fig. 1 claim (full corpus minus "
           "subset)", path=CLAIMS, find='d = (final["online_full"] - final["online_subset"]).dropna()',
           replace='d = (-final["online_subset"]).dropna()',
           tests=[FIG + "test_hoffman_larger_corpus_is_not_reproduced_when_the_subset_scores_higher"]),
    Mutant(id="findings_mcinerney_p_never_shown", cites="McInerney et al. 2015, Fig. 3 claim (every tested gap's p "
           "value is shown)", path=CLAIMS, find='f"gap {s[\'mean\']:.4f} nats/word" + ("" if s["n"] < 2 else f" (p = {s[\'p\']:.3g})"))',
           replace='f"gap {s[\'mean\']:.4f} nats/word")', tests=[FIG + "test_mcinerney_alpha_not_n_best_alpha_is_the_mean_over_seeds"]),
    Mutant(id="findings_baseline_more_only_below_four", cites="the baseline claim's text (four lines named, the rest "
           "counted)", path=CLAIMS, find='more" if len(shown) > 4 else', replace='more" if len(shown) < 4 else',
           tests=[FIG + "test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest"]),
    Mutant(id="findings_hu_fraction_never_unnamed", cites="Hu et al. 2014, Figs. 1-2 claim (the replicates that never "
           "reached the target are named)", path=CLAIMS, find='"LG-NMF never reached the LDA perplexity: " + "; ".join(never)',
           replace='"LG-NMF never reached the LDA perplexity: "',
           tests=[FIG + "test_hu_fraction_names_each_replicate_that_never_reached_the_target"]),
    Mutant(id="findings_scaling_batch_test_of_the_first_part_dropped", cites="the harness's scaling claim (the tests of "
           "both parts)", path=CLAIMS, find='"", a.test + "; " + b.test, a.n)', replace='"", "; " + b.test, a.n)',
           tests=[FIG + "test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes"]),
    Mutant(id="findings_line_names_dataset_only", cites="the baseline claim's line names (the dataset and the varying "
           "settings)", path=CLAIMS, find='varying = ["dataset"] + varying', replace='varying = ["dataset"]',
           tests=[FIG + "test_beats_baseline_names_the_dataset_and_the_varying_setting_together"]),
    Mutant(id="findings_line_names_without_the_dataset", cites="the baseline claim's line names (the dataset where an "
           "experiment spans several)", path=CLAIMS, find='varying = ["dataset"] + varying', replace='varying = varying',
           tests=[FIG + "test_beats_baseline_names_the_dataset_of_a_line_spanning_several"]),
    Mutant(id="findings_shorttext_more_than_two_settings_skipped", cites="short-text claim (a method needs two alpha = "
           "eta settings)", path=CLAIMS, find="if table.shape[1] < 2:", replace="if table.shape[1] > 2:",
           tests=[FIG + "test_shorttext_alpha_skips_a_method_with_one_setting"]),
    Mutant(id="findings_shorttext_p_hidden_from_three_seeds", cites="short-text claim (every tested pair's p value is "
           "shown)", path=CLAIMS, find='parts.append(j.numbers + ("" if j.n < 2 else', replace='parts.append(j.numbers + ("" if j.n > 2 else',
           tests=[FIG + "test_shorttext_alpha_shows_the_p_value_of_three_seeds"]),
    Mutant(id="figure_hu_small_draws_the_baseline_perplexity", cites="Hu et al. 2014, Figs. 1-2 mirror (held-out "
           "perplexity against fit time)", path="workflow/figures/_hu.py",
           find='figlib.plot_mean_spread(ax, runs, "fit_wall_s", "perplexity", method=method)',
           replace='figlib.plot_mean_spread(ax, runs, "fit_wall_s", "unigram_perplexity", method=method)',
           tests=[FIG + "test_hu_small_figure_draws_lgnmf_at_total_time_and_at_total_over_the_grid_size"]),
    Mutant(id="findings_baseline_rest_never_counted", cites="the baseline claim's text (four lines named, the rest "
           "counted)", path=CLAIMS, find='text += "; not above, lowest first: " + "; ".join(t for _, t in shown[:4]) + (\n                f" and {len(shown) - 4} more" if len(shown) > 4 else "")',
           replace='text += "; not above, lowest first: " + "; ".join(t for _, t in shown[:4])',
           tests=[FIG + "test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest"]),
    Mutant(id="figure_hu_small_per_point_draws_the_baseline_perplexity", cites="Hu et al. 2014, Figs. 1-2 mirror "
           "(LG-NMF's perplexity at total / grid size)", path="workflow/figures/_hu.py",
           find='figlib.plot_mean_spread(ax, per_point, "fit_wall_s", "perplexity",',
           replace='figlib.plot_mean_spread(ax, per_point, "fit_wall_s", "unigram_perplexity",',
           tests=[FIG + "test_hu_small_figure_draws_lgnmf_at_total_time_and_at_total_over_the_grid_size"]),
    Mutant(id="findings_shorttext_p_never_shown", cites="short-text claim (every tested pair's p value is shown)",
           path=CLAIMS, find='parts.append(j.numbers + ("" if j.n < 2 else f" (p = {paired(d)[\'p\']:.3g})"))',
           replace="parts.append(j.numbers)", tests=[FIG + "test_shorttext_alpha_shows_the_p_value_of_three_seeds"]),
    Mutant(id="findings_paisley_pairs_with_itself", cites="Paisley et al. 2014, Fig. 11.3 claim (each pair of distinct "
           "methods once)", path=CLAIMS, find="for b in methods[i + 1:]:", replace="for b in methods[i:]:", tests=[PAISLEY_TWO]),
    Mutant(id="findings_paisley_pairs_from_the_second", cites="Paisley et al. 2014, Fig. 11.3 claim (each pair of "
           "distinct methods once)", path=CLAIMS, find="for b in methods[i + 1:]:", replace="for b in methods[1:]:", tests=[PAISLEY_TWO]),
    Mutant(id="findings_paisley_interval_never_shown", cites="Paisley et al. 2014, Fig. 11.3 claim (each pair's 95% "
           "interval is shown)", path=CLAIMS, find='+ ("" if n < 2 else f" [{s[\'lo\']:+.4f}, {s[\'hi\']:+.4f}]"))',
           replace=")", tests=[PAISLEY_TWO]),
    Mutant(id="figure_hu_small_grid_from_the_other_methods", cites="Hu et al. 2014, Figs. 1-2 mirror (LG-NMF's grid "
           "settings in the caption)", path="workflow/figures/_hu.py", find='lgnmf = frame[frame["method"] == "lgnmf"]',
           replace='lgnmf = frame[frame["method"] != "lgnmf"]', tests=[FIG + "test_hu_small_figure_draws_lgnmf_at_total_time_and_at_total_over_the_grid_size"]),
    Mutant(id="figure_hu_small_grid_never_described", cites="Hu et al. 2014, Figs. 1-2 mirror (LG-NMF's grid "
           "settings in the caption)", path="workflow/figures/_hu.py", find="    if not lgnmf.empty:\n        row = lgnmf.iloc[0]",
           replace="    if lgnmf.empty:\n        row = lgnmf.iloc[0]", tests=[FIG + "test_hu_small_figure_draws_lgnmf_at_total_time_and_at_total_over_the_grid_size"]),
    Mutant(id="findings_paisley_pair_names_dropped", cites="Paisley et al. 2014, Fig. 11.3 claim (each pair named with "
           "its difference)", path=CLAIMS, find='parts.append(f"{figlib.name(a)} - {figlib.name(b)} = {s[\'mean\']:+.4f}"\n                         + ("" if n < 2',
           replace='parts.append(("" if n < 2', tests=[PAISLEY_TWO]),
    Mutant(id="findings_baseline_not_above_unlabelled", cites="the baseline claim's text (the lines not above, "
           "labelled)", path=CLAIMS, find='text += "; not above, lowest first: " + "; ".join(',
           replace='text += "; ".join(', tests=[FIG + "test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest"]),
    Mutant(id="figure_hu_online_draws_the_baseline_perplexity", cites="Hu et al. 2014, Figs. 5-6 mirror (held-out "
           "perplexity)", path="workflow/figures/_hu.py", find='figlib.plot_mean_spread(ax, runs, x, "perplexity",',
           replace='figlib.plot_mean_spread(ax, runs, x, "unigram_perplexity",',
           tests=[FIG + "test_hu_online_figures_draw_perplexity_against_documents_and_against_fit_time"]),
    Mutant(id="figure_hu_fig5_against_fit_time", cites="Hu et al. 2014, Fig. 5 mirror (against documents seen)",
           path="workflow/figures/hu_fig5.py", find='draw_online(ctx, "docs_seen",', replace='draw_online(ctx, "fit_wall_s",',
           tests=[FIG + "test_hu_online_figures_draw_perplexity_against_documents_and_against_fit_time"]),
    Mutant(id="figure_hu_fig6_against_cpu_time", cites="Hu et al. 2014, Fig. 6 mirror (against fit wall time, as the "
           "paper's clock)", path="workflow/figures/hu_fig6.py", find='draw_online(ctx, "fit_wall_s",', replace='draw_online(ctx, "fit_cpu_s",',
           tests=[FIG + "test_hu_online_figures_draw_perplexity_against_documents_and_against_fit_time"]),
    Mutant(id="findings_hoffman_best_setting_part_without_its_test", cites="Hoffman et al. 2010, Table 1 claim (each "
           "minibatch size's numbers carry its t test)", path=CLAIMS, find="else '; ' + j.test}\")", replace="else '; '}\")",
           tests=[FIG + "test_hoffman_best_setting_test_text_follows_the_fewest_seeds"]),
    Mutant(id="findings_hoffman_best_setting_part_test_unseparated", cites="Hoffman et al. 2010, Table 1 claim (each "
           "minibatch size's numbers carry its t test)", path=CLAIMS, find="else '; ' + j.test}\")", replace="else j.test}\")",
           tests=[FIG + "test_hoffman_best_setting_test_text_follows_the_fewest_seeds"]),
    Mutant(id="figure_mcinerney_best_setting_by_median", cites="McInerney et al. 2015, Figs. 1 and 3 mirrors (each "
           "method at its best setting: the best mean over seeds)", path="workflow/figures/_mcinerney.py",
           find='.groupby(varying, dropna=False)["loglik_per_word"].mean()', replace='.groupby(varying, dropna=False)["loglik_per_word"].median()',
           tests=[FIG + "test_mcinerney_best_setting_is_the_mean_not_the_median_over_seeds"]),
    Mutant(id="findings_baseline_counts_every_line_as_more", cites="the baseline claim's text (four named, the rest "
           "counted)", path=CLAIMS, find='f" and {len(shown) - 4} more"', replace='f" and {len(shown)} more"',
           tests=[FIG + "test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest"]),
    Mutant(id="findings_baseline_counts_minus_four_more", cites="the baseline claim's text (four named, the rest "
           "counted)", path=CLAIMS, find='f" and {len(shown) - 4} more"', replace='f" and {-4} more"',
           tests=[FIG + "test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest"]),
    Mutant(id="figure_mcinerney_alpha_label_not_a_power", cites="McInerney et al. 2015, Fig. 1 mirror (population VB "
           "labelled alpha = 10^x)", path="workflow/figures/_mcinerney.py", find='if name == "log10_population":',
           replace='if name != "log10_population":', tests=[FIG + "test_mcinerney_setting_text_names_alpha_as_a_power_of_ten_and_s_as_an_integer"]),
    Mutant(id="figure_mcinerney_batch_label_not_an_integer", cites="McInerney et al. 2015, Fig. 1 mirror (streaming "
           "VB labelled S = n)", path="workflow/figures/_mcinerney.py", find='elif name == "batch_size":',
           replace='elif name != "batch_size":', tests=[FIG + "test_mcinerney_setting_text_names_alpha_as_a_power_of_ten_and_s_as_an_integer"]),
    Mutant(id="figure_mcinerney_planted_note_crashes", cites="McInerney et al. 2015, Fig. 1 mirror (a planted corpus's "
           "note)", path="workflow/figures/_mcinerney.py", find="            text += (f\", {generator.get('n_topics')}",
           replace="            text -= (f\", {generator.get('n_topics')}", tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="figure_mcinerney_svi_replacement_label_flipped", cites="McInerney et al. 2015, Fig. 1 mirror (SVI on "
           "the with-replacement stream)", path="workflow/figures/_mcinerney.py",
           find='(", with replacement)" if stream == "with_replacement" else ")")',
           replace='(", with replacement)" if stream != "with_replacement" else ")")', tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="figure_hoffman_fig1_completion_in_the_bound_panel", cites="Hoffman et al. 2010, Fig. 1 mirror (the "
           "paper's metric: the eq. 16 bound)", path="workflow/figures/hoffman_fig1.py",
           find='for axis, y in ((ax, "bound_perplexity"), (ax_completion, "perplexity")):',
           replace='for axis, y in ((ax, "perplexity"), (ax_completion, "perplexity")):', tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="figure_hoffman_fig1_baseline_in_the_completion_panel", cites="Hoffman et al. 2010, Fig. 1 mirror "
           "(document completion's perplexity)", path="workflow/figures/hoffman_fig1.py",
           find='for axis, y in ((ax, "bound_perplexity"), (ax_completion, "perplexity")):',
           replace='for axis, y in ((ax, "bound_perplexity"), (ax_completion, "unigram_perplexity")):', tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="figure_mcinerney_label_without_its_setting", cites="McInerney et al. 2015, Fig. 1 mirror (each line "
           "labelled with its best setting)", path="workflow/figures/_mcinerney.py", find="return base + setting_text(setting)",
           replace="return base", tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="figure_hoffman_fig1_settings_of_the_other_methods", cites="Hoffman et al. 2010, Fig. 1 mirror (the "
           "caption's online settings)", path="workflow/figures/hoffman_fig1.py",
           find="frame[frame['method'] == 'online_lda'].groupby('label')", replace="frame[frame['method'] != 'online_lda'].groupby('label')",
           tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="figure_mcinerney_setting_text_without_the_settings", cites="McInerney et al. 2015, Fig. 1 mirror (the "
           "best setting in the label)", path="workflow/figures/_mcinerney.py", find='return (", best " + ", ".join(parts)) if parts',
           replace='return ", best " if parts', tests=[FIG + "test_mcinerney_setting_text_names_alpha_as_a_power_of_ten_and_s_as_an_integer"]),
    Mutant(id="figure_mcinerney_setting_text_without_best", cites="McInerney et al. 2015, Fig. 1 mirror (the label says "
           "the setting is the best)", path="workflow/figures/_mcinerney.py", find='return (", best " + ", ".join(parts)) if parts',
           replace='return ", ".join(parts) if parts', tests=[FIG + "test_mcinerney_setting_text_names_alpha_as_a_power_of_ten_and_s_as_an_integer"]),
    Mutant(id="figure_mcinerney_svi_label_never_closed", cites="McInerney et al. 2015, Fig. 1 mirror (SVI's label)",
           path="workflow/figures/_mcinerney.py", find='base = "SVI (D = N" + (", with replacement)" if stream == "with_replacement" else ")")',
           replace='base = "SVI (D = N"', tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="figure_hoffman_fig2_peer_labelled_as_online_lda", cites="Hoffman et al. 2010, Fig. 2 mirror (a peer's "
           "line names its library)", path="workflow/figures/hoffman_fig2.py", find='name = f"S = {int(size)}" if method == "online_lda" else',
           replace='name = f"S = {int(size)}" if method != "online_lda" else',
           tests=[FIG + "test_hoffman_fig2_draws_every_online_method_and_batch_vb_against_cpu_seconds"]),
    Mutant(id="figure_mcinerney_svi_label_without_svi", cites="McInerney et al. 2015, Fig. 1 mirror (SVI's label)",
           path="workflow/figures/_mcinerney.py", find='base = "SVI (D = N" + (", with replacement)" if stream == "with_replacement" else ")")',
           replace='base = (", with replacement)" if stream == "with_replacement" else ")")', tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="figure_mcinerney_streaming_label_uncited", cites="McInerney et al. 2015, Fig. 1 mirror (streaming VB is "
           "Broderick et al. 2013's)", path="workflow/figures/_mcinerney.py",
           find='base = figlib.name(method) + (" (Broderick et al. 2013)" if method == "streaming_vb" else "")',
           replace='base = figlib.name(method)', tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="figure_mcinerney_corpus_note_is_a_full_stop", cites="McInerney et al. 2015, Fig. 1 mirror (each corpus's "
           "note)", path="workflow/figures/_mcinerney.py", find='notes.append(text + ".")', replace='notes.append(".")',
           tests=[FIG + "test_mcinerney_labels_and_corpus_notes"]),
    Mutant(id="table_paisley_11_4_ranks_past_k", cites="Paisley et al. 2014, Table 11.4 mirror (the topics after the "
           "top 40, when there are any)", path="workflow/figures/_paisley_topics.py",
           find="astype(int)) if K > n_top else np.array([], int)", replace="astype(int)) if K >= n_top else np.array([], int)",
           tests=[FIG + "test_paisley_table11_4_is_empty_when_k_is_the_top_forty"]),
    Mutant(id="table_paisley_11_4_caption_ranks_from_forty", cites="Paisley et al. 2014, Table 11.4 mirror (the ranks "
           "after the top 40: 41-K)", path="workflow/figures/_paisley_topics.py", find="evenly spaced over ranks {n_top + 1}-{K}.",
           replace="evenly spaced over ranks {n_top}-{K}.", tests=[FIG + "test_paisley_tables_report_planted_purity_and_the_ranks_after_the_top_forty"]),
    Mutant(id="table_paisley_11_4_caption_ranks_from_one", cites="Paisley et al. 2014, Table 11.4 mirror (the ranks "
           "after the top 40: 41-K)", path="workflow/figures/_paisley_topics.py", find="evenly spaced over ranks {n_top + 1}-{K}.",
           replace="evenly spaced over ranks {1}-{K}.", tests=[FIG + "test_paisley_tables_report_planted_purity_and_the_ranks_after_the_top_forty"]),
    Mutant(id="table_hoffman_grid_completion_variance", cites="Hoffman et al. 2010, Table 1 mirror (the grid's sd over "
           "seeds of completion perplexity)", path="workflow/figures/hoffman_table1.py",
           find='completion_perplexity_sd=("perplexity", "std")', replace='completion_perplexity_sd=("perplexity", "var")',
           tests=[FIG + "test_hoffman_table1_grid_is_mean_sd_over_seeds_of_each_setting"]),
    Mutant(id="table_hoffman_grid_csv_with_the_index", cites="Hoffman et al. 2010, Table 1 mirror (the grid csv's "
           "columns)", path="workflow/figures/hoffman_table1.py", find='ctx.output("extra0"), grid.to_csv(index=False))',
           replace='ctx.output("extra0"), grid.to_csv(index=True))',
           tests=[FIG + "test_hoffman_table1_lists_each_minibatch_sizes_lowest_bound_setting"]),
    Mutant(id="findings_caption_without_the_counts", cites="the findings table's caption (this build's verdict "
           "counts)", path="workflow/figures/findings.py", find='+ ", ".join(f"{counts[v]} {v}" for v in counts.index) + ".")',
           replace='+ ".")', tests=[FIG + "test_findings_table_carries_each_judges_verdict_and_replicates"]),
    Mutant(id="figure_hu_fig4_scores_with_a_gap", cites="Hu et al. 2014, Fig. 4 mirror (grid points' held-out scores "
           "only when every point has one)", path="workflow/figures/hu_fig4.py",
           find="if all(c in row.index and np.isfinite(row[c]) for c in columns):",
           replace="if any(c in row.index and np.isfinite(row[c]) for c in columns):", tests=[FIG + "test_hu_fig4_leaves_out_grid_scores_when_a_grid_point_has_none"]),
    Mutant(id="figure_hu_fig4_scores_present_not_finite", cites="Hu et al. 2014, Fig. 4 mirror (grid points' held-out "
           "scores only when every point has one)", path="workflow/figures/hu_fig4.py",
           find="if all(c in row.index and np.isfinite(row[c]) for c in columns):",
           replace="if all(c in row.index or np.isfinite(row[c]) for c in columns):", tests=[FIG + "test_hu_fig4_leaves_out_grid_scores_when_a_grid_point_has_none"]),
    Mutant(id="figure_hoffman_fig1_caption_dropped", cites="Hoffman et al. 2010, Fig. 1 mirror (its caption)",
           path="workflow/figures/hoffman_fig1.py", find='caption = (f"Mirror of Hoffman et al. 2010, Fig. 1. {ctx.corpus_caption(experiment)}. "',
           replace='caption = "." or (f"Mirror of Hoffman et al. 2010, Fig. 1. {ctx.corpus_caption(experiment)}. "', tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="figure_hoffman_fig1_caption_without_settings", cites="Hoffman et al. 2010, Fig. 1 mirror (the caption's "
           "online settings)", path="workflow/figures/hoffman_fig1.py",
           find="for label, g in frame[frame['method'] == 'online_lda'].groupby('label')) + \".\")",
           replace="for label, g in frame[frame['method'] == 'online_lda'].groupby('label')) * 0 + \".\")", tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="table_hu_1_median_perplexity", cites="Hu et al. 2014, Table 1 mirror (perplexity after the last pass, "
           "mean over seeds)", path="workflow/figures/hu_table1.py", find='agg(perplexity=("perplexity", "mean"),',
           replace='agg(perplexity=("perplexity", "median"),', tests=[FIG + "test_hu_tables_report_means_over_seeds_wall_seconds_documents_seen_and_the_baseline"]),
    Mutant(id="table_hoffman_1_caption_without_the_grid", cites="Hoffman et al. 2010, Table 1 mirror (the caption's "
           "grid, documents and seeds)", path="workflow/figures/hoffman_table1.py",
           find='caption = (f"Mirror of Hoffman et al. 2010, Table 1. {ctx.corpus_caption(experiment)}. "',
           replace='caption = "" and (f"Mirror of Hoffman et al. 2010, Table 1. {ctx.corpus_caption(experiment)}. "',
           tests=[FIG + "test_hoffman_table1_lists_each_minibatch_sizes_lowest_bound_setting"]),
    Mutant(id="table_hu_3_median_fit_time", cites="Hu et al. 2014, Table 3 mirror (fit wall seconds, mean over seeds)",
           path="workflow/figures/hu_table3.py", find='fit_s=("fit_wall_s", "mean")', replace='fit_s=("fit_wall_s", "median")',
           tests=[FIG + "test_hu_tables_report_means_over_seeds_wall_seconds_documents_seen_and_the_baseline"]),
    Mutant(id="figure_hu_fig4_second_checkpoint", cites="Hu et al. 2014, Fig. 4 mirror (held-out scores of the last "
           "checkpoint)", path="workflow/figures/hu_fig4.py", find='return frame.sort_values("docs_seen").iloc[-1]',
           replace='return frame.sort_values("docs_seen").iloc[1]', tests=[FIG + "test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max"]),
    Mutant(id="figure_hu_fig4_grid_band_from_its_top", cites="Hu et al. 2014, Fig. 4 mirror (the band of the placed "
           "grid)", path="workflow/figures/hu_fig4.py", find="top.axvspan(grid.min(), grid.max(),",
           replace="top.axvspan(grid.max(), grid.max(),", tests=[FIG + "test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max"]),
    Mutant(id="figure_hu_fig4_grid_band_to_its_bottom", cites="Hu et al. 2014, Fig. 4 mirror (the band of the placed "
           "grid)", path="workflow/figures/hu_fig4.py", find="top.axvspan(grid.min(), grid.max(),",
           replace="top.axvspan(grid.min(), grid.min(),", tests=[FIG + "test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max"]),
    Mutant(id="figure_mcinerney_fig1_svi_in_the_time_ordered_row", cites="McInerney et al. 2015, Fig. 1 mirror (SVI in "
           "the permuted row only)", path="workflow/figures/mcinerney_fig1.py",
           find='if runs.empty or (method == "online_lda" and row == "time_ordered"):',
           replace='if runs.empty and (method == "online_lda" and row == "time_ordered"):',
           tests=[FIG + "test_mcinerney_fig1_draws_svi_in_the_permuted_row_only"]),
    Mutant(id="figure_mcinerney_fig1_svi_in_the_wrong_row", cites="McInerney et al. 2015, Fig. 1 mirror (SVI in the "
           "permuted row only)", path="workflow/figures/mcinerney_fig1.py",
           find='(method == "online_lda" and row == "time_ordered"):', replace='(method == "online_lda" and row != "time_ordered"):',
           tests=[FIG + "test_mcinerney_fig1_draws_svi_in_the_permuted_row_only"]),
    Mutant(id="figure_mcinerney_fig1_svi_left_out_of_permuted", cites="McInerney et al. 2015, Fig. 1 mirror (SVI in "
           "the permuted row only)", path="workflow/figures/mcinerney_fig1.py",
           find='(method == "online_lda" and row == "time_ordered"):', replace='(method == "online_lda" and row == "permuted"):',
           tests=[FIG + "test_mcinerney_fig1_draws_svi_in_the_permuted_row_only"]),
    Mutant(id="figure_mcinerney_fig1_draws_the_baseline_as_the_model", cites="McInerney et al. 2015, Fig. 1 mirror "
           "(held-out log likelihood vs documents seen)", path="workflow/figures/mcinerney_fig1.py",
           find='figlib.plot_mean_spread(ax, group, "docs_seen", "loglik_per_word", label, method=method)',
           replace='figlib.plot_mean_spread(ax, group, "docs_seen", "unigram_loglik_per_word", label, method=method)',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="table_mcinerney_fig1_median_baseline", cites="McInerney et al. 2015, Fig. 1 mirror's table (the baseline, "
           "mean over seeds)", path="workflow/figures/mcinerney_fig1.py",
           find='"unigram": float(last["unigram_loglik_per_word"].mean()),', replace='"unigram": float(last["unigram_loglik_per_word"].median()),',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="table_mcinerney_fig1_median_npmi", cites="McInerney et al. 2015, Fig. 1 mirror's table (NPMI, mean over "
           "seeds)", path="workflow/figures/mcinerney_fig1.py", find='"NPMI": float(last["npmi"].mean())',
           replace='"NPMI": float(last["npmi"].median())',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="table_hu_1_caption_without_the_corpora", cites="Hu et al. 2014, Table 1 mirror (the caption names each "
           "corpus and protocol)", path="workflow/figures/hu_table1.py", find='"stand-ins for PsyRev and NIPS (" + "; ".join(notes) + "), with',
           replace='"stand-ins for PsyRev and NIPS (" + "), with', tests=[FIG + "test_hu_tables_report_means_over_seeds_wall_seconds_documents_seen_and_the_baseline"]),
    Mutant(id="figure_mcinerney_fig1_mean_documents_dropped", cites="McInerney et al. 2015, Fig. 1 mirror's caption (the "
           "already-trained documents dropped from windows, in all)", path="workflow/figures/mcinerney_fig1.py",
           find='excluded = int(frame["heldout_excluded"].sum())', replace='excluded = int(frame["heldout_excluded"].mean())',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="figure_mcinerney_fig3_band_from_the_highest", cites="McInerney et al. 2015, Fig. 3 mirror (the band over "
           "seeds, lowest to highest)", path="workflow/figures/mcinerney_fig3.py", find='.agg(["mean", "min", "max"])',
           replace='.agg(["mean", "max", "max"])', tests=[FIG + "test_mcinerney_fig3_band_spans_the_seeds_from_lowest_to_highest"]),
    Mutant(id="figure_mcinerney_fig3_band_to_the_lowest", cites="McInerney et al. 2015, Fig. 3 mirror (the band over "
           "seeds, lowest to highest)", path="workflow/figures/mcinerney_fig3.py", find='.agg(["mean", "min", "max"])',
           replace='.agg(["mean", "min", "min"])', tests=[FIG + "test_mcinerney_fig3_band_spans_the_seeds_from_lowest_to_highest"]),
    Mutant(id="table_mcinerney_fig3_streaming_median", cites="McInerney et al. 2015, Fig. 3 mirror's table (streaming "
           "VB's best final score, mean over seeds)", path="workflow/figures/mcinerney_fig3.py",
           find='best_setting(svb)[1])["loglik_per_word"].mean())', replace='best_setting(svb)[1])["loglik_per_word"].median())',
           tests=[FIG + "test_mcinerney_fig3_table_reads_the_best_alpha_the_nearest_n_and_streaming_vbs_best"]),
    Mutant(id="figure_mcinerney_fig1_documents_dropped_unsaid", cites="McInerney et al. 2015, Fig. 1 mirror's caption "
           "(the already-trained documents dropped from windows)", path="workflow/figures/mcinerney_fig1.py",
           find='+ (f" ({excluded:,} already-trained documents were dropped from windows)" if excluded else "")',
           replace='+ ""', tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id="figure_mcinerney_fig3_band_never_drawn", cites="McInerney et al. 2015, Fig. 3 mirror (the band over "
           "seeds where there are several)", path="workflow/figures/mcinerney_fig3.py", find='if row["seeds"] > 1:',
           replace='if row["seeds"] < 1:', tests=[FIG + "test_mcinerney_fig3_band_spans_the_seeds_from_lowest_to_highest"]),
    Mutant(id="figure_mcinerney_fig3_band_drawn_from_the_max", cites="McInerney et al. 2015, Fig. 3 mirror (the band "
           "over seeds, lowest to highest)", path="workflow/figures/mcinerney_fig3.py",
           find='ax.fill_between(stats.index, stats["min"], stats["max"],', replace='ax.fill_between(stats.index, stats["max"], stats["max"],',
           tests=[FIG + "test_mcinerney_fig3_band_spans_the_seeds_from_lowest_to_highest"]),
    Mutant(id="figure_mcinerney_fig3_band_drawn_to_the_min", cites="McInerney et al. 2015, Fig. 3 mirror (the band "
           "over seeds, lowest to highest)", path="workflow/figures/mcinerney_fig3.py",
           find='ax.fill_between(stats.index, stats["min"], stats["max"],', replace='ax.fill_between(stats.index, stats["min"], stats["min"],',
           tests=[FIG + "test_mcinerney_fig3_band_spans_the_seeds_from_lowest_to_highest"]),
    Mutant(id="figure_paisley_fig11_3_panel_of_the_other_k", cites="Paisley et al. 2014, Fig. 11.3 mirror (one panel "
           "per (K, minibatch size))", path="workflow/figures/paisley_fig11_3.py",
           find='panel = frame[(frame["p_K"] == K) & (frame["p_batch_size"] == size)]',
           replace='panel = frame[(frame["p_K"] != K) & (frame["p_batch_size"] == size)]', tests=[FIG + "test_paisley_fig11_3_draws_each_panels_own_runs"]),
    Mutant(id="figure_paisley_fig11_3_panel_of_the_other_size", cites="Paisley et al. 2014, Fig. 11.3 mirror (one panel "
           "per (K, minibatch size))", path="workflow/figures/paisley_fig11_3.py",
           find='panel = frame[(frame["p_K"] == K) & (frame["p_batch_size"] == size)]',
           replace='panel = frame[(frame["p_K"] == K) & (frame["p_batch_size"] != size)]', tests=[FIG + "test_paisley_fig11_3_draws_each_panels_own_runs"]),
    Mutant(id="figure_paisley_fig11_3_line_of_the_other_methods", cites="Paisley et al. 2014, Fig. 11.3 mirror (one line "
           "per method)", path="workflow/figures/paisley_fig11_3.py", find='runs = panel[panel["method"] == method]',
           replace='runs = panel[panel["method"] != method]', tests=[FIG + "test_paisley_fig11_3_draws_each_panels_own_runs"]),
    Mutant(id="figure_paisley_fig11_3_draws_only_missing_lines", cites="Paisley et al. 2014, Fig. 11.3 mirror (one line "
           "per method run)", path="workflow/figures/paisley_fig11_3.py", find="                if not runs.empty:\n                    figlib.plot_mean_spread(",
           replace="                if runs.empty:\n                    figlib.plot_mean_spread(", tests=[FIG + "test_paisley_fig11_3_draws_each_panels_own_runs"]),
    Mutant(id="figure_paisley_fig11_3_full_grid_called_shrunk", cites="Paisley et al. 2014, Fig. 11.3 mirror's caption "
           "(whether the grid is the chapter's)", path="workflow/figures/paisley_fig11_3.py",
           find="shrunk = Ks != PAPER_K or sizes != PAPER_BATCH", replace="shrunk = Ks == PAPER_K or sizes != PAPER_BATCH",
           tests=[FIG + "test_paisley_fig11_3_caption_says_whether_the_grid_is_the_chapters"]),
    Mutant(id="figure_paisley_fig11_3_shrunk_needs_both", cites="Paisley et al. 2014, Fig. 11.3 mirror's caption "
           "(whether the grid is the chapter's)", path="workflow/figures/paisley_fig11_3.py",
           find="shrunk = Ks != PAPER_K or sizes != PAPER_BATCH", replace="shrunk = Ks != PAPER_K and sizes != PAPER_BATCH",
           tests=[FIG + "test_paisley_fig11_3_caption_says_whether_the_grid_is_the_chapters"]),
    Mutant(id="figure_paisley_fig11_3_chapter_sizes_called_shrunk", cites="Paisley et al. 2014, Fig. 11.3 mirror's "
           "caption (whether the grid is the chapter's)", path="workflow/figures/paisley_fig11_3.py",
           find="shrunk = Ks != PAPER_K or sizes != PAPER_BATCH", replace="shrunk = Ks != PAPER_K or sizes == PAPER_BATCH",
           tests=[FIG + "test_paisley_fig11_3_caption_says_whether_the_grid_is_the_chapters"]),
    Mutant(id="figure_paisley_fig11_3_corpus_size_is_documents_seen", cites="Paisley et al. 2014, Fig. 11.3 mirror's "
           "caption (the training corpus size D)", path="workflow/figures/paisley_fig11_3.py",
           find='sorted(frame["corpus_size"].unique()))', replace='sorted(frame["docs_seen"].unique()))', tests=[FIG + "test_paisley_fig11_3_caption_says_whether_the_grid_is_the_chapters"]),
    Mutant(id="figure_paisley_fig11_4_fitted_not_normalised", cites="Paisley et al. 2014, Fig. 11.4 mirror (planted "
           "topics matched by cosine)", path="workflow/figures/paisley_fig11_4.py",
           find="fitted = model.topics() / np.linalg.norm(model.topics(), axis=1, keepdims=True)",
           replace="fitted = model.topics() * np.linalg.norm(model.topics(), axis=1, keepdims=True)", tests=[FIG + "test_paisley_fig11_4_planted_agreement_matches_by_cosine_of_whole_topics"]),
    Mutant(id="figure_paisley_fig11_4_fitted_normalised_by_word", cites="Paisley et al. 2014, Fig. 11.4 mirror (planted "
           "topics matched by cosine of whole topic rows)", path="workflow/figures/paisley_fig11_4.py",
           find="fitted = model.topics() / np.linalg.norm(model.topics(), axis=1, keepdims=True)",
           replace="fitted = model.topics() / np.linalg.norm(model.topics(), axis=0, keepdims=True)", tests=[FIG + "test_paisley_fig11_4_planted_agreement_matches_by_cosine_of_whole_topics"]),
    Mutant(id="figure_paisley_fig11_4_planted_normalised_by_word", cites="Paisley et al. 2014, Fig. 11.4 mirror "
           "(planted topics matched by cosine of whole topic rows)", path="workflow/figures/paisley_fig11_4.py",
           find='planted = truth["topics"] / np.linalg.norm(truth["topics"], axis=1, keepdims=True)',
           replace='planted = truth["topics"] / np.linalg.norm(truth["topics"], axis=0, keepdims=True)', tests=[FIG + "test_paisley_fig11_4_planted_agreement_matches_by_cosine_of_whole_topics"]),
    Mutant(id="figure_shorttext_draws_the_baseline_as_the_model", cites="short-text figure (look-ahead log likelihood "
           "per word vs documents seen)", path="workflow/figures/shorttext_alpha.py",
           find='figlib.plot_mean_spread(ax, runs, "docs_seen", "loglik_per_word",',
           replace='figlib.plot_mean_spread(ax, runs, "docs_seen", "unigram_loglik_per_word",',
           tests=[FIG + "test_shorttext_figure_tables_first_final_and_baseline_and_says_which_lines_end_below"]),
    Mutant(id="table_shorttext_first_score_of_one_seed", cites="short-text figure's table (the first look-ahead score, "
           "mean over seeds)", path="workflow/figures/shorttext_alpha.py", find='first = ordered.groupby("seed").head(1)',
           replace='first = ordered.groupby("label").head(1)',
           tests=[FIG + "test_shorttext_figure_tables_first_final_and_baseline_and_says_which_lines_end_below"]),
    Mutant(id="findings_hoffman_faster_short_budget_counts_as_never", cites="Hoffman et al. 2010, Fig. 2 claim (sec. 4: "
           "both methods get the same CPU budget; an online run that stopped first is no evidence)", path=CLAIMS,
           find="        elif budget < t_batch:", replace="        elif budget <= t_batch:",
           tests=[FIG + "test_reaches_claims_are_not_reproduced_when_no_seed_reaches_the_target"]),
    Mutant(id="findings_hoffman_faster_short_budget_ignored", cites="Hoffman et al. 2010, Fig. 2 claim (an online run "
           "that stopped before batch VB reached the target is not 'never reached')", path=CLAIMS,
           find="        elif budget < t_batch:", replace="        elif False:",
           tests=[FIG + "test_reaches_claims_cannot_be_judged_when_the_fast_method_stopped_first"]),
    Mutant(id="findings_hu_fraction_short_budget_counts_as_never", cites="Hu et al. 2014, Figs. 1-2 claim (the same "
           "budget for LG-NMF and LDA)", path=CLAIMS, find='            elif budget < t_lda:',
           replace='            elif budget <= t_lda:',
           tests=[FIG + "test_reaches_claims_are_not_reproduced_when_no_seed_reaches_the_target"]),
    Mutant(id="findings_hu_fraction_short_budget_ignored", cites="Hu et al. 2014, Figs. 1-2 claim (an LG-NMF run that "
           "stopped before LDA reached the target is not 'never reached')", path=CLAIMS,
           find='            elif budget < t_lda:', replace="            elif False:",
           tests=[FIG + "test_reaches_claims_cannot_be_judged_when_the_fast_method_stopped_first"]),
    Mutant(id="findings_short_replicates_judged_alone", cites="the 'reaches' claims (replicates that stopped first are "
           "left out, the rest judged)", path=CLAIMS, find="    if not short:\n        return judgement",
           replace="    if short:\n        return judgement",
           tests=[FIG + "test_reaches_claims_leave_out_only_the_seeds_that_stopped_first"]),
    Mutant(id="findings_hoffman_never_names_the_worst_online_run", cites="Hoffman et al. 2010, Fig. 2 claim (where the "
           "best online S got, when it never reached batch VB)", path=CLAIMS,
           find="label, run = min(online.groupby(\"label\"), key=lambda item: item[1][column].min())",
           replace="label, run = max(online.groupby(\"label\"), key=lambda item: item[1][column].min())",
           tests=[FIG + "test_hoffman_faster_says_where_online_got_when_it_never_reached_batch_vb"]),
    Mutant(id="findings_hoffman_never_batch_time_to_its_final", cites="Hoffman et al. 2010, Fig. 2 claim (when batch "
           "VB reached online's best)", path=CLAIMS,
           find="batch VB {best:.1f} at {time_to(batch, column, best, 'fit_cpu_s'):.3g} s",
           replace="batch VB {best:.1f} at {time_to(batch, column, target, 'fit_cpu_s'):.3g} s",
           tests=[FIG + "test_hoffman_faster_says_where_online_got_when_it_never_reached_batch_vb"]),
    # mutant18b: _claims.several_runs (one run per claim cell)
    Mutant(id='several_runs_wrong_key_column', cites="_claims.several_runs: the runs of the key's own column",
           path='workflow/figures/_claims.py', find='    same = runs.set_index(keys).loc[[key]] if len(keys) > 1 else runs[runs[keys[0]] == key[0]]\n',
           replace='    same = runs.set_index(keys).loc[[key]] if len(keys) > 1 else runs[runs[keys[1]] == key[0]]\n',
           tests=['tests/test_figures.py::test_several_runs_under_one_key_name_the_key_and_what_differs']),
    Mutant(id='several_runs_differ_drops_missing', cites='_claims.several_runs: a missing value differs from a value',
           path='workflow/figures/_claims.py', find='    differ = [c for c in figlib.run_columns(runs) if c not in keys and same[c].nunique(dropna=False) > 1]\n',
           replace='    differ = [c for c in figlib.run_columns(runs) if c not in keys and same[c].nunique(dropna=True) > 1]\n',
           tests=['tests/test_figures.py::test_several_runs_under_one_key_name_the_key_and_what_differs']),
]
