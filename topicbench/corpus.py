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
import pickle
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .io import atomic_directory, fault_point, recover_directory

COUNTS_FILE = "counts.npz"
VOCAB_FILE = "vocab.txt"
DOCS_FILE = "docs.parquet"
META_FILE = "corpus.json"
TRUTH_FILE = "truth.npz"  # optional: planted parameters of a synthetic corpus
SPLITS = ("train", "test")


class CorpusError(ValueError):
    """A corpus file is missing, malformed or inconsistent."""


# ---------------------------------------------------------------------------------------------
# the one reading layer: every loader reads files through these, so every failure names its file

# what a damaged, truncated, unreadable or wrongly shaped file raises somewhere inside numpy, zipfile,
# scipy, pyarrow or json: all become a CorpusError "<path>: <problem>"
READ_ERRORS = (OSError, ValueError, KeyError, IndexError, TypeError, EOFError, AttributeError, zipfile.BadZipFile,
               zlib.error, UnicodeDecodeError, pickle.UnpicklingError)


def _why(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


def read_npz(path, required: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """All arrays of an .npz archive (never unpickling); a missing ``required`` array is an error naming it."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise CorpusError(f"{path}: not an .npz archive (a single .npy array)")
            arrays = {key: archive[key] for key in archive.files}
    except CorpusError:
        raise
    except READ_ERRORS as err:
        raise CorpusError(f"{path}: cannot be read as an .npz archive ({_why(err)})") from err
    missing = [key for key in required if key not in arrays]
    if missing:
        raise CorpusError(f"{path}: missing array(s) {missing} (it has {sorted(arrays)})")
    return arrays


def read_sparse_npz(path) -> sp.csr_matrix:
    """A scipy.sparse CSR/CSC .npz (as ``scipy.sparse.save_npz`` writes it), fully checked, as CSR."""
    arrays = read_npz(path, ("format", "shape", "data", "indices", "indptr"))
    try:
        fmt = arrays["format"].item()
        fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
        if fmt not in ("csr", "csc"):
            raise CorpusError(f"{path}: sparse format {fmt!r}, expected 'csr' or 'csc'")
        shape = tuple(int(n) for n in arrays["shape"])
        if len(shape) != 2 or min(shape) < 0:
            raise CorpusError(f"{path}: shape {shape} is not a (documents, words) pair")
        cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
        matrix = cls((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)
        matrix.check_format(full_check=True)  # indptr monotone and ending at nnz, every index inside the shape
    except CorpusError:
        raise
    except READ_ERRORS as err:
        raise CorpusError(f"{path}: not a valid scipy.sparse matrix ({_why(err)})") from err
    return sp.csr_matrix(matrix)


def read_json(path, shape: type = dict):
    """A JSON file whose top level must be ``shape`` (dict or list)."""
    text = read_text_file(path)
    try:
        value = json.loads(text)
    except ValueError as err:
        raise CorpusError(f"{path}: not valid JSON ({err})") from err
    if not isinstance(value, shape):
        want = {dict: "a JSON object", list: "a JSON list"}.get(shape, shape.__name__)
        raise CorpusError(f"{path}: expected {want} at the top level, got {type(value).__name__}")
    return value


def read_text_file(path, encoding: str = "utf-8") -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise CorpusError(f"{path}: cannot be read ({_why(err)})") from err
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line}: not valid {encoding} ({err.reason} at byte {err.start})") from err


def read_parquet(path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as err:  # pyarrow raises several unrelated types (ArrowInvalid, OSError, ...) for a bad file
        raise CorpusError(f"{path}: cannot be read as parquet ({_why(err)})") from err


def is_corpus_dir(path) -> bool:
    """A complete topicbench corpus: its corpus.json (written last) has our shape and its files are there."""
    path = Path(path)
    try:
        meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    checksums = meta.get("checksums") if isinstance(meta, dict) else None
    return (isinstance(checksums, dict) and set(checksums) >= {COUNTS_FILE, VOCAB_FILE, DOCS_FILE}
            and isinstance(meta.get("n_docs"), int) and all((path / name).is_file() for name in checksums))


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
        if data.dtype.kind not in "biuf":
            raise CorpusError(f"{where}/{COUNTS_FILE}: counts must be numbers, got dtype {data.dtype}")
        bad = ~np.isfinite(data) | (data < 0) | (data != np.round(data))
        if bad.any():
            row, col = _position(counts, int(np.flatnonzero(bad)[0]))
            raise CorpusError(f"{where}/{COUNTS_FILE}: counts must be non-negative integers, got {data[bad][0]!r} "
                              f"at document row {row}, word id {col}")
    counts.sum_duplicates()
    counts.eliminate_zeros()
    if counts.nnz and counts.data.max() > INT32_MAX:  # int32 storage (the format): an overflow is an error, never a wrap
        row, col = _position(counts, int(np.argmax(counts.data)))
        raise CorpusError(f"{where}/{COUNTS_FILE}: count {int(counts.data.max())} at document row {row}, word id {col} "
                          f"exceeds the int32 counts of the corpus format ({INT32_MAX})")
    if n_docs == 0:
        raise CorpusError(f"{where}: the corpus has no documents")
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
    if docs["doc_id"].isna().any():
        raise CorpusError(f"{where}/{DOCS_FILE}: doc_id missing at row {int(np.flatnonzero(docs['doc_id'].isna())[0])}")
    bad = ~docs["split"].isin(SPLITS)
    if bad.any():
        raise CorpusError(f"{where}/{DOCS_FILE}: split must be one of {SPLITS}, got {docs['split'][bad].iloc[0]!r} "
                          f"at row {int(np.flatnonzero(bad)[0])}")
    if not (docs["split"] == "train").any():
        raise CorpusError(f"{where}/{DOCS_FILE}: no document in the train split ({n_docs} documents, all test)")
    return counts


INT32_MAX = int(np.iinfo(np.int32).max)


def _position(counts: sp.csr_matrix, k: int) -> tuple[int, int]:
    """(document row, word id) of the k-th stored entry of a CSR matrix."""
    return int(np.searchsorted(counts.indptr, k, side="right") - 1), int(counts.indices[k])


def save_corpus(corpus: Corpus, path: str | os.PathLike) -> Path:
    """Write a corpus directory atomically: it appears complete or not at all."""
    path = Path(path)
    counts = validate(corpus.counts, corpus.vocab, corpus.docs, str(path))
    with atomic_directory(path, complete=is_corpus_dir) as staging:
        fault_point("prepare.write_counts")
        sp.save_npz(staging / COUNTS_FILE, counts, compressed=True)
        fault_point("prepare.write_vocab")
        (staging / VOCAB_FILE).write_text("".join(f"{w}\n" for w in corpus.vocab), encoding="utf-8")
        fault_point("prepare.write_docs")
        docs = corpus.docs.reset_index(drop=True).copy()
        docs["doc_id"] = docs["doc_id"].astype(str)
        docs.to_parquet(staging / DOCS_FILE, index=False)
        if corpus.truth:
            fault_point("prepare.write_truth")
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
        write_meta(staging, meta)
    return path


def write_meta(staging: Path, meta: dict) -> None:
    """corpus.json goes last and by rename: its presence is what makes a staged corpus complete."""
    fault_point("prepare.write_meta")
    tmp = staging / f".{META_FILE}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, staging / META_FILE)


def load_corpus(path: str | os.PathLike, verify_checksums: bool = True) -> Corpus:
    """Load and validate a corpus directory; every failure names the file and the problem.

    A prepare killed mid-swap is finished or undone first (``io.recover_directory``).
    """
    path = Path(path)
    try:
        recover_directory(path, is_corpus_dir)
    except OSError as err:
        raise CorpusError(f"{path}: cannot recover an interrupted prepare ({_why(err)})") from err
    if not path.is_dir():
        raise CorpusError(f"{path}: corpus directory does not exist" if not path.exists() else f"{path}: not a directory")
    for name in (COUNTS_FILE, VOCAB_FILE, DOCS_FILE, META_FILE):
        if not (path / name).is_file():
            raise CorpusError(f"{path / name}: missing" if not (path / name).exists() else f"{path / name}: not a file")
    meta = read_json(path / META_FILE, dict)
    checksums = meta.get("checksums", {})
    if not isinstance(checksums, dict) or not all(isinstance(v, str) for v in checksums.values()):
        raise CorpusError(f"{path / META_FILE}: 'checksums' must map file names to sha256 strings")
    if verify_checksums:
        for name, expected in checksums.items():
            if not (path / name).is_file():
                raise CorpusError(f"{path / name}: missing (listed in {META_FILE} checksums)")
            try:
                actual = _sha256(path / name)
            except OSError as err:
                raise CorpusError(f"{path / name}: cannot be read ({_why(err)})") from err
            if actual != expected:
                raise CorpusError(f"{path / name}: checksum mismatch with {META_FILE} (file changed or corrupt)")
    counts = read_sparse_npz(path / COUNTS_FILE)
    vocab = read_text_file(path / VOCAB_FILE).splitlines()
    docs = read_parquet(path / DOCS_FILE)
    counts = validate(counts, vocab, docs, str(path))
    for key, actual in (("n_docs", counts.shape[0]), ("n_words", counts.shape[1])):
        if key in meta and meta[key] != actual:
            raise CorpusError(f"{path / META_FILE}: {key}={meta[key]!r} but the corpus files have {actual}")
    truth = None
    if (path / TRUTH_FILE).exists():
        truth = read_npz(path / TRUTH_FILE)
        topics, theta = truth.get("topics"), truth.get("theta")
        if topics is not None and (topics.ndim != 2 or topics.shape[1] != counts.shape[1]):
            raise CorpusError(f"{path / TRUTH_FILE}: topics has shape {topics.shape}, expected (K, {counts.shape[1]})")
        if theta is not None and (theta.ndim != 2 or theta.shape[0] != counts.shape[0]):
            raise CorpusError(f"{path / TRUTH_FILE}: theta has shape {theta.shape}, expected ({counts.shape[0]}, K)")
    return Corpus(counts, vocab, docs, meta, truth)
