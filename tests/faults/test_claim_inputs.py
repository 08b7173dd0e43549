"""Faults in the traces a findings claim or a figure reads (faults, round 15): several runs under one of a claim's
cells, or in one curve, which a pivot would average, an index multiply into more pairs, or a run's rows mix with
another's, each silently."""
import sys

import numpy as np
import pandas as pd
import pytest

from _run_util import REPO

sys.path.insert(0, str(REPO / "workflow" / "scripts"))
sys.path.insert(0, str(REPO / "workflow" / "figures"))
import _claims  # noqa: E402


class Ctx:
    """What a judge reads: experiment names and their trace frames."""

    def __init__(self, frame):
        self.traces = frame
        self.frames = {e: g for e, g in frame.groupby("experiment")}
        self.experiments = list(self.frames)

    def frame(self, experiment):
        return self.frames[experiment]


def rows(experiment, method, label, seeds, scores, dataset="d", **params):
    """Two checkpoints per seed, ending at ``scores[seed]``; perplexity, clocks and the look-ahead columns filled."""
    return pd.DataFrame([{"experiment": experiment, "dataset": dataset, "method": method, "label": label, "seed": seed,
                          "docs_seen": docs, "loglik_per_word": score if docs == 2 else score - 1,
                          "perplexity": float(np.exp(-(score if docs == 2 else score - 1))), "fit_wall_s": float(docs),
                          "fit_cpu_s": float(docs), "elbo_per_word": np.nan, "eval_kind": "lookahead",
                          "stream": "time_ordered", "corpus_size": 10_000, **params}
                         for seed, score in zip(seeds, scores) for docs in (1, 2)])


def larger_corpus():  # online_full gridded over two K: four full runs against two subset runs
    return _claims.hoffman_larger_corpus, pd.concat(
        [rows("hoffman_fig1", "online_lda", "online_full", [0, 1], [-7.0, -7.1], p_K=k) for k in (10, 20)]
        + [rows("hoffman_fig1", "online_lda", "online_subset", [0, 1], [-7.3, -7.4], p_K=10)], ignore_index=True)


def lgnmf_twice():  # two LG-NMF grid sizes per seed: their checkpoints were read as one run's
    return _claims.hu_offline, pd.concat(
        [rows("hu_fig1", "lgnmf", "lg", [0, 1], [-6.0, -6.1], p_grid_size=g) for g in (5, 9)]
        + [rows("hu_fig1", "batch_lda", "lda", [0, 1], [-6.5, -6.6], p_grid_size=np.nan)], ignore_index=True)


def one_corpus_two_experiments():  # two McInerney experiments on corpus a: pooled as one corpus's replicates
    return _claims.mcinerney_pvb_beats_svb, pd.concat(
        [rows(e, "population_vb", "pvb", [0, 1], [-7.0, -7.1], dataset="a", p_log10_population=4.0)
         for e in ("mcinerney_fig1_a", "mcinerney_fig1_b")]
        + [rows(e, "streaming_vb", "svb", [0, 1], [-7.5, -7.6], dataset="a", p_log10_population=np.nan)
           for e in ("mcinerney_fig1_a", "mcinerney_fig1_b")], ignore_index=True)


def shorttext_two_k():  # two K at each alpha: the pivot averaged them
    return _claims.shorttext_alpha, pd.concat(
        [rows("shorttext_alpha_t", "streaming_vb", f"a{a}", [0, 1, 2], [-7.0 + a, -7.1 + a, -7.2 + a], p_alpha=a, p_K=k)
         for a in (0.01, 0.5) for k in (10, 20)], ignore_index=True)


@pytest.mark.parametrize("case, named", [
    pytest.param(larger_corpus, "2 runs of hoffman_fig1 share label online_full, seed 0 (they differ in p_K)",
                 id="hoffman-fig1-label-over-two-K"),
    pytest.param(lgnmf_twice, "2 runs of hu_fig1 share seed 0, method lgnmf (they differ in p_grid_size)",
                 id="hu-two-lgnmf-runs-per-seed"),
    pytest.param(one_corpus_two_experiments, "experiments mcinerney_fig1_a, mcinerney_fig1_b all fit corpus a",
                 id="mcinerney-two-experiments-on-one-corpus"),
    pytest.param(shorttext_two_k, "2 runs of shorttext_alpha_* share experiment shorttext_alpha_t, method "
                 "streaming_vb, seed 0, p_alpha 0.01 (they differ in p_K", id="shorttext-two-K-per-alpha"),
])
def test_claim_cell_of_several_runs_cannot_be_judged(case, named):
    """Several runs under one cell of a claim (another grid point under a label, two experiments on one corpus) ->
    'cannot be judged', naming them and what tells them apart (was: averaged, multiplied or mixed into a verdict)."""
    judge, frame = case()
    judgement = judge(Ctx(frame))
    assert judgement.verdict == "cannot be judged" and named in judgement.test, (judgement.verdict, judgement.test)


def test_curve_of_several_runs_per_seed_is_refused():
    """A figure's curve over two runs of one seed (a label gridded over K) -> ValueError naming the curve and K.

    Was: their checkpoints interleaved by position into one zig-zag mean; the figure file's draw is named around it."""
    import figlib

    frame = pd.concat([rows("hoffman_fig1", "online_lda", "online_full", [0, 1], [-7.0, -7.1], p_K=k) for k in (10, 20)],
                      ignore_index=True)
    fig, ax = figlib.plt.subplots()
    with pytest.raises(ValueError, match=r"curve 'full' holds 2 runs of seed 0 \(they differ in p_K\)"):
        figlib.plot_mean_spread(ax, frame, "docs_seen", "loglik_per_word", "full")
    figlib.plot_mean_spread(ax, frame[frame["p_K"] == 10], "docs_seen", "loglik_per_word", "full")  # one run a seed
    figlib.plt.close(fig)
