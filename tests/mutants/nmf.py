"""Equation mutants for B-NMF and C-NMF (Paisley, Blei and Jordan 2014, ch. 11, eqs. 11.24-11.36).

Each breaks one equation the code cites the way a plausible slip would; the listed fast tests must fail.
"""
from tests.mutants import Mutant

BNMF_Q_THETA = "tests/test_bnmf.py::test_local_step_is_stationary_in_q_theta"
BNMF_Q_BETA = "tests/test_bnmf.py::test_global_step_is_stationary_in_q_beta"
BNMF_SVI = "tests/test_bnmf.py::test_stochastic_step_is_unbiased_and_interpolates"
CNMF_Q_BETA = "tests/test_cnmf.py::test_global_beta_step_is_stationary"
CNMF_SVI = "tests/test_cnmf.py::test_stochastic_beta_step_is_unbiased"
CNMF_GRAD_U = "tests/test_cnmf.py::test_gradient_u_matches_finite_differences"
CNMF_GRAD_L = "tests/test_cnmf.py::test_gradient_locations_matches_finite_differences"
CNMF_PRECISION = "tests/test_cnmf.py::test_newton_precision_is_negative_hessian_with_p_fixed"
GENSIM_NMF = "tests/test_nmf_peers.py::test_gensim_nmf_predicts_the_normalised_reconstruction_and_keeps_running_means"
CNMF_NEWTON = "tests/test_cnmf.py::test_location_newton_step"
INIT = "tests/test_bnmf.py::test_initial_topics_are_the_prior_plus_uniform_scaled_as_a_minibatch"
BNMF_FLOOR = "tests/test_bnmf.py::test_bound_floors_zero_rates_and_zero_p"

