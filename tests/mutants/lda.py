"""Equation mutants of the LDA family: online and batch LDA (Hoffman, Blei and Bach 2010, Algs. 1-2, eqs. 4-6, 16),
population VB (McInerney, Ranganath and Blei 2015, Alg. 1, eqs. 2 and 8), streaming VB (Broderick et al. 2013,
sec. 2.1) and the shared E step and M step kernels. Each is a plausible slip in one equation; the listed tests
(the fastest that catch it, run in order with -x) must fail. Run by tests/test_equation_mutants.py.
"""
from tests.mutants import Mutant

EQ = "tests/test_equations_lda.py::"
ONLINE = EQ + "test_online_lda_step_matches_alg2_by_hand"
RHO = EQ + "test_online_lda_step_size_is_tau0_plus_t_to_the_minus_kappa"
BATCH = EQ + "test_batch_lda_m_step_is_eta_plus_reference_sstats"
BOUNDS = EQ + "test_bounds_match_eq4_term_by_term"
PVB = EQ + "test_population_vb_step_matches_alg1_by_hand"
PVB_MASS = EQ + "test_population_size_sets_the_posterior_mass"
SVB_MASS = EQ + "test_streaming_vb_mass_counts_every_token_seen"
SVB_BOUND = EQ + "test_streaming_vb_bound_is_eq4_under_the_previous_posterior"
SVB_WARM = "tests/test_streaming_population.py::test_svb_later_minibatch_is_batch_vb_step_for_step"
SVB_BATCH = "tests/test_streaming_population.py::test_svb_single_minibatch_is_batch_vb_step_for_step"
M_STEP_KERNEL = "tests/test_kernels.py::test_natural_gradient_step_matches_numpy"
E_STEP_KERNEL = "tests/test_kernels.py::test_converged_e_step_matches_reference[0.1-0.001]"
ELOG_KERNEL = "tests/test_kernels.py::test_exp_dirichlet_expectation_matches_scipy"
ELOG_THETA_KERNEL = "tests/test_kernels.py::test_dirichlet_expectation_matches_scipy"
PREDICT = EQ + "test_predict_words_is_the_posterior_mean_mixture"
WEIGHTS = EQ + "test_topic_weights_count_the_tokens_of_each_topic"
PEER_MASS = "tests/test_peer_equations.py::test_peer_step_moves_the_token_mass_as_alg2"
PEER_START = "tests/test_peer_equations.py::test_peer_starts_from_online_ldas_lambda"
PEER_SHORT = "tests/test_peer_equations.py::test_peer_short_minibatch_scales_by_its_own_size"
REF_STATIONARY = EQ + "test_reference_bound_is_stationary_at_the_reference_batch_vb_fixed_point"
FLOOR = EQ + "test_doc_bound_floors_a_word_no_topic_can_emit"
BATCH_STOP = "tests/test_lda.py::test_batch_lda_stops_once_the_relative_improvement_no_longer_exceeds_rel_tol[elbos0-stops0]"
THETA_MEAN = "theta = gamma / gamma.sum(axis=1, keepdims=True)"

LDA = "topicbench/lda.py"
DENSE = "topicbench/kernels/dense.py"
SPECIAL = "topicbench/kernels/special.py"
ESTEP = "topicbench/kernels/lda_estep.py"
BOUND_K = "topicbench/kernels/lda_bound.py"
K_HELP = "tests/test_kernels.py::test_e_step_sweep_helpers_by_hand"
STEP = "self.lam = kernels.natural_gradient_step(self.lam, rho, self.eta, data_size / len(batch), sstats)"
M_STEP = "out[k, w] = (1 - rho) * lam[k, w] + rho * (eta + scale * sstats[k, w])"
BATCH_M = "self.lam = self.eta + sstats  # Alg. 1, M step"
RHO_LINE = 'return (self.hyper["tau0"] + self.updates) ** -self.hyper["kappa"]'
POP = "self.stochastic_step(batch, self.population_size)"
SVB_M = "self.lam = prior + sstats"

