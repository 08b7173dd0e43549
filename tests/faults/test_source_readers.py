"""Fault catalogue, source readers: counts that do not fit, empty corpora, damaged sources, recipe files.

Each case prepares from a damaged source and asserts exit 2, a message naming the source file (and line
where there is one), that no corpus appeared at --out, and that the source was left as it was.
"""
import ast
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

try:
    from ._prepare_util import digest, run_cli, run_subprocess, uci, uci_args
except ImportError:
    from _prepare_util import digest, run_cli, run_subprocess, uci, uci_args

BIG = 10**10  # wraps to 1,410,065,408 in int32


def prepare_fails(capsys, args, out, source):
    before = digest(source)
    code, err = run_cli(args, capsys)
    assert digest(source) == before, "prepare changed its own input"
    assert not out.exists() or not any(out.iterdir()), "a failed prepare left a corpus behind"
    return code, err


def bow_args(fmt, path, vocab, out):
    return ["prepare", "user_bow", "--out", out, "--param", f"format={fmt}", "--param", f"path={path}",
            "--param", f"vocab={vocab}"]


@pytest.mark.parametrize("rows, named", [
    pytest.param([(1, 1, 2), (1, 2, BIG), (2, 3, 1)], "docword.txt:5: count 10000000000 exceeds", id="uci-count-10e10"),
    pytest.param([(1, 1, 2), (1, 2, 10**20), (2, 3, 1)], "docword.txt:5", id="uci-count-beyond-int64"),
    pytest.param([(1, 1, 2**31 - 1), (1, 1, 2**31 - 1), (2, 3, 1)], "repeated", id="uci-repeated-pair-sums-over-int32"),
    pytest.param([(1, 1, 2), (1, 2, -3), (2, 3, 1)], "docword.txt:5", id="uci-negative-count"),
    pytest.param([(1, 1, 2), (1, 2, 2.5), (2, 3, 1)], "docword.txt:5", id="uci-fractional-count"),
    pytest.param([(1, 1, 2), (1, 4, 1), (2, 3, 1)], "docword.txt:5: wordID 4 out of range", id="uci-word-id-out-of-range"),
])
def test_uci_bad_counts_named(tmp_path, capsys, rows, named):
    """UCI counts over int32, beyond int64, negative, fractional or out of range -> exit 2 naming file:line, never a wrap."""
    docword, vocab = uci(tmp_path / "src", rows)
    code, err = prepare_fails(capsys, uci_args(docword, vocab, tmp_path / "out"), tmp_path / "out", tmp_path / "src")
    assert code == 2 and named in err


def test_uci_nnz_zero_is_an_empty_corpus(tmp_path, capsys):
    """A UCI file with NNZ = 0 -> exit 2 naming the docword file (not a zero-document corpus)."""
    docword, vocab = uci(tmp_path / "src", [], n_docs=5)
    code, err = prepare_fails(capsys, uci_args(docword, vocab, tmp_path / "out"), tmp_path / "out", tmp_path / "src")
    assert code == 2 and "docword.txt: no documents" in err


def test_empty_train_split(tmp_path, capsys):
    """A split that leaves no training document (test_fraction=0.9 of one document) -> exit 2 naming the source."""
    docword, vocab = uci(tmp_path / "src", [(1, 1, 2)])
    args = uci_args(docword, vocab, tmp_path / "out")
    args[args.index("test_fraction=0.2")] = "test_fraction=0.9"
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "src")
    assert code == 2 and "train split" in err and "docword.txt" in err


def test_ldac_count_over_int32(tmp_path, capsys):
    """An LDA-C count of 10^10 -> exit 2 naming file:line (no silent int32 wrap)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "c.ldac").write_text(f"2 0:1 1:2\n1 2:{BIG}\n")
    (tmp_path / "src" / "v.txt").write_text("a\nb\nc\n")
    code, err = prepare_fails(capsys, bow_args("ldac", tmp_path / "src/c.ldac", tmp_path / "src/v.txt", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "src")
    assert code == 2 and "c.ldac:2: count 10000000000 exceeds" in err


def _mm(tmp_path, entries, field="integer", shape=(2, 3)):
    (tmp_path / "src").mkdir()
    lines = [f"%%MatrixMarket matrix coordinate {field} general", f"{shape[0]} {shape[1]} {len(entries)}"]
    (tmp_path / "src" / "c.mtx").write_text("\n".join(lines + [f"{r} {c} {v}" for r, c, v in entries]) + "\n")
    (tmp_path / "src" / "v.txt").write_text("a\nb\nc\n")
    return bow_args("mm", tmp_path / "src/c.mtx", tmp_path / "src/v.txt", tmp_path / "out")


@pytest.mark.parametrize("entries, field, named", [
    pytest.param([(1, 1, 1), (2, 2, BIG)], "integer", "exceeds 2147483647", id="mm-count-10e10"),
    pytest.param([(1, 1, 1), (2, 2, 2.5)], "real", "non-negative integers", id="mm-fractional-count"),
    pytest.param([(1, 1, 1), (2, 2, -1)], "integer", "non-negative integers", id="mm-negative-count"),
    pytest.param([(1, 1, 0), (2, 2, 0)], "integer", "no documents", id="mm-all-rows-empty"),
    pytest.param([(0, 0, 1), (1, 2, 1)], "integer", "(Line 3: Row index out of bounds); Matrix Market counts rows and "
                 "columns from 1 up to the size line's (a 0-based file?)", id="mm-zero-based-indices"),
])
def test_matrix_market_bad_counts(tmp_path, capsys, entries, field, named):
    """Matrix Market counts over int32, fractional, negative, or all zero -> exit 2 naming the .mtx file.

    (Indices from 0: was scipy's 'Row index out of bounds' alone, the cause unsaid.)"""
    args = _mm(tmp_path, entries, field)
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "src")
    assert code == 2 and "c.mtx" in err and named in err


@pytest.mark.parametrize("compress, suffix", [
    pytest.param(gzip.compress, ".gz", id="gzip-truncated-source"),
    pytest.param(lzma.compress, ".xz", id="xz-truncated-source"),
])
def test_truncated_compressed_source(tmp_path, capsys, compress, suffix):
    """A truncated .gz / .xz JSONL source -> exit 2 naming the file (no EOFError traceback)."""
    (tmp_path / "src").mkdir()
    body = "".join(json.dumps({"text": f"apple bread cheese doc{i % 4}"}) + "\n" for i in range(400)).encode()
    path = tmp_path / "src" / f"docs.jsonl{suffix}"
    path.write_bytes(compress(body)[:-40])
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=jsonl", "--param", f"path={path}",
            "--param", "min_df=1"]
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "src")
    assert code == 2 and f"docs.jsonl{suffix}" in err and "truncated or corrupt" in err


