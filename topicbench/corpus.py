"""The prepared-corpus directory format (DESIGN.md, "Corpus"): one writer, bounded-memory readers.

A prepared corpus is a directory holding

- ``counts/``: the documents x vocabulary counts as CSR row shards, ``NNNNN.indptr.npy`` (int64, local,
  starting at 0), ``NNNNN.indices.npy`` (int32 word ids, increasing within a document) and ``NNNNN.data.npy``
  (int32 counts >= 1), :data:`SHARD_ROWS` documents per shard, and ``counts/manifest.json`` (each shard's row
  range, nnz and the sha256 of each of its files);
- ``vocab.txt`` (line i is column i), ``docs.parquet`` (one row per document: ``doc_id``, ``split``, optional
  ``time``, ``label``, ``title``; one row group per shard), optional ``truth.npz`` (planted parameters);
- ``corpus.json``, written last: name, source, preprocessing, counts and the sha256 of the manifest, vocab and docs.

Why uncompressed ``.npy`` shards: a minibatch of random rows, a held-out chunk or a validation pass is then a
memory map and a gather (no decompression, no reader library, numpy only), at the price of ~8 bytes per
stored entry on disk (deflate saved ~2x). The maps are released (``madvise(MADV_DONTNEED)``) after every read, so
the pages read count towards the page cache, not towards the process: a 3.3M-document corpus streams in the
memory of one minibatch plus int64 row indices. Parquet row groups would need a decode per read and random rows
across groups; Zarr is one more dependency for what three flat arrays per shard do. Shards are fixed row ranges,
so the bytes do not depend on how a writer was fed (the in-memory and the streaming paths write the same files).

:class:`CorpusWriter` writes every corpus (``save_corpus`` and the streaming recipes): CSR chunks are appended,
validated and streamed into the current shard (memory: one chunk). :func:`load_corpus` checks every checksum and
validates shard by shard, then returns a :class:`Corpus` whose rows are read on demand; ``select``/``split`` give
views (int64 row indices) that read nothing until asked. A folder with the older single ``counts.npz`` still
loads (into memory, as before); ``topicbench prepare`` rewrites it in the sharded format.

Every problem found at load time raises :class:`CorpusError` naming the file and the problem, because a silently
wrong corpus costs hours of compute before anyone notices.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import pickle
import re
import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .io import atomic_directory, check_path_argument, fault_point, file_sha256, recover_directory

COUNTS_DIR = "counts"
MANIFEST_FILE = "counts/manifest.json"
LEGACY_COUNTS_FILE = "counts.npz"  # the single-file format of earlier versions: still loads (into memory)
COUNTS_FILE = MANIFEST_FILE  # what corpus.json checksums for the counts
VOCAB_FILE = "vocab.txt"
DOCS_FILE = "docs.parquet"
META_FILE = "corpus.json"
TRUTH_FILE = "truth.npz"  # optional: planted parameters of a synthetic corpus
SPLITS = ("train", "test")
SHARD_ROWS = 1 << 16  # documents per shard: ~50 MB of int32 pairs at 250 distinct words per document
SHARD_FORMAT = "topicbench-csr-shards/1"
INT32_MAX = int(np.iinfo(np.int32).max)


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
    return (isinstance(checksums, dict) and set(checksums) >= {VOCAB_FILE, DOCS_FILE}
            and bool(set(checksums) & {MANIFEST_FILE, LEGACY_COUNTS_FILE})
            and isinstance(meta.get("n_docs"), int) and all((path / name).is_file() for name in checksums))


SHARD_FILE = re.compile(r"\d{5,}\.(indptr|indices|data)\.npy")  # CorpusWriter._open_shard's names


def foreign_counts_entries(path) -> list[str]:
    """What ``counts/`` of corpus folder ``path`` holds that a prepare does not write (its manifest and shard files):
    a user's file or folder there, which replacing the corpus would delete with it. [] without a counts folder."""
    try:
        entries = sorted(os.scandir(Path(path) / COUNTS_DIR), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [f"{COUNTS_DIR}/{e.name}" for e in entries
            if e.is_symlink() or not e.is_file() or not (e.name == Path(MANIFEST_FILE).name or SHARD_FILE.fullmatch(e.name))]


def holds_only_corpus_files(path) -> bool:
    """A folder holding nothing but what a prepare writes (whole or half-written): a killed prepare's leftover
    may be removed, a user's folder that merely looks like one (``.corpus.old-2024`` with notes) never is."""
    path = Path(path)
    files = {LEGACY_COUNTS_FILE, VOCAB_FILE, DOCS_FILE, META_FILE, TRUTH_FILE, ".ids.hash", ".theta.raw"}  # + CorpusWriter's scratch
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    return all(not entry.is_symlink() and (entry.is_dir() if entry.name == COUNTS_DIR else entry.is_file()
               and (entry.name in files or entry.name.startswith(".") and entry.name.endswith(".tmp")))
               for entry in entries) and not foreign_counts_entries(path)


# ---------------------------------------------------------------------------------------------
# counts: rows read on demand, from memory or from the memory-mapped shards


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + n)`` for every (s, n), without a Python loop."""
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(np.asarray(starts, np.int64) - offsets, lengths) + np.arange(total, dtype=np.int64)


def _csr(data, indices, indptr, shape) -> sp.csr_matrix:
    # through scipy's constructor, so index dtypes are what slicing an in-memory matrix gives (kernels specialise on them)
    return sp.csr_matrix((data, indices, indptr), shape=shape)


class MemoryCounts:
    """Rows of an in-memory CSR matrix (built corpora, and folders in the single-``counts.npz`` format)."""

    def __init__(self, matrix: sp.csr_matrix):
        self.matrix = matrix
        self.shape = matrix.shape

    def rows(self, rows: np.ndarray) -> sp.csr_matrix:
        return self.matrix[rows]

    def block(self, start: int, stop: int) -> sp.csr_matrix:
        return self.matrix[start:stop]

    def release(self) -> None:
        pass


class ShardedCounts:
    """Rows of the ``counts/`` shards, gathered from memory maps that are released after every read."""

    def __init__(self, root: Path, manifest: dict):
        self.root = Path(root)
        self.shards = manifest["shards"]
        self.shape = (int(manifest["n_docs"]), int(manifest["n_words"]))
        self.starts = np.array([s["rows"][0] for s in self.shards] + [self.shape[0]], dtype=np.int64)
        self._maps: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._fds: dict[tuple[int, str], tuple[int, int]] = {}
        self._inodes: dict[tuple[int, str], int] = {}

    def __del__(self):
        for fd, _ in getattr(self, "_fds", {}).values():
            try:
                os.close(fd)
            except OSError:
                pass

    def shard_file(self, s: int, part: str) -> Path:
        return self.root / COUNTS_DIR / self.shards[s]["files"][part]

    def arrays(self, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, indices, data) of shard s, memory-mapped (opened once, kept)."""
        if s not in self._maps:
            for part in ("indptr", "indices", "data"):  # the files mapped: a later pread must read these same files
                with contextlib.suppress(OSError):
                    self._inodes[s, part] = os.stat(self.shard_file(s, part)).st_ino
            self._maps[s] = tuple(_open_npy(self.shard_file(s, part)) for part in ("indptr", "indices", "data"))
        return self._maps[s]

    def release(self, shard: int | None = None) -> None:
        """Drop the pages read (of one shard, or all) from this process; they stay in the page cache. Needed after
        every shard's gather: a read fault maps up to 64 KB of cached neighbours (the kernel's fault-around, which
        MADV_RANDOM does not stop), so 1,024 random rows would otherwise map ~100 MB."""
        for s in (self._maps if shard is None else [shard]):
            for array in self._maps.get(s, ()):
                handle = getattr(array, "_mmap", None)
                if handle is not None and len(array):
                    handle.madvise(mmap.MADV_DONTNEED)

    def _fd(self, s: int, part: str) -> tuple[int, int]:
        """(file descriptor, byte offset of the data) of a shard file, opened once."""
        key = (s, part)
        if key not in self._fds:
            array = self.arrays(s)[("indptr", "indices", "data").index(part)]
            fd = os.open(self.shard_file(s, part), os.O_RDONLY)
            if os.fstat(fd).st_ino != self._inodes.get(key):  # a prepare swapped the folder since it was mapped
                os.close(fd)
                raise CorpusError(f"{self.shard_file(s, part)}: replaced while this process was reading the corpus "
                                  f"(prepared again into the same folder?): its rows would mix two corpora; rerun")
            self._fds[key] = (fd, int(array.offset))
        return self._fds[key]

    def rows(self, rows: np.ndarray) -> sp.csr_matrix:
        """Random rows: row pointers from the (released) maps, word ids and counts by ``pread`` straight into the
        result. Memory-mapped gathers would map far more than they read: every read fault maps the whole cached
        folio around it (up to ~1 MB with large folios), so 1,024 random rows could map ~100 MB at once."""
        rows = np.asarray(rows, dtype=np.int64)
        shard = np.searchsorted(self.starts, rows, side="right") - 1
        lo, lengths = np.empty(len(rows), np.int64), np.empty(len(rows), np.int64)
        shards = [(int(s), np.flatnonzero(shard == s)) for s in np.unique(shard)]
        for s, mine in shards:
            indptr = self.arrays(s)[0]
            local = rows[mine] - self.starts[s]
            lo[mine], lengths[mine] = indptr[local], indptr[local + 1] - indptr[local]
            self.release(s)
        out_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=out_ptr[1:])
        indices, data = np.empty(out_ptr[-1], np.int32), np.empty(out_ptr[-1], np.int32)
        for s, mine in shards:
            for part, out in (("indices", indices), ("data", data)):
                fd, offset = self._fd(s, part)
                view = memoryview(out).cast("B")
                for a, n, t in zip(lo[mine].tolist(), lengths[mine].tolist(), out_ptr[mine].tolist()):
                    if os.preadv(fd, [view[4 * t: 4 * (t + n)]], offset + 4 * a) != 4 * n:
                        raise CorpusError(f"{self.shard_file(s, part)}: ended inside document row {self.starts[s] + a}")
        return _csr(data, indices, out_ptr, (len(rows), self.shape[1]))

    def block(self, start: int, stop: int) -> sp.csr_matrix:
        """Rows start..stop-1: slices of the shards they span (no gather)."""
        parts = []
        for s in range(int(np.searchsorted(self.starts, start, side="right") - 1), len(self.shards)):
            if self.starts[s] >= stop:
                break
            indptr, indices, data = self.arrays(s)
            a, b = max(start, self.starts[s]) - self.starts[s], min(stop, self.starts[s + 1]) - self.starts[s]
            lo, hi = int(indptr[a]), int(indptr[b])
            parts.append((indptr[a:b + 1] - lo, np.array(indices[lo:hi]), np.array(data[lo:hi])))
            self.release(s)
        if not parts:
            return _csr(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(1, np.int64), (0, self.shape[1]))
        offsets = np.cumsum([0] + [p[0][-1] for p in parts])
        indptr = np.concatenate([parts[0][0][:1]] + [p[0][1:] + off for p, off in zip(parts, offsets)])
        return _csr(np.concatenate([p[2] for p in parts]), np.concatenate([p[1] for p in parts]), indptr,
                    (stop - start, self.shape[1]))


