"""Generic readers, preprocessing, bad input and ``topicbench corpus info``.

The "unseen formats" tests write random corpora (fresh matrices every seed, never committed) in
UCI and LDA-C format and check they prepare through ``topicbench prepare user_bow`` to exactly
the matrix that was written.
"""
import bz2
import gzip
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp

from topicbench.cli import main as cli_main
from topicbench.corpus import CorpusError, load_corpus
from topicbench.dataset import DatasetUnavailable, get_dataset, prepare
from topicbench.readers import (ENGLISH_STOP_WORDS, Preprocess, ReaderError, bag_of_words, decimal_year, parse_time,
                                read_csv_text, read_jsonl, read_ldac, read_matrix_market, read_text_files, read_uci_bow,
                                seeded_split, whitespace_bow)


def random_counts(seed, n_docs=60, n_words=40, empty_rows=()):
    rng = np.random.default_rng(seed)
    dense = rng.poisson(0.4, size=(n_docs, n_words)) * (rng.random((n_docs, n_words)) < 0.5)
    dense[:, 0] += 1  # no empty documents unless asked
    for row in empty_rows:
        dense[row] = 0
    return sp.csr_matrix(dense)


def write_vocab(path, n_words):
    path.write_text("".join(f"w{i:03d}\n" for i in range(n_words)))
    return path