def test_source_is_a_folder(tmp_path, capsys):
    """path= names a folder where a counts file is expected (an unreadable source) -> exit 2 naming it."""
    docword, vocab = uci(tmp_path / "src", [(1, 1, 1)])
    (tmp_path / "src" / "dir.txt").mkdir()
    code, err = prepare_fails(capsys, uci_args(tmp_path / "src" / "dir.txt", vocab, tmp_path / "out"), tmp_path / "out",
                              tmp_path / "src")
    assert code == 2 and "dir.txt: not a file" in err


def test_all_documents_empty_after_pruning(tmp_path, capsys):
    """Raw text where no word survives the vocabulary pruning -> exit 2 naming the source (no empty corpus)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "t.csv").write_text("text\n" + "".join(f"unique{chr(97 + i)}\n" for i in range(5)))
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=csv",
            "--param", f"path={tmp_path / 'src/t.csv'}"]
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "src")
    assert code == 2 and "t.csv" in err and "min_df" in err


@pytest.mark.parametrize("param, named", [
    pytest.param("encoding=klingon", "unknown text encoding 'klingon'", id="user-text-unknown-encoding"),
    pytest.param("encoding=rot13", "'rot13' is not a character encoding of text files", id="user-text-encoding-rot13"),
    pytest.param("encoding=base64", "'base64' is not a character encoding of text files", id="user-text-encoding-base64"),
    pytest.param("encoding=punycode", "'punycode' is not a character encoding of text files",
                 id="user-text-encoding-punycode"),
    pytest.param("sep=;;", "bad separator", id="user-text-two-char-separator"),
    pytest.param("text_column=body", "missing column(s) ['body']", id="user-text-missing-text-column"),
])
def test_user_text_bad_reader_setting(tmp_path, capsys, param, named):
    """A reader setting the CSV cannot be read with (encoding, separator, column) -> exit 2 naming the file.

    (rot13 and base64 are codecs, not text encodings: was 'user_text.py: dataset user_text.build raised LookupError',
    blaming the recipe; punycode: 'decoding with punycode codec failed', naming no file.)"""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "t.csv").write_text("text\n" + "apple bread\n" * 4)
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=csv",
            "--param", f"path={tmp_path / 'src/t.csv'}", "--param", param]
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "src")
    assert code == 2 and "t.csv" in err and named in err


def test_download_manifest_of_the_wrong_shape(tmp_path):
    """The download cache's manifest.json holding a JSON list -> DownloadError naming manifest.json (no AttributeError)."""
    from topicbench.download import DownloadError, fetch_uci_bow

    (tmp_path / "manifest.json").write_text("[]")
    with pytest.raises(DownloadError, match="manifest.json: expected a JSON object"):
        fetch_uci_bow("kos", cache=tmp_path, base_url="http://127.0.0.1:9/")
    assert (tmp_path / "manifest.json").read_text() == "[]"