MUTANTS = [
    # -- batch LDA, Alg. 1 M step: lambda = eta + sum_d n_dw phi_dwk (the reported survivors) -------------------
    Mutant(id="hoffman_alg1_m_step_two_eta", cites="Hoffman et al. 2010, Alg. 1 M step (eq. 5)",
           path="methods/batch_lda.py", find=BATCH_M, replace="self.lam = 2 * self.eta + sstats  # Alg. 1, M step",
           tests=[BATCH]),
    Mutant(id="hoffman_alg1_m_step_sstats_times_0_9", cites="Hoffman et al. 2010, Alg. 1 M step (eq. 5)",
           path="methods/batch_lda.py", find=BATCH_M, replace="self.lam = self.eta + 0.9 * sstats  # Alg. 1, M step",
           tests=[BATCH]),
    Mutant(id="hoffman_alg1_m_step_sstats_times_1_1", cites="Hoffman et al. 2010, Alg. 1 M step (eq. 5)",
           path="methods/batch_lda.py", find=BATCH_M, replace="self.lam = self.eta + 1.1 * sstats  # Alg. 1, M step",
           tests=[BATCH]),
    # -- online LDA, Alg. 2: rho_t, D/|S|, the blend (the reported survivors first) --------------------------------
    Mutant(id="hoffman_alg2_no_d_over_s", cites="Hoffman et al. 2010, Alg. 2 with sec. 2.2 minibatch scaling D/|S|",
           path="methods/online_lda.py", find="self.stochastic_step(batch, self.corpus_size)",
           replace="self.stochastic_step(batch, len(batch))", tests=[ONLINE]),
    Mutant(id="hoffman_alg2_d_not_divided_by_s", cites="Hoffman et al. 2010, sec. 2.2 (D/|S|, not D)",
           path=LDA, find=STEP, replace=STEP.replace("data_size / len(batch)", "data_size"), tests=[ONLINE]),
    Mutant(id="hoffman_alg2_short_minibatch_scaled_by_batch_size",
           cites="Hoffman et al. 2010, sec. 2.2 (D/|S| with |S| the minibatch's own size, also for a short last one)",
           path=LDA, find=STEP, replace=STEP.replace("data_size / len(batch)", 'data_size / self.hyper["batch_size"]'),
           tests=[PEER_SHORT + "[online_lda]"]),
    Mutant(id="hoffman_alg2_rho_always_one", cites="Hoffman et al. 2010, Alg. 2 (rho_t = (tau0 + t)^-kappa)",
           path=LDA, find=RHO_LINE, replace="return 1.0", tests=[RHO, ONLINE]),
    Mutant(id="hoffman_alg2_rho_t_shifted_by_10", cites="Hoffman et al. 2010, Alg. 2 (t counts from 0)",
           path=LDA, find=RHO_LINE, replace=RHO_LINE.replace("self.updates", "self.updates + 10"), tests=[RHO, ONLINE]),
    Mutant(id="hoffman_alg2_rho_exponent_sign", cites="Hoffman et al. 2010, Alg. 2 (exponent -kappa)",
           path=LDA, find=RHO_LINE, replace=RHO_LINE.replace("** -self", "** self"), tests=[RHO, ONLINE]),
    Mutant(id="hoffman_alg2_blend_swapped", cites="Hoffman et al. 2010, Alg. 2 ((1 - rho) lambda + rho lambda-tilde)",
           path=DENSE, find=M_STEP,
           replace="out[k, w] = rho * lam[k, w] + (1 - rho) * (eta + scale * sstats[k, w])",
           tests=[M_STEP_KERNEL, ONLINE]),
    Mutant(id="hoffman_alg2_kernel_drops_scale", cites="Hoffman et al. 2010, Alg. 2 (lambda-tilde = eta + D sstats / |S|)",
           path=DENSE, find=M_STEP, replace=M_STEP.replace("scale * sstats", "sstats"), tests=[M_STEP_KERNEL, ONLINE]),
    Mutant(id="hoffman_alg2_lambda_tilde_without_eta", cites="Hoffman et al. 2010, Alg. 2 (lambda-tilde = eta + ...)",
           path=DENSE, find=M_STEP, replace=M_STEP.replace("(eta + scale", "(scale"), tests=[M_STEP_KERNEL, ONLINE]),
    # -- the E step (Alg. 1-2, eqs. 5-6), in the numba kernels the methods call ------------------------------------
    Mutant(id="hoffman_alg2_gamma_update_without_alpha", cites="Hoffman et al. 2010, Alg. 2 E step (gamma = alpha + ...)",
           path=ESTEP, find="value = alpha[k] + exp_theta[a] * new_gamma[a] if a >= 0 else alpha[k]",
           replace="value = exp_theta[a] * new_gamma[a] if a >= 0 else alpha[k]", tests=[E_STEP_KERNEL, ONLINE]),
    Mutant(id="hoffman_alg2_phi_normaliser_of_the_wrong_word", cites="Hoffman et al. 2010, Alg. 2 E step (phi_dwk normaliser)",
           path=ESTEP, find="w1 = cts[j + 1] / (s1 + 1e-100)", replace="w1 = cts[j + 1] / (s0 + 1e-100)",
           tests=[E_STEP_KERNEL, BATCH]),
    Mutant(id="hoffman_eq5_sstats_normaliser_without_theta", cites="Hoffman et al. 2010, eq. 5 (phi in the sstats)",
           path=ESTEP, find="phinorm[j] = _dot(exp_theta, exp_elog_beta_t[ids[j]]) + 1e-100",
           replace="phinorm[j] = _sum(exp_elog_beta_t[ids[j]]) + 1e-100", tests=[E_STEP_KERNEL, BATCH]),
    Mutant(id="hoffman_eq6_exp_elog_theta_is_the_mean", cites="Hoffman et al. 2010, eq. 6 (exp E[log theta], not E[theta])",
           path=SPECIAL, find="x, c = _digamma_parts(gamma[k])", replace="x, c = gamma[k], 0.0",
           tests=[E_STEP_KERNEL, ONLINE]),
    Mutant(id="hoffman_eq6_elog_beta_log_for_digamma", cites="Hoffman et al. 2010, eq. 6 (psi(sum_w lambda_kw))",
           path=SPECIAL, find="psi_total[i] = _digamma_one_division(total)",
           replace="psi_total[i] = math.log(total)", tests=[ELOG_KERNEL, BOUNDS]),
    Mutant(id="hoffman_eq6_elog_theta_without_total", cites="Hoffman et al. 2010, eq. 6 (E[log theta] in the bound)",
           path=SPECIAL, find="out[i, j] = digamma(param[i, j]) - psi_total", replace="out[i, j] = digamma(param[i, j])",
           tests=[ELOG_THETA_KERNEL, BOUNDS]),
    # -- the bounds: eq. 4 (batch ELBO, streaming VB's stopping rule) and eq. 16 (the held-out score) --------------
    Mutant(id="hoffman_eq4_theta_prior_sign", cites="Hoffman et al. 2010, eq. 4 ((alpha - gamma) E[log theta])",
           path=LDA, find="np.sum((self.alpha - gamma) * elog_theta)", replace="np.sum((gamma - self.alpha) * elog_theta)",
           tests=[BOUNDS]),
    Mutant(id="hoffman_eq4_theta_entropy_term_dropped", cites="Hoffman et al. 2010, eq. 4 (log Gamma(gamma_dk) of -E[log q])",
           path=LDA, find="* elog_theta) + np.sum(gammaln(gamma)) - ", replace="* elog_theta) - ", tests=[BOUNDS]),
    Mutant(id="hoffman_eq4_theta_normaliser_once", cites="Hoffman et al. 2010, eq. 4 (D Dirichlet normalisers)",
           path=LDA, find="score += gamma.shape[0] * (gammaln(", replace="score += (gammaln(", tests=[BOUNDS]),
    Mutant(id="hoffman_eq4_topic_prior_sign", cites="Hoffman et al. 2010, eq. 4 ((eta - lambda) E[log beta])",
           path=LDA, find="np.sum((self.eta - self.lam) * elog_beta)", replace="np.sum((self.lam - self.eta) * elog_beta)",
           tests=[BOUNDS]),
    Mutant(id="hoffman_eq4_topic_normaliser_once", cites="Hoffman et al. 2010, eq. 4 (K Dirichlet(eta) normalisers)",
           path=LDA, find="return score + self.n_topics * (gammaln(", replace="return score + (gammaln(", tests=[BOUNDS]),
    Mutant(id="hoffman_eq16_per_document_not_per_word", cites="Hoffman et al. 2010, eq. 16 (bound per word)",
           path=LDA, find="return self.doc_bound(counts, gamma) / float(sp.csr_matrix(counts).sum())",
           replace="return self.doc_bound(counts, gamma) / float(counts.shape[0])", tests=[BOUNDS]),
    # -- population VB, McInerney et al. 2015 Alg. 1: SVI with the population size alpha in place of D ------------
    Mutant(id="mcinerney_alg1_population_is_the_minibatch", cites="McInerney et al. 2015, Alg. 1 / eq. 8 (alpha/B)",
           path="methods/population_vb.py", find=POP, replace="self.stochastic_step(batch, len(batch))",
           tests=[PVB, PVB_MASS]),
    Mutant(id="mcinerney_alg1_alpha_over_b_twice", cites="McInerney et al. 2015, text after eq. 8 (alpha/B, once)",
           path="methods/population_vb.py", find=POP, replace="self.stochastic_step(batch, self.population_size / len(batch))",
           tests=[PVB, PVB_MASS]),
    Mutant(id="mcinerney_alg1_data_seen_for_alpha", cites="McInerney et al. 2015, eq. 2 (alpha fixed, not the data seen)",
           path="methods/population_vb.py", find=POP, replace="self.stochastic_step(batch, self.docs_seen + len(batch))",
           tests=[PVB, PVB_MASS]),
    Mutant(id="mcinerney_eq2_alpha_not_exponentiated", cites="McInerney et al. 2015, eq. 2 / Fig. 3 (alpha = 10^log10)",
           path="methods/population_vb.py", find='int(round(10.0 ** float(self.hyper["log10_population"])))',
           replace='int(round(10.0 * float(self.hyper["log10_population"])))', tests=[PVB, PVB_MASS]),
    # -- streaming VB, Broderick et al. 2013 sec. 2.1: lambda_b = lambda_{b-1} + sstats_b, lambda_0 = eta --------
    Mutant(id="broderick_prior_is_eta_every_batch", cites="Broderick et al. 2013, sec. 2.1 (prior = previous posterior)",
           path="methods/streaming_vb.py", find=SVB_M, replace="self.lam = self.eta + sstats", tests=[SVB_MASS]),
    Mutant(id="broderick_half_sstats", cites="Broderick et al. 2013, sec. 2.1 (lambda_b = lambda_{b-1} + sstats_b)",
           path="methods/streaming_vb.py", find=SVB_M, replace="self.lam = prior + 0.5 * sstats", tests=[SVB_MASS]),
    Mutant(id="broderick_prior_lambda_always_eta", cites="Broderick et al. 2013, sec. 2.1 (q_{b-1} is the prior)",
           path="methods/streaming_vb.py",
           find="return np.full_like(self.lam, self.eta) if self.updates == 0 else self.lam.copy()",
           replace="return np.full_like(self.lam, self.eta)", tests=[SVB_MASS]),
    Mutant(id="broderick_first_prior_is_the_random_start", cites="Broderick et al. 2013, sec. 2.1 (lambda_0 = eta)",
           path="methods/streaming_vb.py",
           find="return np.full_like(self.lam, self.eta) if self.updates == 0 else self.lam.copy()",
           replace="return self.lam.copy()", tests=[SVB_MASS]),
    Mutant(id="broderick_bound_uses_eta_not_the_prior", cites="Broderick et al. 2013, sec. 2.1 with Hoffman et al. eq. 4",
           path="methods/streaming_vb.py", find="lda_bound.topic_terms(prior, self.lam",
           replace="lda_bound.topic_terms(np.full_like(prior, self.eta), self.lam", tests=[SVB_BOUND]),
    Mutant(id="svb_rounds_restart_gamma", cites="Hoffman et al. 2010, Alg. 1 as coordinate ascent on eq. 4 (gamma kept)",
           path="methods/streaming_vb.py", find="gamma=gamma if warm else None", replace="gamma=None", tests=[SVB_WARM]),
    Mutant(id="svb_first_minibatch_warm_started", cites="Hoffman et al. 2010, Alg. 1 (gamma = 1 each pass) from the random start",
           path="methods/streaming_vb.py", find='warm = self.hyper["warm_start"] and self.updates > 0',
           replace="warm = True", tests=[SVB_BATCH]),
    Mutant(id="svb_default_warm_started", cites="Hoffman et al. 2010, Alg. 1 (gamma = 1 each pass; warm_start off)",
           path="methods/streaming_vb.py", find='warm = self.hyper["warm_start"] and self.updates > 0',
           replace="warm = self.updates > 0", tests=[SVB_WARM]),
    # -- the read-outs every LDA-family method shares: predict_words (E[theta] E[beta]), topic_weights, elbo() -------
    Mutant(id="hoffman_predict_theta_mean_without_prior", cites="Hoffman et al. 2010, eq. 6's q(theta) = Dirichlet(gamma): "
           "E[theta_k] = gamma_k / sum gamma (alpha included)", path=LDA, find=THETA_MEAN,
           replace="theta = (gamma - self.alpha) / (gamma - self.alpha).sum(axis=1, keepdims=True)", tests=[PREDICT]),
    Mutant(id="hoffman_predict_theta_exp_elog_not_mean", cites="Hoffman et al. 2010, q(theta) = Dirichlet(gamma): the "
           "predictive uses E[theta], not exp E[log theta] normalised", path=LDA, find=THETA_MEAN,
           replace="theta = np.exp(kernels.dirichlet_expectation(gamma))\n        theta /= theta.sum(axis=1, keepdims=True)",
           tests=[PREDICT]),
    Mutant(id="hoffman_predict_beta_exp_elog_not_mean", cites="Hoffman et al. 2010, q(beta_k) = Dirichlet(lambda_k): "
           "E[beta_kw] = lambda_kw / sum_v lambda_kv", path=LDA,
           find="return kernels.mixture_probs(word_ids, theta, self.topics())",
           replace="return kernels.mixture_probs(word_ids, theta, self.exp_elog_beta / self.exp_elog_beta.sum(axis=1, keepdims=True))",
           tests=[PREDICT]),
    Mutant(id="hoffman_topic_weights_one_eta", cites="Hoffman et al. 2010, Alg. 1 M step (lambda_k = eta + sstats_k: "
           "V pseudo-counts eta per topic)", path=LDA, find="return self.lam.sum(axis=1) - self.n_words * self.eta",
           replace="return self.lam.sum(axis=1) - self.eta", tests=[WEIGHTS]),
    Mutant(id="hoffman_eq4_elbo_topic_terms_subtracted", cites="Hoffman et al. 2010, eq. 4 (document terms + topic terms)",
           path=LDA, find="return self.doc_bound(counts, gamma) + self.topic_bound()",
           replace="return self.doc_bound(counts, gamma) - self.topic_bound()", tests=[BOUNDS]),
    # -- the peers' mapping onto Alg. 2 (methods/gensim_lda.py, methods/sklearn_lda.py): the start, D/|S|, rho_t, eta --
    Mutant(id="gensim_numdocs_not_pinned_to_d_minus_s", cites="Hoffman et al. 2010, Alg. 2 with sec. 2.2's D/|S| "
           "(gensim adds |S| to numdocs: pinning it to D blends with (D + |S|)/|S|)", path="methods/gensim_lda.py",
           find="self.model.state.numdocs = self.corpus_size - len(batch)",
           replace="self.model.state.numdocs = self.corpus_size", tests=[PEER_MASS + "[gensim_lda]"]),
    Mutant(id="gensim_offset_plus_one", cites="Hoffman et al. 2010, Alg. 2 (rho_t = (tau0 + t)^-kappa, t from 0)",
           path="methods/gensim_lda.py", find='offset=float(h["tau0"])', replace='offset=float(h["tau0"]) + 1',
           tests=[PEER_MASS + "[gensim_lda]"]),
    Mutant(id="gensim_start_not_shifted_by_eta", cites="Hoffman et al. 2010, Alg. 2's lambda_0 (the paired start: "
           "gensim keeps lambda - eta)", path="methods/gensim_lda.py", find="(self.n_topics, self.n_words)) - self.eta",
           replace="(self.n_topics, self.n_words))", tests=[PEER_START + "[gensim_lda]"]),
    Mutant(id="gensim_topic_weights_one_eta", cites="Hoffman et al. 2010, Alg. 1-2 (lambda_k = eta + statistics: V "
           "pseudo-counts per topic)", path="methods/gensim_lda.py",
           find="return self.lam().sum(axis=1) - self.n_words * self.eta", replace="return self.lam().sum(axis=1) - self.eta",
           tests=[PEER_MASS + "[gensim_lda]"]),
    Mutant(id="sklearn_n_batch_iter_from_one", cites="Hoffman et al. 2010, Alg. 2 (rho_t = (tau0 + t)^-kappa, t from 0; "
           "sklearn counts from 1)", path="methods/sklearn_lda.py", find="self.model.n_batch_iter_ = self.updates  # rho",
           replace="self.model.n_batch_iter_ = self.updates + 1  # rho", tests=[PEER_MASS + "[sklearn_lda]"]),
    Mutant(id="sklearn_alpha_and_eta_swapped", cites="Hoffman et al. 2010, Alg. 2 (eta in lambda-tilde, alpha in gamma)",
           path="methods/sklearn_lda.py", find='doc_topic_prior=float(h["alpha"]), topic_word_prior=self.eta',
           replace='doc_topic_prior=self.eta, topic_word_prior=float(h["alpha"])', tests=[PEER_MASS + "[sklearn_lda]"]),
    Mutant(id="gensim_restored_rho_counts_updates_not_documents", cites="Hoffman et al. 2010, Alg. 2 (rho_t after a "
           "restore: gensim's t is num_updates / chunksize, documents merged)", path="methods/gensim_lda.py",
           find="self.model.num_updates = self.docs_seen", replace="self.model.num_updates = self.updates",
           tests=["tests/test_peer_equations.py::test_restored_peer_continues_the_step_schedule[gensim_lda]"]),
    Mutant(id="broderick_first_round_bound_over_the_minibatch_words", cites="Hoffman et al. 2010, eq. 4 (all V columns: "
           "the random start differs from eta everywhere) in streaming VB's first round", path="methods/streaming_vb.py",
           find="if self.updates == 0 and r == 0:", replace="if self.updates == 0 and r == 1:",
           tests=[EQ + "test_streaming_vb_first_round_bound_is_eq4_at_the_random_start"]),
    # -- the reference itself (topicbench/kernels/lda_reference.py), against eq. 4's stationarity at Alg. 1's fixed point --
    Mutant(id="reference_theta_prior_without_minus_one", cites="Hoffman et al. 2010, eq. 4 (E[log p(theta | alpha)] = "
           "log Gamma(K alpha) - K log Gamma(alpha) + (alpha - 1) sum_k E[log theta_k]) in the reference",
           path="topicbench/kernels/lda_reference.py", find="(alpha - 1) * elog_theta[d].sum()",
           replace="alpha * elog_theta[d].sum()", tests=[REF_STATIONARY]),
    Mutant(id="reference_topic_prior_without_minus_one", cites="Hoffman et al. 2010, eq. 4 ((eta - 1) E[log beta]) in the "
           "reference", path="topicbench/kernels/lda_reference.py", find="np.sum((prior - 1) * elog_beta)",
           replace="np.sum(prior * elog_beta)", tests=[REF_STATIONARY]),
    Mutant(id="gensim_predict_beta_exp_elog_not_mean", cites="Hoffman et al. 2010 (the predictive uses E[beta] = "
           "lambda / sum lambda, not the normalised exp E[log beta] of the E step), for the gensim peer",
           path="methods/gensim_lda.py",
           find="        theta = gamma / gamma.sum(axis=1, keepdims=True)\n        return kernels.mixture_probs(word_ids, theta, self.topics())",
           replace="        theta = gamma / gamma.sum(axis=1, keepdims=True)\n        return kernels.mixture_probs(word_ids, theta, "
                   "self.model.expElogbeta / self.model.expElogbeta.sum(axis=1, keepdims=True))",
           tests=["tests/test_peer_equations.py::test_gensim_predictive_is_the_posterior_mean_mixture"]),
    # -- eighth red-team (mutant8): streaming VB's stopping rule and prior, eq. 4's normalisers, the read-outs ------------
    Mutant(id="broderick_stopping_rule_absolute_gain", cites="Hoffman et al. 2010, Alg. 1 (while the relative improvement "
           "> tol) as streaming VB's inner loop", path="methods/streaming_vb.py",
           find="(elbo - elbo_trace[-1]) / abs(elbo_trace[-1]) <= ", replace="(elbo - elbo_trace[-1]) <= ",
           tests=["tests/test_streaming_population.py::"
                  "test_streaming_vb_inner_rounds_stop_once_the_improvement_no_longer_exceeds_rel_tol"]),
    Mutant(id="broderick_bound_prior_rows_of_lambda", cites="Broderick et al. 2013, sec. 2.1 with Hoffman et al. eq. 4 "
           "(log Gamma of the prior's row sums, not of the random start's)", path="methods/streaming_vb.py",
           find="prior_w, prior_rows = prior[:, words], prior.sum(axis=1)",
           replace="prior_w, prior_rows = prior[:, words], self.lam.sum(axis=1)", tests=[SVB_BATCH]),
    Mutant(id="broderick_bound_row_normaliser_sign", cites="Hoffman et al. 2010, eq. 4 (log Gamma(sum prior) - log "
           "Gamma(sum lambda)) under streaming VB's prior", path="methods/streaming_vb.py",
           find="gammaln(prior_rows) - gammaln(lam_rows)",
           replace="gammaln(prior_rows) + gammaln(lam_rows)", tests=[SVB_BATCH]),
    Mutant(id="broderick_bound_topic_terms_subtracted", cites="Hoffman et al. 2010, eq. 4 (document terms + topic terms) "
           "in streaming VB's stopping rule", path="methods/streaming_vb.py", find="gamma, self.alpha) + topic",
           replace="gamma, self.alpha) - topic", tests=[SVB_BATCH]),
    Mutant(id="hoffman_eq4_word_term_gamma_for_exp_elog_theta", cites="Hoffman et al. 2010, eq. 4 with eq. 6 (phinorm "
           "from exp E[log theta], not gamma)", path=LDA,
           find="kernels.mixture_probs(counts, np.exp(elog_theta), self.exp_elog_beta)",
           replace="kernels.mixture_probs(counts, gamma, self.exp_elog_beta)", tests=[BOUNDS, BATCH]),
    Mutant(id="hoffman_eq4_lambda_row_sums_over_topics", cites="Hoffman et al. 2010, eq. 4 (log Gamma(sum_w lambda_kw), "
           "per topic)", path=LDA, find="np.sum(gammaln(self.lam.sum(axis=1)))",
           replace="np.sum(gammaln(self.lam.sum(axis=0)))", tests=[BOUNDS, BATCH]),
    Mutant(id="hoffman_eq4_topic_normaliser_one_eta", cites="Hoffman et al. 2010, eq. 4 (log Gamma(V eta) - V log "
           "Gamma(eta))", path=LDA, find="- self.n_words * gammaln(self.eta))", replace="- gammaln(self.eta))",
           tests=[BOUNDS, BATCH]),
    Mutant(id="hoffman_eq4_gamma_normaliser_over_the_corpus", cites="Hoffman et al. 2010, eq. 4 (log Gamma(sum_k "
           "gamma_dk), per document)", path=LDA, find="np.sum(gammaln(gamma.sum(axis=1)))",
           replace="gammaln(gamma.sum())", tests=[BOUNDS, BATCH]),
    Mutant(id="hoffman_topics_normalised_over_topics", cites="Hoffman et al. 2010, q(beta_k) = Dirichlet(lambda_k): "
           "E[beta_kw] = lambda_kw / sum_v lambda_kv", path=LDA,
           find="return self.lam / self.lam.sum(axis=1, keepdims=True)",
           replace="return self.lam / self.lam.sum(axis=0, keepdims=True)", tests=[PREDICT]),
    Mutant(id="mcinerney_population_truncated", cites="McInerney et al. 2015, eq. 2 (alpha a count: 10^log10(n) = n)",
           path="methods/population_vb.py", find='int(round(10.0 ** float(self.hyper["log10_population"])))',
           replace='int(10.0 ** float(self.hyper["log10_population"]))',
           tests=["tests/test_streaming_population.py::test_population_size_is_the_count_whose_log10_was_given"]),
    # kernel-file mutants (each recompiles the cached kernels: at most a few registered)
    Mutant(id="hoffman_alg2_skip_bound_token_sum_one_lane", cites="Hoffman et al. 2010, Alg. 2 E step (sum_w n_w / "
           "phinorm_w bounds what a skipped topic adds to gamma)", path=ESTEP, find="token_sum += (w0 + w1) + (w2 + w3)",
           replace="token_sum += w0", tests=[K_HELP]),
    Mutant(id="hoffman_alg2_skip_check_without_phinorm_mass", cites="Hoffman et al. 2010, eq. 6's phinorm (skipped topics "
           "must not move it)", path=ESTEP, find="    return mass < eps * min_phinorm", replace="    return True",
           tests=[K_HELP]),
    Mutant(id="hoffman_eq4_kernel_topic_lgamma_prior_sign", cites="Hoffman et al. 2010, eq. 4 (log Gamma(lambda) - log "
           "Gamma(prior)) in lda_bound", path=BOUND_K, find="+ math.lgamma(value) - math.lgamma(prior[k, j])",
           replace="+ math.lgamma(value) + math.lgamma(prior[k, j])", tests=[SVB_BOUND]),
    # -- ninth red-team (mutant9): the paper's defaults, the sklearn predictive, a short last minibatch in gensim --
    Mutant(id="hoffman_sec4_default_k_50", cites="Hoffman et al. 2010, sec. 4 (K = 100 in all experiments)", path=LDA,
           find='params = {"K": 100, "alpha"', replace='params = {"K": 50, "alpha"',
           tests=["tests/test_lda.py::test_defaults_are_hoffmans"]),
    Mutant(id="hoffman_sec4_default_alpha_0_1", cites="Hoffman et al. 2010, sec. 4 (alpha = 0.01)", path=LDA,
           find='params = {"K": 100, "alpha": 0.01,', replace='params = {"K": 100, "alpha": 0.1,',
           tests=["tests/test_lda.py::test_defaults_are_hoffmans"]),
    Mutant(id="hoffman_sec4_default_eta_0_1", cites="Hoffman et al. 2010, sec. 4 (eta = 0.01)", path=LDA,
           find='"alpha": 0.01, "eta": 0.01,', replace='"alpha": 0.01, "eta": 0.1,',
           tests=["tests/test_lda.py::test_defaults_are_hoffmans"]),
    Mutant(id="sklearn_predict_beta_exp_elog_not_mean", cites="Hoffman et al. 2010 predictive: E[beta], not the "
           "normalised exp E[log beta] of sklearn's E step", path="methods/sklearn_lda.py",
           find="return kernels.mixture_probs(word_ids, theta, self.topics())",
           replace="return kernels.mixture_probs(word_ids, theta, self.model.exp_dirichlet_component_ / "
                   "self.model.exp_dirichlet_component_.sum(axis=1, keepdims=True))",
           tests=["tests/test_peer_equations.py::test_sklearn_predictive_is_the_posterior_mean_mixture"]),
    Mutant(id="gensim_short_minibatch_scaled_by_d_over_batch_size", cites="Hoffman et al. 2010, Alg. 2's D/|S| with |S| "
           "the minibatch's documents (gensim's numdocs pinned to D - batch_size)", path="methods/gensim_lda.py",
           find="self.model.state.numdocs = self.corpus_size - len(batch)",
           replace='self.model.state.numdocs = self.corpus_size - int(self.hyper["batch_size"])',
           tests=["tests/test_peer_equations.py::test_peer_short_minibatch_scales_by_its_own_size[gensim_lda]"]),
    Mutant(id="gensim_predict_conditions_on_the_heldout_words", cites="document completion (DESIGN.md): gamma fitted to "
           "the observed part, not to the words scored", path="methods/gensim_lda.py",
           find="gamma, _ = self.model.inference(_as_gensim_corpus(observed))",
           replace="gamma, _ = self.model.inference(_as_gensim_corpus(word_ids))",
           tests=["tests/test_peer_equations.py::test_gensim_predictive_is_the_posterior_mean_mixture"]),
    Mutant(id="sklearn_predict_conditions_on_the_heldout_words", cites="document completion (DESIGN.md): theta from the "
           "observed part, not from the words scored", path="methods/sklearn_lda.py",
           find="theta = self.model.transform(observed.astype(np.float64))",
           replace="theta = self.model.transform(word_ids.astype(np.float64))",
           tests=["tests/test_peer_equations.py::test_sklearn_predictive_is_the_posterior_mean_mixture"]),
    # the peers' hyperparameter mapping where the libraries' defaults coincide with the tests' settings (sklearn's
    # doc_topic_prior 1/K = alpha for K = 10, alpha = 0.1; both E-step tolerances 1e-3 = e_step_tol's default)
    Mutant(id="sklearn_alpha_left_at_one_over_k", cites="Hoffman et al. 2010, Alg. 2's alpha (sklearn's doc_topic_prior)",
           path="methods/sklearn_lda.py", find='doc_topic_prior=float(h["alpha"])', replace="doc_topic_prior=None",
           tests=["tests/test_peer_equations.py::test_peer_hyperparameters_reach_the_library"]),
    Mutant(id="sklearn_e_step_tolerance_fixed", cites="Hoffman et al. 2010, Alg. 2's E step stopping rule (e_step_tol)",
           path="methods/sklearn_lda.py", find='mean_change_tol=float(h["e_step_tol"])', replace="mean_change_tol=1e-3",
           tests=["tests/test_peer_equations.py::test_peer_hyperparameters_reach_the_library"]),
    Mutant(id="sklearn_e_step_cap_fixed", cites="Hoffman et al. 2010, Alg. 2's E step cap (e_step_max_iter)",
           path="methods/sklearn_lda.py", find='max_doc_update_iter=int(h["e_step_max_iter"])',
           replace="max_doc_update_iter=100",
           tests=["tests/test_peer_equations.py::test_peer_hyperparameters_reach_the_library"]),
    Mutant(id="gensim_e_step_tolerance_fixed", cites="Hoffman et al. 2010, Alg. 2's E step stopping rule (e_step_tol)",
           path="methods/gensim_lda.py", find='gamma_threshold=float(h["e_step_tol"])', replace="gamma_threshold=0.001",
           tests=["tests/test_peer_equations.py::test_peer_hyperparameters_reach_the_library"]),
    Mutant(id="sklearn_lda_long_minibatch_split_into_steps",
           cites="Hoffman et al. 2010, Alg. 2 (one step per minibatch, D/|S| with |S| its own size)",
           path="methods/sklearn_lda.py",
           find='self.model.batch_size = max(int(self.hyper["batch_size"]), len(batch))',
           replace='self.model.batch_size = int(self.hyper["batch_size"])',
           tests=["tests/test_peer_equations.py::test_a_long_minibatch_is_one_alg2_step[sklearn_lda]"]),
    Mutant(id="sklearn_lda_start_e_step_reads_mean_beta",
           cites="Hoffman et al. 2010, eq. 6 (the E step reads exp E[log beta] of lambda, not E[beta])",
           path="methods/sklearn_lda.py",
           find="self.model.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(lam))",
           replace="self.model.exp_dirichlet_component_ = lam / lam.sum(axis=1, keepdims=True)",
           tests=["tests/test_peer_equations.py::test_sklearn_first_e_step_reads_exp_elog_beta_of_lambda_0"]),
    Mutant(id="svb_inner_round_count_not_accumulated",
           cites="Broderick et al. 2013 / Hoffman et al. 2010 Alg. 1 as SVB's inner loop (the cost: batch-VB rounds over all "
           "minibatches)", path="methods/streaming_vb.py",
           find="self.total_inner_iterations += len(elbo_trace)", replace="self.total_inner_iterations = len(elbo_trace)",
           tests=["tests/test_streaming_population.py::"
                  "test_streaming_vb_inner_rounds_stop_once_the_improvement_no_longer_exceeds_rel_tol"]),
    # -- twelfth red-team (mutant12, generated single-token mutants) -------------------------------------------------
    Mutant(id="svb_warm_start_from_the_random_start", cites="methods/streaming_vb.py warm_start: the first minibatch "
           "restarts every round (Hoffman et al. 2010, Alg. 1 from the random start)", path="methods/streaming_vb.py",
           find='self.hyper["warm_start"] and self.updates > 0', replace='self.hyper["warm_start"] and self.updates >= 0',
           tests=[SVB_WARM + "[warm]"]),
    Mutant(id="hoffman_e_step_tolerance_doubled", cites="Hoffman et al. 2010, onlineldavb.py's E step (mean change of "
           "gamma below 0.001, at most 100 iterations)", path=LDA, find='"e_step_tol": 1e-3,',
           replace='"e_step_tol": 2e-3,', tests=["tests/test_lda.py::test_defaults_are_hoffmans"]),
    Mutant(id="hoffman_lambda_start_scale_one_hundred_and_first", cites="Hoffman et al. 2010, onlineldavb.py (lambda ~ "
           "Gamma(100, 1/100))", path=LDA, find="self.rng.gamma(100.0, 1.0 / 100.0,",
           replace="self.rng.gamma(100.0, 1.0 / 101.0,",
           tests=["tests/test_lda.py::test_lambda_starts_at_hoffmans_gamma_100_one_hundredth"]),
    Mutant(id="svb_relative_gain_over_the_first_round", cites="Hoffman et al. 2010, Alg. 1 as SVB's inner loop "
           "(relative improvement over the previous round)", path="methods/streaming_vb.py",
           find="/ abs(elbo_trace[-1]) <=", replace="/ abs(elbo_trace[0]) <=",
           tests=["tests/test_streaming_population.py::"
                  "test_streaming_vb_inner_rounds_stop_once_the_improvement_no_longer_exceeds_rel_tol"]),
    # fifteenth red-team (mutant15a): the LDA peers' state bookkeeping and gensim's update settings
    Mutant(id='gensim_restored_lambda_shifted_by_plus_eta', cites='gensim keeps lambda - eta (sstats); a restored model holds the saved lambda',
           path='methods/gensim_lda.py', find='        self.model.state.sstats[...] = lam - self.eta  # gensim keeps lambda - eta\n',
           replace='        self.model.state.sstats[...] = lam + self.eta  # gensim keeps lambda - eta\n',
           tests=['tests/test_peer_equations.py::test_peer_state_counts_its_steps_and_restores_the_same_model[gensim_lda]']),
    Mutant(id='sklearn_lda_documents_seen_counted_down', cites="the state's documents seen",
           path='methods/sklearn_lda.py', find='        self.docs_seen += len(batch)\n',
           replace='        self.docs_seen -= len(batch)\n',
           tests=['tests/test_peer_equations.py::test_peer_state_counts_its_steps_and_restores_the_same_model[sklearn_lda]']),
    Mutant(id='gensim_update_evaluates_a_perplexity', cites='gensim update(eval_every=0): no perplexity (an extra E step) inside a fit step',
           path='methods/gensim_lda.py', find='                          update_every=1, eval_every=0)\n',
           replace='                          update_every=1, eval_every=(0 + 1))\n',
           tests=['tests/test_peer_equations.py::test_gensim_update_scores_nothing']),
    # mutant18: the counters the trace reports and eq. 4's phinorm guard
    Mutant(id="batch_lda_pass_counted_down", cites="Hoffman et al. 2010, Alg. 1: one pass, one update (the trace's updates)",
           path="methods/batch_lda.py", find="        self.updates += 1\n", replace="        self.updates -= 1\n",
           tests=[BATCH_STOP]),
    Mutant(id="batch_lda_pass_not_counted", cites="Hoffman et al. 2010, Alg. 1: one pass, one update (the trace's updates)",
           path="methods/batch_lda.py", find="        self.updates += 1\n", replace="        self.updates += 0\n",
           tests=[BATCH_STOP]),
    Mutant(id="online_step_documents_counted_down", cites="Hoffman et al. 2010, Alg. 2: documents seen after t steps of S",
           path=LDA, find="        self.docs_seen += len(batch)\n", replace="        self.docs_seen -= len(batch)\n", tests=[ONLINE]),
    Mutant(id="phinorm_guard_subtracted", cites="Hoffman et al. 2010, eq. 4's word term, onlineldavb.py's phinorm + 1e-100",
           path=LDA, find="np.log(phinorm + 1e-100)", replace="np.log(phinorm - 1e-100)", tests=[FLOOR]),
    Mutant(id="phinorm_guard_dropped", cites="Hoffman et al. 2010, eq. 4's word term, onlineldavb.py's phinorm + 1e-100",
           path=LDA, find="np.log(phinorm + 1e-100)", replace="np.log(phinorm + 0)", tests=[FLOOR]),
]
# verified killed, not registered (recompile cost): id -- find -> replace -- killed by node (K = tests/test_kernels.py)
# (registered in session 11's red-team, then taken out of the registry for CI time: fresh-clone CI had reached 13 min)
# hoffman_alg2_stopping_rule_sum_not_mean -- "if change / n_topics < model.tol:" (dense path) -> "if change < model.tol:" -- K::test_converged_e_step_matches_reference
# hoffman_eq5_sstats_without_exp_elog_beta -- "out[k, w] = row[k] * beta[k]" -> "out[k, w] = row[k]" -- K::test_converged_e_step_matches_reference
# hoffman_eq4_kernel_theta_prior_sign -- "score += (alpha - g[k]) * elog_theta" -> "(g[k] - alpha)" -- tests/test_equations_lda.py::test_streaming_vb_first_round_bound_is_eq4_at_the_random_start
# e_skipped_gamma_zero -- "... if a >= 0 else alpha[k]" -> "... else 0.0" -- K::test_converged_e_step_matches_reference[0.1-0.001]
# e_w0_count_dropped -- "w0 = cts[j] / (s0 + 1e-100)" -> "w0 = 1.0 / (s0 + 1e-100)" -- same
# e_sparse_stop_mean_over_active -- "change / n_topics < model.tol" (sparse path) -> "change / n_active" -- same
# e_uniform_c_one -- "c = exp_theta[0]" -> "c = 1.0" -- same
# e_tail_uniform_no_theta -- "s = exp_theta[0] * word_total[ids[j]] if uniform" -> "s = word_total[ids[j]] if uniform" -- same
# e_topic_sweep_count_dropped -- "weight[j] = cts[j] / phinorm[j]" -> "1.0 / phinorm[j]" -- same
# e_total_without_skipped_alpha -- "total = skipped_alpha" -> "total = 0.0" -- K::test_fallback_sweeps_match_reference[adversarial0]
# e_sstats_weight_no_count -- "phinorm[j] = cts[j] / phinorm[j]" -> "1.0 / phinorm[j]" -- K::test_converged_e_step_matches_reference[0.1-0.001]
# e_sstats_token_index -- "weight = token_weight[token_of[q]]" -> "token_weight[q]" -- same
# e_gamma_init_alpha -- "gamma = np.ones(...) if gamma is None" -> "np.full(..., alpha[0])" -- same (iteration counts)
# e_uniform_unchecked -- "uniform = uniform and exp_theta[k] == exp_theta[0]" -> "uniform and True" -- K::test_warm_start_and_no_sstats
# e_track_max_second_sweep -- "topic_max, it == 0," -> "it == 1," -- K::test_converged_e_step_matches_reference[0.1-0.001]
# e_topic_max_not_tracked_tail -- "topic_max[k] = max(topic_max[k], row[k])" -> "max(topic_max[k], 0.0)" -- K::test_e_step_sweep_helpers_by_hand
# b_lgamma_total_sign -- "score = -math.lgamma(total)" -> "score = math.lgamma(total)" -- EQ first_round_bound_is_eq4_at_the_random_start
# b_alpha_branch_no_lgamma -- "score += lgamma_alpha" -> "score += 0.0" -- EQ test_bounds_match_eq4_term_by_term
# b_alpha_branch_no_psi_total -- "math.exp(psi_alpha - psi_total)" -> "math.exp(psi_alpha)" -- same
# b_word_count_dropped -- "score += data[j] * math.log(" -> "score += math.log(" -- EQ first_round_bound_is_eq4_at_the_random_start
# b_normaliser_once -- "n_docs * (math.lgamma(n_topics * alpha)" -> "(math.lgamma(..." -- same
# b_topic_prior_sign -- "(prior[k, j] - value) * math.log(" -> "(value - prior[k, j])" -- EQ streaming_vb_bound_is_eq4_under_the_previous_posterior
# b_elog_theta_log -- "digamma(g[k]) - psi_total" -> "math.log(g[k]) - psi_total" -- EQ first_round_bound_is_eq4_at_the_random_start
# b_psi_total_log -- "psi_total = digamma(total)" -> "math.log(total)" -- EQ test_bounds_match_eq4_term_by_term
# Survivors judged equivalent (results unchanged; the skip bound only trades speed, SKIP_EPS = 2^-60 is 2^7 below rounding):
# e_scale_sign (exp(+psi_total): a looser bound for sum gamma > 1.46), e_exp_psi_alpha_sign (exp(+c): a looser bound),
# e_skip_test_no_token_sum (only whether to re-choose the set), e_reactivated_theta_no_total (a re-entering topic's term
# was proved < 2^-60 alpha, so a factor exp(psi_total) stays below rounding).


