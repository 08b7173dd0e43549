"""The mirrored papers' claims as data, and the small functions that judge each from the traces.

A claim names its paper, what it says, the figure or table it rests on and the experiments it needs; its judge gets
the final checkpoints (and the figure context, for corpora and models) and returns a Judgement. Verdicts:

- reproduced: the test supports the claim at the 5% level;
- not reproduced: the test contradicts it at the 5% level (or, for "reaches", the method never gets there in at least
  the time the reference took);
- mixed: the evidence is inside the noise, or the claim's parts or corpora disagree;
- cannot be judged: too few replicates for a test (one seed on one corpus), the fast method of a "reaches" claim
  stopped before the reference reached the target (``short_budget``), the experiment is not in this profile, or one
  of the claim's cells holds several runs (``several_runs``: another grid point under a label, two experiments on
  one corpus), which it would otherwise average or pool.

Replicates are seeds, and corpora or panels where the claim spans several; paired differences are tested with a
two-sided one-sample t test against zero (``paired``). Adding a claim is one entry in CLAIMS and, if no judge fits,
one function.
"""
from __future__ import annotations

from dataclasses import dataclass

import figlib
import numpy as np
import pandas as pd
from scipy import stats

LEVEL = 0.05  # the tests' significance level (two-sided)
# the short-text figure's and claim's methods: streaming VB and SVI (online LDA on the with-replacement stream); one
# missing from a corpus's traces is said, on its empty panel and in the claim's numbers, never passed over
SHORTTEXT_METHODS = ("streaming_vb", "online_lda")
# Paisley et al. call the three models' performance "roughly the same"; we call two methods comparable when the 95%
# interval of their difference lies within 0.05 nats per word, a 5% change in perplexity (exp(0.05) = 1.051).
EQUIVALENCE_MARGIN = 0.05


@dataclass
class Judgement:
    verdict: str
    numbers: str
    spread: str = ""
    test: str = ""
    n: int = 0


def missing(what: str) -> Judgement:
    return Judgement("cannot be judged", "", "", f"missing experiment: {what}")