def test_ldac_only_empty_documents(tmp_path, capsys):
    """An LDA-C file whose every document is empty ('0') -> exit 2 naming the file."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "c.ldac").write_text("0\n0\n")
    (tmp_path / "src" / "v.txt").write_text("a\n")
    code, err = prepare_fails(capsys, bow_args("ldac", tmp_path / "src/c.ldac", tmp_path / "src/v.txt", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "src")
    assert code == 2 and "c.ldac: no documents" in err


def test_source_vocabulary_with_duplicates(tmp_path, capsys):
    """A source vocabulary with a word twice -> exit 2 naming vocab file:line and the first occurrence."""
    docword, vocab = uci(tmp_path / "src", [(1, 1, 1)], vocab=("apple", "bread", "apple"))
    code, err = prepare_fails(capsys, uci_args(docword, vocab, tmp_path / "out"), tmp_path / "out", tmp_path / "src")
    assert code == 2 and "vocab.txt:3: duplicate word 'apple'" in err


# --- recipe readers of the shared corpora, on tiny stand-ins in a fake corpora_dir --------------


def cora(root, n_titles=3):
    src = root / "cora_rlda"
    src.mkdir(parents=True)
    with gzip.open(src / "cora.ldac.gz", "wt") as handle:
        handle.write("2 0:1 1:1\n1 2:3\n2 0:2 2:1\n")
    (src / "vocab.txt").write_text("a\nb\nc\n")
    (src / "titles.txt").write_text("".join(f"title {i}\n" for i in range(n_titles)))
    return src


def test_cora_short_titles(tmp_path, capsys):
    """cora_rlda with a titles.txt shorter than the documents -> exit 2 naming titles.txt (not an IndexError)."""
    src = cora(tmp_path / "corpora", n_titles=2)
    code, err = prepare_fails(capsys, ["prepare", "cora_rlda", "--out", tmp_path / "out", "--corpora-dir",
                                       tmp_path / "corpora"], tmp_path / "out", src)
    assert code == 2 and "titles.txt: 2 titles but" in err


def nyt(root):
    src = root / "nyt_topmost"
    src.mkdir(parents=True)
    (src / "vocab.txt").write_text("a\nb\nc\n")
    (src / "time2id.txt").write_text(json.dumps({"2012": 0, "2013": 1}))
    (src / "label2id.txt").write_text(repr({"arts": 0, "sports": 1}))
    for split, n in (("train", 3), ("test", 1)):
        sp.save_npz(src / f"{split}_bow.npz", sp.csr_matrix(np.ones((n, 3), dtype=np.int64)))
        (src / f"{split}_idx.txt").write_text("".join(f"{i}\n" for i in range(n)))
        (src / f"{split}_times.txt").write_text("".join(f"{i % 2}\n" for i in range(n)))
        (src / f"{split}_labels.txt").write_text("".join(f"{i % 2}\n" for i in range(n)))
    return src


def _truncate(path, keep=80):
    path.write_bytes(path.read_bytes()[:keep])


@pytest.mark.parametrize("damage, named", [
    pytest.param(lambda s: _truncate(s / "train_bow.npz"), "train_bow.npz", id="nyt-topmost-truncated-train-bow"),
    pytest.param(lambda s: (s / "test_times.txt").write_text("7\n"), "test_times.txt:1", id="nyt-topmost-unknown-time-id"),
    pytest.param(lambda s: (s / "train_labels.txt").write_text("0\nx\n1\n"), "train_labels.txt:2",
                 id="nyt-topmost-label-not-integer"),
    pytest.param(lambda s: (s / "time2id.txt").write_text("[2012, 2013]"), "time2id.txt", id="nyt-topmost-time2id-a-list"),
    pytest.param(lambda s: (s / "label2id.txt").write_text("{'arts': 0,"), "label2id.txt", id="nyt-topmost-label2id-truncated"),
    pytest.param(lambda s: (s / "test_idx.txt").write_text("0\n1\n"), "test_idx.txt", id="nyt-topmost-files-disagree"),
    pytest.param(lambda s: sp.save_npz(s / "test_bow.npz", sp.csr_matrix(np.ones((1, 5)))), "test_bow.npz",
                 id="nyt-topmost-bow-wrong-width"),
])
def test_nyt_topmost_damaged_file_named(tmp_path, capsys, damage, named):
    """A damaged file of the shared nyt_topmost corpus -> exit 2 naming that file (no traceback), nothing written."""
    src = nyt(tmp_path / "corpora")
    damage(src)
    code, err = prepare_fails(capsys, ["prepare", "nyt_topmost", "--out", tmp_path / "out", "--corpora-dir",
                                       tmp_path / "corpora"], tmp_path / "out", src)
    assert code == 2 and named in err


def test_nyt_topmost_stand_in_prepares(tmp_path, capsys):
    """An undamaged nyt_topmost stand-in -> prepares (so the cases above fail for their damage, not the stand-in)."""
    nyt(tmp_path / "corpora")
    code, _ = run_cli(["prepare", "nyt_topmost", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora"], capsys)
    assert code == 0
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert (meta["n_docs"], meta["n_train"]) == (4, 3)
    assert ast.literal_eval((tmp_path / "corpora/nyt_topmost/label2id.txt").read_text()) == {"arts": 0, "sports": 1}


@pytest.mark.parametrize("kind", [
    pytest.param("vocab", id="bom-vocabulary"),
    pytest.param("jsonl", id="bom-jsonl"),
    pytest.param("csv", id="bom-csv-header"),
])
def test_utf8_bom_is_not_text(tmp_path, capsys, kind):
    """A UTF-8 source starting with a byte-order mark (Windows) -> prepared as if without it: no BOM in a word or header."""
    src = tmp_path / "src"
    src.mkdir()
    words = ["apple", "bread", "cheese", "dates"]
    texts = [" ".join(words[(i + j) % 4] for j in range(6)) for i in range(12)]
    if kind == "vocab":
        rows = [(d, w, 1 + (d + w) % 3) for d in range(1, 13) for w in range(1, 5)]
        docword, vocab = uci(src, rows, n_words=4, vocab=words)
        vocab.write_text("\ufeff" + "".join(f"{w}\n" for w in words), encoding="utf-8")
        args = bow_args("uci", docword, vocab, tmp_path / "out")
    else:
        body = ("\n".join(json.dumps({"text": t}) for t in texts) if kind == "jsonl" else "text\n" + "\n".join(texts))
        (src / f"t.{kind}").write_text("\ufeff" + body + "\n", encoding="utf-8")
        args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", f"format={kind}",
                "--param", f"path={src / f't.{kind}'}", "--param", "max_df=1.0", "--param", "min_df=1"]
    before = digest(src)
    code, err = run_cli(args, capsys)
    assert code == 0, err
    assert "\ufeff" not in (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8")
    assert sorted((tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8").split()) == sorted(words)
    assert digest(src) == before


def test_nyt_topmost_empty_document_is_dropped_and_counted(tmp_path, capsys):
    """An nyt_topmost release with an empty document row -> prepared without it, counted in dropped_empty (was refused
    naming the output folder, not the source)."""
    src = nyt(tmp_path / "corpora")
    sp.save_npz(src / "train_bow.npz", sp.csr_matrix(np.array([[1, 1, 1], [0, 0, 0], [2, 0, 1]], dtype=np.int64)))
    code, err = run_cli(["prepare", "nyt_topmost", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert (meta["n_docs"], meta["n_train"], meta["preprocessing"]["dropped_empty"]) == (3, 2, 1)
    assert "train-1" not in pd.read_parquet(tmp_path / "out" / "docs.parquet")["doc_id"].tolist()


@pytest.mark.parametrize("recipe", [pytest.param("wiki_bnpy", id="wiki-bnpy-empty-document"),
                                    pytest.param("cora_rlda", id="cora-rlda-empty-document")])
def test_named_ldac_recipe_counts_empty_documents(tmp_path, capsys, recipe):
    """A release of an LDA-C recipe with an empty document ('0') -> dropped and counted in dropped_empty (was recorded 0)."""
    src = cora(tmp_path / "corpora", n_titles=4) if recipe == "cora_rlda" else tmp_path / "corpora" / recipe
    src.mkdir(parents=True, exist_ok=True)
    name = "cora.ldac.gz" if recipe == "cora_rlda" else "train.ldac.gz"
    with gzip.open(src / name, "wt") as handle:
        handle.write("2 0:1 1:1\n0\n1 2:3\n2 0:2 2:1\n")
    (src / "vocab.txt").write_text("a\nb\nc\n")
    code, err = run_cli(["prepare", recipe, "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         "--param", "test_fraction=0.3"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert (meta["n_docs"], meta["preprocessing"]["dropped_empty"]) == (3, 1)


def test_decompressed_copy_of_a_compressed_source_named(tmp_path, capsys):
    """A recipe's .gz source replaced by its decompressed copy -> exit 2 naming the missing file and the copy beside it."""
    src = tmp_path / "corpora" / "wiki_bnpy"
    src.mkdir(parents=True)
    (src / "train.ldac").write_text("2 0:1 1:1\n1 2:3\n")
    (src / "vocab.txt").write_text("a\nb\nc\n")
    code, err = prepare_fails(capsys, ["prepare", "wiki_bnpy", "--out", tmp_path / "out", "--corpora-dir",
                                       tmp_path / "corpora"], tmp_path / "out", src)
    assert code == 2 and "train.ldac.gz: file does not exist (train.ldac is beside it" in err


@pytest.mark.parametrize("fmt, body, named", [
    pytest.param("csv", 'id,text,t\n1,"apple, bread\nand cheese",2001-01-01\n2,bread cheese,soon\n', "t.csv:4",
                 id="user-text-csv-bad-time-after-multiline-field"),
    pytest.param("jsonl", '{"text": "apple bread", "t": "2001-01-01"}\n\n{"text": "bread", "t": ""}\n', "t.jsonl:3",
                 id="user-text-jsonl-missing-time"),
])
def test_user_text_bad_time_names_line(tmp_path, capsys, fmt, body, named):
    """A time value that does not parse (after a quoted field spanning lines, or blank) -> exit 2 naming file:line."""
    (tmp_path / f"t.{fmt}").write_text(body)
    code, err = prepare_fails(capsys, ["prepare", "user_text", "--out", tmp_path / "out", "--param", f"format={fmt}",
                                       "--param", f"path={tmp_path / f't.{fmt}'}", "--param", "time_column=t"],
                              tmp_path / "out", tmp_path / f"t.{fmt}")
    assert code == 2 and f"{named}: cannot parse time" in err