def _open_npy(path: Path) -> np.ndarray:
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except READ_ERRORS as err:
        raise CorpusError(f"{path}: cannot be read as a .npy array ({_why(err)})") from err


# ---------------------------------------------------------------------------------------------
# docs: the table in memory, or columns read from docs.parquet when asked


class DocsFile:
    """``docs.parquet`` read a column at a time (a 3.3M-row table of Python strings would not fit the budget)."""

    def __init__(self, path: Path, n_docs: int):
        self.path, self.n_docs = Path(path), n_docs
        self._columns: dict[str, object] = {}
        try:  # the file loaded: a column read later must come from it, not from a corpus prepared again since
            self._inode = os.stat(self.path).st_ino
        except OSError:
            self._inode = None

    @contextlib.contextmanager
    def _open(self):
        """The file as loaded, open; a CorpusError if a prepare has since put another docs.parquet at its path."""
        try:
            handle = open(self.path, "rb")
        except OSError as err:
            raise CorpusError(f"{self.path}: cannot be read ({_why(err)})") from err
        with handle:
            if self._inode is not None and os.fstat(handle.fileno()).st_ino != self._inode:
                raise CorpusError(f"{self.path}: replaced while this process was reading the corpus (prepared again "
                                  f"into the same folder?): its columns would mix two corpora; rerun")
            yield handle

    def names(self) -> list[str]:
        import pyarrow.parquet as pq

        with self._open() as handle:
            try:
                return list(pq.read_schema(handle).names)
            except Exception as err:  # pyarrow's several error types for a bad file
                raise CorpusError(f"{self.path}: cannot be read as parquet ({_why(err)})") from err

    def arrow(self, name: str):
        """One column as a pyarrow ChunkedArray (strings stay in Arrow buffers: ~12 bytes per short id)."""
        if name not in self._columns:
            import pyarrow.parquet as pq

            with self._open() as handle:
                try:
                    self._columns[name] = pq.read_table(handle, columns=[name]).column(0)
                except Exception as err:
                    raise CorpusError(f"{self.path}: cannot read column {name!r} ({_why(err)})") from err
        return self._columns[name]

    def arrow_batches(self, columns: list[str], size: int = SHARD_ROWS):
        import pyarrow as pa
        import pyarrow.parquet as pq

        with self._open() as handle:
            try:
                yield from pq.ParquetFile(handle).iter_batches(batch_size=size, columns=columns)
            except Exception as err:
                raise CorpusError(f"{self.path}: cannot be read as parquet ({_why(err)})") from err
        pa.default_memory_pool().release_unused()

    def batches(self, columns: list[str], size: int = SHARD_ROWS):
        import pyarrow.parquet as pq

        for batch in self.arrow_batches(columns, size):
            yield batch.to_pandas()

    def frame(self) -> pd.DataFrame:
        with self._open() as handle:
            try:
                return pd.read_parquet(handle)
            except Exception as err:  # as read_parquet: pyarrow's several types for a bad file
                raise CorpusError(f"{self.path}: cannot be read as parquet ({_why(err)})") from err


