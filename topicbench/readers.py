"""Generic corpus readers and the raw-text preprocessing that turns text into counts.

Bag-of-words formats: UCI (``docword.*.txt[.gz]`` + ``vocab.*.txt``, 1-based ids), LDA-C
(``N id:count ...``, 0-based ids, with a vocabulary file) and Matrix Market. Raw text: one file
per document, JSONL or CSV, with an optional time column parsed to a decimal year.

Preprocessing is deterministic and every setting is recorded in ``corpus.json`` (``preprocessing``),
with counts of what was dropped, so a reader never loses documents silently. Every error names the
file, and the line where there is one (``path:line: problem``).
"""
from __future__ import annotations

import array
import bz2
import contextlib
import csv
import functools
import gzip
import io
import json
import lzma
import os
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Iterable, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .corpus import INT32_MAX, Corpus, CorpusError, make_docs_frame
from .dataset import Dataset, param_path


class ReaderError(CorpusError):
    """An input file is malformed; the message names the file and, where there is one, the line."""


def where(path, line: int | None = None) -> str:
    return f"{path}:{line}" if line is not None else str(path)


# --------------------------------------------------------------------------------------------
# files


def check_encoding(encoding: str, path) -> None:
    import codecs

    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError):
        raise ReaderError(f"{path}: unknown text encoding {encoding!r}") from None
    if not info._is_text_encoding or info.name in ("undefined", "punycode", "idna"):  # rot13, base64, zlib, ...
        raise ReaderError(f"{path}: {encoding!r} is not a character encoding of text files; pass the file's, e.g. "
                          f"utf-8, latin-1 or utf-16")


COMPRESSED = (".gz", ".bz2", ".xz")


def missing_file(path) -> ReaderError:
    """A missing input file, naming a compressed or decompressed copy beside it (``x.csv`` for ``x.csv.gz``)."""
    path = Path(path)
    if path.is_symlink():  # listed by ls, so 'does not exist' would puzzle: the link is there, its target is not
        return ReaderError(f"{path}: a broken or looping symbolic link (to {os.readlink(path)!r}): fix or remove it")
    base = path.with_suffix("") if path.suffix.lower() in COMPRESSED else path
    near = [p.name for p in [base, *(base.with_name(base.name + s) for s in COMPRESSED)] if p != path and p.is_file()]
    hint = (f" ({', '.join(near)} is beside it: this reader opens {path.name} by name, so compress or decompress "
            f"the file to match)" if near else "")
    return ReaderError(f"{path}: file does not exist{hint}")