def write_uci(path, counts, opener=open, header=None):
    coo = counts.tocoo()
    order = np.lexsort((coo.col, coo.row))
    lines = [f"{counts.shape[0]}", f"{counts.shape[1]}", f"{coo.nnz}"] if header is None else header
    lines += [f"{r + 1} {c + 1} {v}" for r, c, v in zip(coo.row[order], coo.col[order], coo.data[order])]
    with opener(path, "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def write_ldac(path, counts, opener=open):
    lines = []
    for d in range(counts.shape[0]):
        row = counts[d]
        lines.append(" ".join([str(row.nnz)] + [f"{i}:{v}" for i, v in zip(row.indices, row.data)]))
    with opener(path, "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


# --- unseen formats ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [11, 12])
@pytest.mark.parametrize("fmt", ["uci", "ldac", "mm"])
def test_unseen_bow_file_prepares_to_the_written_matrix(tmp_path, fmt, seed):
    counts = random_counts(seed, n_docs=50 + seed, n_words=30 + seed)
    vocab = write_vocab(tmp_path / "vocab.txt", counts.shape[1])
    if fmt == "uci":
        path = write_uci(tmp_path / "docword.x.txt.gz", counts, gzip.open)
    elif fmt == "ldac":
        path = write_ldac(tmp_path / "x.ldac.bz2", counts, bz2.open)
    else:
        path = tmp_path / "x.mtx"
        scipy.io.mmwrite(path, counts.astype(np.int64), field="integer")
    out = tmp_path / "corpus"
    assert cli_main(["prepare", "user_bow", "--out", str(out), "--param", f"format={fmt}", "--param", f"path={path}",
                     "--param", f"vocab={vocab}"]) == 0
    corpus = load_corpus(out)
    assert (corpus.counts != counts).nnz == 0
    assert corpus.vocab == [f"w{i:03d}" for i in range(counts.shape[1])]
    assert corpus.meta["preprocessing"]["dropped_empty"] == 0
    assert set(corpus.docs["split"]) == {"train", "test"}


def test_empty_bow_documents_are_dropped_and_counted(tmp_path):
    counts = random_counts(3, empty_rows=(4, 17))
    vocab = write_vocab(tmp_path / "vocab.txt", counts.shape[1])
    uci, _, kept_uci, n_uci = read_uci_bow(write_uci(tmp_path / "d.txt", counts), vocab)
    ldac, _, kept_ldac, n_ldac = read_ldac(write_ldac(tmp_path / "d.ldac", counts), vocab)
    for matrix, kept, n_input in ((uci, kept_uci, n_uci), (ldac, kept_ldac, n_ldac)):
        assert n_input == counts.shape[0] and len(kept) == counts.shape[0] - 2
        assert 4 not in kept and 17 not in kept
        assert (matrix != counts[kept]).nnz == 0
    out = prepare("user_bow", tmp_path / "c", format="ldac", path=str(tmp_path / "d.ldac"), vocab=str(vocab))
    assert json.loads((out / "corpus.json").read_text())["preprocessing"]["dropped_empty"] == 2


def test_repeated_bow_entries_are_summed_and_counted(tmp_path):
    """A (document, word) entry written twice, in UCI, LDA-C and Matrix Market -> the counts added up, as if written
    once with the sum, and the number of repeats recorded in corpus.json (was summed without a trace); a Matrix Market
    'pattern' file (no values) -> a count of 1 per entry, recorded as such."""
    vocab = write_vocab(tmp_path / "vocab.txt", 3)
    once = sp.csr_matrix(np.array([[2, 1, 0], [0, 3, 1]]))
    files = {"uci": "2\n3\n5\n1 1 2\n1 2 1\n2 2 1\n2 3 1\n2 2 2\n",  # (2, 2) written as 1 + 2
             "ldac": "2 0:2 1:1\n3 1:1 2:1 1:2\n",
             "mm": "%%MatrixMarket matrix coordinate integer general\n2 3 5\n1 1 2\n1 2 1\n2 2 1\n2 3 1\n2 2 2\n"}
    for fmt, text in files.items():
        (tmp_path / f"d.{fmt}").write_text(text)
        out = prepare("user_bow", tmp_path / fmt, format=fmt, path=str(tmp_path / f"d.{fmt}"), vocab=str(vocab),
                      test_fraction=0.0)
        corpus = load_corpus(out)
        assert (corpus.counts != once).nnz == 0, fmt
        assert corpus.meta["preprocessing"]["summed_repeated_entries"]["count"] == 1, fmt
    (tmp_path / "p.mm").write_text("%%MatrixMarket matrix coordinate pattern general\n2 3 4\n1 1\n1 2\n2 2\n2 3\n")
    corpus = load_corpus(prepare("user_bow", tmp_path / "pattern", format="mm", path=str(tmp_path / "p.mm"),
                                 vocab=str(vocab), test_fraction=0.0))
    assert corpus.counts.toarray().tolist() == [[1, 1, 0], [0, 1, 1]]  # a pattern file: positions, each one occurrence
    assert corpus.meta["preprocessing"]["matrix_market_field"].startswith("pattern")  # ... and said so in corpus.json
    write_uci(tmp_path / "clean.txt", once)
    out = prepare("user_bow", tmp_path / "clean", format="uci", path=str(tmp_path / "clean.txt"), vocab=str(vocab))
    assert "summed_repeated_entries" not in load_corpus(out).meta["preprocessing"]  # only recorded when there were any


def test_utf16_bow_files_read_with_their_encoding(tmp_path):
    """A UTF-16 vocabulary and docword file (Windows 'Unicode' export) -> with encoding=utf-16, the same shards as
    UTF-8; without it, refused naming the vocabulary file and the encoding to pass (a parameter user_bow has)."""
    counts = random_counts(8, n_docs=12, n_words=6)
    write_vocab(tmp_path / "vocab.txt", 6)
    write_uci(tmp_path / "docword.txt", counts)
    for name in ("vocab.txt", "docword.txt"):
        (tmp_path / f"u16_{name}").write_bytes((tmp_path / name).read_text().encode("utf-16"))
    plain = prepare("user_bow", tmp_path / "plain", path=str(tmp_path / "docword.txt"), vocab=str(tmp_path / "vocab.txt"))
    wide = prepare("user_bow", tmp_path / "wide", path=str(tmp_path / "u16_docword.txt"),
                   vocab=str(tmp_path / "u16_vocab.txt"), encoding="utf-16")
    assert _prepared(plain) == _prepared(wide)
    with pytest.raises(ReaderError, match=r"u16_vocab\.txt:1: .*UTF-16 byte-order mark: pass encoding=utf-16"):
        prepare("user_bow", tmp_path / "x", path=str(tmp_path / "u16_docword.txt"), vocab=str(tmp_path / "u16_vocab.txt"))


# --- the same corpus in every format prepares to the same bytes ----------------------------------


def _prepared(out):
    """The prepared counts and vocabulary, as bytes (the shards are checksummed in the manifest)."""
    return (out / "counts" / "manifest.json").read_bytes(), (out / "vocab.txt").read_bytes()


def test_same_counts_in_every_bow_format_prepare_to_the_same_shards(tmp_path):
    """UCI, gzipped UCI, LDA-C and Matrix Market (documents in rows, and in columns) of one matrix -> identical
    shards, vocabulary and split: each reader's id offset and orientation are checked against the others."""
    counts = random_counts(5, n_docs=40, n_words=25, empty_rows=(7,))
    vocab = write_vocab(tmp_path / "vocab.txt", counts.shape[1])
    scipy.io.mmwrite(tmp_path / "rows.mtx", counts.astype(np.int64), field="integer")
    scipy.io.mmwrite(tmp_path / "cols.mtx", counts.T.tocoo().astype(np.int64), field="integer")
    files = {"uci": write_uci(tmp_path / "docword.txt", counts), "uci_gz": write_uci(tmp_path / "docword.txt.gz", counts, gzip.open),
             "ldac": write_ldac(tmp_path / "d.ldac", counts), "mm": tmp_path / "rows.mtx", "mm_cols": tmp_path / "cols.mtx"}
    prepared = {}
    for name, path in files.items():
        extra = {"docs_in_rows": False} if name == "mm_cols" else {}
        out = prepare("user_bow", tmp_path / name / "c", format=name.split("_")[0], path=str(path), vocab=str(vocab), **extra)
        prepared[name] = _prepared(out)
        corpus = load_corpus(out)
        assert (corpus.counts != counts[np.flatnonzero(np.diff(counts.indptr))]).nnz == 0, name
        assert corpus.meta["preprocessing"]["dropped_empty"] == 1, name
    assert all(prepared[name] == prepared["uci"] for name in files), {n: p[0][:0] for n, p in prepared.items()}
    with pytest.raises(ReaderError, match=r"cols\.mtx: matrix has 40 word columns .* 25 words \(its 25 rows match: "
                                          r"documents in columns\? pass docs_in_rows=false\)"):
        prepare("user_bow", tmp_path / "x", format="mm", path=str(tmp_path / "cols.mtx"), vocab=str(vocab))


TEXTS = ['Markets, "bonds" and stocks\nrally today', "Café owners say: naïve résumé, café crème", "stocks fall; bonds rise",
         "gold, silver\nand bonds", "résumé writing for café staff", "the and of", "gold stocks, gold bonds",
         "silver markets rally", "café stocks rise\nagain", "naïve bonds"] * 3


def _write_text_formats(root):
    """TEXTS as a folder of files, JSONL, and CSV: plain, with a time column, CRLF, a BOM, latin-1. Params per format."""
    import csv as csvlib
    import io

    (root / "files").mkdir()
    for i, text in enumerate(TEXTS):
        (root / "files" / f"{i:03d}.txt").write_text(text, encoding="utf-8")
    with open(root / "d.jsonl", "w", encoding="utf-8") as handle:
        for i, text in enumerate(TEXTS):
            handle.write(json.dumps({"id": f"d{i}", "text": text, "t": f"20{10 + i % 9}-0{1 + i % 9}-15"}) + "\n")

    def write_csv(name, time=False, crlf=False, bom=False, encoding="utf-8"):
        buf = io.StringIO(newline="")
        writer = csvlib.writer(buf, lineterminator="\r\n" if crlf else "\n")  # quotes fields with commas/newlines
        writer.writerow(["id", "text"] + ["t"] * time)
        for i, text in enumerate(TEXTS):
            writer.writerow([f"d{i}", text.replace("\n", "\r\n") if crlf else text] + [f"2015-0{1 + i % 9}-15"] * time)
        (root / name).write_bytes(b"\xef\xbb\xbf" * bom + buf.getvalue().encode(encoding))
        return name

    # the same folder with what a copied or downloaded folder also holds: none of it is a document
    import shutil

    shutil.copytree(root / "files", root / "junk")
    (root / "junk" / "__MACOSX").mkdir()
    (root / "junk" / ".git").mkdir()
    for name, data in {".DS_Store": b"\x00\x00\x00\x01Bud1\x00\x10", "._000.txt": b"\x00\x05\x16\x07Mac OS X  ",
                       "__MACOSX/._001.txt": b"\x00\x05\x16\x07", ".git/HEAD": b"ref: refs/heads/main\n",
                       "PROVENANCE.md": b"# Provenance\nmarkets bonds stocks from example.org\n",
                       "README.txt": b"gold silver bonds\n", ".notes": b"stocks stocks\n"}.items():
        (root / "junk" / name).write_bytes(data)
    (root / "u16.jsonl").write_bytes((root / "d.jsonl").read_text(encoding="utf-8").encode("utf-16"))
    (root / "u16le.csv").write_bytes(b"\xff\xfe" + (root / write_csv("u16le.csv", encoding="utf-16-le")).read_bytes())
    tsv = io.StringIO(newline="")
    csvlib.writer(tsv, delimiter="\t", lineterminator="\n").writerows([["text", "id"]] + [[t, f"d{i}"] for i, t in enumerate(TEXTS)])
    (root / "d.tsv").write_text(tsv.getvalue(), encoding="utf-8")
    return {"files": {"format": "files", "path": "files"}, "jsonl": {"format": "jsonl", "path": "d.jsonl"},
            "files_junk": {"format": "files", "path": "junk"},
            "jsonl_utf16": {"format": "jsonl", "path": "u16.jsonl", "encoding": "utf-16", "id_column": "id"},
            "csv_utf16le_bom": {"format": "csv", "path": "u16le.csv", "encoding": "utf-16-le", "id_column": "id"},
            "tsv": {"format": "csv", "path": "d.tsv", "sep": "\\t", "id_column": "id"},
            "jsonl_time": {"format": "jsonl", "path": "d.jsonl", "time_column": "t", "id_column": "id"},
            "csv": {"format": "csv", "path": write_csv("d.csv")},
            "csv_time": {"format": "csv", "path": write_csv("t.csv", time=True), "time_column": "t"},
            "csv_crlf": {"format": "csv", "path": write_csv("crlf.csv", crlf=True)},
            "csv_bom": {"format": "csv", "path": write_csv("bom.csv", bom=True), "id_column": "id"},
            "csv_latin1": {"format": "csv", "path": write_csv("l1.csv", encoding="latin-1"), "encoding": "latin-1"}}


def test_same_text_in_every_text_format_prepares_to_the_same_counts(tmp_path):
    """One text as files, JSONL and CSV (quoted commas and newlines, CRLF, BOM, latin-1, UTF-16, tab-separated, time
    column) -> identical counts and vocabulary: no reader adds, loses or splits a word (a BOM or CR glued to a word would
    show); a folder's hidden files, AppleDouble forks, __MACOSX/, PROVENANCE.md and README are not documents (a junk
    document would change the counts), and are listed by name in corpus.json."""
    cases = _write_text_formats(tmp_path)
    prepared, tokens = {}, {}
    for name, params in cases.items():
        out = prepare("user_text", tmp_path / "out" / name, corpora_dir=tmp_path, min_df=2, max_df=0.5, **params)
        prepared[name] = _prepared(out)
        meta = json.loads((out / "corpus.json").read_text())
        tokens[name] = (meta["n_tokens"], meta["preprocessing"]["word_tokens"])
    assert all(prepared[name] == prepared["files"] for name in cases), tokens
    assert len(set(tokens.values())) == 1, tokens
    assert "café" in prepared["files"][1].decode() and load_corpus(tmp_path / "out" / "csv_time").has_time
    skipped = load_corpus(tmp_path / "out" / "files_junk").meta["preprocessing"]["skipped_files"]
    assert skipped == {"count": 7, "first": [".DS_Store", "._000.txt", ".git/HEAD", ".notes", "PROVENANCE.md"]}, skipped


# --- bad input: every error names the file (and the line) -------------------------------------


def test_uci_bad_header(tmp_path):
    counts = random_counts(1)
    vocab = write_vocab(tmp_path / "vocab.txt", counts.shape[1])
    path = write_uci(tmp_path / "d.txt", counts, header=["60", "forty", "5"])
    with pytest.raises(ReaderError, match=r"d\.txt:2: bad UCI header"):
        read_uci_bow(path, vocab)
    path = write_uci(tmp_path / "w.txt", counts, header=["60", "41", str(counts.nnz)])
    with pytest.raises(ReaderError, match=r"w\.txt:2: header says W=41 but .*vocab\.txt has 40 words"):
        read_uci_bow(path, vocab)


def test_uci_truncated_and_out_of_range(tmp_path):
    counts = random_counts(2)
    vocab = write_vocab(tmp_path / "vocab.txt", counts.shape[1])
    full = write_uci(tmp_path / "full.txt", counts).read_text().splitlines()
    (tmp_path / "short.txt").write_text("\n".join(full[:-5]) + "\n")
    with pytest.raises(ReaderError, match=rf"short\.txt: header says NNZ={counts.nnz} but the file has {counts.nnz - 5} entries \(truncated\)"):
        read_uci_bow(tmp_path / "short.txt", vocab)
    bad = full.copy()
    bad[10] = "3 41 1"  # word id 41 > W = 40
    (tmp_path / "range.txt").write_text("\n".join(bad) + "\n")
    with pytest.raises(ReaderError, match=r"range\.txt:11: wordID 41 out of range \[1, 40\]"):
        read_uci_bow(tmp_path / "range.txt", vocab)
    bad = full.copy()
    bad[7] = "3 x 1"
    (tmp_path / "junk.txt").write_text("\n".join(bad) + "\n")
    with pytest.raises(ReaderError, match=r"junk\.txt:8: expected 'docID wordID count'"):
        read_uci_bow(tmp_path / "junk.txt", vocab)


def test_corrupt_gzip_is_named(tmp_path):
    counts = random_counts(4, n_docs=400)
    vocab = write_vocab(tmp_path / "vocab.txt", counts.shape[1])
    whole = write_uci(tmp_path / "d.txt.gz", counts, gzip.open).read_bytes()
    (tmp_path / "cut.txt.gz").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ReaderError, match=r"cut\.txt\.gz:\d+: truncated or corrupt file"):
        read_uci_bow(tmp_path / "cut.txt.gz", vocab)
    (tmp_path / "noise.ldac.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4)
    with pytest.raises(ReaderError, match=r"noise\.ldac\.gz:1: truncated or corrupt file"):
        read_ldac(tmp_path / "noise.ldac.gz", vocab)


def test_ldac_bad_lines(tmp_path):
    vocab = write_vocab(tmp_path / "vocab.txt", 5)
    cases = {
        "range": ("2 0:1 4:2\n2 1:1 5:3\n", r"range\.ldac:2: word id 5 out of range \[0, 5\)"),
        "count": ("3 0:1 4:2\n", r"count\.ldac:1: N=3 but the line has 2 id:count pairs"),
        "syntax": ("1 0:1\n1 a:2\n", r"syntax\.ldac:2: expected 'N id:count \.\.\.'"),
        "blank": ("1 0:1\n\n1 2:2\n", r"blank\.ldac:2: blank line"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / f"{name}.ldac").write_text(text)
        with pytest.raises(ReaderError, match=message):
            read_ldac(tmp_path / f"{name}.ldac", vocab)


def test_vocab_and_matrix_market_errors(tmp_path):
    (tmp_path / "dup.txt").write_text("a\nb\na\n")
    with pytest.raises(ReaderError, match=r"dup\.txt:3: duplicate word 'a' \(first on line 1\)"):
        read_ldac(tmp_path / "x", tmp_path / "dup.txt")
    vocab = write_vocab(tmp_path / "vocab.txt", 4)
    (tmp_path / "nohead.mtx").write_text("3 4 1\n1 1 2\n")
    with pytest.raises(ReaderError, match=r"nohead\.mtx:1: bad header"):
        read_matrix_market(tmp_path / "nohead.mtx", vocab)
    (tmp_path / "wide.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n2 5 1\n1 5 2\n")
    with pytest.raises(ReaderError, match=r"wide\.mtx: matrix has 5 word columns but .*vocab\.txt has 4 words"):
        read_matrix_market(tmp_path / "wide.mtx", vocab)
    with pytest.raises(ReaderError, match=r"missing\.txt: file does not exist"):
        read_ldac(tmp_path / "x", tmp_path / "missing.txt")


def test_non_utf8_text_names_file_and_line(tmp_path):
    (tmp_path / "t.jsonl").write_bytes(b'{"text": "fine"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(ReaderError, match=r"t\.jsonl:2: not valid utf-8 text"):
        read_jsonl(tmp_path / "t.jsonl")
    (tmp_path / "t.csv").write_bytes(b"id,text\n1,ok\n2,ok\n3,na\xefve\n")
    with pytest.raises(ReaderError, match=r"t\.csv:4: not valid utf-8 text"):
        read_csv_text(tmp_path / "t.csv", id_column="id")
    assert read_csv_text(tmp_path / "t.csv", id_column="id", encoding="latin-1")["text"].iloc[2] == "na\u00efve"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_bytes(b"one\ntwo \xff\n")
    with pytest.raises(ReaderError, match=r"a\.txt:2: not valid utf-8"):
        read_text_files(tmp_path / "docs")


def test_one_long_csv_document_is_read(tmp_path):
    """A CSV document longer than the csv module's 128 KiB field limit (one huge document among short ones) -> read
    whole, every token counted (was refused: 'field larger than field limit (131072)')."""
    long_text = " ".join(["apple", "bread"] * 40_000)  # 480 KB
    (tmp_path / "t.csv").write_text(f"id,text\n1,{long_text}\n2,cheese apple\n3,\"bread, cheese\"\n")
    frame = read_csv_text(tmp_path / "t.csv", id_column="id")
    assert frame["text"].tolist() == [long_text, "cheese apple", "bread, cheese"]


def test_csv_and_jsonl_structure_errors(tmp_path):
    (tmp_path / "cols.csv").write_text("id,body\n1,x\n")
    with pytest.raises(ReaderError, match=r"cols\.csv:1: missing column\(s\) \['text'\]"):
        read_csv_text(tmp_path / "cols.csv")
    (tmp_path / "ragged.csv").write_text("id,text\n1,a\n2,b,c\n")
    with pytest.raises(ReaderError, match=r"ragged\.csv:3: 3 fields, header has 2"):
        read_csv_text(tmp_path / "ragged.csv")
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": \n')
    with pytest.raises(ReaderError, match=r"bad\.jsonl:2: not valid JSON"):
        read_jsonl(tmp_path / "bad.jsonl")
    (tmp_path / "nofield.jsonl").write_text('{"text": "a", "t": "2001-01-01"}\n{"text": "b"}\n')
    with pytest.raises(ReaderError, match=r"nofield\.jsonl:2: missing field 't'"):
        read_jsonl(tmp_path / "nofield.jsonl", time_field="t")


def test_bad_time_is_named():
    with pytest.raises(ReaderError, match=r"f\.csv:3: cannot parse time 'soon'"):
        parse_time(["2001-01-01", "soon"], source="f.csv", line_numbers=[2, 3])


def test_missing_corpora_dir():
    cls = get_dataset("nyt_topmost")
    with pytest.raises(DatasetUnavailable, match="needs corpora_dir"):
        cls().build(corpora_dir=None)
    with pytest.raises(DatasetUnavailable, match=r"/nowhere/nyt_topmost does not exist"):
        cls().build(corpora_dir="/nowhere")
    assert cli_main(["prepare", "sotu", "--out", "/tmp/never", "--corpora-dir", "/nowhere"]) == 2


# --- preprocessing ----------------------------------------------------------------------------


def test_tokeniser_and_stop_list():
    prep = Preprocess()
    assert prep.tokenize("The CAT's 3 hats, naïve café: see http://x.co/ab @bob &amp; a", ENGLISH_STOP_WORDS) == \
        ["cat", "hats", "naïve", "café"]
    assert len(ENGLISH_STOP_WORDS) == 318 and {"the", "and", "whereas"} <= ENGLISH_STOP_WORDS


def test_tokeniser_keeps_combining_marks_in_their_word():
    """Non-Latin scripts and decomposed accents -> whole words: a combining mark (vowel sign, virama, U+0301) never
    splits a word or drops its letters; a variation selector (emoji presentation) is not part of a word."""
    prep = Preprocess(stop_words=False)
    assert prep.tokenize("हिन्दी भाषा") == ["हिन्दी", "भाषा"]  # Devanagari vowel signs (Mc) and virama (Mn)
    assert prep.tokenize("e\u0301cole e\u0301te\u0301") == ["école", "été"]  # decomposed -> NFC, one word each
    assert prep.tokenize("Straße Ærø ภาษาไทย Привет مرحبا") == ["straße", "ærø", "ภาษาไทย", "привет", "مرحبا"]
    assert prep.tokenize("love\ufe0f party🎉time") == ["love", "party", "time"]


def test_cjk_text_is_split_into_character_bigrams():
    """Chinese/Japanese text (no spaces between words) -> overlapping character bigrams, not one token per sentence; a
    lone character is a short token (dropped and counted); Korean (spaced) and Latin words beside it are unchanged."""
    prep = Preprocess(stop_words=False)
    assert prep.tokenize("東京都は日本") == ["東京", "京都", "都は", "は日", "日本"]
    assert prep.tokenize("IBM在中国 한국어 문장") == ["ibm", "在中", "中国", "한국어", "문장"]
    tally = Counter()
    assert prep.tokenize("猫 dog", tally=tally) == ["dog"] and tally["dropped_tokens_short"] == 1
    assert Preprocess(stop_words=False, cjk_bigrams=False).tokenize("東京都は日本") == ["東京都は日本"]


def test_strip_html_is_asked_for():
    """HTML tags -> words ("href", "div") unless strip_html=true, which removes tags, comments and script/style
    blocks but keeps the text between tags; off by default, as "<id@host>" in mail is text."""
    page = '<html><body><div class="x">Bond <b>markets</b></div><!-- hidden --><script>var tracker</script>' \
           '<a href="https://x.org">rally</a></body></html>'
    assert {"html", "div", "href"} <= set(Preprocess().tokenize(page))
    assert Preprocess(strip_html=True).tokenize(page) == ["bond", "markets", "rally"]


def test_every_dropped_token_is_counted():
    """Tokens dropped as short, stop words, duplicates, outside the vocabulary or in dropped documents -> counted in
    the report, and they add up: word_tokens = kept tokens + every dropped_tokens_* count."""
    texts = ["the cat sat on a mat mat", "a dog", "x cat dog é", "cat cat dog", "the cat sat on a mat mat"]
    counts, vocab, rows, report = bag_of_words(texts, Preprocess(min_df=2, max_df=1.0, dedupe=True, min_doc_length=2))
    dropped = {k: v for k, v in report.items() if k.startswith("dropped_tokens_")}
    assert dropped == {"dropped_tokens_short": 5, "dropped_tokens_stop": 4, "dropped_tokens_duplicates": 4,
                       "dropped_tokens_outside_vocab": 3, "dropped_tokens_short_documents": 2}
    assert report["word_tokens"] == 23 == counts.sum() + sum(dropped.values())


def test_vocabulary_by_document_frequency():
    texts = ["apple banana cherry", "apple banana", "apple durian", "apple banana elder", "fig"]
    # df: apple 4, banana 3, cherry 1, durian 1, elder 1, fig 1 (5 docs); max_df 0.7 -> apple (0.8) out
    counts, vocab, rows, report = bag_of_words(texts, Preprocess(vocab_size=None, min_df=1, max_df=0.7, min_doc_length=1))
    assert vocab == ["banana", "cherry", "durian", "elder", "fig"]
    counts, vocab, rows, report = bag_of_words(texts, Preprocess(vocab_size=2, min_df=1, max_df=1.0, min_doc_length=1))
    assert vocab == ["apple", "banana"]  # the top two by df
    assert list(rows) == [0, 1, 2, 3] and report["dropped_empty"] == 1 and report["dropped_short"] == 1
    counts, vocab, rows, report = bag_of_words(texts, Preprocess(vocab_size=None, min_df=2, max_df=1.0, min_doc_length=2))
    assert vocab == ["apple", "banana"] and list(rows) == [0, 1, 3] and report["dropped_short"] == 2
    assert counts.toarray().tolist() == [[1, 1], [1, 1], [1, 1]]


def test_fixed_vocabulary_file(tmp_path):
    (tmp_path / "v.txt").write_text("zebra\napple\n")
    counts, vocab, rows, report = bag_of_words(["apple apple zebra pear", "pear"], Preprocess(vocab_file=str(tmp_path / "v.txt")))
    assert vocab == ["zebra", "apple"] and counts.toarray().tolist() == [[1, 2]]
    assert report["dropped_empty"] == 1 and "fixed vocabulary" in report["vocab_source"]
    assert report["not_applied_with_vocab_file"] == ["vocab_size", "min_df", "max_df"]  # recorded, but not cut by


def test_fixed_vocabulary_words_the_tokeniser_never_yields_are_recorded(tmp_path):
    """A vocab_file word in upper case, hyphenated, or a stop word -> kept as given (a column of zeros, as Hoffman's
    dictionary keeps 'system'), and listed in corpus.json: the tokeniser never yields it (was silent). A decomposed
    (NFD) word is refused instead (tests/faults/test_vocabulary.py)."""
    (tmp_path / "v.txt").write_text("Apple\nbread\ncafé\nx-ray\nthe\ndates\n")
    texts = ["Apple bread café x-ray", "the dates bread", "café dates apple"]
    counts, vocab, _, report = bag_of_words(texts, Preprocess(vocab_file=str(tmp_path / "v.txt")))
    assert vocab[0] == "Apple" and counts.toarray()[:, [0, 3, 4]].sum() == 0  # no text token ever matches them
    assert report["vocab_file_words_never_matched"]["count"] == 3
    assert report["vocab_file_words_never_matched"]["first"] == ["Apple", "x-ray", "the"]
    (tmp_path / "ok.txt").write_text("bread\ncafé\ndates\n")
    assert "vocab_file_words_never_matched" not in bag_of_words(texts, Preprocess(vocab_file=str(tmp_path / "ok.txt")))[3]


def test_dedupe_keeps_first_and_counts():
    texts = ["Big news today http://a.co/1", "big NEWS today http://b.co/2", "other story here", "big news today!"]
    counts, vocab, rows, report = bag_of_words(texts, Preprocess(vocab_size=None, min_df=1, max_df=1.0, dedupe=True))
    assert list(rows) == [0, 2] and report["dropped_duplicates"] == 2


def test_everything_dropped_is_an_error():
    with pytest.raises(CorpusError, match="no word passes min_df=5"):
        bag_of_words(["a b", "c d"], Preprocess(min_df=5))
    with pytest.raises(CorpusError, match="shorter than min_doc_length=9"):
        bag_of_words(["apple pie", "apple tart"], Preprocess(min_df=1, max_df=1.0, min_doc_length=9))


def test_user_text_end_to_end(tmp_path):
    rows = [{"id": f"t{i}", "when": f"2001-0{1 + i % 9}-1{i % 10}", "body": f"story {w} about {w} markets"}
            for i, w in enumerate(["stocks", "bonds", "stocks", "gold", "bonds", "stocks", "gold", "gold", "x"] * 3)]
    with open(tmp_path / "t.jsonl", "w") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    out = prepare("user_text", tmp_path / "c", format="jsonl", path=str(tmp_path / "t.jsonl"), text_column="body",
                  time_column="when", id_column="id", min_df=1, max_df=0.9, min_doc_length=2, test_fraction=0.2)
    corpus = load_corpus(out)
    assert corpus.vocab == ["bonds", "gold", "stocks"]  # "story", "markets" in every doc exceed max_df
    assert corpus.n_docs == 24 and corpus.meta["preprocessing"]["dropped_short"] == 3  # the "x" docs
    assert corpus.has_time and corpus.docs["time"].between(2001.0, 2001.75).all()
    assert (corpus.docs["split"] == "test").sum() == round(0.2 * 24)


def test_time_parsing_to_decimal_year():
    years = parse_time(["2001-01-01", "2001-07-02T12:00:00Z", "1790-01-08"])
    assert years[0] == 2001.0 and abs(years[1] - 2001.5) < 1e-9 and 1790.0 < years[2] < 1790.03
    assert decimal_year(pd.to_datetime(["2000-12-31 12:00"]))[0] == pytest.approx(2000 + 365.5 / 366)
    assert list(parse_time(["1-Jan-96", "31-Dec-06"], fmt="%d-%b-%y").round(3)) == [1996.0, 2006.997]


def test_unix_times_are_asked_for():
    """Unix times in seconds and milliseconds (numbers or numeric text) -> the same decimal years as their ISO dates,
    with time_format=unix_s / unix_ms; without it a number is refused naming the line and the fix (never guessed)."""
    iso = parse_time(["2020-09-13T12:26:40Z", "1970-01-01", "2001-07-02T12:00:00Z"])
    assert list(parse_time([1600000000, "0", 994075200.0], fmt="unix_s")) == list(iso)
    assert list(parse_time(["1600000000000", 0, 994075200000], fmt="unix_ms")) == list(iso)
    with pytest.raises(ReaderError, match=r"f\.csv:3: cannot parse time '1600000000' as ISO 8601 .*time_format=unix_s"):
        parse_time(["2020-01-01", 1600000000], source="f.csv", line_numbers=[2, 3])
    with pytest.raises(ReaderError, match=r"f\.csv:2: .*'1600000000000' with format 'unix_s'.*milliseconds"):
        parse_time([1600000000000], fmt="unix_s", source="f.csv", line_numbers=[2])


def test_seeded_split_is_deterministic_and_exact():
    a, b = seeded_split(1000, 0.1, 0), seeded_split(1000, 0.1, 0)
    assert (a == b).all() and (a == "test").sum() == 100
    assert (seeded_split(1000, 0.1, 1) != a).any()


# --- corpus info ------------------------------------------------------------------------------


def test_corpus_info_prints_the_statistics(tmp_path, capsys):
    out = prepare("planted_lda", tmp_path / "c", like="nyt", n_train=200, n_test=20, n_words=300, n_topics=5)
    capsys.readouterr()
    assert cli_main(["corpus", "info", str(out)]) == 0
    text = capsys.readouterr().out
    corpus = load_corpus(out)
    lengths = np.asarray(corpus.counts.sum(axis=1)).ravel()
    assert "documents   220  (train 200, test 20)" in text
    assert "vocabulary  300" in text
    assert f"tokens      {corpus.n_tokens:,}" in text
    assert f"median {np.median(lengths):g}" in text and f"max {lengths.max():g}" in text
    assert "time span   1987.0 .. " in text
    assert cli_main(["corpus", "info", "--json", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["documents"] == 220 and summary["length_quantiles"]["q0"] == lengths.min()


# --- third red-team: formats and text the earlier passes had not seen ------------------------------------------------


def test_csv_quoted_fields_spanning_lines_with_bom_crlf_and_embedded_delimiters(tmp_path):
    """A UTF-8 BOM, CRLF line ends, a quoted field with a comma and a CRLF inside, doubled quotes -> three records with
    their fields as written, each record's first line for errors, and the one record spanning lines counted for
    corpus.json (so a merged-rows surprise is visible against the file's line count)."""
    (tmp_path / "t.csv").write_bytes(b'\xef\xbb\xbfid,text,t\r\n1,"apple, bread\r\ncheese",x\r\n'
                                     b'2,"he said ""dates""",y\r\n3,plain apple,z\r\n')
    frame = read_csv_text(tmp_path / "t.csv", id_column="id")
    assert frame["doc_id"].tolist() == ["1", "2", "3"]
    assert frame["text"].tolist() == ["apple, bread\r\ncheese", 'he said "dates"', "plain apple"]
    assert frame["line"].tolist() == [2, 4, 5]
    assert frame.attrs == {"csv_records_spanning_lines": 1}


def test_tokeniser_joins_words_split_by_invisible_characters():
    """A soft hyphen or word joiner inside a word, a zero-width non-joiner between Persian letters, Turkish dotted
    capital I -> one word each, as a reader sees it; a zero-width space stays a word break (Thai writes one between
    words), and a trailing non-joiner is not part of its word. Was: 'infor' + 'mation', 'می' + 'خواهم', and
    'i\\u0307stanbul' beside 'istanbul'."""
    prep = Preprocess(stop_words=False)
    assert prep.tokenize("infor\u00admation infor\u2060mation zero\u200bwidth \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 "
                         "word\u200c İSTANBUL istanbul") == \
        ["information", "information", "zero", "width", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "word",
         "istanbul", "istanbul"]


def test_decimal_years_are_read_with_their_format():
    """Decimal years (numbers or text) with time_format=decimal_year -> the same numbers; without it, refused naming
    the line (pandas' ISO 8601 reads 2001.5 as 2001-05-01, i.e. 2001.33)."""
    assert list(parse_time(["2001.5", " 1999.25", 2003, 1850.0], fmt="decimal_year")) == [2001.5, 1999.25, 2003.0, 1850.0]
    with pytest.raises(ReaderError, match=r"f\.csv:3: cannot parse time 'n/a' as a decimal year"):
        parse_time(["2001.5", "n/a"], fmt="decimal_year", source="f.csv", line_numbers=[2, 3])
    with pytest.raises(ReaderError, match=r"f\.csv:2: time '2001\.5' is not an ISO 8601 date.*time_format=decimal_year"):
        parse_time(["2001.5", "2002-01-01"], source="f.csv", line_numbers=[2, 3])


def test_jsonl_text_from_several_fields(tmp_path):
    """format=jsonl with a list of text fields (as CSV allows) -> the fields joined by newlines, null as empty (was:
    TypeError 'unhashable type: list')."""
    (tmp_path / "t.jsonl").write_text('{"title": "Apple", "body": "bread cheese"}\n{"title": "Dates", "body": null}\n')
    frame = read_jsonl(tmp_path / "t.jsonl", ["title", "body"])
    assert frame["text"].tolist() == ["Apple\nbread cheese", "Dates\n"]


def test_latin1_and_cp1252_files_are_still_read_with_their_encoding(tmp_path):
    """A real Latin-1 / cp1252 file (bytes that are not UTF-8) read with its encoding -> its text, not refused as UTF-8
    read as Latin-1 (the mojibake check fires only on bytes that are valid UTF-8)."""
    (tmp_path / "t.csv").write_bytes(b"id,text\n1,caf\xe9 na\xefve\n2,\x93quoted\x94 \xc3 alone\n")
    assert read_csv_text(tmp_path / "t.csv", encoding="latin-1")["text"].tolist()[0] == "café naïve"
    assert read_csv_text(tmp_path / "t.csv", encoding="cp1252")["text"].tolist() == ["café naïve", "\u201cquoted\u201d Ã alone"]


def test_long_document_is_tokenised_in_pieces_with_the_same_counts(monkeypatch):
    """A document longer than LONG_TEXT -> tokenised piece by piece, cut only at white space, HTML stripped from the
    whole text first: the counts worked out by hand (a script block, a URL and a CJK run across the cuts are not
    split; was one list of Python strings for the whole document, about 1.3 GB for a 50 MB one)."""
    import topicbench.readers as readers

    monkeypatch.setattr(readers, "LONG_TEXT", 200)  # about six pieces; the URL (60 characters) fits in half of one
    text = ("apple bread " * 30 + "<script>var zebra = 'cheese cheese cheese cheese cheese';</script> "
            "http://example.com/a/very/long/path/with/words/in/it/cheese 東京都東京 dates\u00adtime " * 3)
    prep = Preprocess(min_df=1, max_df=1.0, vocab_size=None, min_doc_length=1, strip_html=True)
    counts, vocab, _, report = bag_of_words([text, "apple"], prep)
    # 東京都東京 -> bigrams 東京 京都 都東 東京; the script, its words and the URL are gone; datestime is one word
    assert dict(zip(vocab, counts.toarray()[0])) == {"apple": 30, "bread": 30, "datestime": 3, "京都": 3, "東京": 6, "都東": 3}
    assert report["word_tokens"] == 30 + 30 + 3 + 12 + 1  # and the second document's apple


def test_duplicates_kept_and_bare_clock_times_are_recorded():
    """dedupe=false keeps repeated documents but counts them (same tokens in the same order; empty ones aside), and
    clock times without a UTC offset among ones with it are counted as read as UTC (were silent)."""
    prep = Preprocess(min_df=1, max_df=1.0, min_doc_length=1)
    *_, report = bag_of_words(["apple bread", "Apple, bread!", "bread apple", "", "cheese", ""], prep)
    assert report["duplicate_documents_kept"] == 1 and report["dropped_empty"] == 2
    notes = {}
    years = parse_time(["2001-01-01T12:00:00+02:00", "2001-01-01 10:00", "2001-01-01", "2001-01-01T10:00Z"], report=notes)
    assert notes["times_without_utc_offset_read_as_utc"]["count"] == 1
    assert notes["times_without_utc_offset_read_as_utc"]["first"] == "2001-01-01 10:00"
    assert years[0] == years[1] == years[3] == pytest.approx(2001 + 10 / 24 / 365)  # 12:00+02:00 is 10:00 UTC
    for same_kind in (["2001-01-01T10:00Z", "2001-01-01"], ["2001-01-01 10:00", "2001-01-02 11:00"]):
        quiet = {}
        parse_time(same_kind, report=quiet)
        assert quiet == {}


def test_ascii_text_tokenises_as_unicode_text_does():
    """Every ASCII character, alone and between letters -> the same tokens by the ASCII fast path as in non-ASCII text
    (a trailing 'é' word sends the text down the Unicode pattern): letters a-z after lower-casing, nothing else."""
    prep = Preprocess(stop_words=False, min_token_length=1, strip_urls=False, cjk_bigrams=False)
    for code in range(128):
        ch = chr(code)
        text = f"ab{ch}cd {ch} x{ch}"
        letters = ch.lower() if ch.isalpha() else None
        want = ([f"ab{letters}cd", letters, f"x{letters}"] if letters else ["ab", "cd", "x"])
        assert prep.tokenize(text) == want, repr(ch)
        assert prep.tokenize(text + " é") == want + ["é"], repr(ch)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_csv_read_line_by_line_keeps_records_whole(tmp_path, encoding):
    """A CSV read line by line (UTF-8) or whole (UTF-16/32) -> the same records: a form feed or U+2028 inside a field
    is not a line end, a bare CR is a space, a quoted CRLF stays, the last line needs no line end."""
    body = 'id,text\r\n1,"apple\r\nbread" and\x0cform\u2028sep\r\n2,cheese\rdates\r\n3,last'
    (tmp_path / "t.csv").write_bytes(body.encode(encoding))
    frame = read_csv_text(tmp_path / "t.csv", id_column="id", encoding=encoding)
    assert frame["text"].tolist() == ["apple\r\nbread and\x0cform\u2028sep", "cheese dates", "last"]
    assert frame["line"].tolist() == [2, 4, 5] and frame.attrs == {"csv_records_spanning_lines": 1}


def test_dates_of_any_century_become_decimal_years():
    """Dates before the year 1000 or outside pandas' nanosecond range (1678-2262) -> decimal years worked out by hand
    (was a ValueError naming nothing for '0950-01-01': the year was rebuilt as the text '950-01-01')."""
    years = parse_time(["1599-03-01", "0950-01-01", "2500-07-02T12:00:00Z"])
    assert list(years) == pytest.approx([1599 + 59 / 365, 950.0, 2500 + 182.5 / 365], abs=1e-9)  # 2500: not a leap year


def test_max_df_is_inclusive_and_a_fraction_of_the_documents_kept():
    """Preprocess: words whose document frequency lies inside [min_df, max_df] (both ends included). Four documents,
    max_df 0.5: 'apple' in exactly 2 of 4 (0.5) stays. With dedupe the duplicate document is gone first: 'apple' is
    then in 2 of 3 documents (0.67 > 0.5) and is dropped, while the input had 4 texts."""
    texts = ["apple banana", "apple cherry", "date elder", "fig grape"]
    _, vocab, _, _ = bag_of_words(texts, Preprocess(vocab_size=None, min_df=1, max_df=0.5, stop_words=False))
    assert "apple" in vocab
    texts = ["apple banana", "apple banana", "apple cherry", "date elder"]
    _, vocab, _, report = bag_of_words(texts, Preprocess(vocab_size=None, min_df=1, max_df=0.5, stop_words=False,
                                                         dedupe=True))
    assert report["dropped_duplicates"] == 1
    assert vocab == ["banana", "cherry", "date", "elder"]


def test_top_n_breaks_document_frequency_ties_alphabetically():
    """vocab_size = 3 of apple (df 2) and kiwi, lime, mango (df 1 each): apple, then the first tie alphabetically."""
    texts = ["mango apple", "lime apple", "kiwi"]
    _, vocab, _, _ = bag_of_words(texts, Preprocess(vocab_size=2, min_df=1, max_df=1.0, stop_words=False))
    assert vocab == ["apple", "kiwi"]


def test_ldac_max_docs_reads_exactly_that_many_documents(tmp_path):
    (tmp_path / "v.txt").write_text("a\nb\nc\n")
    (tmp_path / "d.ldac").write_text("1 0:2\n2 1:1 2:3\n1 2:1\n")
    counts, _, kept, n_read = read_ldac(tmp_path / "d.ldac", tmp_path / "v.txt", max_docs=2)
    assert n_read == 2 and counts.toarray().tolist() == [[2, 0, 0], [0, 1, 3]] and list(kept) == [0, 1]


def test_matrix_market_explicit_zeros_are_not_tokens(tmp_path):
    """A document whose only entry is an explicit 0 has no token: it is dropped as empty, not kept as a document of
    length 0."""
    (tmp_path / "v.txt").write_text("a\nb\n")
    (tmp_path / "m.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n3 2 3\n1 1 2\n2 2 0\n3 1 1\n")
    counts, _, kept, n_docs = read_matrix_market(tmp_path / "m.mtx", tmp_path / "v.txt")
    assert n_docs == 3 and list(kept) == [0, 2] and counts.toarray().tolist() == [[2, 0], [1, 0]]


def test_whitespace_vocabulary_is_every_distinct_token_sorted():
    counts, vocab, keep, _ = whitespace_bow(["pear apple", "zebra apple", ""])
    assert vocab == ["apple", "pear", "zebra"] and list(keep) == [0, 1]
    assert counts.toarray().tolist() == [[1, 1, 0], [1, 0, 1]]


def test_dedupe_keeps_the_earliest_copy_in_time():
    """TextDataset with dedupe: of two identical texts the earliest in time is kept (with its id and time), whatever
    the row order."""
    from topicbench.readers import TEXT_PARAMS, TextDataset

    class Dup(TextDataset):
        name = "dup_test"
        params = dict(TEXT_PARAMS)
        dedupe = True

        def read(self, source_dir, **p):
            return pd.DataFrame({"doc_id": ["late", "early", "other"], "time": [2001.0, 1999.0, 2000.0],
                                 "text": ["alpha beta gamma", "alpha beta gamma", "delta epsilon zeta"]})

    corpus = Dup().build(None, **{**TEXT_PARAMS, "min_df": 1, "max_df": 1.0, "test_fraction": 0.0})
    docs = corpus.docs.set_index("doc_id")
    assert sorted(docs.index) == ["early", "other"] and docs.loc["early", "time"] == 1999.0


def test_uci_ids_and_counts_below_one_are_refused(tmp_path):
    """UCI ids are 1-based and counts positive: docID 0 (would wrap to the last document) or a count of 0 -> refused
    naming file:line."""
    vocab = write_vocab(tmp_path / "vocab.txt", 3)
    for name, row, message in (("doc0", "0 1 2", r"doc0\.txt:5: docID 0 out of range \[1, 2\]"),
                               ("count0", "2 1 0", r"count0\.txt:5: count must be positive, got 0")):
        (tmp_path / f"{name}.txt").write_text(f"2\n3\n2\n1 1 1\n{row}\n")
        with pytest.raises(ReaderError, match=message):
            read_uci_bow(tmp_path / f"{name}.txt", vocab)


@pytest.mark.parametrize("lines, what", [
    ("apple 3\nbread 5\n", r"a number column \(frequencies\?\)"),
    ("7 apple\n5 bread\n", r"a number column \(frequencies\?\)"),
    ("1 apple\n2 bread\n", "an id column: "),
    ("bread 1\napple 0\n", "an id column, not in line order"),
    ("2001 3\napple 5\n", r"a number column \(frequencies\?\)"),
], ids=["word-frequency", "frequency-word", "one-based-ids", "ids-out-of-order", "a-word-that-is-a-number"])
def test_vocabulary_of_words_and_numbers_is_refused_naming_the_column(tmp_path, lines, what):
    """A vocabulary whose every line is a word and a number, either side, -> refused, saying whether the numbers
    are ids (0- or 1-based, in any order) or something else."""
    from topicbench.readers import read_vocab

    (tmp_path / "vocab.txt").write_text(lines)
    with pytest.raises(ReaderError, match=rf"vocab\.txt:1: every line is a word and a number .*{what}"):
        read_vocab(tmp_path / "vocab.txt")


def test_decoding_errors_name_the_line_of_the_culprit(tmp_path):
    """UTF-8 read as Latin-1 is named at its first non-ASCII character's line (a DEL before it is ASCII), as is a NUL
    (the raw text starts on line 3 here); a bzip2 file named .txt is named as such, while text starting 'BZh' is
    text; UTF-16 lines are numbered from 1."""
    from topicbench.readers import decode, lines_of, open_binary, read_lines

    with pytest.raises(ReaderError, match=r"^f:2: the text is UTF-8 \('café'\)"):
        decode("a\x7f\nb café\n".encode(), "f", "latin-1", line=1)
    with pytest.raises(ReaderError, match="^f:4: NUL character"):
        decode(b"ab\ncd\x00", "f", "utf-8", line=3)
    (tmp_path / "packed.txt").write_bytes(bz2.compress(b"apple bread\n"))
    with pytest.raises(ReaderError, match="packed.txt: the file is bzip2-compressed"):
        open_binary(tmp_path / "packed.txt")
    (tmp_path / "plain.txt").write_bytes(b"BZhello\n")
    with open_binary(tmp_path / "plain.txt") as handle:
        assert handle.read() == b"BZhello\n"
    (tmp_path / "wide.txt").write_bytes("apple\nbread\n".encode("utf-16"))
    assert list(read_lines(tmp_path / "wide.txt", "utf-16")) == [(1, "apple"), (2, "bread")]
    assert lines_of("a\n\nb") == ["a", "", "b"] and lines_of("a\r\nb\n") == ["a", "b"]


def test_split_and_document_frequency_bounds_and_dropped_counts():
    """test_fraction 1 (no training document), max_df 0, vocab_size 0 (no word) and min_doc_length 0 are refused;
    white-space texts of which one is empty report 3 input documents and 1 dropped."""
    with pytest.raises(CorpusError, match=r"test_fraction must be in \[0, 1\), got 1.0"):
        seeded_split(10, 1.0)
    with pytest.raises(CorpusError, match=r"max_df must be a fraction in \(0, 1\], got 0"):
        Preprocess(max_df=0).check()
    with pytest.raises(CorpusError, match="vocab_size must be >= 1 or None, got 0"):
        Preprocess(vocab_size=0).check()
    Preprocess(vocab_size=1).check()  # one word is a vocabulary
    with pytest.raises(CorpusError, match="min_doc_length must be >= 1, got 0"):
        Preprocess(min_doc_length=0).check()
    counts, vocab, rows, report = whitespace_bow(["apple bread", "  ", "bread"])
    assert (report["input_documents"], report["dropped_empty"]) == (3, 1) and rows.tolist() == [0, 2]
    assert report["as_distributed"] is True  # counted as the source split them, not tokenised here


def test_cjk_bigrams_stand_apart_and_long_texts_count_their_tokens(monkeypatch):
    """Latin letters around a CJK run: the run's bigrams are tokens of their own (abc 東京 京都 def, not abc東京 or
    京都def); a text past
    LONG_TEXT counts its white-space tokens as str.split does; the default split holds out a tenth."""
    from topicbench import readers

    assert Preprocess().tokenize("abc東京都def x") == ["abc", "東京", "京都", "def"]
    monkeypatch.setattr(readers, "LONG_TEXT", 4)
    text = " alpha  beta\tgamma\n delta "
    assert readers._whitespace_tokens(text) == len(text.split()) == 4
    assert (seeded_split(20) == "test").sum() == 2


def test_one_based_ldac_ids_and_int32_max_counts(tmp_path):
    """LDA-C with id_base=1: ids 1..3 are words 0..2 (2 1:4 3:1 -> apple 4, cherry 1); a Matrix Market count of
    2^31 - 1 is kept, one more refused (it would wrap in int32)."""
    from topicbench.readers import whole_counts

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbread\ncherry\n")
    (tmp_path / "one.ldac").write_text("2 1:4 3:1\n1 2:2\n")
    counts = read_ldac(tmp_path / "one.ldac", vocab, id_base=1)[0]
    assert counts.toarray().tolist() == [[4, 0, 1], [0, 2, 0]]
    top = np.iinfo(np.int32).max
    assert whole_counts(sp.csr_matrix(np.array([[float(top), 1.0]])), "m.mtx").data.tolist() == [top, 1]
    with pytest.raises(ReaderError, match="m.mtx"):
        whole_counts(sp.csr_matrix(np.array([[float(top) + 1, 1.0]])), "m.mtx")


def test_matrix_market_count_over_int32_and_empty_text_fields_are_refused(tmp_path):
    """A Matrix Market file with one count of 2^31 beside small ones -> refused naming it (int32 storage would wrap),
    one of 2^31 - 1 kept; a JSONL reader asked for no text field, or a field that is not a name, -> refused naming
    the argument."""
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbread\ncherry\n")
    scipy.io.mmwrite(str(tmp_path / "big.mtx"), sp.coo_matrix(np.array([[1, 2**31, 0], [0, 1, 3]], dtype=np.float64)),
                     field="integer")
    with pytest.raises(ReaderError, match="count 2147483648 exceeds 2147483647"):
        read_matrix_market(tmp_path / "big.mtx", vocab)
    scipy.io.mmwrite(str(tmp_path / "top.mtx"), sp.coo_matrix(np.array([[1, 2**31 - 1, 0], [0, 1, 3]], dtype=np.float64)),
                     field="integer")
    assert read_matrix_market(tmp_path / "top.mtx", vocab)[0].max() == 2**31 - 1
    (tmp_path / "t.jsonl").write_text('{"text": "apple bread"}\n')
    for fields in ([], [1], ["text", 1]):
        with pytest.raises(ReaderError, match="text field"):
            read_jsonl(tmp_path / "t.jsonl", text_field=fields)


def test_html_references_are_counted_and_text_lists_must_hold_strings(tmp_path):
    """'caf&eacute; &amp; bar' decodes 2 character references, tallied as 2; a JSONL text given as a list with a number
    in it -> refused naming the field, not joined."""
    from collections import Counter

    tally = Counter()
    assert Preprocess().tokenize("caf&eacute; &amp; bar", tally=tally) == ["café", "bar"]
    assert tally["html_character_references_decoded"] == 2
    (tmp_path / "t.jsonl").write_text('{"text": ["apple", 3]}\n')
    with pytest.raises(ReaderError, match="list holding non-strings"):
        read_jsonl(tmp_path / "t.jsonl")


def test_vocabulary_with_a_phrase_line_and_matrix_market_with_a_bom(tmp_path):
    """A vocabulary of 'apple' and 'new york' (not every line a word and a number) is read as two words; a Matrix
    Market file starting with a UTF-8 byte-order mark is read (the mark is not part of its header)."""
    from topicbench.readers import read_vocab

    (tmp_path / "vocab.txt").write_text("apple\nnew york\n")
    assert read_vocab(tmp_path / "vocab.txt") == ["apple", "new york"]
    (tmp_path / "pairs.txt").write_text("7 up\npear drop\n")  # two-word lines, but no side all numbers
    assert read_vocab(tmp_path / "pairs.txt") == ["7 up", "pear drop"]
    (tmp_path / "v2.txt").write_text("apple\nbread\n")
    (tmp_path / "bom.mtx").write_bytes(b"\xef\xbb\xbf%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n2 2 1\n")
    assert read_matrix_market(tmp_path / "bom.mtx", tmp_path / "v2.txt")[0].toarray().tolist() == [[3, 0], [0, 1]]


def test_bag_of_words_by_hand_and_lda_c_counts_refused_below_one_or_beyond_int32(tmp_path):
    """Three texts, every word kept -> the counts written out by hand; LDA-C counts of 0 or beyond int64 are refused
    naming file:line, 2^31 - 1 is kept, and an id 0 in a later document makes the ids 0-based; a Latin-1 archive file is not counted as UTF-8; a text recipe leaves HTML in
    unless asked and splits CJK runs into bigrams."""
    from topicbench.readers import TextDataset, decode_legacy

    counts, vocab, rows, report = bag_of_words(["apple bread apple zebra", "bread cherry", "cherry apple"],
                                          Preprocess(min_df=1, max_df=1.0, stop_words=False, vocab_size=None))
    assert vocab == ["apple", "bread", "cherry", "zebra"] and rows.tolist() == [0, 1, 2]
    assert counts.toarray().tolist() == [[2, 1, 0, 1], [0, 1, 1, 0], [1, 0, 1, 0]] and report["kept_documents"] == 3
    vocab_path = tmp_path / "vocab.txt"
    vocab_path.write_text("apple\nbread\n")
    for name, line, message in (("zero", "2 0:0 1:2", r"zero\.ldac:2: counts must be positive"),
                                ("huge", f"1 1:{10**20}", r"huge\.ldac:2")):
        (tmp_path / f"{name}.ldac").write_text(f"1 0:1\n{line}\n")
        with pytest.raises(ReaderError, match=message):
            read_ldac(tmp_path / f"{name}.ldac", vocab_path)
    (tmp_path / "ids.ldac").write_text("1 1:3\n2 0:1 1:2\n")  # id 0 appears, in a later document whose top id is 1
    assert read_ldac(tmp_path / "ids.ldac", vocab_path)[0].toarray().tolist() == [[0, 3], [1, 2]]
    (tmp_path / "top.ldac").write_text(f"1 0:1\n1 1:{2**31 - 1}\n")
    assert read_ldac(tmp_path / "top.ldac", vocab_path)[0].toarray().tolist() == [[1, 0], [0, 2**31 - 1]]
    assert decode_legacy("café".encode("latin-1")) == ("café", False) and decode_legacy("café".encode()) == ("café", True)
    prep = TextDataset.preprocess({"vocab_size": None, "min_df": 1, "max_df": 1.0, "vocab_file": None,
                                   "min_doc_length": 1})
    assert (prep.strip_html, prep.cjk_bigrams) == (False, True)


def test_uci_body_may_hold_blank_lines(tmp_path):
    """A blank line between UCI entries is skipped, not the end of the body: both entries are read."""
    vocab = write_vocab(tmp_path / "vocab.txt", 3)
    (tmp_path / "d.txt").write_text("2\n3\n2\n1 1 1\n\n2 3 4\n")
    assert read_uci_bow(tmp_path / "d.txt", vocab)[0].toarray().tolist() == [[1, 0, 0], [0, 0, 4]]


def test_csv_text_from_two_columns_is_joined(tmp_path):
    """text_column = [title, body] -> each document is its title and body joined by a newline."""
    (tmp_path / "t.csv").write_text("id,title,body\n1,apple pie,bread and butter\n")
    assert read_csv_text(tmp_path / "t.csv", text_column=["title", "body"], id_column="id")["text"].tolist() == \
        ["apple pie\nbread and butter"]


def test_lda_c_id_checks_and_unicode_forms_and_stored_zeros(tmp_path):
    """LDA-C with no id 0 and no id_base -> refused as ambiguous; with id_base=1, an id 0 beside a valid id -> refused
    naming it; a vocabulary listing 'café' composed and decomposed -> refused naming line 2; a count of 2^31 beside a
    small one in a line -> refused; a stored zero in a Matrix Market matrix is dropped, not an error."""
    from topicbench.readers import read_vocab, whole_counts

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbread\n")
    for name, text, base, message in (("a", "1 1:3\n1 1:2\n", None, "ambiguous word ids: no id 0 appears"),
                                      ("b", "2 0:1 2:1\n", 1, r"b\.ldac:1: word id 0 out of range \[1, 3\)"),
                                      ("c", f"2 0:1 1:{2**31}\n", None, rf"c\.ldac:1: .*{2**31}")):
        (tmp_path / f"{name}.ldac").write_text(text)
        with pytest.raises(ReaderError, match=message):
            read_ldac(tmp_path / f"{name}.ldac", vocab, id_base=base)
    (tmp_path / "forms.txt").write_text("caf\u00e9\ncafe\u0301\n")
    with pytest.raises(ReaderError, match=r"forms\.txt:2: word .* of line 1 in another Unicode form"):
        read_vocab(tmp_path / "forms.txt")
    stored_zero = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    assert whole_counts(stored_zero, "m.mtx").toarray().tolist() == [[1, 0], [0, 2]]
    with pytest.raises(CorpusError, match="min_df must be a document count >= 1, got 0"):
        Preprocess(min_df=0).check()


def test_a_two_character_cjk_run_is_one_bigram():
    """A CJK run of exactly two characters -> that one bigram (東京), not the bigram and its last character too (one
    character is a token when min_token_length=1)."""
    assert Preprocess(stop_words=False, min_token_length=1).tokenize("東京 a 日") == ["東京", "a", "日"]


def test_unix_times_at_the_edges_of_pandas_range():
    """Unix times just inside 1678-2262 -> their decimal years; just outside -> the clear ReaderError naming the
    range, never pandas' OutOfBoundsDatetime (seconds and milliseconds alike)."""
    year = 365.2425 * 86400  # seconds in a mean Gregorian year: the unit of the range check
    inside = [(1678.5 - 1970) * year, (2261.5 - 1970) * year]
    assert np.allclose(parse_time(inside, fmt="unix_s"), [1678.5, 2261.5], atol=0.01)
    assert np.allclose(parse_time([t * 1000 for t in inside], fmt="unix_ms"), [1678.5, 2261.5], atol=0.01)
    for t in ((1677.9 - 1970) * year, (2262.1 - 1970) * year):
        for fmt, scale in (("unix_s", 1), ("unix_ms", 1000)):
            with pytest.raises(ReaderError, match="a date outside 1678-2261"):
                parse_time([t * scale], fmt=fmt)


def test_default_vocabulary_cut_by_hand():
    """Preprocess()'s documented defaults, on a tiny corpus: a word in one document of four is below min_df=2, one in
    three of four is above max_df=0.5 (in two of four it is kept, inclusive), and vocab_size=5000 keeps 5000 of 5001
    words tied in document frequency (the last in code-point order is cut)."""
    prep = Preprocess(stop_words=False)
    counts, vocab, _, _ = bag_of_words(["apple bread cheese", "apple bread dates", "apple eggs eggs", "figs figs"], prep)
    assert vocab == ["bread"]
    words = [f"q{chr(97 + i // 676)}{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}" for i in range(5001)]
    texts = [" ".join(words), " ".join(words), "zz zz", "yy yy"]
    counts, vocab, _, _ = bag_of_words(texts, prep)
    assert len(vocab) == 5000 and words[5000] not in vocab



def test_text_datasets_default_cuts_and_split_by_hand():
    """TEXT_PARAMS, the defaults every real text corpus is prepared with, on 20 documents by hand: min_df=2 (a word in
    one document is cut, in two kept), max_df=0.5 (a word in 11 of 20 is cut, in 10 kept), min_doc_length=2 (a
    document left with one token is dropped), 10% test with split seed 0 (the split seeded_split(19, 0.1, 0) gives),
    vocab_size=5000 (of 5001 words tied in document frequency, the last in code-point order is cut)."""
    from topicbench.readers import TEXT_PARAMS, TextDataset

    class Tiny(TextDataset):
        name, params = "tiny", {**TEXT_PARAMS}

        def read(self, source_dir, **p):
            texts = (["apple bread bread"] * 10 + ["apple cheese cheese"] + ["cheese cheese"] * 6
                     + ["cheese cheese figs"] * 2 + ["cheese eggs"])
            return pd.DataFrame({"doc_id": [f"d{i}" for i in range(20)], "text": texts})

    assert Tiny.resolve_params({"test_fraction": 0.0})["test_fraction"] == 0.0  # no test split is a choice, not an error
    corpus = Tiny().build(**Tiny.resolve_params({}))
    assert corpus.vocab == ["bread", "cheese", "figs"] and list(corpus.docs.columns) == ["doc_id", "split"]
    words = [f"q{chr(97 + i // 676)}{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}" for i in range(5001)]
    Tiny.read = lambda self, source_dir, **p: pd.DataFrame({"doc_id": list("abcd"), "text": [" ".join(words)] * 2 + ["xx xx", "yy yy"]})
    assert Tiny().build(**Tiny.resolve_params({})).vocab == words[:5000]  # vocab_size=5000 of 5001 tied words
    assert corpus.docs["doc_id"].tolist() == [f"d{i}" for i in range(19)]
    assert corpus.meta["preprocessing"]["dropped_short"] == 1
    split = corpus.docs["split"].to_numpy()
    assert list(split) == list(seeded_split(19, 0.1, 0)) != list(seeded_split(19, 0.1, 1)) and (split == "test").sum() == 2


def test_duplicate_documents_counted_with_their_tokens():
    """dedupe=true: three copies of a three-token document -> two dropped and their six tokens counted (not one copy's
    three); dedupe=false: a repeat that is the last document, or one that comes right after its twin, is counted too."""
    prep = Preprocess(stop_words=False, vocab_size=None, min_df=1, max_df=1.0, dedupe=True)
    *_, report = bag_of_words(["apple bread cheese", "dates", "apple bread cheese", "apple bread cheese"], prep)
    assert report["dropped_duplicates"] == 2 and report["dropped_tokens_duplicates"] == 6
    prep = Preprocess(stop_words=False, vocab_size=None, min_df=1, max_df=1.0)
    *_, report = bag_of_words(["apple bread", "cheese", "dates", "apple bread"], prep)
    assert report["duplicate_documents_kept"] == 1
    *_, report = bag_of_words(["apple bread", "cheese", "cheese", "dates eggs"], prep)
    assert report["duplicate_documents_kept"] == 1


def test_a_precomposed_letter_holding_a_compatibility_character_folds_as_its_decomposed_spelling():
    """U+1E9B (long s with dot above) is canonically U+017F U+0307, and the long s folds to s: both spellings -> the
    one word 'ṡext' (was 'ẛext' for the precomposed one, 'ṡext' for the decomposed: one word, two columns)."""
    prep = Preprocess(stop_words=False)
    assert prep.tokenize("\u1e9bext") == prep.tokenize("\u017f\u0307ext") == ["\u1e61ext"]


def test_csv_blank_lines_and_integer_matrix_market_and_null_times(tmp_path):
    """A blank line between CSV records is skipped, not the end of the file (the rows after it are read); an integer
    Matrix Market file records no 'matrix_market_field' note (only a pattern file does); a null time is named as
    missing ('no time (null)'), not as an unparseable 'None'."""
    (tmp_path / "t.csv").write_text("id,text\n1,apple bread\n\n2,cheese dates\n")
    assert read_csv_text(tmp_path / "t.csv", id_column="id")["doc_id"].tolist() == ["1", "2"]
    vocab = write_vocab(tmp_path / "vocab.txt", 2)
    (tmp_path / "m.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n1 2 1\n1 2 3\n")
    report = {}
    assert read_matrix_market(tmp_path / "m.mtx", vocab, report=report)[0].toarray().tolist() == [[0, 3]]
    assert "matrix_market_field" not in report
    for null in (None, float("nan")):
        with pytest.raises(ReaderError, match=r"f\.csv:3: no time \(null\)"):
            parse_time(["2001-01-01", null], source="f.csv", line_numbers=[2, 3])


def test_dropped_documents_counted_by_their_own_split():
    """A corpus with its own split: kept as it is (never re-drawn), as are its labels and titles, and the documents
    dropped (too short) counted per split, a split with none dropped as 0 (test: 0, train: 1 here)."""
    from topicbench.readers import TEXT_PARAMS, TextDataset

    class Tiny(TextDataset):
        name, params = "tiny", {**TEXT_PARAMS}

        def read(self, source_dir, **p):
            return pd.DataFrame({"doc_id": list("abcd"), "text": ["apple bread", "apple bread", "apple", "bread apple"],
                                 "split": ["train", "train", "train", "test"], "label": list("xyzw"), "title": list("ABCD")})

    corpus = Tiny().build(**Tiny.resolve_params({"max_df": 1.0}))
    assert corpus.meta["preprocessing"]["dropped_by_split"] == {"test": 0, "train": 1}
    assert corpus.docs["split"].tolist() == ["train", "train", "test"] and corpus.meta["split_rule"] == "the corpus's own split"
    assert corpus.docs["label"].tolist() == list("xyw") and corpus.docs["title"].tolist() == list("ABD")  # kept, in step
    assert corpus.docs["doc_id"].tolist() == ["a", "b", "d"]  # the source's own ids


def test_times_keep_float64_and_their_notes_go_only_where_asked():
    """Decimal years stay float64 (2001.1 is not float32's 2001.0999755859375); mixed clock times without a report dict
    parse (the UTC note is only written when a report is given); the two-digit-year note comes with %y, not with %Y;
    a count-matrix corpus says in corpus.json that it is as distributed."""
    from topicbench.readers import bow_meta

    years = parse_time(["2001.1"], fmt="decimal_year")
    assert years.dtype == np.float64 and years[0] == 2001.1
    assert len(parse_time(["2001-01-01T10:00Z", "2001-01-01 10:00"])) == 2
    notes = {}
    parse_time(["1-Jan-96"], fmt="%d-%b-%y", report=notes)
    assert notes["two_digit_years"]["read_as"] == "1996-1996"
    notes = {}
    parse_time(["1-Jan-1996"], fmt="%d-%b-%Y", report=notes)
    assert notes == {}
    assert bow_meta("n", "d", "s", 3, "r")["preprocessing"] == {"as_distributed": True, "dropped_empty": 3}


def test_notes_only_when_there_is_something_to_note(tmp_path):
    """corpus.json notes appear only when they count something: no compatibility_characters_folded without a folded
    character, no tokens_recomposed_to_nfc without a recomposed token, no file or CSV notes from clean input (and a
    given whitespace vocabulary is used as given, in its order); a blank
    JSON Lines line is skipped like a blank CSV line; a user time format holding a dot is not taken for a decimal year."""
    prep = Preprocess(stop_words=False, vocab_size=None, min_df=1, max_df=1.0)
    assert "compatibility_characters_folded" not in bag_of_words(["apple bread", "bread"], prep)[3]
    assert "compatibility_characters_folded" in bag_of_words(["\ufb01sh bread", "bread"], prep)[3]
    assert "tokens_recomposed_to_nfc" not in whitespace_bow(["caf\u00e9 bread"])[3]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("apple bread")
    assert read_text_files(tmp_path / "docs").attrs == {}
    (tmp_path / "t.csv").write_text("text\napple\n")
    assert read_csv_text(tmp_path / "t.csv").attrs == {}  # no record spanning lines: no note
    counts, vocab, _, _ = whitespace_bow(["bread apple apple"], vocab=["bread", "apple", "cheese"])
    assert vocab == ["bread", "apple", "cheese"] and counts.toarray().tolist() == [[1, 2, 0]]  # the given order kept
    (tmp_path / "t.jsonl").write_text('{"text": "apple"}\n\n{"text": "bread"}\n')
    assert read_jsonl(tmp_path / "t.jsonl")["text"].tolist() == ["apple", "bread"]
    assert parse_time(["2001.07"], fmt="%Y.%m")[0] == pytest.approx(2001 + 181 / 365)


def test_long_text_html_kept_unless_asked_and_empty_uci_and_no_stop_list(tmp_path, monkeypatch):
    """A long document (cut into pieces) keeps its HTML tags' words when strip_html is off, as a short one does; a UCI
    file with no entries is refused as having no documents (not a numpy error); stop_words=False records no stop list;
    strip_urls=False (and no strip_html) leaves HTML character references as written."""
    from topicbench import readers

    monkeypatch.setattr(readers, "LONG_TEXT", 8)
    prep = Preprocess(stop_words=False, min_token_length=1)
    ids = {}
    prep.token_ids("<b>bold</b> text here", frozenset(), ids, Counter())
    assert list(ids) == ["b", "bold", "text", "here"]
    vocab = write_vocab(tmp_path / "vocab.txt", 3)
    (tmp_path / "d.txt").write_text("1\n3\n0\n")
    with pytest.raises(ReaderError, match=r"d\.txt: no documents \(header D=1, NNZ=0\)"):
        read_uci_bow(tmp_path / "d.txt", vocab)
    assert bag_of_words(["apple bread", "bread"], Preprocess(stop_words=False, min_df=1, max_df=1.0))[3]["stop_list"] == "none"
    assert Preprocess(stop_words=False, strip_urls=False).tokenize("caf&eacute;") == ["caf", "eacute"]  # not asked
    assert bag_of_words(["apple bread", "bread"], Preprocess(min_df=1, max_df=1.0))[3]["stop_list"] == \
        "scikit-learn ENGLISH_STOP_WORDS (318 words)"
    tally = Counter()
    prep.token_ids("apple bread cheese", frozenset(), {}, tally)  # cut at spaces only: no hard cut
    assert tally["long_text_hard_cuts"] == 0


def test_uci_body_longer_than_one_parsing_block(tmp_path):
    """A UCI body of 200,001 entries is parsed in two blocks (200,000 lines, then 1): every entry read, and a bad entry
    in the second block named at its own line."""
    vocab = write_vocab(tmp_path / "vocab.txt", 2)
    body = "1 1 1\n" * 200_000
    (tmp_path / "d.txt").write_text("2\n2\n200001\n" + body + "2 2 5\n")
    assert read_uci_bow(tmp_path / "d.txt", vocab)[0].toarray().tolist() == [[200_000, 0], [0, 5]]
    (tmp_path / "bad.txt").write_text("2\n2\n200001\n" + body + "2 3 5\n")
    with pytest.raises(ReaderError, match=r"bad\.txt:200004: wordID 3 out of range"):
        read_uci_bow(tmp_path / "bad.txt", vocab)


def test_utf8_read_as_any_one_byte_code_page_is_refused_and_utf16_csv_and_jsonl_text_lists(tmp_path):
    """UTF-8 bytes read as any one-byte code page (each decodes any bytes, as mojibake) -> refused naming the fix; a
    UTF-16 CSV is read record by record; a JSON Lines text given as a list of strings is those strings joined."""
    from topicbench.readers import decode

    for encoding in ("latin-1", "iso8859-15", "cp1252", "mac-roman", "koi8-r", "cp437", "cp850"):
        with pytest.raises(ReaderError, match="the text is UTF-8"):
            decode("café\n".encode("utf-8"), "f.txt", encoding)
    (tmp_path / "t.csv").write_text("id,text\n1,apple\n2,bread\n", encoding="utf-16")
    assert read_csv_text(tmp_path / "t.csv", id_column="id", encoding="utf-16")["text"].tolist() == ["apple", "bread"]
    (tmp_path / "t.jsonl").write_text('{"text": ["apple", "bread"]}\n')
    assert read_jsonl(tmp_path / "t.jsonl")["text"].tolist() == ["apple bread"]
