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
STREAMS = "tests/test_streams.py::"
FIG3 = FIG + "test_mcinerney_fig3_table_reads_the_best_alpha_the_nearest_n_and_streaming_vbs_best"
HOFFMAN_FASTER = FIG + "test_hoffman_faster_reads_batch_vb_full_at_its_last_checkpoint_by_the_bound_on_the_cpu_clock"
ALPHA_NOT_N = FIG + "test_mcinerney_alpha_not_n_needs_two_seeds_on_every_corpus_and_a_grid_that_brackets_n"
HU_OFFLINE = FIG + "test_hu_fraction_reads_ldas_last_checkpoint_by_documents_seen_on_every_corpus"
SCALING_ORDER = FIG + "test_scaling_judges_order_by_the_gridded_value_not_by_the_rows"
PAISLEY_PAIRS = FIG + "test_paisley_comparable_pairs_each_panel_and_seed"
NEVER_REACHED = FIG + "test_reaches_claims_are_not_reproduced_when_no_seed_reaches_the_target"
CLAIMS = "workflow/figures/_claims.py"
PREDICT = "probs = np.asarray(method.predict_words(obs.copy(), held.copy()), dtype=np.float64)"

MUTANTS = [
    Mutant(id="completion_observed_half_leaks_into_the_prediction",
           cites="document completion (DESIGN.md, Evaluation): p(w | observed part), the held-out part unseen",
           path=EV, find=PREDICT, replace=PREDICT.replace("predict_words(obs.copy(), held.copy())", "predict_words(obs + held, held.copy())"),
           tests=[OBSERVED]),
    Mutant(id="completion_conditions_on_the_heldout_half",
           cites="document completion (DESIGN.md, Evaluation): the method is fitted to the observed part",
           path=EV, find=PREDICT, replace=PREDICT.replace("predict_words(obs.copy(), held.copy())", "predict_words(held.copy(), held.copy())"),
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
           find='.groupby(varying, dropna=False)["loglik_per_word"].mean()',
           replace='.groupby(varying, dropna=False)["loglik_per_word"].last()',
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
    # fifth pass (mutant5): the numbers a reader sees, one representative slip per new test
    Mutant(id='claim_directional_at_half_the_level',
           cites="the findings' rule (workflow/figures/_claims.py): reproduced when the two-sided paired t "
                 'test has p < 0.05',
           path='workflow/figures/_claims.py',
           find='    if s["p"] < LEVEL:\n        verdict = "reproduced"',
           replace='    if s["p"] < LEVEL / 2:\n        verdict = "reproduced"',
           tests=[FIG + "test_paired_is_the_mean_and_the_verdict_is_at_the_five_percent_level"]),
    Mutant(id='claim_reached_by_none_is_mixed',
           cites="the findings' rule for 'reaches the target' claims: not reproduced when no replicate "
                 'reached it',
           path='workflow/figures/_claims.py',
           find='Judgement("mixed" if reached else "not reproduced"',
           replace='Judgement("mixed" if never else "not reproduced"',
           tests=[FIG + "test_reached_or_not_needs_two_replicates_and_is_not_reproduced_when_none_reached"]),
    Mutant(id='claim_hoffman_best_setting_ignores_disagreeing_sizes',
           cites='Hoffman et al. 2010, Table 1 (a best (kappa, tau0) per S): mixed when the minibatch sizes '
                 'disagree',
           path='workflow/figures/_claims.py',
           find='return verdicts[0] if len(set(verdicts)) == 1 else "mixed"',
           replace='return verdicts[0] if len(set(verdicts)) >= 1 else "mixed"',
           tests=[FIG + "test_hoffman_best_setting_is_mixed_when_the_minibatch_sizes_disagree_and_counts_the_fewest_seeds"]),
    Mutant(id='claim_paisley_equivalence_reads_hi_for_lo',
           cites="Paisley et al. 2014, Fig. 11.3 ('roughly the same'): the whole 95% interval inside +-0.05 "
                 'nats/word',
           path='workflow/figures/_claims.py',
           find='-EQUIVALENCE_MARGIN <= s["lo"] and',
           replace='-EQUIVALENCE_MARGIN <= s["hi"] and',
           tests=[FIG + "test_paisley_comparable_needs_every_interval_inside_the_margin"]),
    Mutant(id='claim_paisley_match_normalises_words_not_topics',
           cites='Paisley et al. 2014, Fig. 11.4: planted topics matched to fitted ones by the cosine of '
                 'whole topic rows',
           path='workflow/figures/_claims.py',
           find='fitted = model.topics() / np.linalg.norm(model.topics(), axis=1, keepdims=True)',
           replace='fitted = model.topics() / np.linalg.norm(model.topics(), axis=0, keepdims=True)',
           tests=[FIG + "test_paisley_correlation_judge_matches_each_planted_topic_by_cosine_of_whole_topics"]),
    Mutant(id='claim_hu_lgnmf_on_the_cpu_clock',
           cites='Hu et al. 2014, Figs. 1-2 and 5-6: LG-NMF and LDA timed on the same clock (fit wall seconds)',
           path='workflow/figures/_claims.py',
           find='t_lg = time_to(lg, "perplexity", target, "fit_wall_s")',
           replace='t_lg = time_to(lg, "perplexity", target, "fit_cpu_s")',
           tests=[FIG + "test_hu_fraction_times_both_methods_on_the_wall_clock_and_online_uses_online_lda"]),
    Mutant(id='claim_scaling_k_second_smallest_k',
           cites="the scaling claim 'fit improves with K': the largest K minus the smallest",
           path='workflow/figures/_claims.py',
           find='d = [g.iloc[-1] - g.iloc[0] for g in groups]',
           replace='d = [g.iloc[1] - g.iloc[0] for g in groups]',
           tests=[FIG + "test_scaling_k_compares_the_largest_k_with_the_smallest_over_any_labels"]),
    Mutant(id='figure_curves_median_over_seeds',
           cites="every figure's curve: the mean over seeds at each checkpoint (figlib.mean_spread)",
           path='workflow/scripts/figlib.py',
           find='mean=(y, "mean"), low=(y, "min")',
           replace='mean=(y, "median"), low=(y, "min")',
           tests=[FIG + "test_mean_spread_aligns_checkpoints_by_position_and_reports_mean_min_max_over_seeds"]),
    Mutant(id='table_hoffman_grid_median_over_seeds',
           cites="Hoffman et al. 2010, Table 1's grid: the mean over seeds of the final eq. 16 bound",
           path='workflow/figures/hoffman_table1.py',
           find='bound_perplexity=("bound_perplexity", "mean")',
           replace='bound_perplexity=("bound_perplexity", "median")',
           tests=[FIG + "test_hoffman_table1_grid_is_mean_sd_over_seeds_of_each_setting"]),
    Mutant(id='table_hu3_perplexity_median_over_seeds',
           cites='Hu et al. 2014, Table 3: the final perplexity, mean over seeds',
           path='workflow/figures/hu_table3.py',
           find='agg(perplexity=("perplexity", "mean")',
           replace='agg(perplexity=("perplexity", "median")',
           tests=[FIG + "test_hu_tables_report_means_over_seeds_wall_seconds_documents_seen_and_the_baseline"]),
    Mutant(id='table_mcinerney_fig1_best_seed',
           cites="McInerney et al. 2015, Fig. 1's table: the final look-ahead score, mean over seeds",
           path='workflow/figures/mcinerney_fig1.py',
           find='"final loglik/word": float(last["loglik_per_word"].mean())',
           replace='"final loglik/word": float(last["loglik_per_word"].max())',
           tests=[FIG + "test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores"]),
    Mutant(id='table_paisley_purity_of_the_smallest_owner',
           cites="Paisley et al. 2014, Tables 11.3-11.4: purity, the largest share of a topic's words owned "
                 'by one planted topic',
           path='workflow/figures/_paisley_topics.py',
           find='purity = max(owners.count(o) for o in set(owners))',
           replace='purity = min(owners.count(o) for o in set(owners))',
           tests=[FIG + "test_paisley_tables_report_planted_purity_and_the_ranks_after_the_top_forty"]),
    Mutant(id='figure_hu4_lightest_grid_point',
           cites="Hu et al. 2014, Fig. 4 (eq. 13's weights): the note names the heaviest grid point",
           path='workflow/figures/hu_fig4.py',
           find='best = int(np.argmax(weights))',
           replace='best = int(np.argmin(weights))',
           tests=[FIG + "test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max"]),
    Mutant(id='heldout_every_nth_batch_scores_the_first',
           cites="Paisley et al. 2014, sec. 11.6 ('hold out every tenth batch'): minibatch i with (i + 1) % "
                 'n == 0',
           path='topicbench/streams.py',
           find='if (batch.index + 1) % self.n == 0:',
           replace='if batch.index % self.n == 0:',
           tests=[STREAMS + "test_every_nth_batch_scores_the_nth_batch_of_each_n_before_training_on_it"]),
    Mutant(id='heldout_lookahead_skips_the_next_document',
           cites='McInerney et al. 2015, sec. 3: the next n stream documents are scored',
           path='topicbench/streams.py',
           find='return self.ahead[processed : processed + self.n] if self.windows is None',
           replace='return self.ahead[processed + 1 : processed + self.n + 1] if self.windows is None',
           tests=[STREAMS + "test_a_batch_method_is_scored_once_per_pass_and_lookahead_scores_the_next_n_documents"]),
    Mutant(id='grid_seeds_offset_by_one',
           cites='the experiment grid (topicbench/grid.py): every grid point run once per given seed',
           path='topicbench/grid.py',
           find='spec = RunSpec(method=group["method"], params=params, seed=seed,',
           replace='spec = RunSpec(method=group["method"], params=params, seed=seed + 1,',
           tests=['tests/test_run.py::test_grid_expansion_is_the_full_product_times_the_seeds']),
    Mutant(id='paper_fit_time_of_the_first_checkpoint',
           cites="the paper's provenance: fit time = fit_wall_s at each run's last checkpoint",
           path='workflow/scripts/build_paper.py',
           find='traces.sort_values("docs_seen", kind="stable").groupby(run_keys, dropna=False).tail(1)',
           replace='traces.sort_values("docs_seen", kind="stable").groupby(run_keys, dropna=False).head(1)',
           tests=[FIG + "test_paper_provenance_counts_runs_and_sums_each_runs_final_fit_time"]),
    Mutant(id='benchmark_speed_verdict_mean_ratio',
           cites="benchmarks/RESULTS.md's speed verdict: the median per-seed paired ratio against the target",
           path='benchmarks/bench_lda_speed.py',
           find="'met' if np.median(paired) >= target",
           replace="'met' if np.mean(paired) >= target",
           tests=['tests/test_benchmark_verdicts.py']),
    Mutant(id='figure_hoffman_fig2_online_on_the_wall_clock',
           cites="Hoffman et al. 2010, Fig. 2: perplexity against fit CPU time (the caption's clock), for "
                 'every method',
           path='workflow/figures/hoffman_fig2.py',
           find='figlib.plot_mean_spread(ax, sub, "fit_cpu_s", y, name, method=method,',
           replace='figlib.plot_mean_spread(ax, sub, "fit_wall_s", y, name, method=method,',
           tests=[FIG + "test_hoffman_fig2_draws_every_online_method_and_batch_vb_against_cpu_seconds"]),
    Mutant(id='run_every_nth_batch_shares_one_token_split',
           cites='Paisley et al. 2014, sec. 11.6 in the trace: each scored minibatch split with its own seed '
                 '(eval seed x 100003 + index)',
           path='topicbench/run.py',
           find='seed = spec.eval_seed if event.salt is None else spec.eval_seed * 100003 + event.salt',
           replace='seed = spec.eval_seed',
           tests=['tests/test_run.py::test_every_nth_batch_rows_carry_the_training_size_and_their_own_token_split']),
    Mutant(id='run_corpus_size_is_the_test_split',
           cites="the trace's corpus_size: the training documents (McInerney et al. 2015's true N)",
           path='topicbench/run.py',
           find='"corpus_size": train.n_docs,',
           replace='"corpus_size": test.n_docs,',
           tests=['tests/test_run.py::test_every_nth_batch_rows_carry_the_training_size_and_their_own_token_split']),
    Mutant(id='run_baseline_perplexity_is_the_models',
           cites="the trace's word-frequency baseline perplexity: exp(-the baseline's per-word log predictive)",
           path='topicbench/run.py',
           find='"unigram_perplexity": perplexity(base_loglik)',
           replace='"unigram_perplexity": perplexity(loglik)',
           tests=['tests/test_run.py::test_every_nth_batch_rows_carry_the_training_size_and_their_own_token_split']),
    Mutant(id='figure_hoffman_fig1_least_prevalent_topic',
           cites="Hoffman et al. 2010, Fig. 1's word table: the most prevalent topic (largest topic_weights)",
           path='workflow/figures/hoffman_fig1.py',
           find='topic = int(np.argmax(ctx.model(experiment, "online_full").topic_weights()))',
           replace='topic = int(np.argmin(ctx.model(experiment, "online_full").topic_weights()))',
           tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id='run_dropped_documents_not_counted',
           cites="the trace's heldout_excluded: the already-trained documents a scored minibatch dropped",
           path='topicbench/run.py',
           find='"heldout_excluded": event.excluded,',
           replace='"heldout_excluded": 0,',
           tests=['tests/test_run.py::test_every_nth_batch_rows_count_the_already_trained_documents_they_drop']),
    Mutant(id="semisynthetic_uniform_lengths_exclude_max", cites="semi-synthetic recipes: min_length/max_length draw "
           "uniform integers in [min_length, max_length]", path="topicbench/semisynthetic.py",
           find="rng.integers(lo, hi + 1, size=n)", replace="rng.integers(lo, hi, size=n)",
           tests=["tests/test_semisynthetic.py::test_uniform_lengths_include_both_bounds"]),
    # -- tenth red-team (mutant10): the judges' inputs -- which runs, rows, clock and target a verdict reads ----------
    Mutant(id="claim_two_replicates_cannot_be_judged", cites="the claims' paired t test: two replicates are a test "
           "(df = 1)", path=CLAIMS, find='    if s["n"] < 2:\n        return Judgement("cannot be judged", numbers',
           replace='    if s["n"] < 3:\n        return Judgement("cannot be judged", numbers',
           tests=[FIG + "test_two_replicates_are_enough_for_a_test"]),
    Mutant(id="claim_time_to_target_in_row_order", cites="Hoffman et al. 2010, Fig. 2 (time to a perplexity: the first "
           "checkpoint by documents seen that reaches it)", path=CLAIMS,
           find='    run = run.sort_values("docs_seen")\n    hit', replace="    hit", tests=[HOFFMAN_FASTER]),
    Mutant(id="claim_hoffman_target_is_batch_vbs_best", cites="Hoffman et al. 2010, Fig. 2 (batch VB's final "
           "perplexity: its last checkpoint, not its best)", path=CLAIMS,
           find='target = float(batch.sort_values("docs_seen")[column].iloc[-1])',
           replace="target = float(batch[column].min())", tests=[HOFFMAN_FASTER]),
    Mutant(id="claim_hoffman_completion_not_the_bound", cites="Hoffman et al. 2010, sec. 4 and eq. 16 (the figure's "
           "metric is the perplexity bound where recorded)", path=CLAIMS,
           find='column = "bound_perplexity" if frame["elbo_per_word"].notna().any() else "perplexity"',
           replace='column = "perplexity"', tests=[HOFFMAN_FASTER]),
    Mutant(id="claim_hoffman_batch_subset_in_the_target", cites="Hoffman et al. 2010, Fig. 2 (batch VB on the full "
           "corpus, not on the subset)", path=CLAIMS,
           find='batch = runs[runs["label"].str.contains("full") & (runs["method"] == "batch_lda")]',
           replace='batch = runs[runs["method"] == "batch_lda"]', tests=[HOFFMAN_FASTER]),
    Mutant(id="claim_hoffman_batch_on_the_wall_clock", cites="Hoffman et al. 2010, Fig. 2 (CPU time, both methods)",
           path=CLAIMS, find='t_batch = time_to(batch, column, target, "fit_cpu_s")',
           replace='t_batch = time_to(batch, column, target, "fit_wall_s")', tests=[HOFFMAN_FASTER]),
    Mutant(id="claim_hoffman_online_on_the_wall_clock", cites="Hoffman et al. 2010, Fig. 2 (CPU time, both methods)",
           path=CLAIMS, find='t_online = min(time_to(g, column, target, "fit_cpu_s")',
           replace='t_online = min(time_to(g, column, target, "fit_wall_s")', tests=[HOFFMAN_FASTER]),
    Mutant(id="claim_hoffman_best_setting_by_median", cites="Hoffman et al. 2010, Table 1 claim (the best setting: "
           "the lowest mean bound perplexity over seeds)", path=CLAIMS,
           find="order = table.mean().sort_values().index", replace="order = table.median().sort_values().index",
           tests=[FIG + "test_hoffman_best_setting_ranks_by_the_mean_over_seeds"]),
    Mutant(id="claim_paisley_any_negative_r_not_reproduced", cites="Paisley et al. 2014, Fig. 11.4 claim (not "
           "reproduced: r < 0 significantly, the lower tail of Fisher's z)", path=CLAIMS,
           find='r < 0 and stats.norm.cdf(z) < LEVEL else "mixed"', replace='r < 0 else "mixed"',
           tests=[FIG + "test_paisley_correlation_judge_calls_a_weak_negative_r_mixed"]),
    Mutant(id="claim_mcinerney_grid_end_brackets_n", cites="McInerney et al. 2015, Fig. 3 claim (judged where the "
           "alpha grid brackets N strictly)", path=CLAIMS,
           find="if not (table.columns.min() < log_n < table.columns.max()):",
           replace="if not (table.columns.min() <= log_n <= table.columns.max()):", tests=[ALPHA_NOT_N]),
    Mutant(id="claim_mcinerney_one_seed_corpus_judged", cites="McInerney et al. 2015, Fig. 3 claim (every corpus "
           "needs two seeds to tell a gap from noise)", path=CLAIMS, find="    if min(n_seeds) < 2:",
           replace="    if max(n_seeds) < 2:", tests=[ALPHA_NOT_N]),
    Mutant(id="claim_hu_target_is_ldas_best", cites="Hu et al. 2014, Figs. 1-2 claim (LDA's final perplexity: its "
           "last checkpoint)", path=CLAIMS,
           find='target, t_lda = float(lda["perplexity"].iloc[-1]), float(lda["fit_wall_s"].iloc[-1])',
           replace='target, t_lda = float(lda["perplexity"].min()), float(lda["fit_wall_s"].iloc[-1])', tests=[HU_OFFLINE]),
    Mutant(id="claim_hu_lda_final_in_row_order", cites="Hu et al. 2014, Figs. 1-2 claim (LDA's last checkpoint by "
           "documents seen)", path=CLAIMS, find='            lda = lda.sort_values("docs_seen")\n', replace="",
           tests=[HU_OFFLINE]),
    Mutant(id="claim_hu_offline_ignores_fig2", cites="Hu et al. 2014, Figs. 1-2 claim (both small corpora)",
           path=CLAIMS, find='return hu_fraction(ctx, ["hu_fig1", "hu_fig2"], "batch_lda")',
           replace='return hu_fraction(ctx, ["hu_fig1"], "batch_lda")', tests=[HU_OFFLINE]),
    Mutant(id="claim_scaling_in_row_order", cites="the harness's scaling claims (smallest to largest gridded value)",
           path=CLAIMS, find='groups.append(g.groupby(column)["loglik_per_word"].mean().sort_index())',
           replace='groups.append(g.groupby(column, sort=False)["loglik_per_word"].mean())', tests=[SCALING_ORDER]),
    Mutant(id="claim_scaling_batch_two_sizes", cites="the harness's scaling claim (a diminishing return needs three "
           "minibatch sizes)", path=CLAIMS,
           find='groups = [g for g in scaling_units(ctx, "p_batch_size") if len(g) >= 3]',
           replace='groups = [g for g in scaling_units(ctx, "p_batch_size") if len(g) >= 2]', tests=[SCALING_ORDER]),
    Mutant(id="table_mcinerney_fig3_every_stream", cites="McInerney et al. 2015, Fig. 3 (the time-ordered stream)",
           path="workflow/figures/mcinerney_fig3.py",
           find='    frame = frame[frame["stream"] == "time_ordered"]\n    rows = []', replace="    rows = []",
           tests=[FIG + "test_mcinerney_fig3_table_reads_the_time_ordered_stream_only"]),
    Mutant(id="figure_hu4_first_checkpoint", cites="Hu et al. 2014, Fig. 4 (the grid points' held-out scores of the "
           "final model)", path="workflow/figures/hu_fig4.py",
           find='    return frame.sort_values("docs_seen").iloc[-1]', replace='    return frame.sort_values("docs_seen").iloc[0]',
           tests=[FIG + "test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max"]),
    Mutant(id="findings_replicates_dropped", cites="the findings table: each claim's replicates n", 
           path="workflow/figures/findings.py", find='"verdict": j.verdict, "n": j.n,', replace='"verdict": j.verdict, "n": 0,',
           tests=[FIG + "test_findings_table_carries_each_judges_verdict_and_replicates"]),
    Mutant(id="synthetic_logistic_normal_empty_documents", cites="the planted C-NMF corpus: Poisson lengths, at least "
           "one token", path="topicbench/synthetic.py",
           find="lengths = np.maximum(rng.poisson(mean_length, size=n_docs), 1)",
           replace="lengths = rng.poisson(mean_length, size=n_docs)",
           tests=["tests/test_synthetic.py::test_logistic_normal_corpus_has_no_empty_document_and_proportions_per_document"]),
    # Not registered: quality.top_words with kind="quicksort" instead of "stable". test_top_words_break_ties_by_the_lower_word_id
    # kills it here, but only because numpy's quicksort (SIMD-dispatched by CPU) happens to reorder that 200-word tie.
    Mutant(id="claim_hoffman_larger_corpus_unpaired_seed_kept", cites="Hoffman et al. 2010, Fig. 1 claim (paired "
           "differences: a seed without both runs is left out)", path=CLAIMS,
           find='d = (final["online_full"] - final["online_subset"]).dropna()',
           replace='d = (final["online_full"] - final["online_subset"])',
           tests=[FIG + "test_hoffman_larger_corpus_skips_a_seed_without_both_runs"]),
    Mutant(id="claim_paisley_n_is_the_methods", cites="Paisley et al. 2014, Fig. 11.3 claim (replicates: (panel, seed) "
           "pairs)", path=CLAIMS, find="    n = len(wide)\n", replace="    n = len(methods)\n", tests=[PAISLEY_PAIRS]),
    Mutant(id="claim_paisley_seeds_averaged", cites="Paisley et al. 2014, Fig. 11.3 claim (seeds paired, not averaged "
           "per panel)", path=CLAIMS,
           find='wide = final.pivot_table(index=["p_K", "p_batch_size", "seed"], columns="method"',
           replace='wide = final.pivot_table(index=["p_K", "p_batch_size"], columns="method"', tests=[PAISLEY_PAIRS]),
    Mutant(id="claim_reached_counts_swapped", cites="Hoffman et al. 2010, Fig. 2 and Hu et al. 2014, Figs. 1-2 claims "
           "(no replicate reaches the target: not reproduced)", path=CLAIMS,
           find="judgement = reached_or_not(never_text, len(d), len(never), unit)",
           replace="judgement = reached_or_not(never_text, len(never), len(d), unit)", tests=[NEVER_REACHED]),
    Mutant(id="claim_scaling_batch_n_dropped", cites="the harness's scaling claim: its replicates n (run groups)",
           path=CLAIMS, find='"", a.test + "; " + b.test, a.n)', replace='"", a.test + "; " + b.test, 0)',
           tests=[SCALING_ORDER]),
    Mutant(id="claim_mcinerney_any_gap_differs", cites="McInerney et al. 2015, Fig. 3 claim (a best alpha that differs "
           "from N by more than the seed noise, p < 0.05)", path=CLAIMS,
           find='gap = best != nearest and s["n"] >= 2 and s["p"] < LEVEL', replace='gap = best != nearest and s["n"] >= 2',
           tests=[FIG + "test_mcinerney_alpha_not_n_counts_only_a_significant_gap"]),
    Mutant(id="streams_log_checkpoints_rounded_down", cites="the fixed policy's log-spaced checkpoints (nearest "
           "document)", path="topicbench/streams.py", find="points = np.unique(np.round(np.geomspace(",
           replace="points = np.unique(np.floor(np.geomspace(", tests=[STREAMS + "test_log_checkpoints_end_at_total"]),
    Mutant(id="streams_every_nth_batch_n1_refused_on_batch", cites="Paisley et al. 2014, sec. 11.6 protocol on a batch "
           "method: n = 1 scores each pass before training on it", path="topicbench/streams.py",
           find="if batch_method and self.n > 1:", replace="if batch_method and self.n >= 1:",
           tests=[STREAMS + "test_lookahead_rejects_what_it_cannot_score"]),
    Mutant(id="perplexity_exp_plus_loglik", cites="perplexity = exp(-per-word log predictive) (Blei et al. 2003; "
           "Hoffman et al. 2010, eq. 16)", path=EV, find="    return float(np.exp(-loglik))",
           replace="    return float(np.exp(loglik))", tests=[T + "test_loglik_per_word_is_the_token_average_of_log_probabilities"]),
    # -- the word-frequency baseline: every run line against it (findings), the figures' dotted line ----------------------
    Mutant(id="claim_beats_baseline_gap_reversed", cites="the harness's baseline claim: final score minus the "
           "word-frequency baseline's on the same documents", path=CLAIMS,
           find='gap=final["loglik_per_word"] - final["unigram_loglik_per_word"]',
           replace='gap=final["unigram_loglik_per_word"] - final["loglik_per_word"]',
           tests=[FIG + "test_beats_baseline_judges_each_line_against_the_baseline_on_its_own_documents"]),
    Mutant(id="claim_beats_baseline_first_part_decides", cites="the harness's baseline claim: lines that disagree make "
           "it mixed", path=CLAIMS, find='verdict = next(iter(tally)) if len(tally) == 1 else "mixed"',
           replace="verdict = next(iter(tally))",
           tests=[FIG + "test_beats_baseline_judges_each_line_against_the_baseline_on_its_own_documents"]),
    Mutant(id="claim_shorttext_alpha_sign", cites="the harness's short-text claim: the largest alpha = eta minus the "
           "smallest", path=CLAIMS, find="d = (table[large] - table[small]).dropna().to_numpy()",
           replace="d = (table[small] - table[large]).dropna().to_numpy()",
           tests=[FIG + "test_shorttext_alpha_claim_pairs_the_largest_alpha_with_the_smallest_per_method_and_seed"]),
    Mutant(id="figure_baseline_of_the_training_subset", cites="the figures' word-frequency baseline: the runs on the "
           "whole training split (Hoffman et al. 2010, Fig. 1's subset runs count frequencies on their subset)",
           path="workflow/scripts/figlib.py", find='frame = frame[frame["corpus_size"] == frame["corpus_size"].max()]',
           replace='frame = frame[frame["corpus_size"] == frame["corpus_size"].min()]',
           tests=[FIG + "test_baseline_line_is_that_of_the_runs_on_the_whole_training_split"]),
    Mutant(id="figure_shorttext_baseline_is_the_models", cites="the short-text figure: the dotted line is the "
           "word-frequency baseline on the same look-ahead documents", path="workflow/figures/shorttext_alpha.py",
           find='base = figlib.mean_spread(first_setting, "docs_seen", "unigram_loglik_per_word")',
           replace='base = figlib.mean_spread(first_setting, "docs_seen", "loglik_per_word")',
           tests=[FIG + "test_shorttext_figure_tables_first_final_and_baseline_and_says_which_lines_end_below"]),
    Mutant(id="table_mcinerney_fig1_gap_reversed", cites="McInerney et al. 2015, Fig. 1's table: the final score "
           "minus the baseline's", path="workflow/figures/mcinerney_fig1.py",
           find='"minus unigram": float((last["loglik_per_word"]\n                                                            - last["unigram_loglik_per_word"])',
           replace='"minus unigram": float((last["unigram_loglik_per_word"]\n                                                            - last["loglik_per_word"])',
           tests=[FIG + "test_mcinerney_fig1_caption_names_the_lines_ending_below_the_baseline"]),
    # -- twelfth red-team (mutant12, generated single-token mutants) -------------------------------------------------
    Mutant(id="protocol_accepts_nothing_observed", cites="document completion (DESIGN.md, Evaluation): 0 < observed "
           "fraction < 1", path=EV, find="not 0.0 < self.observed_fraction < 1.0",
           replace="not 0.0 <= self.observed_fraction < 1.0", tests=[T + "test_protocol_rejects_impossible_fractions"]),
    Mutant(id="protocol_describes_halves_as_one_fold", cites="the run's recorded protocol (halves vs Paisley et al. "
           "2014's k folds)", path=EV, find="        if self.folds > 1:\n            return f\"{self.folds}-fold",
           replace="        if self.folds >= 1:\n            return f\"{self.folds}-fold",
           tests=[T + "test_protocol_describes_the_split_it_scores"]),
    Mutant(id="protocol_two_folds_split_in_halves", cites="Paisley et al. 2014's k-fold completion (k = 2 included)",
           path=EV, find="    if protocol.folds > 1:\n        return fold_splits",
           replace="    if protocol.folds > 2:\n        return fold_splits", tests=[T + "test_two_folds_are_folds_not_halves"]),
    Mutant(id="completion_skips_a_one_token_chunk", cites="document completion (DESIGN.md, Evaluation): every held-out "
           "token is scored", path=EV, find="if held.nnz == 0:", replace="if held.nnz == 1:",
           tests=[T + "test_a_chunk_without_heldout_tokens_does_not_end_the_scoring"]),
    Mutant(id="meminfo_kb_as_two_kib", cites="/proc/meminfo's MemAvailable in kB (the refusal of outsized documents)",
           path=EV, find="int(line.split()[1]) * 1024", replace="int(line.split()[1]) * 2048",
           tests=[T + "test_available_memory_reads_meminfo_in_bytes"]),
    # mutsweep21 (generated sweep of quality.py; triage in tests/mutants/plumbing.py's closing comment)
    Mutant(id="npmi_reference_one_nan_count_passes",
           cites="quality._check_reference: a reference with any non-finite count is refused (NaN is not > 0, dropped)",
           path="topicbench/quality.py",
           find="if reference.nnz and (not np.isfinite(reference.data).all() or reference.data.min() < 0):",
           replace="if reference.nnz and (not np.isfinite(reference.data).any() or reference.data.min() < 0):",
           tests=["tests/test_quality.py::test_npmi_rejects_bad_input_before_compute"]),
]
# ninth red-team (mutant9) survivors not registered, judged not equation errors:
# fold_of = rank % folds (instead of contiguous shares of the random ranks): another uniformly random k-fold split;
# bnmf's flat start a_kd = a0 + N_d (instead of N_d / K): a start of a local step iterated to its tolerance;
# sklearn_lda's model.batch_size = batch_size (max with |batch| dropped): equivalent, the runner never passes a
# minibatch longer than batch_size; online LDA's kappa 0.7, tau0 1024, S 256 and LG-NMF's validation_fraction 0.1
# are the project's settings, not a paper's.
# tenth red-team (mutant10) survivors not registered. Equivalent: correlation(cov / T) for correlation(cov) (scale
# invariant); the figures' eval_kind filters (paisley_comparable's "batch", mcinerney_rows' and _mcinerney.load's
# "lookahead", paisley_fig11_3's "batch") dropped, since a run's policy writes one eval_kind only; seeds=("seed",
# "count") for "nunique" in hoffman_table1 / hu_table1 (one final row per seed and setting); the subset size's
# min -> max in hoffman_fig1's caption (one subset size); hu_table1's baseline iloc[0] -> max (constant per
# experiment); paisley_fig11_3's sd column as var (not in the table). Verified killed, not registered (cost): run.py's
# checkpoint recovery at threshold 0.5 (tests/test_run.py::test_trace_carries_topic_quality_and_recovery).
# twelfth red-team (mutant12, generated single-token mutants; see tests/mutants/lda.py), evaluate.py survivors not
# registered. Equivalent: scored_documents sizing by splits[0][0] (observed and held-out parts share a shape); the
# chunk size 2048 x2 / +1 (scores are chunking-invariant, tested at chunks of 2 and 1); fold_of's max(N_d, 1) -> 2 or 0
# (a token's document has N_d >= 1, and a one-token document's rank 0 is fold 0 either way); _check_token_memory's
# > for >= (equality only) and TOKEN_BYTES x2 / +1 (an estimate); Protocol's default seed (the runner passes it).
# Killed by tests/faults/test_params.py::test_document_of_billions_of_tokens, not registered (cost): the token count
# as a mean, n_tokens / TOKEN_BYTES, the longest document over axis 0, as a mean or the shortest. Collection errors
# (the suite fails, exit 2; the runner counts no kill): "folds < 1" -> "<= 1", a default of 0 folds.