# the first bytes of containers this reader does not open by content: a compressed file is opened by its suffix
MAGIC = ((b"\x1f\x8b", "gzip-compressed", ".gz"), (b"BZh", "bzip2-compressed", ".bz2"), (b"\xfd7zXZ\x00", "xz-compressed", ".xz"),
         (b"PK\x03\x04", "a zip archive", None), (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive", None),
         (b"\x28\xb5\x2f\xfd", "zstd-compressed", None), (b"\x1f\x9d", "compress (.Z) output", None))


def open_binary(path) -> io.BufferedIOBase:
    """Open a file, transparently decompressing .gz / .bz2 / .xz (by suffix); a compressed file or an archive
    whose name says plain text is refused by name, not decoded as garbage (``not valid utf-8 at byte 1``)."""
    path = Path(path)
    if not path.is_file():
        raise missing_file(path) if not path.exists() else ReaderError(f"{path}: not a file")
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".xz":
        return lzma.open(path, "rb")
    handle = open(path, "rb")
    head = handle.peek(8)[:8]
    for magic, kind, fix in MAGIC:
        if head.startswith(magic) and (magic != b"BZh" or head[3:4].isdigit()):
            handle.close()
            raise ReaderError(f"{path}: the file is {kind}, " + (
                f"but its name does not end in {fix}: rename it to {path.name}{fix} to have it decompressed" if fix else
                "which is not opened (only .gz, .bz2 and .xz are): extract or decompress it and point path= at the result"))
    return handle


_UTF16_32_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def decode(raw: bytes, path, encoding: str, line: int | None = 1) -> str:
    """Bytes -> text, or an error naming the file and line (``line`` is the line ``raw`` starts on). A UTF-16/32 byte-order mark names the encoding to pass; a NUL character is refused:
    it is binary data, not text, and the tokeniser would silently split a word at it."""
    if line == 1:
        _check_byte_order(raw, path, encoding)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        at = line + raw[: err.start].count(b"\n") if line is not None else None
        bom = next((name for bom, name in _UTF16_32_BOMS if raw.startswith(bom)), None) if line == 1 else None
        hint = (f"the file starts with a {bom.upper()} byte-order mark: pass encoding={bom}" if bom and bom != encoding
                else f"pass the file's encoding if it is not {encoding}")
        raise ReaderError(f"{where(path, at)}: not valid {encoding} text ({err.reason} at byte {err.start}); "
                          f"{hint}") from err
    if _single_byte(encoding) and not raw.isascii():
        try:
            utf8 = raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:  # UTF-8 read as Latin-1 or cp1252 is silent mojibake ("café" -> "cafÃ©"), never an error: refused here
            k = next(i for i, ch in enumerate(utf8) if ord(ch) > 127)
            at = line + utf8[:k].count("\n") if line is not None else None
            word = re.search(r"\S*\Z", utf8[:k]).group() + re.match(r"\S*", utf8[k:]).group()
            raise ReaderError(f"{where(path, at)}: the text is UTF-8 ({word[:30]!r}), which read as {encoding} would "
                              f"become {word[:30].encode('utf-8').decode(encoding, 'replace')!r}: pass encoding=utf-8")
    if "\x00" in text:
        at = line + text[: text.index("\x00")].count("\n") if line is not None else None
        raise ReaderError(f"{where(path, at)}: NUL character in the text (binary data, or a UTF-16 file read as "
                          f"{encoding}?): not a text file")
    return text


def _check_byte_order(raw: bytes, path, encoding: str) -> None:
    """A UTF-16/32 file without a byte-order mark read in the other byte order decodes without an error into other
    characters ('ab' as '愀戀'): utf-16 or utf-32 named without the order is read little-endian, so a big-endian file
    is refused, and so is a file read in the order its zero bytes (the high bytes of Latin text) contradict. A file
    they do not tell is refused only when the encoding does not name the order."""
    import codecs

    name = codecs.lookup(encoding).name
    family, _, named = name.partition("-")[2].partition("-")  # 'utf-16-be' -> '16', 'be'
    if family not in ("16", "32") or not raw or any(raw.startswith(bom) for bom, _ in _UTF16_32_BOMS):
        return
    width = int(family) // 8
    head = raw[: 1 << 16]  # enough to tell, without counting a whole corpus file
    zeros_first = sum(head[i] == 0 for i in range(0, len(head), width))  # the high byte of a big-endian unit
    zeros_last = sum(head[i] == 0 for i in range(width - 1, len(head), width))
    told = "be" if zeros_first > zeros_last else "le" if zeros_last > zeros_first else None
    if told == (named or "le") or (told is None and named):
        return
    if told is None:
        raise ReaderError(f"{path}: {encoding} without a byte-order mark, and its bytes do not tell the byte order: "
                          f"pass encoding=utf-{family}-le or utf-{family}-be")
    raise ReaderError(f"{path}: the text is UTF-{family} {'big' if told == 'be' else 'little'}-endian (by its zero "
                      f"bytes; no byte-order mark), which read as {encoding} would be other characters: pass "
                      f"encoding=utf-{family}-{told}")


def decode_legacy(raw: bytes) -> tuple[str, bool]:
    """Bytes of an archive whose files are Latin-1 or UTF-8, file by file (a Usenet or newswire copy re-encoded in
    part): UTF-8 where they decode as UTF-8, else Latin-1, which decodes anything. Latin-1 text almost never forms
    valid UTF-8, while UTF-8 read as Latin-1 is silent mojibake ('ingénieur' -> 'ingÃ©nieur'). Returns (text,
    whether the bytes held UTF-8 beyond ASCII), for the count a recipe records."""
    try:
        return raw.decode("utf-8"), not raw.isascii()
    except UnicodeDecodeError:
        return raw.decode("latin-1"), False


def _single_byte(encoding: str) -> bool:
    """Latin-1, cp1252 and the other one-byte code pages, which decode any bytes at all (UTF-8 too, as mojibake)."""
    import codecs

    name = codecs.lookup(encoding).name
    return name.startswith(("iso8859", "latin", "cp125", "mac-", "koi8", "cp437", "cp850"))


def _drop_bom(text: str, encoding: str) -> str:
    """A UTF-8 file's byte-order mark (Windows editors write one) is not text: not part of a first word or header;
    nor is the mark of a UTF-16/32 file read with an explicit byte order (utf-16-le keeps it, utf-16 drops it)."""
    import codecs

    return text[1:] if text.startswith("\ufeff") and codecs.lookup(encoding).name.startswith("utf-") else text


def read_lines(path, encoding: str = "utf-8") -> Iterable[tuple[int, str]]:
    """Yield (1-based line number, line without newline); corrupt archives and bad encodings name the file and line."""
    line_no = 0
    check_encoding(encoding, path)
    if "\n".encode(encoding) != b"\n":  # UTF-16/32: a newline is not the byte 0x0A, so the file is not split on it
        yield from enumerate((t.rstrip("\r") for t in read_text(path, encoding).removesuffix("\n").split("\n")), start=1)
        return
    try:
        with open_binary(path) as handle:
            for line_no, raw in enumerate(handle, start=1):
                text = decode(raw, path, encoding, line_no)
                if line_no == 1:
                    text = _drop_bom(text, encoding)
                yield line_no, text.rstrip("\r\n")
    except (EOFError, OSError, lzma.LZMAError, zlib_error()) as err:
        raise _read_failure(path, err, line_no + 1) from err


def _read_failure(path, err: BaseException, line: int | None = None) -> ReaderError:
    """A failed read as an error naming the file: a missing or unreadable file, or a truncated / corrupt one."""
    if isinstance(err, FileNotFoundError):
        return missing_file(path)
    if isinstance(err, (PermissionError, IsADirectoryError, NotADirectoryError)):
        return ReaderError(f"{path}: cannot be read ({type(err).__name__}: {err.strerror})")
    return ReaderError(f"{where(path, line)}: truncated or corrupt file ({type(err).__name__}: {err})")


def zlib_error():
    import zlib

    return zlib.error


def lines_of(text: str) -> list[str]:
    """A distributed file's lines (one document or label each), ended by LF or CRLF only: str.splitlines would also end a
    line at a form feed, U+2028 or U+0085 inside a text, and str.split split a label holding a space in two."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines and lines[-1] == "" else lines


def read_text(path, encoding: str = "utf-8") -> str:
    check_encoding(encoding, path)
    try:
        with open_binary(path) as handle:
            raw = handle.read()
    except (EOFError, OSError, lzma.LZMAError, zlib_error()) as err:
        raise _read_failure(path, err) from err
    return _drop_bom(decode(raw, path, encoding), encoding)


def read_vocab(path, encoding: str = "utf-8") -> list[str]:
    """One word per line (line i = word id i); blank or duplicate words are errors."""
    vocab, seen = [], {}
    for line_no, line in read_lines(path, encoding):
        word = line.strip()
        if not word:
            raise ReaderError(f"{where(path, line_no)}: blank vocabulary entry")
        if "\r" in word:  # lines ended by a bare CR: the whole file one 'word'
            raise ReaderError(f"{where(path, line_no)}: a CR inside the word {word[:40]!r}{BARE_CR}")
        if "\ufeff" in word:  # invisible: 'apple' and '<BOM>apple' would be two columns that print alike
            raise ReaderError(f"{where(path, line_no)}: a byte-order mark (U+FEFF) inside the word {word[:40]!r} (files "
                              f"joined, each saved with one?); remove it")
        if word in seen:
            raise ReaderError(f"{where(path, line_no)}: duplicate word {word!r} (first on line {seen[word]})")
        if "\t" in word:  # a gensim or Mallet dictionary (id, word, frequency): the word would be the whole line
            raise ReaderError(f"{where(path, line_no)}: a tab inside the word {word!r}: a vocabulary file has one word "
                              f"per line and nothing else (an 'id<TAB>word<TAB>count' dictionary needs its word column "
                              f"cut out, e.g. cut -f2)")
        seen[word] = line_no
        vocab.append(word)
    if not vocab:
        raise ReaderError(f"{path}: vocabulary file is empty")
    _check_two_columns(vocab, path)
    composed: dict[str, int] = {}
    for word, line_no in seen.items():  # 'café' composed and decomposed: one word to a reader, two columns here
        if not word.isascii():
            key = unicodedata.normalize("NFC", word)
            if key in composed:
                raise ReaderError(f"{where(path, line_no)}: word {word!r} is word {key!r} of line {composed[key]} in another "
                                  f"Unicode form (composed / decomposed accents): two columns for one word; normalise "
                                  f"the file to NFC and merge their counts")
            composed[key] = line_no
    return vocab


def _check_two_columns(vocab: list[str], path) -> None:
    """Every line 'word number' or 'number word' (space separated): a dictionary with ids or frequencies, whose order
    may not be the ids' order; read as words, every word would be the whole line and line i taken as word id i."""
    pairs = [w.split() for w in vocab]
    if not all(len(p) == 2 for p in pairs):
        return
    for side in (0, 1):
        if all(re.fullmatch(r"\d+", p[side]) for p in pairs) and not all(re.fullmatch(r"\d+", p[1 - side]) for p in pairs):
            numbers = [int(p[side]) for p in pairs]
            ids = sorted(numbers) in (list(range(len(vocab))), list(range(1, len(vocab) + 1)))
            what = ("an id column" + (", not in line order" if numbers != sorted(numbers) else "") if ids
                    else "a number column (frequencies?)")
            raise ReaderError(f"{where(path, 1)}: every line is a word and a number ({vocab[0]!r}), {what}: a vocabulary "
                              f"file is one word per line, line i being word id i; "
                              + ("sort it by the id and cut the word column out (e.g. sort -n -k" f"{side + 1} | cut -d' ' -f{2 - side})"
                                 if ids else "cut the word column out (e.g. cut -d' ' -f" f"{2 - side})"))


# --------------------------------------------------------------------------------------------
# bag-of-words formats


def _beyond_int32(digits: str) -> bool:
    """A non-negative integer written in decimal exceeds int32, told without int(), which refuses over 4300 digits."""
    digits = digits.lstrip("+").lstrip("0")
    return len(digits) > 10 or int(digits or "0") > INT32_MAX


def _shown(digits: str) -> str:
    """A number for a message: a long one cut, with its length."""
    return digits if len(digits) <= 30 else f"{digits[:20]}... ({len(digits)} digits)"


def _drop_empty(counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    keep = np.flatnonzero(np.diff(counts.indptr) > 0)
    return counts[keep], keep


def read_uci_bow(docword, vocab_path, encoding: str = "utf-8", report: dict | None = None) -> tuple[sp.csr_matrix, list[str], np.ndarray, int]:
    """UCI bag-of-words: header lines D, W, NNZ, then ``docID wordID count`` (1-based).

    Returns (counts, vocab, kept document numbers (0-based), D): documents with no entries are
    dropped (the UCI files contain a few) and the caller records how many.
    """
    vocab = read_vocab(vocab_path, encoding)
    header: list[int] = []
    doc_ids, word_ids, values = [], [], []
    lines = read_lines(docword, encoding)
    for line_no, line in lines:
        if len(header) < 3:
            field = line.strip()
            if not re.fullmatch(r"\d+", field):
                raise ReaderError(f"{where(docword, line_no)}: bad UCI header: expected a single integer "
                                  f"({('D', 'W', 'NNZ')[len(header)]}), got {line[:60]!r}{BARE_CR * (chr(13) in field)}")
            if len(field.lstrip("0")) > 18:  # (int() refuses over 4300 digits)
                raise ReaderError(f"{where(docword, line_no)}: header {('D', 'W', 'NNZ')[len(header)]} {_shown(field)} "
                                  f"is no count of a real file (over 10^18)")
            header.append(int(field))
            if len(header) == 3:
                n_docs, n_words, nnz = header
                if n_docs > INT32_MAX:  # (documents up to the last with an entry are stored; the rest counted empty)
                    raise ReaderError(f"{where(docword, 1)}: header says D={n_docs}, more than {INT32_MAX} documents "
                                      f"(a typo?)")
                if n_words != len(vocab):
                    raise ReaderError(f"{where(docword, 2)}: header says W={n_words} but {vocab_path} has {len(vocab)} words")
                break
    else:
        raise ReaderError(f"{docword}: truncated: {len(header)} of 3 header lines (D, W, NNZ)")
    # body: parse in blocks with numpy; on any malformed line fall back to finding it exactly
    block: list[str] = []
    first_line = 4

    def flush(block, first_line):
        try:
            arr = np.array(" ".join(block).split(), dtype=np.int64)
            if arr.size != 3 * len(block):
                raise ValueError
        except (ValueError, OverflowError):
            for offset, text in enumerate(block):
                parts = text.split()
                if len(parts) != 3 or not all(p.isdigit() for p in parts):
                    raise ReaderError(f"{where(docword, first_line + offset)}: expected 'docID wordID count' "
                                      f"(non-negative integers), got {text[:60]!r}") from None
                big = [k for k, p in enumerate(parts) if _beyond_int32(p)]
                if big:
                    raise ReaderError(f"{where(docword, first_line + offset)}: {('docID', 'wordID', 'count')[big[0]]} "
                                      f"{_shown(parts[big[0]])} exceeds {INT32_MAX} (ids and counts are stored as int32)") from None
            raise
        arr = arr.reshape(-1, 3)
        for column, upper, what in ((0, n_docs, "docID"), (1, n_words, "wordID")):
            bad = np.flatnonzero((arr[:, column] < 1) | (arr[:, column] > upper))
            if bad.size:
                raise ReaderError(f"{where(docword, first_line + int(bad[0]))}: {what} {arr[bad[0], column]} out of range "
                                  f"[1, {upper}] (ids are 1-based)")
        bad = np.flatnonzero(arr[:, 2] < 1)
        if bad.size:
            raise ReaderError(f"{where(docword, first_line + int(bad[0]))}: count must be positive, got {arr[bad[0], 2]}")
        bad = np.flatnonzero(arr[:, 2] > INT32_MAX)
        if bad.size:
            raise ReaderError(f"{where(docword, first_line + int(bad[0]))}: count {arr[bad[0], 2]} exceeds {INT32_MAX} "
                              f"(counts are stored as int32)")
        doc_ids.append(arr[:, 0] - 1)
        word_ids.append(arr[:, 1] - 1)
        values.append(arr[:, 2])

    seen = 0
    for line_no, line in lines:
        if not line.strip():
            continue
        if not block:
            first_line = line_no
        block.append(line)
        seen += 1
        if len(block) >= 200_000:
            flush(block, first_line)
            block = []
    if block:
        flush(block, first_line)
    if seen != nnz:
        raise ReaderError(f"{docword}: header says NNZ={nnz} but the file has {seen} entries "
                          f"({'truncated' if seen < nnz else 'extra lines'})")
    rows = np.concatenate(doc_ids) if doc_ids else np.zeros(0, np.int64)
    cols = np.concatenate(word_ids) if word_ids else np.zeros(0, np.int64)
    data = np.concatenate(values) if values else np.zeros(0, np.int64)
    # rows up to the last document with an entry: the ones after it are empty, dropped and counted by the caller as
    # the others are, and a header D of 10^11 (a typo) would otherwise allocate a row pointer for each
    counts = sp.csr_matrix((data, (rows, cols)), shape=(int(rows.max()) + 1 if len(rows) else 0, n_words), dtype=np.int64)
    counts.sum_duplicates()
    _check_summed(counts, docword, "a docID, wordID pair repeated", len(data), report)
    counts, kept = _drop_empty(counts)
    if not len(kept):
        raise ReaderError(f"{docword}: no documents (header D={n_docs}, NNZ={nnz}): nothing to prepare")
    return counts, vocab, kept, n_docs


def whole_counts(matrix: sp.csr_matrix, path) -> sp.csr_matrix:
    """A stored count matrix (an .npz as distributed) checked at its file: numbers that are non-negative whole counts
    within int32, or an error naming the file, document row and word column; explicit zeros removed (a row of only
    zeros is an empty document, dropped and counted like any other)."""
    matrix = sp.csr_matrix(matrix)
    data = matrix.data
    if data.dtype.kind not in "biuf":
        raise ReaderError(f"{path}: counts must be numbers, got dtype {data.dtype}")
    bad = ~np.isfinite(data) | (data < 0) | (data != np.round(data)) | (data > INT32_MAX)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(matrix.indptr, k, side="right") - 1)
        raise ReaderError(f"{path}: document row {row}, word column {int(matrix.indices[k])}: count {data[k].item()!r} "
                          f"is not a non-negative integer count (at most {INT32_MAX})")
    matrix = sp.csr_matrix(matrix, dtype=np.int64)
    matrix.eliminate_zeros()
    return matrix


def _check_summed(counts: sp.csr_matrix, path, how: str, entries: int | None = None, report: dict | None = None) -> None:
    """Counts that only overflow once duplicate entries are added up are an error too, never a wrap; how many of the
    file's ``entries`` were added to an earlier one (``how``) goes in ``report`` for corpus.json, where there were any."""
    if report is not None and entries is not None and entries > counts.nnz:
        report["summed_repeated_entries"] = {"count": int(entries - counts.nnz), "what": how}
    if counts.nnz and counts.data.max() > INT32_MAX:
        k = int(np.argmax(counts.data))
        row = int(np.searchsorted(counts.indptr, k, side="right") - 1)
        raise ReaderError(f"{path}: document {row + 1}, word {int(counts.indices[k])}: count {int(counts.data[k])} "
                          f"({how}) exceeds {INT32_MAX} (counts are stored as int32)")


def read_ldac(path, vocab_path, encoding: str = "utf-8", max_docs: int | None = None, report: dict | None = None,
              id_base: int | None = None) -> tuple[sp.csr_matrix, list[str], np.ndarray, int]:
    """LDA-C: one line per document, ``N id:count ...`` with ids into the vocabulary file, 0-based as Blei's lda-c
    writes them (``id_base=0``) or 1-based (``id_base=1``).

    N must equal the number of pairs. Empty documents (``0``) are dropped; returns (counts, vocab,
    kept document numbers (0-based lines), documents read). With ``id_base`` not stated, a file in which no id 0
    appears is refused: 1-based ids whose largest is below the vocabulary size look exactly like 0-based ones that
    never use word 0, and a guess would shift every word by one silently.
    """
    if id_base not in (None, 0, 1):
        raise ReaderError(f"{path}: id_base must be 0 or 1, got {id_base!r}")
    vocab = read_vocab(vocab_path, encoding)
    n_words = len(vocab)
    base = id_base or 0
    lowest = None
    indptr, indices, data = [0], [], []
    kept = []
    pair = re.compile(r"^\d+(?: \d+:\d+)*$")
    n_read = 0
    for line_no, line in read_lines(path, encoding):
        if max_docs is not None and line_no > max_docs:
            break
        text = " ".join(line.split())
        if not text:
            raise ReaderError(f"{where(path, line_no)}: blank line (an empty document is written '0')")
        n_read += 1
        if not pair.match(text):
            raise ReaderError(f"{where(path, line_no)}: expected 'N id:count ...', got {line[:60]!r}"
                              f"{BARE_CR * (chr(13) in line.strip())}")
        try:
            numbers = np.array(text.replace(":", " ").split(), dtype=np.int64)
        except (OverflowError, ValueError):  # beyond int64 (or Python's 4300 digits): named as written
            tokens = text.replace(":", " ").split()
            at = next(i for i, t in enumerate(tokens) if _beyond_int32(t))
            raise ReaderError(f"{where(path, line_no)}: {'N' if at == 0 else ('word id', 'count')[(at - 1) % 2]} "
                              f"{_shown(tokens[at])} exceeds {INT32_MAX} (ids and counts are stored as int32)") from None
        n_terms, ids, cnts = int(numbers[0]), numbers[1::2], numbers[2::2]
        if n_terms != len(ids):
            raise ReaderError(f"{where(path, line_no)}: N={n_terms} but the line has {len(ids)} id:count pairs (truncated line?)")
        if len(ids) and (ids.max() >= n_words + base or ids.min() < base):
            bad = int(ids.max()) if ids.max() >= n_words + base else int(ids.min())
            hint = (f" (LDA-C ids are 0-based: {n_words} is one past the last word; if the file counts from 1, pass "
                    f"id_base=1)" if bad == n_words and id_base is None else
                    f" (id_base=1 was stated, but the file uses id 0: is it 0-based?)" if bad == 0 and base == 1 else "")
            raise ReaderError(f"{where(path, line_no)}: word id {bad} out of range [{base}, {n_words + base}) of {vocab_path}"
                              f"{hint}")
        if len(ids):
            lowest = int(ids.min()) if lowest is None else min(lowest, int(ids.min()))
            ids = ids - base
        if len(cnts) and cnts.min() < 1:
            raise ReaderError(f"{where(path, line_no)}: counts must be positive")
        if len(cnts) and cnts.max() > INT32_MAX:
            raise ReaderError(f"{where(path, line_no)}: count {int(cnts.max())}{'+' if cnts.max() == INT32_MAX + 1 else ''} "
                              f"exceeds {INT32_MAX} (counts are stored as int32)")
        if len(ids) == 0:
            continue
        kept.append(line_no - 1)
        indices.append(ids)
        data.append(cnts)
        indptr.append(indptr[-1] + len(ids))
    if not kept:
        raise ReaderError(f"{path}: no documents")
    if id_base is None and lowest is not None and lowest > 0:
        raise ReaderError(f"{path}: ambiguous word ids: no id 0 appears (the lowest is {lowest}, the highest below "
                          f"{n_words}, the size of {Path(vocab_path).name}), so the file may count from 0 (LDA-C) and never "
                          f"use word 0, or count from 1; state which: id_base=0 or id_base=1 (user_bow: --param id_base=1)")
    counts = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), np.array(indptr, dtype=np.int64)),
                           shape=(len(kept), n_words))
    counts.sum_duplicates()
    _check_summed(counts, path, "an id repeated on its line", int(indptr[-1]), report)
    return counts, vocab, np.array(kept), n_read


