"""Equation mutants of LG-NMF (Hu, Ryu, Carlson, Wang and Carin 2014), one or more per equation methods/lgnmf.py cites."""
from tests.mutants import Mutant

PATH = "methods/lgnmf.py"
T = "tests/test_lgnmf.py::"
LAPLACE = T + "test_log_posterior_alpha_is_the_laplace_ratio"
ONLINE = T + "test_online_step_is_the_projected_gradient_loop"
GRID = [T + "test_laplace_grid_function", T + "test_laplace_grid_sits_at_the_mode_spaced_in_sd"]

MUTANTS = [
    # -- sec. 3.4's validation documents: counted and refused before any fit (session 21) --------------------------
    Mutant(id="hu_sec34_validation_count_of_every_document_passes", cites="Hu et al. 2014, sec. 3.4 (validation "
           "documents of the first batch, and a fitted rest)", path=PATH,
           find="require(1 <= n_val < n_docs,", replace="require(1 <= n_val <= n_docs,", tests=[T + "test_validation_count_refused_before_any_fit_and_only_under_validation[0.99]"]),
    Mutant(id="hu_sec34_online_validation_count_checked_under_evidence", cites="Hu et al. 2014, sec. 3.4 (the evidence "
           "criterion reads no validation documents)", path=PATH,
           find='if p["criterion"] == "validation" and p["batch_size"] is not None:',
           replace='if p["criterion"] == "validation" or p["batch_size"] is not None:', tests=[T + "test_validation_count_refused_before_any_fit_and_only_under_validation[0.99]"]),
    Mutant(id="hu_sec34_batch_validation_count_checked_under_evidence", cites="Hu et al. 2014, sec. 3.4 (the evidence "
           "criterion reads no validation documents)", path=PATH,
           find='if p["criterion"] == "validation" and self.batch_size is None:',
           replace='if p["criterion"] == "validation" or self.batch_size is None:', tests=[T + "test_validation_count_refused_before_any_fit_and_only_under_validation[0.99]"]),
    Mutant(id="hu_eq7_hyperprior_dropped", cites="Hu et al. 2014, eq. 7 (p(x, theta, C) includes p(theta))", path=PATH,
           find="return scale * documents + words + log_hyperprior", replace="return scale * documents + words",
           tests=[LAPLACE]),
    Mutant(id="hu_eq8_laplace_normalisers_removed", cites="Hu et al. 2014, eq. 8 (the p_G denominators of both blocks)",
           path=PATH, find="return n_vectors * (0.5 * logdet - 0.5 * precision.shape[0] * LOG_2PI)",
           replace="return 0.0", tests=[LAPLACE]),
    Mutant(id="hu_eq8_likelihood_without_half", cites="Hu et al. 2014, eq. 8 (log p(C | x*) of N(., 1))", path=PATH,
           find="log_lik = -0.5 * squared_error(X, D, S, sq_norm_C)", replace="log_lik = -squared_error(X, D, S, sq_norm_C)",
           tests=[LAPLACE]),
    Mutant(id="hu_eq9_term_removed", cites="Hu et al. 2014, eq. 9 (p_G of the d_w)", path=PATH,
           find="words = half_normal_log_prior(D, K) - gaussian_log_density_at_mean(K * np.eye(K) + scale * (S.T @ S), V)",
           replace="words = half_normal_log_prior(D, K)", tests=[LAPLACE]),
    Mutant(id="hu_eq9_prior_precision_one", cites="Hu et al. 2014, eq. 9 (K I + S'S)", path=PATH,
           find="gaussian_log_density_at_mean(K * np.eye(K) + scale * (S.T @ S), V)",
           replace="gaussian_log_density_at_mean(np.eye(K) + scale * (S.T @ S), V)", tests=[LAPLACE]),
    Mutant(id="hu_eq10_alpha_dropped", cites="Hu et al. 2014, eq. 10 (alpha I + D'D)", path=PATH,
           find="gaussian_log_density_at_mean(D.T @ D + alpha * np.eye(K), n_docs)",
           replace="gaussian_log_density_at_mean(D.T @ D + np.eye(K), n_docs)", tests=[LAPLACE]),
    Mutant(id="hu_eq13_cell_width_in_log_alpha", cites="Hu et al. 2014, eq. 13 (Delta_m of equal log-alpha cells is alpha_m-proportional)",
           path=PATH, find="log_w = np.log(cell_width) + log_alpha + log_posterior",
           replace="log_w = np.log(cell_width) + log_posterior", tests=[T + "test_grid_weights_carry_the_cell_width_in_alpha"]),
    Mutant(id="hu_eq13_unweighted_mixture", cites="Hu et al. 2014, eq. 13 (weights Delta_m p~(theta_m | D))", path=PATH,
           find="return self.grid_weights @ self.grid_predictions(observed, word_ids)",
           replace="return self.grid_predictions(observed, word_ids).mean(axis=0)",
           tests=[T + "test_predictions_normalised_and_weighted_mixture"]),
    Mutant(id="hu_eq15_prior_gradient_without_k", cites="Hu et al. 2014, eq. 15 (K d_:k)", path=PATH,
           find="- (X.T if C is None else C) @ S + D.shape[1] * D", replace="- (X.T if C is None else C) @ S + D",
           tests=[T + "test_gradients_match_finite_differences"]),
    Mutant(id="hu_eq16_prior_gradient_sign", cites="Hu et al. 2014, eq. 16 (+ alpha s_:k)", path=PATH,
           find="- X @ D + alpha * S", replace="- X @ D - alpha * S", tests=[T + "test_gradients_match_finite_differences"]),
    Mutant(id="hu_eq15_online_step_prior_without_k", cites="Hu et al. 2014, eq. 15 (K d_:k) in the online step (sec. 4)",
           path=PATH, find="C.data, S, float(prior_D), step)", replace="C.data, S, 1.0, step)", tests=[ONLINE]),
    Mutant(id="hu_sec4_short_minibatch_full_prior", cites="Hu et al. 2014, eq. 15 over sec. 4's minibatches of size B (a shorter "
           "one's prior share)", path=PATH, find="prior_D = K * prior_share", replace="prior_D = K",
           tests=[T + "test_a_short_minibatch_weighs_the_loadings_prior_by_its_share_of_b"]),
    Mutant(id="hu_eq16_online_step_alpha_dropped", cites="Hu et al. 2014, eq. 16 (+ alpha s_:k) in the online step (sec. 4)",
           path=PATH, find="X.data, D, float(alpha), step_s)", replace="X.data, D, 0.0, step_s)", tests=[ONLINE]),
    Mutant(id="hu_eq15_16_projected_step_sign", cites="Hu et al. 2014, eqs. 15-16 (the C S and C'D terms of the gradients)",
           path="topicbench/lgnmf_kernels.py", find="step * ((FH[i, k] - acc[k]) + prior * F[i, k])",
           replace="step * ((FH[i, k] + acc[k]) + prior * F[i, k])", tests=[ONLINE]),
    Mutant(id="hu_sec34_sd_is_variance", cites="Hu et al. 2014, sec. 3.4 (grid spacing in sd = H^-1/2)", path=PATH,
           find="sd = 1.0 / np.sqrt(curvature) if curvature > 0", replace="sd = 1.0 / curvature if curvature > 0", tests=GRID),
    Mutant(id="hu_sec34_curvature_step", cites="Hu et al. 2014, sec. 3.4 (finite-difference Hessian)", path=PATH,
           find="return -(f_plus - 2.0 * f_mode + f_minus) / (step * step)",
           replace="return -(f_plus - 2.0 * f_mode + f_minus) / step", tests=GRID),
    Mutant(id="hu_sec34_grid_not_centred", cites="Hu et al. 2014, sec. 3.4 (grid around the mode)", path=PATH,
           find="offsets = (np.arange(size) - 0.5 * (size - 1)) * spacing_sd", replace="offsets = np.arange(size) * spacing_sd",
           tests=GRID),
    Mutant(id="hu_sec34_mode_not_refined", cites="Hu et al. 2014, sec. 3.4 (the mode of eq. 8 by optimisation)", path=PATH,
           find="mode = max(fits, key=lambda k: fits[k][0])", replace="mode = float(scan[best])",
           tests=[T + "test_laplace_grid_sits_at_the_mode_spaced_in_sd"]),
    Mutant(id="hu_sec34_search_without_the_log_alpha_jacobian",
           cites="Hu et al. 2014, sec. 3.4 (the search in log alpha: density alpha p~(alpha | C), eqs. 8 and 13)", path=PATH,
           find='p["alpha_prior_rate"], scale) + np.log(alpha)', replace='p["alpha_prior_rate"], scale)',
           tests=[T + "test_search_maximises_the_density_of_log_alpha"]),
    Mutant(id="hu_eq13_fixed_grid_at_cell_edges", cites="Hu et al. 2014, eq. 13 (Delta_m p~(alpha_m): alpha_m at the cell centres)",
           path=PATH, find="self.grid_log_alpha = (lo + (np.arange(M) + 0.5) * (hi - lo) / M) * LN10",
           replace="self.grid_log_alpha = (lo + np.arange(M) * (hi - lo) / M) * LN10",
           tests=[T + "test_fixed_grid_points_sit_at_the_cell_centres"]),
    Mutant(id="hu_sec4_scale_counts_the_validation_documents",
           cites="Hu et al. 2014, sec. 4 (N / N_b over the documents fitted; validation documents are never fitted)",
           path=PATH, find="(self.corpus_size - len(self.validation_rows)) / X.shape[0]",
           replace="self.corpus_size / X.shape[0]",
           tests=[T + "test_online_scale_is_the_fitted_documents_over_the_minibatch"]),
    Mutant(id="hu_sec34_alpha_is_e_to_the_log10", cites="Hu et al. 2014, sec. 3.4 / Fig. 4 (the search's axis is log10 alpha: alpha = 10^x)",
           path=PATH, find="alpha = 10.0 ** float(log10_alpha)", replace="alpha = np.exp(float(log10_alpha))",
           tests=[T + "test_search_maximises_the_density_of_log_alpha"]),
    Mutant(id="hu_eq13_topics_from_the_lowest_weight_point", cites="Hu et al. 2014, eq. 13 (the read-out's topics: the highest-weight grid point)",
           path=PATH, find="return int(np.argmax(self.grid_weights))", replace="return int(np.argmin(self.grid_weights))",
           tests=[T + "test_topics_are_the_highest_weight_grid_points"]),
    Mutant(id="validation_criterion_per_token_not_summed", cites="LG-NMF's validation criterion (eq. 13's weights with "
           "exp(sum of held-out log predictives), the deviation in methods/lgnmf.py's docstring)", path=PATH,
           find="self.grid_weights = normalised_weights(np.log(self.cell_width) + val_total)",
           replace="self.grid_weights = normalised_weights(np.log(self.cell_width) + self.validation)",
           tests=[T + "test_validation_criterion_is_the_protocols_completion_score"]),
    Mutant(id="validation_criterion_ignores_counts", cites="LG-NMF's validation criterion: the harness's per-word log "
           "predictive (each held-out word weighted by its count)", path=PATH,
           find="return float(heldout.data @ np.log(probs)), float(heldout.data.sum())",
           replace="return float(np.sum(np.log(probs))), float(heldout.data.sum())",
           tests=[T + "test_validation_criterion_is_the_protocols_completion_score"]),
    Mutant(id="validation_criterion_not_halves", cites="LG-NMF's validation criterion: document completion, observe half, "
           "predict half", path=PATH, find="self._val = split_documents(X[pick], 0.5, self.seed)",
           replace="self._val = split_documents(X[pick], 0.9, self.seed)",
           tests=[T + "test_validation_criterion_is_the_protocols_completion_score"]),
    Mutant(id="hu_sec4_word_precision_unscaled", cites="Hu et al. 2014, eq. 9 with sec. 4's N/N_b (the minibatch's S'S "
           "in K I + S'S, scaled to the corpus)", path=PATH, find="K * np.eye(K) + scale * (S.T @ S), V)",
           replace="K * np.eye(K) + (S.T @ S), V)", tests=[T + "test_minibatch_scale_estimates_the_corpus_laplace_ratio"]),
    Mutant(id="lgnmf_topic_weights_without_scores", cites="Hu et al. 2014, eq. 1 (X = D S', X_ij = d_i's_j): a topic's "
           "weight is the part of X it carries, not its loadings' sum", path=PATH,
           find="return self.D[self.best].sum(axis=0) * self.score_mean[self.best]",
           replace="return self.D[self.best].sum(axis=0)",
           tests=[T + "test_topic_weights_are_rates_not_loadings"]),
    Mutant(id="hu_sec4_default_step_size", cites="Hu et al. 2014, sec. 4 (eta = 0.003)", path="methods/lgnmf.py",
           find='"eta": 0.003, "sgd_iters": 25,', replace='"eta": 0.03, "sgd_iters": 25,',
           tests=["tests/test_lgnmf.py::test_defaults_are_the_papers"]),
    Mutant(id="hu_sec5_default_grid_of_five", cites="Hu et al. 2014, sec. 5.1 (a grid of 10 points on alpha_1)",
           path="methods/lgnmf.py", find='"criterion": "validation", "grid_size": 10,',
           replace='"criterion": "validation", "grid_size": 5,', tests=["tests/test_lgnmf.py::test_defaults_are_the_papers"]),
    Mutant(id="hu_sec5_default_rank_100", cites="Hu et al. 2014, sec. 5.1 (K = 50)", path="methods/lgnmf.py",
           find='params = {"K": 50, "grid": "laplace"', replace='params = {"K": 100, "grid": "laplace"',
           tests=["tests/test_lgnmf.py::test_defaults_are_the_papers"]),
    Mutant(id="hu_sec3_1_hals_stops_at_tol_not_tol_squared", cites="Hu et al. 2014, sec. 3.1 block solves (HALS until the "
           "relative change <= tol: squared change <= tol^2 ||F||^2)", path="topicbench/lgnmf_kernels.py",
           find="        for i in numba.prange(F.shape[0]):\n            c, s = _hals_row(F, G, Ht, i)\n            change += c\n"
                "            norm += s\n        if change <= tol * tol * norm:",
           replace="        for i in numba.prange(F.shape[0]):\n            c, s = _hals_row(F, G, Ht, i)\n            change += c\n"
                   "            norm += s\n        if change <= tol * norm:",
           tests=[T + "test_hals_sweeps_are_coordinate_descent_stopped_at_tol_squared[hals_sweeps]"]),
    Mutant(id="hu_sec4_prior_share_counts_only_fitted_documents", cites="Hu et al. 2014, eq. 15's prior K in the "
           "minibatch's share |C_b|/B of documents drawn (validation documents set aside still count)",
           path="methods/lgnmf.py", find="prior_share=min(1.0, drawn / self.batch_size)",
           replace="prior_share=min(1.0, X.shape[0] / self.batch_size)",
           tests=["tests/test_lgnmf.py::test_prior_share_counts_the_documents_drawn_not_those_fitted"]),
    Mutant(id="validation_documents_truncated_fraction", cites="LG-NMF validation criterion: round(validation_fraction "
           "* n) documents of the first batch", path="methods/lgnmf.py",
           find='return int(round(float(fraction) * n_docs))', replace='return int(float(fraction) * n_docs)',
           tests=["tests/test_lgnmf.py::test_validation_documents_are_the_rounded_fraction"]),
    Mutant(id="hu_sec34_grid_points_restart_from_d0", cites="Hu et al. 2014, secs. 3.4 and 5.1 (every grid point starts "
           "from the mode's fit)", path="methods/lgnmf.py",
           find="self.D = np.repeat(fits[mode][1][None], len(grid), axis=0)",
           replace="self.D = np.repeat(self.D_start[None], len(grid), axis=0)", tests=["tests/test_lgnmf.py::test_grid_points_start_from_the_modes_search_fit"]),
    Mutant(id="hu_sec34_search_one_block_cycle_short", cites="Hu et al. 2014, sec. 3.4's search: each evaluation a MAP fit "
           "of search_iters block cycles (sec. 3.1)", path="methods/lgnmf.py",
           find='        for _ in range(p["search_iters"]):\n', replace='        for _ in range(p["search_iters"] - 1):\n',
           tests=["tests/test_lgnmf.py::test_grid_points_start_from_the_modes_search_fit"]),
    Mutant(id="hu_eq7_hyperprior_normaliser_sign", cites="Hu et al. 2014, eq. 7 (log Ga(alpha | a, b) = a log b - log Gamma(a) "
           "+ (a - 1) log alpha - b alpha)", path=PATH,
           find="prior_shape * np.log(prior_rate) - gammaln(prior_shape)",
           replace="prior_shape * np.log(prior_rate) + gammaln(prior_shape)", tests=[LAPLACE]),
    Mutant(id="hu_sec34_fallback_sd_in_decades", cites="Hu et al. 2014, sec. 3.4 (without a curvature the sd falls back to "
           "fd_step decades, in the natural log alpha the grid lives in)", path=PATH,
           find='float(p["grid_spacing_sd"]), h * LN10)', replace='float(p["grid_spacing_sd"]), h)',
           tests=[T + "test_grid_without_curvature_falls_back_to_fd_step_decades"]),
    Mutant(id="hu_sec34_scan_one_point_short", cites="Hu et al. 2014, sec. 3.4 (the search's scan: one point per decade "
           "of the range, both ends included)", path=PATH,
           find="max(3, int(round(hi - lo)) + 1))", replace="max(3, int(round(hi - lo))))",
           tests=[T + "test_laplace_grid_sits_at_the_mode_spaced_in_sd"]),
    Mutant(id="lgnmf_topic_weights_summed_scores", cites="Hu et al. 2014, eq. 1 (topic_weights: sum_w D_wk times the mean "
           "s_dk of the last fit, not the sum)", path=PATH,
           find="self.score_mean[m] = S_all[m].mean(axis=0)", replace="self.score_mean[m] = S_all[m].sum(axis=0)",
           tests=[T + "test_topic_weights_are_rates_not_loadings"]),
    # -- twelfth red-team (mutant12, generated single-token mutants) -------------------------------------------------
    Mutant(id="hu_eq13_weights_shifted_by_the_smallest", cites="Hu et al. 2014, eq. 13 (w_m normalised; exp of log "
           "weights thousands of nats apart)", path=PATH, find="w = np.exp(log_w - np.max(log_w))",
           replace="w = np.exp(log_w - np.min(log_w))", tests=[T + "test_normalised_weights_of_log_weights_far_apart"]),
    Mutant(id="hu_sec3_4_sd_at_zero_curvature", cites="Hu et al. 2014, sec. 3.4 (sd = H^-1/2 needs H > 0)", path=PATH,
           find="if curvature > 0 else float(fallback_sd)", replace="if curvature >= 0 else float(fallback_sd)",
           tests=[T + "test_laplace_grid_function"]),
    Mutant(id="hu_sec3_1_score_start_clipped_from_above", cites="Hu et al. 2014, sec. 3.1 S-block (start at the "
           "unconstrained solution clipped at zero)", path=PATH, find="S = np.maximum(0.0, scipy.linalg.solve(",
           replace="S = np.minimum(0.0, scipy.linalg.solve(",
           tests=[T + "test_score_solve_starts_at_the_clipped_unconstrained_solution"]),
    Mutant(id="hu_eq13_initial_weights_m", cites="Hu et al. 2014, eq. 13 (weights sum to one; equal before any fit)",
           path=PATH, find="self.grid_weights = np.full(M, 1.0 / M)", replace="self.grid_weights = np.full(M, 1.0 * M)",
           tests=[T + "test_fixed_grid_points_sit_at_the_cell_centres"]),
    Mutant(id="hu_sec3_4_fd_step_lower_end_plus", cites="Hu et al. 2014, sec. 3.4 (the finite differences evaluate "
           "10^(min - fd_step))", path=PATH, find="LOG10_ALPHA_RANGE[0] <= lo - h",
           replace="LOG10_ALPHA_RANGE[0] <= lo + h", tests=[T + "test_bad_hyperparameters"]),
    Mutant(id="lgnmf_one_validation_document_refused", cites="the validation criterion (round(fraction n) >= 1 "
           "documents)", path=PATH, find="if not 1 <= n_val < X.shape[0]:", replace="if not 1 < n_val < X.shape[0]:",
           tests=[T + "test_validation_needs_one_document_and_a_fitted_rest"]),
    Mutant(id="lgnmf_search_record_validation_times_tokens", cites="the sec. 3.4 search record (validation log "
           "predictive per held-out token)", path=PATH, find="evidence, val_total / tokens, D",
           replace="evidence, val_total * tokens, D", tests=[T + "test_each_grid_points_objective_eq8_and_search_record"]),
    Mutant(id="hu_eq6_squared_norm_as_a_mean", cites="Hu et al. 2014, eq. 6 (||C||^2 in the squared error, summed)",
           path=PATH, find="sq_norm_C = float(X.multiply(X).sum())\n        evidence",
           replace="sq_norm_C = float(X.multiply(X).mean())\n        evidence",
           tests=[T + "test_each_grid_points_objective_eq8_and_search_record"]),
    Mutant(id="hu_sec4_reported_step_is_the_largest", cites="Hu et al. 2014, sec. 4 (the trace's sgd_step: the "
           "smallest step of the minibatch)", path=PATH, find="return D, S, min(steps)", replace="return D, S, max(steps)",
           tests=[ONLINE]),
    Mutant(id="lgnmf_zero_topic_is_nan", cites="topics(): columns of D normalised, all-zero columns stay zero",
           path=PATH, find="where=mass > 0)", replace="where=mass >= 0)",
           tests=[T + "test_topics_are_the_highest_weight_grid_points"]),
    Mutant(id="hu_fig4_evidence_relative_to_the_smallest", cites="Hu et al. 2014, Fig. 4 (eq. 8 relative to its "
           "largest value over the grid)", path=PATH, find="relative = self.log_posterior - np.max(self.log_posterior)",
           replace="relative = self.log_posterior - np.min(self.log_posterior)",
           tests=[T + "test_progress_reports_the_edge_weight_and_eq8_relative_to_its_best"]),
    Mutant(id="hu_sec3_4_bracket_from_the_first_scan_point", cites="Hu et al. 2014, sec. 3.4 (the search refines "
           "between the best scan point's neighbours)", path=PATH, find="bracket = (scan[max(best - 1, 0)]",
           replace="bracket = (scan[0]", tests=[T + "test_search_maximises_the_density_of_log_alpha"]),
    Mutant(id="hu_sec3_4_no_sd_below_unit_curvature", cites="Hu et al. 2014, sec. 3.4 (sd = H^-1/2 for every H > 0)",
           path=PATH, find="if curvature > 0 else", replace="if curvature > 1 else", tests=[T + "test_laplace_grid_function"]),
    Mutant(id="hu_eq18_small_rates_uniform", cites="Hu et al. 2014, sec. 3.3 / eq. 18 (rates normalised however "
           "small; 1/V only for an all-zero rate)", path=PATH, find="live = total > 0", replace="live = total > 1",
           tests=[T + "test_completion_normalises_small_rates"]),
    # mutant18
    Mutant(id="hu_sec34_bracket_short_of_the_right_neighbour", cites="Hu et al. 2014, sec. 3.4: the mode's search between the best "
           "scan point's neighbours", path=PATH, find="scan[min(best + 1, len(scan) - 1)]", replace="scan[min(best + 1, len(scan) - 2)]",
           tests=[T + "test_search_brackets_the_best_scan_points_neighbours_near_the_end[right]"]),
    Mutant(id="hu_sec34_grid_placed_every_pass", cites="Hu et al. 2014, sec. 3.4: the grid is placed once, then fixed", path=PATH,
           find="        self.placed = True\n", replace="        self.placed = False\n",
           tests=[T + "test_batch_passes_place_the_grid_once_and_warm_start_the_scores"]),
    Mutant(id="hu_sec31_batch_pass_never_warm", cites="Hu et al. 2014, sec. 3.1: block cycles continue from the last pass's S",
           path=PATH, find="warm = self._batch_rows is not None and np.array_equal(self._batch_rows, rows)",
           replace="warm = self._batch_rows is None and np.array_equal(self._batch_rows, rows)",
           tests=[T + "test_batch_passes_place_the_grid_once_and_warm_start_the_scores"]),
    Mutant(id="hu_sec34_bracket_short_of_the_left_neighbour", cites="Hu et al. 2014, sec. 3.4: the mode's search between the best "
           "scan point's neighbours", path=PATH, find="scan[max(best - 1, 0)]", replace="scan[max(best - 1, 1)]",
           tests=[T + "test_search_brackets_the_best_scan_points_neighbours_near_the_end[left]"]),
    # audit21: slips the suite missed because it ran only at the defaults (Ga(1e-6, 1e-6) has shape = rate, block_iters = 1)
    # or never reached the call (the grid's eq. 8 under criterion "validation" is taken in after_update)
    Mutant(id="hu_eq7_hyperprior_shape_rate_swapped_in_the_grid", cites="Hu et al. 2014, eqs. 7-8 (p(alpha) = Ga(shape, "
           "rate) as given, at each grid point)", path=PATH,
           find='self.alphas[m], p["alpha_prior_shape"], p["alpha_prior_rate"], scale',
           replace='self.alphas[m], p["alpha_prior_rate"], p["alpha_prior_shape"], scale',
           tests=[T + "test_eq8_uses_the_alpha_hyperprior_given"]),
    Mutant(id="hu_eq7_hyperprior_shape_rate_swapped_in_the_search", cites="Hu et al. 2014, eqs. 7-8 and sec. 3.4 (p(alpha) "
           "= Ga(shape, rate) as given, at each search evaluation)", path=PATH,
           find='alpha, p["alpha_prior_shape"], p["alpha_prior_rate"], scale)',
           replace='alpha, p["alpha_prior_rate"], p["alpha_prior_shape"], scale)',
           tests=[T + "test_eq8_uses_the_alpha_hyperprior_given"]),
    Mutant(id="hu_sec4_grid_eq8_unscaled", cites="Hu et al. 2014, eq. 8 with sec. 4's N / N_b at each grid point (the "
           "search's evaluations are scaled too)", path=PATH,
           find='p["alpha_prior_rate"], scale,\n', replace='p["alpha_prior_rate"], 1.0,\n',
           tests=[T + "test_online_scale_is_the_fitted_documents_over_the_minibatch"]),
    Mutant(id="hu_sec31_block_iters_ignored", cites="Hu et al. 2014, sec. 3.1 (a batch pass runs block_iters block cycles)",
           path=PATH, find='            for _ in range(p["block_iters"]):', replace='            for _ in range(1):',
           tests=[T + "test_a_pass_of_block_iters_cycles_is_that_many_passes_of_one"]),
]
# verified killed, not registered (recompile cost): id -- find -> replace -- killed by node
# l_hals_serial_tol_not_squared -- serial "change <= tol * tol * norm" -> "tol * norm" -- test_hals_sweeps_are_coordinate_descent_stopped_at_tol_squared[hals_sweeps_serial]
# l_hals_no_diag -- "F[i, k] - G[i, k] / Ht[k, k]" -> "F[i, k] - G[i, k]" -- test_block_updates_never_increase_objective
# l_hals_grad_sign -- "G[i, j] += delta * Ht[k, j]" -> "-=" -- test_block_updates_never_increase_objective
# l_proj_row_index -- "acc[k] += v * B[j, k]" -> "B[i, k]" -- test_runner_beats_unigram_and_is_deterministic[online]
# l_proj_no_projection -- "max(0.0, F[i, k] - step" -> "(F[i, k] - step" -- test_runner_beats_unigram_and_is_deterministic[online]

