"""Shared by Paisley et al. 2014 Tables 11.3 and 11.4: C-NMF's most probable words of topics ranked by probability.

On a planted synthetic corpus the words are named tKKKwRRR (the RRR-th word of planted topic KKK), so a coherent
topic is one whose words share a prefix; the tables then report that purity."""
import re

import figlib
import numpy as np
import pandas as pd

SYNTHETIC = re.compile(r"^t(\d+)w\d+$")
N_TOP, N_REST, N_WORDS = 40, 11, 10


def topic_rows(model, vocab, ranks, order):
    topics = model.topics()
    rows = []
    for rank in ranks:
        words = [vocab[w] for w in np.argsort(-topics[order[rank]], kind="stable")[:N_WORDS]]
        owners = [m.group(1) for m in map(SYNTHETIC.match, words) if m]
        purity = max(owners.count(o) for o in set(owners)) / len(words) if len(owners) == len(words) else np.nan
        rows.append({"rank": int(rank) + 1, "most probable words": ", ".join(words), "planted-topic purity": purity})
    table = pd.DataFrame(rows, columns=["rank", "most probable words", "planted-topic purity"])
    return table if table["planted-topic purity"].notna().any() else table.drop(columns="planted-topic purity")


def draw_table(ctx, which):
    (experiment,) = ctx.experiments
    model = ctx.model(experiment, "cnmf")
    vocab = ctx.vocab(experiment)
    order = np.argsort(-model.topic_weights(), kind="stable")
    K = len(order)
    n_top = min(N_TOP, K)
    hyper = model.hyper
    setting = (f"Correlated NMF, K = {hyper['K']}, minibatch {hyper['batch_size']}, m = {hyper['m']}, after "
               f"{model.docs_seen:,} documents. {ctx.corpus_caption(experiment)}.")
    if which == "top":
        table = topic_rows(model, vocab, range(n_top), order)
        what = f"Most probable words of the {n_top} most probable topics, ranked by probability (ranks match Fig. 11.4)."
    else:
        rest = np.unique(np.linspace(n_top, K - 1, N_REST).round().astype(int)) if K > n_top else np.array([], int)
        table = topic_rows(model, vocab, rest, order)
        what = (f"Most probable words of {len(rest)} less probable topics, evenly spaced over ranks {n_top + 1}-{K}."
                if len(rest) else f"No less probable topics to show: this profile fits K = {K} <= {n_top} topics, "
                f"all in Table 11.3.")
    note = ""
    if "planted-topic purity" in table:
        note = (f" Words are planted-topic names (tKKKwRRR: the RRR-th word of planted topic KKK); purity is the share "
                f"of a topic's {N_WORDS} words owned by one planted topic (mean "
                f"{table['planted-topic purity'].mean():.2f} here).")
    ctx.write(f"{what} {setting}{note}", figlib.markdown_table(table, ".1f"), table)