def read_matrix_market(path, vocab_path, docs_in_rows: bool = True, encoding: str = "utf-8", report: dict | None = None) -> tuple[sp.csr_matrix, list[str], np.ndarray, int]:
    """Matrix Market coordinate file (documents x words, or words x documents with ``docs_in_rows=False``)."""
    import scipy.io

    vocab = read_vocab(vocab_path, encoding)
    try:
        with open_binary(path) as handle:
            first = handle.readline()
        bom = first.startswith(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark (Windows editors): not part of the header
        first = first[3:] if bom else first
        if not first.startswith(b"%%MatrixMarket"):
            raise ReaderError(f"{where(path, 1)}: bad header: expected '%%MatrixMarket matrix coordinate ...', got {first[:60]!r}")
        kind, layout, field, symmetry = (first.decode("ascii", "replace").lower().split() + ["", "", "", ""])[1:5]
        if kind != "matrix":  # scipy refuses a vector file from inside a reader that aborts the process once freed
            raise ReaderError(f"{where(path, 1)}: header says {kind!r}, but a documents x words count matrix is a "
                              f"'matrix'; write it as '%%MatrixMarket matrix coordinate integer general'")
        if symmetry not in ("general", ""):  # scipy would mirror every entry: counts the file never wrote
            raise ReaderError(f"{where(path, 1)}: header says {symmetry!r}, but a documents x words count matrix is not "
                              f"{symmetry}; write it as 'general' (every entry listed)")
        if field == "pattern" and report is not None:  # positions without values: each is one occurrence
            report["matrix_market_field"] = "pattern (every entry read as a count of 1)"
        # Two reads, on purpose: scipy's C++ reader truncates '3.5' to 3, crashes on stray bytes and allocates the size
        # line's entries first, so every line is checked before it starts (checking inside its stream would raise in
        # its reader threads), and parsing the checked text here would re-implement mmread's array, pattern and complex.
        _check_matrix_market_numbers(path, layout, field)  # before scipy, which a stray character can crash
        with open_binary(path) as handle:
            handle.read(3 if bom else 0)  # scipy reads on from here
            matrix = scipy.io.mmread(io.BufferedReader(_EndsInNewline(handle)))
    except ReaderError:
        raise
    except (ValueError, OSError, EOFError, IndexError, TypeError, OverflowError, lzma.LZMAError, zlib_error()) as err:
        hint = ("; Matrix Market counts rows and columns from 1 up to the size line's (a 0-based file?)"
                if "index out of bounds" in str(err) else "")
        raise ReaderError(f"{path}: cannot be read as Matrix Market ({err}){hint}") from err
    entries = matrix.nnz if sp.issparse(matrix) else None  # coordinate entries as read, before repeats are summed
    matrix = matrix if docs_in_rows else matrix.T
    n_docs = matrix.shape[0]
    if sp.issparse(matrix):  # rows up to the last document with an entry, as read_uci_bow: a size line's 10^11
        matrix = sp.coo_matrix(matrix)  # documents (a typo) would otherwise allocate a row pointer for each
        matrix = sp.coo_matrix((matrix.data, (matrix.row, matrix.col)),
                               shape=(int(matrix.row.max()) + 1 if matrix.nnz else 0, matrix.shape[1]))
    matrix = sp.csr_matrix(matrix)
    if matrix.shape[1] != len(vocab):
        hint = (f" (its {n_docs} rows match: documents in columns? pass docs_in_rows="
                f"{str(not docs_in_rows).lower()})" if n_docs == len(vocab) else "")
        raise ReaderError(f"{path}: matrix has {matrix.shape[1]} word {'columns' if docs_in_rows else 'rows'} but "
                          f"{vocab_path} has {len(vocab)} words{hint}")
    if matrix.data.dtype.kind not in "iuf":
        raise ReaderError(f"{path}: counts must be integers, got Matrix Market field of dtype {matrix.data.dtype}")
    bad = ~np.isfinite(matrix.data) | (matrix.data < 0) | (matrix.data != np.round(matrix.data))
    if bad.any():
        raise ReaderError(f"{path}: counts must be non-negative integers, got {matrix.data[bad][0]!r}")
    if matrix.nnz and matrix.data.max() > INT32_MAX:
        raise ReaderError(f"{path}: count {matrix.data.max():.0f} exceeds {INT32_MAX} (counts are stored as int32)")
    matrix = sp.csr_matrix(matrix, dtype=np.int64)
    matrix.sum_duplicates()
    _check_summed(matrix, path, "a coordinate repeated", entries, report)
    matrix.eliminate_zeros()
    counts, kept = _drop_empty(matrix)
    if not len(kept):
        raise ReaderError(f"{path}: no documents (every row of the {n_docs} x {matrix.shape[1]} matrix is empty)")
    return counts, vocab, kept, n_docs


class _EndsInNewline(io.RawIOBase):
    """A file read with one more line feed at its end: scipy's Matrix Market reader dies of a segmentation fault on a
    last line that ends in a space, tab or CR instead of a line feed ('2 2 3 ' as the file's last bytes)."""

    def __init__(self, handle):
        self.handle, self.ended = handle, False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.handle.read(len(buffer))
        if not data and not self.ended:
            self.ended, data = True, b"\n"
        buffer[: len(data)] = data
        return len(data)


_MM_INDEX, _MM_INTEGER = r"\d+", r"[+-]?\d+"
_MM_REAL = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eEdD][+-]?\d+)?|[+-]?(?i:inf|infinity|nan)"


def _check_matrix_market_numbers(path, layout: str, field: str) -> None:
    """Every entry line holds the numbers its header promises, whole, and there are as many as its size line says:
    scipy's reader stops a number at its first bad character and ignores a surplus column, so '3.5' or '1e3' in an
    integer file were read as 3 and 1, '3abc' as 3, and '1 1 3 7' as 3, silently; and it allocates what the size
    line says before reading (an entry count of 10^11, a typo, was a MemoryError traceback). One pattern over 16 MB
    pieces of the file; the first line it does not fit is named."""
    values = {"pattern": [], "complex": [("real", _MM_REAL), ("imaginary", _MM_REAL)],
              "integer": [("count", _MM_INTEGER)]}.get(field, [("count", _MM_REAL)])
    numbers = [("row", _MM_INDEX), ("column", _MM_INDEX)] * (layout == "coordinate") + values
    entry = r"[ \t]*" + r"[ \t]+".join(f"(?:{n})" for _, n in numbers) + r"[ \t]*"
    misfit = re.compile(rf"^(?!(?:{entry}|%.*|[ \t]*)\r?$).*$", re.M)  # an entry, a comment or a blank line
    entry_start = re.compile(r"^(?![ \t]*(?:%|\r?$))", re.M)  # where a line that is no comment or blank begins
    with open_binary(path) as handle:  # bytes as Latin-1: a comment may be in any encoding, a number is ASCII
        line_no = 0
        while True:  # the header, comments and the size line
            line = handle.readline().decode("latin-1")
            line_no += 1
            if not line or line_no > 1 and line.strip() and not line.startswith("%"):
                break
        size = line.split()
        wanted = 3 if layout == "coordinate" else 2
        if len(size) != wanted or not all(n.isdigit() for n in size):
            raise ReaderError(f"{where(path, line_no)}: expected the size line 'rows columns{' entries' * (wanted == 3)}' "
                              f"of a {layout} file, got {line.strip()[:60]!r}")
        if any(_beyond_int32(n) for n in size[:2]) or len(size[-1].lstrip("0")) > 18:
            raise ReaderError(f"{where(path, line_no)}: the size line says {' x '.join(map(_shown, size[:2]))}"
                              f"{f' with {_shown(size[2])} entries' if wanted == 3 else ''}: more than {INT32_MAX} rows "
                              f"or columns, or 10^18 entries (a typo?)")
        declared = int(size[2]) if layout == "coordinate" else int(size[0]) * int(size[1])
        size_line, entries, rest = line_no, 0, b""
        while True:
            piece = handle.read(1 << 24)
            whole = rest + piece
            cut = len(whole) if not piece else whole.rfind(b"\n") + 1  # whole lines, and at the end what is left
            text, rest = whole[:cut].decode("latin-1"), whole[cut:]
            bad = misfit.search(text)
            if bad:
                raise ReaderError(f"{where(path, line_no + 1 + text.count(chr(10), 0, bad.start()))}: expected "
                                  f"'{' '.join(name for name, _ in numbers)}' (the header says {layout} {field}), "
                                  f"got {bad.group()[:60]!r}")
            entries += len(entry_start.findall(text))
            line_no += text.count("\n")
            if not piece:
                break
    if entries != declared:
        raise ReaderError(f"{where(path, size_line)}: the size line says {declared} entries"
                          f"{f' ({size[0]} x {size[1]})' if layout == 'array' else ''} but the file has {entries} "
                          f"({'truncated?' if entries < declared else 'lines beyond them'})")