class Column:
    """A docs column of a corpus view, indexable by row arrays; read from docs.parquet on first use."""

    def __init__(self, docs, name: str, rows: np.ndarray | None):
        self.docs, self.name, self.rows = docs, name, rows
        self._values = None

    def _base(self) -> np.ndarray:
        if self._values is None:
            if isinstance(self.docs, pd.DataFrame):
                self._values = self.docs[self.name].to_numpy()
            else:
                values = self.docs.arrow(self.name)
                self._values = values if pa_is_string(values) else values.to_numpy()
        return self._values

    def __getitem__(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        base = rows if self.rows is None else self.rows[rows]
        values = self._base()
        if isinstance(values, np.ndarray):
            return values[base]
        return values.take(base).to_numpy(zero_copy_only=False)

    def __len__(self) -> int:
        if self.rows is not None:
            return len(self.rows)
        return len(self.docs) if isinstance(self.docs, pd.DataFrame) else self.docs.n_docs

    def to_numpy(self) -> np.ndarray:
        return self[np.arange(len(self))]

    def defer(self, rows) -> "Deferred":
        """``self[rows]``, read only if someone looks (a minibatch's doc ids: reading the whole column for every
        stream would cost ~12 bytes per document that no method uses)."""
        return Deferred(self, np.asarray(rows, dtype=np.int64))


class Deferred:
    """A column's values at some rows, read on first use; behaves as the numpy array it stands for."""

    def __init__(self, column: Column, rows: np.ndarray):
        self.column, self.rows, self._values = column, rows, None

    def __array__(self, dtype=None, copy=None):
        if self._values is None:
            self._values = self.column[self.rows]
        return self._values if dtype is None else self._values.astype(dtype)

    def __getitem__(self, index):
        if isinstance(index, slice) or (isinstance(index, np.ndarray) and index.dtype.kind in "iu"):
            return Deferred(self.column, self.rows[index])
        return np.asarray(self)[index]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(np.asarray(self))

    def __eq__(self, other):
        return np.asarray(self) == other

    def __repr__(self) -> str:
        return repr(np.asarray(self))


def pa_is_string(values) -> bool:
    import pyarrow as pa

    return pa.types.is_string(values.type) or pa.types.is_large_string(values.type)


class RowRange:
    """Rows start..stop-1 of a base corpus as a view's index, without the int64 array (26 MB at 3.3M documents):
    a split stored in one block (the synthetic recipes' train split) costs nothing per document."""

    def __init__(self, start: int, stop: int):
        self.start, self.stop = int(start), int(stop)

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, rows):
        if isinstance(rows, slice):
            a, b, step = rows.indices(len(self))
            return RowRange(self.start + a, self.start + b) if step == 1 else np.asarray(self)[rows]
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size and (rows.min() < -len(self) or rows.max() >= len(self)):
            raise IndexError(f"row index out of range for a view of {len(self)} documents")
        return np.where(rows < 0, rows + self.stop, rows + self.start)

    def __array__(self, dtype=None, copy=None):
        return np.arange(self.start, self.stop, dtype=dtype or np.int64)


def _as_rows(rows):
    return rows if isinstance(rows, RowRange) else np.asarray(rows, dtype=np.int64)


class Truth(Mapping):
    """Planted parameters; ``theta`` (documents x K) is read only when asked, and only a view's rows."""

    def __init__(self, arrays: Mapping, rows: np.ndarray | None = None, path: Path | None = None,
                 inode: int | None = None):
        self._arrays, self._rows, self._path, self._inode = arrays, rows, path, inode  # inode: the file loaded

    def __getitem__(self, key):
        value = self._arrays[key]
        if isinstance(value, str):  # a member of truth.npz not read yet
            value = self._arrays[key] = _read_npz_member(self._path, key, self._inode)
        return value[np.asarray(self._rows)] if (key == "theta" and self._rows is not None) else value

    def __iter__(self):
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def select(self, rows) -> "Truth":
        rows = _as_rows(rows)
        return Truth(self._arrays, rows if self._rows is None else self._rows[np.asarray(rows)], self._path, self._inode)


def _read_npz_member(path: Path, key: str, inode: int | None = None) -> np.ndarray:
    """One array of an .npz; with ``inode``, only from that file (not one a prepare has put at its path since)."""
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise CorpusError(f"{path}: cannot read {key!r} ({_why(err)})") from err
    with handle:
        if inode is not None and os.fstat(handle.fileno()).st_ino != inode:
            raise CorpusError(f"{path}: replaced while this process was reading the corpus (prepared again into "
                              f"the same folder?): its {key!r} would be another corpus's; rerun")
        try:
            with np.load(handle, allow_pickle=False) as archive:
                return archive[key]
        except READ_ERRORS as err:
            raise CorpusError(f"{path}: cannot read {key!r} ({_why(err)})") from err


def _npz_shapes(path: Path) -> dict[str, tuple]:
    """The shape of every array in an .npz, from the .npy headers only (truth.npz's theta is D x K floats)."""
    from numpy.lib import format as npformat

    shapes = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                with archive.open(name) as member:
                    version = npformat.read_magic(member)
                    header = (npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0)
                    shape, _, dtype = header(member)
                    if dtype.hasobject:
                        raise CorpusError(f"{path}: {name} holds Python objects (pickles are never loaded)")
                    shapes[name[:-4] if name.endswith(".npy") else name] = shape
    except CorpusError:
        raise
    except READ_ERRORS + (zipfile.LargeZipFile, RuntimeError) as err:
        raise CorpusError(f"{path}: cannot be read as an .npz archive ({_why(err)})") from err
    return shapes


# ---------------------------------------------------------------------------------------------
# the corpus and its views


class Corpus:
    """Counts, vocabulary, docs, metadata and (synthetic corpora) truth; ``select``/``split`` give views.

    ``counts`` may be a scipy matrix (kept in memory) or a :class:`ShardedCounts` (read on demand); ``docs`` a
    DataFrame or a :class:`DocsFile`. A view holds int64 row indices into its base and reads nothing until
    asked: :meth:`rows` (a minibatch), :meth:`chunks` (held-out or accumulation passes), :meth:`column`.
    ``counts``/``docs`` materialise the whole view (fine for small corpora and tests, never used by the runner).
    """

    def __init__(self, counts, vocab: list[str], docs, meta: dict | None = None, truth: Mapping | None = None,
                 rows: np.ndarray | None = None):
        self.store = counts if isinstance(counts, (MemoryCounts, ShardedCounts)) else MemoryCounts(sp.csr_matrix(counts))
        self.vocab, self.meta = vocab, {} if meta is None else meta
        self._docs = docs
        self.truth = truth if (truth is None or isinstance(truth, Truth)) else Truth(dict(truth))
        self._rows = None if rows is None else _as_rows(rows)
        self._frame = None
        self.loaded_from: Path | None = None  # the folder load_corpus read it from (its corpus.json names its content)

    @property
    def n_docs(self) -> int:
        return self.store.shape[0] if self._rows is None else len(self._rows)

    @property
    def n_words(self) -> int:
        return self.store.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_docs, self.n_words)

    @property
    def counts(self) -> sp.csr_matrix:
        """The whole view as one CSR matrix (in memory: use :meth:`rows` / :meth:`chunks` for large corpora)."""
        if self._rows is None and isinstance(self.store, MemoryCounts):
            return self.store.matrix
        return self.rows(np.arange(self.n_docs))

    def rows(self, rows) -> sp.csr_matrix:
        """The counts of the view's rows ``rows`` (in that order), read from disk for a sharded corpus."""
        rows = np.asarray(rows, dtype=np.int64)
        return self.store.rows(rows if self._rows is None else self._rows[rows])

    def chunks(self, size: int = 4096):
        """(first row, CSR block) over the view in order, ``size`` documents at a time."""
        for start in range(0, self.n_docs, size):
            stop = min(start + size, self.n_docs)
            if self._rows is None or isinstance(self._rows, RowRange):
                offset = 0 if self._rows is None else self._rows.start
                yield start, self.store.block(offset + start, offset + stop)
            else:
                yield start, self.rows(np.arange(start, stop))

    def word_totals(self) -> np.ndarray:
        """Column sums (int64), accumulated chunk by chunk (the unigram baseline's counts)."""
        totals = np.zeros(self.n_words, dtype=np.int64)
        for _, block in self.chunks(4096):
            totals += np.asarray(block.sum(axis=0, dtype=np.int64)).ravel()
        return totals

    @property
    def n_tokens(self) -> int:
        if self._rows is None and "n_tokens" in self.meta and isinstance(self.store, ShardedCounts):
            return int(self.meta["n_tokens"])
        return int(self.word_totals().sum())

    def doc_lengths(self) -> np.ndarray:
        lengths = np.empty(self.n_docs, dtype=np.int64)
        for start, block in self.chunks(4096):
            lengths[start:start + block.shape[0]] = np.asarray(block.sum(axis=1, dtype=np.int64)).ravel()
        return lengths

    @property
    def docs(self) -> pd.DataFrame:
        """The view's docs table in memory."""
        if self._frame is None:
            frame = self._docs if isinstance(self._docs, pd.DataFrame) else self._docs.frame()
            if self._rows is None:
                if not isinstance(self._docs, pd.DataFrame):
                    self._docs = frame
                self._frame = frame
            else:
                self._frame = frame.iloc[np.asarray(self._rows)].reset_index(drop=True)
        return self._frame

    def column_names(self) -> list[str]:
        return list(self._docs.columns) if isinstance(self._docs, pd.DataFrame) else self._docs.names()

    def column(self, name: str) -> Column | None:
        """A docs column of this view, indexable by row arrays (None if the corpus has no such column)."""
        return Column(self._docs, name, self._rows) if name in self.column_names() else None

    @property
    def has_time(self) -> bool:
        column = self.column("time")
        return column is not None and not pd.isna(column.to_numpy()).any()

    def split_rows(self, name: str) -> np.ndarray:
        """Rows of the view in split ``name``, ascending (int64)."""
        if name not in SPLITS:
            raise CorpusError(f"unknown split {name!r}; expected one of {SPLITS}")
        if isinstance(self._docs, pd.DataFrame):
            mask = self._docs["split"].to_numpy() == name
        else:
            import pyarrow.compute as pc

            mask = np.empty(self._docs.n_docs, dtype=bool)  # a row group at a time: 1 byte per document
            start = 0
            for batch in self._docs.arrow_batches(["split"]):
                mask[start:start + len(batch)] = pc.equal(batch.column(0), name).to_numpy(zero_copy_only=False)
                start += len(batch)
        mask = mask if self._rows is None else mask[np.asarray(self._rows)]
        count = int(mask.sum())
        first = int(np.argmax(mask)) if count else 0
        if count and mask[first:first + count].all():  # one block (e.g. train then test): no per-document index
            return RowRange(first, first + count)
        return np.flatnonzero(mask)

    def select(self, rows) -> "Corpus":
        """A view of the given document rows (order kept), sharing counts, vocabulary and docs; reads nothing."""
        rows = _as_rows(rows)
        base = rows if self._rows is None else (self._rows[np.asarray(rows)] if isinstance(rows, RowRange)
                                                 else self._rows[rows])
        truth = None if self.truth is None else self.truth.select(rows)
        return Corpus(self.store, self.vocab, self._docs, dict(self.meta), truth, base)

    def split(self, name: str) -> "Corpus":
        return self.select(self.split_rows(name))

    def summary(self) -> dict:
        lengths = self.doc_lengths()
        splits = {name: len(self.split_rows(name)) for name in SPLITS}
        out = {
            "name": self.meta.get("name", "?"),
            "documents": self.n_docs,
            "vocabulary": self.n_words,
            "tokens": int(lengths.sum()),
            "train_documents": splits["train"],
            "test_documents": splits["test"],
            "length_quantiles": {f"q{int(q * 100)}": float(np.quantile(lengths, q)) for q in (0, 0.1, 0.5, 0.9, 1)},
            "mean_length": float(lengths.mean()) if len(lengths) else 0.0,
        }
        time = self.column("time")
        if time is not None:
            values = pd.Series(time.to_numpy())
            if values.notna().any():
                out["time_span"] = [str(values.min()), str(values.max())]
        return out


