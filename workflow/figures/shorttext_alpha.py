"""Short texts: streaming VB and SVI at alpha = eta = 0.01 (Hoffman et al.'s defaults, McInerney et al.'s Twitter eta)
against a larger alpha = eta, with the word-frequency baseline on the same look-ahead documents. On a document of a few
tokens, completion observes half of them; topics as sharp as 0.01 fitted to those can predict the other half worse than
word frequencies, and more data sharpens them further. Rows: corpora (one experiment shorttext_alpha_<corpus> each);
columns: the methods.
"""
import figlib
import pandas as pd
from _claims import SHORTTEXT_METHODS as METHODS

FIGURE = figlib.Figure(paper="mcinerney", title="Short texts: alpha and eta against the word-frequency baseline",
                       experiments=("shorttext_alpha_*",), order=3)


def setting(runs: pd.DataFrame) -> str:
    return f"alpha = {runs['p_alpha'].iloc[0]:g}, eta = {runs['p_eta'].iloc[0]:g}"


def draw(ctx):
    frame = pd.concat([ctx.frame(e) for e in ctx.experiments], ignore_index=True)
    methods = list(METHODS)  # a column each, also for a method missing from the traces (its panels say so)
    absent = []
    fig, axes = figlib.plt.subplots(len(ctx.experiments), len(methods), figsize=(5.0 * len(methods),
                                    3.6 * len(ctx.experiments)), squeeze=False, layout="constrained")
    rows, lengths = [], []
    for r, experiment in enumerate(ctx.experiments):
        meta = ctx.corpus(experiment)
        mean_length = meta.get("n_tokens", 0) / max(meta.get("n_train", 0) + meta.get("n_test", 0), 1)
        lengths.append(f"{meta.get('name', experiment)} ({mean_length:.1f} tokens a document on average)")
        for c, method in enumerate(methods):
            ax = axes[r, c]
            panel = frame[(frame["experiment"] == experiment) & (frame["method"] == method)]
            ax.set_title(f"{meta.get('name', experiment)}: {figlib.name(method)}", fontsize=9)
            if panel.empty:
                absent.append(f"{meta.get('name', experiment)} {figlib.name(method)}")
                ax.text(0.5, 0.5, f"no {figlib.name(method)} runs in the traces", ha="center", va="center",
                        transform=ax.transAxes)
                continue
            settings = sorted(panel.groupby(["p_alpha", "p_eta"]), key=lambda kv: kv[0])
            for i, (_, runs) in enumerate(settings):
                figlib.plot_mean_spread(ax, runs, "docs_seen", "loglik_per_word", f"{figlib.name(method)}, {setting(runs)}",
                                        method=method, linestyle="--" if i == 0 else "-")
                ordered = runs.sort_values("docs_seen", kind="stable")
                first = ordered.groupby("seed").head(1)
                last = ordered.groupby("seed").tail(1)
                rows.append({"corpus": meta.get("name", experiment), "method": figlib.name(method),
                             "stream": runs["stream"].iloc[0], "alpha": float(runs["p_alpha"].iloc[0]),
                             "eta": float(runs["p_eta"].iloc[0]),
                             "first loglik/word": float(first["loglik_per_word"].mean()),
                             "final loglik/word": float(last["loglik_per_word"].mean()),
                             "final unigram": float(last["unigram_loglik_per_word"].mean()),
                             "final minus unigram": float((last["loglik_per_word"]
                                                           - last["unigram_loglik_per_word"]).mean()),
                             "seeds": int(last["seed"].nunique())})
            # the same look-ahead documents under every setting of a method (its stream and seed)
            first_setting = settings[0][1]
            base = figlib.mean_spread(first_setting, "docs_seen", "unigram_loglik_per_word")
            ax.plot(base["x"], base["mean"], color=figlib.BASELINE.color, linestyle=figlib.BASELINE.linestyle,
                    label=figlib.BASELINE.name)
            ax.set_xlabel("documents seen")
            ax.set_ylabel("look-ahead log likelihood per word")
            ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 3))
            ax.legend(fontsize=7)
    if not rows:
        raise ValueError(f"shorttext_alpha_*: no runs of {' or '.join(figlib.name(m) for m in METHODS)} in the traces "
                         f"(methods run: {sorted(set(frame['method']))})")
    others = sorted(set(frame["method"]) - set(METHODS))
    table = pd.DataFrame(rows)
    below = table[table["final minus unigram"] < 0]
    worse = table[table["final loglik/word"] < table["first loglik/word"]]
    caption = (
        "Short texts. Streaming VB (Broderick et al. 2013, time-ordered stream) and SVI (online LDA with D = N on the "
        "with-replacement stream) at two settings of the Dirichlet priors alpha = eta, scored as McInerney et al. 2015's "
        f"Fig. 1 (the next n stream documents, {frame['protocol'].iloc[0]}); K = {int(frame['p_K'].iloc[0])}, "
        f"S = {int(frame['p_batch_size'].iloc[0])}; {figlib.seeds_caption(frame)}. Corpora: " + "; ".join(lengths)
        + (f". Missing from the traces (empty panels; the findings judge without them): {'; '.join(absent)}"
           if absent else "")
        + (f". Runs of other methods, not drawn: {', '.join(figlib.name(m) for m in others)}" if others else "")
        + ". Dotted: the word-frequency baseline on the same look-ahead documents, from the training split's word "
        "counts. alpha = eta = 0.01 are Hoffman et al. 2010's defaults and McInerney et al.'s Twitter eta (their alpha "
        "is 1/K). This build: "
        + ("lines ending below the baseline: " + "; ".join(
            f"{r['corpus']} {r['method']} alpha = {r['alpha']:g}, eta = {r['eta']:g} ({r['final minus unigram']:+.3f} "
            f"nats/word)" for _, r in below.iterrows()) if len(below) else "every line ends above the baseline")
        + "; lines ending below their first checkpoint (worse with more data): "
        + ("; ".join(f"{r['corpus']} {r['method']} alpha = {r['alpha']:g} ({r['first loglik/word']:.3f} -> "
                     f"{r['final loglik/word']:.3f})" for _, r in worse.iterrows()) if len(worse) else "none")
        + ". The findings judge each line against the baseline, paired over seeds. Table: first and final look-ahead "
        "scores and the baseline's (nats per held-out word, mean over seeds)."
    )
    fig.suptitle("Short texts: look-ahead log likelihood at two alpha = eta settings, with the word-frequency baseline",
                 fontsize=10)
    ctx.save(fig)
    ctx.write(caption, figlib.markdown_table(table, {"alpha": "g", "eta": "g"}))