# --------------------------------------------------------------------------------------------
# raw text


NOT_DOCUMENTS = re.compile(r"(PROVENANCE\.md|README(\.\w+)?|__MACOSX)", re.I)


def not_a_document(relative: Path) -> bool:
    """A file that describes or shadows the corpus rather than being one of its documents: hidden files and folders
    (.DS_Store, ._x AppleDouble forks, .git/), a macOS zip's __MACOSX/ folder, and the corpus's PROVENANCE.md or
    README(.*), which a folder under corpora_dir holds beside its documents."""
    return any(part.startswith(".") or NOT_DOCUMENTS.fullmatch(part) for part in relative.parts)


def read_text_files(directory, pattern: str = "*", encoding: str = "utf-8") -> pd.DataFrame:
    """One document per file, in subfolders too (sorted by relative path); doc_id is the relative path.

    Files that are not documents (:func:`not_a_document`) are skipped and listed in ``frame.attrs["skipped_files"]``
    for corpus.json, and so are files whose names do not match ``pattern`` (``*.txt`` leaves out ``x.TXT``); a
    symbolic link to a folder is followed unless it leads to a folder already read (a loop, or a second way to the same
    files), which is skipped and listed; a name that is neither a file nor a folder (a broken or looping link to a
    file, a pipe) is an error naming it, never a silently missing document."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ReaderError(f"{directory}: directory does not exist")
    files, skipped, unmatched, links = [], [], [], []
    seen = {directory.resolve()}

    def unreadable(err: OSError):  # os.walk would pass over a folder it cannot list, and every document in it
        raise ReaderError(f"{err.filename}: a folder under {directory} that cannot be read ({type(err).__name__}: "
                          f"{err.strerror}); its files would be left out") from err

    for root, dirs, names in os.walk(directory, followlinks=True, onerror=unreadable):
        root = Path(root)
        # real folders first, so a link to one of them is the one skipped; then links, once per folder they reach
        for d in sorted(dirs, key=lambda d: ((root / d).is_symlink(), d)):
            target = (root / d).resolve()
            if target in seen:
                links.append(str((root / d).relative_to(directory)))
                dirs.remove(d)
            else:
                seen.add(target)
        dirs.sort()
        for name in names:
            path = root / name
            relative = path.relative_to(directory)
            check_unicode(str(relative), repr(str(path)), "the file name", "a name in another encoding than the file "
                          "system's; rename the file")  # the name becomes the doc_id
            if not_a_document(relative):
                skipped.append(str(relative))
            elif not relative.match(pattern):
                unmatched.append(str(relative))
            elif path.is_file():
                files.append(path)
            else:
                raise ReaderError(f"{path}: not a readable file ({'a broken or looping symbolic link' if path.is_symlink() else 'not a regular file'})")
    files.sort(key=lambda p: p.relative_to(directory))
    check_unique_file_ids([p.relative_to(directory) for p in files], directory)  # before any file is read
    if not files:
        raise ReaderError(f"{directory}: no files match {pattern!r}" + (f" (besides {len(skipped)} that are not documents, "
                                                                         f"e.g. {sorted(skipped)[0]!r})" if skipped else "")
                          + (f" ({len(unmatched)} other files, e.g. {sorted(unmatched)[0]!r})" if unmatched else ""))
    texts = []
    for p in files:
        try:
            texts.append(read_text(p, encoding))
        except ReaderError as err:
            raise ReaderError(f"{err} (every file under the folder that matches pattern={pattern!r} is read as a "
                              f"document: pass pattern= to choose, e.g. pattern='*.txt')") from err
    frame = pd.DataFrame({"doc_id": [str(p.relative_to(directory)) for p in files], "text": texts})
    for key, names, why in (("skipped_files", skipped, None),
                            ("files_not_matching_pattern", unmatched, f"pattern={pattern!r} (case-sensitive)"),
                            ("folder_links_skipped", links, "a symbolic link to a folder already read (a loop, or a "
                                                            "second path to the same files)")):
        if names:
            frame.attrs[key] = {"count": len(names), "first": sorted(names)[:5], **({"why": why} if why else {})}
    return frame


def check_unicode(value: str, culprit: str, what: str, fix: str) -> None:
    """A string with a lone surrogate (a JSON escape for half a UTF-16 pair, or a file name in another encoding) has
    no UTF-8 form: an error naming it, not pyarrow's 'surrogates not allowed' without a culprit at write time."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ReaderError(f"{culprit}: {what} holds {value[err.start:err.end]!r}, which has no UTF-8 form: {fix}") from None


def _printed_id(text: str) -> str:
    """An id as it prints: without white space around it, its Unicode composed (NFC); two ids alike here are one."""
    import unicodedata

    return unicodedata.normalize("NFC", text.strip())


def _how_alike(a: Sequence[str], b: Sequence[str], space: str) -> str:
    """How two ids (or two paths, part by part) that print alike differ: ``space`` (white space around them), their
    Unicode form, or both."""
    import unicodedata

    spaced = [x.strip() for x in a] == [x.strip() for x in b]
    composed = [unicodedata.normalize("NFC", x) for x in a] == [unicodedata.normalize("NFC", x) for x in b]
    return space if spaced else "Unicode form (NFC/NFD)" if composed else f"{space} and Unicode form (NFC/NFD)"


def check_unique_ids(ids: Sequence[str], lines: Sequence[int], path, id_name: str | None) -> None:
    """A source's own document ids must be unique: a repeat names both lines (not the prepared docs.parquet), and so
    do two ids that differ only in white space around them ('a' and 'a '), which print alike but would be two
    documents."""
    if not id_name:
        return
    first: dict[str, tuple[str, int]] = {}
    for doc_id, line in zip(ids, lines):
        if not doc_id.strip():
            raise ReaderError(f"{where(path, line)}: blank {id_name} (every document needs its id)")
        key = _printed_id(doc_id)
        if key in first:
            other, at = first[key]
            if other == doc_id:
                raise ReaderError(f"{where(path, line)}: duplicate {id_name} {doc_id!r} (first on line {at})")
            how = _how_alike([other], [doc_id], "white space around it")
            raise ReaderError(f"{where(path, line)}: {id_name} {doc_id!r} differs from {other!r} (line {at}) only in "
                              f"{how}: one document twice, or two whose ids print alike; make them distinct or remove "
                              f"one")
        first[key] = (doc_id, line)


def check_unique_file_ids(relatives: Sequence[Path], directory) -> None:
    """The document ids of a folder of files (their relative paths) checked as :func:`check_unique_ids` checks a
    source's own ids: two names that differ only in white space around a name ('a.txt' and 'a.txt ', 'sub/' and
    'sub /') or in Unicode form ('café.txt' composed and decomposed: two files on Linux) print alike but would be two
    documents, so both files are named; a name of white space only is a blank id."""
    first: dict[tuple[str, ...], Path] = {}
    for relative in relatives:
        if any(not part.strip() for part in relative.parts):
            raise ReaderError(f"{Path(directory) / relative}: a file or folder name of white space only, which would be "
                              f"a blank document id; rename it")
        other = first.setdefault(tuple(map(_printed_id, relative.parts)), relative)
        if other != relative:
            how = _how_alike(other.parts, relative.parts, "white space around a name")
            raise ReaderError(f"{Path(directory) / relative}: its name {str(relative)!r} differs from {str(other)!r} "
                              f"({Path(directory) / other}) only in {how}: two files whose document ids print alike; "
                              f"rename one or remove it")


JSON_ARRAY = "; the file is a JSON array, and format=jsonl reads JSON Lines: one object per line (e.g. jq -c '.[]')"
PRETTY_JSON = ("; the object is spread over several lines (pretty-printed JSON), and format=jsonl reads one object a "
               "line (e.g. jq -c . to rewrite it)")
BARE_CR = "; its lines end in a bare CR (classic Mac OS): convert them to LF or CRLF (e.g. tr '\\r' '\\n')"


class _Pairs(list):
    """A JSON object's (key, value) pairs as written: a key written twice is not lost to the last one."""


def read_jsonl(path, text_field: str | Sequence[str] = "text", time_field: str | None = None, id_field: str | None = None,
               encoding: str = "utf-8") -> pd.DataFrame:
    """One JSON object per line; returns doc_id, text, line (its number, for errors) and (if asked) the raw time value.

    ``text_field`` may name several fields, joined by newlines (as the CSV reader joins columns). A field this reader
    uses that the object holds twice is an error (json.loads would keep the last copy silently); so is an id that is
    not a string or an integer (null would become the id 'None')."""
    text_fields = [text_field] if isinstance(text_field, str) else list(text_field)
    if not text_fields or not all(isinstance(f, str) for f in text_fields):
        raise ReaderError(f"{path}: text field(s) must be one field name or a list of them, got {text_field!r}")
    used = [*text_fields, *(f for f in (time_field, id_field) if f is not None)]
    # one list per column, not a dict per record (a dict and its keys cost about 250 bytes a document)
    columns: dict[str, list] = {"doc_id": [], "text": [], "line": [], **({"time_raw": []} if time_field else {})}
    joined = 0  # lines starting with a byte-order mark: files joined (cat), each saved with one; the mark is no text
    for line_no, line in read_lines(path, encoding):
        if line.startswith("\ufeff"):
            line, joined = line[1:], joined + 1
        if not line.strip():
            continue
        try:
            pairs = json.loads(line, object_pairs_hook=_Pairs)
        except (ValueError, RecursionError) as err:  # also an integer of over 4300 digits, arrays nested too deep
            raise ReaderError(f"{where(path, line_no)}: not valid JSON ({getattr(err, 'msg', str(err).split(';')[0])})"
                              f"{BARE_CR * (chr(13) in line)}"
                              f"{JSON_ARRAY * (line_no == 1 and line.lstrip().startswith('['))}"
                              f"{PRETTY_JSON * (line.strip() == '{')}") from err
        if not isinstance(pairs, _Pairs):
            raise ReaderError(f"{where(path, line_no)}: expected a JSON object{JSON_ARRAY * isinstance(pairs, list)}")
        keys = [k for k, _ in pairs]
        twice = [f for f in used if keys.count(f) > 1]
        if twice:
            raise ReaderError(f"{where(path, line_no)}: field {twice[0]!r} appears {keys.count(twice[0])} times in the "
                              f"object: which one holds the data is ambiguous")
        record = dict(pairs)
        for field in used:
            if field not in record:
                raise ReaderError(f"{where(path, line_no)}: missing field {field!r}")
        pieces = []
        for field in text_fields:
            text = record[field]
            if not (text is None or isinstance(text, str) or (isinstance(text, list) and all(isinstance(t, str) for t in text))):
                kind = f"{type(text).__name__ if not isinstance(text, _Pairs) else 'dict'}" \
                       f"{' holding non-strings' if isinstance(text, list) and not isinstance(text, _Pairs) else ''}"
                shown = json.dumps(dict(text) if isinstance(text, _Pairs) else text, default=str)[:40]
                raise ReaderError(f"{where(path, line_no)}: field {field!r} is a JSON {kind} ({shown}), "
                                  f"expected text (a string, a list of strings, or null for an empty document)")
            pieces.append(" ".join(text) if isinstance(text, list) else "" if text is None else text)
        if id_field is not None:
            value = record[id_field]
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                shown = json.dumps(dict(value) if isinstance(value, _Pairs) else value, default=str)[:40]
                raise ReaderError(f"{where(path, line_no)}: field {id_field!r} is {shown}, expected a document id "
                                  f"(a string or an integer)")
        doc_id, text = str(record[id_field]) if id_field else str(line_no), "\n".join(pieces)
        for field, value in ((id_field, doc_id), (", ".join(text_fields), text)):
            check_unicode(value, where(path, line_no), f"field {field!r}", "half of a UTF-16 pair escaped alone "
                          "(a \\ud800-\\udfff escape without its partner); fix the escape")
            if "\x00" in value:  # as a raw NUL byte is (decode): binary data, which would split a word unseen
                raise ReaderError(f"{where(path, line_no)}: field {field!r} holds a NUL character (a \\u0000 escape), "
                                  f"which is binary data, not text; remove it")
        columns["doc_id"].append(doc_id)
        columns["text"].append(text)
        columns["line"].append(line_no)
        if time_field:
            columns["time_raw"].append(record[time_field])
        del pairs, record
    if not columns["line"]:
        raise ReaderError(f"{path}: no documents")
    check_unique_ids(columns["doc_id"], columns["line"], path, id_field)
    frame = pd.DataFrame(columns)
    if joined:
        frame.attrs["byte_order_marks_inside_the_file"] = {"count": joined, "why": "files joined, each saved with a "
                                                                                   "byte-order mark; skipped as at the start"}
    return frame


