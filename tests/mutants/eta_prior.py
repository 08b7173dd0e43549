"""Mutants of the topic-prior sensitivity of McInerney et al. 2015's comparison (session 20): the claim "population VB
beats streaming VB, each at its best eta" (``_claims.pvb_beats_svb_at_best_eta``) and its figure
(workflow/figures/eta_pvb_svb.py). Each was watched killed by the listed tests, on hand-made traces whose verdict
and table are known by hand (``tests/test_figures.py::_eta_pvb_svb``)."""
from tests.mutants import Mutant

FIG = "tests/test_figures.py::"
CLAIMS = "workflow/figures/_claims.py"
PLUGIN = "workflow/figures/eta_pvb_svb.py"
JUDGED = FIG + "test_pvb_beats_svb_at_best_eta_pairs_each_methods_best_eta_and_shows_each_eta"
DRAWN = FIG + "test_eta_pvb_svb_figure_shows_each_method_at_its_best_other_setting_per_eta"
CITES = "McInerney et al. 2015, Fig. 1 under the topic prior eta"

MUTANTS = [
    Mutant(id="eta_claim_svb_at_its_worst", cites=CITES + " (streaming VB at its best eta and S)", path=CLAIMS,
           find='d.append(best["population_vb"].max() - best["streaming_vb"].max())',
           replace='d.append(best["population_vb"].max() - best["streaming_vb"].min())', tests=[JUDGED]),
    Mutant(id="eta_claim_pvb_averaged_over_eta", cites=CITES + " (population VB at its best eta)", path=CLAIMS,
           find='d.append(best["population_vb"].max() - best["streaming_vb"].max())',
           replace='d.append(best["population_vb"].mean() - best["streaming_vb"].max())', tests=[JUDGED]),
    Mutant(id="eta_claim_per_eta_sign", cites=CITES + " (the per-eta differences, population VB minus streaming VB)",
           path=CLAIMS, find='(best["population_vb"] - best["streaming_vb"]).dropna().items()',
           replace='(best["streaming_vb"] - best["population_vb"]).dropna().items()', tests=[JUDGED]),
    Mutant(id="eta_claim_svb_cell_without_s", cites=CITES + " (a streaming VB cell is one (seed, eta, S))", path=CLAIMS,
           find='"p_batch_size"], "streaming VB"))', replace='"p_eta"], "streaming VB"))', tests=[JUDGED]),
    Mutant(id="eta_claim_pvb_cell_without_alpha", cites=CITES + " (a population VB cell is one (seed, eta, alpha))",
           path=CLAIMS, find='"p_log10_population"], "population VB")', replace='"p_eta"], "population VB")',
           tests=[JUDGED]),
    Mutant(id="eta_claim_every_stream", cites=CITES + " (time-ordered streams only: mcinerney_rows, shared with the "
           "Fig. 1 and 3 claims)", path=CLAIMS,
           find='frame = frame[(frame["eval_kind"] == "lookahead") & (frame["stream"] == "time_ordered")]',
           replace='frame = frame[(frame["eval_kind"] == "lookahead")]', tests=[JUDGED]),
    Mutant(id="eta_claim_reads_fig1", cites=CITES + " (its own experiments, eta_pvb_svb_*)", path=CLAIMS,
           find='mcinerney_rows(ctx, "eta_pvb_svb_")', replace='mcinerney_rows(ctx)', tests=[JUDGED]),
    Mutant(id="eta_figure_grouped_by_s", cites=CITES + " (a point per eta)", path=PLUGIN,
           find='for eta, at_eta in runs.groupby("p_eta"):', replace='for eta, at_eta in runs.groupby("p_batch_size"):',
           tests=[DRAWN]),
    Mutant(id="eta_figure_caption_worst_eta", cites=CITES + " (the caption names each method's best eta)", path=PLUGIN,
           find='["final loglik/word"].idxmax()]', replace='["final loglik/word"].idxmin()]', tests=[DRAWN]),
    Mutant(id="eta_figure_every_stream", cites=CITES + " (time-ordered streams only)", path=PLUGIN,
           find='& (frame["stream"] == "time_ordered")', replace='', tests=[DRAWN]),
]