def test_nber_titles_blank_month_names_line(tmp_path, capsys):
    """An nber_titles release with a blank month -> exit 2 naming file:line and the paper (not a bare int() error)."""
    src = tmp_path / "corpora" / "nber_titles"
    src.mkdir(parents=True)
    with gzip.open(src / "nber_papers.csv.gz", "wt") as handle:
        handle.write('paper,year,month,title\nw1,1990,3,"Trade, growth\nand money"\nw2,1991,,Banks and money\n')
    code, err = prepare_fails(capsys, ["prepare", "nber_titles", "--out", tmp_path / "out", "--corpora-dir",
                                       tmp_path / "corpora"], tmp_path / "out", src)
    assert code == 2 and "nber_papers.csv.gz:4: paper w2: month '' is not an integer" in err


def test_20news_file_outside_the_group_folders_is_counted(tmp_path, capsys):
    """A 20news_bydate release with a file outside <split>/<group>/ (a README, a nested folder) -> not read as a message,
    and counted with its name in corpus.json (was skipped silently)."""
    import io
    import tarfile

    src = tmp_path / "corpora" / "20news_bydate"
    src.mkdir(parents=True)
    files = {f"20news-bydate-{split}/{group}/{i}": f"Subject: {group} post\n\napple bread cheese {group} {i}\n"
             for split in ("train", "test") for group in ("sci.space", "rec.autos") for i in range(3)}
    files["20news-bydate-train/README"] = "about this archive\n"
    files["20news-bydate-train/sci.space/old/9"] = "Subject: x\n\nnested apple\n"
    with tarfile.open(src / "20news-bydate.tar.xz", "w:xz") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    code, err = run_cli(["prepare", "20news_bydate", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         "--param", "min_df=1", "--param", "max_df=1.0"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert meta["n_docs"] == 12
    assert meta["preprocessing"]["archive_files_skipped"] == {
        "count": 2, "first": ["20news-bydate-train/README", "20news-bydate-train/sci.space/old/9"]}


@pytest.mark.parametrize("fmt, body, named", [
    pytest.param("jsonl", '{"id": 1, "text": "apple bread"}\n{"id": 2, "text": "bread"}\n{"id": 1, "text": "cheese"}\n',
                 "t.jsonl:3: duplicate id '1' (first on line 1)", id="user-text-jsonl-duplicate-id"),
    pytest.param("csv", 'id,text\n7,"apple,\nbread"\n8,bread\n7,cheese\n', "t.csv:5: duplicate id '7' (first on line 2)",
                 id="user-text-csv-duplicate-id"),
    pytest.param("jsonl", '{"text": "apple bread"}\n{"text": {"body": "bread"}}\n', "t.jsonl:2: field 'text' is a JSON dict",
                 id="user-text-jsonl-text-an-object"),
    pytest.param("jsonl", '{"text": "apple bread"}\n{"text": "bre\\u0000ad cheese"}\n',
                 "t.jsonl:2: field 'text' holds a NUL character", id="user-text-jsonl-escaped-nul-in-text"),
    pytest.param("jsonl", '{"id": "a\\u0000", "text": "apple bread"}\n{"id": "b", "text": "bread"}\n',
                 "t.jsonl:1: field 'id' holds a NUL character", id="user-text-jsonl-escaped-nul-in-id"),
])
def test_user_text_bad_ids_and_fields_name_line(tmp_path, capsys, fmt, body, named):
    """A repeated id_column value, a text field holding a JSON object, or a JSON-escaped NUL (\\u0000) -> exit 2 naming
    file:line (was the prepared docs.parquet, the object's repr read as text, or the NUL read as a word break, where
    a raw NUL byte is refused as binary data)."""
    (tmp_path / f"t.{fmt}").write_text(body)
    extra = ["--param", "id_column=id"] if "duplicate" in named or "'id'" in named else []
    code, err = prepare_fails(capsys, ["prepare", "user_text", "--out", tmp_path / "out", "--param", f"format={fmt}",
                                       "--param", f"path={tmp_path / f't.{fmt}'}", *extra], tmp_path / "out",
                              tmp_path / f"t.{fmt}")
    assert code == 2 and named in err, err


def _text_source(tmp_path, damage):
    """A five-document JSONL / CSV / folder source with one damage; returns (format, path, extra params)."""
    import os
    import zipfile

    texts = ["apple bread cheese", "bread cheese dates", "cheese dates apple", "dates apple bread", "apple cheese bread"]
    jsonl = "".join(json.dumps({"id": i, "text": t, "t": 1600000000 + i}) + "\n" for i, t in enumerate(texts)).encode()
    csv = ("id,text\n" + "".join(f"{i},{t}\n" for i, t in enumerate(texts))).encode()
    src = tmp_path / "src"
    src.mkdir()
    if damage in ("gzip-named-plain", "zip-as-jsonl", "zstd-as-jsonl", "utf16-read-as-utf8"):
        data = {"gzip-named-plain": gzip.compress(jsonl), "utf16-read-as-utf8": jsonl.decode().encode("utf-16"),
                "zstd-as-jsonl": b"\x28\xb5\x2f\xfd\x24\x05\x29\x00\x00"}.get(damage)  # a zstd frame header
        if data is None:
            with zipfile.ZipFile(src / "t.jsonl", "w") as archive:
                archive.writestr("t.jsonl", jsonl)
        else:
            (src / "t.jsonl").write_bytes(data)
        return "jsonl", src / "t.jsonl", []
    if damage.startswith("bare-cr"):
        name = "t.csv" if damage.endswith("csv") else "t.jsonl"
        (src / name).write_bytes((csv if name == "t.csv" else jsonl).replace(b"\n", b"\r"))
        return name.split(".")[1], src / name, []
    if damage.startswith("json-array"):
        records = [{"text": t} for t in texts]
        (src / "t.jsonl").write_text(json.dumps(records, indent=1 if damage.endswith("pretty") else None))
        return "jsonl", src / "t.jsonl", []
    if damage == "nul-in-csv":
        (src / "t.csv").write_bytes(csv.replace(b"dates apple", b"da\x00tes apple"))
        return "csv", src / "t.csv", []
    if damage == "lone-surrogate":
        (src / "t.jsonl").write_bytes(jsonl.replace(b"dates apple", b"dates \\ud83d apple"))
        return "jsonl", src / "t.jsonl", []
    if damage in ("text-a-number", "text-true"):
        lines = jsonl.decode().splitlines()
        lines[3] = json.dumps({"id": 3, "text": 1234 if damage == "text-a-number" else True})
        (src / "t.jsonl").write_text("\n".join(lines) + "\n")
        return "jsonl", src / "t.jsonl", []
    if damage == "unix-time-as-iso":
        (src / "t.jsonl").write_bytes(jsonl)
        return "jsonl", src / "t.jsonl", ["--param", "time_column=t"]
    if damage == "csv-column-twice":
        (src / "t.csv").write_bytes(csv.replace(b"id,text\n", b"text,text\n"))
        return "csv", src / "t.csv", []
    if damage == "csv-blank-id":
        (src / "t.csv").write_bytes(csv.replace(b"\n2,", b"\n ,"))
        return "csv", src / "t.csv", ["--param", "id_column=id"]
    for i, t in enumerate(texts):
        (src / f"d{i}.txt").write_text(t)
    if damage == "name-not-utf8":
        (Path(os.fsdecode(os.fsencode(src) + b"/caf\xe9.txt"))).write_text("apple")
    elif damage == "broken-symlink":
        os.symlink(src / "gone.txt", src / "d9.txt")
    else:  # a symbolic link to itself
        os.symlink(src / "d8.txt", src / "d8.txt")
    return "files", src, []


@pytest.mark.parametrize("damage, named", [
    pytest.param("gzip-named-plain", "t.jsonl: the file is gzip-compressed, but its name does not end in .gz",
                 id="gzip-file-without-gz-suffix"),
    pytest.param("zip-as-jsonl", "t.jsonl: the file is a zip archive, which is not opened", id="zip-archive-as-text"),
    pytest.param("zstd-as-jsonl", "t.jsonl: the file is zstd-compressed, which is not opened (only .gz, .bz2 and .xz",
                 id="zstd-file-as-text"),
    pytest.param("utf16-read-as-utf8", "t.jsonl:1: not valid utf-8 text (invalid start byte at byte 0); the file starts "
                 "with a UTF-16 byte-order mark: pass encoding=utf-16", id="utf16-file-read-as-utf8"),
    pytest.param("nul-in-csv", "t.csv:4: NUL character", id="nul-byte-in-text"),
    pytest.param("json-array", "t.jsonl:1: expected a JSON object; the file is a JSON array, and format=jsonl reads JSON "
                 "Lines", id="jsonl-a-json-array"),
    pytest.param("json-array-pretty", "t.jsonl:1: not valid JSON (Expecting value); the file is a JSON array",
                 id="jsonl-a-pretty-printed-json-array"),
    pytest.param("bare-cr-jsonl", "t.jsonl:1: not valid JSON (Extra data); its lines end in a bare CR", id="jsonl-bare-cr-lines"),
    pytest.param("bare-cr-csv", "t.csv: no line feed in the file; its lines end in a bare CR", id="csv-bare-cr-lines"),
    pytest.param("lone-surrogate", "t.jsonl:3: field 'text' holds '\\ud83d', which has no UTF-8 form: half of a UTF-16 "
                 "pair escaped alone", id="jsonl-lone-surrogate-escape"),
    pytest.param("name-not-utf8", "caf\\udce9.txt': the file name holds '\\udce9', which has no UTF-8 form",
                 id="files-name-in-latin1"),
    pytest.param("text-a-number", "t.jsonl:4: field 'text' is a JSON int (1234)", id="jsonl-text-a-number"),
    pytest.param("text-true", "t.jsonl:4: field 'text' is a JSON bool (true)", id="jsonl-text-a-boolean"),
    pytest.param("unix-time-as-iso", "t.jsonl:1: cannot parse time '1600000000' as ISO 8601 (5 unparseable); for Unix "
                 "times pass time_format=unix_s", id="unix-times-without-time-format"),
    pytest.param("csv-column-twice", "t.csv:1: column 'text' appears 2 times in the header", id="csv-text-column-twice"),
    pytest.param("csv-blank-id", "t.csv:4: blank id", id="csv-blank-id"),
    pytest.param("broken-symlink", "d9.txt: not a readable file (a broken or looping symbolic link)",
                 id="files-broken-symlink"),
    pytest.param("symlink-loop", "d8.txt: not a readable file (a broken or looping symbolic link)", id="files-symlink-loop"),
])
def test_unseen_text_source_damage_named(tmp_path, capsys, damage, named):
    """An unseen text source with damage of the case's id -> exit 2 naming file(:line) and the fix, before compute.

    Damage: a compressed file (gzip, zstd) or an archive under a plain name; UTF-16 read as UTF-8; a NUL byte; lines
    ending in a bare CR; a JSON array, not JSON Lines; a lone surrogate escape or a latin-1 file name; a number or
    true as a document's text; Unix times read as ISO dates; a column twice; a blank id; a broken or looping symbolic
    link in a folder. Was: 'not valid utf-8 at byte 1', a header holding the whole file, pyarrow's 'surrogates not
    allowed' naming nothing, a word split at the NUL, 'true' or '1234' as a document, the first of two columns
    taken, a blank id prepared, or the linked document silently missing."""
    fmt, path, extra = _text_source(tmp_path, damage)
    code, err = prepare_fails(capsys, ["prepare", "user_text", "--out", tmp_path / "out", "--param", f"format={fmt}",
                                       "--param", f"path={path}", "--param", "min_df=1", *extra], tmp_path / "out", path)
    assert code == 2 and named in err, err


def test_glob_pattern_param_needs_yaml_quotes(tmp_path, capsys):
    """--param pattern=*.txt (a YAML alias, not a string) -> exit 2 naming the value and how to quote it; the quoted
    form it suggests reads only the .txt files (was a bare YAML error, with no way shown to pass a glob)."""
    src = tmp_path / "src"
    src.mkdir()
    for i, text in enumerate(["apple bread", "bread cheese", "cheese apple", "apple bread cheese"]):
        (src / f"d{i}.txt").write_text(text)
    (src / "notes.md").write_text("zebra zebra")
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=files", "--param", f"path={src}",
            "--param", "min_df=1", "--param", "max_df=1.0", "--param", "test_fraction=0.25"]
    code, err = prepare_fails(capsys, [*args, "--param", "pattern=*.txt"], tmp_path / "out", src)
    assert code == 2 and "--param pattern: cannot read the value '*.txt'" in err and "'pattern=\"*.txt\"'" in err, err
    code, err = run_cli([*args, "--param", 'pattern="*.txt"'], capsys)
    assert code == 0 and "zebra" not in (tmp_path / "out" / "vocab.txt").read_text(), err


@pytest.mark.parametrize("symmetry", ["symmetric", "skew-symmetric", "hermitian"])
def test_matrix_market_symmetric_header(tmp_path, capsys, symmetry):
    """A Matrix Market file whose header says symmetric / skew-symmetric / hermitian -> exit 2 naming file:1 (was:
    every off-diagonal entry mirrored by scipy, counts the file never wrote, or a negative-count error)."""
    (tmp_path / "vocab.txt").write_text("apple\nbread\ncheese\n")
    field = "complex" if symmetry == "hermitian" else "integer"
    values = " 0" if symmetry == "hermitian" else ""
    (tmp_path / "c.mtx").write_text(f"%%MatrixMarket matrix coordinate {field} {symmetry}\n3 3 2\n2 1 1{values}\n3 2 4{values}\n")
    code, err = prepare_fails(capsys, bow_args("mm", tmp_path / "c.mtx", tmp_path / "vocab.txt", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "c.mtx")
    assert code == 2 and f"c.mtx:1: header says '{symmetry}', but a documents x words count matrix is not" in err, err


def test_user_corpus_too_small_for_a_test_split(tmp_path, capsys):
    """A 3-document user corpus whose test_fraction=0.1 rounds to no test document -> prepared (split recorded), and a
    run exits 2 before compute naming the corpus, its size, its split rule and the fix (was: 'corpus user_text has none')."""
    (tmp_path / "t.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in
                                              ["apple bread cheese", "bread cheese dates", "cheese dates apple"]))
    code, err = run_cli(["prepare", "user_text", "--out", tmp_path / "c", "--param", "format=jsonl", "--param",
                         f"path={tmp_path / 't.jsonl'}", "--param", "min_df=1", "--param", "max_df=1.0"], capsys)
    assert code == 0, err
    code, err = run_cli(["run", "--corpus", tmp_path / "c", "--out", tmp_path / "run", "--method", "online_lda",
                         "--param", "K=2", "--set", "topic_history_words=3"], capsys)
    assert code == 2 and "corpus user_text (3 documents, split: seeded random: 10% test, seed 0) has none: prepare it " \
                         "with a test_fraction that leaves a test document" in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("header, entry, named", [
    pytest.param("integer", "2 3 2.5", "c.mtx:4: expected 'row column count' (the header says coordinate integer), got "
                                       "'2 3 2.5'", id="mm-integer-file-with-2.5"),
    pytest.param("integer", "2 3 1e3", "c.mtx:4: expected 'row column count'", id="mm-integer-file-with-1e3"),
    pytest.param("real", "2 3 4abc", "c.mtx:4: expected 'row column count' (the header says coordinate real)",
                 id="mm-real-file-with-4abc"),
    pytest.param("integer", "2 3 4 7", "c.mtx:4: expected 'row column count'", id="mm-surplus-column"),
    pytest.param("pattern", "2 3 4", "c.mtx:4: expected 'row column' (the header says coordinate pattern)",
                 id="mm-pattern-file-with-counts"),
])
def test_matrix_market_number_read_in_part_named(tmp_path, capsys, header, entry, named):
    """A Matrix Market entry not of its header's numbers (2.5 in an integer file, 4abc) -> exit 2 naming file:line
    (was: scipy read 2.5 as 2, 1e3 as 1 and 4abc as 4, and dropped a surplus column's 7, silently)."""
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    first = "1 1" if header == "pattern" else "1 1 2"
    (tmp_path / "c.mtx").write_text(f"%%MatrixMarket matrix coordinate {header} general\n2 3 2\n{first}\n{entry}\n")
    code, err = prepare_fails(capsys, bow_args("mm", tmp_path / "c.mtx", tmp_path / "v.txt", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "c.mtx")
    assert code == 2 and named in err, err


def test_matrix_market_last_line_without_line_feed_read(tmp_path):
    """A Matrix Market file whose last line ends in a space, a tab or a CR, with no line feed after it -> read as with
    one (was: scipy's reader died of a segmentation fault). In a child process, so a crash fails only this case."""
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    for n, end in enumerate((" ", "\t", "\r")):
        (tmp_path / f"c{n}.mtx").write_text(f"%%MatrixMarket matrix coordinate integer general\n2 3 2\n1 1 2\n2 3 4{end}")
    script = ("import sys; from topicbench.readers import read_matrix_market as r; "
              "[print(r(f'{sys.argv[1]}/c{n}.mtx', f'{sys.argv[1]}/v.txt')[0].toarray().tolist()) for n in range(3)]")
    proc = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert proc.returncode == 0 and proc.stdout.splitlines() == ["[[2, 0, 0], [0, 0, 4]]"] * 3, (proc.returncode,
                                                                                                  proc.stderr[-300:])


def test_matrix_market_vector_header_named(tmp_path):
    """A Matrix Market file whose header says 'vector' -> exit 2 naming file:1 (was: scipy's error printed, then the
    process aborted (exit 134) as its reader, freed after the file had closed, seeked it). In a child process."""
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    (tmp_path / "c.mtx").write_text("%%MatrixMarket vector coordinate integer general\n3 2\n1 1\n3 4\n")
    code, err = run_subprocess(bow_args("mm", tmp_path / "c.mtx", tmp_path / "v.txt", tmp_path / "out"))
    assert code == 2 and "c.mtx:1: header says 'vector', but a documents x words count matrix is a 'matrix'" in err, \
        (code, err[-300:])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("damage, named", [
    pytest.param("decompressed", "docword.kos.txt.gz: file does not exist (docword.kos.txt is beside it",
                 id="uci-bow-docword-decompressed-beside-a-filled-cache"),
    pytest.param("folder", "docword.kos.txt.gz: not a file", id="uci-bow-folder-for-the-docword-file"),
    pytest.param("broken-link", "docword.kos.txt.gz: a broken or looping symbolic link", id="uci-bow-docword-broken-link"),
    pytest.param("no-vocab", "vocab.kos.txt: file does not exist", id="uci-bow-vocabulary-missing"),
])
def test_uci_bow_partial_corpora_dir_folder_named(tmp_path, capsys, monkeypatch, damage, named):
    """corpora_dir/uci_bow/ with a collection's file missing, a folder, a broken link or decompressed -> exit 2 naming it
    (was: the folder passed over for the download cache's copy: prepared from files the user never chose)."""
    body = "3\n3\n3\n1 1 2\n2 2 1\n3 3 4\n"
    monkeypatch.setenv("TOPICBENCH_CACHE", str(tmp_path / "cache"))
    for folder in (tmp_path / "cache" / "uci_bow", tmp_path / "corpora" / "uci_bow"):  # a download in the cache
        folder.mkdir(parents=True)
        (folder / "vocab.kos.txt").write_text("apple\nbread\ncheese\n")
    (tmp_path / "cache" / "uci_bow" / "docword.kos.txt.gz").write_bytes(gzip.compress(body.encode()))
    if damage == "decompressed":
        (folder / "docword.kos.txt").write_text(body)
    elif damage == "folder":
        (folder / "docword.kos.txt.gz").mkdir()
    elif damage == "broken-link":
        (folder / "docword.kos.txt.gz").symlink_to(tmp_path / "nowhere")
    else:
        (folder / "vocab.kos.txt").unlink()
        (folder / "docword.kos.txt.gz").write_bytes(gzip.compress(body.encode()))
    code, err = prepare_fails(capsys, ["prepare", "uci_bow", "--out", tmp_path / "out", "--corpora-dir",
                                       tmp_path / "corpora", "--param", "test_fraction=0.34"], tmp_path / "out", folder)
    assert code == 2 and f"{folder}/{named}" in err and "needs both docword.kos.txt.gz and vocab.kos.txt" in err, err


@pytest.mark.parametrize("fmt, body, named", [
    pytest.param("uci", "2\r3\r2\r1 1 2\r2 3 1\r", "c.txt:1: bad UCI header", id="uci-docword-bare-cr-lines"),
    pytest.param("ldac", "2 0:1 1:2\r1 2:1\r", "c.txt:1: expected 'N id:count ...'", id="ldac-bare-cr-lines"),
    pytest.param("uci-vocab", "apple\rbread\rcheese\r", "v.txt:1: a CR inside the word 'apple\\rbread\\rcheese'",
                 id="uci-vocabulary-bare-cr-lines"),
    pytest.param("uci-vocab", "\ufeffapple\nbread\n\ufeffcheese\n", "v.txt:3: a byte-order mark (U+FEFF) inside the word",
                 id="uci-vocabulary-files-joined-with-their-byte-order-marks"),
])
def test_bag_of_words_bare_cr_lines_or_joined_files_named(tmp_path, capsys, fmt, body, named):
    """A UCI or LDA-C file, or its vocabulary, whose lines end in a bare CR (classic Mac OS) -> exit 2 naming file:1
    and the line ends (was: 'bad UCI header' or 'W=3 but the vocabulary has 1 words', the cause unsaid); a vocabulary
    joined from files with byte-order marks -> exit 2 naming the line (was: '<BOM>cheese', a column apart from cheese)."""
    (tmp_path / "c.txt").write_text("2\n3\n2\n1 1 2\n2 3 1\n" if fmt == "uci-vocab" else body, newline="")
    (tmp_path / "v.txt").write_text(body if fmt == "uci-vocab" else "apple\nbread\ncheese\n", newline="")
    code, err = prepare_fails(capsys, bow_args("ldac" if fmt == "ldac" else "uci", tmp_path / "c.txt", tmp_path / "v.txt",
                                               tmp_path / "out"), tmp_path / "out", tmp_path / "c.txt")
    assert code == 2 and named in err and ("its lines end in a bare CR" in err or "U+FEFF" in err), err


@pytest.mark.parametrize("fmt, body", [
    pytest.param("uci", "4\n3\n3\n1 1 2\n2 2 1\n4 3 4\n", id="uci-docids-1-2-4"),
    pytest.param("mm", "%%MatrixMarket matrix coordinate integer general\n4 3 3\n1 1 2\n2 2 1\n4 3 4\n", id="mm-rows-1-2-4"),
    pytest.param("ldac", "1 0:2\n1 1:1\n0\n1 2:4\n", id="ldac-lines-1-2-4"),
])
def test_user_bow_document_ids_are_the_files_own_numbers(tmp_path, capsys, fmt, body):
    """A user_bow file whose documents 1, 2 and 4 hold counts (3 is empty) -> doc ids doc1, doc2, doc4: the file's own
    numbers (was: doc0, doc1, doc3, so 'doc3' named the file's document 4, an off-by-one against every UCI docID)."""
    (tmp_path / "c.txt").write_text(body)
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    code, err = run_cli([*bow_args(fmt, tmp_path / "c.txt", tmp_path / "v.txt", tmp_path / "out"), "--param",
                         "test_fraction=0"], capsys)
    assert code == 0, err
    docs = pd.read_parquet(tmp_path / "out" / "docs.parquet")
    assert docs["doc_id"].tolist() == ["doc1", "doc2", "doc4"]
    assert json.loads((tmp_path / "out" / "corpus.json").read_text())["preprocessing"]["dropped_empty"] == 1


@pytest.mark.parametrize("columns, named", [
    pytest.param("[text, text]", "got ['text', 'text'] ('text' twice: every word of it would count twice)",
                 id="user-text-text-column-listed-twice"),
    pytest.param("[]", "got []", id="user-text-no-text-column"),
])
def test_user_text_text_columns_named(tmp_path, capsys, columns, named):
    """user_text with text_column=[text, text] or [] -> exit 2 naming the parameter, before any read (was: every count
    doubled, silently; or every document empty, refused as 'no word passes min_df')."""
    (tmp_path / "t.csv").write_text("text\napple bread\nbread cheese\ncheese apple\n")
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=csv", "--param",
            f"path={tmp_path / 't.csv'}", "--param", f"text_column={columns}", "--param", "min_df=1", "--param", "max_df=1.0"]
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "t.csv")
    assert code == 2 and f"user_text: parameter text_column must name one or more distinct columns, {named}" in err, err


