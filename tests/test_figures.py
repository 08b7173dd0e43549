"""The figure layer's contract (workflow/figures/*.py through figlib), the findings' judges and the paper's Typst
writer, without running the workflow (tests/test_ci_regression.py builds them on the ci profile)."""
import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "workflow" / "scripts"))
import build_paper  # noqa: E402
import figlib  # noqa: E402

sys.path.insert(0, str(figlib.PLUGIN_DIR))
import _claims  # noqa: E402


def test_every_figure_file_declares_the_contract_and_every_profile_draws_its_mirrors():
    names = [p.stem for p in figlib.PLUGIN_DIR.glob("[!_]*.py")]
    for name in names:
        plugin = figlib.load_plugin(name)
        assert plugin.FIGURE.paper in figlib.PAPERS and callable(plugin.draw)
    for profile in ("ci", "default", "paper"):
        config = yaml.safe_load((REPO / "workflow" / "config" / f"{profile}.yaml").read_text())
        found = figlib.discover(list(config["experiments"]))
        assert {"hoffman_fig1", "hoffman_fig2", "hoffman_table1", "paisley_fig11_3", "paisley_fig11_4",
                "mcinerney_fig1", "mcinerney_fig3", "hu_fig1", "hu_fig4", "hu_table1", "hu_fig5", "hu_fig6",
                "hu_table3", "findings"} <= set(found), profile
        assert found["mcinerney_fig1"][1] == [e for e in config["experiments"] if e.startswith("mcinerney_fig1_")]
        papers = [figure.paper for figure, _ in found.values()]
        assert papers == sorted(papers, key=list(figlib.PAPERS).index)  # paper order, findings last


@pytest.mark.parametrize("profile", ["default", "paper"])
def test_hoffman_fig2_can_judge_its_claim_from_the_shipped_budgets(profile):
    """The profiles that judge claims give Fig. 2 two seeds, and its largest online minibatch at least batch VB's
    document budget: per document online LDA costs no more than batch VB (RESULTS.md), and the paper gives every run
    the same 24 CPU hours (Hoffman et al. 2010, sec. 4). With less, "never reached" would be "stopped first"."""
    experiment = yaml.safe_load((REPO / "workflow" / "config" / f"{profile}.yaml").read_text())["experiments"]["hoffman_fig2"]
    passes = lambda run: (run.get("settings") or {}).get("passes", experiment["settings"]["passes"])  # noqa: E731
    online = [r for r in experiment["runs"] if r["method"] == "online_lda"]
    batch = next(r for r in experiment["runs"] if r["label"] == "batch_full")
    largest = max(online, key=lambda r: max(r["grid"]["batch_size"]))
    assert len(experiment["seeds"]) >= 2
    assert "train_subset" not in (batch.get("settings") or {}) and passes(largest) >= passes(batch), largest["label"]


def test_a_figure_without_its_experiment_is_not_built_and_outputs_follow_the_kind():
    assert "hoffman_fig1" not in figlib.discover(["hu_fig5"])
    figure = figlib.load_plugin("hoffman_table1").FIGURE
    assert set(figure.outputs("hoffman_table1").values()) == {
        "tables/hoffman_table1.md", "tables/hoffman_table1.csv", "report/captions/hoffman_table1.rst",
        "tables/hoffman_table1_grid.csv"}
    with pytest.raises(ValueError, match="paper 'nobody'"):
        figlib.Figure(paper="nobody", title="x", experiments=("x",))


def test_final_rows_keeps_the_last_checkpoint_of_each_run():
    frame = pd.DataFrame({"experiment": "e", "dataset": "d", "method": "m", "label": "l", "seed": [0, 0, 1, 1],
                          "p_K": [5, 5, 5, 5], "docs_seen": [10, 20, 10, 20], "x": [1.0, 2.0, 3.0, 4.0]})
    assert figlib.final_rows(frame)["x"].tolist() == [2.0, 4.0]
    assert figlib.final_rows(frame, keys=["experiment"])["x"].tolist() == [4.0]  # the given keys, not run_columns


def test_directional_judge_follows_the_sign_and_needs_two_replicates():
    assert _claims.directional([0.10, 0.11, 0.12], "d", "seeds").verdict == "reproduced"
    assert _claims.directional([-0.10, -0.11, -0.12], "d", "seeds").verdict == "not reproduced"
    assert _claims.directional([0.1, -0.1, 0.05], "d", "seeds").verdict == "mixed"
    assert _claims.directional([0.1], "d", "seeds").verdict == "cannot be judged"
    s = _claims.paired([1.0, 2.0, 3.0])
    # mean 2, sd 1, se 1/sqrt(3): t = 2 sqrt(3), df 2
    assert s["t"] == pytest.approx(2 * np.sqrt(3)) and s["lo"] == pytest.approx(2 - 4.302653 / np.sqrt(3), rel=1e-6)
    assert s["p"] == pytest.approx(stats.ttest_1samp([1.0, 2.0, 3.0], 0.0).pvalue, rel=1e-9)  # two-sided, as scipy's


def _correlation_ctx(planted, truth, fitted_topics, fitted_correlations):
    """The figure context the C-NMF correlation judge reads: paisley_fig11_4's planted truth and one fitted model."""
    class Model:
        def topics(self):
            return fitted_topics

        def topic_correlations(self):
            return fitted_correlations

    class Ctx:
        experiments = ["paisley_fig11_4"]

        def truth(self, experiment):
            return {"topics": planted, "correlation": truth}

        def model(self, experiment, method):
            return Model()

    return Ctx()


def test_paisley_correlation_judge_matches_topics_and_applies_fishers_z():
    """The judge matches each planted topic to its fitted copy (fitted rows here are the planted ones in a 5-cycle
    order, not an involution), compares the learned correlations in that order with the planted ones (Pearson r over
    the 10 off-diagonal pairs) and tests r > 0 by Fisher's z = artanh(r) sqrt(n - 3) (Fisher 1921), n = 10 pairs."""
    rng = np.random.default_rng(0)
    planted = rng.dirichlet(np.full(30, 0.1), size=5)
    a = rng.normal(size=(5, 5))
    truth = np.corrcoef(a @ a.T)
    noise = rng.normal(0.0, 0.3, size=(5, 5))
    learned = np.clip(truth + (noise + noise.T) / 2, -1, 1)
    np.fill_diagonal(learned, 1.0)
    perm = np.array([1, 2, 3, 4, 0])  # fitted topic i is planted topic perm[i]

    j = _claims.paisley_correlations(_correlation_ctx(planted, truth, planted[perm], learned[np.ix_(perm, perm)]))
    upper = np.triu_indices(5, 1)
    r = np.corrcoef(truth[upper], learned[upper])[0, 1]
    z = np.arctanh(r) * np.sqrt(10 - 3)
    assert f"Pearson r = {r:.3f}" in j.numbers and f"z = {z:.2f}, p = {stats.norm.sf(z):.3g}" in j.test, (r, z, j)


def test_every_claim_has_a_judge_and_a_missing_experiment_cannot_be_judged():
    class Empty:
        experiments, traces = [], pd.DataFrame(columns=["experiment", "docs_seen", "loglik_per_word", "p_K",
                                                        "p_batch_size", "seed"])

    for claim in _claims.CLAIMS:
        j = claim["judge"](Empty())
        assert j.verdict == "cannot be judged" and "missing experiment" in j.test, claim["claim"]


def test_typst_text_is_escaped_as_string_literals():
    assert build_paper.typst_str('a "b" \\ #c $d$ [e]') == '"a \\"b\\" \\\\ #c $d$ [e]"'
    source = build_paper.to_typst([("heading", 2, "Sec #1"), ("para", 'say "x" = $y$'),
                                   ("table", ["a", "b"], [["1", "2|3"]])], Path("/r"), "T")
    assert '#heading(level: 1, "Sec #1")' in source and '#par("say \\"x\\" = $y$")' in source
    assert 'table.header(strong("a"), strong("b")), "1", "2|3"' in source
    # column widths: the square root of each column's longest cell (header included; short rows padded), in [1, 400]
    assert build_paper.column_widths(["a", "bbbb", ""], [["cccccccc", "d"], ["e"]]) == "(2.83fr, 2.00fr, 1.00fr,)"
    assert build_paper.column_widths(["a"], [["x" * 900]]) == "(20.00fr,)"
    five, six = (build_paper.to_typst([("table", list("abcdef"[:n]), [["1"]])], Path("/r"), "T") for n in (5, 6))
    assert "#text(size: 8pt, table(" in five and "#text(size: 7pt, table(" in six  # more than five columns: smaller
    assert 'strong("f")), "1", "", "", "", "", ""))' in six  # a short row is padded to the header's width
    assert build_paper.to_typst([("table", ["a", "bb"], [["1", "2", "3"]])], Path("/r"), "T").endswith(
        '#text(size: 8pt, table(columns: (1.00fr, 1.41fr,), stroke: 0.4pt, inset: 3pt, table.header(strong("a"), '
        'strong("bb")), "1", "2"))\n')  # a long row is cut to the header's width
    assert build_paper.to_typst([("table", ["a"], [])], Path("/r"), "T").endswith('table.header(strong("a"))))\n')
    assert build_paper.to_typst([("figure", "/r/figures/f.png", "cap")], Path("/r"), "T").endswith(
        '#figure(image("/figures/f.png", width: 100%), caption: text(size: 8pt, "cap"))\n')  # relative to the root


def test_markdown_parts_round_trip_through_blocks():
    text = "### Title\n\nCaption text\nsecond line.\n\n| a | b |\n|---|---:|\n| x \\| y | 1.5 |\n"
    blocks = build_paper.parse_markdown(text)
    assert blocks == [("heading", 3, "Title"), ("para", "Caption text second line."),
                      ("table", ["a", "b"], [["x | y", "1.5"]])]
    # a paragraph line right after a table ends the table (and a table line right after a paragraph the paragraph)
    assert build_paper.parse_markdown("before\n| a |\n|---|\n| 1 |\nafter") == [
        ("para", "before"), ("table", ["a"], [["1"]]), ("para", "after")]


# -- the judges' verdicts on traces whose answer is known by construction ---------------------------------------------
class _Ctx:
    """The figure context a judge reads: experiment names and their trace frames."""

    def __init__(self, frames):
        self.frames, self.experiments = frames, list(frames)
        self.traces = pd.concat(frames.values(), ignore_index=True)

    def frame(self, experiment):
        return self.frames[experiment]


def _run(experiment, method, label, seed, docs, perplexity, seconds, **extra):
    return pd.DataFrame({"experiment": experiment, "dataset": "d", "method": method, "label": label, "seed": seed,
                         "docs_seen": docs, "perplexity": perplexity, "elbo_per_word": np.nan, "fit_cpu_s": seconds,
                         "fit_wall_s": seconds, "loglik_per_word": -np.log(perplexity), **extra})


