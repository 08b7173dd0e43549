"""The prepared-corpus directory format (DESIGN.md, "Corpus"), with load, save and validate.

A prepared corpus is a directory holding ``counts.npz`` (CSR, documents x vocabulary,
integer counts), ``vocab.txt`` (line i is column i), ``docs.parquet`` (one row per
document: ``doc_id``, ``split``, optional ``time``, ``label``, ``title``) and
``corpus.json`` (name, source, preprocessing, counts and checksums).

Every problem found at load time raises :class:`CorpusError` naming the file and the
problem, because a silently wrong corpus costs hours of compute before anyone notices.
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .io import atomic_directory

COUNTS_FILE = "counts.npz"
VOCAB_FILE = "vocab.txt"
DOCS_FILE = "docs.parquet"
META_FILE = "corpus.json"
TRUTH_FILE = "truth.npz"  # optional: planted parameters of a synthetic corpus
SPLITS = ("train", "test")


class CorpusError(ValueError):
    """A corpus file is missing, malformed or inconsistent."""


@dataclass
class Corpus:
    counts: sp.csr_matrix
    vocab: list[str]
    docs: pd.DataFrame
    meta: dict = field(default_factory=dict)
    truth: dict | None = None  # synthetic corpora: planted "topics" (K x V), "theta" (docs x K), ...

    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        return self.counts.shape[1]

    @property
    def n_tokens(self) -> int:
        return int(self.counts.sum())

    @property
    def has_time(self) -> bool:
        return "time" in self.docs.columns and self.docs["time"].notna().all()

    def select(self, rows: np.ndarray) -> "Corpus":
        """A corpus of the given document rows (order kept), sharing the vocabulary."""
        rows = np.asarray(rows)
        truth = None
        if self.truth is not None:
            truth = {k: (v[rows] if k == "theta" else v) for k, v in self.truth.items()}
        return Corpus(self.counts[rows], self.vocab, self.docs.iloc[rows].reset_index(drop=True), dict(self.meta), truth)

    def split(self, name: str) -> "Corpus":
        if name not in SPLITS:
            raise CorpusError(f"unknown split {name!r}; expected one of {SPLITS}")
        return self.select(np.flatnonzero(self.docs["split"].to_numpy() == name))

    def summary(self) -> dict:
        lengths = np.asarray(self.counts.sum(axis=1)).ravel()
        out = {
            "name": self.meta.get("name", "?"),
            "documents": self.n_docs,
            "vocabulary": self.n_words,
            "tokens": self.n_tokens,
            "train_documents": int((self.docs["split"] == "train").sum()),
            "test_documents": int((self.docs["split"] == "test").sum()),
            "length_quantiles": {f"q{int(q * 100)}": float(np.quantile(lengths, q)) for q in (0, 0.1, 0.5, 0.9, 1)},
            "mean_length": float(lengths.mean()) if len(lengths) else 0.0,
        }
        if "time" in self.docs.columns and self.docs["time"].notna().any():
            out["time_span"] = [str(self.docs["time"].min()), str(self.docs["time"].max())]
        return out


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def make_docs_frame(n_docs: int, split=None, doc_id=None, time=None, label=None, title=None) -> pd.DataFrame:
    """A ``docs.parquet`` frame with defaults: ids ``d0, d1, ...``, everything in ``train``."""
    frame = pd.DataFrame({"doc_id": [f"d{i}" for i in range(n_docs)] if doc_id is None else list(map(str, doc_id))})
    frame["split"] = "train" if split is None else list(split)
    for name, values in (("time", time), ("label", label), ("title", title)):
        if values is not None:
            frame[name] = list(values)
    return frame


def validate(counts: sp.spmatrix, vocab: list[str], docs: pd.DataFrame, where: str = "corpus") -> sp.csr_matrix:
    """Check the three parts agree; return the counts as canonical int32 CSR."""
    if not sp.issparse(counts):
        raise CorpusError(f"{where}/{COUNTS_FILE}: counts must be a scipy.sparse matrix, got {type(counts).__name__}")
    counts = sp.csr_matrix(counts)
    n_docs, n_words = counts.shape
    if len(vocab) != n_words:
        raise CorpusError(
            f"{where}/{VOCAB_FILE}: vocabulary has {len(vocab)} words but {COUNTS_FILE} has {n_words} columns"
        )
    if len(set(vocab)) != len(vocab):
        seen, dup = set(), None
        for word in vocab:
            if word in seen:
                dup = word
                break
            seen.add(word)
        raise CorpusError(f"{where}/{VOCAB_FILE}: duplicate word {dup!r}")
    if counts.nnz:
        if counts.indices.min() < 0 or counts.indices.max() >= n_words:
            raise CorpusError(f"{where}/{COUNTS_FILE}: word id out of range [0, {n_words})")
        data = counts.data
        if not np.all(np.isfinite(data)) or np.any(data < 0) or np.any(data != np.round(data)):
            raise CorpusError(f"{where}/{COUNTS_FILE}: counts must be non-negative integers")
    counts.sum_duplicates()
    counts.eliminate_zeros()
    counts = sp.csr_matrix((counts.data.astype(np.int32), counts.indices.astype(np.int32), counts.indptr.astype(np.int64)), shape=counts.shape)
    lengths = np.diff(counts.indptr)
    if np.any(lengths == 0):
        first = int(np.flatnonzero(lengths == 0)[0])
        raise CorpusError(f"{where}/{COUNTS_FILE}: document row {first} is empty ({int((lengths == 0).sum())} empty documents)")
    if len(docs) != n_docs:
        raise CorpusError(f"{where}/{DOCS_FILE}: {len(docs)} rows but {COUNTS_FILE} has {n_docs} documents")
    for column in ("doc_id", "split"):
        if column not in docs.columns:
            raise CorpusError(f"{where}/{DOCS_FILE}: missing column {column!r}")
    if docs["doc_id"].duplicated().any():
        raise CorpusError(f"{where}/{DOCS_FILE}: duplicate doc_id {docs['doc_id'][docs['doc_id'].duplicated()].iloc[0]!r}")
    bad = ~docs["split"].isin(SPLITS)
    if bad.any():
        raise CorpusError(f"{where}/{DOCS_FILE}: split must be one of {SPLITS}, got {docs['split'][bad].iloc[0]!r}")
    return counts


def save_corpus(corpus: Corpus, path: str | os.PathLike) -> Path:
    """Write a corpus directory atomically: it appears complete or not at all."""
    path = Path(path)
    counts = validate(corpus.counts, corpus.vocab, corpus.docs, str(path))
    with atomic_directory(path) as staging:
        sp.save_npz(staging / COUNTS_FILE, counts, compressed=True)
        (staging / VOCAB_FILE).write_text("".join(f"{w}\n" for w in corpus.vocab), encoding="utf-8")
        docs = corpus.docs.reset_index(drop=True).copy()
        docs["doc_id"] = docs["doc_id"].astype(str)
        docs.to_parquet(staging / DOCS_FILE, index=False)
        if corpus.truth:
            np.savez_compressed(staging / TRUTH_FILE, **corpus.truth)
        meta = dict(corpus.meta)
        meta.update(
            n_docs=int(counts.shape[0]),
            n_words=int(counts.shape[1]),
            n_tokens=int(counts.sum()),
            n_train=int((docs["split"] == "train").sum()),
            n_test=int((docs["split"] == "test").sum()),
            checksums={name: _sha256(staging / name) for name in (COUNTS_FILE, VOCAB_FILE, DOCS_FILE)},
        )
        (staging / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
    return path


def load_corpus(path: str | os.PathLike, verify_checksums: bool = True) -> Corpus:
    """Load and validate a corpus directory; every failure names the file and the problem."""
    path = Path(path)
    if not path.is_dir():
        raise CorpusError(f"{path}: corpus directory does not exist")
    for name in (COUNTS_FILE, VOCAB_FILE, DOCS_FILE, META_FILE):
        if not (path / name).is_file():
            raise CorpusError(f"{path / name}: missing")
    try:
        meta = json.loads((path / META_FILE).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CorpusError(f"{path / META_FILE}: not valid JSON ({err})") from err
    if verify_checksums:
        for name, expected in meta.get("checksums", {}).items():
            if (path / name).is_file() and _sha256(path / name) != expected:
                raise CorpusError(f"{path / name}: checksum mismatch with {META_FILE} (file changed or corrupt)")
    try:
        counts = sp.load_npz(path / COUNTS_FILE)
    except (zipfile.BadZipFile, ValueError, OSError, KeyError, EOFError) as err:
        raise CorpusError(f"{path / COUNTS_FILE}: cannot be read as a scipy.sparse .npz ({err})") from err
    try:
        vocab = (path / VOCAB_FILE).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as err:
        raise CorpusError(f"{path / VOCAB_FILE}: not UTF-8 ({err})") from err
    try:
        docs = pd.read_parquet(path / DOCS_FILE)
    except Exception as err:  # pyarrow raises several unrelated types for a bad file
        raise CorpusError(f"{path / DOCS_FILE}: cannot be read as parquet ({err})") from err
    counts = validate(counts, vocab, docs, str(path))
    truth = None
    if (path / TRUTH_FILE).is_file():
        with np.load(path / TRUTH_FILE) as archive:
            truth = {k: archive[k] for k in archive.files}
    return Corpus(counts, vocab, docs, meta, truth)