class ContentDigest:
    """The sha256 naming a corpus's content (``corpus_sha256`` of every trace row, ``content_sha256`` of corpus.json):
    its counts, vocabulary and documents' ids, splits and times. The same however the rows arrive (chunk by chunk at
    any size: one running digest per part) and wherever they are kept (in memory, in shards of any size), so two
    corpora of one name but other bytes are told apart and one corpus keeps one name."""

    DOC_COLUMNS = ("doc_id", "split", "time")

    def __init__(self):
        self.parts = {name: hashlib.sha256() for name in ("lengths", "indices", "data", *self.DOC_COLUMNS)}

    def add(self, block: sp.csr_matrix, columns: Mapping[str, Any]) -> None:
        """The next rows: their counts (CSR) and their docs columns (any of DOC_COLUMNS; values as text)."""
        block = sp.csr_matrix(block)
        if not block.has_sorted_indices:
            block = block.sorted_indices()
        for name, array in (("lengths", np.diff(block.indptr)), ("indices", block.indices), ("data", block.data)):
            self.parts[name].update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
        for name in self.DOC_COLUMNS:
            values = columns.get(name)
            if values is not None:
                self.parts[name].update("".join(f"{value}\n" for value in values).encode("utf-8", "surrogatepass"))

    def hexdigest(self, vocab: list[str]) -> str:
        total = hashlib.sha256()
        for name, part in self.parts.items():
            total.update(name.encode() + part.digest())
        total.update("".join(f"{word}\n" for word in vocab).encode("utf-8", "surrogatepass"))
        return total.hexdigest()


def content_fingerprint(corpus: Corpus) -> str:
    """``ContentDigest`` of a corpus: read from its corpus.json when it was loaded whole with verified checksums and
    records it (every corpus prepared since it is recorded), else computed chunk by chunk (in memory, views)."""
    recorded = corpus.meta.get("content_sha256")
    if corpus._rows is None and corpus.loaded_from is not None and isinstance(recorded, str) and recorded:
        return recorded
    digest = ContentDigest()
    columns = {name: corpus.column(name) for name in ContentDigest.DOC_COLUMNS}
    for start, block in corpus.chunks(4096):
        rows = np.arange(start, start + block.shape[0])
        digest.add(block, {name: None if column is None else column[rows] for name, column in columns.items()})
    return digest.hexdigest(corpus.vocab)


def make_docs_frame(n_docs: int, split=None, doc_id=None, time=None, label=None, title=None) -> pd.DataFrame:
    """A ``docs.parquet`` frame with defaults: ids ``d0, d1, ...``, everything in ``train``."""
    frame = pd.DataFrame({"doc_id": [f"d{i}" for i in range(n_docs)] if doc_id is None else list(map(str, doc_id))})
    frame["split"] = "train" if split is None else list(split)
    for name, values in (("time", time), ("label", label), ("title", title)):
        if values is not None:
            frame[name] = list(values)
    return frame


# ---------------------------------------------------------------------------------------------
# validation: the same checks for a chunk being written and for a shard being read


def check_vocab(vocab: list[str], n_words: int, where: str, counts_name: str = COUNTS_FILE) -> None:
    if len(vocab) != n_words:
        raise CorpusError(f"{where}/{VOCAB_FILE}: vocabulary has {len(vocab)} words but {counts_name} has "
                          f"{n_words} columns")
    if len(set(vocab)) != len(vocab):
        seen, dup = set(), None
        for word in vocab:
            if word in seen:
                dup = word
                break
            seen.add(word)
        raise CorpusError(f"{where}/{VOCAB_FILE}: duplicate word {dup!r}")