@pytest.mark.parametrize("fmt, param, named", [
    pytest.param("files", "time_column=t", "parameter time_column does not apply to format=files (only to format=jsonl "
                 "or csv)", id="user-text-files-with-a-time-column"),
    pytest.param("files", "sep=;", "parameter sep does not apply to format=files (only to format=csv)",
                 id="user-text-files-with-a-separator"),
    pytest.param("jsonl", 'pattern="*.txt"', "parameter pattern does not apply to format=jsonl (only to format=files)",
                 id="user-text-jsonl-with-a-file-pattern"),
    pytest.param("jsonl", "time_format=unix_s", "time_format='unix_s' without a time_column to read it from",
                 id="user-text-time-format-without-a-time-column"),
])
def test_user_text_setting_its_format_never_reads_named(tmp_path, capsys, fmt, param, named):
    """A user_text setting its format never reads (a folder's time_column, a JSONL pattern) -> exit 2 naming it, before
    any read; so is a time_format with no time column (was: ignored, a corpus without the times asked for)."""
    (tmp_path / "d").mkdir()
    for i in range(3):
        (tmp_path / "d" / f"{i}.txt").write_text(f"apple bread w{i}\n")
    (tmp_path / "t.jsonl").write_text("".join(json.dumps({"text": f"apple bread w{i}", "t": i}) + "\n" for i in range(3)))
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", f"format={fmt}", "--param",
            f"path={tmp_path / ('d' if fmt == 'files' else 't.jsonl')}", "--param", param]
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "d")
    assert code == 2 and f"user_text: {named}" in err, err