MUTANTS = [
    Mutant(id="paisley_batch_forgets_q_theta",
           cites="Paisley et al. 2014, eqs. 11.25-11.29 (batch VB: one q(theta), updated pass after pass, never restarted)",
           path="methods/bnmf.py", find="shape=self._batch_shape if warm else None)", replace="shape=None)",
           tests=["tests/test_bnmf.py::test_batch_mode_keeps_q_theta_between_passes"]),
    # eq. 11.24: p_k^(vd) ∝ exp(E ln beta_vk + E ln omega_kd)
    Mutant(id="paisley_11_24_bnmf_rate_dropped_from_elog_theta",
           cites="Paisley et al. 2014, eq. 11.24 (B-NMF, E ln theta = psi(a) - ln b)",
           path="topicbench/nmf_kernels.py",
           find="topics_t = np.ascontiguousarray((exp_elog_beta / rate[:, None]).T)",
           replace="topics_t = np.ascontiguousarray(exp_elog_beta.T)",
           tests=[BNMF_Q_THETA]),
    Mutant(id="paisley_11_24_cnmf_beta_dropped",
           cites="Paisley et al. 2014, eq. 11.24 (C-NMF, E ln beta_vk dropped from p)",
           path="topicbench/nmf_kernels.py",
           find="e0, e1, e2, e3 = _dot4(weight, sub[k], sub[k + 1], sub[k + 2], sub[k + 3])",
           replace="e0 = e1 = e2 = e3 = _dot(weight, weight * 0.0 + 1.0)",
           tests=[CNMF_GRAD_U]),
    Mutant(id="paisley_11_24_cnmf_beta_dropped_from_objective",
           cites="Paisley et al. 2014, eqs. 11.23-11.24 (C-NMF, E ln beta_vk dropped from the objective's log-sum)",
           path="topicbench/kernels/dense.py",  # the normaliser C-NMF shares with LDA's sparse sweep (_weighted_rows)
           find="out[j] += (t0 * s0[j] + t1 * s1[j]) + (t2 * s2[j] + t3 * s3[j])",
           replace="out[j] += (t0 + t1) + (t2 + t3)",
           tests=["tests/test_cnmf.py::test_objective_matches_direct_formula"]),
    Mutant(id="paisley_sec_11_5_1_elog_beta_rate_dropped",
           cites="Paisley et al. 2014, sec. 11.5.1 (E ln beta_vk = psi(g_vk) - ln h_vk)",
           path="topicbench/nmf_kernels.py",
           find="out[v, k] = y * math.exp(-c) / h[k]",
           replace="out[v, k] = y * math.exp(-c)",
           tests=["tests/test_cnmf.py::test_gamma_topic_expectations_match_scipy"]),
    # eqs. 11.25-11.26 (batch; the same code as 11.33-11.34 with rho = 1, D/|C_t| = 1)
    Mutant(id="paisley_11_25_prior_shape_dropped",
           cites="Paisley et al. 2014, eq. 11.25 (g_vk = c0/V + sum_d X_vd p_k)",
           path="topicbench/nmf.py",
           find="rho * (self.c0 / self.n_words + scale * sstats.T)",
           replace="rho * (scale * sstats.T)",
           tests=[BNMF_Q_BETA]),
    Mutant(id="paisley_11_26_h_is_c0",
           cites="Paisley et al. 2014, eq. 11.26 (h_vk = c0 + sum_d E[theta_kd])",
           path="topicbench/nmf.py",
           find="self.h = (1 - rho) * self.h + rho * (self.c0 + scale * weight_mass)",
           replace="self.h = (1 - rho) * self.h + rho * self.c0",
           tests=[BNMF_Q_BETA]),
    Mutant(id="paisley_11_26_theta_mean_without_rate",
           cites="Paisley et al. 2014, eq. 11.26 (E[theta_kd] = a_kd / b_kd)",
           path="methods/bnmf.py",
           find="(shape / self.weight_rate()).sum(axis=0)",
           replace="shape.sum(axis=0)",
           tests=[BNMF_Q_BETA]),
    Mutant(id="paisley_11_27_weights_are_expected_counts",
           cites="Paisley et al. 2014, eq. 11.27 (h_vk = c0 + sum_d exp(alpha_d + l_k'u_d))",
           path="methods/cnmf.py",
           find='local["sstats"], local["omega"].sum(axis=0))',
           replace='local["sstats"], local["expected"].sum(axis=0))',
           tests=[CNMF_Q_BETA]),
    # eqs. 11.28-11.29: q(theta_kd) = Gamma(a_kd, b_kd)
    Mutant(id="paisley_11_28_b0_for_a0",
           cites="Paisley et al. 2014, eq. 11.28 (a_kd = a0 + sum_v X_vd p_k)",
           path="methods/bnmf.py",
           find='self.weight_rate(), self.a0, self.hyper["local_max_iter"]',
           replace='self.weight_rate(), self.b0, self.hyper["local_max_iter"]',
           tests=[BNMF_Q_THETA]),
    Mutant(id="paisley_11_29_rate_sums_g",
           cites="Paisley et al. 2014, eq. 11.29 (b_kd = b0 + sum_v E[beta_vk], not sum_v g_vk)",
           path="methods/bnmf.py",
           find="return self.b0 + self.expected_beta().sum(axis=0)",
           replace="return self.b0 + self.g.sum(axis=0)",
           tests=[BNMF_Q_THETA]),
    # eq. 11.30: gradient in l_k
    Mutant(id="paisley_11_30_prior_dropped",
           cites="Paisley et al. 2014, eq. 11.30 (- l_k / sigma^2)",
           path="methods/cnmf.py",
           find='return scale * residual.T @ local["u"] - self.locations / self.sigma2',
           replace='return scale * residual.T @ local["u"]',
           tests=[CNMF_GRAD_L]),
    Mutant(id="paisley_11_30_topic_mass_dropped",
           cites="Paisley et al. 2014, eq. 11.30 (E[beta_vk] summed over v)",
           path="methods/cnmf.py",
           find='residual = local["expected"] - topic_mass * local["omega"]',
           replace='residual = local["expected"] - local["omega"]',
           tests=[CNMF_GRAD_L]),
    Mutant(id="paisley_11_30_stochastic_scale_dropped",
           cites="Paisley et al. 2014, eqs. 11.18, 11.30 (D/|C_t| on the data term)",
           path="methods/cnmf.py",
           find='return scale * residual.T @ local["u"] - self.locations / self.sigma2',
           replace='return residual.T @ local["u"] - self.locations / self.sigma2',
           tests=[CNMF_GRAD_L]),
    # eq. 11.31: gradient in u_d
    Mutant(id="paisley_11_31_prior_dropped",
           cites="Paisley et al. 2014, eq. 11.31 (- u_d)",
           path="topicbench/nmf_kernels.py",
           find="grad[i] = -u[i]",
           replace="grad[i] = 0.0",
           tests=[CNMF_GRAD_U]),
    Mutant(id="paisley_11_31_topic_mass_dropped",
           cites="Paisley et al. 2014, eq. 11.31 (E[beta_vk] summed over v)",
           path="topicbench/nmf_kernels.py",
           find="coef = expected[k] - topic_mass[k] * omega[k]",
           replace="coef = expected[k] - omega[k]",
           tests=[CNMF_GRAD_U]),
    # eq. 11.32: alpha_d in closed form
    Mutant(id="paisley_11_32_log_tokens_dropped",
           cites="Paisley et al. 2014, eq. 11.32 (ln sum_v X_vd)",
           path="topicbench/nmf_kernels.py",
           find="return math.log(n_tokens) - math.log(total) - top",
           replace="return -math.log(total) - top",
           tests=["tests/test_cnmf.py::test_local_step_converges_at_defaults"]),
    # eqs. 11.33-11.34: the stochastic natural-gradient steps
    Mutant(id="paisley_11_33_corpus_scale_dropped",
           cites="Paisley et al. 2014, eq. 11.33 (D/|C_t| sum_d X_vd p_k)",
           path="topicbench/nmf.py",
           find="self.c0 / self.n_words + scale * sstats.T",
           replace="self.c0 / self.n_words + sstats.T",
           tests=[BNMF_SVI]),
    Mutant(id="paisley_11_34_corpus_scale_dropped",
           cites="Paisley et al. 2014, eq. 11.34 (D/|C_t| sum_d E[omega_kd])",
           path="topicbench/nmf.py",
           find="rho * (self.c0 + scale * weight_mass)",
           replace="rho * (self.c0 + weight_mass)",
           tests=[BNMF_SVI]),
    Mutant(id="paisley_11_33_no_forgetting",
           cites="Paisley et al. 2014, eq. 11.33 ((1 - rho_t) g^(t-1))",
           path="topicbench/nmf.py",
           find="self.g = (1 - rho) * self.g + rho *",
           replace="self.g = self.g + rho *",
           tests=[BNMF_SVI]),
    Mutant(id="paisley_11_33_bnmf_scale_inverted",
           cites="Paisley et al. 2014, eqs. 11.33-11.34 (D/|C_t|, B-NMF)",
           path="methods/bnmf.py",
           find="scale = self.corpus_size / len(batch)  # D / |C_t|",
           replace="scale = len(batch) / self.corpus_size  # D / |C_t|",
           tests=[BNMF_SVI]),
    Mutant(id="paisley_11_33_cnmf_scale_inverted",
           cites="Paisley et al. 2014, eqs. 11.33-11.35 (D/|C_t|, C-NMF)",
           path="methods/cnmf.py",
           find="scale = self.corpus_size / len(batch)  # D / |C_t|",
           replace="scale = len(batch) / self.corpus_size  # D / |C_t|",
           tests=[CNMF_SVI]),
    Mutant(id="paisley_rho_t_from_zero",
           cites="Paisley et al. 2014, sec. 11.5.2 (rho_t = (t0 + t)^-kappa, t = 1, 2, ...)",
           path="topicbench/nmf.py",
           find='(self.hyper["tau0"] + self.updates + 1) ** -self.hyper["kappa"]',
           replace='(self.hyper["tau0"] + self.updates) ** -self.hyper["kappa"]',
           tests=["tests/test_bnmf.py::test_step_size_starts_at_t_equals_one",
                  "tests/test_cnmf.py::test_step_size_starts_at_t_equals_one"]),
    # eq. 11.35: the Newton step on l_k
    Mutant(id="paisley_11_35_locations_not_updated",
           cites="Paisley et al. 2014, eq. 11.35 (l^(t) = l^(t-1) + rho_t G grad)",
           path="methods/cnmf.py",
           find="self.locations = self.locations + rho * newton  # eq. 11.35",
           replace="self.locations = self.locations  # eq. 11.35",
           tests=[CNMF_NEWTON]),
    Mutant(id="paisley_11_35_step_without_rho",
           cites="Paisley et al. 2014, eq. 11.35 (l_k moves by rho_t times the Newton step, not the whole step)",
           path="methods/cnmf.py",
           find="self.locations = self.locations + rho * newton  # eq. 11.35",
           replace="self.locations = self.locations + newton  # eq. 11.35",
           tests=["tests/test_cnmf.py::test_location_step_is_rho_times_the_newton_step"]),
    Mutant(id="paisley_11_35_sign_flipped",
           cites="Paisley et al. 2014, eq. 11.35 (+ rho_t G grad)",
           path="methods/cnmf.py",
           find="self.locations = self.locations + rho * newton  # eq. 11.35",
           replace="self.locations = self.locations - rho * newton  # eq. 11.35",
           tests=[CNMF_NEWTON]),
    Mutant(id="paisley_11_35_precision_scale_dropped",
           cites="Paisley et al. 2014, eq. 11.35 (G^-1 has D/|C_t| on the data term)",
           path="methods/cnmf.py",
           find="np.eye(m) / self.sigma2 + scale * (weights.T @ outer)",
           replace="np.eye(m) / self.sigma2 + (weights.T @ outer)",
           tests=[CNMF_PRECISION]),
    Mutant(id="paisley_11_35_precision_prior_inverted",
           cites="Paisley et al. 2014, eq. 11.35 (G^-1 = sigma^-2 I + ...)",
           path="methods/cnmf.py",
           find="np.eye(m) / self.sigma2 + scale * (weights.T @ outer)",
           replace="np.eye(m) * self.sigma2 + scale * (weights.T @ outer)",
           tests=[CNMF_PRECISION]),
    # eq. 11.36: the correlation read-out
    Mutant(id="paisley_11_36_normalised_over_dimensions",
           cites="Paisley et al. 2014, eq. 11.36 (l_i'l_j / |l_i| |l_j|)",
           path="methods/cnmf.py",
           find="unit = locations / np.linalg.norm(locations, axis=1, keepdims=True)",
           replace="unit = locations / np.linalg.norm(locations, axis=0, keepdims=True)",
           tests=["tests/test_cnmf.py::test_correlation_readout_is_the_ctm_correlation"]),
    # the read-outs: the predictive (sec. 11.6), topic weights, the correlation read-out given fitted u
    Mutant(id="paisley_sec_11_6_bnmf_predictive_without_topic_mass",
           cites="Paisley et al. 2014, sec. 11.6 (p(w|d) ∝ sum_k E[theta_kd] E[beta_wk]: topic k weighs E[theta_kd] sum_v E[beta_vk])",
           path="methods/bnmf.py",
           find="weights = shape / self.weight_rate() * self.expected_beta().sum(axis=0)",
           replace="weights = shape / self.weight_rate()",
           tests=["tests/test_bnmf.py::test_predictions_are_the_q_mean_rates_normalised"]),
    Mutant(id="paisley_sec_11_6_bnmf_predictive_shape_not_mean",
           cites="Paisley et al. 2014, sec. 11.6 with eq. 11.29 (E[theta_kd] = a_kd / b_kd, not a_kd)",
           path="methods/bnmf.py",
           find="weights = shape / self.weight_rate() * self.expected_beta().sum(axis=0)",
           replace="weights = shape * self.expected_beta().sum(axis=0)",
           tests=["tests/test_bnmf.py::test_predictions_are_the_q_mean_rates_normalised"]),
    Mutant(id="paisley_sec_11_6_cnmf_predictive_without_topic_mass",
           cites="Paisley et al. 2014, sec. 11.6 (p(w|d) ∝ sum_k omega_kd E[beta_wk]: topic k weighs omega_kd sum_v E[beta_vk])",
           path="methods/cnmf.py",
           find="weights = np.exp(scores - scores.max(axis=1, keepdims=True)) * self.expected_beta().sum(axis=0)",
           replace="weights = np.exp(scores - scores.max(axis=1, keepdims=True))",
           tests=["tests/test_cnmf.py::test_predictions_are_the_point_estimate_rates_normalised"]),
    Mutant(id="paisley_11_25_topic_weights_prior_once_per_word",
           cites="Paisley et al. 2014, eq. 11.25 (g_vk = c0/V + ...: sum_v of the prior shape is c0)",
           path="topicbench/nmf.py", find="return self.g.sum(axis=0) - self.c0\n",
           replace="return self.g.sum(axis=0) - self.c0 / self.n_words\n",
           tests=["tests/test_bnmf.py::test_topic_weights_count_the_tokens_of_each_topic"]),
    Mutant(id="paisley_11_36_fitted_u_covariance_not_its_root",
           cites="Paisley et al. 2014, eq. 11.36 given fitted u (l_k -> Cov(u)^1/2 l_k, so Cov(y) = L Cov(u) L')",
           path="methods/cnmf.py",
           find="locations = locations @ (vectors * np.sqrt(np.maximum(values, 0.0))) @ vectors.T",
           replace="locations = locations @ (vectors * np.maximum(values, 0.0)) @ vectors.T",
           tests=["tests/test_cnmf.py::test_correlation_readout_given_u_is_the_fitted_y_correlation"]),
    # the NMF peers' predictive (topicbench/nmf.py, mixture_with_floor): the normalised reconstruction W H
    Mutant(id="nmf_peers_floor_over_topics_not_words",
           cites="the peers' predictive (1 - eps) (WH)_dw / sum_v (WH)_dv + eps / V (uniform over the V words)",
           path="topicbench/nmf.py", find="+ eps / topics_unnormalised.shape[1]",
           replace="+ eps / topics_unnormalised.shape[0]",
           tests=["tests/test_nmf_peers.py::test_mixture_with_floor_is_the_normalised_reconstruction_mixed_with_uniform"]),
    Mutant(id="nmf_peers_empty_document_uniform_over_topics",
           cites="the peers' predictive: a document with no weight takes the model's marginal sum_k H_kw / sum H",
           path="topicbench/nmf.py",
           find="weights = np.where(weights.sum(axis=1, keepdims=True) > 0, weights, mass[None, :])",
           replace="weights = np.where(weights.sum(axis=1, keepdims=True) > 0, weights, 1.0)",
           tests=["tests/test_nmf_peers.py::test_mixture_with_floor_is_the_normalised_reconstruction_mixed_with_uniform"]),
    # sec. 11.6's prior constants and start
    Mutant(id="paisley_sec_11_6_a0_over_v", cites="Paisley et al. 2014, sec. 11.6 (a0 = b0 = 1/K)", path="methods/bnmf.py",
           find='self.a0 = 1.0 / K if self.hyper["a0"] is None', replace='self.a0 = 1.0 / n_words if self.hyper["a0"] is None',
           tests=["tests/test_bnmf.py::test_defaults_are_sec_11_6"]),
    Mutant(id="paisley_sec_11_6_sigma2_over_k", cites="Paisley et al. 2014, sec. 11.6 (sigma^2 = 1/m)", path="methods/cnmf.py",
           find='self.sigma2 = 1.0 / m if self.hyper["sigma2"] is None', replace='self.sigma2 = 1.0 / K if self.hyper["sigma2"] is None',
           tests=["tests/test_cnmf.py::test_defaults_and_start_are_sec_11_6"]),
    Mutant(id="paisley_sec_11_6_locations_start_sd_is_variance",
           cites="Paisley et al. 2014, sec. 11.6 with eq. 11.13 (l_k ~ N(0, sigma^2 I): sd sigma)", path="methods/cnmf.py",
           find="self.locations = self.rng.normal(0.0, np.sqrt(self.sigma2), size=(K, m))",
           replace="self.locations = self.rng.normal(0.0, self.sigma2, size=(K, m))",
           tests=["tests/test_cnmf.py::test_defaults_and_start_are_sec_11_6"]),
    # -- the NMF peers (methods/sklearn_nmf.py, methods/gensim_nmf.py): their predictive and gensim's running statistics --
    Mutant(id="sklearn_nmf_weights_without_topic_mass", cites="the NMF peers' predictive: theta_dk proportional to "
           "W_dk sum_v H_kv, so that sum_k theta_dk phi_kw is the normalised rate (W H)_dw", path="methods/sklearn_nmf.py",
           find="weights = self.model.transform(observed.astype(np.float64)) * H.sum(axis=1)",
           replace="weights = self.model.transform(observed.astype(np.float64))",
           tests=["tests/test_nmf_peers.py::test_sklearn_nmf_predicts_the_normalised_reconstruction"]),
    Mutant(id="gensim_nmf_weights_without_topic_mass", cites="the NMF peers' predictive: theta_dk proportional to "
           "h_kd sum_w W_wk (the normalised rate (W h)_wd)", path="methods/gensim_nmf.py",
           find="mixture_with_floor(word_ids, h.T * W.sum(axis=0), W.T,", replace="mixture_with_floor(word_ids, h.T, W.T,",
           tests=[GENSIM_NMF]),
    Mutant(id="gensim_nmf_running_mean_overweights_the_past", cites="gensim Nmf.update (Zhao and Tan's online NMF): "
           "A_t = ((t - 1) A_{t-1} + h h') / t", path="methods/gensim_nmf.py",
           find="m.A = (m.A * (t - 1) + m._h.dot(m._h.T)) / t", replace="m.A = (m.A * t + m._h.dot(m._h.T)) / t",
           tests=[GENSIM_NMF]),
    Mutant(id="gensim_nmf_chunk_index_from_two", cites="gensim Nmf.update's chunk_overall_idx (t from 1: A_1 = h h')",
           path="methods/gensim_nmf.py", find="t = self.updates + 1  #", replace="t = self.updates + 2  #",
           tests=[GENSIM_NMF]),
    Mutant(id="sklearn_nmf_forget_factor_inverted", cites="scikit-learn MiniBatchNMF's forget_factor (its rho: the "
           "weight the running statistics keep per minibatch), as the peer's hyperparameter", path="methods/sklearn_nmf.py",
           find='forget_factor=float(h["forget_factor"])', replace='forget_factor=1 - float(h["forget_factor"])',
           tests=["tests/test_nmf_peers.py::test_sklearn_nmf_is_minibatchnmf_with_its_hyperparameters"]),
    Mutant(id="gensim_nmf_running_mean_b_overweights_the_past", cites="gensim Nmf.update (Zhao and Tan's online NMF): "
           "B_t = ((t - 1) B_{t-1} + v h') / t", path="methods/gensim_nmf.py",
           find="m.B = (m.B * (t - 1) + v.dot(m._h.T)) / t", replace="m.B = (m.B * t + v.dot(m._h.T)) / t",
           tests=["tests/test_nmf_peers.py::test_gensim_nmf_keeps_the_running_mean_of_v_h"]),
    Mutant(id="planted_logistic_normal_softmax_shifted_over_documents", cites="Paisley et al. 2014, eqs. 11.10-11.12 "
           "(the planted C-NMF corpus: theta_d = softmax(y_d), y_d ~ N(mean, covariance))", path="topicbench/synthetic.py",
           find="theta = np.exp(y - y.max(axis=1, keepdims=True))", replace="theta = np.exp(y - y.max(axis=0, keepdims=True))",
           tests=["tests/test_cnmf.py::test_logistic_normal_generator_log_ratios_are_the_planted_gaussian"]),
    # -- eighth red-team (mutant8): the B-NMF bound's terms, sec. 11.6's start, C-NMF's S_k and Newton precision ------------
    Mutant(id="paisley_11_23_bnmf_p_entropy_dropped",
           cites="Paisley et al. 2014, eq. 11.23 (the bound with p given: sum_k p_k (E ln beta + E ln theta - ln p_k))",
           path="methods/bnmf.py", find="+ elog_theta[rows] - np.log(np.maximum(p, 1e-300)))", replace="+ elog_theta[rows])",
           tests=["tests/test_bnmf.py::test_elbo_matches_direct_sum"]),
    Mutant(id="paisley_11_23_bnmf_p_entropy_sign", cites="Paisley et al. 2014, eq. 11.23 (- ln p_k inside the bound)",
           path="methods/bnmf.py", find="+ elog_theta[rows] - np.log(np.maximum(p, 1e-300)))",
           replace="+ elog_theta[rows] + np.log(np.maximum(p, 1e-300)))",
           tests=["tests/test_bnmf.py::test_elbo_matches_direct_sum"]),
    Mutant(id="paisley_bnmf_gamma_entropy_sign", cites="Paisley et al. 2014, eq. 11.14 (H[Gamma(a, b)] = a - ln b + ln "
           "Gamma(a) + (1 - a) psi(a))", path="methods/bnmf.py",
           find="+ gammaln(shape) + (1 - shape) * digamma(shape)", replace="+ gammaln(shape) + (shape - 1) * digamma(shape)",
           tests=["tests/test_bnmf.py::test_elbo_matches_direct_sum"]),
    Mutant(id="paisley_bnmf_prior_rate_dropped", cites="Paisley et al. 2014, eq. 11.14 (E ln Gamma(x | a, b) has - b E[x])",
           path="methods/bnmf.py", find="(shape0 - 1) * elog_x.sum() - rate0 * e_x.sum()",
           replace="(shape0 - 1) * elog_x.sum() - e_x.sum()",
           tests=["tests/test_bnmf.py::test_elbo_matches_direct_sum"]),
    Mutant(id="paisley_bnmf_poisson_rate_summed_over_everything", cites="Paisley et al. 2014, eq. 11.14 (the Poisson "
           "rate sum_vd sum_k E[beta_vk] E[theta_kd], paired by k)", path="methods/bnmf.py",
           find="value -= float(e_beta.sum(axis=0) @ e_theta.sum(axis=0))", replace="value -= float(e_beta.sum() * e_theta.sum())",
           tests=["tests/test_bnmf.py::test_elbo_matches_direct_sum"]),
    Mutant(id="paisley_sec_11_6_h_start_unscaled", cites="Paisley et al. 2014, sec. 11.6 (the prior plus Uniform(0,1) "
           "scaled as a minibatch's statistics)", path="topicbench/nmf.py",
           find="self.h = self.c0 + scale * self.rng.uniform(size=K)", replace="self.h = self.c0 + self.rng.uniform(size=K)",
           tests=[INIT + "[bnmf]"]),
    Mutant(id="paisley_sec_11_6_g_start_unscaled", cites="Paisley et al. 2014, sec. 11.6 (the prior plus Uniform(0,1) "
           "scaled as a minibatch's statistics)", path="topicbench/nmf.py",
           find="self.g = self.c0 / V + scale * self.rng.uniform(size=(V, K))",
           replace="self.g = self.c0 / V + self.rng.uniform(size=(V, K))", tests=[INIT + "[bnmf]"]),
    Mutant(id="paisley_sec_11_6_g_start_prior_c0", cites="Paisley et al. 2014, sec. 11.6 with eq. 11.25 (the prior "
           "shape of beta_vk is c0/V)", path="topicbench/nmf.py", find="self.g = self.c0 / V + scale",
           replace="self.g = self.c0 + scale", tests=[INIT + "[bnmf]"]),
    Mutant(id="paisley_sec_11_6_cnmf_start_unscaled", cites="Paisley et al. 2014, sec. 11.6 (C-NMF's start scaled by "
           "D/|C_t|)", path="methods/cnmf.py", find="self.init_topics(self.corpus_size / self.batch_size)",
           replace="self.init_topics(1.0)", tests=[INIT + "[cnmf]"]),
    Mutant(id="paisley_sec_11_6_bnmf_start_scaled_by_d", cites="Paisley et al. 2014, sec. 11.6 (scaled by D/|C_t|, "
           "not D)", path="methods/bnmf.py",
           find="self.init_topics(self.corpus_size / (self.batch_size or self.corpus_size))",
           replace="self.init_topics(self.corpus_size)", tests=[INIT + "[bnmf]"]),
    Mutant(id="paisley_11_35_precision_without_sigma", cites="Paisley et al. 2014, eq. 11.35 (G^-1 = sigma^-2 I + ...)",
           path="methods/cnmf.py", find="return np.eye(m) / self.sigma2 + scale", replace="return np.eye(m) + scale",
           tests=[CNMF_PRECISION + "[1.0]"]),
    Mutant(id="paisley_11_30_topic_mass_without_h", cites="Paisley et al. 2014, eqs. 11.30-11.31 (S_k = sum_v g_vk / h_k)",
           path="methods/cnmf.py", find="return self.g.sum(axis=0) / self.h", replace="return self.g.sum(axis=0)",
           tests=["tests/test_cnmf.py::test_topic_mass_is_the_expected_beta_summed_over_words"]),
    Mutant(id="paisley_sec_11_5_1_topic_mass_sums_exp_elog_beta", cites="Paisley et al. 2014, sec. 11.5.1 (S_k = sum_v "
           "E[beta_vk] = sum_v g_vk / h_k, not sum_v exp E ln beta_vk)", path="topicbench/nmf_kernels.py",
           find="partial[chunk, k] += g[v, k]", replace="partial[chunk, k] += out[v, k]",
           tests=["tests/test_cnmf.py::test_gamma_topic_expectations_match_scipy"]),
    # -- ninth red-team (mutant9): a short last minibatch is scaled by D over its own size --
    Mutant(id="paisley_11_33_bnmf_short_minibatch_scaled_by_batch_size", cites="Paisley et al. 2014, eqs. 11.33-11.34 "
           "(D/|C_t|, |C_t| the minibatch's documents)", path="methods/bnmf.py",
           find="scale = self.corpus_size / len(batch)  # D / |C_t|",
           replace="scale = self.corpus_size / (self.batch_size or len(batch))  # D / |C_t|",
           tests=["tests/test_bnmf.py::test_short_minibatch_is_scaled_by_its_own_size"]),
    Mutant(id="paisley_11_33_cnmf_short_minibatch_scaled_by_batch_size", cites="Paisley et al. 2014, eqs. 11.33-11.35 "
           "(D/|C_t|, |C_t| the minibatch's documents)", path="methods/cnmf.py",
           find="scale = self.corpus_size / len(batch)  # D / |C_t|",
           replace="scale = self.corpus_size / self.batch_size  # D / |C_t|",
           tests=["tests/test_cnmf.py::test_short_minibatch_is_scaled_by_its_own_size"]),
    Mutant(id="sklearn_nmf_predict_conditions_on_the_heldout_words", cites="document completion (DESIGN.md): W from the "
           "observed part, not from the words scored", path="methods/sklearn_nmf.py",
           find="weights = self.model.transform(observed.astype(np.float64)) * H.sum(axis=1)",
           replace="weights = self.model.transform(word_ids.astype(np.float64)) * H.sum(axis=1)",
           tests=["tests/test_nmf_peers.py::test_sklearn_nmf_predicts_the_normalised_reconstruction"]),
    Mutant(id="gensim_nmf_predict_conditions_on_the_heldout_words", cites="document completion (DESIGN.md): h from the "
           "observed part, not from the words scored", path="methods/gensim_nmf.py",
           find="h = m._solveproj(observed.T.tocsc().astype(np.float64), W, v_max=np.inf)",
           replace="h = m._solveproj(word_ids.T.tocsc().astype(np.float64), W, v_max=np.inf)", tests=[GENSIM_NMF]),
    # the NMF peers' hyperparameter mapping where the plugins' defaults equal the libraries' (no default run moves)
    Mutant(id="gensim_nmf_gradient_step_scale_fixed", cites="gensim Nmf's W step eta = kappa / ||A|| (Zhao and Tan 2016)",
           path="methods/gensim_nmf.py", find='kappa=float(h["kappa"]), w_max_iter', replace="kappa=1.0, w_max_iter",
           tests=["tests/test_nmf_peers.py::test_nmf_peer_hyperparameters_reach_the_library"]),
    Mutant(id="gensim_nmf_columns_not_normalised", cites="gensim Nmf: W's columns kept in the unit L2 ball (normalize)",
           path="methods/gensim_nmf.py", find="normalize=True, random_state", replace="normalize=False, random_state",
           tests=["tests/test_nmf_peers.py::test_nmf_peer_hyperparameters_reach_the_library"]),
    Mutant(id="sklearn_nmf_prediction_solve_cap_dropped", cites="sklearn_nmf's predictive: W of the observed part "
           "solved to tol or transform_max_iter", path="methods/sklearn_nmf.py",
           find='transform_max_iter=int(h["transform_max_iter"])', replace="transform_max_iter=None", tests=["tests/test_nmf_peers.py::test_nmf_peer_hyperparameters_reach_the_library"]),
    # -- twelfth red-team (mutant12, generated single-token mutants) -------------------------------------------------
    Mutant(id="cnmf_proportions_without_the_max_shift", cites="Paisley et al. 2014, sec. 11.6 (omega_kd = exp(l_k'u_d) "
           "normalised over k; the shift keeps exp finite)", path="methods/cnmf.py",
           find="np.exp(scores - scores.max(axis=1, keepdims=True))", replace="np.exp(scores)",
           tests=["tests/test_cnmf.py::test_predictions_are_the_point_estimate_rates_normalised"]),
    Mutant(id="bnmf_progress_reports_the_second_pass_bound", cites="Paisley et al. 2014, eqs. 11.14/11.23 (the batch "
           "bound after the last pass, the trace's train_elbo)", path="methods/bnmf.py",
           find='out["train_elbo"] = self.elbo_trace[-1]', replace='out["train_elbo"] = self.elbo_trace[1]',
           tests=["tests/test_bnmf.py::test_batch_mode_keeps_q_theta_between_passes"]),
    # fifteenth red-team (mutant15a): the NMF peers' state bookkeeping
    Mutant(id='sklearn_nmf_updates_counted_down', cites="the state's updates: MiniBatchNMF's n_steps_ on restore",
           path='methods/sklearn_nmf.py', find='        self.updates += 1\n',
           replace='        self.updates -= 1\n',
           tests=['tests/test_peer_equations.py::test_peer_state_counts_its_steps_and_restores_the_same_model[sklearn_nmf]']),
    Mutant(id='gensim_nmf_documents_seen_counted_down', cites="the state's documents seen",
           path='methods/gensim_nmf.py', find='        self.docs_seen += len(batch)\n',
           replace='        self.docs_seen -= len(batch)\n',
           tests=['tests/test_peer_equations.py::test_peer_state_counts_its_steps_and_restores_the_same_model[gensim_nmf]']),
    # mutant18: eq. 11.23's terms where a float is exactly 0, and E[ln beta] (sec. 11.5.1)
    Mutant(id="bnmf_bound_rate_guard_subtracted", cites="Paisley et al. 2014, eq. 11.23 with the optimal p (11.24): log of a zero rate",
           path="methods/bnmf.py", find="np.log(probs + 1e-300)", replace="np.log(probs - 1e-300)", tests=[BNMF_FLOOR]),
    Mutant(id="bnmf_bound_rate_guard_dropped", cites="Paisley et al. 2014, eq. 11.23 with the optimal p (11.24): log of a zero rate",
           path="methods/bnmf.py", find="np.log(probs + 1e-300)", replace="np.log(probs + 0)", tests=[BNMF_FLOOR]),
    Mutant(id="bnmf_bound_p_log_p_unguarded", cites="Paisley et al. 2014, eq. 11.23: p ln p = 0 at p = 0",
           path="methods/bnmf.py", find="np.log(np.maximum(p, 1e-300))", replace="np.log(np.maximum(p, 0))", tests=[BNMF_FLOOR]),
    Mutant(id="elog_beta_without_digamma", cites="Paisley et al. 2014, sec. 11.5.1: E[ln beta_vk] = psi(g_vk) - ln h_vk",
           path="topicbench/nmf.py", find="return digamma(self.g) - np.log(self.h)", replace="return (-(np.log(self.h)))",
           tests=["tests/test_bnmf.py::test_elbo_matches_direct_sum"]),
    Mutant(id="gensim_nmf_h_stop_condition_not_gensims", cites="gensim Nmf(h_stop_condition=1e-3): the peer runs gensim's own default",
           path="methods/gensim_nmf.py", find='"h_stop_condition": 1e-3,', replace='"h_stop_condition": 2e-3,',
           tests=["tests/test_nmf_peers.py::test_nmf_peer_defaults_are_the_libraries_own"]),
    Mutant(id="sklearn_nmf_transform_max_iter_not_sklearns", cites="sklearn MiniBatchNMF: transform runs max_iter = 200 steps "
           "when transform_max_iter is None", path="methods/sklearn_nmf.py", find='"transform_max_iter": 200,',
           replace='"transform_max_iter": 201,', tests=["tests/test_nmf_peers.py::test_nmf_peer_defaults_are_the_libraries_own"]),
    # nineteenth red-team (kmut19, kernel round 3): see the comment at the end of this file
    Mutant(id="cnmf_bfgs_update_without_the_curvature_guard",
           cites="Nocedal and Wright 2006, eq. 6.17 (H stays positive definite only if s'y > 0; skipped otherwise)",
           path="topicbench/nmf_kernels.py", find="if sy > 1e-12 * t * t * slope:", replace="if True:",
           tests=["tests/test_cnmf.py::test_bfgs_skips_the_update_where_the_curvature_condition_fails"]),
    Mutant(id="cnmf_warm_start_rotated_the_wrong_way",
           cites="Paisley et al. 2014, sec. 11.5.1 (u_d's ascent starts at the given u_d; u = V z, so z = V'u)",
           path="topicbench/nmf_kernels.py", find="else np.asarray(u, dtype=np.float64) @ rotation",
           replace="else np.asarray(u, dtype=np.float64) @ rotation.T",
           tests=["tests/test_cnmf.py::test_warm_start_begins_at_the_given_u"]),
    Mutant(id="paisley_11_24_cnmf_gradient_p_unnormalised",
           cites="Paisley et al. 2014, eqs. 11.24, 11.31 (p_k^(vd) normalised over k: X_vd / phinorm_v)",
           path="topicbench/nmf_kernels.py", find="weight[j] = cts[j] / phinorm[j]", replace="weight[j] = cts[j]",
           tests=[CNMF_GRAD_U]),
    Mutant(id="paisley_11_32_topic_mass_dropped",
           cites="Paisley et al. 2014, eq. 11.32 (alpha_d = ln N_d - ln sum_k S_k exp(l_k'u_d))",
           path="topicbench/nmf_kernels.py", find="total = _dot(topic_mass, scores)", replace="total = np.sum(scores)",
           tests=["tests/test_cnmf.py::test_local_step_ascends_to_a_stationary_point"]),
    Mutant(id="paisley_11_24_bnmf_rate_exponentiated",
           cites="Paisley et al. 2014, eq. 11.24 (B-NMF, exp(E ln theta) = exp(psi(a)) / b, not exp(psi(a) - b))",
           path="topicbench/nmf_kernels.py", find="(exp_elog_beta / rate[:, None]).T",
           replace="(exp_elog_beta * np.exp(-rate[:, None])).T", tests=[BNMF_Q_THETA]),
    # audit21: the priors given are the priors used (the tests read a0, b0 and c0 back from the method, and c0 ran only
    # at its default)
    Mutant(id="paisley_11_28_a0_read_from_b0", cites="Paisley et al. 2014, eq. 11.28 (a_kd = a0 + sum_v X_vd p_k, a0 as "
           "given)", path="methods/bnmf.py",
           find='self.a0 = 1.0 / K if self.hyper["a0"] is None else float(self.hyper["a0"])',
           replace='self.a0 = 1.0 / K if self.hyper["a0"] is None else float(self.hyper["b0"])', tests=[BNMF_Q_THETA]),
    Mutant(id="paisley_11_29_b0_read_from_a0", cites="Paisley et al. 2014, eq. 11.29 (b_kd = b0 + sum_v E[beta_vk], b0 as "
           "given)", path="methods/bnmf.py", find='else float(self.hyper["b0"])', replace='else float(self.hyper["a0"])',
           tests=[BNMF_Q_THETA]),
    Mutant(id="paisley_11_25_c0_hard_coded", cites="Paisley et al. 2014, eqs. 11.7, 11.25 (beta_vk ~ Gamma(c0/V, c0), c0 = "
           "c0_per_word V as given; 0.05 V is only sec. 11.6's default)", path="topicbench/nmf.py",
           find='self.c0 = float(self.hyper["c0_per_word"]) * V', replace='self.c0 = 0.05 * V',
           tests=["tests/test_bnmf.py::test_topic_weights_count_the_tokens_of_each_topic"]),
]
# verified killed, not registered (recompile cost): id -- find -> replace -- killed by node (tests/test_cnmf.py::)
# n_value_u_prior_no_half -- "value -= 0.5 * u[i] * u[i]" -> "value -= u[i] * u[i]" -- test_objective_matches_direct_formula
# n_value_no_top -- "n_tokens * (alpha + top)" -> "n_tokens * alpha" -- test_objective_matches_direct_formula
# n_scores_not_shifted -- "math.exp(scores[k] - top)" -> "math.exp(scores[k])" -- test_objective_matches_direct_formula
# n_grad_scale_no_top -- "scale = math.exp(alpha + top)" -> "math.exp(alpha)" -- test_gradient_u_matches_finite_differences
# n_mass_not_over_h -- "return out, mass / h" -> "return out, mass" -- test_gamma_topic_expectations_match_scipy
# n_sum_by_word_token_index -- "token_weight[token_of[q]]" -> "token_weight[q]" -- test_learns_beyond_unigram
# n_doc_weight_no_count -- "phinorm[j] = cts[j] / phinorm[j]  # X_vd" -> "1.0 / phinorm[j]" -- test_global_beta_step_is_stationary
# n_expected_no_scores -- "expected[k] *= scores[k]" -> "*= 1.0" -- test_gradient_u_matches_finite_differences
# n_sstats_no_beta -- '"sstats": sstats_t.T * exp_elog_beta' -> '"sstats": sstats_t.T' -- test_learns_beyond_unigram