def canonical_counts(counts, n_words: int, name: str, row0: int = 0) -> sp.csr_matrix:
    """Check a CSR chunk (document rows ``row0`` on) and return it canonical: int32, sorted, summed, no zeros, no
    empty row. ``name`` is the file the rows belong to, for the message."""
    if not sp.issparse(counts):
        raise CorpusError(f"{name}: counts must be a scipy.sparse matrix, got {type(counts).__name__}")
    counts = sp.csr_matrix(counts)
    if counts.shape[1] != n_words:
        raise CorpusError(f"{name}: {counts.shape[1]} columns, expected {n_words} (the vocabulary)")
    if counts.nnz:
        if counts.indices.min() < 0 or counts.indices.max() >= n_words:
            k = int(np.flatnonzero((counts.indices < 0) | (counts.indices >= n_words))[0])
            row, col = _position(counts, k)
            raise CorpusError(f"{name}: word id {col} out of range [0, {n_words}) at document row {row0 + row}")
        data = counts.data
        if data.dtype.kind not in "biuf":
            raise CorpusError(f"{name}: counts must be numbers, got dtype {data.dtype}")
        bad = ~np.isfinite(data) | (data < 0) | (data != np.round(data))
        if bad.any():
            row, col = _position(counts, int(np.flatnonzero(bad)[0]))
            raise CorpusError(f"{name}: counts must be non-negative integers, got {data[bad][0]!r} "
                              f"at document row {row0 + row}, word id {col}")
    counts.sum_duplicates()
    counts.eliminate_zeros()
    if counts.nnz and counts.data.max() > INT32_MAX:  # int32 storage (the format): an overflow is an error, never a wrap
        row, col = _position(counts, int(np.argmax(counts.data)))
        raise CorpusError(f"{name}: count {int(counts.data.max())} at document row {row0 + row}, word id {col} "
                          f"exceeds the int32 counts of the corpus format ({INT32_MAX})")
    lengths = np.diff(counts.indptr)
    if np.any(lengths == 0):
        first = int(np.flatnonzero(lengths == 0)[0])
        raise CorpusError(f"{name}: document row {row0 + first} is empty ({int((lengths == 0).sum())} empty "
                          f"documents{' in this chunk' if row0 or counts.shape[0] else ''})")
    return _csr(counts.data.astype(np.int32), counts.indices.astype(np.int32), counts.indptr.astype(np.int64),
                counts.shape)


def _position(counts: sp.csr_matrix, k: int) -> tuple[int, int]:
    """(document row, word id) of the k-th stored entry of a CSR matrix."""
    return int(np.searchsorted(counts.indptr, k, side="right") - 1), int(counts.indices[k])


def check_docs_chunk(docs: pd.DataFrame, name: str, row0: int = 0) -> None:
    """Columns, null ids and split values of a chunk of the docs table (ids' uniqueness: :func:`id_hashes`)."""
    for column in ("doc_id", "split"):
        if column not in docs.columns:
            raise CorpusError(f"{name}: missing column {column!r}")
    if docs["doc_id"].isna().any():
        raise CorpusError(f"{name}: doc_id missing at row {row0 + int(np.flatnonzero(docs['doc_id'].isna())[0])}")
    bad = ~docs["split"].isin(SPLITS)
    if bad.any():
        raise CorpusError(f"{name}: split must be one of {SPLITS}, got {docs['split'][bad].iloc[0]!r} "
                          f"at row {row0 + int(np.flatnonzero(bad)[0])}")


def id_hashes(doc_ids) -> np.ndarray:
    """64-bit hashes of doc ids (8 bytes per document, where a set of 3.3M strings would take ~300 MB)."""
    return pd.util.hash_array(np.asarray(doc_ids, dtype=object).astype(str).astype(object))


def first_duplicate(hashes: np.ndarray, docs: "DocsFile") -> object | None:
    """The first doc id that appears twice, or None. ``hashes`` (one per document, :func:`id_hashes`) is sorted in
    place, so the check costs 1 byte per document beyond them; only when two hashes agree is ``docs`` read again to
    find the ids (a 64-bit collision between different ids is astronomically rare, but is not called a duplicate)."""
    hashes.sort()
    same = np.unique(hashes[1:][hashes[1:] == hashes[:-1]])
    if not len(same):
        return None
    candidates = {}
    for frame in docs.batches(["doc_id"]):
        ids = frame["doc_id"].to_numpy()
        for doc_id in ids[np.isin(id_hashes(ids), same[:100])]:
            if doc_id in candidates:
                return doc_id
            candidates[doc_id] = True
    return None


def validate(counts: sp.spmatrix, vocab: list[str], docs: pd.DataFrame, where: str = "corpus",
             counts_name: str = COUNTS_FILE) -> sp.csr_matrix:
    """Check an in-memory corpus's three parts agree; return the counts as canonical int32 CSR."""
    if not sp.issparse(counts):
        raise CorpusError(f"{where}/{counts_name}: counts must be a scipy.sparse matrix, got {type(counts).__name__}")
    check_vocab(vocab, counts.shape[1], where, counts_name)
    counts = canonical_counts(counts, counts.shape[1], f"{where}/{counts_name}")
    if counts.shape[0] == 0:
        raise CorpusError(f"{where}: the corpus has no documents")
    _check_docs_table(docs, counts.shape[0], where, counts_name)
    return counts


def _check_docs_table(docs: pd.DataFrame, n_docs: int, where: str, counts_name: str) -> None:
    if len(docs) != n_docs:
        raise CorpusError(f"{where}/{DOCS_FILE}: {len(docs)} rows but {counts_name} has {n_docs} documents")
    check_docs_chunk(docs, f"{where}/{DOCS_FILE}")
    if docs["doc_id"].duplicated().any():
        raise CorpusError(f"{where}/{DOCS_FILE}: duplicate doc_id {docs['doc_id'][docs['doc_id'].duplicated()].iloc[0]!r}")
    if not (docs["split"] == "train").any():
        raise CorpusError(f"{where}/{DOCS_FILE}: no document in the train split ({n_docs} documents, all test)")


# ---------------------------------------------------------------------------------------------
# the one writer


def _npy_header(dtype, shape, size: int = 128) -> bytes:
    """A .npy (format 1.0) header padded to ``size`` bytes, so it can be written before the length is known and
    rewritten in place after (numpy reads any header length)."""
    from numpy.lib import format as npformat

    text = repr({"descr": npformat.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
                 "shape": tuple(int(n) for n in shape)}).encode("latin1")
    pad = size - 10 - len(text) - 1
    if pad < 0:
        raise ValueError(f"npy header of {len(text)} bytes does not fit {size}")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", size - 10) + text + b" " * pad + b"\n"


def _zip_entry(zipf, name: str):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # as numpy.savez: no wall-clock time in the file
    info.compress_type = zipfile.ZIP_DEFLATED
    return zipf.open(info, "w", force_zip64=True)


def _write_npy(zipf, name: str, array) -> None:
    from numpy.lib import format as npformat

    with _zip_entry(zipf, name + ".npy") as fid:
        npformat.write_array(fid, np.asanyarray(array), allow_pickle=False)