# tenth red-team (kernel10), verified killed, not registered (T = test_hals_sweeps_are_coordinate_descent_stopped_at_tol_squared):
# l_hals_no_projection -- "new = max(0.0, F[i, k] - G[i, k] / Ht[k, k])" -> "new = F[i, k] - G[i, k] / Ht[k, k]" -- T[hals_sweeps]
# l_hals_gradient_not_updated -- "G[i, j] += delta * Ht[k, j]" -> "+= 0.0 * Ht[k, j]" -- T[hals_sweeps]
# l_step_prior_outside_step (eqs. 15-16) -- "step * ((FH[i, k] - acc[k]) + prior * F[i, k])" -> "step * (FH[i, k] - acc[k]) + prior * F[i, k]" -- test_online_step_is_the_projected_gradient_loop
# l_step_acc_not_reset -- "acc[:] = 0.0" -> "pass" -- same
# eleventh red-team (mutant11), killed by the suite as it stood, not registered: the 2 of the cross term, K in F's
# prior on D, the 1/2s of F, K I in eq. 9's block solve, alpha I in eq. 10's, log 2 / 1/2 log precision / precision of
# the half-normal prior, 1/2 logdet and the 2 pi sign in p_G, the likelihood's 2 pi term, 1/alpha for alpha, precision
# 1 for K on D, (a - 1) log alpha, + b alpha, scale on the word side, V for N vectors in eq. 10, cell width sd, grid
# centred at size / 2, floor / V, (1 - floor), curvature step or mode in decades, the right bracket at the best
# scan point, the online steps' 1/L caps without the prior or with the smallest eigenvalue, topics over axis 0,
# log10_alpha_mean unweighted, validation per token as the total, one extra search cycle, the fixed grid's cell
# width in decades, D0 / K, the criteria swapped, heldout_extras unweighted by counts.
# progress()'s edge_weight "w[0] + w[-1]" -> "w[0]" and the search record's validation column "val_total / tokens" ->
# "val_total" survived (diagnostics for figures only); mutant12's tests kill both (registered: "* tokens", above).
# twelfth red-team (mutant12, generated single-token mutants; see tests/mutants/lda.py), survivors not registered.
# Equivalent: the PARALLEL_SWEEP_WORK switch (hals_sweeps and hals_sweeps_serial take the same steps in the same
# order), the thread-pool conditions and worker count (each grid point's arithmetic is the same), warm_up's
# arguments (it only compiles), log(cell_width) in the weights as log1p or dropped (constant over the grid),
# precision.shape[0] for [1] (square), "alphas >= tiny" for "> tiny" (equality only). Killed, not registered (cost):
# docs_seen / updates bookkeeping (test_state_round_trip), topic_weights over a word mean, edge_weight's other slips,
# the fd_step guard's other dropped terms and boundaries (test_bad_hyperparameters, test_fd_step_may_reach_...).
# Also equivalent: BLAS thread limits, min(1.0 -> 2, drawn / B) (drawn <= B), place_grid's default scale (the fit
# passes it). Settings, not the paper's: the log10 alpha range, search_iters, search_tol, fd_step, solver_max_iter,
# prob_floor. Killed, not registered (cost): the scan's minimum of 3 points, Brent's bracket at best -/+ 2, updates
# += 2 or 0, the initial weights 2/M or 0, the empty search record's shape, the validation count's other bounds.
# Collection errors (exit 2): LOG10_ALPHA_RANGE's sign, log10_alpha_min's default sign, "widest - h > widest", and
# defaults that check_params refuses (K, grid_size, search_iters, tolerances, floor or priors at 0).