def paired(d) -> dict:
    """Mean, sd, standard error, t, two-sided p and 95% interval of paired differences ``d`` (NaN for n < 2)."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    mean = float(d.mean()) if n else np.nan
    if n < 2:
        return {"n": n, "mean": mean, "sd": np.nan, "se": np.nan, "t": np.nan, "p": np.nan, "lo": np.nan, "hi": np.nan}
    sd = float(d.std(ddof=1))
    se = sd / np.sqrt(n)
    crit = stats.t.ppf(1 - LEVEL / 2, n - 1)
    if se > 0:
        t = mean / se
        p = float(2 * stats.t.sf(abs(t), n - 1))
    else:  # every difference equal: none at all is no evidence (t = 0, p = 1); a constant nonzero one is certain
        t, p = (np.sign(mean) * np.inf, 0.0) if mean != 0 else (0.0, 1.0)
    return {"n": n, "mean": mean, "sd": sd, "se": se, "t": t, "p": p, "lo": mean - crit * se, "hi": mean + crit * se}


def agreed(verdicts: list[str]) -> str:
    """One verdict from the parts of a claim (minibatch sizes, corpora, methods): theirs when they all agree, else mixed."""
    return verdicts[0] if len(set(verdicts)) == 1 else "mixed"


def directional(d, what: str, unit: str, fmt: str = ".4f") -> Judgement:
    """Judge "d > 0" (the claim's direction) by a paired t test over the replicates."""
    s = paired(d)
    values = ", ".join(format(v, fmt) for v in np.asarray(d, dtype=float))
    numbers = f"{what}: mean {s['mean']:{fmt}} over {s['n']} {unit} ({values})"
    if s["n"] < 2:
        return Judgement("cannot be judged", numbers, "", f"too few replicates for a test (n = {s['n']} {unit})", s["n"])
    spread = f"sd {s['sd']:{fmt}}, se {s['se']:{fmt}}"
    test = (f"paired t test of the difference against 0: t = {s['t']:.2f}, df = {s['n'] - 1}, p = {s['p']:.3g}, "
            f"95% CI [{s['lo']:{fmt}}, {s['hi']:{fmt}}]")
    if s["p"] < LEVEL:
        verdict = "reproduced" if s["mean"] > 0 else "not reproduced"
    else:
        verdict = "mixed"
    return Judgement(verdict, numbers, spread, test, s["n"])


def reached_or_not(numbers: str, reached: int, never: int, unit: str) -> Judgement:
    """A "reaches the target" claim where some replicates never did: not reproduced if none did, mixed if some did;
    one replicate cannot be judged, whatever it shows."""
    n = reached + never
    if n < 2:
        return Judgement("cannot be judged", numbers, "", f"too few replicates for a test (n = {n} {unit})", n)
    return Judgement("mixed" if reached else "not reproduced", numbers, "",
                     f"target reached on {reached} of {n} {unit}", n)


def short_budget(judgement: Judgement | None, short: list[str], unit: str) -> Judgement:
    """Replicates whose fast method stopped, short of the target, before the reference reached it are no evidence
    either way (the papers give both methods the same budget: Hoffman et al. 2010 sec. 4, 24 CPU hours each): they
    are named and left out of the test; with none left the claim cannot be judged."""
    if not short:
        return judgement
    note = ("stopped before the reference reached the target, without reaching it, so not compared (give it a "
            "longer run): " + "; ".join(short))
    if judgement is None:
        return Judgement("cannot be judged", note, "", f"no replicate ran as long as the reference (0 {unit})", 0)
    judgement.numbers = f"{judgement.numbers}; {note}"
    return judgement


def judge_reaches(d, never: list[str], short: list[str], never_text: str, what, unit: str) -> Judgement | None:
    """A "the fast method reaches the reference's target sooner" claim from its replicates: ``d`` the log time ratios
    of those that reached it, ``never`` those that ran as long as the reference and never did, ``short`` those that
    stopped first. ``what`` makes the test's description, only when there is something to test."""
    if never:
        judgement = reached_or_not(never_text, len(d), len(never), unit)
    else:
        judgement = directional(d, what(), unit, ".3f") if d else None
    return short_budget(judgement, short, unit)


def finals(ctx, experiment: str) -> pd.DataFrame:
    return figlib.final_rows(ctx.frame(experiment))


def several_runs(frame: pd.DataFrame, keys: list[str], what: str) -> Judgement | None:
    """'cannot be judged' when ``keys`` pick more than one run of ``frame`` (any checkpoints), naming them and what
    tells them apart; None when each key is one run. A claim pairs one run per cell: a pivot would average several,
    an index would multiply the pairs, a run's rows would mix with another's (another grid point under one label, two
    experiments on one corpus), each silently."""
    runs = frame.drop_duplicates(figlib.run_columns(frame))
    counts = runs.groupby(keys, dropna=False).size()
    if counts.empty or counts.max() <= 1:
        return None
    key = counts.idxmax()
    key = key if isinstance(key, tuple) else (key,)
    same = runs.set_index(keys).loc[[key]] if len(keys) > 1 else runs[runs[keys[0]] == key[0]]
    differ = [c for c in figlib.run_columns(runs) if c not in keys and same[c].nunique(dropna=False) > 1]
    where = ", ".join(f"{k} {v}" for k, v in zip(keys, key))
    return Judgement("cannot be judged", "", "", f"{counts.max()} runs of {what} share {where} (they differ in "
                     f"{', '.join(differ) or 'nothing recorded'}): the claim compares one run each; give them "
                     f"distinct labels or experiments")


def time_to(run: pd.DataFrame, column: str, target: float, time: str) -> float:
    """The first ``time`` at which a run's ``column`` (lower is better) is at or below ``target``; inf if never."""
    run = run.sort_values("docs_seen")
    hit = run[run[column] <= target]
    return float(hit[time].iloc[0]) if len(hit) else np.inf


# -- Hoffman, Blei and Bach 2010 -----------------------------------------------------------------------------------

def hoffman_faster(ctx, experiment="hoffman_fig2"):
    """Per seed: log(batch VB's time to its own final perplexity / the fastest online S's time to reach it)."""
    if experiment not in ctx.experiments:
        return missing(experiment)
    frame = ctx.frame(experiment)
    column = "bound_perplexity" if frame["elbo_per_word"].notna().any() else "perplexity"
    frame = figlib.bound_perplexity(frame, experiment) if column == "bound_perplexity" else frame
    compared = frame[(frame["label"].str.contains("full") & (frame["method"] == "batch_lda"))
                     | (frame["method"] == "online_lda")]
    duplicated = several_runs(compared, ["seed", "method", "label"], experiment)
    if duplicated:
        return duplicated
    d, never, short = [], [], []
    for seed, runs in frame.groupby("seed"):
        batch = runs[runs["label"].str.contains("full") & (runs["method"] == "batch_lda")]
        online = runs[runs["method"] == "online_lda"]
        if batch.empty or online.empty:
            return missing(f"{experiment} needs an online_lda run and a batch_full batch_lda run")
        target = float(batch.sort_values("docs_seen")[column].iloc[-1])
        t_batch = time_to(batch, column, target, "fit_cpu_s")
        t_online = min(time_to(g, column, target, "fit_cpu_s") for _, g in online.groupby("label"))
        budget = float(online["fit_cpu_s"].max())  # the longest online run's CPU time
        if np.isfinite(t_online):
            d.append(np.log(t_batch / t_online))
        elif budget < t_batch:
            short.append(f"seed {seed}: online runs ended by {budget:.3g} CPU s, batch VB reached its final {column} "
                         f"{target:.1f} at {t_batch:.3g} s")
        else:  # where online got instead: its best value, when it got there, and when batch VB did
            label, run = min(online.groupby("label"), key=lambda item: item[1][column].min())
            best = float(run[column].min())
            never.append(f"seed {seed}: best online {label} {best:.1f} at {time_to(run, column, best, 'fit_cpu_s'):.3g} "
                         f"CPU s, batch VB {best:.1f} at {time_to(batch, column, best, 'fit_cpu_s'):.3g} s and "
                         f"{target:.1f} at {t_batch:.3g} s")
    return judge_reaches(d, never, short, f"no online minibatch size reached batch VB's final {column} within its "
                         "run: " + "; ".join(never),
                         lambda: f"log(batch CPU s / online CPU s) to batch VB's final {column} (positive: online "
                         f"faster; ratio {np.exp(np.mean(d)):.2f}x)", "seeds")


def hoffman_larger_corpus(ctx, experiment="hoffman_fig1"):
    """Per seed: final per-word log predictive of online LDA on the full corpus minus on the subset."""
    if experiment not in ctx.experiments:
        return missing(experiment)
    final = finals(ctx, experiment)
    duplicated = several_runs(final, ["label", "seed"], experiment)
    if duplicated:
        return duplicated
    if not {"online_full", "online_subset"} <= set(final["label"]):
        return missing(f"{experiment} runs online_full and online_subset")
    # the labels name the roles; the runs' own training sizes must bear them out, or "more data" is not what differs
    sizes = {label: sorted(int(n) for n in final.loc[final["label"] == label, "corpus_size"].unique())
             for label in ("online_full", "online_subset")}
    if len(sizes["online_full"]) != 1 or len(sizes["online_subset"]) != 1 \
            or sizes["online_full"][0] <= sizes["online_subset"][0]:
        return Judgement("cannot be judged", "", "", f"{experiment}: online_full must train on more documents than "
                         f"online_subset, one size each; they trained on {sizes['online_full']} and "
                         f"{sizes['online_subset']}")
    final = final.set_index(["label", "seed"])["loglik_per_word"]
    d = (final["online_full"] - final["online_subset"]).dropna()
    return directional(d.to_numpy(), "final log predictive/word, full corpus minus subset (positive: more data helps)",
                       "seeds")


def hoffman_best_setting(ctx, experiment="hoffman_table1"):
    """Per S: the best (kappa, tau0) by mean eq. 16 bound against the runner-up, paired over seeds."""
    if experiment not in ctx.experiments:
        return missing(experiment)
    frame = figlib.bound_perplexity(ctx.frame(experiment), experiment)
    final = figlib.final_rows(frame)
    duplicated = several_runs(final, ["p_batch_size", "seed", "p_kappa", "p_tau0"], experiment)
    if duplicated:
        return duplicated
    parts, verdicts, ns = [], [], []
    for size, group in final.groupby("p_batch_size"):
        table = group.pivot_table(index="seed", columns=["p_kappa", "p_tau0"], values="bound_perplexity")
        order = table.mean().sort_values().index
        if len(order) < 2:
            return missing(f"{experiment} grids at least two (kappa, tau0) settings")
        best, second = order[0], order[1]
        j = directional((table[second] - table[best]).to_numpy(), "", "seeds", ".2f")
        verdicts.append(j.verdict)
        ns.append(j.n)
        parts.append(f"S = {int(size)}: best kappa = {best[0]:g}, tau0 = {best[1]:g} (bound perplexity "
                     f"{table[best].mean():.1f}), runner-up kappa = {second[0]:g}, tau0 = {second[1]:g} "
                     f"({table[second].mean():.1f}){'' if j.verdict == 'cannot be judged' else '; ' + j.test}")
    verdict = agreed(verdicts)
    test = ("paired t test per S of runner-up minus best bound perplexity over seeds (the best is chosen on the same "
            "runs, so the test is optimistic)" if min(ns) >= 2 else f"too few replicates for a test (n = {min(ns)} seeds)")
    return Judgement(verdict, "; ".join(parts), "", test, min(ns))


# -- Paisley, Blei and Jordan 2014 ---------------------------------------------------------------------------------

def paisley_comparable(ctx, experiment="paisley_fig11_3"):
    """Every pair of B-NMF, C-NMF and online LDA: the 95% interval of the final held-out difference within the margin,
    paired over (K, minibatch) panels and seeds."""
    if experiment not in ctx.experiments:
        return missing(experiment)
    final = finals(ctx, experiment)
    final = final[final["eval_kind"] == "batch"]
    duplicated = several_runs(final, ["p_K", "p_batch_size", "seed", "method"], experiment)
    if duplicated:
        return duplicated
    wide = final.pivot_table(index=["p_K", "p_batch_size", "seed"], columns="method", values="loglik_per_word")
    methods = [m for m in ("bnmf", "cnmf", "online_lda") if m in wide]
    if len(methods) < 2:
        return missing(f"{experiment} runs at least two of bnmf, cnmf, online_lda")
    parts, inside, outside = [], [], []
    n = len(wide)
    for i, a in enumerate(methods):
        for b in methods[i + 1:]:
            s = paired((wide[a] - wide[b]).to_numpy())
            parts.append(f"{figlib.name(a)} - {figlib.name(b)} = {s['mean']:+.4f}"
                         + ("" if n < 2 else f" [{s['lo']:+.4f}, {s['hi']:+.4f}]"))
            inside.append(n >= 2 and -EQUIVALENCE_MARGIN <= s["lo"] and s["hi"] <= EQUIVALENCE_MARGIN)
            outside.append(n >= 2 and (s["lo"] > EQUIVALENCE_MARGIN or s["hi"] < -EQUIVALENCE_MARGIN))
    numbers = f"final held-out log predictive/word differences over {n} (panel, seed) replicates: " + "; ".join(parts)
    test = (f"equivalence: every pairwise 95% CI inside +-{EQUIVALENCE_MARGIN} nats/word (5% perplexity)")
    if n < 2:
        return Judgement("cannot be judged", numbers, "", f"too few replicates for a test (n = {n}); {test}", n)
    verdict = "reproduced" if all(inside) else "not reproduced" if any(outside) else "mixed"
    return Judgement(verdict, numbers, "", test, n)


def paisley_correlations(ctx, experiment="paisley_fig11_4"):
    """Learned C-NMF correlations (eq. 11.36) of the fitted topics matched to the planted ones against the planted
    correlation (truth.npz ``correlation``): Pearson r over the off-diagonal pairs, Fisher z test of r > 0."""
    if experiment not in ctx.experiments:
        return missing(experiment)
    truth = ctx.truth(experiment)
    if not truth or "correlation" not in truth:
        return Judgement("cannot be judged", "", "", f"the corpus of {experiment} plants no topic correlation "
                         f"(truth.npz has no 'correlation'), so 'meaningful' has no reference here")
    model = ctx.model(experiment, "cnmf")
    fitted = model.topics() / np.linalg.norm(model.topics(), axis=1, keepdims=True)
    planted = truth["topics"] / np.linalg.norm(truth["topics"], axis=1, keepdims=True)
    match = np.argmax(planted @ fitted.T, axis=1)
    learned = model.topic_correlations()[np.ix_(match, match)]
    upper = np.triu_indices(len(match), 1)
    r = float(np.corrcoef(truth["correlation"][upper], learned[upper])[0, 1])
    n = len(upper[0])
    z = np.arctanh(r) * np.sqrt(n - 3)
    p = float(stats.norm.sf(z))
    verdict = "reproduced" if p < LEVEL else "not reproduced" if r < 0 and stats.norm.cdf(z) < LEVEL else "mixed"
    return Judgement(verdict, f"Pearson r = {r:.3f} between planted and learned correlations of {n} topic pairs "
                     f"({len(set(match))} distinct fitted topics matched to {len(match)} planted)", "",
                     f"Fisher z test of r > 0: z = {z:.2f}, p = {p:.3g} (one seed; pairs are not independent, so "
                     f"the p value is optimistic)", n)


# -- McInerney, Ranganath and Blei 2015 -----------------------------------------------------------------------------

def mcinerney_rows(ctx, prefix: str = "mcinerney_fig1_"):
    """The final time-ordered look-ahead rows of the experiments named ``prefix``*, or None when there are none."""
    names = [e for e in ctx.experiments if e.startswith(prefix)]
    if not names:
        return None
    frame = pd.concat([ctx.frame(e) for e in names], ignore_index=True)
    frame = frame[(frame["eval_kind"] == "lookahead") & (frame["stream"] == "time_ordered")]
    return figlib.final_rows(frame)


def mcinerney_several(final: pd.DataFrame) -> Judgement | None:
    """The McInerney claims' replicates are (corpus, seed): two experiments on one corpus, or two population VB runs at
    one alpha, would be pooled into one."""
    for dataset, runs in final.groupby("dataset"):
        if runs["experiment"].nunique() > 1:
            return Judgement("cannot be judged", "", "", f"experiments {', '.join(sorted(runs['experiment'].unique()))} "
                             f"all fit corpus {dataset}: the claim's replicates are (corpus, seed), which would pool "
                             f"their runs; keep one of them")
    return several_runs(final[final["method"] == "population_vb"], ["dataset", "seed", "p_log10_population"],
                        "population VB")


def mcinerney_pvb_beats_svb(ctx):
    """Per (corpus, seed): population VB at its best alpha minus streaming VB at its best setting, time-ordered."""
    final = mcinerney_rows(ctx)
    if final is None:
        return missing("mcinerney_fig1_*")
    duplicated = mcinerney_several(final)
    if duplicated:
        return duplicated
    d = []
    for (dataset, seed), runs in final.groupby(["dataset", "seed"]):
        pvb = runs[runs["method"] == "population_vb"]
        svb = runs[runs["method"] == "streaming_vb"]
        if pvb.empty or svb.empty:
            continue
        d.append(pvb.groupby("p_log10_population")["loglik_per_word"].mean().max() - svb["loglik_per_word"].max())
    if not d:
        return missing("mcinerney_fig1_* with population_vb and streaming_vb on the time-ordered stream")
    j = directional(d, "final look-ahead log predictive/word, population VB (best alpha) minus streaming VB",
                    "(corpus, seed) replicates")
    j.test += "; alpha is chosen on the same scores, as in the paper, so the difference is optimistic"
    j.test += eta_caveat(final)
    return j


def eta_caveat(final: pd.DataFrame) -> str:
    """The topic prior eta each method ran at, with why it matters here: streaming VB's lambda is eta plus the
    statistics it has seen, while population VB's (an SVI step) also keeps the residue of its random start, about 1
    per entry times prod_t (1 - rho_t), a pseudo-count streaming VB lacks. At a small eta that residue can decide the
    comparison (benchmarks/RESULTS.md, "Real-text sanity audit": streaming VB at eta 0.01, 0.1, 0.5 scored -8.445,
    -8.260, -7.982 against population VB's -7.907). McInerney et al.'s eta is in their Appendix C, not in our text."""
    if "p_eta" not in final:
        return ""
    etas = {name: ", ".join(f"{v:g}" for v in sorted(final.loc[final["method"] == method, "p_eta"].dropna().unique()))
            for name, method in (("population VB", "population_vb"), ("streaming VB", "streaming_vb"))}
    return (f"; topic prior eta: population VB {etas['population VB'] or '?'}, streaming VB {etas['streaming VB'] or '?'}"
            f" -- streaming VB's topics are smoothed by eta alone, population VB's also by the residue of their random "
            f"start, so at a small eta the difference can reflect that smoothing as well as the method")


def pvb_beats_svb_at_best_eta(ctx):
    """Per (corpus, seed): population VB at its best (eta, alpha) minus streaming VB at its best (eta, S), time-ordered
    (eta_pvb_svb_*), as mcinerney_pvb_beats_svb picks each method's best per replicate; with, per eta, the mean of the
    same difference at that eta, so a reader sees whether the prior decides the verdict."""
    final = mcinerney_rows(ctx, "eta_pvb_svb_")
    if final is None:
        return missing("eta_pvb_svb_*")
    duplicated = (several_runs(final[final["method"] == "population_vb"], ["experiment", "seed", "p_eta",
                                                                          "p_log10_population"], "population VB")
                  or several_runs(final[final["method"] == "streaming_vb"], ["experiment", "seed", "p_eta",
                                                                              "p_batch_size"], "streaming VB"))
    if duplicated:
        return duplicated
    d, by_eta = [], {}
    for (experiment, seed), runs in final.groupby(["experiment", "seed"]):
        best = {m: runs[runs["method"] == m].groupby("p_eta")["loglik_per_word"].max()
                for m in ("population_vb", "streaming_vb")}
        if best["population_vb"].empty or best["streaming_vb"].empty:
            continue
        d.append(best["population_vb"].max() - best["streaming_vb"].max())
        for eta, gap in (best["population_vb"] - best["streaming_vb"]).dropna().items():
            by_eta.setdefault((experiment, eta), []).append(gap)
    if not d:
        return missing("eta_pvb_svb_* with population_vb and streaming_vb on the time-ordered stream")
    j = directional(d, "final look-ahead log predictive/word, population VB minus streaming VB, each at its best "
                       "(eta, other setting)", "(corpus, seed) replicates")
    j.numbers += "; at one eta for both, mean over seeds: " + ", ".join(
        f"{experiment} eta = {eta:g}: {np.mean(gaps):+.4f}" for (experiment, eta), gaps in sorted(by_eta.items()))
    j.test += "; each method's settings are chosen on the same scores, so both sides are optimistic"
    return j


def mcinerney_alpha_not_n(ctx):
    """Per corpus: is the best alpha on the grid another point than the one nearest the true N, by more than the
    seed noise (paired over seeds)? Judged only where the grid brackets N."""
    final = mcinerney_rows(ctx)
    if final is None:
        return missing("mcinerney_fig1_*")
    duplicated = mcinerney_several(final)
    if duplicated:
        return duplicated
    parts, differs, elsewhere, n_seeds = [], [], [], []
    for dataset, runs in final.groupby("dataset", sort=False):
        pvb = runs[runs["method"] == "population_vb"]
        table = pvb.pivot_table(index="seed", columns="p_log10_population", values="loglik_per_word")
        log_n = float(np.log10(runs["corpus_size"].iloc[0]))
        if not (table.columns.min() < log_n < table.columns.max()):
            parts.append(f"{dataset}: the alpha grid does not bracket log10 N = {log_n:.2f}")
            continue
        best = table.mean().idxmax()
        nearest = table.columns[np.argmin(np.abs(table.columns - log_n))]
        s = paired((table[best] - table[nearest]).to_numpy())
        n_seeds.append(s["n"])
        gap = best != nearest and s["n"] >= 2 and s["p"] < LEVEL
        differs.append(gap)
        elsewhere.append(best != nearest)
        parts.append(f"{dataset}: log10 N = {log_n:.2f}, best log10 alpha = {best:g}, nearest grid point {nearest:g}, "
                     f"gap {s['mean']:.4f} nats/word" + ("" if s["n"] < 2 else f" (p = {s['p']:.3g})"))
    numbers = "; ".join(parts)
    if not n_seeds:
        return Judgement("cannot be judged", numbers, "", "no corpus's alpha grid brackets its true N")
    if min(n_seeds) < 2:
        return Judgement("cannot be judged", numbers, "", f"too few seeds to tell a gap from noise (n = {min(n_seeds)})",
                         min(n_seeds))
    share = np.mean(differs)
    # below half: contradicted only where the best alpha is the point nearest N on every corpus; a best alpha elsewhere,
    # significantly on too few corpora or by less than the seed noise, is mixed
    verdict = "reproduced" if share >= 0.5 else "mixed" if any(elsewhere) else "not reproduced"
    return Judgement(verdict, numbers, "", "per corpus, paired t test over seeds of the score at the best alpha minus "
                     "at the grid point nearest N (best chosen on the same runs); reproduced when the best differs "
                     "significantly on at least half of the corpora ('often differs')", min(n_seeds))


# -- Hu, Ryu, Carlson, Wang and Carin 2014 --------------------------------------------------------------------------

def hu_fraction(ctx, experiments, reference):
    """Per (corpus, seed): log(LDA's total fit time / LG-NMF's fit time to reach LDA's final perplexity)."""
    present = [e for e in experiments if e in ctx.experiments]
    if not present:
        return missing(" or ".join(experiments))
    d, never, short, per_point = [], [], [], []
    for experiment in present:
        frame = ctx.frame(experiment)
        duplicated = several_runs(frame[frame["method"].isin([reference, "lgnmf"])], ["seed", "method"], experiment)
        if duplicated:
            return duplicated
        for seed, runs in frame.groupby("seed"):
            lda, lg = runs[runs["method"] == reference], runs[runs["method"] == "lgnmf"]
            if lda.empty or lg.empty:
                return missing(f"{experiment} runs lgnmf and {reference}")
            lda = lda.sort_values("docs_seen")
            target, t_lda = float(lda["perplexity"].iloc[-1]), float(lda["fit_wall_s"].iloc[-1])
            t_lg = time_to(lg, "perplexity", target, "fit_wall_s")
            final = lg.sort_values("docs_seen").iloc[-1]
            budget = float(lg["fit_wall_s"].max())
            if np.isfinite(t_lg):
                d.append(np.log(t_lda / t_lg))
                per_point.append(t_lg / float(lg["p_grid_size"].iloc[0]) / t_lda)
            elif budget < t_lda:
                short.append(f"{experiment} seed {seed}: LG-NMF ended at perplexity {final['perplexity']:.0f} after "
                             f"{budget:.3g} s, {figlib.name(reference)} reached {target:.0f} at {t_lda:.3g} s")
            else:
                never.append(f"{experiment} seed {seed}: LG-NMF final perplexity {final['perplexity']:.0f} vs "
                             f"{figlib.name(reference)} {target:.0f}")
    return judge_reaches(d, never, short, "LG-NMF never reached the LDA perplexity: " + "; ".join(never),
                         lambda: f"log({figlib.name(reference)} fit s / LG-NMF fit s to reach its final perplexity) "
                         f"(positive: LG-NMF needs less; LG-NMF/LDA time ratio {np.exp(-np.mean(d)):.2f}, per grid "
                         f"point {np.mean(per_point):.2f})", "(corpus, seed) replicates")


def hu_offline(ctx):
    return hu_fraction(ctx, ["hu_fig1", "hu_fig2"], "batch_lda")


def hu_online(ctx):
    return hu_fraction(ctx, ["hu_fig5"], "online_lda")


# -- Scaling (the harness's own) -------------------------------------------------------------------------------------

def scaling_units(ctx, column):
    """Final scores of runs grouped by everything but ``column``: (group key, {value: loglik}) for groups with >= 2."""
    final = figlib.final_rows(ctx.traces)
    if column not in final:
        return []
    final = final[final[column].notna()]
    keys = [c for c in figlib.run_columns(final) if c != column and c != "label"]
    groups = []
    for key, g in final.groupby(keys, dropna=False):
        if g[column].nunique() >= 2:
            groups.append(g.groupby(column)["loglik_per_word"].mean().sort_index())
    return groups


def scaling_k(ctx):
    groups = scaling_units(ctx, "p_K")
    if not groups:
        return missing("no experiment grids K with everything else fixed")
    d = [g.iloc[-1] - g.iloc[0] for g in groups]
    return directional(d, "final log predictive/word at the largest K minus the smallest (positive: more topics help)",
                       "run groups")


def scaling_batch(ctx):
    groups = [g for g in scaling_units(ctx, "p_batch_size") if len(g) >= 3]
    if not groups:
        return missing("no experiment grids at least three minibatch sizes with everything else fixed")
    first = [g.iloc[len(g) // 2] - g.iloc[0] for g in groups]  # small to middle S: should help
    second = [(g.iloc[-1] - g.iloc[len(g) // 2]) - (g.iloc[len(g) // 2] - g.iloc[0]) for g in groups]
    a, b = directional(first, "gain from the smallest to the middle S", "run groups"), \
        directional([-x for x in second], "diminishing return (first gain minus second)", "run groups")
    verdict = a.verdict if a.verdict == b.verdict else "mixed"
    return Judgement(verdict, a.numbers + "; " + b.numbers, "", a.test + "; " + b.test, a.n)


def line_names(final: pd.DataFrame) -> pd.Series:
    """Each run line's name within its experiment: its label, with its dataset where the experiment spans several and
    the hyperparameters that vary among the label's runs (population VB's alpha grid, streaming VB's S); seeds are the
    replicates, never part of the name."""
    names = pd.Series("", index=final.index, dtype=object)
    for _, runs in final.groupby(["experiment", "label"], sort=False):
        varying = [c for c in runs.columns if c.startswith("p_") and runs[c].nunique(dropna=False) > 1]
        if runs["dataset"].nunique() > 1:
            varying = ["dataset"] + varying
        for i, row in runs.iterrows():
            names[i] = row["label"] + "".join(f" {c.removeprefix('p_')}={row[c]:g}" if isinstance(row[c], float)
                                              else f" {c.removeprefix('p_')}={row[c]}" for c in varying)
    return names


def beats_baseline(ctx):
    """Per run line (experiment, label, setting): the final held-out score minus the word-frequency baseline's score on
    the same documents (``unigram_loglik_per_word``, from the run's own training counts), paired over seeds. A topic
    model should beat word frequencies, though on short texts the sharp topics of alpha = eta = 0.01 need not."""
    final = figlib.final_rows(ctx.traces)
    if final.empty or "unigram_loglik_per_word" not in final:
        return missing("any experiment with a word-frequency baseline")
    final = final.assign(gap=final["loglik_per_word"] - final["unigram_loglik_per_word"], line=line_names(final))
    tally, parts, untested, n_pairs = {}, [], 0, 0
    for experiment, runs in final.groupby("experiment", sort=False):
        lines = list(runs.groupby("line", sort=False)["gap"])
        above, one_seed, one_seed_above, shown = 0, 0, 0, []
        for line, gaps in lines:
            j, s = directional(gaps.to_numpy(), "", "seeds"), paired(gaps.to_numpy())
            if j.n < 2:
                one_seed += 1
                one_seed_above += s["mean"] > 0
            else:
                n_pairs += j.n
                tally[j.verdict] = tally.get(j.verdict, 0) + 1
                above += j.verdict == "reproduced"
            if j.verdict != "reproduced" and (j.n >= 2 or s["mean"] <= 0):  # below, or inside the noise: named
                shown.append((s["mean"], f"{line} {s['mean']:+.3f}" + (f" (p = {s['p']:.3g})" if j.n >= 2 else
                                                                         " (one seed)")))
        shown.sort()
        text = (f"{experiment}: {above} of {len(lines)} lines above the baseline at the 5% level"
                + (f", {one_seed} on one seed ({one_seed_above} of them above it)" if one_seed else "")
                + f"; mean gap {runs['gap'].mean():+.3f}")
        if shown:
            text += "; not above, lowest first: " + "; ".join(t for _, t in shown[:4]) + (
                f" and {len(shown) - 4} more" if len(shown) > 4 else "")
        parts.append(text)
        untested += one_seed
    numbers = ("final held-out log predictive/word minus the word-frequency baseline's on the same documents, nats/word, "
               "per run line (mean over seeds): " + "; ".join(parts))
    test = ("per line, paired t test over seeds of the gap against 0: "
            + (", ".join(f"{tally[v]} {v}" for v in ("reproduced", "mixed", "not reproduced") if v in tally)
               or "none (no line has two seeds)")
            + (f"; {untested} line(s) on one seed untested" if untested else ""))
    if not tally:
        return Judgement("cannot be judged", numbers, "", test, 0)
    verdict = next(iter(tally)) if len(tally) == 1 else "mixed"
    return Judgement(verdict, numbers, "", test, n_pairs)


def shorttext_alpha(ctx):
    """Per (corpus, method): final look-ahead score at the largest alpha = eta of shorttext_alpha_* minus at the smallest,
    paired over seeds; reproduced when every method on every corpus gains, mixed when they disagree."""
    names = [e for e in ctx.experiments if e.startswith("shorttext_alpha_")]
    if not names:
        return missing("shorttext_alpha_*")
    final = figlib.final_rows(pd.concat([ctx.frame(e) for e in names], ignore_index=True))
    duplicated = several_runs(final, ["experiment", "method", "seed", "p_alpha"], "shorttext_alpha_*")
    if duplicated:
        return duplicated
    parts, verdicts, n = [], [], 0
    unjudged = [f"{experiment} {figlib.name(method)}: no runs" for experiment in names for method in SHORTTEXT_METHODS
                if not ((final["experiment"] == experiment) & (final["method"] == method)).any()]
    for (experiment, method), runs in final.groupby(["experiment", "method"], sort=False):
        table = runs.pivot_table(index="seed", columns="p_alpha", values="loglik_per_word")
        if table.shape[1] < 2:
            unjudged.append(f"{experiment} {figlib.name(method)}: one alpha = eta setting only")
            continue
        small, large = table.columns.min(), table.columns.max()
        d = (table[large] - table[small]).dropna().to_numpy()
        j = directional(d, f"{experiment} {figlib.name(method)}, alpha = eta = {large:g} minus {small:g}", "seeds")
        parts.append(j.numbers + ("" if j.n < 2 else f" (p = {paired(d)['p']:.3g})"))
        verdicts.append(j.verdict)
        n += j.n
    not_judged = f"not judged (the verdict is without them): {'; '.join(unjudged)}" if unjudged else ""
    if not verdicts:
        return Judgement("cannot be judged", not_judged, "",
                         missing("shorttext_alpha_* with two alpha = eta settings of a method").test)
    verdict = agreed(verdicts)
    return Judgement(verdict, (f"{not_judged}; " if not_judged else "") + "final look-ahead log predictive/word: "
                     + "; ".join(parts), "",
                     "per corpus and method, paired t test over seeds of the difference against 0", n)


CLAIMS = [
    {"paper": "hoffman", "claim": "Online LDA reaches a given perplexity in less time than batch VB",
     "rests_on": "Hoffman et al. 2010, Fig. 2", "judge": hoffman_faster},
    {"paper": "hoffman", "claim": "Larger corpora help online LDA (the full corpus beats a subset)",
     "rests_on": "Hoffman et al. 2010, Fig. 1", "judge": hoffman_larger_corpus},
    {"paper": "hoffman", "claim": "Each minibatch size has a best (kappa, tau0), ahead of the runner-up",
     "rests_on": "Hoffman et al. 2010, Table 1", "judge": hoffman_best_setting},
    {"paper": "paisley", "claim": "B-NMF, C-NMF and online LDA perform comparably",
     "rests_on": "Paisley et al. 2014, Fig. 11.3", "judge": paisley_comparable},
    {"paper": "paisley", "claim": "C-NMF learns meaningful topic correlations (agreeing with a planted correlation)",
     "rests_on": "Paisley et al. 2014, Fig. 11.4, Tables 11.3-11.4", "judge": paisley_correlations},
    {"paper": "mcinerney", "claim": "Population VB beats streaming VB on time-ordered streams",
     "rests_on": "McInerney et al. 2015, Fig. 1", "judge": mcinerney_pvb_beats_svb},
    {"paper": "mcinerney", "claim": "Population VB beats streaming VB on time-ordered streams, each at its best topic "
     "prior eta", "rests_on": "Topic prior eta: population VB against streaming VB", "judge": pvb_beats_svb_at_best_eta},
    {"paper": "mcinerney", "claim": "The best alpha is not the true data size N",
     "rests_on": "McInerney et al. 2015, Fig. 3", "judge": mcinerney_alpha_not_n},
    {"paper": "hu", "claim": "LG-NMF reaches batch LDA's perplexity at a fraction of the computation (offline)",
     "rests_on": "Hu et al. 2014, Figs. 1-2, Table 1", "judge": hu_offline},
    {"paper": "hu", "claim": "Online LG-NMF reaches online LDA's perplexity at a fraction of the computation",
     "rests_on": "Hu et al. 2014, Figs. 5-6, Table 3", "judge": hu_online},
    {"paper": "scaling", "claim": "Fit improves with the number of topics K",
     "rests_on": "any experiment gridding K", "judge": scaling_k},
    {"paper": "scaling", "claim": "Fit improves with the minibatch size, up to a point",
     "rests_on": "any experiment gridding >= 3 minibatch sizes", "judge": scaling_batch},
    {"paper": "harness", "claim": "Every run line ends above the word-frequency baseline",
     "rests_on": "every experiment; McInerney et al. 2015, Fig. 1 and the short-text figure",
     "judge": beats_baseline},
    {"paper": "harness", "claim": "On short texts, a larger alpha = eta completes documents better than 0.01",
     "rests_on": "Short texts: alpha and eta against the word-frequency baseline", "judge": shorttext_alpha},
]