class CorpusWriter:
    """Writes every corpus: CSR chunks and their docs rows appended in order, in the memory of one chunk.

    Use inside ``io.atomic_directory``: ``append`` as often as needed, then ``finish`` (vocab, docs, truth and,
    last, corpus.json). Shards and docs row groups are cut every ``shard_rows`` documents whatever the chunks,
    so the same corpus gives the same bytes however it was fed. Chunks are validated before they are written
    (word ids, counts, empty documents, docs columns, ids), so a bad corpus never reaches disk.
    """

    def __init__(self, staging: Path, n_words: int, where: str, shard_rows: int = SHARD_ROWS, docs_schema=None):
        self.staging, self.n_words, self.where, self.shard_rows = Path(staging), int(n_words), where, int(shard_rows)
        self.n_docs = self.n_tokens = self.nnz = self.n_train = self.n_test = 0
        self.shards: list[dict] = []
        self._shard = None  # the open shard: file handles, first row, row lengths
        self._docs_buffer: list[pd.DataFrame] = []
        self._docs_rows = 0
        self._parquet = None
        self._schema = docs_schema
        self._hashes = open(self.staging / ".ids.hash", "wb")  # 8 bytes per document, read back at finish
        self._theta = None  # raw float64 file of truth theta rows, when given
        self._theta_cols = None
        # which words have a training token and which a token at all: a word only in test is scored from the prior
        self._word_in_train = np.zeros(self.n_words, dtype=bool)
        self._word_used = np.zeros(self.n_words, dtype=bool)
        self._content = ContentDigest()  # corpus.json's content_sha256, fed chunk by chunk
        fault_point("prepare.write_counts")
        (self.staging / COUNTS_DIR).mkdir(parents=True, exist_ok=True)

    # counts -----------------------------------------------------------------------------
    def append(self, counts, docs: pd.DataFrame, theta: np.ndarray | None = None) -> None:
        row0 = self.n_docs
        counts = canonical_counts(counts, self.n_words, f"{self.where}/{COUNTS_DIR}", row0)
        if len(docs) != counts.shape[0]:
            raise CorpusError(f"{self.where}/{DOCS_FILE}: {len(docs)} rows for a chunk of {counts.shape[0]} documents")
        check_docs_chunk(docs, f"{self.where}/{DOCS_FILE}", row0)
        docs = docs.reset_index(drop=True).copy()
        docs["doc_id"] = docs["doc_id"].astype(str)
        self._hashes.write(id_hashes(docs["doc_id"].to_numpy()).tobytes())
        self._content.add(counts, {name: docs[name].to_numpy() for name in ContentDigest.DOC_COLUMNS
                                   if name in docs.columns})
        is_train = (docs["split"] == "train").to_numpy()
        self.n_train += int(is_train.sum())
        self.n_test += int((~is_train).sum())
        self._word_used[counts.indices] = True
        self._word_in_train[counts.indices[np.repeat(is_train, np.diff(counts.indptr))]] = True
        if theta is not None:
            self._append_theta(theta, counts.shape[0])
        start = 0
        while start < counts.shape[0]:
            if self._shard is None:
                self._open_shard()
            room = self.shard_rows - self._shard["rows"]
            part = counts[start:start + room]
            self._write_rows(part)
            self._buffer_docs(docs.iloc[start:start + part.shape[0]])
            start += part.shape[0]
            if self._shard["rows"] == self.shard_rows:
                self._close_shard()
        self.n_docs += counts.shape[0]

    def _open_shard(self) -> None:
        s = len(self.shards)
        files = {part: f"{s:05d}.{part}.npy" for part in ("indptr", "indices", "data")}
        handles = {part: open(self.staging / COUNTS_DIR / files[part], "wb") for part in ("indices", "data")}
        for handle in handles.values():
            handle.write(b"\0" * 128)  # header placeholder, rewritten at close
        start = self.shards[-1]["rows"][1] if self.shards else 0
        self._shard = {"files": files, "handles": handles, "start": start, "lengths": [], "rows": 0, "nnz": 0}

    def _write_rows(self, block: sp.csr_matrix) -> None:
        shard = self._shard
        shard["handles"]["indices"].write(block.indices.astype(np.int32, copy=False).tobytes())
        shard["handles"]["data"].write(block.data.astype(np.int32, copy=False).tobytes())
        shard["lengths"].append(np.diff(block.indptr).astype(np.int64))
        shard["rows"] += block.shape[0]
        shard["nnz"] += block.nnz
        self.nnz += block.nnz
        self.n_tokens += int(block.data.sum(dtype=np.int64))

    def _close_shard(self) -> None:
        shard, self._shard = self._shard, None
        lengths = np.concatenate(shard["lengths"]) if shard["lengths"] else np.zeros(0, np.int64)
        for part, handle in shard["handles"].items():
            handle.seek(0)
            handle.write(_npy_header(np.int32, (shard["nnz"],)))
            handle.close()
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        with open(self.staging / COUNTS_DIR / shard["files"]["indptr"], "wb") as handle:
            handle.write(_npy_header(np.int64, indptr.shape))
            handle.write(indptr.tobytes())
        self.shards.append({"rows": [shard["start"], shard["start"] + len(lengths)], "nnz": int(shard["nnz"]),
                            "files": shard["files"],
                            "sha256": {part: file_sha256(self.staging / COUNTS_DIR / name)
                                       for part, name in shard["files"].items()},
                            # the sizes a stat compares at DAG build (grid.stale_corpora), without reading the shard
                            "bytes": {part: (self.staging / COUNTS_DIR / name).stat().st_size
                                      for part, name in shard["files"].items()}})
        self._flush_docs()

    # docs -------------------------------------------------------------------------------
    def _buffer_docs(self, docs: pd.DataFrame) -> None:
        self._docs_buffer.append(docs)
        self._docs_rows += len(docs)

    def _flush_docs(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._docs_buffer:
            return
        frame = pd.concat(self._docs_buffer, ignore_index=True)
        self._docs_buffer, self._docs_rows = [], 0
        if self._schema is None:
            self._schema = pa.Schema.from_pandas(frame, preserve_index=False)
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.staging / DOCS_FILE, self._schema)
        try:
            table = pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
            raise CorpusError(f"{self.where}/{DOCS_FILE}: columns change type between chunks ({_why(err)})") from err
        self._parquet.write_table(table, row_group_size=self.shard_rows)

    # truth ------------------------------------------------------------------------------
    def _append_theta(self, theta: np.ndarray, n: int) -> None:
        theta = np.ascontiguousarray(theta, dtype=np.float64)
        if theta.ndim != 2 or theta.shape[0] != n or (self._theta_cols not in (None, theta.shape[1])):
            raise CorpusError(f"{self.where}/{TRUTH_FILE}: theta chunk of shape {theta.shape} for {n} documents")
        if self._theta is None:
            if self.n_docs:
                raise CorpusError(f"{self.where}/{TRUTH_FILE}: theta given for some chunks but not the first")
            self._theta = open(self.staging / ".theta.raw", "wb")
            self._theta_cols = theta.shape[1]
        self._theta.write(theta.tobytes())

    def _write_truth(self, truth: dict) -> None:
        """truth.npz: its arrays in order, theta (when appended) streamed from its raw file after ``topics``."""
        fault_point("prepare.write_truth")
        with zipfile.ZipFile(self.staging / TRUTH_FILE, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zipf:
            keys = list(truth)
            if self._theta is not None and "theta" not in keys:
                keys.insert(1 if "topics" in keys else 0, "theta")
            for key in keys:
                if key == "theta" and self._theta is not None:
                    self._theta.close()
                    with _zip_entry(zipf, "theta.npy") as fid, open(self.staging / ".theta.raw", "rb") as src:
                        from numpy.lib import format as npformat

                        npformat.write_array_header_1_0(fid, {"descr": "<f8", "fortran_order": False,
                                                              "shape": (self.n_docs, self._theta_cols)})
                        for block in iter(lambda: src.read(1 << 24), b""):
                            fid.write(block)
                    os.remove(self.staging / ".theta.raw")
                else:
                    _write_npy(zipf, key, truth[key])

    # finish -----------------------------------------------------------------------------
    def finish(self, vocab: list[str], meta: dict, truth: dict | None = None) -> dict:
        """Close the last shard; write the manifest, vocab, docs, truth and corpus.json (last); returns the meta."""
        if self._shard is not None:
            self._close_shard()
        if self.n_docs == 0:
            raise CorpusError(f"{self.where}: the corpus has no documents")
        check_vocab(vocab, self.n_words, self.where, f"{COUNTS_DIR}/")
        if self.n_train == 0:
            raise CorpusError(f"{self.where}/{DOCS_FILE}: no document in the train split ({self.n_docs} documents, "
                              f"all test)")
        self._hashes.close()
        hashes = np.fromfile(self.staging / ".ids.hash", dtype=np.uint64)
        os.remove(self.staging / ".ids.hash")
        if self._parquet is not None:
            fault_point("prepare.write_docs")
            self._parquet.close()
        dup = first_duplicate(hashes, DocsFile(self.staging / DOCS_FILE, self.n_docs))
        if dup is not None:
            raise CorpusError(f"{self.where}/{DOCS_FILE}: duplicate doc_id {dup!r}")
        manifest = {"format": SHARD_FORMAT, "n_docs": self.n_docs, "n_words": self.n_words, "nnz": self.nnz,
                    "n_tokens": self.n_tokens, "dtypes": {"indptr": "int64", "indices": "int32", "data": "int32"},
                    "shards": self.shards}
        (self.staging / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n")
        fault_point("prepare.write_vocab")
        (self.staging / VOCAB_FILE).write_text("".join(f"{w}\n" for w in vocab), encoding="utf-8")
        if truth or self._theta is not None:
            self._write_truth(dict(truth or {}))
        meta = dict(meta)
        meta["vocabulary_use"] = self._vocabulary_use(vocab)
        meta.update(n_docs=self.n_docs, n_words=self.n_words, n_tokens=self.n_tokens, n_train=self.n_train,
                    n_test=self.n_test, content_sha256=self._content.hexdigest(vocab),
                    checksums={name: file_sha256(self.staging / name) for name in (MANIFEST_FILE, VOCAB_FILE, DOCS_FILE,
                                                                                  TRUTH_FILE)
                               if (self.staging / name).exists()})  # truth too: recovery is scored against it
        meta["bytes"] = {name: (self.staging / name).stat().st_size for name in meta["checksums"]}  # for a stat
        write_meta(self.staging, meta)
        return meta


    def _vocabulary_use(self, vocab: list[str]) -> dict:
        """The vocabulary words with no training token, counted (a split can leave a word only in test, where a method
        scores it from its prior and the baseline from add-one smoothing; a fixed vocabulary file can name a word no
        document has), with the first few of each, in vocabulary order."""
        only_test = np.flatnonzero(self._word_used & ~self._word_in_train)
        unused = np.flatnonzero(~self._word_used)
        return {"words_only_in_test": len(only_test), "first_only_in_test": [vocab[i] for i in only_test[:5]],
                "words_in_no_document": len(unused), "first_in_no_document": [vocab[i] for i in unused[:5]]}


def save_corpus(corpus: Corpus, path: str | os.PathLike, shard_rows: int | None = None) -> Path:
    """Write a corpus directory atomically (it appears complete or not at all) through :class:`CorpusWriter`."""
    import pyarrow as pa

    check_path_argument(path, "path", CorpusError)
    path, shard_rows = Path(path), shard_rows or SHARD_ROWS
    if corpus.n_docs == 0:
        raise CorpusError(f"{path}: the corpus has no documents")
    check_vocab(corpus.vocab, corpus.n_words, str(path), COUNTS_DIR)
    docs = corpus.docs.reset_index(drop=True).copy()
    if "doc_id" in docs.columns:
        docs["doc_id"] = docs["doc_id"].astype(str)
    _check_docs_table(docs, corpus.n_docs, str(path), COUNTS_DIR)
    truth = theta = None
    if corpus.truth:  # theta (documents x K) goes through the writer with its rows; the rest keeps its order
        theta = corpus.truth["theta"] if "theta" in corpus.truth else None
        truth = {key: (None if key == "theta" else corpus.truth[key]) for key in corpus.truth}
    schema = pa.Schema.from_pandas(docs, preserve_index=False)
    with atomic_directory(path, complete=is_corpus_dir, ours=holds_only_corpus_files) as staging:
        writer = CorpusWriter(staging, corpus.n_words, str(path), shard_rows, schema)
        for start, block in corpus.chunks(shard_rows):
            stop = start + block.shape[0]
            writer.append(block, docs.iloc[start:stop], None if theta is None else theta[start:stop])
        writer.finish(corpus.vocab, corpus.meta, truth)
    return path


def write_meta(staging: Path, meta: dict) -> None:
    """corpus.json goes last and by rename: its presence is what makes a staged corpus complete."""
    fault_point("prepare.write_meta")
    tmp = staging / f".{META_FILE}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, staging / META_FILE)


# ---------------------------------------------------------------------------------------------
# loading


def _verify(path: Path, name: str, expected: str, listed_in: str) -> None:
    if not (path / name).is_file():
        raise CorpusError(f"{path / name}: missing (listed in {listed_in} checksums)")
    try:
        actual = file_sha256(path / name)
    except OSError as err:
        raise CorpusError(f"{path / name}: cannot be read ({_why(err)})") from err
    if actual != expected:
        raise CorpusError(f"{path / name}: checksum mismatch with {listed_in} (file changed or corrupt)")


def read_manifest(path: Path) -> dict:
    manifest = read_json(path / MANIFEST_FILE, dict)
    where = path / MANIFEST_FILE
    try:
        if manifest.get("format") != SHARD_FORMAT:
            raise CorpusError(f"{where}: format {manifest.get('format')!r}, expected {SHARD_FORMAT!r}")
        n_docs, n_words, shards = int(manifest["n_docs"]), int(manifest["n_words"]), manifest["shards"]
        row = 0
        for s, shard in enumerate(shards):
            lo, hi = (int(v) for v in shard["rows"])
            if lo != row or hi <= lo:
                raise CorpusError(f"{where}: shard {s} covers rows [{lo}, {hi}), expected to start at {row}")
            if set(shard["files"]) != {"indptr", "indices", "data"} or set(shard["sha256"]) != set(shard["files"]):
                raise CorpusError(f"{where}: shard {s} must list indptr, indices and data files with their sha256")
            row = hi
        if row != n_docs or n_docs < 1 or n_words < 1:
            raise CorpusError(f"{where}: shards cover {row} rows, n_docs is {n_docs} (n_words {n_words})")
    except CorpusError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CorpusError(f"{where}: malformed manifest ({_why(err)})") from err
    return manifest


def validate_shards(store: ShardedCounts, block_entries: int = 1 << 20) -> int:
    """Every shard against the format, one shard (and within it ``block_entries`` entries) at a time; returns the
    number of tokens."""
    n_words, n_tokens = store.shape[1], 0
    for s, shard in enumerate(store.shards):
        lo_row, hi_row = shard["rows"]
        indptr, indices, data = store.arrays(s)
        names = {part: store.shard_file(s, part) for part in ("indptr", "indices", "data")}
        for part, array, dtype in (("indptr", indptr, np.int64), ("indices", indices, np.int32), ("data", data, np.int32)):
            if array.ndim != 1 or array.dtype != dtype:
                raise CorpusError(f"{names[part]}: {array.dtype} array of shape {array.shape}, expected 1-d {np.dtype(dtype)}")
        if len(indptr) != hi_row - lo_row + 1 or indptr[0] != 0 or indptr[-1] != len(indices) or len(data) != len(indices):
            raise CorpusError(f"{names['indptr']}: {len(indptr)} row pointers from {indptr[:1]} to {indptr[-1:]} for "
                              f"{hi_row - lo_row} documents and {len(indices)} word ids / {len(data)} counts")
        lengths = np.diff(indptr)
        if (lengths < 0).any():
            raise CorpusError(f"{names['indptr']}: row pointers decrease at document row "
                              f"{lo_row + int(np.flatnonzero(lengths < 0)[0])}")
        if (lengths == 0).any():
            raise CorpusError(f"{names['indptr']}: document row {lo_row + int(np.flatnonzero(lengths == 0)[0])} is "
                              f"empty ({int((lengths == 0).sum())} empty documents in this shard)")
        for a in range(0, len(indices), block_entries):
            ids, counts = np.asarray(indices[a:a + block_entries]), np.asarray(data[a:a + block_entries])
            n_tokens += int(counts.sum(dtype=np.int64))
            bad = (ids < 0) | (ids >= n_words)
            if bad.any():
                k = a + int(np.flatnonzero(bad)[0])
                row = lo_row + int(np.searchsorted(indptr, k, side="right") - 1)
                raise CorpusError(f"{names['indices']}: word id {int(indices[k])} out of range [0, {n_words}) at "
                                  f"document row {row}")
            if (counts < 1).any():
                k = a + int(np.flatnonzero(counts < 1)[0])
                row = lo_row + int(np.searchsorted(indptr, k, side="right") - 1)
                raise CorpusError(f"{names['data']}: counts must be non-negative integers stored without zeros, got "
                                  f"{int(data[k])} at document row {row}")
            # word ids increase within a document (a decrease or repeat is only allowed where a document starts)
            step = np.diff(ids.astype(np.int64)) <= 0
            starts = indptr[(indptr > a) & (indptr < a + len(ids))] - a - 1
            step[starts] = False
            if step.any():
                k = a + int(np.flatnonzero(step)[0]) + 1
                row = lo_row + int(np.searchsorted(indptr, k, side="right") - 1)
                raise CorpusError(f"{names['indices']}: word ids not increasing within document row {row}")
            store.release(s)
        store.release(s)
    return n_tokens


def _check_docs_file(docs: DocsFile, n_docs: int, where: Path, counts_name: str) -> int:
    """docs.parquet against the counts, a row group at a time (ids by 64-bit hash, 8 bytes per document); returns
    the number of training documents."""
    names = docs.names()
    for column in ("doc_id", "split"):
        if column not in names:
            raise CorpusError(f"{docs.path}: missing column {column!r}")
    hashes, rows, n_train = np.empty(n_docs, dtype=np.uint64), 0, 0
    for frame in docs.batches(["doc_id", "split"]):
        check_docs_chunk(frame, str(docs.path), rows)
        if rows + len(frame) <= n_docs:
            hashes[rows:rows + len(frame)] = id_hashes(frame["doc_id"].to_numpy())
        n_train += int((frame["split"] == "train").sum())
        rows += len(frame)
    if rows != n_docs:
        raise CorpusError(f"{docs.path}: {rows} rows but {counts_name} has {n_docs} documents")
    dup = first_duplicate(hashes, docs)
    if dup is not None:
        raise CorpusError(f"{docs.path}: duplicate doc_id {dup!r}")
    if n_train == 0:
        raise CorpusError(f"{docs.path}: no document in the train split ({n_docs} documents, all test)")
    return n_train


def release_memory() -> None:
    """Return freed heap memory to the OS (glibc ``malloc_trim``). Validation's per-document temporaries (hashes,
    masks) are freed into the heap, where glibc's adaptive mmap threshold otherwise keeps them resident for the
    whole fit: ~9 bytes per document, 30 MB at 3.3M documents. A no-op where there is no glibc."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def load_corpus(path: str | os.PathLike, verify_checksums: bool = True) -> Corpus:
    """Load and validate a corpus directory, shard by shard; every failure names the file and the problem.

    The counts stay on disk (read on demand); a folder in the single-``counts.npz`` format loads into memory.
    A prepare killed mid-swap is finished or undone first (``io.recover_directory``).
    """
    check_path_argument(path, "path", CorpusError)  # before recover_directory may touch a folder named '~'
    path = Path(path)
    try:
        recover_directory(path, is_corpus_dir, holds_only_corpus_files)
    except OSError as err:
        # a whole corpus beside a killed prepare's leftovers that cannot be removed (a read-only copy) is read as it
        # is, as recovery would leave it; only a swap left half done (no whole corpus at the path) stops the load
        if not is_corpus_dir(path):
            raise CorpusError(f"{path}: cannot recover an interrupted prepare ({_why(err)})") from err
    if not path.is_dir():
        raise CorpusError(f"{path}: corpus directory does not exist" if not path.exists() else f"{path}: not a directory")
    folder = _folder_identity(path)  # a prepare swapping in a new folder while its files are read: checked at the end
    legacy = not (path / MANIFEST_FILE).exists() and (path / LEGACY_COUNTS_FILE).exists()
    counts_name = LEGACY_COUNTS_FILE if legacy else MANIFEST_FILE
    for name in (counts_name, VOCAB_FILE, DOCS_FILE, META_FILE):
        if not (path / name).is_file():
            raise CorpusError(f"{path / name}: missing" if not (path / name).exists() else f"{path / name}: not a file")
    meta = read_json(path / META_FILE, dict)
    checksums = meta.get("checksums", {})
    if not isinstance(checksums, dict) or not all(isinstance(v, str) for v in checksums.values()):
        raise CorpusError(f"{path / META_FILE}: 'checksums' must map file names to sha256 strings")
    if verify_checksums:
        # every corpus topicbench writes lists these: without them an edited file would load unnoticed
        unlisted = [name for name in (counts_name, VOCAB_FILE, DOCS_FILE) if name not in checksums]
        if unlisted:
            raise CorpusError(f"{path / META_FILE}: 'checksums' does not list {', '.join(unlisted)}, so "
                              f"{'it' if len(unlisted) == 1 else 'they'} cannot be verified; prepare the corpus again")
        for name, expected in checksums.items():
            _verify(path, name, expected, META_FILE)
    vocab = read_text_file(path / VOCAB_FILE).splitlines()
    if legacy:
        docs = read_parquet(path / DOCS_FILE)
        store = MemoryCounts(validate(read_sparse_npz(path / LEGACY_COUNTS_FILE), vocab, docs, str(path),
                                      LEGACY_COUNTS_FILE))
    else:
        manifest = read_manifest(path)
        if verify_checksums:
            for shard in manifest["shards"]:
                for part, name in shard["files"].items():
                    _verify(path, f"{COUNTS_DIR}/{name}", shard["sha256"][part], MANIFEST_FILE)
        store = ShardedCounts(path, manifest)
        check_vocab(vocab, store.shape[1], str(path), MANIFEST_FILE)
        n_tokens = validate_shards(store)
        if manifest.get("n_tokens", n_tokens) != n_tokens:
            raise CorpusError(f"{path / MANIFEST_FILE}: n_tokens={manifest['n_tokens']!r} but the shards hold {n_tokens}")
        docs = DocsFile(path / DOCS_FILE, store.shape[0])
        n_train = _check_docs_file(docs, store.shape[0], path, MANIFEST_FILE)
        counted = {"n_tokens": n_tokens, "n_train": n_train, "n_test": store.shape[0] - n_train}
    n_docs, n_words = store.shape
    # the summary numbers figures and captions quote: a hand edit of corpus.json must not reach them
    for key, actual in (("n_docs", n_docs), ("n_words", n_words), *(() if legacy else counted.items())):
        if key in meta and meta[key] != actual:
            raise CorpusError(f"{path / META_FILE}: {key}={meta[key]!r} but the corpus files have {actual}")
    truth = None
    if (path / TRUTH_FILE).exists():
        shapes = _npz_shapes(path / TRUTH_FILE)
        topics, theta = shapes.get("topics"), shapes.get("theta")
        if topics is not None and (len(topics) != 2 or topics[1] != n_words):
            raise CorpusError(f"{path / TRUTH_FILE}: topics has shape {topics}, expected (K, {n_words})")
        if theta is not None and (len(theta) != 2 or theta[0] != n_docs):
            raise CorpusError(f"{path / TRUTH_FILE}: theta has shape {theta}, expected ({n_docs}, K)")
        arrays = {key: key for key in shapes}  # members are read on first use (theta is documents x K)
        if "topics" in arrays:
            arrays["topics"] = _read_npz_member(path / TRUTH_FILE, "topics")
        truth = Truth(arrays, None, path / TRUTH_FILE, _inode(path / TRUTH_FILE))
    release_memory()
    if _folder_identity(path) != folder:  # files read before the swap are the old corpus's, the rest the new one's
        raise CorpusError(f"{path}: replaced while this process was loading it (prepared again into the same folder?): "
                          f"its files would mix two corpora under the old corpus.json; rerun")
    corpus = Corpus(store, vocab, docs, meta, truth)
    corpus.loaded_from = path if verify_checksums else None  # only verified checksums name its content
    return corpus


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _folder_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a corpus folder: a prepare's swap (atomic_directory) puts another folder at its path."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
