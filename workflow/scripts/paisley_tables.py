"""Paisley, Blei and Jordan 2014, Tables 11.3 and 11.4: C-NMF's most probable words of the most probable
topics, and of a sample of less probable ones. Topics are ranked by probability (topic_weights).

On a planted synthetic corpus the words are named tKKKwRRR (the RRR-th word of planted topic KKK), so a
coherent topic is one whose words share a prefix; the tables then report that purity."""
import re

import figlib
import numpy as np

from topicbench import io
from topicbench.run import load_model

SYNTHETIC = re.compile(r"^t(\d+)w\d+$")


def topic_rows(model, vocab, ranks, order, n_words):
    topics = model.topics()
    rows, purities = [], []
    for rank in ranks:
        k = order[rank]
        words = [vocab[w] for w in np.argsort(-topics[k], kind="stable")[:n_words]]
        owners = [m.group(1) for m in map(SYNTHETIC.match, words) if m]
        purity = max(owners.count(o) for o in set(owners)) / len(words) if len(owners) == len(words) else None
        purities.append(purity)
        rows.append((rank + 1, ", ".join(words), purity))
    return rows, [p for p in purities if p is not None]


def render(title, rows, caption):
    with_purity = any(p is not None for _, _, p in rows)
    lines = [f"### {title}", "", caption, "", "| rank | most probable words |" + (" planted-topic purity |" if with_purity else ""),
             "|---|---|" + ("---|" if with_purity else "")]
    for rank, words, purity in rows:
        lines.append(f"| {rank} | {words} |" + (f" {purity:.1f} |" if with_purity else ""))
    return "\n".join(lines) + "\n"


def main():
    parser = figlib.arguments("model", "corpus_json", "vocab", "table_top", "table_rest")
    parser.add_argument("--n-top", type=int, default=40)
    parser.add_argument("--n-rest", type=int, default=11)
    parser.add_argument("--n-words", type=int, default=10)
    args = parser.parse_args()
    model = load_model(args.model)
    vocab = open(args.vocab, encoding="utf-8").read().splitlines()
    order = np.argsort(-model.topic_weights(), kind="stable")
    K = len(order)
    n_top = min(args.n_top, K)
    rest = np.unique(np.linspace(n_top, K - 1, args.n_rest).round().astype(int)) if K > n_top else np.array([], int)
    hyper = model.hyper
    setting = (f"Correlated NMF, K = {hyper['K']}, minibatch {hyper['batch_size']}, m = {hyper['m']}, after "
               f"{model.docs_seen:,} documents. {figlib.corpus_caption(args.corpus_json)}.")
    top_rows, top_purity = topic_rows(model, vocab, range(n_top), order, args.n_words)
    rest_rows, rest_purity = topic_rows(model, vocab, rest, order, args.n_words)
    purity_note = ""
    if top_purity:
        purity_note = (f" Words are planted-topic names (tKKKwRRR: the RRR-th word of planted topic KKK); purity is the "
                       f"share of a topic's {args.n_words} words owned by one planted topic (mean "
                       f"{np.mean(top_purity):.2f} here).")
    io.write_text(args.table_top, render(
        "Paisley et al. 2014, Table 11.3 (mirror)", top_rows,
        f"Most probable words of the {n_top} most probable topics, ranked by probability (ranks match Fig. 11.4). "
        f"{setting}{purity_note}"))
    rest_note = f" (mean purity {np.mean(rest_purity):.2f})" if rest_purity else ""
    what = (f"Most probable words of {len(rest)} less probable topics, evenly spaced over ranks {n_top + 1}-{K}{rest_note}."
            if len(rest) else f"No less probable topics to show: this profile fits K = {K} <= {n_top} topics, all in Table 11.3.")
    io.write_text(args.table_rest, render("Paisley et al. 2014, Table 11.4 (mirror)", rest_rows, f"{what} {setting}"))


if __name__ == "__main__":
    main()
