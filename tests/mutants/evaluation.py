"""Equation mutants of the shared evaluation (topicbench/evaluate.py: document completion, the per-word log
predictive; topicbench/quality.py: the quality columns), which every method's score passes through. Each is a
plausible slip in the protocol's definition (DESIGN.md, "Evaluation"; McInerney et al. 2015's halves, Paisley et
al. 2014's threefold completion); the listed tests (the fastest that catch it) must fail.
"""
from tests.mutants import Mutant

EV = "topicbench/evaluate.py"
T = "tests/test_evaluate.py::"
OBSERVED = T + "test_loglik_conditions_each_document_on_its_observed_part_only"
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
]