# ninth red-team (mutant9), verified killed, not registered (recompile cost):
# n_bnmf_rate_multiplied -- "exp_elog_beta / rate[:, None], a0" -> "exp_elog_beta * rate[:, None], a0" -- tests/test_bnmf.py::test_local_step_is_stationary_in_q_theta
# n_cnmf_u_rotated_back_wrong -- 'return {"u": z @ rotation.T,' -> 'return {"u": z @ rotation,' -- tests/test_cnmf.py::test_local_step_ascends_to_a_stationary_point

# tenth red-team (kernel10), verified killed by tests already in the suite, not registered (tests/test_cnmf.py::):
# n_best_alpha_top_sign -- "math.log(n_tokens) - math.log(total) - top" -> "+ top" -- test_local_step_ascends_to_a_stationary_point
# n_best_alpha_tokens_not_logged -- "math.log(n_tokens) - math.log(total)" -> "n_tokens - math.log(total)" -- same
# n_grad_coef_sign (eq. 11.31) -- "coef = expected[k] - topic_mass[k] * omega[k]" -> "+" -- test_gradient_u_matches_finite_differences
# n_grad_omega_no_mass -- "coef = expected[k] - topic_mass[k] * omega[k]" -> "expected[k] - omega[k]" -- same
# n_grad_no_prior -- "grad[i] = -u[i]" -> "0.0" -- same
# n_bfgs_rho_once -- "coef = rho * rho * yhy + rho" -> "rho * yhy + rho" -- test_local_step_converges_at_defaults
# n_gte_partial_not_over_chunks -- "partial[chunk, k] += g[v, k]" -> "+= out[v, k]" -- test_gamma_topic_expectations_match_scipy
# n_scores_top_min -- "top = max(top, scores[k])" -> "min" -- test_objective_matches_direct_formula
# Survivors judged not equation errors: n_armijo_sign ("value + 1e-4 * t * slope" -> "value - ..."), which lets the
# BFGS line search accept small descents but still stops on |eq. 11.31| <= tol N_d at the same stationary point, and
# n_stop_tol_not_scaled ("<= tol * n_tokens" -> "<= tol"), a stricter stop: more steps, the same point.
# eleventh red-team (mutant11), killed by the suite as it stood, not registered: + ln h and ln g for psi(g) in E ln beta,
# c0 for c0/V in eq. 11.33, no forgetting of h and c0/V for c0 in eq. 11.34, rho's exponent sign and t + 2, topics
# over axis 0, h_0 at c0/V, a0 or b0 default 1, E[beta] for exp E ln beta in the local step, a0 for b0 in eq. 11.29,
# log for psi in E ln theta, shape * rate for E[theta], ln X! of X, the prior's shape/rate swapped (beta and theta),
# ln Gamma sign / (shape - 1) / shape ln rate in the Gamma prior term, entropy signs, q(beta)'s entropy at rate c0,
# the predictive normalised over axis 0 or with shape * rate; C-NMF: sigma^2 for 1/sigma^2 in eq. 11.30, the topic
# mass dropped from G^-1, the score shift and normalisation over axis 0, Cov(u) of rowvar=True, unit.T @ unit,
# mean for sum in S_k, scale on the prior in eqs. 11.30 and 11.35.
# Equivalent, not registered: B-NMF's flat start a_kd = a0 + N_d/K -> b0 + ..., N_d/V, N_d (any start constant in k
# gives the same first p, eq. 11.24, so the same iterates;
# only the first sweep's change test reads the start, and that sweep moves a far from any of them); C-NMF's Cov(u)^1/2 with "@ vectors.T" -> "@ vectors"
# (M M' = V Lambda V' either way, and eq. 11.36 reads only L M M' L').
# twelfth red-team (mutant12, generated single-token mutants; see tests/mutants/lda.py), NMF survivors not registered.
# Equivalent: B-NMF's flat start with a0 dropped or N_d * K (above: any start constant in k); "/ np.ones(K)" for
# "* np.ones(K)"; the predictive's sum -> mean over words of E[beta] (B-NMF) and C-NMF's proportions (a factor
# constant in k, normalised away); mixture_with_floor's "weights.mean(...) > 0" (the same sign as the sum, weights
# >= 0); the 1e-300 guards (sign, x2, 0); first_step 1 -> 2 (tau0 > 0 is required anyway); "+ max" / "- min" in the
# score shift, now killed (registered: the shift dropped). Settings, not the chapter's: local_tol and local_max_iter.
# Killed, not registered (cost or a repeat of a registered guard): docs_seen -= |batch| (B-NMF, C-NMF), train_elbo
# of elbo_trace[-2] or [0], K and |C_t| defaults (Fig. 11.4's 100 and 1000), first_step 0 (tau0 = 0.5 refused),
# mixture_with_floor's "> 1" for "> 0". E ln beta with psi(g) dropped segfaults the kernel (exit -11).

