"""Equation mutants of the shared evaluation (topicbench/evaluate.py: document completion, the per-word log
predictive; topicbench/quality.py: the quality columns), which every method's score passes through. Each is a
plausible slip in the protocol's definition (DESIGN.md, "Evaluation"; McInerney et al. 2015's halves, Paisley et
al. 2014's threefold completion); the listed tests (the fastest that catch it) must fail.
"""
from tests.mutants import Mutant

EV = "topicbench/evaluate.py"
T = "tests/test_evaluate.py::"
OBSERVED = T + "test_loglik_conditions_each_document_on_its_observed_part_only"
SLICE = "tests/test_semisynthetic.py::test_each_document_draws_from_its_time_slice"
FIG = "tests/test_figures.py::"
FIG3 = FIG + "test_mcinerney_fig3_table_reads_the_best_alpha_the_nearest_n_and_streaming_vbs_best"
CLAIMS = "workflow/figures/_claims.py"
PREDICT = "probs = np.asarray(method.predict_words(obs, held), dtype=np.float64)"

MUTANTS = [
    Mutant(id="completion_observed_half_leaks_into_the_prediction",
           cites="document completion (DESIGN.md, Evaluation): p(w | observed part), the held-out part unseen",
           path=EV, find=PREDICT, replace=PREDICT.replace("predict_words(obs, held)", "predict_words(obs + held, held)"),
           tests=[OBSERVED]),
    Mutant(id="completion_conditions_on_the_heldout_half",
           cites="document completion (DESIGN.md, Evaluation): the method is fitted to the observed part",
           path=EV, find=PREDICT, replace=PREDICT.replace("predict_words(obs, held)", "predict_words(held, held)"),
           tests=[OBSERVED]),
    Mutant(id="threefold_mean_of_folds_not_pooled",
           cites="Paisley et al. 2014's threefold completion: one per-word score pooled over all held-out tokens",
           path=EV, find='return (total / tokens if tokens else float("nan")), tokens',
           replace='return (total / tokens / len(splits) if tokens else float("nan")), tokens',
           tests=[T + "test_threefold_score_pools_every_token_once"]),
    Mutant(id="protocol_single_split_runs_as_one_fold",
           cites="McInerney et al. 2015 (observe a fraction, predict the rest) vs the k-fold variant (folds > 1)",
           path=EV, find="    if protocol.folds > 1:\n        return fold_splits",
           replace="    if protocol.folds >= 1:\n        return fold_splits",
           tests=[T + "test_protocol_splits_follow_the_protocol"]),
    Mutant(id="recovery_frac_090_at_another_threshold",
           cites="planted recovery (DESIGN.md, Evaluation): recovery_frac_090 counts matches at cosine >= 0.90",
           path="topicbench/quality.py",
           find="recovery = planted_recovery(topics, truth_topics, threshold=0.9)",
           replace="recovery = planted_recovery(topics, truth_topics, threshold=0.5)",
           tests=["tests/test_quality.py::test_final_checkpoint_recovery_counts_at_0_90"]),
    Mutant(id="protocol_default_not_halves", cites="McInerney et al. 2015's document completion: observe half, predict "
           "half (Protocol's default)", path=EV, find="    observed_fraction: float = 0.5\n",
           replace="    observed_fraction: float = 0.8\n", tests=[T + "test_protocol_splits_follow_the_protocol"]),
    Mutant(id="diversity_default_top_10", cites="Dieng, Ruiz & Blei 2020: topic diversity over the top 25 words",
           path="topicbench/quality.py", find="DIVERSITY_TOP_WORDS = 25 ", replace="DIVERSITY_TOP_WORDS = 10 ",
           tests=["tests/test_quality.py::test_final_checkpoint_diversity_lists_each_topics_top_25_words"]),
    # -- semi-synthetic corpora (topicbench/semisynthetic.py): the time slice of each document --------------------------
    Mutant(id="semisynthetic_slice_over_the_training_rows", cites="semisynthetic.py's generation: s(d) = floor(d S / D), "
           "D = n_train + n_test", path="topicbench/semisynthetic.py",
           find="slices = np.asarray(rows, dtype=np.int64) * len(means) // self.n_docs",
           replace="slices = np.minimum(np.asarray(rows, dtype=np.int64) * len(means) // self.n_train, len(means) - 1)",
           tests=[SLICE]),
    Mutant(id="semisynthetic_slice_means_not_sharpened", cites="semisynthetic.py: softmax(eta / T), eta / T ~ N(mu / T, "
           "Sigma / T^2)", path="topicbench/semisynthetic.py",
           find='"slice_means": src.slice_means[:, :K] / self.temperature,', replace='"slice_means": src.slice_means[:, :K],',
           tests=[SLICE]),
    # -- the claims' verdicts (workflow/figures/_claims.py): a wrong verdict is a wrong number too ----------------------
    Mutant(id="claim_hoffman_faster_ratio_inverted", cites="Hoffman et al. 2010, Fig. 2 (online reaches batch VB's "
           "perplexity sooner: log(t_batch / t_online) > 0)", path=CLAIMS, find="d.append(np.log(t_batch / t_online))",
           replace="d.append(np.log(t_online / t_batch))", tests=[FIG + "test_hoffman_faster_is_reproduced_when_online_reaches_batch_vbs_final_perplexity_sooner"]),
    Mutant(id="claim_hu_fraction_ratio_inverted", cites="Hu et al. 2014, Figs. 1-2 (LG-NMF reaches LDA's perplexity in "
           "less time)", path=CLAIMS, find="d.append(np.log(t_lda / t_lg))", replace="d.append(np.log(t_lg / t_lda))",
           tests=[FIG + "test_hu_fraction_is_reproduced_when_lgnmf_reaches_ldas_final_perplexity_sooner"]),
    Mutant(id="claim_mcinerney_best_alpha_is_the_worst", cites="McInerney et al. 2015, Fig. 3 (the best alpha: the highest "
           "held-out score)", path=CLAIMS, find="best = table.mean().idxmax()", replace="best = table.mean().idxmin()",
           tests=[FIG + "test_mcinerney_alpha_not_n_follows_where_the_best_alpha_is"]),
    Mutant(id="claim_mcinerney_half_of_the_corpora_strict", cites="McInerney et al. 2015, Fig. 3 ('often differs': at "
           "least half of the corpora)", path=CLAIMS, find='verdict = "reproduced" if share >= 0.5 else',
           replace='verdict = "reproduced" if share > 0.5 else',
           tests=[FIG + "test_mcinerney_alpha_not_n_follows_where_the_best_alpha_is"]),
    Mutant(id="claim_time_to_target_strict", cites="Hoffman et al. 2010, Fig. 2 (time to reach a perplexity: at or below "
           "it; batch VB reaches its own final value)", path=CLAIMS, find="hit = run[run[column] <= target]",
           replace="hit = run[run[column] < target]",
           tests=[FIG + "test_hoffman_faster_is_reproduced_when_online_reaches_batch_vbs_final_perplexity_sooner"]),
    Mutant(id="claim_paisley_interval_overlaps_not_inside", cites="Paisley et al. 2014, Fig. 11.3 ('roughly the same': "
           "each 95% interval inside the margin)", path=CLAIMS,
           find='-EQUIVALENCE_MARGIN <= s["lo"] and s["hi"] <= EQUIVALENCE_MARGIN',
           replace='-EQUIVALENCE_MARGIN <= s["hi"] and s["lo"] <= EQUIVALENCE_MARGIN',
           tests=[FIG + "test_paisley_comparable_needs_every_interval_inside_the_margin"]),
    Mutant(id="claim_hoffman_larger_corpus_sign", cites="Hoffman et al. 2010, Fig. 1 (full corpus minus subset)",
           path=CLAIMS, find='d = (final["online_full"] - final["online_subset"]).dropna()',
           replace='d = (final["online_subset"] - final["online_full"]).dropna()',
           tests=[FIG + "test_hoffman_larger_corpus_is_reproduced_when_the_full_corpus_scores_higher"]),
    Mutant(id="claim_hoffman_best_setting_highest_perplexity", cites="Hoffman et al. 2010, Table 1 (best = lowest "
           "perplexity bound)", path=CLAIMS, find="best, second = order[0], order[1]",
           replace="best, second = order[-1], order[-2]", tests=[FIG + "test_hoffman_best_setting_is_the_lowest_bound_perplexity"]),
    Mutant(id="claim_scaling_k_sign", cites="the harness's scaling claim (largest K minus smallest)", path=CLAIMS,
           find="d = [g.iloc[-1] - g.iloc[0] for g in groups]", replace="d = [g.iloc[0] - g.iloc[-1] for g in groups]",
           tests=[FIG + "test_scaling_judges_follow_the_direction_of_the_gains"]),
    Mutant(id="claim_scaling_batch_diminishing_sign", cites="the harness's scaling claim (a diminishing return: the "
           "first gain exceeds the second)", path=CLAIMS, find="directional([-x for x in second],",
           replace="directional([x for x in second],", tests=[FIG + "test_scaling_judges_follow_the_direction_of_the_gains"]),
    Mutant(id="semisynthetic_lengths_rounded_down", cites="semisynthetic.py: inverse-CDF lengths rounded to the nearest "
           "integer", path="topicbench/semisynthetic.py", find="np.maximum(np.rint(np.interp(",
           replace="np.maximum(np.floor(np.interp(",
           tests=["tests/test_semisynthetic.py::test_quantile_lengths_round_the_inverse_cdf_to_the_nearest_integer"]),
    Mutant(id="table_hoffman_best_setting_highest_bound", cites="Hoffman et al. 2010, Table 1 (per S, the setting with "
           "the lowest eq. 16 perplexity bound)", path="workflow/figures/hoffman_table1.py",
           find='best = grid.loc[grid.groupby("p_batch_size")["bound_perplexity"].idxmin()]',
           replace='best = grid.loc[grid.groupby("p_batch_size")["bound_perplexity"].idxmax()]',
           tests=[FIG + "test_hoffman_table1_lists_each_minibatch_sizes_lowest_bound_setting"]),
    Mutant(id="table_mcinerney_best_alpha_lowest_score", cites="McInerney et al. 2015, Fig. 3 (the best alpha: the "
           "highest mean score)", path="workflow/figures/mcinerney_fig3.py",
           find='"best log10 alpha": float(stats["mean"].idxmax())', replace='"best log10 alpha": float(stats["mean"].idxmin())',
           tests=[FIG3]),
    Mutant(id="table_mcinerney_nearest_n_in_natural_log", cites="McInerney et al. 2015, Fig. 3 (the alpha axis is log10; "
           "the grid point nearest log10 N)", path="workflow/figures/mcinerney_fig3.py",
           find="nearest = int(np.argmin(np.abs(stats.index - np.log10(n_true))))",
           replace="nearest = int(np.argmin(np.abs(stats.index - np.log(n_true))))", tests=[FIG3]),
    Mutant(id="table_mcinerney_streaming_vb_worst_setting", cites="McInerney et al. 2015, Figs. 1 and 3 (streaming VB at "
           "its best setting)", path="workflow/figures/_mcinerney.py", find="best = finals.idxmax()",
           replace="best = finals.idxmin()", tests=[FIG3]),
    Mutant(id="claim_paired_p_one_sided", cites="the claims' paired t test (two-sided p at LEVEL)", path=CLAIMS,
           find="p = float(2 * stats.t.sf(abs(t), n - 1))", replace="p = float(stats.t.sf(abs(t), n - 1))",
           tests=[FIG + "test_directional_judge_follows_the_sign_and_needs_two_replicates"]),
    Mutant(id="claim_paisley_fisher_z_sqrt_n", cites="Paisley et al. 2014, sec. 11.6 claim (learned correlations): "
           "Fisher's z = artanh(r) sqrt(n - 3)", path=CLAIMS, find="z = np.arctanh(r) * np.sqrt(n - 3)",
           replace="z = np.arctanh(r) * np.sqrt(n)", tests=[FIG + "test_paisley_correlation_judge_matches_topics_and_applies_fishers_z"]),
    Mutant(id="claim_paisley_fisher_z_without_artanh", cites="Paisley et al. 2014, sec. 11.6 claim (learned correlations): "
           "Fisher's z = artanh(r) sqrt(n - 3)", path=CLAIMS, find="z = np.arctanh(r) * np.sqrt(n - 3)",
           replace="z = r * np.sqrt(n - 3)", tests=[FIG + "test_paisley_correlation_judge_matches_topics_and_applies_fishers_z"]),
    Mutant(id="claim_paisley_topics_matched_the_wrong_way", cites="Paisley et al. 2014, eq. 11.36 claim: each planted "
           "topic's fitted match (argmax over the fitted topics)", path=CLAIMS,
           find="match = np.argmax(planted @ fitted.T, axis=1)", replace="match = np.argmax(planted @ fitted.T, axis=0)",
           tests=[FIG + "test_paisley_correlation_judge_matches_topics_and_applies_fishers_z"]),
    Mutant(id="claim_mcinerney_pvb_alpha_averaged_not_best", cites="McInerney et al. 2015, Fig. 1 claim: population VB "
           "at its best alpha against streaming VB", path=CLAIMS,
           find='["loglik_per_word"].mean().max() - svb["loglik_per_word"].max())',
           replace='["loglik_per_word"].mean().mean() - svb["loglik_per_word"].max())',
           tests=[FIG + "test_mcinerney_pvb_beats_svb_compares_the_best_alpha_with_streaming_vbs_best_setting"]),
    Mutant(id="claim_mcinerney_svb_worst_setting", cites="McInerney et al. 2015, Fig. 1 claim: streaming VB at its best "
           "setting", path=CLAIMS, find='.mean().max() - svb["loglik_per_word"].max())',
           replace='.mean().max() - svb["loglik_per_word"].min())',
           tests=[FIG + "test_mcinerney_pvb_beats_svb_compares_the_best_alpha_with_streaming_vbs_best_setting"]),
    Mutant(id="claim_scaling_batch_first_gain_to_the_largest_s", cites="the harness's scaling claim: the gain from the "
           "smallest to the middle minibatch size", path=CLAIMS,
           find="first = [g.iloc[len(g) // 2] - g.iloc[0] for g in groups]", replace="first = [g.iloc[-1] - g.iloc[0] for g in groups]",
           tests=[FIG + "test_scaling_batch_first_gain_is_smallest_to_middle_minibatch"]),
    Mutant(id="table_paisley_least_probable_topics_first", cites="Paisley et al. 2014, Table 11.3 (the most probable "
           "topics, ranked by probability)", path="workflow/figures/_paisley_topics.py",
           find='order = np.argsort(-model.topic_weights(), kind="stable")', replace='order = np.argsort(model.topic_weights(), kind="stable")',
           tests=[FIG + "test_paisley_table11_3_lists_the_most_probable_topics_and_their_most_probable_words"]),
    Mutant(id="table_paisley_least_probable_words", cites="Paisley et al. 2014, Tables 11.3-11.4 (each topic's most "
           "probable words)", path="workflow/figures/_paisley_topics.py",
           find='np.argsort(-topics[order[rank]], kind="stable")[:N_WORDS]', replace='np.argsort(topics[order[rank]], kind="stable")[:N_WORDS]',
           tests=[FIG + "test_paisley_table11_3_lists_the_most_probable_topics_and_their_most_probable_words"]),
    Mutant(id="table_mcinerney_best_setting_of_the_last_seed", cites="McInerney et al. 2015, Figs. 1 and 3 (each method "
           "at its best setting: the best mean over seeds)", path="workflow/figures/_mcinerney.py",
           find='.groupby(varying)["loglik_per_word"].mean()', replace='.groupby(varying)["loglik_per_word"].last()',
           tests=[FIG + "test_mcinerney_best_setting_has_the_best_mean_over_seeds"]),
    Mutant(id="synthetic_time_slice_over_d_plus_one", cites="the drifting-prevalence recipes' time slice floor(d S / D)",
           path="topicbench/synthetic.py", find="return np.asarray(rows, dtype=np.int64) * n_slices // n_docs",
           replace="return np.asarray(rows, dtype=np.int64) * n_slices // (n_docs + 1)",
           tests=["tests/test_synthetic.py::test_time_slices_and_clock_split_generation_order_evenly"]),
    Mutant(id="synthetic_clock_over_d_minus_one", cites="the synthetic clock: documents span / D apart over [start, "
           "start + span)", path="topicbench/synthetic.py",
           find="return lambda rows: start + span * (np.asarray(rows, dtype=np.float64) / n_docs)",
           replace="return lambda rows: start + span * (np.asarray(rows, dtype=np.float64) / (n_docs - 1))",
           tests=["tests/test_synthetic.py::test_time_slices_and_clock_split_generation_order_evenly"]),
    Mutant(id="claim_hoffman_slowest_online_minibatch", cites="Hoffman et al. 2010, Fig. 2 claim: the fastest online S "
           "to batch VB's final perplexity", path=CLAIMS, find='t_online = min(time_to(g, column, target, "fit_cpu_s")',
           replace='t_online = max(time_to(g, column, target, "fit_cpu_s")',
           tests=[FIG + "test_hoffman_faster_takes_the_fastest_online_minibatch_size"]),
    Mutant(id="claim_hu_per_grid_point_times_the_grid", cites="Hu et al. 2014, Figs. 1-2 claim: LG-NMF's time per grid "
           "point (the paper ran the grid in parallel)", path=CLAIMS,
           find='per_point.append(t_lg / float(lg["p_grid_size"].iloc[0]) / t_lda)',
           replace='per_point.append(t_lg * float(lg["p_grid_size"].iloc[0]) / t_lda)',
           tests=[FIG + "test_hu_fraction_is_reproduced_when_lgnmf_reaches_ldas_final_perplexity_sooner"]),
    Mutant(id="table_hu_best_seed_not_mean", cites="Hu et al. 2014, Table 1 (final perplexity, mean over seeds)",
           path="workflow/figures/hu_table1.py",
           find='summary = final.groupby("method", sort=False).agg(perplexity=("perplexity", "mean"),',
           replace='summary = final.groupby("method", sort=False).agg(perplexity=("perplexity", "min"),',
           tests=[FIG + "test_hu_table1_reports_means_over_seeds"]),
    Mutant(id="table_quality_best_seed_not_mean", cites="the tables' topic quality columns (means over seeds)",
           path="workflow/scripts/figlib.py", find="out = final.groupby(by, sort=False)[present].mean().rename(columns=cols)",
           replace="out = final.groupby(by, sort=False)[present].max().rename(columns=cols)",
           tests=[FIG + "test_hu_table1_reports_means_over_seeds"]),
    Mutant(id="table_mcinerney_best_alpha_value_of_the_best_seed", cites="McInerney et al. 2015, Fig. 3 (population VB "
           "at its best alpha: the mean over seeds)", path="workflow/figures/mcinerney_fig3.py",
           find='"PVB at best alpha": float(stats["mean"].max())', replace='"PVB at best alpha": float(stats["max"].max())',
           tests=[FIG3]),
    Mutant(id="figure_hu_grid_in_natural_log_alpha", cites="Hu et al. 2014, Fig. 4 (the grid on the log10 alpha axis)",
           path="workflow/scripts/figlib.py", find="return GridRecord(np.asarray(model.grid_log_alpha) / np.log(10.0)",
           replace="return GridRecord(np.asarray(model.grid_log_alpha)",
           tests=[FIG + "test_lgnmf_grid_record_is_in_log10_alpha"]),
    Mutant(id="synthetic_word_names_least_probable_first", cites="the planted corpora's word names (tKKKwRRR: the RRR-th "
           "most probable word of planted topic KKK), which the Paisley tables' purity reads", path="topicbench/synthetic.py",
           find='for rank, w in enumerate(members[np.argsort(-topics[k, members], kind="stable")]):',
           replace='for rank, w in enumerate(members[np.argsort(topics[k, members], kind="stable")]):',
           tests=["tests/test_synthetic.py::test_word_names_rank_each_planted_topics_words_by_probability"]),
    Mutant(id="run_topics_table_least_used_topics_first", cites="the run's topics.tsv (topics ranked by topic_weights(), "
           "largest first)", path="topicbench/run.py", find='for rank, k in enumerate(np.argsort(-weights, kind="stable")):',
           replace='for rank, k in enumerate(np.argsort(weights, kind="stable")):',
           tests=["tests/test_run.py::test_topics_table_ranks_topics_by_weight_and_words_by_probability"]),
    Mutant(id="run_topics_table_least_probable_words", cites="the run's topics.tsv (each topic's most probable words)",
           path="topicbench/run.py", find='best = np.argsort(-topics[k], kind="stable")[:n_words]',
           replace='best = np.argsort(topics[k], kind="stable")[:n_words]',
           tests=["tests/test_run.py::test_topics_table_ranks_topics_by_weight_and_words_by_probability"]),
    Mutant(id="run_unigram_baseline_scored_on_the_observed_halves", cites="document completion (DESIGN.md, Evaluation): "
           "the word-frequency baseline scored on the held-out halves, as the methods are", path="topicbench/run.py",
           find="base_loglik, _ = loglik_per_word(unigram, splits)",
           replace="base_loglik, _ = loglik_per_word(unigram, [(h, o) for o, h in splits])",
           tests=["tests/test_run.py::test_unigram_baseline_is_scored_on_the_heldout_halves"]),
]