def test_hoffman_faster_is_reproduced_when_online_reaches_batch_vbs_final_perplexity_sooner():
    """Hoffman et al. 2010, Fig. 2: online LDA reaches batch VB's final perplexity in a fraction of its time. Batch VB
    ends at perplexity 150 after 300 CPU s; online reaches 150 after 20-30 s: log(300/t) > 0 on every seed."""
    rows = []
    for seed, t in zip(range(3), (20.0, 25.0, 30.0)):
        rows.append(_run("hoffman_fig2", "batch_lda", "batch_full", seed, [1, 2, 3], [300.0, 200.0, 150.0], [100.0, 200.0, 300.0]))
        rows.append(_run("hoffman_fig2", "online_lda", "online_S256", seed, [1, 2, 3], [180.0, 150.0, 130.0], [t / 2, t, 2 * t]))
    j = _claims.hoffman_faster(_Ctx({"hoffman_fig2": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "reproduced", j.numbers
    assert f"ratio {np.exp(np.mean(np.log([300 / 20, 300 / 25, 300 / 30]))):.2f}x" in j.numbers


def test_hu_fraction_is_reproduced_when_lgnmf_reaches_ldas_final_perplexity_sooner():
    """Hu et al. 2014, Figs. 1-2: LG-NMF reaches batch LDA's final perplexity (150 after 300 s) in 50-70 s."""
    rows = []
    for seed, t in zip(range(3), (50.0, 60.0, 70.0)):
        rows.append(_run("hu_fig1", "batch_lda", "lda", seed, [1, 2, 3], [300.0, 200.0, 150.0], [100.0, 200.0, 300.0]))
        rows.append(_run("hu_fig1", "lgnmf", "lg", seed, [1, 2, 3], [200.0, 150.0, 140.0], [t / 2, t, 2 * t], p_grid_size=10))
    j = _claims.hu_offline(_Ctx({"hu_fig1": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "reproduced", j.numbers
    assert f"LG-NMF/LDA time ratio {np.exp(np.mean(np.log([50 / 300, 60 / 300, 70 / 300]))):.2f}" in j.numbers
    assert f"per grid point {np.mean([50 / 10 / 300, 60 / 10 / 300, 70 / 10 / 300]):.2f}" in j.numbers, j.numbers


def _mcinerney(peaks):
    """Population VB's final look-ahead scores on a log10-alpha grid, per dataset peaking at ``peaks[dataset]``
    (0.05 nats/word per decade away from it, seed noise 0.001), N = 10^4 documents (nearest grid point 4)."""
    rows = []
    for dataset, peak in peaks.items():
        for seed in range(3):
            for x in (2.0, 3.0, 4.0, 5.0, 6.0):
                rows.append({"experiment": "mcinerney_fig1_" + dataset, "dataset": dataset, "method": "population_vb",
                             "label": "pvb", "seed": seed, "p_log10_population": x, "docs_seen": 100,
                             "eval_kind": "lookahead", "stream": "time_ordered", "corpus_size": 10_000,
                             "loglik_per_word": -7.0 - 0.05 * abs(x - peak) + 0.001 * seed * x})
    frame = pd.DataFrame(rows)
    return _Ctx({e: g for e, g in frame.groupby("experiment")})


def test_mcinerney_alpha_not_n_follows_where_the_best_alpha_is():
    """McInerney et al. 2015, Fig. 3: the best alpha often differs from the true N. Best at the grid point nearest N on
    every corpus: not reproduced; best elsewhere on one corpus of two: reproduced ("at least half of the corpora")."""
    assert _claims.mcinerney_alpha_not_n(_mcinerney({"a": 4.0, "b": 4.0})).verdict == "not reproduced"
    j = _claims.mcinerney_alpha_not_n(_mcinerney({"a": 4.0, "b": 2.0}))
    assert j.verdict == "reproduced" and "b: log10 N = 4.00, best log10 alpha = 2" in j.numbers, j.numbers


def test_mcinerney_pvb_beats_svb_compares_the_best_alpha_with_streaming_vbs_best_setting():
    """McInerney et al. 2015, Fig. 1: per (corpus, seed), population VB at its best alpha minus streaming VB at its best
    setting. Population VB peaks at log10 alpha = 4 with -7 + 0.004 seed; streaming VB's two settings end at -7.10 and
    -7.02: the differences are 0.02 + 0.004 seed, mean 0.024 over seeds 0-2."""
    frame = _mcinerney({"a": 4.0}).frames["mcinerney_fig1_a"]
    svb = [{**frame.iloc[0].to_dict(), "method": "streaming_vb", "label": f"svb_S{size}", "p_log10_population": np.nan,
            "p_batch_size": size, "seed": seed, "loglik_per_word": score}
           for seed in range(3) for size, score in ((64, -7.10), (256, -7.02))]
    ctx = _Ctx({"mcinerney_fig1_a": pd.concat([frame, pd.DataFrame(svb)], ignore_index=True)})
    j = _claims.mcinerney_pvb_beats_svb(ctx)
    assert "mean 0.0240 over 3" in j.numbers and j.verdict == "reproduced", j.numbers


def test_mcinerney_pvb_beats_svb_names_each_methods_eta():
    """The judgement states the topic prior each method ran at: streaming VB's topics are smoothed by eta alone, so a
    reader must see whether the comparison was at one small eta (here population VB 0.01, streaming VB 0.01 and 0.5)."""
    frame = _mcinerney({"a": 4.0}).frames["mcinerney_fig1_a"].assign(p_eta=0.01)
    svb = [{**frame.iloc[0].to_dict(), "method": "streaming_vb", "label": f"svb_eta{eta}", "p_log10_population": np.nan,
            "p_eta": eta, "seed": seed, "loglik_per_word": -7.1} for seed in range(3) for eta in (0.01, 0.5)]
    j = _claims.mcinerney_pvb_beats_svb(_Ctx({"mcinerney_fig1_a": pd.concat([frame, pd.DataFrame(svb)], ignore_index=True)}))
    assert "topic prior eta: population VB 0.01, streaming VB 0.01, 0.5" in j.test, j.test


def _eta_pvb_svb(pvb, svb, seeds=3):
    """Final look-ahead scores of an eta_pvb_svb_a experiment: population VB's ``pvb[(eta, log10 alpha)]`` and streaming
    VB's ``svb[(eta, S)]``, each plus 0.001 x seed on population VB (seed noise), time-ordered; and streaming VB's runs
    again on a shuffled stream at -5.0, which the claim and the figure must leave out."""
    rows = [{"method": "population_vb", "label": "pvb", "p_eta": eta, "p_log10_population": x, "p_batch_size": 128,
             "seed": seed, "loglik_per_word": score + 0.001 * seed} for (eta, x), score in pvb.items() for seed in range(seeds)]
    rows += [{"method": "streaming_vb", "label": "svb", "p_eta": eta, "p_log10_population": np.nan, "p_batch_size": size,
              "seed": seed, "loglik_per_word": score} for (eta, size), score in svb.items() for seed in range(seeds)]
    frame = pd.DataFrame(rows).assign(experiment="eta_pvb_svb_a", dataset="a", docs_seen=100, eval_kind="lookahead",
                                      stream="time_ordered", unigram_loglik_per_word=-8.0, p_K=30, p_alpha=0.0333,
                                      protocol="halves")
    permuted = frame[frame["method"] == "streaming_vb"].assign(stream="shuffled", loglik_per_word=-5.0)
    return pd.concat([frame, permuted], ignore_index=True)  # another stream's runs, better than all: never read


ETA_PVB = {(0.01, 4.0): -7.0, (0.01, 5.0): -7.05, (0.5, 4.0): -7.08, (0.5, 5.0): -7.05}
ETA_SVB = {(0.01, 128): -7.3, (0.01, 1024): -7.2, (0.5, 128): -7.0, (0.5, 1024): -6.95}


def test_pvb_beats_svb_at_best_eta_pairs_each_methods_best_eta_and_shows_each_eta():
    """Population VB's best (eta, alpha) is (0.01, 10^4) at -7.0 + 0.001 seed; streaming VB's best (eta, S) is (0.5,
    1024) at -6.95: differences -0.05 + 0.001 seed, mean -0.049, every seed below 0 (not reproduced), though at eta =
    0.01 alone population VB leads by 0.2 + 0.001 seed (mean +0.2010) and at eta = 0.5 trails by 0.1 - 0.001 seed
    (-6.95 against -7.05 + 0.001 seed: mean -0.0990)."""
    j = _claims.pvb_beats_svb_at_best_eta(_Ctx({"eta_pvb_svb_a": _eta_pvb_svb(ETA_PVB, ETA_SVB)}))
    assert j.verdict == "not reproduced" and "mean -0.0490 over 3" in j.numbers, j.numbers
    assert "eta_pvb_svb_a eta = 0.01: +0.2010, eta_pvb_svb_a eta = 0.5: -0.0990" in j.numbers, j.numbers


def test_pvb_beats_svb_at_best_eta_refuses_two_runs_in_one_cell():
    """Two population VB runs at one (seed, eta, alpha) -- another kappa under the label -- would be maxed together."""
    frame = _eta_pvb_svb(ETA_PVB, ETA_SVB)
    extra = frame[frame["method"] == "population_vb"].assign(p_kappa=0.9, loglik_per_word=-6.0)
    j = _claims.pvb_beats_svb_at_best_eta(_Ctx({"eta_pvb_svb_a": pd.concat([frame.assign(p_kappa=0.7), extra])}))
    assert j.verdict == "cannot be judged" and "population VB" in j.test, j.test


def test_eta_pvb_svb_figure_shows_each_method_at_its_best_other_setting_per_eta(tmp_path):
    """Per eta, population VB at its best alpha by the mean over seeds (eta = 0.5: 10^5 at -7.05 + 0.001, not 10^4 at
    -7.08 + 0.001) and streaming VB at its best S (eta = 0.01: S = 1024 at -7.2); the caption names each method's best
    eta."""
    ctx = _PlotCtx({"eta_pvb_svb_a": _eta_pvb_svb(ETA_PVB, ETA_SVB)}, tmp_path)
    figlib.load_plugin("eta_pvb_svb").draw(ctx)
    got = ctx.written.set_index(["method", "eta"])
    assert got.loc[(figlib.name("population_vb"), 0.5), "best setting"] == "alpha = 10^5"
    assert got.loc[(figlib.name("population_vb"), 0.5), "final loglik/word"] == pytest.approx(-7.05 + 0.001)
    assert got.loc[(figlib.name("streaming_vb"), 0.01), "best setting"] == "S = 1024"
    assert got.loc[(figlib.name("streaming_vb"), 0.01), "final loglik/word"] == pytest.approx(-7.2)
    assert f"a {figlib.name('streaming_vb')} eta = 0.5 (-6.9500)" in ctx.caption, ctx.caption


def test_mcinerney_best_setting_has_the_best_mean_over_seeds():
    """McInerney et al. 2015, Figs. 1 and 3 draw each method at its best setting: the highest final score averaged over
    seeds. S = 64 scores -7.0 and -7.3 (mean -7.15), S = 256 -7.2 twice: S = 64, though S = 256 wins on seed 1."""
    import _mcinerney

    runs = pd.DataFrame([{"method": "streaming_vb", "label": "svb", "p_batch_size": size, "seed": seed, "docs_seen": 1,
                          "loglik_per_word": score}
                         for size, scores in ((64, (-7.0, -7.3)), (256, (-7.2, -7.2))) for seed, score in enumerate(scores)])
    setting, chosen = _mcinerney.best_setting(runs)
    assert setting == {"p_batch_size": 64} and len(chosen) == 2, setting


def test_hoffman_larger_corpus_is_reproduced_when_the_full_corpus_scores_higher():
    """Hoffman et al. 2010, Fig. 1: the full corpus beats a subset (higher final log predictive on every seed)."""
    rows = [pd.DataFrame({"experiment": "hoffman_fig1", "dataset": "d", "method": "online_lda", "label": label,
                          "seed": seed, "docs_seen": [1, 2], "loglik_per_word": [-8.0, score], "corpus_size": size})
            for seed in range(3) for label, score, size in (("online_full", -7.0 - 0.01 * seed, 100),
                                                            ("online_subset", -7.3, 20))]
    assert _claims.hoffman_larger_corpus(_Ctx({"hoffman_fig1": pd.concat(rows, ignore_index=True)})).verdict == "reproduced"


@pytest.mark.parametrize("full, subset", [(20, 20), (20, 100), ((100, 50), 20)])
def test_hoffman_larger_corpus_cannot_be_judged_unless_full_trains_on_more(full, subset):
    """The labels name the roles, the runs' training sizes must bear them out: online_full on as many documents as the
    subset, fewer, or on two sizes over its seeds cannot be judged (it was judged by the labels alone), naming the
    sizes."""
    sizes = {"online_full": full if isinstance(full, tuple) else (full,) * 3, "online_subset": (subset,) * 3}
    rows = [pd.DataFrame({"experiment": "hoffman_fig1", "dataset": "d", "method": "online_lda", "label": label,
                          "seed": seed, "docs_seen": [1, 2], "loglik_per_word": [-8.0, score],
                          "corpus_size": sizes[label][seed % len(sizes[label])]})
            for seed in range(3) for label, score in (("online_full", -7.0), ("online_subset", -7.3))]
    j = _claims.hoffman_larger_corpus(_Ctx({"hoffman_fig1": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "cannot be judged" and "online_full must train on more documents" in j.test, j


def test_hoffman_best_setting_is_the_lowest_bound_perplexity():
    """Hoffman et al. 2010, Table 1: the best (kappa, tau0) has the lowest perplexity bound exp(-elbo_per_word)."""
    rows = []
    for seed in range(3):
        for kappa, tau0, elbo in ((0.5, 1.0, -7.3), (0.7, 64.0, -7.0), (0.9, 1024.0, -7.1)):
            rows.append({"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid",
                         "seed": seed, "p_batch_size": 256, "p_kappa": kappa, "p_tau0": tau0, "docs_seen": 1,
                         "elbo_per_word": elbo - 0.001 * seed * kappa})
    j = _claims.hoffman_best_setting(_Ctx({"hoffman_table1": pd.DataFrame(rows)}))
    assert "best kappa = 0.7, tau0 = 64" in j.numbers and "runner-up kappa = 0.9, tau0 = 1024" in j.numbers, j.numbers
    assert j.verdict == "reproduced"


def _paisley(gaps):
    rows = []
    for i, (K, size) in enumerate(((50, 500), (50, 1000), (100, 500), (100, 1000))):
        for method, gap in zip(("bnmf", "cnmf", "online_lda"), gaps):
            rows.append({"experiment": "paisley_fig11_3", "dataset": "d", "method": method, "label": method, "seed": 0,
                         "p_K": K, "p_batch_size": size, "docs_seen": 1, "eval_kind": "batch",
                         "loglik_per_word": -7.0 + gap * (1 + 0.1 * i)})
    return _Ctx({"paisley_fig11_3": pd.DataFrame(rows)})


def test_hoffman_faster_takes_the_fastest_online_minibatch_size():
    """Hoffman et al. 2010, Fig. 2: the claim is about the fastest online S. S = 16 reaches batch VB's final perplexity
    (150 after 300 s) after 20 s, S = 256 after 60 s: the ratio is 300 / 20 on every seed."""
    rows = []
    for seed in range(3):
        rows.append(_run("hoffman_fig2", "batch_lda", "batch_full", seed, [1, 2, 3], [300.0, 200.0, 150.0], [100.0, 200.0, 300.0]))
        for label, t in (("online_S16", 20.0), ("online_S256", 60.0)):
            rows.append(_run("hoffman_fig2", "online_lda", label, seed, [1, 2, 3], [180.0, 150.0, 130.0], [t / 2, t, 2 * t]))
    j = _claims.hoffman_faster(_Ctx({"hoffman_fig2": pd.concat(rows, ignore_index=True)}))
    assert f"ratio {300 / 20:.2f}x" in j.numbers, j.numbers


def test_paisley_comparable_needs_every_interval_inside_the_margin():
    """Paisley et al. 2014, Fig. 11.3: "roughly the same" = every pairwise 95% interval inside +-0.05 nats/word.
    Differences of ~0.01: reproduced; C-NMF ~0.04 above the others, its interval straddling the margin: mixed
    (an interval that merely overlaps the margin is no equivalence); ~0.3 apart: not reproduced."""
    assert _claims.paisley_comparable(_paisley((0.0, 0.01, 0.005))).verdict == "reproduced"
    assert _claims.paisley_comparable(_paisley((0.0, 0.045, 0.0))).verdict == "mixed"
    assert _claims.paisley_comparable(_paisley((0.0, 0.001, 0.045))).verdict == "mixed"  # straddling -0.05 as well
    assert _claims.paisley_comparable(_paisley((0.0, 0.3, 0.0))).verdict == "not reproduced"


def _grid(column, values, score):
    rows = [{"experiment": "e", "dataset": "d", "method": "online_lda", "label": "g", "seed": seed, column: v,
             "docs_seen": 1, "loglik_per_word": score(v) + 0.001 * seed * i}
            for seed in range(3) for i, v in enumerate(values)]
    return _Ctx({"e": pd.DataFrame(rows)})


def test_scaling_batch_first_gain_is_smallest_to_middle_minibatch():
    """The minibatch-size judge's first gain is from the smallest to the middle S (S = 16 -> 64: -0.05 nats/word here,
    +0.001 seed from the grid's seed noise: mean -0.049), and the diminishing return compares it with the middle to
    largest gain (+0.15): neither holds."""
    score = {16: -7.0, 64: -7.05, 256: -6.9}
    j = _claims.scaling_batch(_grid("p_batch_size", (16, 64, 256), lambda s: score[s]))
    assert "gain from the smallest to the middle S: mean -0.0490" in j.numbers and j.verdict == "not reproduced", j.numbers


def test_scaling_judges_follow_the_direction_of_the_gains():
    """More topics help (score rises with K): reproduced. Minibatch size with a diminishing return (a concave rise
    over S = 16, 64, 256): reproduced; a convex rise (the second gain larger): not both parts hold."""
    assert _claims.scaling_k(_grid("p_K", (10, 50, 100), lambda k: -7.5 + 0.004 * k)).verdict == "reproduced"
    concave = _grid("p_batch_size", (16, 64, 256), lambda s: -7.0 + 0.1 * np.log2(s / 16) - 0.02 * np.log2(s / 16) ** 2)
    assert _claims.scaling_batch(concave).verdict == "reproduced"
    convex = _grid("p_batch_size", (16, 64, 256), lambda s: -7.0 + 0.02 * np.log2(s / 16) ** 2)
    assert _claims.scaling_batch(convex).verdict != "reproduced"


# -- the tables' numbers (a wrong best row is a wrong number) ----------------------------------------------------------
class _TableCtx(_Ctx):
    """A table's context: ``write`` keeps the table instead of writing files."""

    def __init__(self, frames, tmp_path):
        super().__init__(frames)
        self.tmp_path, self.written = tmp_path, None

    def output(self, role):
        return str(self.tmp_path / f"{role}.out")

    def corpus_caption(self, experiment):
        return "corpus"

    def write(self, caption, body="", table=None):
        self.written = table


def test_hoffman_table1_lists_each_minibatch_sizes_lowest_bound_setting(tmp_path):
    """Hoffman et al. 2010, Table 1: per S, the (kappa, tau0) with the lowest eq. 16 perplexity bound exp(-elbo/word)."""
    rows = []
    for seed in range(2):
        for size, best in ((16, (0.5, 64.0)), (256, (0.9, 1.0))):
            for kappa, tau0 in ((0.5, 64.0), (0.9, 1.0), (0.7, 256.0)):
                rows.append({"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid",
                             "seed": seed, "p_batch_size": size, "p_kappa": kappa, "p_tau0": tau0, "docs_seen": 1,
                             "elbo_per_word": -7.0 if (kappa, tau0) == best else -7.2 - 0.1 * kappa,
                             "perplexity": 1500.0 if (kappa, tau0) == best else 1600.0, "protocol": "document completion",
                             "npmi": 0.1 * seed + kappa, "topic_diversity": 0.5, "recovery_cosine": 0.8})
    ctx = _PlotCtx({"hoffman_table1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hoffman_table1").draw(ctx)
    assert "Grid: kappa in {0.5, 0.7, 0.9} x tau0 in {1, 64, 256}; final perplexity after 1 documents, mean over 2 " \
           "seed(s)." in ctx.caption, ctx.caption
    got = ctx.written.set_index("minibatch S")
    assert got.loc[16, ["best kappa", "best tau0"]].tolist() == [0.5, 64.0]
    assert got.loc[256, ["best kappa", "best tau0"]].tolist() == [0.9, 1.0]
    assert got.loc[16, "perplexity (eq. 16 bound)"] == pytest.approx(np.exp(7.0))
    assert got.loc[16, ["NPMI", "diversity", "recovery cos"]].tolist() == pytest.approx([0.55, 0.5, 0.8])  # the best's
    assert "(choosing by it picks the same settings)" in ctx.caption, ctx.caption
    grid = pd.read_csv(tmp_path / "extra0.out")  # the full grid: one row per (S, kappa, tau0), no index column
    assert list(grid.columns[:3]) == ["p_batch_size", "p_kappa", "p_tau0"] and len(grid) == 6, grid.columns


def test_paisley_table11_3_lists_the_most_probable_topics_and_their_most_probable_words(tmp_path):
    """Paisley et al. 2014, Table 11.3: topics ranked by probability (the model's topic_weights, largest first), each
    with its most probable words, largest probability first. Three topics over 12 planted-name words (tKKKwRRR):
    weights 1, 5, 3 rank topics 1, 2, 0; each topic's words have probabilities falling with a random order."""
    rng = np.random.default_rng(0)
    vocab = [f"t{k:03d}w{r:03d}" for k in range(3) for r in range(4)]
    order = [rng.permutation(12) for _ in range(3)]  # topic k's words from most to least probable
    topics = np.zeros((3, 12))
    for k in range(3):
        topics[k, order[k]] = np.linspace(1.0, 0.1, 12)
    topics /= topics.sum(axis=1, keepdims=True)

    class Model:
        hyper, docs_seen = {"K": 3, "batch_size": 10, "m": 2}, 100

        def topics(self):
            return topics

        def topic_weights(self):
            return np.array([1.0, 5.0, 3.0])

    class Ctx(_TableCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return Model()

        def vocab(self, experiment):
            return vocab

    ctx = Ctx({"paisley_fig11_4": pd.DataFrame()}, tmp_path)
    figlib.load_plugin("paisley_table11_3").draw(ctx)
    assert ctx.written["rank"].tolist() == [1, 2, 3]
    for row, k in zip(ctx.written["most probable words"], (1, 2, 0)):
        assert row == ", ".join(vocab[w] for w in order[k][:10]), (k, row)


def test_lgnmf_grid_record_is_in_log10_alpha():
    """Hu et al. 2014, Fig. 4's axis is log10 alpha; LG-NMF stores its grid in natural log alpha (methods/lgnmf.py)."""
    from types import SimpleNamespace

    model = SimpleNamespace(name="lgnmf", grid_log_alpha=np.log([0.1, 1.0, 10.0]), grid_weights=np.array([0.2, 0.5, 0.3]),
                            validation=np.full(3, np.nan), search=np.zeros((0, 3)), mode_log10_alpha=0.0,
                            log10_alpha_sd=1.0)
    np.testing.assert_allclose(figlib.lgnmf_grid(model).log10_alpha, [-1.0, 0.0, 1.0], atol=1e-12)


def test_hu_table1_reports_means_over_seeds(tmp_path):
    """Hu et al. 2014, Table 1: per method the final perplexity and topic quality averaged over seeds (final checkpoint
    of each run): perplexities 900 and 1000 give 950, NPMI 0.1 and 0.3 give 0.2; the unigram row is the baseline's."""
    rows = [{"experiment": "hu_table1", "dataset": "psy", "method": "lgnmf", "label": "lg", "seed": seed, "docs_seen": docs,
             "perplexity": perplexity if docs == 2 else 5000.0, "npmi": npmi, "unigram_perplexity": 2000.0,
             "protocol": "document completion"}
            for seed, perplexity, npmi in ((0, 900.0, 0.1), (1, 1000.0, 0.3)) for docs in (1, 2)]
    ctx = _TableCtx({"hu_table1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_table1").draw(ctx)
    got = ctx.written.set_index("method")
    assert got["perplexity"].tolist() == pytest.approx([950.0, 2000.0]) and got["NPMI"].iloc[0] == pytest.approx(0.2)
    assert list(ctx.written.columns) == ["corpus", "method", "perplexity", "seeds", "NPMI"]  # each column once


def test_mcinerney_fig3_table_reads_the_best_alpha_the_nearest_n_and_streaming_vbs_best():
    """McInerney et al. 2015, Fig. 3: per corpus the best log10 alpha (highest mean score), the grid point nearest
    log10 N (N = 3,000: 3.48, nearest 3, not ln N = 8.0) and streaming VB at its best minibatch size; each the mean over
    seeds (noise 0, 0.001, 0.004: mean 0.005 / 3, median 0.001)."""
    plugin = figlib.load_plugin("mcinerney_fig3")
    rows = []
    for seed in range(3):
        for x in (2.0, 3.0, 4.0, 5.0, 6.0, 7.0):
            rows.append({"method": "population_vb", "p_log10_population": x, "p_batch_size": np.nan,
                         "loglik_per_word": -7.0 - 0.05 * abs(x - 5.0) + 0.001 * seed ** 2})
        for size, score in ((128, -7.3), (1024, -7.1)):
            rows.append({"method": "streaming_vb", "p_log10_population": np.nan, "p_batch_size": size,
                         "loglik_per_word": score + 0.001 * seed ** 2})
        for row in rows[-8:]:
            row.update(experiment="mcinerney_fig1_x", dataset="d", label=row["method"], seed=seed, docs_seen=1,
                       stream="time_ordered", eval_kind="lookahead", corpus_size=3000)
    table = plugin.alpha_table(pd.DataFrame(rows))
    row = table.iloc[0]
    assert row["best log10 alpha"] == 5.0 and row["log10 alpha nearest N"] == 3.0
    assert row["PVB at best alpha"] == pytest.approx(-7.0 + 0.005 / 3)  # the mean over the seeds at alpha = 10^5
    assert row["PVB at alpha nearest N"] == pytest.approx(-7.1 + 0.005 / 3)
    assert row["streaming VB"] == pytest.approx(-7.1 + 0.005 / 3)
    assert row["seeds"] == 3


# -- fifth pass: the numbers a reader sees, each known by construction -------------------------------------------------
def test_paired_is_the_mean_and_the_verdict_is_at_the_five_percent_level():
    """paired's centre is the mean (d = 1, 1, 4: mean 2, median 1; sd sqrt(3), se 1, t = 2). With 2 degrees of freedom
    Student's t has the closed form two-sided p = 1 - t / sqrt(2 + t^2): d = 5 -+ sqrt(3), 5 has t = 5 and
    p = 1 - 5 / sqrt(27) = 0.0377, inside 5% (reproduced) though outside 2.5%."""
    s = _claims.paired([1.0, 1.0, 4.0])
    assert s["mean"] == pytest.approx(2.0) and s["sd"] == pytest.approx(np.sqrt(3)) and s["t"] == pytest.approx(2.0)
    d = [5 - np.sqrt(3), 5.0, 5 + np.sqrt(3)]
    assert _claims.paired(d)["p"] == pytest.approx(1 - 5 / np.sqrt(27), rel=1e-9)
    assert _claims.directional(d, "d", "seeds").verdict == "reproduced"


def test_identical_replicates_are_no_evidence_either_way():
    """Differences all exactly 0 (two methods that give the same numbers on every seed) have t = 0 and p = 1: the claim
    is mixed, not "not reproduced" at p = 0. A constant nonzero difference has no spread and is certain."""
    s = _claims.paired([0.0, 0.0, 0.0])
    assert s["t"] == 0.0 and s["p"] == 1.0
    assert _claims.directional([0.0, 0.0, 0.0], "d", "seeds").verdict == "mixed"
    assert _claims.paired([0.5, 0.5, 0.5])["p"] == 0.0
    assert _claims.directional([0.5, 0.5, 0.5], "d", "seeds").verdict == "reproduced"
    assert _claims.directional([-0.5, -0.5, -0.5], "d", "seeds").verdict == "not reproduced"


def test_reached_or_not_needs_two_replicates_and_is_not_reproduced_when_none_reached():
    """A "reaches the target" claim: no replicate reached it (0 of 3) is not reproduced, some did (1 of 3) is mixed,
    one replicate cannot be judged whichever way it went."""
    assert _claims.reached_or_not("", 0, 3, "seeds").verdict == "not reproduced"
    assert _claims.reached_or_not("", 1, 2, "seeds").verdict == "mixed"
    assert _claims.reached_or_not("", 0, 1, "seeds").verdict == "cannot be judged"
    assert _claims.reached_or_not("", 1, 0, "seeds").verdict == "cannot be judged"


def test_hoffman_best_setting_is_mixed_when_the_minibatch_sizes_disagree_and_counts_the_fewest_seeds():
    """S = 16 has a clear best (elbo -7.0 vs -7.3 on 3 seeds: reproduced), S = 256 a tie inside the seed noise on 2
    seeds (differences +0.01 and -0.01: mixed): the claim's parts disagree (mixed) and n is the fewest seeds, 2."""
    rows = []
    for size, seeds, elbos in ((16, range(3), lambda s: (-7.0 - 0.001 * s, -7.3)),
                               (256, range(2), lambda s: (-7.0, -7.0 + (0.01 if s else -0.01)))):
        for seed in seeds:
            for (kappa, tau0), elbo in zip(((0.5, 1.0), (0.9, 64.0)), elbos(seed)):
                rows.append({"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid",
                             "seed": seed, "p_batch_size": size, "p_kappa": kappa, "p_tau0": tau0, "docs_seen": 1,
                             "elbo_per_word": elbo})
    j = _claims.hoffman_best_setting(_Ctx({"hoffman_table1": pd.DataFrame(rows)}))
    assert j.verdict == "mixed" and j.n == 2, (j.verdict, j.n, j.numbers)


def test_hu_fraction_times_both_methods_on_the_wall_clock_and_online_uses_online_lda():
    """Hu et al. 2014: both fits are timed on the same clock (fit wall seconds). LG-NMF's CPU seconds are 4x its wall
    seconds here (threads) and must not enter: LDA 300 s, LG-NMF reaches it at 60 s wall, log(300 / 60) on each seed.
    The online claim (Figs. 5-6) sets LG-NMF against online LDA (hu_fig5 has no batch LDA)."""
    rows = []
    for seed in range(3):
        rows.append(_run("hu_fig5", "online_lda", "lda", seed, [1, 2, 3], [300.0, 200.0, 150.0], [100.0, 200.0, 300.0]))
        lg = _run("hu_fig5", "lgnmf", "lg", seed, [1, 2, 3], [200.0, 150.0 - seed, 140.0], [30.0, 60.0, 120.0],
                  p_grid_size=10)
        rows.append(lg.assign(fit_cpu_s=4 * lg["fit_wall_s"]))
    j = _claims.hu_online(_Ctx({"hu_fig5": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "reproduced" and f"mean {np.log(300 / 60):.3f} over 3" in j.numbers, j.numbers


def test_scaling_k_compares_the_largest_k_with_the_smallest_over_any_labels():
    """Fit vs K: the gain is the largest K's score minus the smallest's (K = 10, 50, 100 at -7.5, -7.6, -7.0: +0.5,
    though K = 50 is worse than K = 10); two K values are enough; runs of different labels that differ only in K are
    one group (each K its own run label here)."""
    j = _claims.scaling_k(_grid("p_K", (10, 50, 100), lambda k: {10: -7.5, 50: -7.6, 100: -7.0}[k]))
    # _grid's seed noise 0.001 seed i adds 0.002 seed at the largest K (i = 2): gains 0.500, 0.502, 0.504
    assert j.verdict == "reproduced" and "mean 0.5020" in j.numbers, j.numbers
    two = _grid("p_K", (10, 100), lambda k: -7.5 + 0.004 * k)
    assert _claims.scaling_k(two).verdict == "reproduced"
    frame = two.frames["e"].assign(label=lambda f: "K" + f["p_K"].astype(str))
    assert _claims.scaling_k(_Ctx({"e": frame})).verdict == "reproduced"


def test_mean_spread_aligns_checkpoints_by_position_and_reports_mean_min_max_over_seeds():
    """Three seeds whose checkpoints fall at slightly different documents (10 + seed, 20 + seed): checkpoint i is the
    i-th of each seed; x is the mean of their documents (11, 21); y 1, 2, 6 gives mean 3 (median 2), min 1, max 6."""
    frame = pd.DataFrame({"seed": [0, 0, 1, 1, 2, 2], "docs_seen": [10, 20, 11, 21, 12, 22],
                          "y": [1.0, 10.0, 2.0, 20.0, 6.0, 60.0]}).sample(frac=1.0, random_state=0)
    got = figlib.mean_spread(frame, "docs_seen", "y")
    assert got["x"].tolist() == [11.0, 21.0]
    assert got["mean"].tolist() == pytest.approx([3.0, 30.0])
    assert got["low"].tolist() == [1.0, 10.0] and got["high"].tolist() == [6.0, 60.0]


def test_quality_columns_keep_a_score_that_some_methods_lack_and_the_grid_record_keeps_its_columns():
    """A quality score present for one method and NaN for another (a method without topics) stays a column, NaN where
    missing. LG-NMF's search record is rows of (log10 alpha, eq. 8 + log alpha, validation): two evaluations stored
    flat come back as 2 rows of 3."""
    final = pd.DataFrame({"method": ["a", "a", "b"], "npmi": [0.1, 0.3, np.nan]})
    got = figlib.quality_columns(final, ["method"])
    assert got.loc["a", "NPMI"] == pytest.approx(0.2) and np.isnan(got.loc["b", "NPMI"])
    from types import SimpleNamespace

    model = SimpleNamespace(name="lgnmf", grid_log_alpha=np.log([1.0]), grid_weights=np.array([1.0]),
                            validation=np.full(1, np.nan), search=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).ravel(),
                            mode_log10_alpha=0.0, log10_alpha_sd=1.0)
    np.testing.assert_array_equal(figlib.lgnmf_grid(model).search[:, 0], [1.0, 4.0])


def test_hoffman_table1_grid_is_mean_sd_over_seeds_of_each_setting():
    """Hoffman et al. 2010, Table 1's full grid: per (S, kappa, tau0) the mean and sd over seeds of the final bound and
    completion perplexities. Bounds 100, 110, 150: mean 120 (median 110), sd sqrt((400 + 100 + 900) / 2) = sqrt(700);
    completion 200, 220, 300: mean 240; the seeds' runs end after 30, 40, 50 documents: 50 seen."""
    plugin = figlib.load_plugin("hoffman_table1")
    rows = [{"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid", "seed": seed,
             "p_batch_size": 16, "p_kappa": 0.5, "p_tau0": 1.0, "docs_seen": docs,
             "bound_perplexity": bound if docs == end else 9e9, "perplexity": completion if docs == end else 9e9}
            for seed, end, bound, completion in ((0, 30, 100.0, 200.0), (1, 40, 110.0, 220.0), (2, 50, 150.0, 300.0))
            for docs in (end - 10, end)]  # an earlier checkpoint (9e9) must not enter: only the final one counts
    frame = pd.DataFrame(rows)
    got = plugin.grid_table(frame).iloc[0]
    assert got["bound_perplexity"] == pytest.approx(120.0) and got["bound_perplexity_sd"] == pytest.approx(np.sqrt(700))
    assert got["completion_perplexity"] == pytest.approx(240.0) and got["docs_seen"] == 50 and got["seeds"] == 3
    assert got["completion_perplexity_sd"] == pytest.approx(np.sqrt((1600 + 400 + 3600) / 2))


class _PlotCtx(_TableCtx):
    """A figure's context: keeps the caption and the figure instead of writing files."""

    def save(self, fig):
        self.fig = fig

    def write(self, caption, body="", table=None):
        self.caption, self.body, self.written = caption, body, table


def test_hu_tables_report_means_over_seeds_wall_seconds_documents_seen_and_the_baseline(tmp_path):
    """Hu et al. 2014, Table 3: per method the final perplexity (seeds end at 900, 1000, 1400: mean 1100, median
    1000), the fit wall seconds (10, 20, 60: mean 30, median 20; CPU seconds are 4x, threads), the most documents any seed saw
    (100, 200, 300) and the seeds (3); the baseline row is the word-frequency perplexity (2000). Table 1: mean and seeds."""
    rows = [{"experiment": "hu_fig5", "dataset": "wiki", "method": "lgnmf", "label": "lg", "seed": seed,
             "docs_seen": docs, "perplexity": perplexity if docs == end else 9e9, "fit_wall_s": wall * docs / end,
             "fit_cpu_s": 4 * wall * docs / end, "unigram_perplexity": 2000.0, "protocol": "document completion",
             "p_K": 5, "p_batch_size": 10, "p_grid_size": 3, "p_grid": "laplace", "p_criterion": "validation",
             "p_eta": 0.003, "p_sgd_iters": 25}
            for seed, end, perplexity, wall in ((0, 100, 900.0, 10.0), (1, 200, 1000.0, 20.0), (2, 300, 1400.0, 60.0))
            for docs in (end // 2, end)]
    ctx = _PlotCtx({"hu_fig5": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_table3").draw(ctx)
    got = ctx.written.set_index("method")
    lg, base = got.loc["online LG-NMF"], got.loc[figlib.BASELINE.name]
    assert lg["perplexity"] == pytest.approx(1100.0) and lg["fit wall s"] == pytest.approx(30.0)
    assert lg["documents seen"] == 300 and lg["seeds"] == 3 and base["perplexity"] == pytest.approx(2000.0)
    ctx = _PlotCtx({"hu_fig1": pd.DataFrame(rows).assign(experiment="hu_fig1")}, tmp_path)
    figlib.load_plugin("hu_table1").draw(ctx)
    assert ctx.written.set_index("method").loc[figlib.name("lgnmf"), ["perplexity", "seeds"]].tolist() == [1100.0, 3]
    assert "(wiki: corpus; protocol document completion)" in ctx.caption, ctx.caption


def test_hu_online_caption_says_when_a_pass_ends_with_a_short_minibatch():
    """Sec. 4's minibatches are all of size B. 10,000 training documents in minibatches of 256 end each pass with
    16 (10,000 - 39 x 256): the caption says so; 10,240 = 40 x 256 ends with a whole one, and it says nothing."""
    import _hu  # the figure plugins' folder is on sys.path (above)

    def frame(n):
        return pd.DataFrame([{"method": "lgnmf", "corpus_size": n, "p_batch_size": 256.0, "p_sgd_iters": 25.0}])
    assert "ends with a minibatch of 16 (10,000 mod 256)" in _hu.short_last_minibatch(frame(10_000))
    assert "16 / 256" in _hu.short_last_minibatch(frame(10_000))
    assert _hu.short_last_minibatch(frame(10_240)) == ""


def _draw_table11_4(tmp_path, topics, vocab):
    """Paisley et al. 2014, Table 11.4 drawn from a stub C-NMF whose topic weights fall with the topic index."""
    K = topics.shape[0]

    class Model:
        hyper, docs_seen = {"K": K, "batch_size": 10, "m": 2}, 100

        def topics(self):
            return topics

        def topic_weights(self):
            return np.arange(float(K), 0.0, -1.0)

    class Ctx(_PlotCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return Model()

        def vocab(self, experiment):
            return vocab

    ctx = Ctx({"paisley_fig11_4": pd.DataFrame()}, tmp_path)
    figlib.load_plugin("paisley_table11_4").draw(ctx)
    return ctx


def test_paisley_tables_report_planted_purity_and_the_ranks_after_the_top_forty(tmp_path):
    """Paisley et al. 2014, Tables 11.3-11.4 on planted names: every topic's 10 most probable words are 7 of planted
    topic 000 and 3 of topic 001, purity 7/10 = 0.7. K = 45 topics of falling weight: Table 11.4 lists the ranks after
    the top 40, evenly spaced: 41-45."""
    vocab = [f"t{k:03d}w{r:03d}" for k in range(2) for r in range(10)]
    ranked = [0, 1, 2, 3, 4, 5, 6, 10, 11, 12] + [7, 8, 9, 13, 14, 15, 16, 17, 18, 19]  # most to least probable
    topics = np.zeros((45, 20))
    topics[:, ranked] = np.linspace(1.0, 0.1, 20)
    topics /= topics.sum(axis=1, keepdims=True)
    ctx = _draw_table11_4(tmp_path, topics, vocab)
    assert ctx.written["rank"].tolist() == [41, 42, 43, 44, 45]
    assert ctx.caption.startswith("Most probable words of 5 less probable topics, evenly spaced over ranks 41-45."), ctx.caption
    assert ctx.written["planted-topic purity"].tolist() == pytest.approx([0.7] * 5)
    assert "purity is the share of a topic's 10 words owned by one planted topic (mean 0.70 here)." in ctx.caption
    # topics 41-42 lead with plain words, 43-45 with planted names: purity where known, blank elsewhere
    mixed = np.zeros((45, 20))
    mixed[:42, 10:] = mixed[42:, :10] = np.linspace(1.0, 0.1, 10) / 5.5
    ctx = _draw_table11_4(tmp_path, mixed, vocab[:10] + [f"word{r}" for r in range(10)])
    assert ctx.written["planted-topic purity"].tolist() == pytest.approx([np.nan, np.nan, 1.0, 1.0, 1.0], nan_ok=True)
    ctx = _draw_table11_4(tmp_path, topics, [f"word{r}" for r in range(20)])  # no planted names: no purity at all
    assert "planted-topic purity" not in ctx.written and "purity" not in ctx.caption, ctx.caption


def test_paisley_table11_4_samples_eleven_of_the_ranks_after_the_top_forty(tmp_path):
    """Table 11.4 shows N_REST = 11 less probable topics: of K = 100, ranks 41-100 evenly spaced (41 + 5.9 i,
    rounded), not all 60."""
    vocab = [f"t000w{r:03d}" for r in range(10)]
    ctx = _draw_table11_4(tmp_path, np.tile(np.linspace(1.0, 0.1, 10) / 5.5, (100, 1)), vocab)
    assert ctx.written["rank"].tolist() == [41, 47, 53, 59, 65, 71, 76, 82, 88, 94, 100]
    assert ctx.caption.startswith("Most probable words of 11 less probable topics, evenly spaced over ranks 41-100.")


def _cycled_correlations():
    """Five planted topics with a planted correlation; the fitted topics are the planted ones in a 5-cycle order
    (fitted topic i is planted topic perm[i]) with a noisy copy of the correlation; returns (model, truth, r) where r is
    the Pearson r of the off-diagonal planted and learned correlations in the planted order."""
    rng = np.random.default_rng(0)
    planted = rng.dirichlet(np.full(30, 0.1), size=5)
    a = rng.normal(size=(5, 5))
    truth = np.corrcoef(a @ a.T)
    noise = rng.normal(0.0, 0.3, size=(5, 5))
    learned = np.clip(truth + (noise + noise.T) / 2, -1, 1)
    np.fill_diagonal(learned, 1.0)
    perm = np.array([1, 2, 3, 4, 0])

    class Model:
        def topics(self):
            return planted[perm]

        def topic_correlations(self):
            return learned[np.ix_(perm, perm)]

    off = ~np.eye(5, dtype=bool)
    return Model(), {"topics": planted, "correlation": truth}, np.corrcoef(truth[off], learned[off])[0, 1]


def test_paisley_fig11_4_reads_the_most_probable_topics_and_matches_planted_topics(tmp_path):
    """Paisley et al. 2014, Fig. 11.4: the 40 most probable of K = 42 topics. Among them correlations are +-0.5
    (sign by the parity of i + j: mean |corr| 0.5, signed mean not), the two least probable correlate -0.9 with
    every topic and must not appear."""
    K = 42
    i, j = np.indices((K, K))
    corr = np.where((i + j) % 2 == 0, 0.5, -0.5)
    corr[i >= 40], corr[j >= 40] = -0.9, -0.9
    np.fill_diagonal(corr, 1.0)

    class Model:
        name, hyper, docs_seen = "cnmf", {"K": K, "batch_size": 10, "m": 2}, 100

        def topic_weights(self):
            return np.arange(K, 0.0, -1.0)

        def topic_correlations(self):
            return corr

    class Ctx(_PlotCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return Model()

        def truth(self, experiment):
            return None

    ctx = Ctx({"paisley_fig11_4": pd.DataFrame()}, tmp_path)
    figlib.load_plugin("paisley_fig11_4").draw(ctx)
    assert "range from -0.50 to 0.50 (mean |corr| 0.50)" in ctx.caption, ctx.caption
    # the Hinton diagram: one square per pair, |corr| on a side, centred on (column j, row i); rows run downwards
    ax = ctx.fig.axes[0]
    squares = {(p.get_x() + p.get_width() / 2, p.get_y() + p.get_height() / 2): p.get_width() for p in ax.patches}
    assert len(squares) == 40 * 40 and squares[(0.0, 0.0)] == 1.0 and squares[(1.0, 0.0)] == 0.5
    assert ax.patches[1].get_xy() == (0.75, -0.25) and ax.get_xlim() == (-0.5, 39.5) and ax.get_ylim() == (39.5, -0.5)
    truth = {"topics": np.eye(K)}  # planted topics without a planted correlation: no agreement to give
    assert figlib.load_plugin("paisley_fig11_4").planted_agreement(Model(), truth) is None


def test_paisley_fig11_4_planted_agreement_matches_each_planted_topic_to_its_fitted_copy():
    """The caption's agreement: Pearson r of the planted and learned correlations with each planted topic matched to its
    fitted copy (a 5-cycle order, so matching planted -> fitted and fitted -> planted differ)."""
    model, truth, r = _cycled_correlations()
    assert figlib.load_plugin("paisley_fig11_4").planted_agreement(model, truth) == pytest.approx(r, rel=1e-12)


def test_paisley_fig11_3_table_is_the_mean_over_seeds_and_the_caption_names_the_nth_batch(tmp_path):
    """Paisley et al. 2014, Fig. 11.3: every 10th minibatch of 10 documents is scored before it is trained on, so the
    first score is at 90 documents seen (batch 9, 0-based): "every 10th". The table's score is the mean over seeds of
    the last scored batch (-7.0, -7.1, -7.5: -7.2; the best seed is -7.0)."""
    rows = [{"experiment": "paisley_fig11_3", "dataset": "d", "method": "bnmf", "label": "bnmf", "seed": seed,
             "p_K": 5, "p_batch_size": 10, "p_tau0": 1.0, "p_kappa": 0.5, "docs_seen": docs, "eval_kind": "batch",
             "loglik_per_word": final if docs == 190 else -9.0, "corpus_size": 1000, "protocol": "3-fold",
             "heldout_excluded": seed}
            for seed, final in enumerate((-7.0, -7.1, -7.5)) for docs in (90, 190)]
    ctx = _PlotCtx({"paisley_fig11_3": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("paisley_fig11_3").draw(ctx)
    assert "every 10th minibatch is held out" in ctx.caption, ctx.caption
    # dropped already-trained documents: 0 + 0 + 1 + 1 + 2 + 2 = 6 over all scored batches; the last ends at 190 / 1000
    assert "(6 already-trained documents were dropped from testing batches; scored batches end at 0.19 passes)" in \
        ctx.caption, ctx.caption
    assert "| 5 | 10 | Bayesian NMF (SVI) | -7.2000 |" in ctx.body, ctx.body
    one_seed = pd.DataFrame(rows[:2]).drop(columns="heldout_excluded")  # n from its first scored batch; no count
    ctx = _PlotCtx({"paisley_fig11_3": one_seed}, tmp_path)
    figlib.load_plugin("paisley_fig11_3").draw(ctx)
    assert "every 10th minibatch is held out" in ctx.caption and "(none had to be dropped)" in ctx.caption, ctx.caption
    cnmf = [{**row, "method": "cnmf", "label": "cnmf", "p_m": 3, "npmi": 0.25, "topic_diversity": 0.5,
             "recovery_cosine": 0.9} for row in rows]  # C-NMF drawn too
    ctx = _PlotCtx({"paisley_fig11_3": pd.DataFrame(rows + cnmf)}, tmp_path)
    figlib.load_plugin("paisley_fig11_3").draw(ctx)
    assert [line.get_label() for line in ctx.fig.axes[0].lines] == ["Bayesian NMF (SVI)", "correlated NMF (SVI)"]
    assert "| 5 | 10 | correlated NMF (SVI) | -7.2000 | 0.250 |" in ctx.body, ctx.body  # with its topic quality (NPMI .3f)
    assert ctx.body.splitlines()[0].endswith("| NPMI | diversity | recovery cos |"), ctx.body
    assert "C-NMF latent dimension m = 3. " in ctx.caption, ctx.caption


def test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max(tmp_path):
    """Hu et al. 2014, Fig. 4: the held-out scores come from the first seed's last checkpoint (seed 0: -7.1 to -7.0;
    its first checkpoint -8.1 to -8.0; seed 1: -8.1 to -8.0), the note names the heaviest grid point (weight 0.6 at log10 alpha = 0) and the search's
    eq. 8 curve is drawn relative to its maximum (values 5, 7, 6: drawn -2, 0, -1 in log10-alpha order)."""
    from types import SimpleNamespace

    model = SimpleNamespace(name="lgnmf", grid_log_alpha=np.log([0.1, 1.0, 10.0]), grid_weights=np.array([0.1, 0.6, 0.3]),
                            validation=np.full(3, np.nan), search=np.array([[1.0, 6.0, np.nan], [-1.0, 5.0, np.nan],
                                                                            [0.0, 7.0, np.nan]]),
                            mode_log10_alpha=0.0, log10_alpha_sd=0.5)
    rows = [{"experiment": "hu_fig1", "dataset": "psy", "method": "lgnmf", "label": "lg", "seed": seed, "docs_seen": docs,
             "x_grid0_loglik": base - 0.1, "x_grid1_loglik": base, "x_grid2_loglik": base - 0.05,
             "loglik_per_word": base, "unigram_loglik_per_word": -9.0}
            for seed, final in ((0, -7.0), (1, -8.0)) for docs in (10, 15, 20)
            for base in [final if docs == 20 else final - 1.0]]  # the earlier checkpoints score 1 nat/word lower

    class Ctx(_PlotCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return model

    ctx = Ctx({"hu_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_fig4").draw(ctx)
    assert "weight 0.600 on log10 alpha = 0.000" in ctx.caption, ctx.caption
    assert "held-out scores -7.100 to -7.000 nats/word" in ctx.caption, ctx.caption
    np.testing.assert_allclose(ctx.fig.axes[0].lines[0].get_ydata(), [-2.0, 0.0, -1.0])
    np.testing.assert_allclose(ctx.fig.axes[0].lines[0].get_xdata(), [-1.0, 0.0, 1.0])  # against log10 alpha, sorted
    band = ctx.fig.axes[0].patches[0]  # the placed grid, log10 alpha -1 to 1
    assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((-1.0, 1.0))
    # bottom: the weights as bars at the grid points on a 0-1 axis; its twin the held-out scores against the grid and no
    # validation curve (criterion eq. 8, all NaN), which the note names
    bottom = [ax for ax in ctx.fig.axes if ax.get_xlabel() == "log10 alpha (grid points)"][0]
    bars = [(bar.get_x() + bar.get_width() / 2, bar.get_height()) for bar in bottom.patches]
    assert bars == [(pytest.approx(-1.0), 0.1), (pytest.approx(0.0), 0.6), (pytest.approx(1.0), 0.3)]
    assert bottom.get_ylim() == (0.0, 1.0) and bottom is not ctx.fig.axes[0]
    (twin,) = [ax for ax in ctx.fig.axes if ax.get_ylabel() == "log predictive, nats"]
    held_out = [line for line in twin.lines if line.get_label() == "held-out nats / word"][0]
    np.testing.assert_allclose(held_out.get_xdata(), [-1.0, 0.0, 1.0])
    np.testing.assert_allclose(held_out.get_ydata(), [-7.1, -7.0, -7.05])
    assert "validation nats / token" not in [line.get_label() for line in twin.lines]
    assert not [ax for ax in ctx.fig.axes if ax.get_ylabel() == "validation nats / token"]  # no finite search scores
    assert "grid placed by eq. 8 at log10 alpha = 0.00 (sd 0.500 decades); eq. 8's best search point log10 alpha = " \
           "0.00; weight" in ctx.caption, ctx.caption
    model.validation = np.array([-6.0, np.nan, -6.2])  # some finite validation scores: the validation criterion
    model.search[:, 2] = [np.nan, -6.1, np.nan]
    ctx = Ctx({"hu_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_fig4").draw(ctx)
    assert "grid placed by validation at" in ctx.caption, ctx.caption
    (twin,) = [ax for ax in ctx.fig.axes if ax.get_ylabel() == "log predictive, nats"]
    (validation,) = [line for line in twin.lines if line.get_label() == "validation nats / token"]
    np.testing.assert_allclose(validation.get_xdata(), [-1.0, 0.0, 1.0])  # against the grid
    np.testing.assert_allclose(validation.get_ydata(), [-6.0, np.nan, -6.2])
    assert [ax for ax in ctx.fig.axes if ax.get_ylabel() == "validation nats / token"]  # the search's, on the top twin
    model.search = np.zeros((0, 3))  # no search recorded: the grid alone, no search point named
    ctx = Ctx({"hu_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_fig4").draw(ctx)
    assert "best search point" not in ctx.caption and not ctx.fig.axes[0].lines, ctx.caption


def _mcinerney_fig1(tmp_path, finals, excluded=3, method="population_vb"):
    """McInerney et al. 2015, Fig. 1 drawn from one population VB line: per seed (final score, final baseline, look-ahead
    documents); the first checkpoint scores -11 against a baseline of -12; ``excluded`` documents dropped from each
    window (None: no such column). Returns the context and the table's rows."""
    rows = [{"experiment": "mcinerney_fig1_d", "dataset": "d", "method": method, "label": "pvb", "seed": seed,
             "p_log10_population": 4.0, "p_K": 5, "docs_seen": docs, "eval_kind": "lookahead", "stream": "time_ordered",
             "loglik_per_word": score if docs == 100 else -11.0, "unigram_loglik_per_word": base if docs == 100 else -12.0,
             "heldout_docs": ahead, "corpus_size": 1000, "protocol": "halves", "npmi": (0.1, 0.2, 0.6)[seed],
             **({} if excluded is None else {"heldout_excluded": excluded})}
            for seed, (score, base, ahead) in enumerate(finals) for docs in (50, 100)]

    class Ctx(_PlotCtx):
        def corpus(self, experiment):
            return {"name": "d", "source": "synthetic", "n_words": 100}

    ctx = Ctx({"mcinerney_fig1_d": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("mcinerney_fig1").draw(ctx)
    got = pd.DataFrame([dict(zip([c.strip() for c in ctx.body.splitlines()[0].strip("|").split("|")],
                                 [c.strip() for c in line.strip("|").split("|")])) for line in ctx.body.splitlines()[2:]])
    return ctx, got


def test_mcinerney_fig1_table_is_the_mean_over_seeds_of_the_final_look_ahead_scores(tmp_path):
    """McInerney et al. 2015, Fig. 1's table: per line the mean over seeds of the final look-ahead score (-7.0, -7.1,
    -7.5: -7.2), of the baseline on the same documents (-9.0, -9.1, -9.5: -9.2, median -9.1) and of their difference
    (2.0), the fewest look-ahead documents (50, 60, 70: 50) and the seeds (3)."""
    ctx, got = _mcinerney_fig1(tmp_path, ((-7.0, -9.0, 50), (-7.1, -9.1, 60), (-7.5, -9.5, 70)))
    assert len(got) == 1, ctx.body
    row = got.iloc[0]
    assert float(row["final loglik/word"]) == pytest.approx(-7.2) and float(row["unigram"]) == pytest.approx(-9.2)
    assert int(row["look-ahead docs"]) == 50 and int(row["seeds"]) == 3 and row["NPMI"] == "0.300", ctx.body  # mean
    assert float(row["minus unigram"]) == pytest.approx(2.0) and "Every line ends above it." in ctx.caption
    assert "d N = 1,000, n = 70" in ctx.caption, ctx.caption  # the window size: the largest look-ahead set
    assert "(18 already-trained documents were dropped from windows)" in ctx.caption  # 3 at each of 6 checkpoints
    baseline = [line for line in ctx.fig.axes[0].lines if line.get_label() == figlib.BASELINE.name][0]
    assert baseline.get_ydata()[-1] == pytest.approx(-9.2)  # the baseline's mean over seeds, not the model's -7.2
    model = [line for line in ctx.fig.axes[0].lines if line.get_label().startswith("population VB")][0]
    assert list(model.get_ydata()) == pytest.approx([-11.0, -7.2])  # the model's look-ahead score, mean over seeds
    assert list(baseline.get_xdata()) == [50, 100] and int(row["final docs seen"]) == 100  # not the 70 look-ahead
    ctx, got = _mcinerney_fig1(tmp_path, ((-7.0, -9.0, 50), (-7.1, -9.1, 60)), method="streaming_vb")
    assert got["line"].str.startswith("streaming VB").tolist() == [True], ctx.body  # streaming VB is drawn too


def test_mcinerney_fig1_caption_names_the_lines_ending_below_the_baseline(tmp_path):
    """A line whose final look-ahead score (-7.2 over seeds) is below the baseline's on the same documents (-6.9) is
    named in the caption with its gap (-0.300), as completing short texts worse than word frequencies; one ending
    0.3 above it, or level with it, is not."""
    ctx, got = _mcinerney_fig1(tmp_path, ((-7.0, -6.8, 50), (-7.1, -6.9, 60), (-7.5, -7.0, 70)))
    assert float(got.iloc[0]["minus unigram"]) == pytest.approx(-0.3), ctx.body
    assert "d time-ordered stream, population VB (-0.300 nats/word)" in ctx.caption, ctx.caption
    for gap in (0.3, 0.0):
        ctx, got = _mcinerney_fig1(tmp_path, ((-7.0, -7.0 - gap, 50), (-7.5, -7.5 - gap, 60)), excluded=None)
        assert float(got.iloc[0]["minus unigram"]) == pytest.approx(gap) and "Every line ends above it." in ctx.caption
        assert "dropped from windows" not in ctx.caption, ctx.caption  # results without the count: none claimed


def test_hu_small_figure_draws_lgnmf_at_total_time_and_at_total_over_the_grid_size(tmp_path, monkeypatch):
    """Hu et al. 2014, Figs. 1-2: LG-NMF's grid points run one after another here, so it is drawn at its total fit time
    (40, 80 s) and at total / grid size (4 points: 10, 20 s), the paper's per-point clock; batch LDA once. The caption
    gives LG-NMF's settings from its own runs."""
    drawn = []
    monkeypatch.setattr(figlib, "plot_mean_spread", lambda ax, frame, x, y, *a, **k: drawn.append((y, frame[x].tolist())))
    rows = [{"experiment": "hu_fig1", "dataset": "psy", "method": "lgnmf", "label": "lg", "seed": 0, "docs_seen": docs,
             "fit_wall_s": wall, "perplexity": 900.0, "unigram_perplexity": 2000.0, "p_grid_size": 4, "p_K": 5,
             "p_grid": "laplace", "p_log10_alpha_min": -2.0, "p_log10_alpha_max": 2.0, "p_criterion": "validation",
             "protocol": "halves"} for docs, wall in ((10, 40.0), (20, 80.0))]
    batch = {**rows[0], "method": "batch_lda", "label": "lda", "fit_wall_s": 100.0, "p_grid_size": np.nan, "p_K": 7}
    ctx = _PlotCtx({"hu_fig1": pd.DataFrame(rows + [batch])}, tmp_path)
    figlib.load_plugin("hu_fig1").draw(ctx)
    assert drawn == [("perplexity", [40.0, 80.0]), ("perplexity", [10.0, 20.0]), ("perplexity", [100.0])]
    assert ctx.fig.axes[0].get_xscale() == "log"  # Hu et al. 2014, Fig. 1: seconds on a log axis
    assert " LG-NMF: K = 5, 4 grid points, grid = laplace " in ctx.caption, ctx.caption  # from LG-NMF's runs


def test_paisley_correlation_judge_matches_each_planted_topic_by_cosine_of_whole_topics():
    """The match is by the cosine of whole topic rows. Planted topics 1 = (0.2, 0.6, 0.1, 0.1) and 2 =
    (0, 0.85, 0.1, 0.05) share their heavy word; fitted in the order 1, 2, 3, 0, each planted topic's copy is the
    unique best cosine (1), so all 4 planted topics match 4 distinct fitted ones and the learned correlations (the
    planted ones + a known perturbation) enter in the planted order."""
    planted = np.array([[0.4, 0.3, 0.3, 0.0], [0.2, 0.6, 0.1, 0.1], [0.0, 0.85, 0.1, 0.05], [0.05, 0.05, 0.1, 0.8]])
    truth = np.array([[1.0, 0.5, -0.3, 0.1], [0.5, 1.0, 0.2, -0.4], [-0.3, 0.2, 1.0, 0.6], [0.1, -0.4, 0.6, 1.0]])
    bump = np.array([[0.0, 0.1, 0.0, 0.0], [0.1, 0.0, 0.0, -0.1], [0.0, 0.0, 0.0, 0.2], [0.0, -0.1, 0.2, 0.0]])
    learned = truth + bump
    perm = np.array([1, 2, 3, 0])

    j = _claims.paisley_correlations(_correlation_ctx(planted, truth, planted[perm], learned[np.ix_(perm, perm)]))
    upper = np.triu_indices(4, 1)
    r = np.corrcoef(truth[upper], learned[upper])[0, 1]
    assert f"Pearson r = {r:.3f}" in j.numbers and "(4 distinct fitted topics matched to 4 planted)" in j.numbers, j


def test_hoffman_table1_says_whether_completion_would_pick_another_setting(tmp_path):
    """Hoffman et al. 2010, Table 1 picks by the eq. 16 bound; the caption says where the completion perplexity would
    pick another setting: for S = 16 the bound's best (0.5, 64) has the worst completion perplexity (1600 vs 1500)."""
    rows = [{"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid", "seed": seed,
             "p_batch_size": 16, "p_kappa": kappa, "p_tau0": tau0, "docs_seen": 1, "elbo_per_word": elbo,
             "perplexity": completion, "protocol": "document completion"}
            for seed in range(2) for kappa, tau0, elbo, completion in ((0.5, 64.0, -7.0, 1600.0), (0.9, 1.0, -7.2, 1500.0),
                                                                        (0.7, 256.0, -7.3, 1550.0))]
    ctx = _PlotCtx({"hoffman_table1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hoffman_table1").draw(ctx)
    assert "choosing by it would pick another setting for S = 16" in ctx.caption, ctx.caption


def test_paper_provenance_counts_runs_and_sums_each_runs_final_fit_time(tmp_path):
    """The paper's provenance: runs are (experiment, dataset, method, label, seed, hyperparameters): two seeds of one
    setting are 2 runs (4 checkpoints); an experiment's fit time is the sum over runs of fit_wall_s at the last
    checkpoint (10 + 20 = 30 s, not the first checkpoints' 1 + 2); a corpus's size is its largest (1,000). The job
    benchmarks sum the wall seconds (3 + 5 = 8 s), report the longest (5 s) and the peak memory (the largest, 70 MB).
    A method without one of the hyperparameters (batch VB has no kappa: NaN in p_kappa, as in every real build) is
    still a run: experiment f's batch run (7 s) is counted (a groupby dropping NaN keys once left the list empty)."""
    traces = pd.DataFrame({"experiment": "e", "dataset": "d", "method": "online_lda", "label": "x", "seed": [0, 0, 1, 1],
                           "p_K": 5, "p_kappa": 0.7, "docs_seen": [1, 2, 1, 2], "fit_wall_s": [1.0, 10.0, 2.0, 20.0],
                           "corpus_size": [1000, 1000, 900, 900], "git_sha": "abc"})
    batch = pd.DataFrame({"experiment": "f", "dataset": "d", "method": "batch_lda", "label": "b", "seed": [0, 0],
                          "p_K": 5, "p_kappa": np.nan, "docs_seen": [1, 2], "fit_wall_s": [3.0, 7.0],
                          "corpus_size": [1000, 1000], "git_sha": "abc"})
    traces = pd.concat([traces, batch], ignore_index=True)
    (tmp_path / "fit").mkdir()
    for i, (s, rss) in enumerate(((3.0, 50.0), (5.0, 70.0))):
        pd.DataFrame({"s": [s], "max_rss": [rss]}).to_csv(tmp_path / "fit" / f"{i}.tsv", sep="\t", index=False)
    text = " ".join(str(b[-1]) for b in build_paper.provenance(traces, sorted(map(str, (tmp_path / "fit").glob("*.tsv"))),
                                                               "results/x", "Typst"))
    assert "3 runs, 6 checkpoints" in text and "e 30.0 s, f 7.0 s." in text and "d 1,000" in text, text
    assert "fit: 2 jobs, 8 s wall in total (longest 5.0 s), peak memory 70 MB" in text, text


def test_hoffman_fig2_draws_every_online_method_and_batch_vb_against_cpu_seconds(tmp_path, monkeypatch):
    """Hoffman et al. 2010, Fig. 2's x axis is fit CPU time (the caption says so): wall seconds are half the CPU
    seconds here (2 threads) and must not be drawn. A peer (gensim, S = 16) is drawn on the completion panel (it has no
    eq. 16 bound), beside online LDA (both panels, though it comes after the skipped peer) and batch VB (both panels)."""
    drawn = []
    monkeypatch.setattr(figlib, "plot_mean_spread", lambda ax, frame, x, y, *a, **k: drawn.append(
        (frame["method"].iloc[0], y, frame[x].tolist(), a[0])))
    rows = []
    for method, label, size, elbo in (("gensim_lda", "gensim_S16", 16, np.nan), ("online_lda", "online_S16", 16, -7.0),
                                      ("batch_lda", "batch_full", np.nan, -7.1)):
        for docs, cpu in ((10, 2.0), (20, 4.0)):
            rows.append({"experiment": "hoffman_fig2", "dataset": "d", "method": method, "label": label, "seed": 0,
                         "p_batch_size": size, "p_kappa": 0.7, "p_tau0": 64.0, "docs_seen": docs, "fit_cpu_s": cpu,
                         "fit_wall_s": cpu / 2, "elbo_per_word": elbo, "perplexity": 1000.0, "corpus_size": 100,
                         "train_split_docs": 100, "unigram_perplexity": 2000.0, "protocol": "halves"})
    ctx = _PlotCtx({"hoffman_fig2": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hoffman_fig2").draw(ctx)
    baseline = [line for line in ctx.fig.axes[1].lines if line.get_label() == figlib.BASELINE.name]
    assert [a.get_xscale() for a in ctx.fig.axes[:2]] == ["log", "log"]  # Hoffman et al. 2010, Fig. 2: log CPU time
    assert "Learning parameters per size: S=16: kappa=0.7, tau0=64." in ctx.caption, ctx.caption
    assert len(baseline) == 1 and baseline[0].get_ydata()[0] == 2000.0  # on the completion panel
    assert sorted((m, y) for m, y, _, _ in drawn) == sorted([("online_lda", "bound_perplexity"), ("online_lda", "perplexity"),
                                                            ("gensim_lda", "perplexity"), ("batch_lda", "bound_perplexity"),
                                                            ("batch_lda", "perplexity")])
    assert all(x == [2.0, 4.0] for _, _, x, _ in drawn), drawn
    assert {m: name for m, _, _, name in drawn} == {"online_lda": "S = 16", "gensim_lda": "gensim online LDA, S = 16",
                                                    "batch_lda": "batch VB, full corpus"}, drawn


def test_hoffman_fig2_names_each_batch_line_by_the_documents_it_trained_on(tmp_path, monkeypatch):
    """Hoffman et al. 2010, Fig. 2's batch VB lines: one on the full corpus (100 documents, as the online run) and one on
    a 30-document subset, under labels that say neither ('batch_a' with the subset, 'batch_b' with the full corpus, and
    a run labelled 'batch_full' that trained on a 40-document subset). Each line is named by the documents its own runs
    trained on and draws their CPU seconds; one label over two subset sizes is refused."""
    drawn = []
    monkeypatch.setattr(figlib, "plot_mean_spread", lambda ax, frame, x, y, *a, **k: drawn.append(
        (a[0], y, frame[x].tolist(), k.get("linestyle"))))
    rows = []
    for method, label, corpus, size, cpu in (("online_lda", "online_S16", 100, 16, 1.0), ("batch_lda", "batch_a", 30, np.nan, 3.0),
                                             ("batch_lda", "batch_b", 100, np.nan, 5.0),
                                             ("batch_lda", "batch_full", 40, np.nan, 7.0)):
        for docs, scale in ((10, 1), (20, 2)):
            rows.append({"experiment": "hoffman_fig2", "dataset": "d", "method": method, "label": label, "seed": 0,
                         "p_batch_size": size, "p_kappa": 0.7, "p_tau0": 64.0, "docs_seen": docs, "fit_cpu_s": cpu * scale,
                         "fit_wall_s": cpu, "elbo_per_word": -7.0, "perplexity": 1000.0, "corpus_size": corpus,
                         "train_split_docs": 100, "unigram_perplexity": 2000.0, "protocol": "halves"})
    ctx = _PlotCtx({"hoffman_fig2": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hoffman_fig2").draw(ctx)
    batch = {(name, x[0], style) for name, y, x, style in drawn if name.startswith("batch VB")}
    assert batch == {("batch VB, 30-doc subset", 3.0, ":"), ("batch VB, full corpus", 5.0, "-"),
                     ("batch VB, 40-doc subset", 7.0, ":")}, drawn
    mixed = pd.DataFrame(rows).replace({"label": {"batch_full": "batch_a"}})
    with pytest.raises(ValueError, match=r"batch VB runs of label 'batch_a' trained on \[30, 40\] documents"):
        figlib.load_plugin("hoffman_fig2").draw(_PlotCtx({"hoffman_fig2": mixed}, tmp_path))


def test_baseline_line_is_the_word_frequency_perplexity():
    """Every figure's floor: the word-frequency baseline's perplexity (2000 here), not the model's (900)."""
    fig, ax = figlib.plt.subplots()
    figlib.plot_baseline(ax, pd.DataFrame({"perplexity": [900.0], "unigram_perplexity": [2000.0]}))
    assert ax.lines[0].get_ydata()[0] == 2000.0
    figlib.plt.close(fig)


def test_mcinerney_best_setting_matches_every_varying_column():
    """Streaming VB gridded over S and a second setting (tau0): the best (S = 64, tau0 = 1, mean -7.0) selects only the
    runs with both values, not those sharing one of them."""
    import _mcinerney

    runs = pd.DataFrame([{"method": "streaming_vb", "label": "svb", "p_batch_size": size, "p_tau0": tau0, "seed": seed,
                          "docs_seen": 1, "loglik_per_word": -7.0 if (size, tau0) == (64, 1.0) else -7.5}
                         for size in (64, 256) for tau0 in (1.0, 64.0) for seed in range(2)])
    setting, chosen = _mcinerney.best_setting(runs)
    assert setting == {"p_batch_size": 64, "p_tau0": 1.0} and len(chosen) == 2, (setting, len(chosen))


def test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint(tmp_path, monkeypatch):
    """Hoffman et al. 2010, Fig. 1's word table: the most prevalent topic (weights 1, 5: topic 1) at the recorded
    checkpoints, from the first (10 documents) to the last (1,000), its top words in order. The panels draw the eq. 16
    bound and completion's perplexity with its baseline."""
    vocab = ["w0", "w1", "w2", "w3"]
    history = np.array([[[0, 1], [2, 3]], [[1, 0], [3, 2]], [[0, 2], [1, 3]]])  # checkpoints x K x top words
    monkeypatch.setattr(figlib, "topic_history", lambda path: (history, np.array([10, 100, 1000])))

    class Model:
        def topic_weights(self):
            return np.array([1.0, 5.0])

    class Ctx(_PlotCtx):
        def model_path(self, experiment, label):
            assert (experiment, label) == ("hoffman_fig1", "online_full")
            return "model.npz"

        def model(self, experiment, label):
            assert (experiment, label) == ("hoffman_fig1", "online_full")
            return Model()

        def vocab(self, experiment):
            return vocab

    rows = [{"experiment": "hoffman_fig1", "dataset": "d", "method": "online_lda", "label": label, "seed": 0, "p_K": 2,
             "p_batch_size": 16, "p_kappa": 0.7, "p_tau0": 64.0, "docs_seen": docs, "elbo_per_word": -7.0,
             "perplexity": 1000.0, "unigram_perplexity": 2000.0, "corpus_size": size, "train_split_docs": 1000,
             "protocol": "halves"} for label, size in (("online_full", 1000), ("online_subset", 100)) for docs in (10, 1000)]
    ctx = Ctx({"hoffman_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hoffman_fig1").draw(ctx)
    cells = ctx.fig.axes[2].tables[0].get_celld()
    assert [cells[(0, j)].get_text().get_text() for j in range(3)] == ["10", "100", "1,000"]
    assert [cells[(r, 0)].get_text().get_text() for r in (1, 2)] == ["w2", "w3"]  # topic 1 at 10 documents
    # left, the eq. 16 bound exp(7) of both lines; middle, completion's 1000 of both and the baseline's 2000
    assert [list(line.get_ydata()) for line in ctx.fig.axes[0].lines] == [[pytest.approx(np.exp(7.0))] * 2] * 2
    assert [list(line.get_ydata()) for line in ctx.fig.axes[1].lines] == [[1000.0] * 2] * 2 + [[2000.0] * 2]
    assert [a.get_xscale() for a in ctx.fig.axes[:2]] == ["log", "log"]  # Hoffman et al. 2010, Fig. 1: log documents
    # each line named by the documents its runs trained on (1,000: the whole split; 100), not by its label
    assert [line.get_label() for line in ctx.fig.axes[0].lines] == ["online LDA, full corpus", "online LDA, 100-doc subset"]
    swapped = pd.DataFrame(rows).replace({"label": {"online_full": "online_subset", "online_subset": "online_full"}})
    swapped_ctx = Ctx({"hoffman_fig1": swapped}, tmp_path)  # labels saying the opposite of the runs' sizes
    figlib.load_plugin("hoffman_fig1").draw(swapped_ctx)
    assert [line.get_label() for line in swapped_ctx.fig.axes[0].lines] == ["online LDA, full corpus",
                                                                             "online LDA, 100-doc subset"]
    # every run on a subset of a 5,000-document split: the larger subset is not the full corpus; a trace without the
    # split's size (written before train_split_docs) names the documents only
    for split, names in ((5000, ["online LDA, 1,000-doc subset", "online LDA, 100-doc subset"]),
                         (None, ["online LDA, 1,000 docs", "online LDA, 100 docs"])):
        frame = pd.DataFrame(rows).assign(train_split_docs=split) if split else pd.DataFrame(rows).drop(columns="train_split_docs")
        subsets_ctx = Ctx({"hoffman_fig1": frame}, tmp_path)
        figlib.load_plugin("hoffman_fig1").draw(subsets_ctx)
        assert [line.get_label() for line in subsets_ctx.fig.axes[0].lines] == names
    mixed = pd.DataFrame(rows).assign(corpus_size=[1000, 1000, 100, 50])  # online_subset's two checkpoints, two sizes
    with pytest.raises(ValueError, match=r"runs of label 'online_subset' trained on \[50, 100\] documents"):
        figlib.load_plugin("hoffman_fig1").draw(Ctx({"hoffman_fig1": mixed}, tmp_path))
    assert "online_full: S = 16, kappa = 0.7, tau0 = 64, 1,000 documents seen; online_subset: S = 16" in ctx.caption
    assert "K = 2; subset = 100 documents." in ctx.caption, ctx.caption
    # ten checkpoints of nine top words: six evenly spaced columns (checkpoints 0, 2, 4, 5, 7, 9), eight words each
    vocab[:] = [f"w{v}" for v in range(9)]
    monkeypatch.setattr(figlib, "topic_history", lambda path: (np.tile(np.arange(9), (10, 2, 1)), np.arange(1, 11) * 10))
    ctx = Ctx({"hoffman_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hoffman_fig1").draw(ctx)
    cells = ctx.fig.axes[2].tables[0].get_celld()
    assert [cells[(0, j)].get_text().get_text() for j in range(6)] == ["10", "30", "50", "60", "80", "100"]
    assert max(r for r, _ in cells) == 8 and max(c for _, c in cells) == 5 and cells[(8, 0)].get_text().get_text() == "w7"


def test_mcinerney_fig3_caption_names_the_look_ahead_window(tmp_path):
    """McInerney et al. 2015, Fig. 3's caption gives each corpus's look-ahead n: the full window (50 documents), not a
    checkpoint whose window lost documents already trained on (40)."""
    rows = [{"experiment": "mcinerney_fig1_x", "dataset": "d", "method": "population_vb", "label": "pvb", "seed": 0,
             "p_log10_population": x, "p_K": 5, "docs_seen": docs, "stream": "time_ordered", "eval_kind": "lookahead",
             "corpus_size": 3000, "loglik_per_word": -7.0 - 0.05 * abs(x - 3.0), "heldout_docs": 40 if docs == 1 else 50,
             "protocol": "halves"} for x in (2.0, 3.0, 4.0) for docs in (1, 2)]
    ctx = _PlotCtx({"mcinerney_fig1_x": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("mcinerney_fig3").draw(ctx)
    assert "(d: n = 50)" in ctx.caption, ctx.caption
    (ax,) = ctx.fig.axes  # population VB's final score against log10 alpha; one seed: no band; no streaming VB: no line
    assert [(list(l.get_xdata()), list(l.get_ydata())) for l in ax.lines if l.get_label() == "population VB"] == [
        ([2.0, 3.0, 4.0], pytest.approx([-7.05, -7.0, -7.05]))]
    assert not ax.collections and not [l for l in ax.lines if l.get_label().startswith("streaming VB")]
    header, _, cells = ctx.body.splitlines()[:3]
    assert "_stats" not in header and "| seeds |" in header + " |" and "| 3.4770 |" in cells  # log10 3000, 3 decimals
    svb = [{**rows[0], "method": "streaming_vb", "label": "svb", "p_log10_population": np.nan, "docs_seen": docs,
            "loglik_per_word": score} for docs, score in ((1, -7.5), (2, -7.2))]
    ctx = _PlotCtx({"mcinerney_fig1_x": pd.DataFrame(rows + svb)}, tmp_path)
    figlib.load_plugin("mcinerney_fig3").draw(ctx)  # streaming VB's final score: a dotted level line
    assert [list(l.get_ydata()) for l in ctx.fig.axes[0].lines if l.get_label().startswith("streaming VB")] == [[-7.2, -7.2]]


# -- tenth pass: the judges' inputs (which runs, which rows, which clock, which target) ---------------------------------
def test_two_replicates_are_enough_for_a_test():
    """Two seeds are a test (df = 1): d = 1.0, 1.01 has t = 201 and two-sided p = 0.003, reproduced with n = 2."""
    j = _claims.directional([1.0, 1.01], "d", "seeds")
    assert j.verdict == "reproduced" and j.n == 2, (j.verdict, j.test)


def _hoffman_fig2_runs(seed):
    """One seed of Hoffman Fig. 2 runs, rows out of docs_seen order. Eq. 16's bound perplexity: batch VB on the full
    corpus 300, 140, 150 (its final 150 is not its best, 140) at 100, 200, 300 CPU s (wall = CPU / 4); batch VB on a
    subset 400, 350, 320 further on (docs 2, 4, 6); online 330, 150, 130 at 10, 20, 40 CPU s (wall = 3 CPU).
    Completion perplexity disagrees: online (500, 400, 300) never reaches batch VB's 100."""
    runs = [("batch_lda", "batch_full", [3, 1, 2], [150.0, 300.0, 140.0], [300.0, 100.0, 200.0], [100.0, 300.0, 200.0], 0.25),
            ("batch_lda", "batch_subset", [6, 2, 4], [320.0, 400.0, 350.0], [150.0, 50.0, 100.0], [200.0, 400.0, 300.0], 0.25),
            ("online_lda", "online_S16", [3, 1, 2], [130.0, 330.0, 150.0], [40.0, 10.0, 20.0], [300.0, 500.0, 400.0], 3.0)]
    return pd.concat([pd.DataFrame({"experiment": "hoffman_fig2", "dataset": "d", "method": method, "label": label,
                                    "seed": seed, "docs_seen": docs, "elbo_per_word": -np.log(bound),
                                    "perplexity": completion, "fit_cpu_s": cpu, "fit_wall_s": np.multiply(cpu, wall)})
                      for method, label, docs, bound, cpu, completion, wall in runs], ignore_index=True)


def test_hoffman_faster_reads_batch_vb_full_at_its_last_checkpoint_by_the_bound_on_the_cpu_clock():
    """Hoffman et al. 2010, Fig. 2 claim, by hand: the target is batch VB's (full corpus, not subset) bound perplexity
    at its last checkpoint by documents seen (150, not its best 140 nor the subset's 320); batch VB is first at or
    below it at 200 CPU s (140 at docs 2), online at 20 CPU s: log(200 / 20) on every seed, ratio 10.00x. Scored by the
    eq. 16 bound where recorded (completion would say online never gets there), both on the CPU clock."""
    frame = pd.concat([_hoffman_fig2_runs(seed) for seed in range(3)], ignore_index=True)
    j = _claims.hoffman_faster(_Ctx({"hoffman_fig2": frame}))
    assert j.verdict == "reproduced" and "ratio 10.00x" in j.numbers and "bound_perplexity" in j.numbers, j.numbers
    assert _claims.time_to(frame[frame["label"] == "online_S16"].iloc[:3], "perplexity", 400.0, "fit_cpu_s") == 20.0


def test_hoffman_best_setting_ranks_by_the_mean_over_seeds():
    """Hoffman et al. 2010, Table 1 claim: kappa = 0.5 has bound perplexities 100, 100, 400 (mean 200, median 100),
    kappa = 0.9 150 on every seed (mean 150): the best by the mean is kappa = 0.9."""
    rows = [{"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid", "seed": seed,
             "p_batch_size": 16, "p_kappa": kappa, "p_tau0": 1.0, "docs_seen": 1, "elbo_per_word": -np.log(bound)}
            for seed in range(3) for kappa, bound in ((0.5, (100.0, 100.0, 400.0)[seed]), (0.9, 150.0))]
    j = _claims.hoffman_best_setting(_Ctx({"hoffman_table1": pd.DataFrame(rows)}))
    assert "best kappa = 0.9" in j.numbers, j.numbers


def test_paisley_correlation_judge_calls_a_weak_negative_r_mixed():
    """A negative r is "not reproduced" only when the lower tail is significant too: planted correlations 0.1 .. 1.0
    over the 10 pairs, learned ones that agree at r = -0.2 exactly; z = artanh(-0.2) sqrt(7) = -0.536, one-sided
    p(r < 0) = 0.30: mixed."""
    planted = np.eye(5)  # each planted topic is its own fitted copy
    upper = np.triu_indices(5, 1)
    x = np.linspace(0.1, 1.0, 10)
    e = np.resize([1.0, -1.0], 10) - np.resize([1.0, -1.0], 10).mean()
    e -= e @ (x - x.mean()) / ((x - x.mean()) @ (x - x.mean())) * (x - x.mean())  # orthogonal to x
    ex, ee = x - x.mean(), e / np.linalg.norm(e) * np.linalg.norm(x - x.mean())
    y = -0.2 * ex + np.sqrt(1 - 0.04) * ee  # corr(x, y) = -0.2
    truth, learned = np.eye(5), np.eye(5)
    truth[upper], learned[upper] = x, y / 10
    truth, learned = truth + np.triu(truth, 1).T, learned + np.triu(learned, 1).T

    j = _claims.paisley_correlations(_correlation_ctx(planted, truth, planted, learned))
    assert "Pearson r = -0.200" in j.numbers and j.verdict == "mixed", (j.numbers, j.verdict)


def test_mcinerney_alpha_not_n_needs_two_seeds_on_every_corpus_and_a_grid_that_brackets_n():
    """McInerney et al. 2015, Fig. 3 claim: a corpus with one seed cannot tell a gap from noise, whatever the others
    show (corpus b has seed 0 only: cannot be judged); a grid whose end is log10 N (N = 10^6, grid 2..6) does not
    bracket N, so that corpus is not judged."""
    ctx = _mcinerney({"a": 2.0, "b": 2.0})
    ctx.frames["mcinerney_fig1_b"] = ctx.frames["mcinerney_fig1_b"].query("seed == 0")
    assert _claims.mcinerney_alpha_not_n(ctx).verdict == "cannot be judged"
    edge = _mcinerney({"a": 2.0})
    edge.frames["mcinerney_fig1_a"] = edge.frames["mcinerney_fig1_a"].assign(corpus_size=1_000_000)
    j = _claims.mcinerney_alpha_not_n(edge)
    assert j.verdict == "cannot be judged" and "does not bracket log10 N = 6.00" in j.numbers, j.numbers


def test_hu_fraction_reads_ldas_last_checkpoint_by_documents_seen_on_every_corpus():
    """Hu et al. 2014, Figs. 1-2 claim, by hand, rows out of order: batch LDA's perplexity 300, 140, 150 by documents
    seen (its final 150, not its best 140) after 300 wall s; LG-NMF reaches 150 at 60 s on hu_fig1 and at 30 s on
    hu_fig2: log 5 and log 10 over 3 seeds each, n = 6 (corpus, seed) replicates."""
    frames = {}
    for experiment, t in (("hu_fig1", 60.0), ("hu_fig2", 30.0)):
        rows = []
        for seed in range(3):
            rows.append(_run(experiment, "batch_lda", "lda", seed, [3, 1, 2], [150.0, 300.0, 140.0], [300.0, 100.0, 200.0]))
            rows.append(_run(experiment, "lgnmf", "lg", seed, [1, 2, 3], [200.0, 150.0, 130.0], [t / 2, t, 2 * t],
                             p_grid_size=10))
        frames[experiment] = pd.concat(rows, ignore_index=True)
    j = _claims.hu_offline(_Ctx(frames))
    assert j.n == 6 and f"mean {np.mean([np.log(5)] * 3 + [np.log(10)] * 3):.3f} over 6" in j.numbers, j.numbers


def test_scaling_judges_order_by_the_gridded_value_not_by_the_rows():
    """Fit vs K with the runs listed largest K first (K = 100, 50, 10; score rising with K): still reproduced. The
    minibatch judge needs three sizes: a grid of two (S = 16, 64) cannot be judged."""
    assert _claims.scaling_k(_grid("p_K", (100, 50, 10), lambda k: -7.5 + 0.004 * k)).verdict == "reproduced"
    j = _claims.scaling_batch(_grid("p_batch_size", (16, 64), lambda s: -7.0 + 0.001 * s))
    assert j.verdict == "cannot be judged", j.numbers
    assert _claims.scaling_batch(_grid("p_batch_size", (16, 64, 256), lambda s: -7.0 + 0.001 * s)).n == 3  # run groups


def test_mcinerney_fig3_table_reads_the_time_ordered_stream_only():
    """McInerney et al. 2015, Fig. 3 is the time-ordered stream: permuted-stream runs (peaking at log10 alpha = 2,
    0.5 nats/word higher) must not enter; the time-ordered ones peak at 4."""
    rows = [{"experiment": "mcinerney_fig1_x", "dataset": "d", "method": "population_vb", "label": f"pvb_{stream}",
             "seed": 0, "p_log10_population": x, "docs_seen": 1, "stream": stream, "eval_kind": "lookahead",
             "corpus_size": 10_000, "loglik_per_word": -7.0 - 0.05 * abs(x - peak) + lift}
            for stream, peak, lift in (("time_ordered", 4.0, 0.0), ("shuffled", 2.0, 0.5)) for x in (2.0, 3.0, 4.0)]
    row = figlib.load_plugin("mcinerney_fig3").alpha_table(pd.DataFrame(rows)).iloc[0]
    assert row["best log10 alpha"] == 4.0 and row["PVB at best alpha"] == pytest.approx(-7.0), row


def test_findings_table_carries_each_judges_verdict_and_replicates(tmp_path):
    """The findings table's row for a claim is its judge's verdict and n (Hoffman Fig. 1 on 3 seeds: reproduced, 3);
    claims whose experiments are absent cannot be judged, n = 0."""
    rows = [pd.DataFrame({"experiment": "hoffman_fig1", "dataset": "d", "method": "online_lda", "label": label,
                          "seed": seed, "docs_seen": [1, 2], "loglik_per_word": [-8.0, score],
                          "corpus_size": 100 if label == "online_full" else 20})
            for seed in range(3) for label, score in (("online_full", -7.0 - 0.01 * seed), ("online_subset", -7.3))]
    ctx = _PlotCtx({"hoffman_fig1": pd.concat(rows, ignore_index=True)}, tmp_path)
    figlib.load_plugin("findings").draw(ctx)
    got = ctx.written.set_index("claim")
    row = got.loc["Larger corpora help online LDA (the full corpus beats a subset)"]
    assert (row["verdict"], row["n"]) == ("reproduced", 3), row
    assert (got["verdict"] == "cannot be judged").sum() == len(got) - 1
    assert ctx.caption.endswith(f"This build: {len(got) - 1} cannot be judged, 1 reproduced."), ctx.caption  # the counts


def test_hoffman_larger_corpus_skips_a_seed_without_both_runs():
    """Hoffman et al. 2010, Fig. 1 claim: a seed that ran only the full corpus has no paired difference and is left
    out (3 paired seeds: reproduced, n = 3), not counted as a NaN that voids the test."""
    rows = [pd.DataFrame({"experiment": "hoffman_fig1", "dataset": "d", "method": "online_lda", "label": label,
                          "seed": seed, "docs_seen": [1, 2], "loglik_per_word": [-8.0, score],
                          "corpus_size": 100 if label == "online_full" else 20})
            for seed in range(4) for label, score in (("online_full", -7.0 - 0.01 * seed), ("online_subset", -7.3))
            if not (seed == 3 and label == "online_subset")]
    j = _claims.hoffman_larger_corpus(_Ctx({"hoffman_fig1": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "reproduced" and j.n == 3, (j.verdict, j.n)


def test_paisley_comparable_pairs_each_panel_and_seed():
    """Paisley et al. 2014, Fig. 11.3 claim: the replicates are (panel, seed) pairs, not panels averaged over seeds nor
    methods: 4 panels x 2 seeds = 8."""
    ctx = _paisley((0.0, 0.01, 0.005))
    frame = ctx.frames["paisley_fig11_3"]
    ctx = _Ctx({"paisley_fig11_3": pd.concat([frame, frame.assign(seed=1, loglik_per_word=frame["loglik_per_word"] - 0.001)],
                                             ignore_index=True)})
    j = _claims.paisley_comparable(ctx)
    assert j.n == 8 and "over 8 (panel, seed) replicates" in j.numbers, j.numbers


def _reaches(fast_seconds, fast_perplexity=None):
    """Hoffman Fig. 2 and Hu Fig. 1 traces on 3 seeds: the reference reaches perplexity 150 at 200 s; the fast method's
    two checkpoints at ``fast_seconds[seed]`` with perplexities ``fast_perplexity[seed]`` (default 400, 200)."""
    hoffman, hu = [], []
    for seed, seconds in enumerate(fast_seconds):
        perplexity = (400.0, 200.0) if fast_perplexity is None else fast_perplexity[seed]
        hoffman.append(_run("hoffman_fig2", "batch_lda", "batch_full", seed, [1, 2], [300.0, 150.0], [100.0, 200.0]))
        hoffman.append(_run("hoffman_fig2", "online_lda", "online_S16", seed, [1, 2], list(perplexity), seconds))
        hu.append(_run("hu_fig1", "batch_lda", "lda", seed, [1, 2], [300.0, 150.0], [100.0, 200.0]))
        hu.append(_run("hu_fig1", "lgnmf", "lg", seed, [1, 2], list(perplexity), seconds, p_grid_size=4))
    return (_claims.hoffman_faster(_Ctx({"hoffman_fig2": pd.concat(hoffman, ignore_index=True)})),
            _claims.hu_offline(_Ctx({"hu_fig1": pd.concat(hu, ignore_index=True)})))


def test_reaches_claims_are_not_reproduced_when_no_seed_reaches_the_target():
    """Hoffman Fig. 2 and Hu Figs. 1-2 claims when the fast method runs as long as the reference (200 s, its time to
    the target: the same budget) and never reaches its final perplexity on any of 3 seeds: not reproduced (target
    reached on 0 of 3), not mixed."""
    for j in _reaches([[100.0, 200.0]] * 3):
        assert j.verdict == "not reproduced" and j.test.startswith("target reached on 0 of 3"), (j.verdict, j.test)


def test_hoffman_faster_says_where_online_got_when_it_never_reached_batch_vb():
    """Online LDA plateaus at perplexity 180 (reached at 10 s; S = 16 worse), batch VB passes 180 at 100 s and ends at
    150 at 200 s, online running 300 s: not reproduced, and the numbers give online's best, when it got there, and when
    batch VB got there and to its final, per seed (faster to a worse plateau, the shape the default build shows)."""
    rows = []
    for seed in range(2):
        rows.append(_run("hoffman_fig2", "batch_lda", "batch_full", seed, [1, 2, 3], [300.0, 170.0, 150.0], [50.0, 100.0, 200.0]))
        rows.append(_run("hoffman_fig2", "online_lda", "online_S256", seed, [1, 2, 3], [250.0, 180.0, 180.0], [5.0, 10.0, 300.0]))
        rows.append(_run("hoffman_fig2", "online_lda", "online_S16", seed, [1, 2, 3], [400.0, 300.0, 190.0], [1.0, 2.0, 20.0]))
    j = _claims.hoffman_faster(_Ctx({"hoffman_fig2": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "not reproduced", j.verdict
    for seed in range(2):
        assert (f"seed {seed}: best online online_S256 180.0 at 10 CPU s, batch VB 180.0 at 100 s and 150.0 at 200 s"
                in j.numbers), j.numbers


def test_reaches_claims_cannot_be_judged_when_the_fast_method_stopped_first():
    """The same traces with the fast method stopped at 20 s, before the reference reached the target at 200 s: it may
    still reach it at a tenth of the reference's time, so no seed is evidence (Hoffman et al. 2010 sec. 4 give both 24
    CPU hours): cannot be judged, each seed named with both times; not 'not reproduced'."""
    for j in _reaches([[10.0, 20.0]] * 3):
        assert j.verdict == "cannot be judged" and j.n == 0, (j.verdict, j.numbers)
        assert "stopped before the reference reached the target" in j.numbers and j.numbers.count("seed") == 3
        assert "20 " in j.numbers and "200 s" in j.numbers, j.numbers


def test_reaches_claims_leave_out_only_the_seeds_that_stopped_first():
    """Seeds 0 and 1 reach the target (perplexity 140 at 40 and 50 s against the reference's 200 s), seed 2 stops at
    20 s short of it: judged on seeds 0 and 1 (log 200/40, log 200/50), seed 2 named as not compared."""
    hoffman, hu = _reaches([[20.0, 40.0], [25.0, 50.0], [10.0, 20.0]], [(400.0, 140.0), (400.0, 140.0), (400.0, 200.0)])
    for j in (hoffman, hu):
        assert j.n == 2 and "seed 2" in j.numbers and "not compared" in j.numbers, j.numbers
    np.testing.assert_allclose(_claims.paired([np.log(200 / 40), np.log(200 / 50)])["mean"],
                               float(hoffman.numbers.split("mean ")[1].split(" ")[0]), atol=5e-4)


def test_mcinerney_alpha_not_n_counts_only_a_significant_gap():
    """McInerney et al. 2015, Fig. 3 claim: the best alpha (10^5, mean 0.04 above the grid point nearest N = 10^4)
    differs from it inside the seed noise (per-seed gaps 0.3, -0.28, 0.1: p = 0.82): no corpus differs significantly,
    but the best is not at N either, so the gap is inside the noise: mixed (not reproduced needs the best at N)."""
    ctx = _mcinerney({"a": 4.0})
    frame = ctx.frames["mcinerney_fig1_a"]
    at_n = frame.loc[frame["p_log10_population"] == 4.0].set_index("seed")["loglik_per_word"]
    gaps = {0: 0.3, 1: -0.28, 2: 0.1}
    above = frame["p_log10_population"] == 5.0
    frame.loc[above, "loglik_per_word"] = [at_n[s] + gaps[s] for s in frame.loc[above, "seed"]]
    j = _claims.mcinerney_alpha_not_n(ctx)
    assert "best log10 alpha = 5" in j.numbers and j.verdict == "mixed", (j.numbers, j.verdict)


# -- the word-frequency baseline: every run line against it, and the short-text figure ---------------------------------
def _baseline_runs(experiment, label, gaps, method="online_lda", base=-7.0, **params):
    """One run line: per seed a first checkpoint and a final one scoring ``base + gap`` against the baseline ``base``."""
    return pd.DataFrame([{"experiment": experiment, "dataset": "d", "method": method, "label": label, "seed": seed,
                          "docs_seen": docs, "loglik_per_word": (base + gap) if docs == 20 else base - 1.0,
                          "unigram_loglik_per_word": base, **params}
                         for seed, gap in enumerate(gaps) for docs in (10, 20)])


def test_beats_baseline_judges_each_line_against_the_baseline_on_its_own_documents():
    """Every line's final score minus the baseline's on the same documents, paired over seeds. Lines 0.2 above on three
    seeds: reproduced. One line 0.3 below (alpha = 0.01 of an alpha grid, named by its setting): the parts disagree,
    mixed, the line listed with its gap. Every line below: not reproduced. One seed: cannot be judged, the line counted
    by the sign of its gap and named only if not above."""
    above = _baseline_runs("e1", "online", [0.2, 0.21, 0.19], base=-7.0)
    below = _baseline_runs("e2", "svb", [-0.3, -0.31, -0.29], method="streaming_vb", base=-5.5, p_alpha=0.01)
    also = _baseline_runs("e2", "svb", [0.2, 0.22, 0.18], method="streaming_vb", base=-5.5, p_alpha=0.5)
    j = _claims.beats_baseline(_Ctx({"e1": above}))
    assert j.verdict == "reproduced" and j.n == 3 and "e1: 1 of 1 lines above" in j.numbers, j
    assert "+0.200" in j.numbers, j.numbers  # the mean gap, not the model's score (-6.8) or the baseline's
    j = _claims.beats_baseline(_Ctx({"e1": above, "e2": pd.concat([below, also], ignore_index=True)}))
    assert j.verdict == "mixed" and j.n == 9, j
    assert "e2: 1 of 2 lines above" in j.numbers and "svb alpha=0.01 -0.300" in j.numbers, j.numbers
    assert "2 reproduced, 1 not reproduced" in j.test, j.test
    assert _claims.beats_baseline(_Ctx({"e2": below})).verdict == "not reproduced"
    j = _claims.beats_baseline(_Ctx({"e1": _baseline_runs("e1", "online", [0.2])}))
    assert j.verdict == "cannot be judged" and "1 on one seed (1 of them above it)" in j.numbers, j
    assert "not above" not in j.numbers, j.numbers  # one seed above: counted, not named
    assert j.test.endswith(": none (no line has two seeds); 1 line(s) on one seed untested"), j.test
    j = _claims.beats_baseline(_Ctx({"e1": _baseline_runs("e1", "online", [-0.2])}))
    assert "(0 of them above it)" in j.numbers and "online -0.200 (one seed)" in j.numbers, j.numbers


def test_baseline_line_is_that_of_the_runs_on_the_whole_training_split():
    """Hoffman et al. 2010, Fig. 1: the subset runs (2,000 documents, 10 passes) see as many documents as the full run
    (20,000, one pass) but count word frequencies on their subset (perplexity 2500 here); the line is the full
    corpus's (2000), whichever run comes first."""
    fig, ax = figlib.plt.subplots()
    figlib.plot_baseline(ax, pd.DataFrame({"docs_seen": [20_000, 20_000], "corpus_size": [2_000, 20_000],
                                           "unigram_perplexity": [2500.0, 2000.0]}))
    assert ax.lines[0].get_ydata()[0] == 2000.0
    figlib.plt.close(fig)


def test_shorttext_figure_tables_first_final_and_baseline_and_says_which_lines_end_below(tmp_path):
    """The short-text figure: per method and alpha = eta, the mean over seeds of the first and final look-ahead scores
    and of the baseline. Streaming VB at 0.01 falls from -6.0 (seeds -6.02, -5.98) to -6.3 (seeds -6.28, -6.32) below the
    baseline -5.65 (-0.65): listed below the baseline and as worse with more data; at 0.5 it rises to -5.4, above
    (+0.25). The dotted line is the baseline's mean (-5.65), not a model's."""
    rows = []
    for alpha, first, finals in ((0.01, -6.0, (-6.28, -6.32)), (0.5, -6.8, (-5.38, -5.42))):
        for seed, final in enumerate(finals):
            for docs, score, base in ((100, first + (0.02 if seed else -0.02), -5.6), (1000, final, -5.65)):
                rows.append({"experiment": "shorttext_alpha_t", "dataset": "t", "method": "streaming_vb",
                             "label": f"svb_{alpha}", "seed": seed, "p_alpha": alpha, "p_eta": alpha, "p_K": 30,
                             "p_batch_size": 128, "stream": "time_ordered", "docs_seen": docs, "loglik_per_word": score,
                             "unigram_loglik_per_word": base, "protocol": "halves"})

    class Ctx(_PlotCtx):
        def corpus(self, experiment):
            return {"name": "t", "n_tokens": 800, "n_train": 90, "n_test": 10}

    ctx = Ctx({"shorttext_alpha_t": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("shorttext_alpha").draw(ctx)
    lines = ctx.body.splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    got = pd.DataFrame([dict(zip(header, [c.strip() for c in line.strip("|").split("|")])) for line in lines[2:]])
    got = got.astype({c: float for c in header if "loglik" in c or "unigram" in c or c in ("alpha", "seeds")})
    sharp, smooth = got.iloc[0], got.iloc[1]
    assert (sharp["alpha"], sharp["first loglik/word"], sharp["final loglik/word"]) == (0.01, pytest.approx(-6.0),
                                                                                    pytest.approx(-6.3))
    assert sharp["final unigram"] == pytest.approx(-5.65) and sharp["final minus unigram"] == pytest.approx(-0.65)
    assert smooth["final minus unigram"] == pytest.approx(0.25) and smooth["seeds"] == 2, ctx.body
    assert "below the baseline: t streaming VB alpha = 0.01, eta = 0.01 (-0.650" in ctx.caption, ctx.caption
    assert "0.5, eta = 0.5 (" not in ctx.caption and "(-6.000 -> -6.300)" in ctx.caption, ctx.caption
    baseline = [line for line in ctx.fig.axes[0].lines if line.get_label() == figlib.BASELINE.name]
    assert [list(line.get_xdata()) for line in baseline] == [[100, 1000]]  # against documents seen
    # three seeds of alpha 0.1, eta 0.3: means over seeds (not medians) of first -7, -7, -7.3, final -6, -6, -6.9,
    # baseline -5, -5, -5.6 and final minus baseline -1, -1, -1.3
    three = [{**rows[0], "p_alpha": 0.1, "p_eta": 0.3, "seed": seed, "docs_seen": docs, "loglik_per_word": score,
              "unigram_loglik_per_word": base, "stream": "shuffled"}
             for seed, (first, final, base) in enumerate(((-7.0, -6.0, -5.0), (-7.0, -6.0, -5.0), (-7.3, -6.9, -5.6)))
             for docs, score in ((1000, final), (100, first))]
    means = Ctx({"shorttext_alpha_t": pd.DataFrame(three)}, tmp_path)
    figlib.load_plugin("shorttext_alpha").draw(means)
    assert means.body.splitlines()[2] == ("| t | streaming VB | shuffled | 0.1 | 0.3 | -7.1000 | -6.3000 | -5.2000 | "
                                          "-1.1000 | 3 |"), means.body
    assert "t (8.0 tokens a document on average)" in means.caption, means.caption
    settings = three + [{**r, "p_eta": 0.5} for r in three] + [{**r, "p_alpha": 0.2} for r in three]
    two = Ctx({"shorttext_alpha_t": pd.DataFrame(settings)}, tmp_path)
    figlib.load_plugin("shorttext_alpha").draw(two)  # (alpha, eta) = (0.1, 0.3), (0.1, 0.5), (0.2, 0.3): three lines
    assert [tuple(c.strip() for c in line.split("|")[4:6]) for line in two.body.splitlines()[2:]] == [
        ("0.1", "0.3"), ("0.1", "0.5"), ("0.2", "0.3")], two.body
    assert "8.0 tokens a document" in ctx.caption, ctx.caption
    baseline = [line for line in ctx.fig.axes[0].lines if line.get_label() == figlib.BASELINE.name][0]
    np.testing.assert_allclose(baseline.get_ydata(), [-5.6, -5.65])
    sharp_line = [line for line in ctx.fig.axes[0].lines if "alpha = 0.01" in line.get_label()][0]
    assert sharp_line.get_ydata()[0] == pytest.approx(-6.0) and sharp_line.get_ydata()[-1] == pytest.approx(-6.3)
    level = pd.DataFrame(rows).assign(loglik_per_word=-6.0, unigram_loglik_per_word=-6.0)  # level: neither list
    ctx = Ctx({"shorttext_alpha_t": level}, tmp_path)
    figlib.load_plugin("shorttext_alpha").draw(ctx)
    assert "every line ends above the baseline; lines ending below their first checkpoint (worse with more data): none" \
        in ctx.caption, ctx.caption


def test_shorttext_figure_marks_a_method_missing_from_the_traces(tmp_path):
    """The short-text figure over traces holding streaming VB only (SVI's runs missing) and a population VB run: SVI
    keeps its column, its panel says it has no runs, and the caption names it missing and population VB as not drawn.
    Traces of neither method are refused."""
    rows = [{"experiment": "shorttext_alpha_t", "dataset": "t", "method": method, "label": f"{method}_{alpha}",
             "seed": 0, "p_alpha": alpha, "p_eta": alpha, "p_K": 30, "p_batch_size": 128, "stream": "time_ordered",
             "docs_seen": docs, "loglik_per_word": -6.0 - alpha, "unigram_loglik_per_word": -5.6, "protocol": "halves"}
            for method in ("streaming_vb", "population_vb") for alpha in (0.01, 0.5) for docs in (100, 1000)]

    class Ctx(_PlotCtx):
        def corpus(self, experiment):
            return {"name": "t", "n_tokens": 800, "n_train": 90, "n_test": 10}

    ctx = Ctx({"shorttext_alpha_t": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("shorttext_alpha").draw(ctx)
    svb, svi = ctx.fig.axes[:2]
    assert len(ctx.fig.axes) == 2 and svi.get_title() == "t: online VB LDA" and not svi.lines, ctx.fig.axes
    assert [t.get_text() for t in svi.texts] == ["no online VB LDA runs in the traces"] and len(svb.lines) == 3
    assert ("Missing from the traces (empty panels; the findings judge without them): t online VB LDA. Runs of other "
            "methods, not drawn: population VB.") in ctx.caption, ctx.caption
    only_others = pd.DataFrame(rows).query("method == 'population_vb'")
    with pytest.raises(ValueError, match="no runs of streaming VB or online VB LDA in the traces"):
        figlib.load_plugin("shorttext_alpha").draw(Ctx({"shorttext_alpha_t": only_others}, tmp_path))


def test_shorttext_alpha_claim_names_a_method_it_could_not_judge():
    """Short texts' claim with SVI's runs missing on one corpus and streaming VB run at one setting on another -> each
    named as not judged beside the verdict of the methods it could judge (streaming VB gains 0.5 on u: reproduced)."""
    def runs(experiment, method, alphas, gains):
        return pd.concat([_baseline_runs(experiment, f"{method}_{a}", [g if a == 0.5 else 0.0 for g in gains],
                                         method=method, p_alpha=a, p_eta=a) for a in alphas], ignore_index=True)

    ctx = _Ctx({"shorttext_alpha_u": runs("shorttext_alpha_u", "streaming_vb", (0.01, 0.5), [0.49, 0.5, 0.51]),
                "shorttext_alpha_v": pd.concat([runs("shorttext_alpha_v", "streaming_vb", (0.01,), [0.0] * 3),
                                                runs("shorttext_alpha_v", "online_lda", (0.01, 0.5), [0.3, 0.3, 0.31])],
                                               ignore_index=True)})
    j = _claims.shorttext_alpha(ctx)
    assert j.verdict == "reproduced" and j.n == 6, j
    assert j.numbers.startswith("not judged (the verdict is without them): shorttext_alpha_u online VB LDA: no runs; "
                                "shorttext_alpha_v streaming VB: one alpha = eta setting only; final look-ahead"), j.numbers


def test_shorttext_alpha_claim_pairs_the_largest_alpha_with_the_smallest_per_method_and_seed():
    """Short texts: per corpus and method, the final score at the largest alpha = eta minus at the smallest, paired over
    seeds. Streaming VB gains 0.5 (+-0.01) on three seeds: reproduced, mean 0.5000; SVI losing 0.1 beside it: the
    methods disagree, mixed."""
    def runs(method, gains):
        return pd.concat([_baseline_runs("shorttext_alpha_t", f"{method}_{a}", [g if a == 0.5 else 0.0 for g in gains],
                                         method=method, p_alpha=a, p_eta=a) for a in (0.01, 0.5)], ignore_index=True)

    svb = runs("streaming_vb", [0.49, 0.5, 0.51])
    j = _claims.shorttext_alpha(_Ctx({"shorttext_alpha_t": svb}))
    assert j.verdict == "reproduced" and j.n == 3 and "alpha = eta = 0.5 minus 0.01: mean 0.5000" in j.numbers, j
    both = pd.concat([svb, runs("online_lda", [-0.1, -0.11, -0.09])], ignore_index=True)
    assert _claims.shorttext_alpha(_Ctx({"shorttext_alpha_t": both})).verdict == "mixed"


# -- round 5 of the findings' mutants: each verdict at both sides of its threshold, on hand-made traces ----------------

def test_a_constant_nonzero_difference_has_an_infinite_t():
    """No spread and a nonzero mean: t = sign(mean) * inf (the findings' test text prints it), p = 0."""
    assert _claims.paired([0.5, 0.5])["t"] == np.inf and _claims.paired([-0.5, -0.5])["t"] == -np.inf


def test_reached_or_not_judges_two_replicates():
    """Two replicates are enough for a "reaches" claim: neither reached (not reproduced), one of two (mixed)."""
    assert _claims.reached_or_not("", 0, 2, "seeds").verdict == "not reproduced"
    assert _claims.reached_or_not("", 1, 1, "seeds").verdict == "mixed"


def _table1(seeds_by_size):
    """hoffman_table1 traces: per minibatch size, a clear best (kappa, tau0) = (0.5, 1) on the given number of seeds."""
    rows = [{"experiment": "hoffman_table1", "dataset": "d", "method": "online_lda", "label": "grid", "seed": seed,
             "p_batch_size": size, "p_kappa": kappa, "p_tau0": tau0, "docs_seen": 1, "elbo_per_word": elbo - 0.001 * seed}
            for size, n in seeds_by_size.items() for seed in range(n)
            for (kappa, tau0), elbo in (((0.5, 1.0), -7.0), ((0.9, 64.0), -7.3))]
    return _Ctx({"hoffman_table1": pd.DataFrame(rows)})


def test_hoffman_best_setting_test_text_follows_the_fewest_seeds():
    """The test column says a t test was run when every minibatch size has two seeds or more (the fewest: 2), and says
    too few replicates when one size has a single seed, however many the others have."""
    j = _claims.hoffman_best_setting(_table1({16: 3, 256: 2}))
    assert j.verdict == "reproduced" and j.test.startswith("paired t test per S"), (j.verdict, j.test)
    assert j.numbers.count("; paired t test of the difference against 0: t = ") == 2, j.numbers  # each S's test
    j = _claims.hoffman_best_setting(_table1({16: 3, 256: 1}))
    assert j.verdict == "mixed" and j.test == "too few replicates for a test (n = 1 seeds)", (j.verdict, j.test)


def test_paisley_comparable_judges_two_methods():
    """Two of the three methods are enough to compare: B-NMF and C-NMF 0.01 apart on 4 panels are comparable."""
    ctx = _paisley((0.0, 0.01, 0.005))
    frame = ctx.frames["paisley_fig11_3"]
    j = _claims.paisley_comparable(_Ctx({"paisley_fig11_3": frame[frame["method"] != "online_lda"]}))
    assert j.verdict == "reproduced" and "online" not in j.numbers, (j.verdict, j.numbers)


def test_paisley_comparable_judges_two_replicates_and_names_each_pair_once():
    """Two (panel, seed) replicates are enough, as are four: 0.01 apart -> reproduced, 0.3 apart -> not reproduced; the
    numbers give each of the three pairs once, with its 95% interval."""
    for (gaps, verdict), n in itertools.product((((0.0, 0.01, 0.005), "reproduced"), ((0.0, 0.3, 0.0), "not reproduced")),
                                                (2, 4)):
        frame = _paisley(gaps).frames["paisley_fig11_3"]
        j = _claims.paisley_comparable(_Ctx({"paisley_fig11_3": frame[frame["p_K"] <= (50 if n == 2 else 100)]}))
        assert j.verdict == verdict and j.n == n, (j.verdict, j.numbers)
        pairs = [p.split(" = ")[0] for p in j.numbers.split(": ", 1)[1].split("; ")]
        assert pairs == ["Bayesian NMF (SVI) - correlated NMF (SVI)", "Bayesian NMF (SVI) - online VB LDA",
                         "correlated NMF (SVI) - online VB LDA"], j.numbers
        assert j.numbers.count("[") == 3, j.numbers


def test_hoffman_faster_without_one_of_its_methods_cannot_be_judged():
    """An experiment with batch VB but no online run, or online runs but no batch_full run: a missing experiment."""
    batch = _run("hoffman_fig2", "batch_lda", "batch_full", 0, [1, 2], [300.0, 150.0], [100.0, 200.0])
    online = _run("hoffman_fig2", "online_lda", "online_S16", 0, [1, 2], [200.0, 100.0], [10.0, 20.0])
    for frame in (batch, online):
        j = _claims.hoffman_faster(_Ctx({"hoffman_fig2": frame}))
        assert j.verdict == "cannot be judged" and "missing experiment" in j.test, j.test


def test_mcinerney_alpha_not_n_grid_starting_at_log10_n_does_not_bracket_it():
    """N = 100 on the grid 2..6: log10 N is the grid's first point, not inside it, so the corpus is not judged."""
    edge = _mcinerney({"a": 4.0})
    edge.frames["mcinerney_fig1_a"] = edge.frames["mcinerney_fig1_a"].assign(corpus_size=100)
    j = _claims.mcinerney_alpha_not_n(edge)
    assert j.verdict == "cannot be judged" and "does not bracket log10 N = 2.00" in j.numbers, j.numbers


def test_hoffman_larger_corpus_reads_its_two_labels_beside_batch_vbs():
    """Fig. 1's experiment also runs batch_subset: the claim compares online_full with online_subset all the same."""
    rows = [pd.DataFrame({"experiment": "hoffman_fig1", "dataset": "d", "method": method, "label": label,
                          "seed": seed, "docs_seen": [1, 2], "loglik_per_word": [-8.0, score],
                          "corpus_size": 100 if label == "online_full" else 20})
            for seed in range(3) for method, label, score in (("online_lda", "online_full", -7.0 - 0.01 * seed),
                                                                ("online_lda", "online_subset", -7.3),
                                                                ("batch_lda", "batch_subset", -7.2))]
    assert _claims.hoffman_larger_corpus(_Ctx({"hoffman_fig1": pd.concat(rows, ignore_index=True)})).verdict == "reproduced"


def test_mcinerney_alpha_not_n_judges_a_gap_on_two_seeds():
    """Two seeds can show a significant gap: best log10 alpha 2 against the nearest point 4, 0.1 nats/word apart on
    both seeds (0.100 and 0.098: t = 99, df = 1, p = 0.006): reproduced."""
    ctx = _mcinerney({"a": 2.0})
    ctx.frames["mcinerney_fig1_a"] = ctx.frames["mcinerney_fig1_a"].query("seed < 2")
    j = _claims.mcinerney_alpha_not_n(ctx)
    assert j.verdict == "reproduced" and j.n == 2 and "nats/word (p = 0.006" in j.numbers, (j.verdict, j.numbers)


def test_mcinerney_alpha_not_n_reports_the_fewest_seeds_over_its_corpora():
    """n is the fewest seeds of any judged corpus: corpora on 3 and 2 seeds give n = 2 (judged), on 3 and 1 n = 1
    (cannot be judged)."""
    for seeds_b, verdict in ((2, "reproduced"), (1, "cannot be judged")):
        ctx = _mcinerney({"a": 2.0, "b": 2.0})
        ctx.frames["mcinerney_fig1_b"] = ctx.frames["mcinerney_fig1_b"].query(f"seed < {seeds_b}")
        j = _claims.mcinerney_alpha_not_n(ctx)
        assert j.verdict == verdict and j.n == seeds_b, (j.verdict, j.n, j.numbers)


def _agreeing_at(r):
    """Planted and learned correlations of 5 topics whose 10 off-diagonal pairs agree at Pearson r exactly."""
    upper = np.triu_indices(5, 1)
    x = np.linspace(0.1, 1.0, 10)
    ex = x - x.mean()
    e = np.resize([1.0, -1.0], 10) - np.resize([1.0, -1.0], 10).mean()
    e -= e @ ex / (ex @ ex) * ex  # orthogonal to x
    y = r * ex + np.sqrt(1 - r * r) * e / np.linalg.norm(e) * np.linalg.norm(ex)
    truth, learned = np.eye(5), np.eye(5)
    truth[upper], learned[upper] = x, y / 10
    return truth + np.triu(truth, 1).T, learned + np.triu(learned, 1).T


def test_paisley_correlation_judge_calls_a_strong_negative_r_not_reproduced():
    """r = -0.9 over 10 pairs: z = artanh(-0.9) sqrt(7) = -3.89, lower-tail p = 5e-5: not reproduced; r = +0.9:
    reproduced."""
    for r, verdict in ((-0.9, "not reproduced"), (0.9, "reproduced")):
        truth, learned = _agreeing_at(r)
        j = _claims.paisley_correlations(_correlation_ctx(np.eye(5), truth, np.eye(5), learned))
        assert f"Pearson r = {r:.3f}" in j.numbers and j.verdict == verdict, (j.numbers, j.verdict)


def test_paisley_correlation_judge_without_a_planted_correlation_cannot_be_judged():
    """A corpus with no truth.npz, or one without 'correlation': cannot be judged, naming truth.npz."""
    for truth in (None, {"topics": np.eye(5)}):
        ctx = _correlation_ctx(np.eye(5), None, np.eye(5), np.eye(5))
        ctx.truth = lambda experiment, truth=truth: truth
        j = _claims.paisley_correlations(ctx)
        assert j.verdict == "cannot be judged" and "truth.npz" in j.test, (j.verdict, j.test)


def test_scaling_batch_diminishing_return_compares_both_gains_of_three_sizes():
    """S = 16, 64, 256 scoring -7.0, -6.0, -5.8 (seed noise 0.001): gains +1.0 then +0.2, a diminishing return of
    +0.8: reproduced (the second part reads the smallest S, not the middle one twice)."""
    score = {16: -7.0, 64: -6.0, 256: -5.8}
    j = _claims.scaling_batch(_grid("p_batch_size", (16, 64, 256), lambda s: score[s]))
    assert j.verdict == "reproduced" and "diminishing return (first gain minus second): mean 0.8" in j.numbers, j.numbers
    assert j.test.count("paired t test of the difference against 0") == 2, j.test  # one per part


def test_beats_baseline_names_a_line_by_the_settings_that_vary_only():
    """A hyperparameter the line's runs share (K = 20) is not part of its name: 'svb -0.300', not 'svb K=20 -0.300'."""
    j = _claims.beats_baseline(_Ctx({"e": _baseline_runs("e", "svb", [-0.3, -0.31, -0.29], p_K=20)}))
    assert j.verdict == "not reproduced" and "lowest first: svb -0.300 (p = " in j.numbers, j.numbers


def test_mcinerney_pvb_beats_svb_skips_a_corpus_without_streaming_vb():
    """Corpus a has both methods (population VB 0.1 above on 3 seeds), corpus b population VB only: b is left out,
    the claim is reproduced over a's 3 seeds."""
    pvb = _mcinerney({"a": 4.0, "b": 4.0})
    a = pvb.frames["mcinerney_fig1_a"]
    svb = pd.DataFrame([{**a.iloc[0].to_dict(), "method": "streaming_vb", "label": "svb", "p_log10_population": np.nan,
                         "seed": seed, "loglik_per_word": -7.1} for seed in range(3)])
    ctx = _Ctx({"mcinerney_fig1_a": pd.concat([a, svb], ignore_index=True), "mcinerney_fig1_b": pvb.frames["mcinerney_fig1_b"]})
    j = _claims.mcinerney_pvb_beats_svb(ctx)
    assert j.verdict == "reproduced" and j.n == 3, (j.verdict, j.numbers)


def test_beats_baseline_names_the_dataset_of_a_line_spanning_several():
    """One label run on two corpora in one experiment: two lines, each named with its dataset."""
    runs = pd.concat([_baseline_runs("e", "svb", [-0.3, -0.31, -0.29]).assign(dataset="tweets"),
                      _baseline_runs("e", "svb", [0.2, 0.21, 0.19]).assign(dataset="news")], ignore_index=True)
    j = _claims.beats_baseline(_Ctx({"e": runs}))
    assert j.verdict == "mixed" and "e: 1 of 2 lines above" in j.numbers and "svb dataset=tweets -0.300" in j.numbers, j.numbers


def test_beats_baseline_tests_a_line_on_two_seeds():
    """Two seeds 0.2 above the baseline (0.20, 0.21): tested, reproduced over n = 2, no line left untested."""
    j = _claims.beats_baseline(_Ctx({"e": _baseline_runs("e", "online", [0.2, 0.21])}))
    assert j.verdict == "reproduced" and j.n == 2 and j.test.endswith(": 1 reproduced"), (j.verdict, j.n, j.test)


def test_mcinerney_alpha_not_n_best_alpha_is_the_mean_over_seeds():
    """log10 alpha = 2 scores -7.0, -7.0, -7.6 over seeds (mean -7.2, median -7.0), 4 scores -7.1 on each (mean
    -7.1): the best is 4, by the mean; the p value of its (zero) gap is shown."""
    scores = {2.0: (-7.0, -7.0, -7.6), 4.0: (-7.1, -7.1, -7.1), 6.0: (-7.5, -7.5, -7.5)}
    rows = [{"experiment": "mcinerney_fig1_a", "dataset": "a", "method": "population_vb", "label": "pvb", "seed": seed,
             "p_log10_population": x, "docs_seen": 100, "eval_kind": "lookahead", "stream": "time_ordered",
             "corpus_size": 10_000, "loglik_per_word": score} for x, s in scores.items() for seed, score in enumerate(s)]
    j = _claims.mcinerney_alpha_not_n(_Ctx({"mcinerney_fig1_a": pd.DataFrame(rows)}))
    assert "best log10 alpha = 4, nearest grid point 4, gap 0.0000 nats/word (p = 1)" in j.numbers, j.numbers
    assert j.verdict == "not reproduced"


def test_beats_baseline_names_a_two_seed_line_inside_the_noise():
    """Two seeds +0.2 and -0.1 (mean +0.05, inside the noise): mixed, and named among the lines not above."""
    j = _claims.beats_baseline(_Ctx({"e": _baseline_runs("e", "online", [0.2, -0.1])}))
    assert j.verdict == "mixed" and "not above, lowest first: online +0.050 (p = " in j.numbers, j.numbers


def test_mcinerney_alpha_not_n_one_corpus_of_three_is_mixed():
    """The best alpha differs significantly on one corpus of three: a share of 1/3, below half: mixed."""
    j = _claims.mcinerney_alpha_not_n(_mcinerney({"a": 2.0, "b": 4.0, "c": 4.0}))
    assert j.verdict == "mixed", (j.verdict, j.numbers)


def test_beats_baseline_lists_four_lines_not_above_and_counts_the_rest():
    """Up to four lines not above are named; a fifth is counted ('and 1 more'), four leave nothing to count."""
    for n, more in ((4, ""), (5, " and 1 more")):
        runs = pd.concat([_baseline_runs("e", f"online{i}", [-0.3 - 0.01 * i, -0.31 - 0.01 * i, -0.29 - 0.01 * i])
                          for i in range(n)], ignore_index=True)
        named = _claims.beats_baseline(_Ctx({"e": runs})).numbers.split("not above, lowest first: ")[1]
        assert named.count("(p = ") == 4 and named.endswith(")" + more), named


def test_hu_fraction_without_one_of_its_methods_cannot_be_judged():
    """An experiment with batch LDA but no LG-NMF run, or the reverse: a missing experiment, not a crash."""
    lda = _run("hu_fig1", "batch_lda", "lda", 0, [1, 2], [300.0, 150.0], [100.0, 200.0])
    lg = _run("hu_fig1", "lgnmf", "lg", 0, [1, 2], [200.0, 100.0], [10.0, 20.0], p_grid_size=4)
    for frame in (lda, lg):
        j = _claims.hu_offline(_Ctx({"hu_fig1": frame}))
        assert j.verdict == "cannot be judged" and "missing experiment" in j.test, j.test


def test_hu_fraction_reads_ldas_time_on_the_wall_clock_too():
    """Batch LDA's CPU seconds are twice its wall seconds (threads): its time is the wall 300 s, as LG-NMF's (60 s)."""
    rows = []
    for seed in range(3):
        lda = _run("hu_fig1", "batch_lda", "lda", seed, [1, 2, 3], [300.0, 200.0, 150.0], [100.0, 200.0, 300.0])
        rows.append(lda.assign(fit_cpu_s=2 * lda["fit_wall_s"]))
        rows.append(_run("hu_fig1", "lgnmf", "lg", seed, [1, 2, 3], [200.0, 150.0 - seed, 140.0], [30.0, 60.0, 120.0],
                         p_grid_size=10))
    j = _claims.hu_offline(_Ctx({"hu_fig1": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "reproduced" and f"mean {np.log(300 / 60):.3f} over 3" in j.numbers, j.numbers


def test_shorttext_alpha_skips_a_method_with_one_setting():
    """SVI run at one alpha = eta only (three seeds) has nothing to compare: left out, so the claim is missing; one
    seed at two settings is kept (cannot be judged, n = 1)."""
    one = _baseline_runs("shorttext_alpha_t", "svi", [0.1, 0.2, 0.3], p_alpha=0.5, p_eta=0.5)
    j = _claims.shorttext_alpha(_Ctx({"shorttext_alpha_t": one}))
    assert j.verdict == "cannot be judged" and "missing experiment" in j.test, (j.verdict, j.test)
    two = pd.concat([_baseline_runs("shorttext_alpha_t", f"svi_{a}", [gap], p_alpha=a, p_eta=a)
                     for a, gap in ((0.01, 0.0), (0.5, 0.1))], ignore_index=True)
    j = _claims.shorttext_alpha(_Ctx({"shorttext_alpha_t": two}))
    assert j.verdict == "cannot be judged" and j.n == 1 and "mean 0.1000 over 1 seeds" in j.numbers, (j.verdict, j.numbers)


def test_shorttext_alpha_shows_the_p_value_of_two_seeds():
    """Two seeds are tested, and the numbers show the p value."""
    two = pd.concat([_baseline_runs("shorttext_alpha_t", f"svi_{a}", gaps, p_alpha=a, p_eta=a)
                     for a, gaps in ((0.01, [0.0, 0.0]), (0.5, [0.5, 0.51]))], ignore_index=True)
    j = _claims.shorttext_alpha(_Ctx({"shorttext_alpha_t": two}))
    assert j.verdict == "reproduced" and j.n == 2 and j.numbers.endswith(f"(p = {_claims.paired([0.5, 0.51])['p']:.3g})")


def test_scaling_k_groups_runs_with_a_setting_they_lack():
    """Runs whose p_tau0 is empty (a method without tau0) are grouped all the same: K = 10, 50, 100 on 3 seeds."""
    ctx = _grid("p_K", (10, 50, 100), lambda k: -7.5 + 0.004 * k)
    ctx = _Ctx({"e": ctx.frames["e"].assign(p_tau0=np.nan)})
    j = _claims.scaling_k(ctx)
    assert j.verdict == "reproduced" and j.n == 3, (j.verdict, j.test)


def test_scaling_k_averages_the_labels_at_one_k_and_skips_groups_of_one_k():
    """Per run group, the score at each K is the mean over the labels run there: at K = 10 three labels score -7.0,
    -7.0, -7.9 (mean -7.3, median -7.0), K = 50 scores -7.2: a gain of +0.1 on each of 3 seeds. A second experiment
    runs two labels at K = 20 only: one K, no group."""
    rows = [{"experiment": "e", "dataset": "d", "method": "online_lda", "label": label, "seed": seed, "p_K": k,
             "docs_seen": 1, "loglik_per_word": score + 0.001 * seed * (k == 50)}
            for seed in range(3) for label, k, score in (("a", 10, -7.0), ("b", 10, -7.0), ("c", 10, -7.9), ("a", 50, -7.2))]
    rows += [{"experiment": "f", "dataset": "d", "method": "online_lda", "label": label, "seed": seed, "p_K": 20,
              "docs_seen": 1, "loglik_per_word": -7.0} for seed in range(3) for label in ("a", "b")]
    j = _claims.scaling_k(_Ctx({"e": pd.DataFrame(rows[:12]), "f": pd.DataFrame(rows[12:])}))
    assert j.verdict == "reproduced" and "mean 0.1010 over 3 run groups" in j.numbers, j.numbers


def test_beats_baseline_tells_an_unset_setting_from_a_set_one():
    """One label's runs without alpha (NaN) and with alpha = 0.5 are two lines: 'svb alpha=nan' and 'svb alpha=0.5'."""
    runs = pd.concat([_baseline_runs("e", "svb", [-0.3, -0.31, -0.29], p_alpha=np.nan),
                      _baseline_runs("e", "svb", [0.2, 0.21, 0.19], p_alpha=0.5)], ignore_index=True)
    j = _claims.beats_baseline(_Ctx({"e": runs}))
    assert "e: 1 of 2 lines above" in j.numbers and "svb alpha=nan -0.300" in j.numbers, j.numbers


def test_paired_interval_is_centred_on_the_mean():
    """d = 1, 2, 3: mean 2, se 1/sqrt(3), t(0.975, 2) = 4.302653: the 95% interval is 2 -+ 4.302653 / sqrt(3); the test
    text gives t = 2 sqrt(3), df = n - 1 = 2 and that interval."""
    s = _claims.paired([1.0, 2.0, 3.0])
    half = 4.302653 / np.sqrt(3)
    assert s["lo"] == pytest.approx(2 - half, rel=1e-6) and s["hi"] == pytest.approx(2 + half, rel=1e-6), s
    test = _claims.directional([1.0, 2.0, 3.0], "d", "seeds").test
    assert f"t = {2 * np.sqrt(3):.2f}, df = 2, p = " in test and f"95% CI [{2 - half:.4f}, {2 + half:.4f}]" in test, test


def test_hoffman_larger_corpus_is_not_reproduced_when_the_subset_scores_higher():
    """Full corpus -7.3 against the subset's -7.0 - 0.01 seed: a difference of -0.3 + 0.01 seed, mean -0.29."""
    rows = [pd.DataFrame({"experiment": "hoffman_fig1", "dataset": "d", "method": "online_lda", "label": label,
                          "seed": seed, "docs_seen": [1, 2], "loglik_per_word": [-8.0, score],
                          "corpus_size": 100 if label == "online_full" else 20})
            for seed in range(3) for label, score in (("online_full", -7.3), ("online_subset", -7.0 - 0.01 * seed))]
    j = _claims.hoffman_larger_corpus(_Ctx({"hoffman_fig1": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "not reproduced" and "mean -0.2900 over 3 seeds" in j.numbers, j.numbers


def test_hu_fraction_names_each_replicate_that_never_reached_the_target():
    """Seed 0 of hu_fig1 ends at perplexity 200 against batch LDA's 150: named with both numbers."""
    rows = [_run("hu_fig1", "batch_lda", "lda", 0, [1, 2], [300.0, 150.0], [100.0, 200.0]),
            _run("hu_fig1", "lgnmf", "lg", 0, [1, 2], [400.0, 200.0], [100.0, 250.0], p_grid_size=4)]
    j = _claims.hu_offline(_Ctx({"hu_fig1": pd.concat(rows, ignore_index=True)}))
    assert j.numbers.endswith("hu_fig1 seed 0: LG-NMF final perplexity 200 vs batch VB LDA 150"), j.numbers


def test_shorttext_alpha_shows_the_p_value_of_three_seeds():
    """Three seeds are tested too, and the numbers show the p value."""
    three = pd.concat([_baseline_runs("shorttext_alpha_t", f"svi_{a}", gaps, p_alpha=a, p_eta=a)
                       for a, gaps in ((0.01, [0.0, 0.0, 0.0]), (0.5, [0.5, 0.51, 0.49]))], ignore_index=True)
    j = _claims.shorttext_alpha(_Ctx({"shorttext_alpha_t": three}))
    assert j.numbers.endswith(f"(p = {_claims.paired([0.5, 0.51, 0.49])['p']:.3g})"), j.numbers


def test_beats_baseline_names_the_dataset_and_the_varying_setting_together():
    """A label on two corpora and two alphas: each line named with both, 'svb dataset=tweets alpha=0.01'."""
    runs = pd.concat([_baseline_runs("e", "svb", [gap, gap - 0.01, gap + 0.01], p_alpha=alpha).assign(dataset=dataset)
                      for dataset, alpha, gap in (("tweets", 0.01, -0.3), ("tweets", 0.5, 0.2), ("news", 0.01, 0.2))],
                     ignore_index=True)
    j = _claims.beats_baseline(_Ctx({"e": runs}))
    assert "e: 2 of 3 lines above" in j.numbers and "svb dataset=tweets alpha=0.01 -0.300" in j.numbers, j.numbers


def test_hu_online_figures_draw_perplexity_against_documents_and_against_fit_time(tmp_path, monkeypatch):
    """Hu et al. 2014, Fig. 5 draws held-out perplexity against documents seen, Fig. 6 against fit wall seconds."""
    rows = [{"experiment": "hu_fig5", "dataset": "wiki", "method": "lgnmf", "label": "lg", "seed": 0, "docs_seen": docs,
             "perplexity": 900.0, "fit_wall_s": wall, "fit_cpu_s": 4 * wall, "unigram_perplexity": 2000.0,
             "protocol": "document completion", "p_K": 5, "p_batch_size": 10, "p_grid_size": 3, "p_grid": "laplace",
             "p_criterion": "validation", "p_eta": 0.003, "p_sgd_iters": 25} for docs, wall in ((10, 1.0), (20, 2.0))]
    for name, x, xs in (("hu_fig5", "docs_seen", [10, 20]), ("hu_fig6", "fit_wall_s", [1.0, 2.0])):
        drawn = []
        monkeypatch.setattr(figlib, "plot_mean_spread",
                            lambda ax, frame, x, y, *a, **k: drawn.append((x, y, frame[x].tolist())))
        ctx = _PlotCtx({"hu_fig5": pd.DataFrame(rows)}, tmp_path)
        figlib.load_plugin(name).draw(ctx)
        assert drawn == [(x, "perplexity", xs)], (name, drawn)
        assert ctx.fig.axes[0].get_xscale() == "log", name  # Hu et al. 2014, Figs. 5-6: log x


def test_mcinerney_best_setting_is_the_mean_not_the_median_over_seeds():
    """S = 64 scores -7.0, -7.0, -7.9 (mean -7.3, median -7.0), S = 256 -7.1 on each seed: S = 256 is the best."""
    import _mcinerney

    runs = pd.DataFrame([{"method": "streaming_vb", "label": "svb", "p_batch_size": size, "seed": seed, "docs_seen": 1,
                          "loglik_per_word": score}
                         for size, scores in ((64, (-7.0, -7.0, -7.9)), (256, (-7.1, -7.1, -7.1)))
                         for seed, score in enumerate(scores)])
    setting, chosen = _mcinerney.best_setting(runs)
    assert setting == {"p_batch_size": 256} and len(chosen) == 3, setting


def test_mcinerney_setting_text_names_alpha_as_a_power_of_ten_and_s_as_an_integer():
    """The McInerney lines' labels: population VB's alpha = 10^x, streaming VB's S as an integer, others by name."""
    import _mcinerney

    text = _mcinerney.setting_text({"p_log10_population": 4.5, "p_batch_size": 64.0, "p_kappa": 0.5})
    assert text == ", best alpha = 10^4.5, S = 64, kappa = 0.5", text
    assert _mcinerney.setting_text({}) == ""


def test_mcinerney_labels_and_corpus_notes():
    """SVI is labelled with replacement on that stream only; a planted corpus's note gives its topics and drift."""
    import _mcinerney

    assert _mcinerney.label_for("online_lda", "with_replacement", {}) == "SVI (D = N, with replacement)"
    assert _mcinerney.label_for("online_lda", "permuted", {}) == "SVI (D = N)"
    assert _mcinerney.label_for("streaming_vb", "time_ordered", {}) == "streaming VB (Broderick et al. 2013)"
    assert _mcinerney.label_for("population_vb", "time_ordered", {"p_log10_population": 4.0}) == \
        "population VB, best alpha = 10^4"

    class Ctx:
        experiments = ["mcinerney_fig1_p"]

        def corpus(self, experiment):
            return {"name": "p", "source": "planted", "n_words": 1000,
                    "generator": {"n_topics": 5, "lengths": "poisson(20)", "prevalence": "drifts"}}

    assert _mcinerney.corpus_notes(Ctx()) == ["p: planted, V = 1,000, 5 planted topics, lengths poisson(20); topic "
                                              "prevalence: drifts."]
    Ctx.corpus = lambda self, experiment: {"name": "r", "source": "uci", "n_words": 50}  # a real corpus: no generator
    assert _mcinerney.corpus_notes(Ctx()) == ["r: uci, V = 50."]
    # a setting's value: %g for a float, as given otherwise (a string setting is not formatted as a number)
    assert _mcinerney.setting_text({"p_tau0": 64.0, "p_mode": "fast"}) == ", best tau0 = 64, mode = fast"


def test_paisley_table11_4_is_empty_when_k_is_the_top_forty(tmp_path):
    """K = 40 topics all fit in Table 11.3: Table 11.4 has no rows and says so (no rank past K)."""
    topics = np.full((40, 20), 1 / 20)

    class Model:
        hyper, docs_seen = {"K": 40, "batch_size": 10, "m": 2}, 100

        def topics(self):
            return topics

        def topic_weights(self):
            return np.arange(40.0, 0.0, -1.0)

    class Ctx(_PlotCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return Model()

        def vocab(self, experiment):
            return [f"w{i}" for i in range(20)]

    ctx = Ctx({"paisley_fig11_4": pd.DataFrame()}, tmp_path)
    figlib.load_plugin("paisley_table11_4").draw(ctx)
    assert ctx.written.empty and ctx.caption.startswith("No less probable topics to show: this profile fits K = 40 <= 40")


def test_hu_fig4_leaves_out_grid_scores_when_a_grid_point_has_none(tmp_path):
    """A checkpoint whose grid point 1 has no held-out score (NaN) draws and reports no grid points' scores."""
    from types import SimpleNamespace

    model = SimpleNamespace(name="lgnmf", grid_log_alpha=np.log([0.1, 1.0, 10.0]), grid_weights=np.array([0.1, 0.6, 0.3]),
                            validation=np.full(3, np.nan), search=np.array([[0.0, 7.0, np.nan]]),
                            mode_log10_alpha=0.0, log10_alpha_sd=0.5)
    rows = [{"experiment": "hu_fig1", "dataset": "psy", "method": "lgnmf", "label": "lg", "seed": 0, "docs_seen": 10,
             "x_grid0_loglik": -7.1, "x_grid1_loglik": np.nan, "x_grid2_loglik": -7.05, "loglik_per_word": -7.0,
             "unigram_loglik_per_word": -9.0}]

    class Ctx(_PlotCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return model

    ctx = Ctx({"hu_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_fig4").draw(ctx)
    assert ctx.caption.endswith("weight 0.600 on log10 alpha = 0.000.") and "held-out scores" not in ctx.caption, ctx.caption



def test_hu_fig4_draws_the_searchs_validation_scores_against_log10_alpha(tmp_path):
    """The search's third column is each evaluation's validation score: drawn (green, top panel's twin axis) against
    log10 alpha in sorted order (-1, 0, 1: -7.3, -7.1, -7.2)."""
    from types import SimpleNamespace

    model = SimpleNamespace(name="lgnmf", grid_log_alpha=np.log([0.1, 1.0, 10.0]), grid_weights=np.array([0.1, 0.6, 0.3]),
                            validation=np.full(3, np.nan), search=np.array([[1.0, 6.0, -7.2], [-1.0, 5.0, -7.3],
                                                                            [0.0, 7.0, -7.1]]),
                            mode_log10_alpha=0.0, log10_alpha_sd=0.5)
    rows = [{"experiment": "hu_fig1", "dataset": "psy", "method": "lgnmf", "label": "lg", "seed": 0, "docs_seen": 10,
             "loglik_per_word": -7.0, "unigram_loglik_per_word": -9.0}]

    class Ctx(_PlotCtx):
        def model(self, experiment, label):
            assert label in ("cnmf", "lgnmf"), (experiment, label)  # a run label, not the experiment
            return model

    ctx = Ctx({"hu_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_fig4").draw(ctx)
    (validation,) = [line for ax in ctx.fig.axes for line in ax.lines
                     if line.get_label() == "validation log predictive / token"]
    np.testing.assert_allclose(validation.get_xdata(), [-1.0, 0.0, 1.0])
    np.testing.assert_allclose(validation.get_ydata(), [-7.3, -7.1, -7.2])


def test_hu_fig5_and_fig6_captions_name_their_figure(tmp_path):
    """Hu et al. 2014, Figs. 5 and 6 draw the same runs (against documents seen, against wall time); each caption
    names its own figure."""
    rows = [{"experiment": "hu_fig5", "dataset": "wiki", "method": "lgnmf", "label": "lg", "seed": 0, "docs_seen": docs,
             "perplexity": 1000.0, "fit_wall_s": docs / 10, "unigram_perplexity": 2000.0, "protocol": "halves",
             "corpus_size": 200, "p_K": 5, "p_batch_size": 10, "p_grid_size": 3, "p_grid": "laplace",
             "p_criterion": "validation", "p_eta": 0.003, "p_sgd_iters": 25} for docs in (100, 200)]
    for figure in (5, 6):
        ctx = _PlotCtx({"hu_fig5": pd.DataFrame(rows)}, tmp_path)
        figlib.load_plugin(f"hu_fig{figure}").draw(ctx)
        assert ctx.caption.startswith(f"Mirror of Hu et al. 2014, Fig. {figure}: "), ctx.caption

def test_mcinerney_fig1_draws_svi_in_the_permuted_row_only(tmp_path):
    """SVI (online LDA) is drawn in the permuted row only, as in the paper: its time-ordered runs are left out."""
    base = {"experiment": "mcinerney_fig1_d", "dataset": "d", "seed": 0, "p_K": 5, "eval_kind": "lookahead",
            "unigram_loglik_per_word": -9.0, "heldout_docs": 50, "corpus_size": 1000, "protocol": "halves"}
    rows = [{**base, "method": method, "label": method, "stream": stream, "docs_seen": docs, "loglik_per_word": -7.0}
            for method, stream in (("population_vb", "time_ordered"), ("online_lda", "time_ordered"),
                                   ("online_lda", "with_replacement")) for docs in (50, 100)]

    class Ctx(_PlotCtx):
        def corpus(self, experiment):
            return {"name": "d", "source": "synthetic", "n_words": 100}

    ctx = Ctx({"mcinerney_fig1_d": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("mcinerney_fig1").draw(ctx)
    lines = [[c.strip() for c in line.strip("|").split("|")][:3] for line in ctx.body.splitlines()[2:]]
    assert lines == [["d", "time-ordered stream", "population VB"],
                     ["d", "random permuted stream", "SVI (D = N, with replacement)"]], lines


def test_mcinerney_fig3_band_spans_the_seeds_from_lowest_to_highest(tmp_path):
    """Fig. 3's shaded band at each alpha runs from the lowest seed's final score to the highest: seeds 0.0 and 0.1
    apart, so -7.0 - 0.05 |x - 3| to 0.1 above it."""
    rows = [{"experiment": "mcinerney_fig1_x", "dataset": "d", "method": "population_vb", "label": "pvb", "seed": seed,
             "p_log10_population": x, "p_K": 5, "docs_seen": 1, "stream": "time_ordered", "eval_kind": "lookahead",
             "corpus_size": 3000, "loglik_per_word": -7.0 - 0.05 * abs(x - 3.0) + 0.1 * seed, "heldout_docs": 50,
             "protocol": "halves"} for x in (2.0, 3.0, 4.0) for seed in (0, 1)]
    ctx = _PlotCtx({"mcinerney_fig1_x": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("mcinerney_fig3").draw(ctx)
    (band,) = ctx.fig.axes[0].collections
    ys = band.get_paths()[0].vertices[:, 1]
    assert (ys.min(), ys.max()) == pytest.approx((-7.05, -6.9)), ys


def test_paisley_fig11_3_draws_each_panels_own_runs(tmp_path, monkeypatch):
    """One panel per (K, minibatch size); each draws its own runs of each method, against documents seen."""
    drawn = []
    monkeypatch.setattr(figlib, "plot_mean_spread", lambda ax, frame, x, y, *a, method=None, **k: drawn.append(
        (sorted(set(zip(frame["p_K"], frame["p_batch_size"], frame["method"]))), x, y)))
    rows = [{"experiment": "paisley_fig11_3", "dataset": "d", "method": method, "label": method, "seed": 0, "p_K": K,
             "p_batch_size": size, "p_tau0": 1.0, "p_kappa": 0.5, "docs_seen": docs, "eval_kind": "batch",
             "loglik_per_word": -7.0, "corpus_size": 1000, "protocol": "3-fold"}
            for K in (5, 10) for size in (10, 20) for method in ("bnmf", "online_lda") for docs in (90, 190)]
    figlib.load_plugin("paisley_fig11_3").draw(_PlotCtx({"paisley_fig11_3": pd.DataFrame(rows)}, tmp_path))
    assert drawn == [([(K, size, method)], "docs_seen", "loglik_per_word")
                     for K in (5, 10) for size in (10, 20) for method in ("bnmf", "online_lda")], drawn


def test_paisley_fig11_3_caption_says_whether_the_grid_is_the_chapters(tmp_path, monkeypatch):
    """K in {50, 100, 150} x minibatch in {500, 1000, 1500, 2000} is the chapter's grid; the chapter's sizes with
    K = 5 only are a shrunk one. The caption gives the training corpus size D."""
    monkeypatch.setattr(figlib, "plot_mean_spread", lambda *a, **k: None)
    for Ks, says in (((50, 100, 150), "(the chapter's grid)."), ((5,), "(the chapter's grid is K in {50, 100, 150}")):
        rows = [{"experiment": "paisley_fig11_3", "dataset": "d", "method": "bnmf", "label": "bnmf", "seed": 0, "p_K": K,
                 "p_batch_size": size, "p_tau0": 1.0, "p_kappa": 0.5, "docs_seen": 9 * size, "eval_kind": "batch",
                 "loglik_per_word": -7.0, "corpus_size": 10 ** 6, "protocol": "3-fold"}
                for K in Ks for size in (500, 1000, 1500, 2000)]
        ctx = _PlotCtx({"paisley_fig11_3": pd.DataFrame(rows)}, tmp_path)
        figlib.load_plugin("paisley_fig11_3").draw(ctx)
        assert f"x minibatch size in {{500, 1000, 1500, 2000}} {says}" in ctx.caption, (Ks, ctx.caption)
        assert "Training corpus size D = 1,000,000. " in ctx.caption, ctx.caption


def test_paisley_fig11_4_planted_agreement_matches_by_cosine_of_whole_topics():
    """As the claim's judge: planted topics 1 and 2 share their heavy word; fitted in the order 1, 2, 3, 0, each
    planted topic's copy is its unique best cosine, so the learned correlations enter in the planted order."""
    planted = np.array([[0.4, 0.3, 0.3, 0.0], [0.2, 0.6, 0.1, 0.1], [0.0, 0.85, 0.1, 0.05], [0.05, 0.05, 0.1, 0.8]])
    truth = np.array([[1.0, 0.5, -0.3, 0.1], [0.5, 1.0, 0.2, -0.4], [-0.3, 0.2, 1.0, 0.6], [0.1, -0.4, 0.6, 1.0]])
    learned = truth + np.array([[0.0, 0.1, 0.0, 0.0], [0.1, 0.0, 0.0, -0.1], [0.0, 0.0, 0.0, 0.2], [0.0, -0.1, 0.2, 0.0]])
    perm = np.array([1, 2, 3, 0])

    class Model:
        def topics(self):
            return planted[perm]

        def topic_correlations(self):
            return learned[np.ix_(perm, perm)]

    off = ~np.eye(4, dtype=bool)
    r = np.corrcoef(truth[off], learned[off])[0, 1]
    got = figlib.load_plugin("paisley_fig11_4").planted_agreement(Model(), {"topics": planted, "correlation": truth})
    assert got == pytest.approx(r, rel=1e-12)


# -- figlib's plumbing, by hand on tiny inputs ---------------------------------------------------------------------

def test_helper_files_follow_imports_through_helpers(tmp_path, monkeypatch):
    """helper_files: the '_*.py' files a figure imports, directly or through another helper (a dotted import names
    its first part); packages, relative imports and helpers nobody imports are not inputs."""
    files = {"fig.py": "import numpy\nimport _a\nfrom _b.sub import x\nfrom . import _c\nimport _thread\n",
             "_a.py": "from _d import y\n",
             "_b.py": "", "_c.py": "", "_d.py": "import _a\n", "_unused.py": ""}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(figlib, "PLUGIN_DIR", tmp_path)
    assert figlib.helper_files("fig") == [tmp_path / "_a.py", tmp_path / "_b.py", tmp_path / "_d.py"]


def test_discover_orders_figures_by_paper_then_order_then_name(tmp_path, monkeypatch):
    """Two figures of one paper and one order are drawn in file-name order (not compared as declarations)."""
    text = "import figlib\nFIGURE = figlib.Figure(paper={!r}, title={!r}, experiments=('e*',), order={})\n" \
           "def draw(ctx):\n    pass\n"
    for name, paper, order in (("zeta", "hu", 0), ("beta", "hu", 0), ("alpha", "hu", 1), ("omega", "hoffman", 5)):
        (tmp_path / f"{name}.py").write_text(text.format(paper, name, order))
    (tmp_path / "_helper.py").write_text("raise RuntimeError('a helper is no figure')\n")
    (tmp_path / "_shared.py").write_text("ORDER = 0\n")
    (tmp_path / "zeta.py").write_text("import _shared\n" + text.format("hu", "zeta", "_shared.ORDER"))
    (tmp_path / "beta.py").write_text(text.format("hu", "beta", 0).replace(", order=0", ""))  # the default order, 0
    monkeypatch.setattr(figlib, "PLUGIN_DIR", tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    found = figlib.discover(["e1", "f"])
    assert list(found) == ["omega", "beta", "zeta", "alpha"] and found["beta"][1] == ["e1"]


def test_context_reads_its_experiments_corpus(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    meta = {"name": "tiny", "source": "planted", "n_train": 1200, "n_test": 30, "n_words": 4, "n_tokens": 56789}
    (corpus / "corpus.json").write_text(__import__("json").dumps(meta))
    (corpus / "vocab.txt").write_text("apple\nbread\ncheese\ndates\n", encoding="utf-8")
    ctx = figlib.Context("fig", None, ["e"], None, {"e": str(corpus)}, {}, {})
    assert ctx.corpus("e") == meta and ctx.vocab("e") == ["apple", "bread", "cheese", "dates"]
    assert ctx.corpus_caption("e") == ("corpus tiny (planted): 1,200 training and 30 test documents, V = 4, "
                                       "56,789 tokens")
    assert ctx.truth("e") is None
    np.savez(corpus / "truth.npz", topics=np.eye(2))
    np.testing.assert_array_equal(ctx.truth("e")["topics"], np.eye(2))


def test_seeds_caption_speaks_of_a_spread_only_over_several_seeds():
    assert figlib.seeds_caption(pd.DataFrame({"seed": [3, 3]})) == "seeds 3"
    assert figlib.seeds_caption(pd.DataFrame({"seed": [2, 0, 2]})) == \
        "seeds 0, 2; curves are the mean over seeds, shaded from the minimum to the maximum"


def test_markdown_table_and_captions_by_hand(tmp_path):
    from topicbench.traces import DRAWN_FROM, PICTURE

    frame = pd.DataFrame({"method": ["a|b"], "x": [1.5], "y": [np.nan]})
    assert figlib.markdown_table(frame) == "| method | x | y |\n|---|---:|---:|\n| a\\|b | 1.5000 |  |"
    assert figlib.markdown_table(frame, ".1f").endswith("| 1.5 |  |")  # one format for every float column
    figlib.write_caption(str(tmp_path / "part.md"), "T", "cap", "body", drawn_from="d1", picture="p1")
    assert (tmp_path / "part.md").read_text() == f"### T\n\ncap\n\nbody\n\n{PICTURE}p1 -->\n\n{DRAWN_FROM}d1 -->\n"
    assert figlib.rst_caption("T", "a*b_c|`d`\\") == "**T.** a\\*b\\_c\\|\\`d\\`\\\\\n"


@pytest.mark.parametrize("field, value", [
    pytest.param("experiments", "hu_*", id="a-bare-string"), pytest.param("experiments", ("",), id="an-empty-name"),
    pytest.param("extra", ("figures/../../x.png",), id="extra-climbing-out"),
    pytest.param("extra", ("other/x.png",), id="extra-outside-figures-and-tables"),
    pytest.param("extra", ("figures",), id="extra-the-folder-itself"),
    pytest.param("models", "online_full", id="models-a-bare-string"), pytest.param("extra", ("",), id="extra-an-empty-name"),
])
def test_figure_declaration_refuses(field, value):
    with pytest.raises(ValueError, match=field):
        figlib.Figure(**{"paper": "hu", "title": "x", "experiments": ("x",), field: value})


def test_figure_extra_may_lie_in_a_subfolder():
    assert figlib.Figure(paper="hu", title="x", experiments=("x",), extra=("figures/sub/x.png",)).extra


def test_figure_file_without_draw_is_refused(tmp_path, monkeypatch):
    (tmp_path / "nodraw.py").write_text("import figlib\nFIGURE = figlib.Figure(paper='hu', title='t', experiments=('e',))\n")
    monkeypatch.setattr(figlib, "PLUGIN_DIR", tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(ValueError, match="needs FIGURE"):
        figlib.load_plugin("nodraw")


def test_context_frames_models_and_parts(tmp_path):
    """Context: frame(e) is e's rows of the read experiments; model_path only of a declared model; write() refuses a
    figure without its picture and a table without its table, and a table's csv is the table plus its drawn-from."""
    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": ["a", "b", "c"], "x": [1, 2, 3]}).to_parquet(traces)
    outs = {k: str(tmp_path / f"part.{k}") for k in ("md", "rst", "csv")}
    table = figlib.Figure(paper="hu", title="T", experiments=("a", "b"), kind="table")
    ctx = figlib.Context("t", table, ["a", "b"], str(traces), {}, {"a/run": "m.npz"}, outs)
    assert ctx.frame("a")["x"].tolist() == [1] and ctx.frame()["x"].tolist() == [1, 2]
    with pytest.raises(SystemExit, match="no trace rows"):
        ctx.frame("c")
    assert ctx.model_path("a", "run") == "m.npz"
    with pytest.raises(SystemExit, match="no model"):
        ctx.model_path("b", "run")
    with pytest.raises(ValueError, match="must pass its table"):
        ctx.write("cap")
    ctx.write("cap", table=pd.DataFrame({"m": ["x"], "v": [1.5]}))
    assert Path(outs["rst"]).read_text() == "**T.** cap\n"  # the report's caption: title, then caption
    assert list(pd.read_csv(outs["csv"]).columns) == ["m", "v", "drawn_from_all_traces_sha256"]
    picture = figlib.Figure(paper="hu", title="F", experiments=("a",))
    with pytest.raises(ValueError, match="save its picture"):
        figlib.Context("f", picture, ["a"], str(traces), {}, {}, outs).write("cap")


def test_quality_columns_keep_the_order_of_first_appearance():
    final = pd.DataFrame({"method": ["b", "a", "b", "b"], "npmi": [0.1, 0.2, 0.3, 0.8], "recovery_cosine": np.nan})
    got = figlib.quality_columns(final, ["method"])
    assert got.index.tolist() == ["b", "a"] and got.columns.tolist() == ["NPMI"]
    np.testing.assert_allclose(got["NPMI"], [0.4, 0.2])  # the mean over b's runs (their median is 0.3)


def test_topic_history_and_bound_perplexity_need_their_records(tmp_path):
    np.savez(tmp_path / "with.npz", _topic_history=np.zeros((2, 3, 4)), _topic_history_docs=np.array([5, 10]))
    np.savez(tmp_path / "without.npz", topics=np.eye(2))
    history, docs = figlib.topic_history(str(tmp_path / "with.npz"))
    assert history.shape == (2, 3, 4) and docs.tolist() == [5, 10]
    with pytest.raises(SystemExit, match="no topic history"):
        figlib.topic_history(str(tmp_path / "without.npz"))
    frame = pd.DataFrame({"elbo_per_word": [-2.0, np.nan]})
    np.testing.assert_allclose(figlib.bound_perplexity(frame, "e")["bound_perplexity"], [np.exp(2.0), np.nan])
    for bad in (pd.DataFrame({"x": [1.0]}), pd.DataFrame({"elbo_per_word": [np.nan]})):
        with pytest.raises(SystemExit, match="no elbo_per_word"):
            figlib.bound_perplexity(bad, "e")


@pytest.mark.parametrize("seeds, bands", [([0, 0], 0), ([0, 0, 1, 1], 1)])
def test_min_max_band_only_over_several_seeds(seeds, bands):
    """plot_mean_spread shades the seeds' min-max band (as seeds_caption says) only where there are several seeds."""
    frame = pd.DataFrame({"seed": seeds, "docs_seen": [1, 2] * (len(seeds) // 2), "y": np.arange(len(seeds), dtype=float)})
    fig, ax = figlib.plt.subplots()
    figlib.plot_mean_spread(ax, frame, "docs_seen", "y")
    assert len(ax.collections) == bands
    figlib.plt.close(fig)


# -- build_paper's assembly, by hand -------------------------------------------------------------------------------

def test_paper_blocks_by_hand(tmp_path):
    """parse_markdown (levels shifted by base, pipe tables with escaped pipes), part_blocks (title, picture with its
    caption, then the body) and to_markdown, on a tiny part."""
    text = "# T\n\ncap line\n<!-- a note -->\nsame para\n\n| a | b |\n|---|---|\n| 1 | x\\|y |\n"
    assert build_paper.parse_markdown(text, base=1) == [("heading", 2, "T"), ("para", "cap line same para"),
                                                         ("table", ["a", "b"], [["1", "x|y"]])]
    part = tmp_path / "fig.md"
    part.write_text("### Title\n\nThe caption.\n\nbody text\n\n<!-- a record -->\n")
    blocks = build_paper.part_blocks(str(part), str(tmp_path / "fig.png"))
    assert blocks == [("heading", 3, "Title"), ("figure", str(tmp_path / "fig.png"), "The caption."), ("para", "body text")]
    assert build_paper.part_blocks(str(part), None)[1] == ("para", "The caption.")
    (tmp_path / "bare.md").write_text("Only a caption.\n")
    assert build_paper.part_blocks(str(tmp_path / "bare.md"), None) == [("heading", 3, "bare"), ("para", "Only a caption.")]
    (tmp_path / "table.md").write_text("### T\n\n| a |\n|---|\n| 1 |\n")  # no caption: the table stays the body
    assert build_paper.part_blocks(str(tmp_path / "table.md"), None) == [("heading", 3, "T"), ("para", ""),
                                                                         ("table", ["a"], [["1"]])]
    assert build_paper.to_markdown(blocks + [("table", ["a", "b"], [["1", "x|y"]])], tmp_path) == (
        "### Title\n\n![fig](fig.png)\n\nThe caption.\n\nbody text\n\n| a | b |\n|---|---|\n| 1 | x\\|y |\n")


def test_paper_assembles_its_sections_by_hand(tmp_path):
    """main: the template's placeholders filled (summary with the findings' verdict counts, each paper's heading then
    its parts, the findings table without its own title, the provenance), in that order."""
    import hashlib
    from types import SimpleNamespace

    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": ["a", "a"], "dataset": "d", "method": "m", "label": "l", "seed": [0, 1],
                  "corpus_size": 10, "git_sha": "abc", "docs_seen": 1, "fit_wall_s": 1.0}).to_parquet(traces)
    digest = hashlib.sha256(traces.read_bytes()).hexdigest()
    fig, ax = figlib.plt.subplots(figsize=(1, 1))
    png = tmp_path / "fig.png"
    figlib.write_caption(str(tmp_path / "fig.md"), "Fig T", "Fig caption.", "Fig body.", drawn_from=digest,
                         picture=figlib.save_figure(fig, str(png)))
    csv = pd.DataFrame({"claim": ["x", "y", "z"], "verdict": ["holds", "fails", "holds"]}).to_csv(index=False)
    (tmp_path / "findings.csv").write_text(csv)
    figlib.write_caption(str(tmp_path / "findings.md"), "Findings T", "Findings caption.", drawn_from=digest,
                         table=hashlib.sha256(csv.encode()).hexdigest())
    (tmp_path / "template.md").write_text("# Paper\n\nIntro text.\n\n{{summary}}\n\n## Mirrors\n\n{{mirrors}}\n\n"
                                          "## Findings\n\n{{findings}}\n\n{{provenance}}\n")
    bench = [tmp_path / "benchmarks" / "runs" / "r.tsv", tmp_path / "benchmarks" / "prepare" / "c.tsv"]
    for record, rows in zip(bench, ("2.5\t100\n1.0\t300\n", "4.0\t50\n")):
        record.parent.mkdir(parents=True)
        record.write_text("s\tmax_rss\n" + rows)
    parts = [{"paper": "hu", "md": str(tmp_path / "fig.md"), "png": str(png)},
             {"paper": "findings", "md": str(tmp_path / "findings.md"), "png": None}]
    out = {k: str(tmp_path / "paper" / f"topicbench.{k}") for k in ("md", "typ", "pdf")}
    smk = SimpleNamespace(input=SimpleNamespace(traces=str(traces), template=str(tmp_path / "template.md"),
                                                benchmarks=[str(b) for b in bench]),
                          output=SimpleNamespace(**out), params=SimpleNamespace(parts=parts, papers=figlib.PAPERS))
    __import__("runpy").run_path(build_paper.__file__, init_globals={"snakemake": smk}, run_name="__main__")  # as Snakemake
    md = Path(out["md"]).read_text()
    assert '#set document(title: "Paper")' in Path(out["typ"]).read_text()
    if __import__("importlib").util.find_spec("typst"):  # typst typeset the PDF: the fallback did not overwrite it
        assert b"Matplotlib" not in Path(out["pdf"]).read_bytes()
    assert ("Job benchmarks (Snakemake benchmark: records): fit: 2 jobs, 4 s wall in total (longest 2.5 s), peak memory "
            "300 MB; prepare: 1 jobs, 4 s wall in total (longest 4.0 s), peak memory 50 MB.") in md
    expected = ["# Paper", "Intro text.", "This build aggregates 2 checkpoints of the runs of 1 experiments. Of the 3 claims of the "
                "findings table, 2 holds, 1 fails on this build.", "## Mirrors", f"## {figlib.PAPERS['hu']}", "### Fig T",
                "![fig](../fig.png)", "Fig caption.", "Fig body.", "## Findings", "Findings caption.", "## Provenance",
                "Seeds per experiment: a: 0, 1.", "Corpora (training documents): d 10."]
    positions = [("\n" + md).find("\n" + line + "\n") for line in expected]  # whole lines: "## x" is not "#### x"
    assert -1 not in positions and positions == sorted(positions), md
    assert "### Findings T" not in md
    from topicbench.traces import BUILT_BY

    # it ends with the record of the code that built it, which the workflow compares at DAG build (stale_paper)
    assert md.endswith(f"{BUILT_BY}{build_paper.code_sha256(build_paper.__file__, tmp_path / 'template.md')} -->\n")
    assert build_paper.stale_paper(out["md"], build_paper.__file__, tmp_path / "template.md") == {}


def test_benchmarks_table_is_stale_only_for_other_code_or_another_picture(tmp_path):
    """stale_benchmarks: a table recording the current drawing code and the picture beside it is current; other code,
    or another picture, is stale; a table recording no code (drawn before the record) or a missing picture is left to
    Snakemake."""
    from topicbench.traces import BENCHMARKS_DRAWN_BY, BENCHMARKS_PICTURE
    from topicbench import io as tio

    picture = tmp_path / "benchmarks.png"
    picture.write_bytes(b"png")
    table = tmp_path / "benchmarks.csv"

    def stale(drawn_by, picture_sha, at=picture):
        cols = {"rule": ["a", "b"]}
        if drawn_by is not None:
            cols.update({BENCHMARKS_DRAWN_BY: [drawn_by] * 2, BENCHMARKS_PICTURE: [picture_sha] * 2})
        pd.DataFrame(cols).to_csv(table, index=False)
        return figlib.stale_benchmarks(table, at)

    now, sha = figlib.benchmarks_code_sha256(), tio.file_sha256(picture)
    assert stale(now, sha) == {}
    assert "other code" in stale("0" * 64, sha)[str(table)]
    assert "not the picture written with it" in stale(now, "0" * 64)[str(table)]
    assert stale(None, None) == {}
    assert stale(now, sha, at=tmp_path / "gone.png") == {}


def test_a_curve_of_two_runs_of_one_seed_is_refused_naming_what_differs():
    """plot_mean_spread: one run per seed is a curve; two runs of seed 0 (K 5 and 10, tau0 missing and 64) are
    refused, naming both as what tells them apart (a missing value counts as a value)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def runs(seeds_ks, tau0=(np.nan,)):
        return pd.DataFrame([dict(experiment="e", dataset="d", method="online_lda", label="l", seed=s, p_K=k,
                                  p_tau0=tau0[min(i, len(tau0) - 1)], docs_seen=n, loglik_per_word=-7.0 - n / 100)
                             for i, (s, k) in enumerate(seeds_ks) for n in (10, 20)])

    fig, ax = plt.subplots()
    try:
        figlib.plot_mean_spread(ax, runs([(0, 5), (1, 5)]), "docs_seen", "loglik_per_word", label="one per seed")
        with pytest.raises(ValueError, match=r"holds 2 runs of seed 0 \(they differ in p_K, p_tau0\)"):
            figlib.plot_mean_spread(ax, runs([(0, 5), (0, 10), (1, 5)], (np.nan, 64.0)),
                                     "docs_seen", "loglik_per_word", label="two")
    finally:
        plt.close(fig)


@pytest.mark.parametrize("keys, where", [(["method"], "method a"), (["method", "seed"], "method a, seed 0")])
def test_several_runs_under_one_key_name_the_key_and_what_differs(keys, where):
    """_claims.several_runs: two runs of method a, seed 0 (K 5 and 10, tau0 missing and 64) share the key -> 'cannot be
    judged', naming the key and both columns (a missing value counts); one run per key -> None; a missing key value
    is a key like any other."""
    def frame(rows):
        return pd.DataFrame([dict(experiment="e", dataset="d", method=m, label="l", seed=0, p_K=k, p_tau0=t,
                                  docs_seen=n) for m, k, t in rows for n in (10, 20)])

    two = _claims.several_runs(frame([("a", 5, np.nan), ("a", 10, 64.0), ("b", 5, np.nan)]), keys, "batch VB")
    assert two.verdict == "cannot be judged"
    assert f"2 runs of batch VB share {where} (they differ in p_K, p_tau0)" in two.spread + two.test + two.numbers
    assert _claims.several_runs(frame([("a", 5, np.nan), ("b", 5, np.nan)]), keys, "batch VB") is None
    assert _claims.several_runs(frame([(None, 5, np.nan), (None, 10, np.nan)]), keys, "x").verdict == "cannot be judged"


@pytest.mark.parametrize("record, provenance, refused", [
    pytest.param("s\n1.5\n", "x", "not a Snakemake benchmark record", id="record-without-max_rss"),
    pytest.param("s\tmax_rss\n1.5\t10\n", ["x", "y"], "records no single", id="trace-of-two-provenances"),
    pytest.param("s\tmax_rss\n1.5\t10\n", [], "records no single", id="trace-without-rows"),
    pytest.param("max_rss\n10\n", "x", "not a Snakemake benchmark record", id="record-without-s"),
])
def test_benchmarks_table_refuses_a_row_it_cannot_fill(tmp_path, record, provenance, refused):
    """benchmarks_table.py: a record without max_rss, or a trace whose rows disagree on their provenance or has none
    -> stopped naming the file, before any table is written."""
    import runpy
    from types import SimpleNamespace

    from topicbench.traces import PROVENANCE

    records = tmp_path / "benchmarks" / "runs" / "exp" / "ds" / "oLDA" / "r.tsv"
    records.parent.mkdir(parents=True)
    records.write_text(record)
    trace = tmp_path / "runs" / "exp" / "ds" / "oLDA" / "r" / "trace.parquet"
    trace.parent.mkdir(parents=True)
    values = provenance if isinstance(provenance, list) else [provenance]
    pd.DataFrame([{column: v for column in PROVENANCE} for v in values], columns=list(PROVENANCE)).to_parquet(trace)
    smk = SimpleNamespace(scriptdir=str(REPO / "workflow" / "scripts"),
                          input=SimpleNamespace(records=[str(records)], traces=[str(trace)], corpora=[]),
                          output=SimpleNamespace(table=str(tmp_path / "tables" / "b.csv"),
                                                 figure=str(tmp_path / "figures" / "b.png")))
    with pytest.raises(SystemExit, match=refused):
        runpy.run_path(str(REPO / "workflow" / "scripts" / "benchmarks_table.py"), init_globals={"snakemake": smk})
    assert not (tmp_path / "tables" / "b.csv").exists()


# -- figlib's shared curve and styles, by hand ------------------------------------------------------------------

def test_style_of_a_method_outside_the_table_is_its_own_name_in_grey():
    """A plugin method missing from figlib.METHODS is drawn and named under its own name (not a KeyError)."""
    assert figlib.style("my_plugin") == {"label": "my_plugin", "color": "tab:gray", "linestyle": "-"}
    assert figlib.name("my_plugin") == "my_plugin" and figlib.name("online_lda") == "online VB LDA"


def test_plot_mean_spread_draws_the_mean_over_seeds_and_its_min_max_band():
    """Three seeds whose checkpoints sit at different docs_seen: checkpoint i is drawn at the mean x of the seeds' i-th
    checkpoints and the mean y, shaded from the seeds' minimum to their maximum; styled and named from METHODS."""
    frame = pd.DataFrame({"seed": [0, 0, 1, 1, 2, 2], "docs_seen": [1, 10, 2, 20, 6, 60],
                          "y": [1.0, 4.0, 2.0, 5.0, 9.0, 9.0]})
    fig, ax = figlib.plt.subplots()
    line = figlib.plot_mean_spread(ax, frame.sample(frac=1, random_state=0), "docs_seen", "y", method="online_lda")
    np.testing.assert_allclose(line.get_xdata(), [3.0, 30.0])  # mean docs_seen (the median would be 2, 20)
    np.testing.assert_allclose(line.get_ydata(), [4.0, 6.0])
    assert line.get_label() == "online VB LDA" and line.get_color() == "tab:blue"
    (band,) = ax.collections
    vertices = band.get_paths()[0].vertices
    assert {tuple(v) for v in vertices} >= {(3.0, 1.0), (30.0, 4.0), (3.0, 9.0), (30.0, 9.0)}  # low and high edges
    assert set(vertices[:, 0]) == {3.0, 30.0}
    other = figlib.plot_mean_spread(ax, frame, "docs_seen", "y", label="mine")  # no method: matplotlib's own colour
    assert other.get_label() == "mine" and other.get_color() != figlib.style("no_such_method")["color"]
    figlib.plt.close(fig)


def test_fallback_pdf_lays_out_the_title_note_wrapped_text_pictures_and_table_rows(tmp_path, monkeypatch):
    """build_paper.fallback_pdf (the PDF when Typst is missing or fails), its pages caught as drawn: the title given
    (not the blocks' own level-1 heading), the note saying why, each text wrapped to the A4 text width (6.87 in) as its
    glyphs are drawn, every line inside the margins and each but a text's last full (its next word would not fit; a row
    of capitals and digits as much as one of 'x'), lines stepped down by 1.35 line heights and a block by 0.6 more, a new
    page before the bottom margin, a tall picture capped at the page height less 1.5 in on a page of its own, and a
    table as one "header: cell" line per row (empty cells left out). Was: wrapped by a count of characters (116 of
    8.5 pt serif), whose lines ran up to 0.9 in past the paper's right edge (3.4 in for capitals)."""
    from matplotlib.backends import backend_pdf
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    pages = []

    class Pages:  # PdfPages, keeping the figures instead of writing them
        def __init__(self, path):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def savefig(self, fig):
            pages.append(fig)

    monkeypatch.setattr(backend_pdf, "PdfPages", Pages)
    png = tmp_path / "p.png"
    figlib.plt.imsave(png, np.zeros((100, 50, 3)))  # 1:2: 13.74 in high at the text width, capped at 8.79 in
    para, heading, row, wide = "word " * 1500, "long heading " * 10, "x" * 150, "0123456789 MMMM WWWW " * 12
    blocks = [("heading", 1, "Own title"), ("heading", 2, heading), ("para", para), ("figure", str(png), "cap"),
              ("table", ["h", "e", "k"], [[row, "", "v"], [wide, "", ""]])]
    build_paper.fallback_pdf(blocks, str(tmp_path / "out.pdf"), "Title", "why")
    H, top, left = 11.69, 11.69 - 0.7, 0.7 / 8.27
    texts = [(t.get_text(), t.get_fontsize(), t.get_weight(), t.get_family()[0], t.get_position()[1] * H)
             for page in pages for t in page.texts]

    def width(page, s, t):  # inches, as Agg lays the text out unhinted (as the PDF does): apart from the layout's own
        probe = page.text(0, 0, s, fontsize=t.get_fontsize(), weight=t.get_weight(), family=t.get_family()[0],
                          parse_math=False)
        inches = probe.get_window_extent(page.canvas.get_renderer()).width / page.dpi
        probe.remove()
        return inches

    source = f"{para} {heading} h: {row}; k: v h: {wide}".split()
    with figlib.plt.rc_context({"text.hinting": "none"}):  # the PDF's glyph advances
        for page in pages:
            FigureCanvasAgg(page)
            drawn = list(page.texts)
            for k, t in enumerate(drawn):
                box = t.get_window_extent(page.canvas.get_renderer())
                assert 0.7 - 1e-9 <= box.x0 / page.dpi and box.x1 / page.dpi <= 8.27 - 0.7, (t.get_text(), box.x1 / page.dpi)
                assert box.y0 / page.dpi >= 0.7 and box.y1 / page.dpi <= H - 0.7 + 1e-9, (t.get_text(), box.y0 / page.dpi)
                after = drawn[k + 1] if k + 1 < len(drawn) else None
                step = None if after is None else (t.get_position()[1] - after.get_position()[1]) * H
                if step == pytest.approx(t.get_fontsize() / 72 * 1.35):  # the next line of the same text
                    last, first = t.get_text().split()[-1], after.get_text().split()[0]
                    cut = any(last + first in w for w in source)  # a word cut where it filled the line
                    more = t.get_text() + after.get_text()[0] if cut else f"{t.get_text()} {first}"
                    # full: with the next line's first word (a cut word: its next character) it would pass the width
                    assert width(page, more, t) > 6.87 - t.get_fontsize() / 72, (t.get_text(), after.get_text())
    assert texts[0] == ("Title", 14, "bold", "serif", pytest.approx(top))
    assert pages[0].texts[0].get_position()[0] == pytest.approx(left)
    note = ["[This PDF was drawn by the plain matplotlib fallback, not Typst: why.]"]
    assert [t[0] for t in texts[1:1 + len(note)]] == note and texts[1][1] == 8.5
    assert texts[1][4] == pytest.approx(top - 14 / 72 * 1.35 - 14 / 72 * 0.6)  # after the title's line and its gap
    i = 1 + len(note)
    wrapped = [t[0] for t in texts if t[1] == 12]
    assert " ".join(wrapped).split() == heading.split() and len(wrapped) == 2
    assert [t[:3] for t in texts[i:i + len(wrapped)]] == [(w, 12, "bold") for w in wrapped]
    assert texts[i + 1][4] - texts[i][4] == pytest.approx(-12 / 72 * 1.35)
    i += len(wrapped)
    lines = [t[0] for t in texts[i:] if t[1] == 8.5]
    assert " ".join(lines).split() == para.split() and {t[1] for t in texts[i:i + len(lines)]} == {8.5}
    i += len(lines)
    rows = texts[i + 1:]
    assert texts[i][:2] == ("cap", 7) and {t[1:4] for t in rows} == {(7, "normal", "monospace")}
    assert "".join(t[0] for t in rows).replace(" ", "") == f"h: {row}; k: vh: {wide}".replace(" ", ""), rows
    # page 1: title, note, heading, then the paragraph's lines while they start 1.4 line heights above the margin:
    # from 9.83 in down by 0.159 in, 57 lines (the 58th would start at 0.75 in < 0.7 + 0.165); the rest on page 2
    assert len(pages) == 3 and len(pages[0].texts) == 1 + len(note) + len(wrapped) + 57
    assert pages[1].texts[0].get_text() == lines[57] and pages[1].texts[0].get_position()[1] * H == pytest.approx(top)
    (ax,) = pages[2].axes  # the picture did not fit below page 2's text: a page of its own, at its top
    x, y, w, h = ax.get_position().bounds
    assert (x, y + h, w * 8.27, h * H) == pytest.approx((left, top / H, 8.79 / 2, 8.79))
    assert pages[2].texts[0].get_text() == "cap" and pages[2].texts[0].get_position()[1] * H == pytest.approx(
        top - 8.79 - 0.1)
    # a wide picture (2:1) fits below a level-2 heading on the first page: 6.87 x 3.435 in; a level-1 heading is
    # dropped only as the blocks' first (the title), anything else is kept
    wide = tmp_path / "wide.png"
    figlib.plt.imsave(wide, np.zeros((50, 100, 3)))
    pages.clear()
    build_paper.fallback_pdf([("heading", 2, "Sec"), ("figure", str(wide), "c2")], str(tmp_path / "b.pdf"), "T", "w")
    (page,) = pages
    assert [t.get_text() for t in page.texts][-2:] == ["Sec", "c2"]
    x, y, w, h = page.axes[0].get_position().bounds
    assert (w * 8.27, h * H) == pytest.approx((6.87, 3.435))
    pages.clear()
    build_paper.fallback_pdf([("heading", 1, "Own"), ("para", "x")], str(tmp_path / "c.pdf"), "T", "w")
    assert [t.get_text() for t in pages[0].texts][-1:] == ["x"] and "Own" not in [t.get_text() for t in pages[0].texts]


def test_provenance_names_the_fits_versions_sorted_and_every_package_of_the_build():
    """build_paper.provenance: each recorded version column of the fits, named without '_version', its values sorted;
    the code versions sorted; the build's own packages, each named (the paper's record of what made it)."""
    traces = pd.DataFrame({"experiment": "e", "dataset": "d", "method": "m", "label": "l", "seed": [0, 1],
                           "corpus_size": 10, "git_sha": ["b2", "a1"], "docs_seen": 1, "fit_wall_s": 1.0,
                           **{f"{p}_version": ["2", "1"] for p in ("topicbench", "python", "numpy", "scipy", "numba",
                                                                   "pandas")}})
    text = " ".join(str(b[-1]) for b in build_paper.provenance(traces, [], "res", "typst x"))
    assert "Code version(s) of the fits: a1, b2." in text
    assert ("Package versions recorded by the fits: topicbench 1, 2; python 1, 2; numpy 1, 2; scipy 1, 2; numba 1, 2; "
            "pandas 1, 2.") in text
    built = build_paper.versions().split(", ")
    assert [v.split(" ")[0] for v in built] == ["topicbench", "numpy", "scipy", "numba", "pandas", "pyarrow",
                                                "matplotlib", "snakemake", "gensim", "scikit-learn", "typst"]


@pytest.mark.parametrize("text, why", [("", "an unrecorded"), ("### T\n\ncap\n", "an unrecorded"),
                                       ("### T\n\n<!-- drawn from all_traces.parquet sha256 x -->\n", "another")])
def test_paper_refuses_a_part_drawn_from_no_or_another_aggregate(tmp_path, text, why):
    """check_parts: an empty part, a part without its DRAWN_FROM record, or one recording another aggregate is
    refused by name (a SystemExit, not an IndexError)."""
    md = tmp_path / "p.md"
    md.write_text(text)
    with pytest.raises(SystemExit, match=f"drawn from {why} all_traces.parquet"):
        build_paper.check_parts([{"md": str(md), "png": None}], "t.parquet", "0" * 64)


def test_paper_when_typst_fails_says_so_and_fills_what_the_build_lacks(tmp_path, monkeypatch):
    """main with a Typst that fails: the PDF is the fallback's and the paper's provenance says the fallback typeset it
    (never Typst); a template without a title heading gives the title 'topicbench'; no findings part leaves its
    sentence in the findings' place."""
    import hashlib
    import types
    from types import SimpleNamespace

    failing = types.ModuleType("typst")
    failing.compile = lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom"))
    monkeypatch.setitem(sys.modules, "typst", failing)
    traces = tmp_path / "all_traces.parquet"
    pd.DataFrame({"experiment": "a", "dataset": "d", "method": "m", "label": "l", "seed": [0], "corpus_size": 10,
                  "git_sha": "abc", "docs_seen": 1, "fit_wall_s": 1.0}).to_parquet(traces)
    fig, ax = figlib.plt.subplots(figsize=(1, 1))
    png = tmp_path / "fig.png"
    figlib.write_caption(str(tmp_path / "fig.md"), "Fig T", "Fig caption.", drawn_from=hashlib.sha256(
        traces.read_bytes()).hexdigest(), picture=figlib.save_figure(fig, str(png)))
    (tmp_path / "template.md").write_text("Intro text.\n\n{{findings}}\n\n{{provenance}}\n")
    out = {k: str(tmp_path / "paper" / f"topicbench.{k}") for k in ("md", "typ", "pdf")}
    smk = SimpleNamespace(input=SimpleNamespace(traces=str(traces), template=str(tmp_path / "template.md"), benchmarks=[]),
                          output=SimpleNamespace(**out), params=SimpleNamespace(
                              parts=[{"paper": "hu", "md": str(tmp_path / "fig.md"), "png": str(png)}], papers=figlib.PAPERS))
    build_paper.main(smk)
    md = Path(out["md"]).read_text()
    assert "Typeset by: matplotlib fallback: typst failed: boom." in md and "Typeset by: typst" not in md
    assert "\nThe findings table is not part of this build.\n" in md
    assert '#set document(title: "topicbench")' in Path(out["typ"]).read_text()
    assert b"Matplotlib" in Path(out["pdf"]).read_bytes()


def test_benchmarks_table_and_picture_by_hand(tmp_path, monkeypatch):
    """benchmarks_table.py on a fit (online_lda, 2.5 s, 300 MB) and a prepare (4 s, 50 MB): the table leads with
    stage, method and job, once each; the picture puts wall time on a log x axis and peak memory on y, one point per
    job, a method in its METHODS style and the prepare in grey under its own name."""
    import runpy
    import json as json_
    from types import SimpleNamespace

    from topicbench.traces import PROVENANCE

    drawn = []
    monkeypatch.setattr(figlib, "save_figure", lambda fig, png, pdf=None: drawn.append(fig) or "sha")
    fit = tmp_path / "benchmarks" / "runs" / "exp" / "ds" / "online_lda" / "r.tsv"
    prep = tmp_path / "benchmarks" / "prepare" / "ds.tsv"
    for record, row in ((fit, "2.5\t300\n"), (prep, "4.0\t50\n")):
        record.parent.mkdir(parents=True)
        record.write_text("s\tmax_rss\n" + row)
    trace = tmp_path / "runs" / "exp" / "ds" / "online_lda" / "r" / "trace.parquet"
    trace.parent.mkdir(parents=True)
    pd.DataFrame([{c: "v" for c in PROVENANCE}]).to_parquet(trace)
    corpus = tmp_path / "corpora" / "ds" / "corpus.json"
    corpus.parent.mkdir(parents=True)
    corpus.write_text(json_.dumps({"prepared_by": {c: "v" for c in PROVENANCE}, "content_sha256": "v"}))
    smk = SimpleNamespace(scriptdir=str(REPO / "workflow" / "scripts"),
                          input=SimpleNamespace(records=[str(fit), str(prep)], traces=[str(trace)], corpora=[str(corpus)]),
                          output=SimpleNamespace(table=str(tmp_path / "tables" / "b.csv"),
                                                 figure=str(tmp_path / "figures" / "b.png")))
    runpy.run_path(str(REPO / "workflow" / "scripts" / "benchmarks_table.py"), init_globals={"snakemake": smk})
    table = pd.read_csv(tmp_path / "tables" / "b.csv")
    header = (tmp_path / "tables" / "b.csv").read_text().splitlines()[0].split(",")
    assert header[:5] == ["stage", "method", "job", "s", "max_rss"] and len(set(header)) == len(header)  # each once
    assert table[["stage", "method", "job"]].values.tolist() == [["fit", "online_lda", "exp/ds/online_lda/r"],
                                                                 ["prepare", "prepare", "ds"]]
    (ax,) = drawn[0].axes
    assert ax.get_xscale() == "log"
    points = {c.get_label(): (c.get_offsets().tolist(), matplotlib_colour(c.get_facecolor()[0])) for c in ax.collections}
    assert points == {"online VB LDA": ([[2.5, 300.0]], matplotlib_colour("tab:blue")),
                      "prepare": ([[4.0, 50.0]], matplotlib_colour("grey"))}
    figlib.plt.close(drawn[0])


def matplotlib_colour(colour):
    import matplotlib.colors

    return matplotlib.colors.to_hex(colour)


def test_the_paper_profile_sets_its_mirrors_in_the_papers_order():
    """figlib.discover orders the mirrors by paper, then each figure's declared order (its number in the paper), so the
    paper reads Hoffman Fig. 1, Fig. 2, Table 1, ... and the findings last."""
    config = yaml.safe_load((REPO / "workflow" / "config" / "paper.yaml").read_text())
    assert list(figlib.discover(list(config["experiments"]))) == [
        "hoffman_fig1", "hoffman_fig2", "hoffman_table1", "paisley_fig11_3", "paisley_fig11_4", "paisley_table11_3",
        "paisley_table11_4", "mcinerney_fig1", "mcinerney_fig3", "shorttext_alpha", "eta_pvb_svb", "hu_fig1", "hu_fig2",
        "hu_table1", "hu_fig4", "hu_fig5", "hu_fig6", "hu_table3", "findings"]


def test_hu_helpers_by_hand(tmp_path):
    """Hu et al. 2014 mirrors: Fig. 4 reads LG-NMF's last checkpoint (by documents seen) of its first seed, whatever
    the rows' order; Figs. 5-6 name online LDA by METHODS and give its kappa and tau0; Figs. 1-2 draw runs without
    LG-NMF (no grid settings claimed)."""
    import _hu

    frame = pd.DataFrame({"method": ["lgnmf", "lgnmf", "lgnmf", "lgnmf", "online_lda"], "seed": [1, 0, 0, 0, 0],
                          "docs_seen": [99, 20, 30, 10, 40], "x": [1, 2, 3, 4, 5]})
    assert figlib.load_plugin("hu_fig4").last_lgnmf_row(frame)["x"] == 3
    assert _hu.online_name("online_lda") == "online VB LDA" and _hu.online_name("lgnmf") == "online LG-NMF"
    runs = pd.DataFrame([{"method": "online_lda", "p_K": 5, "p_batch_size": 10, "p_kappa": 0.7, "p_tau0": 64.0,
                          "protocol": "halves", "seed": 0}])
    assert "online VB LDA: K = 5, minibatch 10, kappa = 0.7, tau0 = 64." in _hu.online_settings(
        _PlotCtx({"hu_fig5": runs}, tmp_path), runs)
    rows = [{"experiment": "hu_fig1", "dataset": "psy", "method": "batch_lda", "label": "lda", "seed": 0, "docs_seen": d,
             "fit_wall_s": float(d), "perplexity": 900.0, "unigram_perplexity": 2000.0, "protocol": "halves"} for d in (1, 2)]
    ctx = _PlotCtx({"hu_fig1": pd.DataFrame(rows)}, tmp_path)
    figlib.load_plugin("hu_fig1").draw(ctx)
    assert "LG-NMF: K" not in ctx.caption and "Fig. 1, on a stand-in for PsyRev abstracts" in ctx.caption
    ctx = _PlotCtx({"hu_fig2": pd.DataFrame(rows).assign(experiment="hu_fig2")}, tmp_path)
    figlib.load_plugin("hu_fig2").draw(ctx)
    assert "Fig. 2, on a stand-in for the 1,740 NIPS papers" in ctx.caption, ctx.caption


def test_hoffman_faster_refuses_two_runs_of_one_seed_and_label():
    """Hoffman et al. 2010, Fig. 2 claim: two online_S256 runs of seed 0 (K 5 and 10) under one label are not one
    replicate: 'cannot be judged', naming them, rather than a verdict over a mix (_claims.several_runs)."""
    rows = []
    for seed in range(3):
        rows.append(_run("hoffman_fig2", "batch_lda", "batch_full", seed, [1, 2, 3], [300.0, 200.0, 150.0],
                         [100.0, 200.0, 300.0], p_K=5))
        rows.append(_run("hoffman_fig2", "online_lda", "online_S256", seed, [1, 2, 3], [180.0, 150.0, 130.0],
                         [10.0, 20.0, 40.0], p_K=5))
    rows.append(_run("hoffman_fig2", "online_lda", "online_S256", 0, [1, 2, 3], [180.0, 150.0, 130.0], [10.0, 20.0, 40.0],
                     p_K=10))
    j = _claims.hoffman_faster(_Ctx({"hoffman_fig2": pd.concat(rows, ignore_index=True)}))
    assert j.verdict == "cannot be judged" and "2 runs of hoffman_fig2 share" in j.spread + j.test + j.numbers, j


@pytest.mark.parametrize("judge, make", [
    pytest.param("hoffman_best_setting", lambda: _table1({16: 3, 256: 2}), id="hoffman-table1"),
    pytest.param("paisley_comparable", lambda: _paisley((0.0, 0.01, 0.005)), id="paisley-fig11-3"),
    pytest.param("mcinerney_alpha_not_n", lambda: _mcinerney({"a": 4.0}), id="mcinerney-fig3"),
])
def test_claims_refuse_two_runs_sharing_their_key(judge, make):
    """Hoffman Table 1, Paisley Fig. 11.3 and McInerney Fig. 3 claims: a second run under a replicate's key (its copy
    with another eta) makes the claim 'cannot be judged', naming the runs, instead of a verdict over a mix."""
    ctx = make()
    experiment = ctx.experiments[0]
    frame = ctx.frames[experiment]
    ctx.frames[experiment] = pd.concat([frame, frame.iloc[[0]].assign(p_eta=1.0)], ignore_index=True)
    j = getattr(_claims, judge)(ctx)
    assert j.verdict == "cannot be judged" and " share " in j.spread + j.test + j.numbers, j


def test_paisley_comparable_cannot_judge_one_replicate():
    """Paisley et al. 2014, Fig. 11.3 claim on one (K, minibatch) panel of one seed: one replicate per pair gives no
    interval, so 'cannot be judged' (n = 1), not a verdict from an empty interval."""
    ctx = _paisley((0.0, 0.01, 0.005))
    frame = ctx.frames["paisley_fig11_3"]
    j = _claims.paisley_comparable(_Ctx({"paisley_fig11_3": frame[(frame["p_K"] == 50) & (frame["p_batch_size"] == 500)]}))
    assert j.verdict == "cannot be judged" and j.n == 1 and "too few replicates" in j.test, j