# seventeenth red-team (kmut17, kernel round 2): 11 mutants of lgnmf_kernels.py, fresh numba cache each, not registered.
# L = tests/test_lgnmf.py::, T = L test_hals_sweeps_are_coordinate_descent_stopped_at_tol_squared. Killed by the suite:
# l_proj_no_value ("acc[k] += v * B[j, k]" -> "B[j, k]"), l_proj_step_sign ("F[i, k] - step * ((FH" -> "+") -- L test_runner_beats_unigram_and_is_deterministic[online]
# l_proj_prior_sign ("+ prior * F[i, k]))" -> "-"), l_proj_FH_col ("FH[i, k]" -> "FH[i, 0]") -- L test_online_approaches_the_batch_map
# l_hals_delta_sign ("delta = new - F[i, k]" -> reversed), l_hals_grad_diag_only ("delta * Ht[k, j]" -> "Ht[k, k]"),
#   l_hals_only_increases ("if delta != 0.0" -> "> 0.0") -- L test_block_updates_never_increase_objective
# l_hals_change_abs ("c += delta * delta" -> "abs(delta)"), l_hals_norm_from_change (parallel "norm += s" -> "norm += c") -- T[hals_sweeps]
# Survived, real gaps, killed by T as extended in kmut17:
# l_hals_norm_not_squared (_hals_row "s += F[i, k] * F[i, k]" -> "s += F[i, k]"): the stop compared tol^2 sum F with the
#   squared change; T now runs the same problem scaled by 1e-4, where the scale-free rule takes the same sweeps
# l_hals_one_sweep_short (hals_sweeps "range(1, max_iter + 1)" -> "range(1, max_iter)"): T now checks max_iter = 2 stops
#   after exactly two sweeps at the two-sweep F

