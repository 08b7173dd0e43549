"""Equation mutants of LG-NMF (Hu, Ryu, Carlson, Wang and Carin 2014), one or more per equation methods/lgnmf.py cites."""
from tests.mutants import Mutant

PATH = "methods/lgnmf.py"
T = "tests/test_lgnmf.py::"
LAPLACE = T + "test_log_posterior_alpha_is_the_laplace_ratio"
ONLINE = T + "test_online_step_is_the_projected_gradient_loop"
GRID = [T + "test_laplace_grid_function", T + "test_laplace_grid_sits_at_the_mode_spaced_in_sd"]

MUTANTS = [
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
           path=PATH, find="C.data, S, float(K), step)", replace="C.data, S, 1.0, step)", tests=[ONLINE]),
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
]