def _csv_lines(path, encoding: str) -> Iterable[str]:
    """The file's lines with their line ends, decoded one by one (the file is never held whole: a 100 MB CSV held as
    one string and its StringIO took about 1 GB), then a line holding only NUL (decode refuses NUL in text): read
    inside a field, it shows that a quoted field was never closed and ran to the end of the file, swallowing every
    row after it. A bare CR inside an unquoted field is not a line end: it becomes a space."""
    check_encoding(encoding, path)
    if "\n".encode(encoding) != b"\n":  # UTF-16/32: a newline is not the byte 0x0A, so the file is not split on it
        parts = read_text(path, encoding).split("\n")  # not splitlines: a form feed or U+2028 is not a line end
        lines = [part + "\n" for part in parts[:-1]] + [parts[-1]] * bool(parts[-1])
    else:
        lines = None
    line_no, last = 0, "\n"
    try:
        with contextlib.nullcontext() if lines is not None else open_binary(path) as handle:
            for line_no, raw in enumerate(lines if lines is not None else handle, start=1):
                text = raw if lines is not None else decode(raw, path, encoding, line_no)
                if line_no == 1:
                    text = _drop_bom(text, encoding) if lines is None else text
                    if "\r" in text and not text.endswith("\n"):  # the whole file is one line: CR line ends
                        raise ReaderError(f"{path}: no line feed in the file{BARE_CR}")
                last = text
                yield _BARE_CR.sub(" ", text)
    except (EOFError, OSError, lzma.LZMAError, zlib_error()) as err:
        raise _read_failure(path, err, line_no + 1) from err
    if not last.endswith("\n"):  # the last line without its line end
        yield "\n"
    yield "\x00\n"


_BARE_CR = re.compile(r"\r(?!\n)")


def read_csv_text(path, text_column: str | Sequence[str] = "text", time_column: str | None = None,
                  id_column: str | None = None, sep: str = ",", encoding: str = "utf-8",
                  extra_columns: Sequence[str] = ()) -> pd.DataFrame:
    """A CSV/TSV with a text column (or several, joined by newlines) and optional time and id columns; ``line`` is the
    line each record starts on (a quoted field may span lines), for errors about its values."""
    sep = "\t" if sep == "\\t" else sep  # a tab written as the usual escape (a literal tab is awkward on a command line)
    csv.field_size_limit(max(csv.field_size_limit(), INT32_MAX))  # one long document is data (the default stops at 128 KiB)
    try:
        reader = csv.reader(_csv_lines(path, encoding), delimiter=sep)
    except (TypeError, csv.Error) as err:
        raise ReaderError(f"{path}: bad separator sep={sep!r} ({err})") from None
    try:
        header = next(reader)
    except StopIteration:
        raise ReaderError(f"{where(path, 1)}: empty file (expected a header row)") from None
    except csv.Error as err:
        raise ReaderError(f"{where(path, 1)}: not readable as CSV ({err})") from None
    text_columns = [text_column] if isinstance(text_column, str) else list(text_column)
    wanted = text_columns + [c for c in (time_column, id_column) if c] + list(extra_columns)
    if header == ["\x00"]:
        raise ReaderError(f"{where(path, 1)}: empty file (expected a header row)")
    missing = [c for c in wanted if c not in header]
    if missing:
        shown = [c if len(c) <= 40 else c[:37] + "..." for c in header[:12]]
        raise ReaderError(f"{where(path, 1)}: missing column(s) {missing}; header has {shown}"
                          f"{f' and {len(header) - 12} more' if len(header) > 12 else ''}"
                          f"{'; is sep right?' if len(header) == 1 or any(len(c) > 40 for c in header) else ''}")
    twice = [c for c in wanted if header.count(c) > 1]
    if twice:
        raise ReaderError(f"{where(path, 1)}: column {twice[0]!r} appears {header.count(twice[0])} times in the header: "
                          f"which one holds the data is ambiguous")
    position = {name: header.index(name) for name in wanted}
    # one list per column, not a dict per row (a dict and its keys cost about 200 bytes a document)
    columns: dict[str, list] = {"doc_id": [], "text": [], "line": [], **({"time_raw": []} if time_column else {}),
                                **{c: [] for c in extra_columns}}
    sources = [("doc_id", id_column), ("time_raw", time_column), *((c, c) for c in extra_columns)]
    sources = [(name, position[column]) for name, column in sources if column]
    text_at = [position[c] for c in text_columns]
    multiline = 0
    records = iter(reader)
    start = reader.line_num + 1
    while True:
        try:
            record = next(records)
        except StopIteration:
            break
        except csv.Error as err:
            raise ReaderError(f"{where(path, reader.line_num)}: not readable as CSV ({err})") from None
        line_no, first_line, start = reader.line_num, start, reader.line_num + 1
        if record == ["\x00"]:
            break
        if record and "\x00" in record[-1]:
            raise ReaderError(f"{where(path, first_line)}: a quoted field opens on this line and is never closed: it "
                              f"would run to the end of the file and swallow the {line_no - 1 - first_line} line(s) after "
                              f"it; close or escape the quote (\"\" inside a quoted field)")
        if not record:
            continue
        if [record[0].removeprefix("\ufeff"), *record[1:]] == header and columns["line"]:  # a BOM: a file's start
            raise ReaderError(f"{where(path, first_line)}: the header row again (files joined with their headers?): "
                              f"{record[:4]}{'...' if len(record) > 4 else ''} would be read as a document")
        if len(record) != len(header):
            raise ReaderError(f"{where(path, line_no)}: {len(record)} fields, header has {len(header)}")
        if not id_column:
            columns["doc_id"].append(str(len(columns["line"])))
        for name, at in sources:
            columns[name].append(record[at])
        columns["text"].append(record[text_at[0]] if len(text_at) == 1 else "\n".join(record[at] for at in text_at))
        columns["line"].append(first_line)
        multiline += line_no > first_line
    if not columns["line"]:
        raise ReaderError(f"{path}: no documents")
    check_unique_ids(columns["doc_id"], columns["line"], path, id_column)
    frame = pd.DataFrame(columns)
    if multiline:  # quoted fields spanning lines: how many records read that way, to check against the file
        frame.attrs["csv_records_spanning_lines"] = multiline
    return frame


# --------------------------------------------------------------------------------------------
# time


def decimal_year(times: pd.Series | pd.DatetimeIndex) -> np.ndarray:
    """Datetimes as float years (2001.5 is mid-2001): sortable, and comparable across corpora."""
    # in microseconds, with year boundaries from numpy's calendar: a year before 1000 ('950-01-01' as text) or outside
    # pandas' nanosecond range (1678-2262) is a date like any other
    stamps = pd.DatetimeIndex(times).to_numpy().astype("datetime64[us]")
    years = stamps.astype("datetime64[Y]")
    start, end = years.astype("datetime64[us]"), (years + 1).astype("datetime64[us]")
    fraction = (stamps - start) / (end - start)
    return (years.astype(np.int64) + 1970).astype(np.float64) + fraction.astype(np.float64)


def _time_label(source: str, line_numbers: Sequence[int] | None, row: int) -> str:
    """Where a bad time value stands: file:line when the reader kept line numbers, else the row."""
    line = line_numbers[row] if line_numbers is not None else None
    return where(source, line) if line is not None else f"{source} (row {row})"


def parse_time(values: Sequence, fmt: str | None = None, source: str = "time column",
               line_numbers: Sequence[int] | None = None, report: dict | None = None) -> np.ndarray:
    """Parse dates (with ``fmt``, a strftime format, ``unix_s`` / ``unix_ms`` for Unix times in seconds /
    milliseconds, ``decimal_year`` for numbers that already are years (2001.5), or ISO 8601) to decimal years;
    names the first bad value, never guesses a number's unit."""
    values = list(values)
    # a JSON null (or NaN) is no time at all: pandas 3's astype(str) keeps it missing, not the text 'None'
    missing = [i for i, v in enumerate(values) if v is None or (isinstance(v, float) and v != v)]
    if missing:
        raise ReaderError(f"{_time_label(source, line_numbers, missing[0])}: no time (null); "
                          f"every document needs a time when a time column is read ({len(missing)} missing)")
    series = pd.Series([str(v) for v in values], dtype=object)
    if fmt == "decimal_year":
        years = pd.to_numeric(series.str.strip(), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(years))
        if bad.size:
            row = int(bad[0])
            label = _time_label(source, line_numbers, row)
            raise ReaderError(f"{label}: cannot parse time {series.iloc[row][:60]!r} as a decimal year (a number such as "
                              f"2001.5) ({bad.size} unparseable)")
        return years
    if fmt is None:  # pandas' ISO 8601 reads '.' as a date separator: 2001.5 would be May 2001, not mid-2001
        dotted = np.flatnonzero(series.str.fullmatch(r"\s*[+-]?\d{1,4}\.\d*\s*").to_numpy(dtype=bool))
        if dotted.size:
            row = int(dotted[0])
            label = _time_label(source, line_numbers, row)
            raise ReaderError(f"{label}: time {series.iloc[row]!r} is not an ISO 8601 date (read as one it would be "
                              f"year.month); for decimal years pass time_format=decimal_year ({dotted.size} such values)")
    if fmt in UNIX_UNITS:
        numbers = pd.to_numeric(series, errors="coerce")
        years = 1970 + numbers.to_numpy(dtype=np.float64) / UNIX_UNITS[fmt] / (365.2425 * 86400)
        parsed = pd.to_datetime(numbers.where((years > 1678) & (years < 2262)), unit=fmt.removeprefix("unix_"), utc=True)
    else:
        parsed = pd.to_datetime(series, format=fmt if fmt else "ISO8601", errors="coerce", utc=True)
        if fmt is None and report is not None:  # clock times with and without a UTC offset: the bare ones are UTC
            clock = series.str.contains(r"\d[T ]\d\d:\d\d", regex=True).to_numpy(dtype=bool)
            zoned = series.str.contains(r"(?:Z|[+-]\d\d:?\d\d)\s*$", regex=True).to_numpy(dtype=bool) & clock
            if zoned.any() and (clock & ~zoned).any():
                row = int(np.flatnonzero(clock & ~zoned)[0])
                report["times_without_utc_offset_read_as_utc"] = {
                    "count": int((clock & ~zoned).sum()), "first": series.iloc[row],
                    "why": f"{int(zoned.sum())} other times carry a UTC offset; a clock time without one is taken as UTC"}
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if bad.size:
        row = int(bad[0])
        label = _time_label(source, line_numbers, row)
        number = re.fullmatch(r"[+-]?\d+(\.\d*)?(e[+-]?\d+)?", series.iloc[row].strip(), re.I) is not None
        hint = ("; for Unix times pass time_format=unix_s (seconds) or unix_ms (milliseconds)" if number and fmt is None and
                abs(float(series.iloc[row])) >= 1e5 else "; a date outside 1678-2261: seconds read as milliseconds?"
                if number and fmt in UNIX_UNITS else "")
        raise ReaderError(f"{label}: cannot parse time {series.iloc[row][:60]!r}"
                          f"{' with format ' + repr(fmt) if fmt else ' as ISO 8601'} ({bad.size} unparseable){hint}")
    years = decimal_year(parsed.dt.tz_convert(None))
    if fmt and "%y" in fmt.replace("%%", "") and report is not None:  # the century is strptime's guess: recorded
        report["two_digit_years"] = {"count": len(values), "read_as": f"{int(years.min())}-{int(years.max())}",
                                     "rule": "strptime's %y: 00-68 as 2000-2068, 69-99 as 1969-1999"}
    return years