# audit21 (equation-by-equation audit against Hu et al. 2014), 34 candidates on methods/lgnmf.py and one kernel mutant.
# Killed by the suite as it stood, not registered (T = test_lgnmf.py::): eq. 8's document terms without N/N_b and
# D'D scaled in eq. 10 (T test_minibatch_scale_estimates_the_corpus_laplace_ratio), the D prior's precision 1/K, the Ga
# normaliser's shape and rate swapped, the likelihood's 2 pi without V (T test_log_posterior_alpha_is_the_laplace_ratio),
# the completion's s_d at alpha = 1 and its total rate over all words, eq. 13's predictions all at the first alpha
# (T test_predictions_normalised_and_weighted_mixture), Brent minimising, the curvature one-sided, the cell width
# without sd (T test_laplace_grid_sits_at_the_mode_spaced_in_sd), the search's S-block cold (T
# test_grid_points_start_from_the_modes_search_fit), eq. 15-16's online steps uncapped, S_b from zero, the first grid
# point's alpha (T test_online_step_is_the_projected_gradient_loop / test_online_approaches_the_batch_map), the weights
# with + log alpha under criterion "validation", the first point's S, D or warm S in eq. 8, F, validation or the
# batch pass, ||C||^2 as sum C, the fitted rows inverted, eqs. 15-16's prior terms as printed (column sums: T
# test_gradients_match_finite_differences), block_iters + 1, projected_step dropping each row's last nonzero.
# Survived, judged not equation errors: the validation split's seed fixed at 0 (which documents are split how, not an
# equation; the split is still the harness's halves).