# seventeenth red-team (kmut17, kernel round 2): 36 mutants of nmf_kernels.py (C-NMF local step), each run with a fresh
# numba cache, not registered (recompile cost). C = tests/test_cnmf.py::. Killed by tests already in the suite:
# n_gte_exp_c_sign ("y * math.exp(-c) / h[k]" -> "exp(c)"), n_gte_mass_last_chunk ("mass[k] += partial" -> "=") -- C test_gamma_topic_expectations_match_scipy
# n_scores_sign ("scores[k] += ui * row[k]" -> "-="), n_scores_u0 ("ui = u[i]" -> "u[0]"), n_scores_start_one (scores start
#   at 1.0: killed because cnmf_objective takes alpha_d as given), n_value_count_dropped ("cts[j] * math.log(phinorm[j])" ->
#   "math.log(...)"), n_value_tokens_count_one ("n_tokens += cts[j]" -> "+= 1.0" in _cnmf_value), n_value_mass_sign
#   ("- math.exp(alpha + top) * _dot" -> "+"), n_value_exp_top_sign ("exp(alpha + top)" -> "exp(alpha - top)") -- C test_objective_matches_direct_formula
# eq. 11.31: n_grad_weight_no_count ("weight[j] = cts[j] / phinorm[j]" -> "1.0 / phinorm[j]"), n_grad_tail_topic_shift
#   ("_dot(weight, sub[k])" -> "sub[k - 1]"), n_grad_dot4_swap ("e0, e1, e2, e3" -> "e0, e1, e3, e2"), n_grad_scale_top_sign
#   ("scale = math.exp(alpha + top)" -> "alpha - top"), n_grad_omega_no_scale ("omega[k] = scale * scores[k]" -> "scores[k]"),
#   n_grad_sign ("grad[i] += coef * locations[k, i]" -> "-="), n_grad_loc_col0 ("locations[k, i]" -> "locations[k, 0]") -- C test_gradient_u_matches_finite_differences
# eq. 11.32: n_best_alpha_total_sign ("- math.log(total) - top" -> "+ math.log(total)") -- C test_local_step_ascends_to_a_stationary_point
# n_cnmf_doc_tokens_one (_cnmf_doc "n_tokens += cts[j]" -> "+= 1.0") -- same
# BFGS (Nocedal and Wright eq. 6.17): n_bfgs_coef_rho_sign ("rho * rho * yhy + rho" -> "- rho"), n_bfgs_cross_sign
#   ("- rho * (hy[i] * s[p] + ...)" -> "+"), n_bfgs_cross_index ("s[i] * hy[p]" -> "s[i] * hy[i]") -- C test_local_step_ascends_to_a_stationary_point;
#   n_bfgs_yhy_s ("yhy += y[i] * hy[i]" -> "s[i] * hy[i]"), n_bfgs_pair_sign ("pair[i] = grad[i] - new_grad[i]" -> reversed),
#   n_bfgs_no_hessian ("direction[i] = _dot(inv_hessian[i], grad)" -> "grad[i]"), n_bfgs_curv_inverted ("if sy > 1e-12 * ..."
#   -> "<"), n_stop_tol_x1000 ("<= tol * n_tokens" -> "<= 1e3 * tol * n_tokens") -- C test_local_step_converges_at_defaults
# sec. 11.5.1's steepest ascent: n_first_step_one ("step = 1.0 / (1.0 + n_tokens)" -> "1.0"), n_ascent_tol_1e-2 (ASCENT_TOL
#   1e-5 -> 1e-2), n_ascent_stop_inverted ("if gain <= ASCENT_TOL" -> ">"), n_ascent_descends ("u[i] + step * grad[i]" ->
#   "-") -- C test_local_step_keeps_the_steepest_ascents_maximum
# Survived the suite, real gaps, killed by tests added in kmut17:
# n_final_refresh_inverted ("if not current:  # scores" -> "if current:") -- after a rejected last trial the global
#   statistics used that trial's scores and phinorm -- C test_local_step_outputs_are_eq_11_24_at_the_returned_point
# n_empty_alpha_zero ("alpha[d] = -np.inf" -> "0.0", an empty document) -- same
# n_sum_by_word_no_weight (_sum_by_word "row[k] += weight * source[k]" -> "source[k]") -- same (first to fail under -x)
# n_h0_no_tokens ("1.0 / (1.0 + n_tokens * curvature[i])" -> "1.0 / (1.0 + curvature[i])") -- C test_bfgs_starts_from_the_concave_parts_curvature
# n_curv_q_unnormalised ("q = topic_mass / topic_mass.sum()" -> "q = topic_mass"), n_curv_uncentred ("centred = locations -
#   q @ locations" -> "locations") -- same (run against the new tests only: like n_h0_no_tokens they change only BFGS's
#   start, so the suite's fixed-point tests are not expected to see them)
# later in kmut17: n_bfgs_rho_plus1 ("rho = 1.0 / sy" -> "1.0 / (sy + 1.0)") -- C test_local_step_converges_at_defaults;
# n_ascent_halving_quarter ("step *= 0.5" -> "0.25") -- C test_local_step_outputs_are_eq_11_24_at_the_returned_point (its path check)
# n_bfgs_s_not_scaled ("direction[i] *= t" -> "*= 1.0": the BFGS pair's s without the line search's t) survived the
#   suite (t = 1 in most steps, and a poorer H only lengthens the path); killed by C test_bfgs_update_meets_the_secant_equation
#   (H_1 y = s after a step with t = 1/2), which also kills n_bfgs_cross_index directly
# Survivor judged not an equation error: n_slope_gg (Armijo's "slope += grad[i] * direction[i]" -> "grad[i] * grad[i]"),
#   like n_armijo_sign above: it moves only the acceptance threshold 1e-4 t slope of an ascent step, and the step still
#   stops on |eq. 11.31| <= tol N_d at the same stationary point (C test_local_step_converges_at_defaults passes).