UNIX_UNITS = {"unix_s": 1.0, "unix_ms": 1e3}  # time_format values: seconds or milliseconds since 1970-01-01 UTC


# --------------------------------------------------------------------------------------------
# preprocessing


# scikit-learn's ENGLISH_STOP_WORDS (318 words, from the Glasgow Information Retrieval Group's list),
# copied here so the stop list cannot change with a library upgrade
ENGLISH_STOP_WORDS = frozenset((
    'a about above across after afterwards again against all almost alone along already also although '
    'always am among amongst amoungst amount an and another any anyhow anyone anything anyway anywhere '
    'are around as at back be became because become becomes becoming been before beforehand behind being '
    'below beside besides between beyond bill both bottom but by call can cannot cant co con could '
    'couldnt cry de describe detail do done down due during each eg eight either eleven else elsewhere '
    'empty enough etc even ever every everyone everything everywhere except few fifteen fifty fill find '
    'fire first five for former formerly forty found four from front full further get give go had has '
    'hasnt have he hence her here hereafter hereby herein hereupon hers herself him himself his how '
    'however hundred i ie if in inc indeed interest into is it its itself keep last latter latterly least '
    'less ltd made many may me meanwhile might mill mine more moreover most mostly move much must my '
    'myself name namely neither never nevertheless next nine no nobody none noone nor not nothing now '
    'nowhere of off often on once one only onto or other others otherwise our ours ourselves out over own '
    'part per perhaps please put rather re same see seem seemed seeming seems serious several she should '
    'show side since sincere six sixty so some somehow someone something sometime sometimes somewhere '
    'still such system take ten than that the their them themselves then thence there thereafter thereby '
    'therefore therein thereupon these they thick thin third this those though three through throughout '
    'thru thus to together too top toward towards twelve twenty two un under until up upon us very via '
    'was we well were what whatever when whence whenever where whereafter whereas whereby wherein '
    'whereupon wherever whether which while whither who whoever whole whom whose why will with within '
    'without would yet you your yours yourself yourselves '
).split())


def english_stop_words() -> frozenset[str]:
    """The standard English stop list (see ENGLISH_STOP_WORDS)."""
    return ENGLISH_STOP_WORDS


def _code_point_class(keep) -> str:
    """The inside of a regex character class, as ranges, matching every code point whose character ``keep`` accepts."""
    ranges, start, prev = [], None, None
    for code in range(sys.maxunicode + 1):
        if keep(chr(code)):
            if start is None or code != prev + 1:
                start is not None and ranges.append((start, prev))
                start = code
            prev = code
    ranges.append((start, prev))
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


@functools.lru_cache(maxsize=1)
def token_pattern() -> re.Pattern:
    """A letter, then letters or combining marks (Unicode category M), in NFC text.

    A mark is part of its word: Devanagari, Bengali or Thai vowel signs and viramas, and accents that stayed
    decomposed after NFC (e + U+0301), would otherwise split a word into fragments (``हिन्दी`` -> ``न``,
    ``द``) or silently drop its first letter. Variation selectors (emoji presentation, U+FE0F) are marks that
    choose a glyph, not spelling: they end a word like any symbol. A zero-width non-joiner or joiner (U+200C/D) between
    two letters is part of the word (Persian ``می‌خواهم`` is one word, not ``می`` and ``خواهم``); one beside a cased
    letter is removed before this pattern runs (:func:`cased_joiner`)."""
    ranges = _code_point_class(lambda char: unicodedata.category(char)[0] == "M"
                               and "VARIATION SELECTOR" not in unicodedata.name(char, ""))
    # a zero-width non-joiner or joiner between two letters is inside a word (Persian, Indic scripts write one there)
    return re.compile(f"[^\\W\\d_](?:[^\\W\\d_]|[{ranges}]|[\\u200c\\u200d](?=[^\\W\\d_]))*")


@functools.lru_cache(maxsize=1)
def cased_joiner() -> re.Pattern:
    """A zero-width non-joiner or joiner (U+200C/D) beside a cased letter (Latin, Greek, Cyrillic, Armenian: categories
    Lu, Ll, Lt). Those scripts never write one inside a word, so there it is a stray from web or PDF text that would
    make a second, identical-looking spelling of the word (``inter\u200cnational``); the uncased scripts that write
    one (Persian, Arabic, the Indic scripts) keep it (:func:`token_pattern`)."""
    cased = _code_point_class(lambda char: unicodedata.category(char) in ("Lu", "Ll", "Lt"))
    return re.compile(f"(?<=[{cased}])[\u200c\u200d]+|[\u200c\u200d]+(?=[{cased}])")


# Han ideographs, Hiragana, Katakana (and their extensions): scripts written without spaces between words
_CJK = re.compile("[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")


def cjk_bigrams(match: re.Match) -> str:
    """A run of CJK characters as its overlapping character bigrams (東京都 -> 東京 京都), the usual word stand-in
    where there is no segmenter (as Lucene's CJKAnalyzer); a run of one character stays one (a short token)."""
    run = match.group()
    return " " + " ".join(run[i:i + 2] for i in range(max(len(run) - 1, 1))) + " "


_ASCII_WORD = re.compile("[a-z]+")  # token_pattern() on lower-cased ASCII text
# soft hyphen, word joiner, BOM / zero-width no-break space, and the bidirectional controls (LRM, RLM, ALM, embeddings,
# overrides, isolates), which web text in Arabic, Hebrew or Persian carries and no reader sees
_INVISIBLE = re.compile("[\u00ad\u2060\ufeff\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")
TOKENIZER = ("HTML character references decoded (&eacute; -> e-acute, &amp; -> &; unknown ones removed); "
             "NFKC compatibility forms folded (ligatures, fullwidth and halfwidth forms, super/subscripts, Arabic "
             "presentation forms, non-breaking spaces; symbols such as the trade mark sign kept), lower-case (str.lower, not "
             "case-folded: Maße and Masse stay two words, a final sigma stays ς), then NFC (Turkish dotted capital I as i); soft hyphens, word joiners and bidirectional marks (LRM, RLM, isolates) removed; URLs, @mentions and retweet markers "
             "(RT before an @mention) removed; a #hashtag is its word without the #; emoji and other symbols are word "
             "breaks, and so are digits, hyphens and apostrophes (', ’ and the modifier letter ʼ, U+02BC) (a number is no word; e-mail -> e, mail; don't -> don, t, each then "
             "subject to the length and stop rules); a letter then letters, combining marks, or a zero-width (non-)joiner between letters (one beside a "
             "cased letter, as in Latin, Greek or Cyrillic text, removed: those scripts never write one); CJK runs "
             "as character bigrams; other scripts written without spaces (Thai, Lao, Khmer, Myanmar) are not segmented")

_HTML = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|</?[a-zA-Z][^<>]*>", re.S | re.I)
_URL = re.compile(r"(?:https?://|www\.)\S+|@\w+")
_RETWEET = re.compile(r"(?<!\w)rt\b(?=\s*:?\s*@\w)|\A\s*rt\s*:")  # "RT @user:", "RT: ..." (after lower-casing)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});")
# a tag as HTML writes one (<p>, </div>, <a href=...>, <br/>): not "<id@host>" or "a < b > c"
_TAG_HINT = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]{0,9}(?:\s+[a-zA-Z-]+(?:=[^<>]*)?)*\s*/?>")
FOLDED = "folded:"  # tally keys "folded:<character>": compatibility characters folded by NFKC, for corpus.json


def _decode_entity(match: re.Match) -> str:
    import html

    text = html.unescape(match.group())
    return " " if text == match.group() else text  # an unknown name (&foo;) is markup, not a word


@functools.lru_cache(maxsize=1)
def compatibility_folds() -> tuple[dict[int, str], re.Pattern]:
    """{code point: its NFKC form} for every character whose compatibility form differs from its canonical one
    (ligature fi -> fi, fullwidth A -> A, superscript two -> 2, no-break space -> space), except symbols (category S:
    the trade mark sign would become the letters tm glued to the word before it), and a pattern finding them."""
    table = {}
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if unicodedata.decomposition(ch):  # compatibility or canonical: a canonical one may hold a compatibility
            # character (U+1E9B long s with dot above is U+017F long s + U+0307), folded as its decomposed spelling is
            folded = unicodedata.normalize("NFKC", ch)
            if folded != unicodedata.normalize("NFC", ch) and unicodedata.category(ch)[0] != "S":
                table[code] = folded
    return table, re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(table)) + "]")


def fold_compatibility(text: str, tally: Counter | None = None) -> str:
    """``text`` with its compatibility characters folded (:func:`compatibility_folds`), each counted in ``tally``."""
    if text.isascii():
        return text
    table, pattern = compatibility_folds()
    if tally is not None:
        for ch in pattern.findall(text):
            tally[FOLDED + ch] += 1
    return text.translate(table)