# tenth red-team (kernel10), verified killed, not registered (recompile cost). K = tests/test_kernels.py::
# killed by tests added in kernel10:
# d_transpose_row_block_short -- dense._transpose "min(i0 + block, n_rows)" -> "min(i0 + block - 1, n_rows)" -- K test_parallel_transpose_is_the_transpose (every other test has K < 64: one block)
# e_final_exp_theta_not_refreshed -- "    if sparse:\n        _exp_elog_theta(gamma, exp_theta, bits)\n    if model.want_phinorm:" -> "    if model.want_phinorm:" -- K test_skipped_topics_stay_at_alpha_exactly (sstats at rtol 1e-9, atol 0)
# e_skipped_held_at_alpha0 -- "if a >= 0 else alpha[k]  # gamma" -> "else alpha[0]" -- K test_asymmetric_alpha_matches_reference[largest]
# e_sparse_update_alpha0 -- "value = alpha[k] + theta_active[a] * new_gamma[a]" -> "alpha[0] + ..." -- same
# killed by tests already in the suite:
# s_digamma_recurrence_shift -- "result -= 1.0 / x" -> "1.0 / (x + 1.0)" -- K test_dirichlet_expectation_matches_scipy
# s_digamma_half_sign -- "- 0.5 * inv" -> "+ 0.5 * inv" -- same
# s_digamma_1_12_to_1_6 -- "inv2 * (1.0 / 12 - inv2 * (1.0 / 120" -> "(1.0 / 6 - ..." (digamma) -- same
# s_parts_shift_inverted -- "shift = dq / q if small" -> "q / dq" -- K test_fixed_iterations_match_reference
# s_parts_product_rule -- "dq = dq * y + q" -> "dq * y + 1.0" -- same
# s_parts_1_120_to_1_12 -- _digamma_parts "(1.0 / 120" -> "(1.0 / 12" -- same
# s_exp_fallback_threshold -- "low += bits[k] == 1 << 52" -> "1 << 53" -- K test_vectorised_exp_theta_matches_libm
# s_exp_r_lo_sign -- "- m * _LN2_LO" -> "+ m * _LN2_LO" -- K test_fixed_iterations_match_reference
# s_exp_elog_theta_total_last -- _exp_elog_theta "total += gamma[k]" -> "total = gamma[k]" -- K test_adversarial_topics_match_reference[0]
#   (psi(sum gamma) is a factor common to every k: it cancels in phi and shows only through the skip bounds)
# d_weighted_rows_floor_dropped -- "out[j] = 1e-100" -> "0.0" -- K test_adversarial_topics_match_reference[0] (exp E log beta underflows there)
# e_phinorm_floor_dropped -- "w0 = cts[j] / (s0 + 1e-100)" -> "cts[j] / s0" -- same
# d_weighted_rows_tail_row_by_position -- "s0 = matrix[rows[a]]" -> "matrix[a]" -- K test_converged_e_step_matches_reference[0.01-0.001]
# d_gather_tail_topic_by_position -- "sub[a, j] = r0[topics[a]]" -> "r0[a]" -- K test_fixed_iterations_match_reference
# d_gather_row7_from_row6 -- "r6[k], r7[k]" -> "r6[k], r6[k]" -- K test_converged_e_step_matches_reference[0.01-0.001]
# d_dot4_b3_from_b2 -- "s3 += a[k] * b3[k]" -> "b2[k]" -- K test_fixed_iterations_match_reference
# d_min_positive_max -- "low = min(low, bits[j])" -> "max" -- K test_e_step_sweep_helpers_by_hand
# sp_group_start_not_shifted -- "word_start[indices[p] + 1] += 1" -> "word_start[indices[p]]" -- K (crashes: out-of-bounds fill)
# e_new_gamma_not_reset -- _gamma_sweep "new_gamma[k] = 0.0" -> "pass" -- K test_fixed_iterations_match_reference
# e_change_not_abs -- _update_gamma "abs(value - gamma[k])" -> "value - gamma[k]" -- same
# e_sparse_change_not_abs -- sparse path "change += abs(value - gamma[k])" -> "value - gamma[k]" -- same
# e_skipped_ok_inverted -- "if not term * token_sum < eps * alpha[k]" -> "if term * ..." -- K test_fallback_sweeps_match_reference[adversarial0]
# e_keep_test_inverted -- decide "if term * token_sum >= threshold * alpha[k]: keep += 1" -> "<" -- same
# e_sparse_gamma_no_alpha -- "value = alpha[k] + theta_active[a] * new_gamma[a]" -> "theta_active[a] * new_gamma[a]" -- K test_converged_e_step_matches_reference[0.01-0.001]
# b_topic_lgamma_signs -- "+ math.lgamma(value) - math.lgamma(prior[k, j])" -> "- ... + ..." -- tests/test_equations_lda.py::test_streaming_vb_bound_is_eq4_under_the_previous_posterior
# b_column_gather_wrong_word -- "exp_elog_beta[k, words[j]]" -> "exp_elog_beta[k, j]" -- tests/test_equations_lda.py::test_bounds_match_eq4_term_by_term
# Survivors judged not observable (results unchanged, each checked against the reference):
# e_stop_le ("change / n_topics < model.tol" -> "<=", dense path): differs only when a sweep changes gamma by exactly 0,
#   a bitwise fixed point, where further sweeps change nothing either (Hoffman's onlineldavb.py has "<").
# b_alpha_branch_always ("if g[k] == alpha" -> "<="): the E step's gamma_k = alpha_k + a nonnegative term, never < alpha.
# Guards of the skip bound only (they choose or check which topics are skipped; SKIP_EPS = 2^-60 sits 2^7 below
# rounding and the choice is made 2^10 below that, and a skipped topic's exp_theta_k ~ exp(psi(alpha_k)) is
# e^-100 or less, so no test, even with alpha_k over four decades, saw a result move): e_exp_psi_alpha_no_y
# ("exp_psi_alpha[k] = y * math.exp(-c)" -> "math.exp(-c)"), e_skipped_max_no_alpha_div ("/ alpha[k])" dropped in
# skipped_max), e_skipped_ok_alpha0, e_psi_alpha_of_alpha0, e_gather_keep_alpha0, e_skipped_alpha_sum_alpha0
# (alpha[0] for alpha[k] in _skipped_ok, in exp_psi_alpha, in the gather's keep test, in skipped_alpha).
# eleventh red-team (mutant11), tried and killed by the suite as it stood, not registered: log1p for log in eq. 4's word
# term; K or V dropped from eq. 4's normalisers (alpha and eta); gammaln(lambda) dropped; gamma row sums over axis 0;
# heldout bound with the topic terms; predict_words fitting gamma to word_ids; theta normalised over axis 0;
# topic_weights with K eta; rho_t with t + 1; lambda_0 ~ Gamma(1, 1/100) or Gamma(100, 100); (alpha - 1 - gamma) and
# (eta - 1 - lambda) in eq. 4; SVB: relative gain against the first round, without abs, max_inner_iter -/+ 1,
# docs_seen += 1, row normaliser over axis 0, -cross, last_elbo of the first round; batch LDA: ELBO without the topic
# terms, relative gain against the first pass, without abs; population VB: ceil for round; gensim: decay/offset
# swapped, load_state without - eta, predictive on the fit's RandomState, axis-0 topics or theta.
# Equivalent, not registered: sklearn_lda load_state "n_batch_iter_ = self.updates" -> "+ 1" (partial_fit sets it
# again before every step); population VB "<= 15" -> "< 15" (only the refusal of exactly 1e15, a range check).
# twelfth red-team (mutant12): a generated sweep of single-token mutants (+/-, * /, ** 2 -> 1, constants x2 / +1 / 0,
# min/max, < <=, [0]/[1], axis 0/1, sum/mean, a dropped term, digamma/gammaln, log/log1p, exp dropped) over the
# methods, lda.py, nmf.py, evaluate.py and lda_reference.py. LDA-family survivors not registered. Equivalent: the
# reference E step's first exp_theta normaliser (psi(gamma.sum()) -> psi(gamma.mean()) or dropped: a per-document
# factor that phinorm cancels); the 1e-100 guards (sign, x2, 0); "== 0 * 2"-style literals; the seed and threads
# defaults of __init__ (the runner passes both; fits are thread-invariant). Written with a name the module imports
# (the sweep's gammaln -> digamma raised NameError), psi for gammaln in eq. 4's bounds (lda.py, streaming_vb.py,
# lda_reference.py) is killed by the bound tests. Settings, not a paper's: SVB's batch_size 256, rel_tol 1e-4,
# max_inner_iter 50; online's batch_size 256; PRIOR_MAX + 1 (x2 is killed by tests/faults/test_numerics.py).