@pytest.mark.parametrize("target", [pytest.param("elsewhere.jsonl.gz", id="recipe-source-a-broken-link"),
                                    pytest.param("jss_papers.jsonl.gz", id="recipe-source-a-link-to-itself")])
def test_recipe_source_replaced_by_a_broken_link_named(tmp_path, capsys, target):
    """A recipe's source under corpora_dir replaced by a symbolic link to nothing, or to itself -> exit 2 naming the
    link and its target (was: 'file does not exist', of a name that ls lists)."""
    folder = tmp_path / "corpora" / "jss_papers"
    folder.mkdir(parents=True)
    (folder / "jss_papers.jsonl.gz").symlink_to(folder / target)
    code, err = prepare_fails(capsys, ["prepare", "jss_papers", "--out", tmp_path / "out", "--corpora-dir",
                                       tmp_path / "corpora"], tmp_path / "out", folder)
    assert code == 2 and f"jss_papers.jsonl.gz: a broken or looping symbolic link (to '{folder / target}')" in err, err


@pytest.mark.parametrize("fmt, body", [
    pytest.param("uci", "50000000\n3\n3\n1 1 2\n2 2 1\n3 3 4\n", id="uci-header-d-of-5e7"),
    pytest.param("mm", "%%MatrixMarket matrix coordinate integer general\n50000000 3 3\n1 1 2\n2 2 1\n3 3 4\n",
                 id="mm-size-line-of-5e7-rows"),
])
def test_header_document_count_far_beyond_the_body(tmp_path, fmt, body):
    """A UCI header D or Matrix Market size line of 5*10^7 documents over a 3-document body -> read in memory of the
    body's size, the empty ones dropped and counted (was: a row pointer for every document allocated first: 450 MB
    here, a MemoryError traceback at D = 10^11 and an out-of-memory kill at 2*10^9)."""
    import tracemalloc

    from topicbench.readers import read_matrix_market, read_uci_bow

    (tmp_path / "c.txt").write_text(body)
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    tracemalloc.start()
    try:
        counts, _, kept, n_input = (read_uci_bow if fmt == "uci" else read_matrix_market)(tmp_path / "c.txt",
                                                                                          tmp_path / "v.txt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts.shape == (3, 3) and kept.tolist() == [0, 1, 2] and n_input == 50_000_000
    assert peak < 20e6, f"{peak / 1e6:.0f} MB allocated for a 3-document body"


@pytest.mark.parametrize("body, named", [
    pytest.param("coordinate integer general\n3 3 100000000000\n1 1 2\n2 2 1\n", "c.mtx:2: the size line says "
                 "100000000000 entries but the file has 2 (truncated?)", id="mm-size-line-of-10e11-entries"),
    pytest.param("array integer general\n1000000 1000000\n1\n2\n", "c.mtx:2: the size line says 1000000000000 entries "
                 "(1000000 x 1000000) but the file has 2", id="mm-array-of-a-million-squared"),
    pytest.param("coordinate integer general\n3 3\n1 1 2\n", "c.mtx:2: expected the size line 'rows columns entries'",
                 id="mm-coordinate-size-line-without-entries"),
    pytest.param("coordinate integer general\n100000000000 3 2\n1 1 2\n2 2 1\n", "c.mtx:2: the size line says "
                 "100000000000 x 3 with 2 entries: more than 2147483647 rows or columns", id="mm-size-line-of-10e11-rows"),
])
def test_matrix_market_size_line_beyond_the_file_named(tmp_path, capsys, body, named):
    """A Matrix Market size line promising far more entries than the file holds (10^11, a typo) -> exit 2 naming
    file:2, before any allocation (was: a MemoryError traceback, scipy allocating what the size line says); so is a
    coordinate size line without its entry count (was: 'Invalid integer value.', naming no line)."""
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    (tmp_path / "c.mtx").write_text("%%MatrixMarket matrix " + body)
    code, err = prepare_fails(capsys, bow_args("mm", tmp_path / "c.mtx", tmp_path / "v.txt", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "c.mtx")
    assert code == 2 and named in err, err


def test_user_text_folder_with_an_unreadable_subfolder_named(tmp_path, capsys, monkeypatch):
    """A format=files folder with a subfolder that cannot be listed (mode 700, another user's) -> exit 2 naming it
    (was: its documents left out, silently, as os.walk passes over it). Simulated: root reads anything."""
    for folder, words in (("open", "apple bread"), ("locked", "cheese dates")):
        (tmp_path / "d" / folder).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "d" / folder / f"{i}.txt").write_text(f"{words} w{i}\n")
    scandir = os.scandir

    def denied(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", denied)
    args = ["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=files", "--param",
            f"path={tmp_path / 'd'}", "--param", "min_df=1", "--param", "max_df=1.0"]
    code, err = prepare_fails(capsys, args, tmp_path / "out", tmp_path / "d")
    assert code == 2 and f"{tmp_path / 'd' / 'locked'}: a folder under {tmp_path / 'd'} that cannot be read" in err, err


@pytest.mark.parametrize("fmt, body, named", [
    pytest.param("uci", "100000000000\n3\n2\n1 1 2\n2 2 1\n", "c.txt:1: header says D=100000000000, more than "
                 "2147483647 documents (a typo?)", id="uci-header-d-of-10e11"),
    pytest.param("uci", "3\n3\n2\n99999999999999999999 1 2\n2 2 1\n", "c.txt:4: docID 99999999999999999999 exceeds",
                 id="uci-docid-beyond-int64"),
    pytest.param("ldac", "2 0:1 99999999999999999999:1\n1 1:1\n", "c.txt:1: word id 99999999999999999999 exceeds",
                 id="ldac-word-id-beyond-int64"),
    pytest.param("uci", "1" + "0" * 5000 + "\n3\n2\n1 1 2\n2 2 1\n", "c.txt:1: header D 10000000000000000000... (5001 "
                 "digits) is no count of a real file", id="uci-header-d-of-5001-digits"),
    pytest.param("uci", "3\n3\n2\n1 1 1" + "0" * 5000 + "\n2 2 1\n", "c.txt:4: count 10000000000000000000... (5001 "
                 "digits) exceeds 2147483647", id="uci-count-of-5001-digits"),
    pytest.param("ldac", "2 0:1 1:1" + "0" * 5000 + "\n1 1:1\n", "c.txt:1: count 10000000000000000000... (5001 digits) "
                 "exceeds", id="ldac-count-of-5001-digits"),
])
def test_number_beyond_int32_named_as_written(tmp_path, capsys, fmt, body, named):
    """A UCI header D of 10^11, a docID or an LDA-C word id beyond int64 -> exit 2 naming file:line, the field and the
    number as written (was: a MemoryError traceback; 'number ... (counts are stored as int32)' of a docID; and
    'word id 2147483648', the value it was clamped to); so is a number of 5001 digits (was: 'user_bow.py: dataset
    user_bow.build raised ValueError (Exceeds the limit (4300 digits) ...)', blaming the recipe)."""
    (tmp_path / "c.txt").write_text(body)
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    code, err = prepare_fails(capsys, bow_args(fmt, tmp_path / "c.txt", tmp_path / "v.txt", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "c.txt")
    assert code == 2 and named in err, err


def test_user_bow_vocabulary_that_is_the_counts_file_named(tmp_path, capsys):
    """user_bow with vocab= the counts file itself (an LDA-C file of three distinct lines) -> exit 2 naming it (was:
    prepared, its lines '2 0:2 1:1', '2 1:1 2:3', '2 0:4 2:1' the vocabulary's three words)."""
    (tmp_path / "c.ldac").write_text("2 0:2 1:1\n2 1:1 2:3\n2 0:4 2:1\n")
    code, err = prepare_fails(capsys, bow_args("ldac", tmp_path / "c.ldac", tmp_path / "c.ldac", tmp_path / "out"),
                              tmp_path / "out", tmp_path / "c.ldac")
    assert code == 2 and f"user_bow: path and vocab name the same file, {tmp_path / 'c.ldac'}" in err, err
