"""Shared by McInerney et al. 2015 Figs. 1 and 3: the look-ahead rows of the mcinerney_fig1_* experiments, the best
hyperparameter setting of a group of runs, and the corpus notes."""
import figlib
import numpy as np
import pandas as pd

ROWS = {"time_ordered": "time-ordered stream", "permuted": "random permuted stream"}


def load(ctx) -> pd.DataFrame:
    frame = pd.concat([ctx.frame(e) for e in ctx.experiments], ignore_index=True)
    frame = frame[frame["eval_kind"] == "lookahead"].copy()
    if frame.empty:
        raise SystemExit(f"{ctx.name}: experiments {', '.join(ctx.experiments)} have no look-ahead rows")
    frame["row"] = np.where(frame["stream"] == "time_ordered", "time_ordered", "permuted")
    return frame


def best_setting(runs: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    """The hyperparameter setting with the best mean final score, among those that vary in ``runs``
    (population VB's alpha; streaming VB's minibatch size where the config grids it), and its runs."""
    varying = [c for c in runs.columns if c.startswith("p_") and runs[c].nunique(dropna=False) > 1]
    if not varying:
        return {}, runs
    finals = figlib.final_rows(runs, varying + ["seed"]).groupby(varying, dropna=False)["loglik_per_word"].mean()
    best = finals.idxmax()
    setting = dict(zip(varying, best if isinstance(best, tuple) else (best,)))
    mask = np.logical_and.reduce([runs[c] == v for c, v in setting.items()])
    return setting, runs[mask]


def setting_text(setting: dict) -> str:
    parts = []
    for column, value in setting.items():
        name = column[2:]
        if name == "log10_population":
            parts.append(f"alpha = 10^{value:g}")
        elif name == "batch_size":
            parts.append(f"S = {int(value)}")
        else:
            parts.append(f"{name} = {value:g}" if isinstance(value, float) else f"{name} = {value}")
    return (", best " + ", ".join(parts)) if parts else ""


def label_for(method: str, stream: str, setting: dict) -> str:
    if method == "online_lda":  # SVI as McInerney et al. call it: online LDA told the corpus size D = N
        base = "SVI (D = N" + (", with replacement)" if stream == "with_replacement" else ")")
    else:
        base = figlib.name(method) + (" (Broderick et al. 2013)" if method == "streaming_vb" else "")
    return base + setting_text(setting)


def corpus_notes(ctx):
    """What each corpus is, from its corpus.json: size, vocabulary, planted topics and whether its order drifts."""
    notes = []
    for experiment in ctx.experiments:
        meta = ctx.corpus(experiment)
        generator = meta.get("generator", {})
        text = f"{meta.get('name', '?')}: {meta.get('source', '?')}, V = {meta.get('n_words', 0):,}"
        if generator:
            drift = generator.get("prevalence", "no drift: the time order is the generation order of exchangeable documents")
            text += (f", {generator.get('n_topics')} planted topics, lengths {generator.get('lengths', '?')}; "
                     f"topic prevalence: {drift}")
        notes.append(text + ".")
    return notes