# seventeenth red-team (kmut17, kernel round 2), fresh numba cache each, not registered (recompile cost).
# K = tests/test_kernels.py::, EQ = tests/test_equations_lda.py::. Killed by tests already in the suite:
# kernels/lda_bound.py (eq. 4), EQ test_bounds_match_eq4_term_by_term: b_total_last ("total += g[k]" -> "total = g[k]"),
#   b_word_theta_no_psi_total ("exp_theta[k] = math.exp(elog_theta)" -> "math.exp(digamma(g[k]))"), b_lgamma_gamma_sign
#   ("+ math.lgamma(g[k])" -> "-"), b_theta_prior_term_dropped ("(alpha - g[k]) * elog_theta" dropped), b_normaliser_sign
#   ("- n_topics * math.lgamma(alpha))" -> "+"); EQ test_streaming_vb_bound_is_eq4_under_the_previous_posterior:
#   b_topic_psi_row0 ("digamma(lam_rows[k])" -> "lam_rows[0]"), b_topic_lam_by_position ("lam[k, words[j]]" -> "lam[k, j]"),
#   b_topic_equal_test_inverted ("if value != prior[k, j]" -> "=="), b_topic_lgamma_prior_dropped ("- math.lgamma(prior[k, j])"
#   dropped), b_topic_elog_no_psi_row ("digamma(value) - psi_row" -> "digamma(value)")
# kernels/special.py: s_digamma_recurrence_to_1 ("while x < 6.0" -> "< 1.0"), s_digamma_1_252_to_250 (digamma's 1/252 ->
#   1/250), s_dirichlet_total_last (dirichlet_expectation "total += param[i, j]" -> "=") -- K test_dirichlet_expectation_matches_scipy;
#   s_one_division_c_sign ("math.log(y) - c" -> "+ c") -- K test_one_division_digamma_matches_scipy; s_parts_shift_5
#   ("x + 6.0 if small" -> "x + 5.0"), s_parts_range5 (the product rule over range(5)), s_exp_poly_720 (1/720 -> 1/740),
#   s_exp_r_lo_dropped ("- m * _LN2_LO" dropped) -- K test_fixed_iterations_match_reference; s_exp_m_floor_1021 (m floored at
#   -1021), s_exp_bias_1022 ("(m + 1023) << 52" -> "+ 1022"), s_exp_fallback_no_y (libm fall-back "y * math.exp(-c - psi_total)"
#   -> "math.exp(...)") -- K test_vectorised_exp_theta_matches_libm
# kernels/dense.py: d_wr_t2_for_t3 ("t3 * s3[j]" -> "t2 * s3[j]"), d_wr_weights_swap (weights a+2, a+3 swapped), d_dot4_s0_b1
#   ("a[k] * b0[k]" -> "b1[k]"), d_transpose_last_block_dropped ("(n_cols + block - 1) // block" -> "n_cols // block") -- K
#   test_fixed_iterations_match_reference; d_wr_tail_assign (tail "out[j] += t0 * s0[j]" -> "=") -- K
#   test_converged_e_step_matches_reference[0.5-1e-05]; d_gather_r4_r5_swap (r4/r5 swapped in the 8-word gather) -- K
#   test_converged_e_step_matches_reference[0.01-0.001]; d_ngs_one_plus_rho ("(1 - rho) * lam" -> "(1 + rho)") -- K test_natural_gradient_step_matches_numpy
# kernels/sparse.py: sp_cumsum_not_accumulated ("word_start[w + 1] += word_start[w]" -> "="), sp_doc_of_word ("doc_of[fill[w]]
#   = d" -> "= w") -- K test_fixed_iterations_match_reference; sp_mixture_theta_row0 ("theta[d, k]" -> "theta[0, k]") -- K test_mixture_probs_by_hand
# kernels/lda_estep.py: e_gamma_sweep_w2_for_w3 ("w3 * row3[k]" -> "w2 * row3[k]"), e_uniform_s2_s3_swap (the uniform first
#   sweep's s2, s3 words swapped), e_w3_count_of_j2 ("cts[j + 3]" -> "cts[j + 2]"), e_topic_sweep_dot4_swap (rows a+2, a+3
#   swapped), e_word_total_word0 ("_sum(exp_elog_beta_t[w])" -> "[0]"), e_sstats_no_weight (_lda_sstats "weight * source[k]"
#   -> "source[k]"), e_theta_active_by_index ("theta_active[n_active] = exp_theta[k]" -> "exp_theta[n_active]") -- K
#   test_fixed_iterations_match_reference; e_topic_sweep_tail_by_position ("sub[rows[a]]" -> "sub[a]"), e_lanes_floor
#   ("(n_active + LANES - 1) // LANES * LANES" -> "n_active // LANES * LANES") -- K test_converged_e_step_matches_reference[0.01-0.001];
#   e_skipped_alpha_one ("skipped_alpha += alpha[k]" -> "+= 1.0") -- K test_adversarial_topics_match_reference[0];
#   e_min_phinorm_max_tail (tail "min(min_phinorm, s + 1e-100)" -> "max") -- K test_e_step_sweep_helpers_by_hand
#   e_final_phinorm_word0 ("exp_elog_beta_t[ids[j]]) + 1e-100" -> "[ids[0]]") and e_topic_max_row3_dropped (topic_max
#   without row3: the skip bound's factor) -- K test_fixed_iterations_match_reference, K test_adversarial_topics_match_reference[0];
#   s_exp_no_y ("exp_theta[k] = x * p" -> "p"), d_dot_square_a (_dot "a[k] * b[k]" -> "a[k] * a[k]") -- K
#   test_fixed_iterations_match_reference; sp_fill_from_next ("word_start[:-1].copy()" -> "[1:]") aborts the kernel (exit -6)
# Survived, a real gap in the by-hand check, killed by K test_e_step_sweep_helpers_by_hand as changed in kmut17:
#   e_skipped_ok_mass_last (_skipped_ok "mass += term" -> "mass = term": the phinorm check read only the last skipped
#   topic's term); the test's failing case had each term equal to the bound, now each is below it and only the sum above
# Survivor judged equivalent: e_reentering_theta_bound_kept ("if sparse and position[k] < 0:" -> ">= 0", at a gather): a
#   topic re-entering the active set keeps the bound exp(psi(alpha_k)) exp(-psi(sum gamma)) (1 + 2^-40) for one sweep
#   instead of its exact exp_theta_k (gamma_k = alpha_k exactly, so they differ by ~2^-40 relative), and the topics already
#   active are recomputed to the value they hold (to an ulp). The re-entering topic's term had just been proved < 2^-60
#   alpha_k, so the change in gamma is ~2^-100 relative, far below rounding (as e_reactivated_theta_no_total, above).