# nineteenth red-team (kmut19, kernel round 3): 32 more mutants of nmf_kernels.py, one at a time, fresh numba cache each.
# Killed by tests already in the suite (C = tests/test_cnmf.py::, B = tests/test_bnmf.py::), not registered (cost):
# sec. 11.5.1: S_k = sum_v 1/h ("+= g[v, k]" -> "+= 1.0"), "/ h[k]" -> "* h[k]", exp(ln g) for exp(psi(g)) -- C test_gamma_topic_expectations_match_scipy
# eq. 11.32: "- top" dropped, ln total -> total -- C test_local_step_ascends_to_a_stationary_point
# objective: |u|^2/2 sign, N_d dropped from N_d (alpha + top), S_k dropped from sum_k S_k omega_kd -- C test_objective_matches_direct_formula
# eq. 11.31: omega_kd = alpha + l_k'u for exp(.), prior +u_d and -2 u_d -- C test_gradient_u_matches_finite_differences
# the stopping rule: |grad|^2 <= tol N_d, |grad| <= tol / N_d -- C test_local_step_converges_at_defaults
# the ascent's step not grown (x1.0), the global weight X_vd without / phinorm_v, sstats rows omega (not scores),
#   sstats / S_k -- C test_local_step_outputs_are_eq_11_24_at_the_returned_point; BFGS rho = s'y for 1/s'y -- C
#   test_bfgs_update_meets_the_secant_equation; H_0 = I -- C test_bfgs_starts_from_the_concave_parts_curvature
# B-NMF: 1/ln b for 1/b -- B test_planted_gamma_poisson_recovery; a0 -> 0 -- B test_batch_elbo_never_decreases
# Survived the suite, real gaps, now killed and registered above: the unguarded BFGS update, the warm start's rotation.
# Survivors judged equivalent or not equation errors: Armijo without t ("1e-4 * t * slope" -> "1e-4 * slope": a
# stricter acceptance threshold, the same stop |eq. 11.31| <= tol N_d at the same point) and ">=" -> ">" (ties only);
# the curvature guard at s'y > 0 (differs from 1e-12 t^2 slope by rounding); phase 1's stop gain <= ASCENT_TOL
# absolute, not relative (ASCENT_TOL is the code's basin heuristic, not the chapter's; the same fixed point, and
# test_local_step_keeps_the_steepest_ascents_maximum passes); phase 1 acceptance ">" for ">=" (ties only);
# np.abs for np.maximum(., 0) on Cov_q(l)'s eigenvalues (a PSD matrix: negatives are ~1e-17 rounding).

# audit21 (equation-by-equation audit against Paisley et al. 2014, ch. 11), 28 candidates on methods/bnmf.py, cnmf.py
# and topicbench/nmf.py. Killed by the suite as it stood, not registered: eq. 11.35's step as G^-1 grad (Hessian times
# gradient), q(beta) stepped before the Newton step reads S_k (the whole step, not only its assignment: moving only
# "locations +=" after topic_step is equivalent, the step was computed first), G^-1 without S_k, eq. 11.30 with
# sigma^2 for 1/sigma^2, sigma2 inverted, l_k started at sd 1, c0 = 0.05 / V, the predictive's E[theta] over b0 alone,
# C-NMF's proportions without exp, the bound with b_k = b0, H[q(theta)] at rate b0, Gamma(c0, c0) on beta, H[q(beta)] at
# the mean h, the prior term counted once, each of the bound's five terms dropped, rho_t = (tau0 t)^-kappa, topic
# weights over h, Cov(u)^-1/2 for Cov(u)^1/2. Equivalent: B-NMF's flat start with b0 (as above: any start constant in k).