@dataclass
class Preprocess:
    """Raw text -> counts. Defaults: lower-case alphabetic tokens of >= 2 letters, English stop list,
    URLs/@mentions/retweet markers removed and HTML character references decoded (``strip_urls``; see TOKENIZER), top ``vocab_size`` words by document frequency among those
    inside [min_df, max_df] (min_df a count, max_df a fraction; ties at the vocab_size cut by code-point order), or the
    fixed ``vocab_file``."""

    vocab_size: int | None = 5000
    min_df: int = 2
    max_df: float = 0.5
    vocab_file: str | None = None
    stop_words: bool = True
    min_token_length: int = 2
    strip_urls: bool = True
    min_doc_length: int = 1
    dedupe: bool = False
    strip_html: bool = False  # tags, comments, script/style blocks (off by default: "<id@host>" is text in mail)
    cjk_bigrams: bool = True  # Chinese/Japanese text has no spaces: a run would otherwise be one "word"

    def check(self) -> None:
        if self.vocab_size is not None and self.vocab_size < 1:
            raise CorpusError(f"preprocessing: vocab_size must be >= 1 or None, got {self.vocab_size}")
        if self.min_df < 1:
            raise CorpusError(f"preprocessing: min_df must be a document count >= 1, got {self.min_df}")
        if not 0 < self.max_df <= 1:
            raise CorpusError(f"preprocessing: max_df must be a fraction in (0, 1], got {self.max_df}")
        if self.min_doc_length < 1:
            raise CorpusError(f"preprocessing: min_doc_length must be >= 1, got {self.min_doc_length}")

    def tokenize(self, text: str, stop: frozenset[str] = frozenset(), tally: Counter | None = None) -> list[str]:
        """Lower-cased NFKC-folded NFC word tokens (see :func:`token_pattern`) of >= min_token_length characters, not in ``stop``;
        ``tally`` counts the tokens found and those dropped as short or as stop words."""
        # HTML tags first (a decoded &lt; is text, never a tag), then character references, before lower-casing
        # (&#201; is a capital letter)
        if self.strip_html:
            text = _HTML.sub(" ", text)
        elif tally is not None and _TAG_HINT.search(text):  # kept as asked, but counted: tag names become words
            tally["documents_with_html_tags_kept"] += 1
        if self.strip_urls or self.strip_html:
            text, n = _ENTITY.subn(_decode_entity, text)
            if tally is not None and n:
                tally["html_character_references_decoded"] += n
        # invisible characters that sit inside words (a soft hyphen from hyphenated web or PDF text, a word joiner or
        # stray byte-order mark) would split "infor\u00admation" into "infor" and "mation" (a zero-width space is a
        # word break, as in Thai, and stays one);
        # Turkish dotted capital I lower-cases to i plus a combining dot, a different word from the i it stands for;
        # compatibility forms (a PDF's ligature fi, fullwidth ABC) are the letters they stand for; NFC makes the
        # composed and decomposed spellings of one word (cafe + U+0301) one vocabulary entry
        # (folded before lower-casing: a fold may give a capital, as the Fraktur capital H does);
        # the modifier letter apostrophe (U+02BC, category Lm, so a "letter" to the pattern) looks like and stands for
        # the apostrophe ' (don\u02bct, Ukrainian \u043c\u02bc\u044f\u0442\u0430), which breaks words: one rule for both spellings;
        # str.lower, not str.casefold: folding would merge Ma\u00dfe and Masse (as masse) and write every final sigma as \u03c3
        text = unicodedata.normalize("NFC", fold_compatibility(_INVISIBLE.sub("", text).replace("\u0130", "i")
                                                                .replace("\u02bc", "'"), tally).lower())
        if "\u200c" in text or "\u200d" in text:  # a joiner inside a Latin, Greek or Cyrillic word: a stray, removed
            text, n = cased_joiner().subn("", text)
            if tally is not None and n:
                tally["removed_joiners_beside_cased_letters"] += n
        if self.strip_urls:
            text, rt = _RETWEET.subn(" ", text)  # before the @mention it is recognised by goes
            text, n = _URL.subn(" ", text)
            if tally is not None:
                tally["removed_urls_and_mentions"] += n
                tally["removed_retweet_markers"] += rt
        if self.cjk_bigrams:
            text = _CJK.sub(cjk_bigrams, text)
        n = self.min_token_length
        # ASCII text (after lower-casing, its letters are a-z; it has no marks or joiners) by a pattern 4x faster
        found = (_ASCII_WORD if text.isascii() else token_pattern()).findall(text)
        kept = [t for t in found if len(t) >= n and t not in stop]
        if tally is not None:
            short = sum(len(t) < n for t in found)
            tally["word_tokens"] += len(found)
            tally["dropped_tokens_short"] += short
            tally["dropped_tokens_stop"] += len(found) - short - len(kept)
        return kept

    def token_ids(self, text: str, stop: frozenset[str], ids: dict[str, int], tally: Counter) -> np.ndarray:
        """:meth:`tokenize` as int32 ids from ``ids`` (a word's first sight gives it the next id): 4 bytes a token
        instead of a Python string each (about 60), and one long document's tokens are never all strings at once."""
        if len(text) <= LONG_TEXT:
            toks = self.tokenize(text, stop, tally)
            for word in dict.fromkeys(toks):  # new words in order of first sight
                if word not in ids:
                    ids[word] = len(ids)
            return np.fromiter(map(ids.__getitem__, toks), dtype=np.int32, count=len(toks))
        # one long document (a book, a whole dump on one line): its text cut at white space into pieces of at most
        # LONG_TEXT characters, each tokenised alone. Words, URLs and CJK runs hold no white space, so no cut falls
        # inside one; HTML (a script block may span a cut) is stripped from the whole text first
        if self.strip_html:
            text = _HTML.sub(" ", text)
        pieces, start = [], 0
        while start < len(text):
            end = min(start + LONG_TEXT, len(text))
            if end < len(text):
                low = max(start, end - LONG_TEXT // 2)
                cut = max(text.rfind(space, low, end) for space in _SPACES)
                if cut < 0:  # no white space in half a piece: a hard cut, which may split one word in two; counted
                    tally["long_text_hard_cuts"] += 1
                end = cut + 1 if cut >= 0 else end
            pieces.append(self.token_ids(text[start:end], stop, ids, tally))
            start = end
        return np.concatenate(pieces) if pieces else np.zeros(0, np.int32)


LONG_TEXT = 1 << 22  # characters: documents longer than this are tokenised piece by piece (bounded memory)
_SPACES = (" ", "\n", "\t", "\r", "\xa0", "\u3000")  # where a long text may be cut


def _whitespace_tokens(text: str) -> int:
    """White-space separated tokens of ``text``, counted without a list of them for a long text."""
    if len(text) <= LONG_TEXT:
        return len(text.split())
    return sum(1 for _ in re.finditer(r"\S+", text))


def max_df_count(max_df: float, n_docs: int) -> int:
    """The largest document frequency ``max_df`` (a fraction) keeps of ``n_docs`` documents: floor(max_df * n_docs) with
    max_df the decimal it is written as, so a word in exactly that fraction is kept (0.29 of 100 documents is 29, where
    the float product 0.29 * 100 is 28.999999999999996)."""
    from fractions import Fraction

    return int(Fraction(repr(float(max_df))) * n_docs // 1)


def read_fixed_vocab(path) -> list[str]:
    """A ``vocab_file`` (:func:`read_vocab`) whose every word is in NFC, the form the tokeniser gives every text: a
    decomposed 'café' (e + U+0301) could never match a token, so the user's entry would be without effect."""
    try:
        vocab = read_vocab(path)
    except ReaderError as err:  # the hint 'pass encoding=' is for the source: a vocab_file has no encoding parameter
        if not isinstance(err.__cause__, UnicodeDecodeError):
            raise
        raise ReaderError(f"{str(err).split('; ')[0]}; a vocab_file is read as UTF-8 (the encoding parameter is the "
                          f"source's): save it as UTF-8") from err
    for line_no, word in enumerate(vocab, start=1):  # read_vocab refuses blank lines: word i is on line i
        if not word.isascii() and unicodedata.normalize("NFC", word) != word:
            raise ReaderError(f"{where(path, line_no)}: vocabulary word {word!r} is not in Unicode NFC (composed) "
                              f"form, which every text is read in, so no token could ever match it; write it as "
                              f"{unicodedata.normalize('NFC', word)!r} (e.g. normalise the file to NFC)")
    return vocab


def bag_of_words(texts: Sequence[str], prep: Preprocess, source: str = "text") -> tuple[sp.csr_matrix, list[str], np.ndarray, dict]:
    """Tokenise, (optionally) de-duplicate, choose the vocabulary, count, and drop short documents.

    Returns (counts, vocab, kept row numbers of ``texts``, report for corpus.json). Dropped
    documents are counted by reason in the report, never silently lost.
    """
    prep.check()
    fixed = read_fixed_vocab(prep.vocab_file) if prep.vocab_file else None  # its errors before any text is read
    stop = english_stop_words() if prep.stop_words else frozenset()
    tally: Counter = Counter()
    seen_ids: dict[str, int] = {}  # every distinct token -> a provisional id, in order of first sight
    # every document's token ids one after another in one int32 buffer, with offsets: 4 bytes a token and 8 a
    # document (a numpy array per document costs about 100 bytes more than its tokens)
    buffer, offsets = array.array("i"), [0]
    for text in texts:
        buffer.frombytes(prep.token_ids(text, stop, seen_ids, tally).tobytes())
        offsets.append(len(buffer))
    tok = np.frombuffer(buffer, dtype=np.int32) if len(buffer) else np.zeros(0, np.int32)
    offsets = np.array(offsets, dtype=np.int64)
    n_docs = len(offsets) - 1
    rows = np.arange(n_docs)
    report: dict[str, Any] = {**asdict(prep), "tokenizer": TOKENIZER,
                              "stop_list": f"scikit-learn ENGLISH_STOP_WORDS ({len(stop)} words)" if stop else "none",
                              "input_documents": len(texts),
                              "input_whitespace_tokens": int(sum(_whitespace_tokens(t) for t in texts))}
    import hashlib

    # the same token sequence (ids are one-to-one with words), by a 128-bit digest of its ids
    digests = [hashlib.blake2b(tok[a:b].tobytes(), digest_size=16).digest() for a, b in zip(offsets[:-1], offsets[1:])]
    if prep.dedupe:
        seen: set[bytes] = set()
        unique = []
        for i, key in enumerate(digests):
            if key not in seen:
                seen.add(key)
                unique.append(i)
        keep_doc = np.zeros(n_docs, dtype=bool)
        keep_doc[unique] = True
        lengths = np.diff(offsets)
        report["dropped_duplicates"] = n_docs - len(unique)
        report["dropped_tokens_duplicates"] = int(lengths[~keep_doc].sum())
        rows = np.array(unique, dtype=np.int64)
        tok = tok[np.repeat(keep_doc, lengths)]
        offsets = np.concatenate([[0], np.cumsum(lengths[keep_doc])])
        n_docs = len(rows)
    else:  # kept, as asked, but counted: a file included twice, or a feed's repeats, show up in corpus.json
        nonempty = [d for d, (a, b) in zip(digests, zip(offsets[:-1], offsets[1:])) if b > a]
        report["duplicate_documents_kept"] = len(nonempty) - len(set(nonempty))
    del digests
    words = list(seen_ids)  # provisional id -> word
    # counts over the provisional ids (repeats summed in place by scipy): document frequencies are its column counts
    small = len(tok) <= INT32_MAX  # int32 offsets: int64 ones would make scipy copy the token ids to int64
    every = sp.csr_matrix((np.ones(len(tok), dtype=np.int32), tok, offsets.astype(np.int32) if small else offsets),
                          shape=(n_docs, max(len(words), 1)))
    every.sum_duplicates()
    del tok, buffer
    if fixed is not None:
        vocab = fixed
        report["vocab_source"] = f"fixed vocabulary file {Path(prep.vocab_file).name} ({len(vocab)} words)"
        report["not_applied_with_vocab_file"] = ["vocab_size", "min_df", "max_df"]  # recorded above, but not cut by
        # a word the tokeniser never yields (upper case, a stop word, short, two tokens) is a column of zeros
        never = [w for w in vocab if prep.tokenize(w, stop) != [w]]
        if len(never) == len(vocab):  # else every document comes out empty, 'shorter than min_doc_length'
            raise ReaderError(f"{prep.vocab_file}: no word of the vocab_file can ever be a token (upper case, a stop "
                              f"word, too short, or not one token), e.g. {never[0]!r}: the corpus would be empty")
        if never:
            report["vocab_file_words_never_matched"] = {
                "count": len(never), "first": never[:5],
                "why": "the tokeniser never yields them (upper case, a stop word, too short, or not one token)"}
    else:
        df = np.bincount(every.indices, minlength=len(words))
        max_count = max_df_count(prep.max_df, n_docs)
        eligible = [(words[i], int(c)) for i, c in enumerate(df) if prep.min_df <= c <= max_count]
        eligible.sort(key=lambda wc: (-wc[1], wc[0]))  # by document frequency, ties alphabetical
        report["max_df_documents"] = max_count  # the largest document frequency kept, of n_docs documents
        if prep.vocab_size is not None and len(eligible) > prep.vocab_size:
            cut_df = eligible[prep.vocab_size - 1][1]  # a tie at the cut: the words of that frequency kept and left out
            tied = [w for w, c in eligible if c == cut_df]
            kept = sum(c == cut_df for _, c in eligible[: prep.vocab_size])
            if kept < len(tied):
                report["vocab_size_cut_tie"] = {"document_frequency": cut_df, "kept": kept, "left_out": len(tied) - kept,
                                                "first_left_out": tied[kept]}
            eligible = eligible[: prep.vocab_size]
        vocab = sorted(w for w, _ in eligible)
        report["vocab_source"] = ("top words by document frequency within [min_df, max_df] (both ends included; "
                                  "frequencies over the documents after dedupe, before short documents are dropped; "
                                  "max_df a fraction of them, as the decimal written); ties at the vocab_size cut "
                                  "broken by Unicode code-point order of the word (the first kept)")
        if not vocab:
            why = (f": {int((df > max_count).sum())} in more than max_df's {max_count} documents, "
                   f"{int((df < prep.min_df).sum())} in fewer than min_df's {prep.min_df}" if len(words) else
                   f"; of {tally['word_tokens']} word tokens, {tally['dropped_tokens_stop']} were stop words and "
                   f"{tally['dropped_tokens_short']} shorter than {prep.min_token_length} letters (digits and symbols are "
                   f"no words)")
            raise CorpusError(f"{source}: no word passes min_df={prep.min_df}, max_df={prep.max_df} "
                              f"({int((df > 0).sum())} distinct words in {n_docs} documents{why})")
    column = np.full(max(len(words), 1), -1, dtype=np.int32)  # provisional id -> vocabulary column, -1 outside it
    for i, w in enumerate(vocab):
        if w in seen_ids:
            column[seen_ids[w]] = i
    cols = column[every.indices]
    inside = cols >= 0
    kept_before = np.concatenate([[0], np.cumsum(inside, dtype=np.int64)])
    counts = sp.csr_matrix((every.data[inside], cols[inside], kept_before[every.indptr]), shape=(n_docs, len(vocab)))
    counts.sort_indices()
    n_tokens_found = int(every.data.sum())
    del every, cols, inside
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    keep = lengths >= prep.min_doc_length
    report["dropped_short"] = int((~keep).sum())
    report["dropped_empty"] = int((lengths == 0).sum())
    # every word token is accounted for: word_tokens = n_tokens + the dropped_tokens_* counts
    folded = Counter({key[len(FOLDED):]: n for key, n in tally.items() if key.startswith(FOLDED)})
    for key in [k for k in tally if k.startswith(FOLDED)]:
        del tally[key]
    if folded:  # which compatibility characters were read as the letters they stand for, and how often
        report["compatibility_characters_folded"] = {
            "count": sum(folded.values()),
            "most_common": {f"{ch} (U+{ord(ch):04X}) -> {compatibility_folds()[0][ord(ch)]}": n
                            for ch, n in folded.most_common(10)}}
    report.update(tally, dropped_tokens_outside_vocab=n_tokens_found - int(lengths.sum()),
                  dropped_tokens_short_documents=int(lengths[~keep].sum()))
    if not keep.any():
        raise CorpusError(f"{source}: every document is shorter than min_doc_length={prep.min_doc_length} after preprocessing")
    report["kept_documents"] = int(keep.sum())
    return counts[keep], vocab, rows[keep], report


def whitespace_bow(texts: Sequence[str], vocab: Sequence[str] | None = None, source: str = "text") -> tuple[sp.csr_matrix, list[str], np.ndarray, dict]:
    """Counts for text that is already preprocessed (tokens separated by white space), as distributed.

    With ``vocab`` given, a token outside it is an error naming the document; otherwise the vocabulary
    is every distinct token, sorted. Empty documents are dropped and counted.
    """
    tokens = [t.split() for t in texts]
    recomposed = 0
    if vocab is None:
        # one word in two Unicode forms (composed and decomposed accents, as a macOS file name or a PDF gives them)
        # is one word to a reader: NFC, as the raw-text tokeniser, so it is one column (counted, never silent)
        for toks in tokens:
            for i, w in enumerate(toks):
                if not w.isascii() and unicodedata.normalize("NFC", w) != w:
                    toks[i] = unicodedata.normalize("NFC", w)
                    recomposed += 1
        vocab = sorted({w for toks in tokens for w in toks})
    index = {w: i for i, w in enumerate(vocab)}
    indptr = np.zeros(len(tokens) + 1, dtype=np.int64)
    flat: list[int] = []
    for d, toks in enumerate(tokens):
        try:
            flat.extend(index[t] for t in toks)
        except KeyError as err:
            raise ReaderError(f"{source}: document {d} (line {d + 1}) has token {err.args[0]!r} outside the "
                              f"vocabulary") from None
        indptr[d + 1] = len(flat)
    counts = sp.csr_matrix((np.ones(len(flat), dtype=np.int32), np.array(flat, dtype=np.int32), indptr),
                           shape=(len(tokens), len(vocab)))
    counts.sum_duplicates()
    keep = np.flatnonzero(np.diff(counts.indptr) > 0)
    report = {"as_distributed": True, "tokenizer": "white space (text already preprocessed upstream)",
              "input_documents": len(texts), "dropped_empty": len(texts) - len(keep)}
    if recomposed:
        report["tokens_recomposed_to_nfc"] = recomposed
    return counts[keep], list(vocab), keep, report


def seeded_split(n_docs: int, test_fraction: float = 0.1, seed: int = 0) -> np.ndarray:
    """A deterministic train/test split: exactly round(test_fraction * n) documents in test."""
    if not 0 <= test_fraction < 1:
        raise CorpusError(f"test_fraction must be in [0, 1), got {test_fraction}")
    n_test = int(round(test_fraction * n_docs))
    split = np.full(n_docs, "train", dtype=object)
    split[np.random.default_rng([seed, 0x5E11]).permutation(n_docs)[:n_test]] = "test"
    return split


def corpus_from_bow(counts, vocab, docs: pd.DataFrame, meta: dict) -> Corpus:
    return Corpus(sp.csr_matrix(counts), list(vocab), docs.reset_index(drop=True), meta)


# --------------------------------------------------------------------------------------------
# shared base for the text datasets in datasets/


TEXT_PARAMS: dict[str, Any] = {"vocab_size": 5000, "min_df": 2, "max_df": 0.5, "vocab_file": None,
                               "min_doc_length": 2, "test_fraction": 0.1, "split_seed": 0}


class TextDataset(Dataset):
    """A real corpus built from raw text: subclasses return a frame with ``doc_id``, ``text`` and optional
    ``time`` (decimal year), ``label``, ``title``, ``split`` from :meth:`read`; this class preprocesses."""

    param_types: ClassVar[dict[str, tuple]] = {"vocab_size": (int, type(None)), "dedupe": (bool, type(None))}

    source: ClassVar[str] = ""
    time_unit: ClassVar[str] = "decimal year"
    dedupe: ClassVar[bool] = False

    def read(self, source_dir: Path, **params) -> pd.DataFrame:
        raise NotImplementedError

    @classmethod
    def preprocess(cls, p: dict[str, Any]) -> "Preprocess":
        return Preprocess(vocab_size=p["vocab_size"], min_df=p["min_df"], max_df=p["max_df"],
                          vocab_file=p["vocab_file"], min_doc_length=p["min_doc_length"],
                          dedupe=p.get("dedupe", cls.dedupe), strip_html=p.get("strip_html", False), cjk_bigrams=p.get("cjk_bigrams", True))

    @classmethod
    def check_params(cls, p):
        """The preprocessing ranges (min_df >= 1, max_df in (0, 1], ...) too: at DAG build, not after the read."""
        super().check_params(p)
        cls.preprocess(p).check()

    def build(self, corpora_dir=None, **p):
        self.notes: dict[str, Any] = {}  # what read() wants recorded in corpus.json (e.g. repaired values)
        self.culprit = self.name  # what errors name; read() may narrow it to the file it read
        if p.get("vocab_file"):  # a bad fixed vocabulary is named before the source is read (bag_of_words reads it)
            # a relative vocab_file is under corpora_dir, as user_text's path: not wherever the prepare was started
            p = {**p, "vocab_file": str(param_path(p["vocab_file"], corpora_dir))}
            read_fixed_vocab(p["vocab_file"])
        frame = self.read(corpora_dir, **p).reset_index(drop=True)
        repeated = frame["doc_id"].astype(str).duplicated() if len(frame) else pd.Series([], dtype=bool)
        if repeated.any():  # a source's own ids (an archive member stored twice): named here, not at docs.parquet
            doc_id = frame["doc_id"][repeated].iloc[0]
            raise ReaderError(f"{self.culprit}: document id {doc_id!r} appears {int((frame['doc_id'] == doc_id).sum())} "
                              f"times in the source ({int(repeated.sum())} repeats)")
        prep = self.preprocess(p)
        if "time" in frame.columns and prep.dedupe:  # keep the earliest copy of a duplicate
            frame = frame.iloc[np.lexsort((np.arange(len(frame)), frame["time"].to_numpy()))].reset_index(drop=True)
        counts, vocab, rows, report = bag_of_words(frame["text"].tolist(), prep, source=self.culprit)
        if "split" in frame.columns:  # the corpus's own split: how many of each split's documents were dropped
            dropped = frame["split"].drop(frame.index[rows]).value_counts()
            report["dropped_by_split"] = {str(k): int(dropped.get(k, 0)) for k in sorted(frame["split"].unique())}
        frame = frame.iloc[rows].reset_index(drop=True)
        if "split" not in frame.columns:
            frame["split"] = seeded_split(len(frame), p["test_fraction"], p["split_seed"])
            split_rule = f"seeded random: {p['test_fraction']:.0%} test, seed {p['split_seed']}"
        else:
            split_rule = "the corpus's own split"
        docs = make_docs_frame(len(frame), split=frame["split"], doc_id=frame["doc_id"],
                               **{c: frame[c] for c in ("time", "label", "title") if c in frame.columns})
        meta = {"name": self.name, "description": self.description, "source": self.source,
                "preprocessing": {**report, **self.notes}, "split_rule": split_rule}
        if "time" in frame.columns:
            meta["time_unit"] = self.time_unit
            # a time_ordered stream orders ties by doc id: how many distinct times there are says how much order it has
            meta["time_distinct_values"] = int(pd.Series(frame["time"]).nunique())
        return corpus_from_bow(counts, vocab, docs, meta)


def bow_meta(name: str, description: str, source: str, dropped_empty: int, split_rule: str, **extra) -> dict:
    return {"name": name, "description": description, "source": source, "split_rule": split_rule,
            "preprocessing": {"as_distributed": True, "dropped_empty": int(dropped_empty), **extra}}
