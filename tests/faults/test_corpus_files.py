"""Fault catalogue, corpus files: every damaged file of a prepared corpus is named by ``corpus info`` (exit 2, no traceback).

Each case damages one file of a tiny corpus, then asserts exit code 2, a message naming that file, and that
the damaged corpus was left as it was (a reader never repairs or deletes).
"""
import hashlib
import json
import shutil
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from topicbench.corpus import Corpus, make_docs_frame, save_corpus

try:
    from ._prepare_util import digest, run_cli
except ImportError:
    from _prepare_util import digest, run_cli


TINY = np.array([[1, 0, 2], [0, 3, 1], [4, 0, 0], [1, 1, 1]])


def tiny(tmp_path, truth=False, shard_rows=None, legacy=False):
    """A 4-document corpus; ``shard_rows=2`` puts its rows in two shards; ``legacy`` rewrites it as a folder of the
    older single-counts.npz format (which still loads, so its damage must still be named)."""
    counts = sp.csr_matrix(TINY)
    extra = {"topics": np.full((2, 3), 1 / 3), "theta": np.full((4, 2), 0.5)} if truth else None
    corpus = Corpus(counts, ["apple", "bread", "cheese"], make_docs_frame(4, split=["train", "train", "test", "train"]),
                    {"name": "tiny"}, extra)
    path = save_corpus(corpus, tmp_path / "tiny", shard_rows=shard_rows)
    if legacy:
        shutil.rmtree(path / "counts")
        sp.save_npz(path / "counts.npz", sp.csr_matrix(TINY, dtype=np.int32), compressed=True)
        meta = json.loads((path / "corpus.json").read_text())
        meta["checksums"] = {("counts.npz" if n == "counts/manifest.json" else n): v for n, v in meta["checksums"].items()}
        (path / "corpus.json").write_text(json.dumps(meta))
        rechecksum(path)
    return path


def rechecksum(path):
    """Make the manifest's and corpus.json's checksums match the (damaged) files, so the damage itself must be caught."""
    sha = lambda file: hashlib.sha256(file.read_bytes()).hexdigest()  # noqa: E731
    if (path / "counts" / "manifest.json").is_file():
        manifest = json.loads((path / "counts" / "manifest.json").read_text())
        for shard in manifest.get("shards", []):
            shard["sha256"] = {part: sha(path / "counts" / name) for part, name in shard["files"].items()}
        (path / "counts" / "manifest.json").write_text(json.dumps(manifest))
    meta = json.loads((path / "corpus.json").read_text())
    meta["checksums"] = {n: sha(path / n) for n in meta["checksums"]}
    (path / "corpus.json").write_text(json.dumps(meta))


def csr_arrays(path):
    with np.load(path / "counts.npz") as archive:
        return {k: archive[k] for k in archive.files}


def info(path, capsys):
    before = digest(path)
    code, err = run_cli(["corpus", "info", path], capsys)
    assert digest(path) == before, "corpus info changed the corpus it read"
    return code, err


def _npz(**arrays):
    def damage(path):
        base = csr_arrays(path)
        base.update(arrays)
        np.savez(path / "counts.npz", **{k: v for k, v in base.items() if v is not None})
    return damage


COUNTS_DAMAGE = [
    pytest.param(_npz(indptr=None), "indptr", id="counts-npz-missing-array"),
    pytest.param(_npz(indptr=np.array([0, 2, 1, 6, 8])), "counts.npz", id="counts-npz-indptr-decreasing"),
    pytest.param(_npz(indices=np.array([0, 2, 1, 2, 0, 0, 1, 7])), "counts.npz", id="counts-npz-word-id-out-of-range"),
    pytest.param(_npz(shape=np.array([4])), "counts.npz", id="counts-npz-shape-not-2d"),
    pytest.param(_npz(format=np.array(b"bsr")), "counts.npz", id="counts-npz-unknown-format"),
    pytest.param(_npz(data=np.array([1, 2, 3, 1, 4, 1, 1, 10**10])), "int32", id="counts-npz-count-over-int32"),
    pytest.param(_npz(data=np.array([1, 2, 3, 1, 4, 1, 1, -1])), "non-negative integers", id="counts-npz-negative-count"),
    pytest.param(_npz(data=np.array([1, 2, 3, 1, 4, 1, 1, 0.5])), "non-negative integers", id="counts-npz-fractional-count"),
    pytest.param(_npz(data=np.array(["a"] * 8)), "counts.npz", id="counts-npz-text-counts"),
    pytest.param(lambda p: (p / "counts.npz").write_bytes((p / "counts.npz").read_bytes()[:60]), "counts.npz",
                 id="counts-npz-truncated-zip"),
    pytest.param(lambda p: np.save(open(p / "counts.npz", "wb"), np.arange(3)), "counts.npz", id="counts-npz-is-a-plain-npy"),
]


@pytest.mark.parametrize("damage, named", COUNTS_DAMAGE)
def test_damaged_counts_named(tmp_path, capsys, damage, named):
    """counts.npz (older folders) a valid zip with wrong contents, or truncated -> exit 2 naming counts.npz and the problem."""
    path = tiny(tmp_path, legacy=True)
    damage(path)
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and "counts.npz" in err and named in err


def test_pickled_counts_refused(tmp_path, capsys):
    """counts.npz holding a pickled object array -> refused (never unpickled), exit 2 naming counts.npz."""
    path = tiny(tmp_path, legacy=True)
    base = csr_arrays(path)
    base["data"] = np.array([object()] * 8, dtype=object)
    np.savez(path / "counts.npz", **base)
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and "counts.npz" in err and "pickle" in err


def _truth(path, **arrays):
    np.savez(path / "truth.npz", **arrays)
    rechecksum(path)  # the shape itself must be caught, not only the checksum


@pytest.mark.parametrize("damage, named", [
    pytest.param(lambda p: (p / "truth.npz").write_bytes((p / "truth.npz").read_bytes()[:100]), "truth.npz",
                 id="truth-npz-truncated"),
    pytest.param(lambda p: (p / "truth.npz").write_bytes(b"not a zip at all"), "truth.npz", id="truth-npz-garbage"),
    pytest.param(lambda p: _truth(p, topics=np.ones((2, 3)), theta=np.ones((9, 2))), "theta", id="truth-npz-theta-wrong-rows"),
    pytest.param(lambda p: _truth(p, topics=np.ones((2, 5)), theta=np.ones((4, 2))), "topics", id="truth-npz-topics-wrong-width"),
])
def test_damaged_truth_named(tmp_path, capsys, damage, named):
    """truth.npz truncated, garbage or of the wrong shape -> exit 2 naming truth.npz."""
    path = tiny(tmp_path, truth=True)
    damage(path)
    code, err = info(path, capsys)
    assert code == 2 and "truth.npz" in err and named in err


@pytest.mark.parametrize("text, named", [
    pytest.param("[1, 2, 3]", "JSON object", id="corpus-json-is-a-list"),
    pytest.param('{"name": "x", "checksums": [1, 2]', "not valid JSON", id="corpus-json-truncated"),
    pytest.param('{"name": "x", "checksums": ["counts.npz"]}', "checksums", id="corpus-json-checksums-not-a-map"),
    pytest.param(b'{"name": "\xff"}', "corpus.json", id="corpus-json-not-utf8"),
])
def test_damaged_corpus_json_named(tmp_path, capsys, text, named):
    """corpus.json of the wrong shape, truncated or not UTF-8 -> exit 2 naming corpus.json."""
    path = tiny(tmp_path)
    (path / "corpus.json").write_bytes(text if isinstance(text, bytes) else text.encode())
    code, err = info(path, capsys)
    assert code == 2 and "corpus.json" in err and named in err


def test_corpus_json_counts_disagree_with_files(tmp_path, capsys):
    """corpus.json n_docs not the number of rows in counts.npz -> exit 2 naming corpus.json and n_docs."""
    path = tiny(tmp_path)
    meta = json.loads((path / "corpus.json").read_text())
    meta["n_docs"] = 99
    (path / "corpus.json").write_text(json.dumps(meta))
    code, err = info(path, capsys)
    assert code == 2 and "corpus.json: n_docs=99" in err


def test_checksum_mismatch_named(tmp_path, capsys):
    """A file changed after prepare (checksum mismatch) -> exit 2 naming the file."""
    path = tiny(tmp_path)
    (path / "vocab.txt").write_text("apple\nbread\ncheddar\n")
    code, err = info(path, capsys)
    assert code == 2 and "vocab.txt: checksum mismatch" in err


def test_checksummed_file_missing_named(tmp_path, capsys):
    """A file listed in corpus.json's checksums is gone (truth.npz) -> exit 2 naming it."""
    path = tiny(tmp_path)
    meta = json.loads((path / "corpus.json").read_text())
    meta["checksums"]["truth.npz"] = "0" * 64
    (path / "corpus.json").write_text(json.dumps(meta))
    code, err = info(path, capsys)
    assert code == 2 and "truth.npz: missing" in err


@pytest.mark.parametrize("vocab, named", [
    pytest.param("apple\nbread\napple\n", "duplicate word 'apple'", id="vocab-duplicate-word"),
    pytest.param("apple\nbread\n", "vocabulary has 2 words", id="vocab-too-few-lines"),
    pytest.param("apple\nbread\ncheese\ndates\n", "vocabulary has 4 words", id="vocab-too-many-lines"),
    pytest.param(b"apple\nbr\xe9ad\ncheese\n", "vocab.txt:2", id="vocab-not-utf8"),
])
def test_bad_vocabulary_named(tmp_path, capsys, vocab, named):
    """vocab.txt with a duplicate, the wrong number of lines, or bad bytes -> exit 2 naming vocab.txt."""
    path = tiny(tmp_path)
    (path / "vocab.txt").write_bytes(vocab if isinstance(vocab, bytes) else vocab.encode())
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and "vocab.txt" in err and named in err


def _docs(mutate):
    def damage(path):
        frame = pd.read_parquet(path / "docs.parquet")
        mutate(frame).to_parquet(path / "docs.parquet", index=False)
    return damage


@pytest.mark.parametrize("damage, named", [
    pytest.param(_docs(lambda f: f.assign(doc_id=["a", "b", "a", "c"])), "duplicate doc_id 'a'", id="docs-duplicate-doc-id"),
    pytest.param(_docs(lambda f: f.drop(columns=["split"])), "missing column 'split'", id="docs-missing-split-column"),
    pytest.param(_docs(lambda f: f.assign(split=["train", "dev", "test", "train"])), "'dev'", id="docs-split-not-train-test"),
    pytest.param(_docs(lambda f: f.assign(split=["test"] * 4)), "no document in the train split", id="docs-no-train"),
    pytest.param(_docs(lambda f: f.iloc[:3]), "3 rows but counts/manifest.json has 4", id="docs-too-few-rows"),
    pytest.param(_docs(lambda f: f.assign(doc_id=["a", None, "c", "d"])), "doc_id missing at row 1", id="docs-null-doc-id"),
    pytest.param(lambda p: (p / "docs.parquet").write_bytes(b"PAR1 nothing"), "cannot be read as parquet", id="docs-garbage"),
])
def test_bad_docs_named(tmp_path, capsys, damage, named):
    """docs.parquet with duplicate ids, a missing column, a bad split, no train docs or bad bytes -> exit 2 naming it."""
    path = tiny(tmp_path)
    damage(path)
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and "docs.parquet" in err and named in err


@pytest.mark.parametrize("name", ["vocab.txt", "counts.npz", "corpus.json", "counts/manifest.json",
                                  "counts/00000.data.npy"])
def test_unreadable_file_named(tmp_path, capsys, name):
    """A corpus file that cannot be read (a folder where the file should be; root ignores chmod) -> exit 2 naming it."""
    path = tiny(tmp_path, legacy=name == "counts.npz")
    (path / name).unlink()
    (path / name).mkdir()
    code, err = run_cli(["corpus", "info", path], capsys)
    assert code == 2 and name in err


def test_corpus_path_is_a_file(tmp_path, capsys):
    """corpus info on a file instead of a corpus folder -> exit 2 naming it."""
    (tmp_path / "c").write_text("x")
    code, err = run_cli(["corpus", "info", tmp_path / "c"], capsys)
    assert code == 2 and f"{tmp_path / 'c'}: not a directory" in err


def test_counts_zip_member_corrupt(tmp_path, capsys):
    """counts.npz whose zip directory is intact but one member's bytes are flipped -> exit 2 naming counts.npz."""
    path = tiny(tmp_path, legacy=True)
    raw = bytearray((path / "counts.npz").read_bytes())
    with zipfile.ZipFile(path / "counts.npz") as z:
        info_ = z.getinfo("data.npy")
    name_len, extra_len = int.from_bytes(raw[info_.header_offset + 26:][:2], "little"), \
        int.from_bytes(raw[info_.header_offset + 28:][:2], "little")
    start = info_.header_offset + 30 + name_len + extra_len + info_.compress_size // 2
    raw[start] ^= 0xFF  # one byte of the member's data: the zip directory still lists it
    (path / "counts.npz").write_bytes(bytes(raw))
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and "counts.npz" in err


# ---------------------------------------------------------------------------------------------
# the sharded counts: each damage named by the shard file, in a later shard too


def _shard(part, mutate, shard=1):
    def damage(path):
        file = path / "counts" / f"{shard:05d}.{part}.npy"
        array = np.load(file)
        np.save(file, mutate(array.copy()))
    return damage


def _set(index, value):
    def mutate(array):
        array[index] = value
        return array
    return mutate


def _manifest(mutate):
    def damage(path):
        manifest = json.loads((path / "counts" / "manifest.json").read_text())
        mutate(manifest)
        (path / "counts" / "manifest.json").write_text(json.dumps(manifest))
    return damage


SHARD_DAMAGE = [  # two shards of two documents: rows 2, 3 live in shard 00001
    pytest.param(_shard("indices", _set(-1, 7)), "00001.indices.npy", "word id 7 out of range [0, 3) at document row 3",
                 id="shard-word-id-out-of-range"),
    pytest.param(_shard("indices", _set(0, -1)), "00001.indices.npy", "word id -1 out of range", id="shard-negative-word-id"),
    pytest.param(_shard("data", _set(0, 0)), "00001.data.npy", "at document row 2", id="shard-zero-count"),
    pytest.param(_shard("data", _set(1, -3)), "00001.data.npy", "non-negative integers", id="shard-negative-count"),
    pytest.param(_shard("data", lambda a: a.astype(np.float64)), "00001.data.npy", "expected 1-d int32",
                 id="shard-float-counts"),
    pytest.param(_shard("indptr", lambda a: np.array([0, 0, a[-1]])),
                 "00001.indptr.npy", "document row 2 is empty", id="shard-empty-document"),
    pytest.param(_shard("indptr", lambda a: np.array([0, a[-1], 1])), "00001.indptr.npy", "row pointers",
                 id="shard-indptr-decreasing"),
    pytest.param(_shard("indices", lambda a: a[::-1].copy()), "00001.indices.npy", "not increasing within document row 3",
                 id="shard-word-ids-unsorted"),
    pytest.param(_shard("data", lambda a: a[:-1]), "00001.indptr.npy", "row pointers", id="shard-data-too-short"),
    pytest.param(lambda p: (p / "counts" / "00001.data.npy").write_bytes(b"\x93NUMPY garbage"), "00001.data.npy",
                 "cannot be read", id="shard-garbage"),
    pytest.param(lambda p: (p / "counts" / "manifest.json").write_text('{"format": "x"}'), "manifest.json", "format",
                 id="manifest-wrong-format"),
    pytest.param(_manifest(lambda m: m["shards"][1].update(rows=[3, 4])), "manifest.json", "shard 1 covers rows [3, 4)",
                 id="manifest-gap-between-shards"),
    pytest.param(_manifest(lambda m: m["shards"].pop()), "manifest.json", "shards cover 2 rows, n_docs is 4",
                 id="manifest-shard-missing"),
]


@pytest.mark.parametrize("damage, file, named", SHARD_DAMAGE)
def test_damaged_shard_named(tmp_path, capsys, damage, file, named):
    """A shard with a bad word id, count, row pointer or order, even in a later shard -> exit 2 naming the shard file."""
    path = tiny(tmp_path, shard_rows=2)
    damage(path)
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and file in err and named in err, err


def test_corrupt_shard_caught_by_its_checksum(tmp_path, capsys):
    """One flipped byte in a later shard's counts (still a valid array) -> exit 2, its checksum names the shard."""
    path = tiny(tmp_path, shard_rows=2)
    raw = bytearray((path / "counts" / "00001.data.npy").read_bytes())
    raw[-1] ^= 0x01  # the last count 1 -> 0 or 1 -> ... stays a plausible int32
    (path / "counts" / "00001.data.npy").write_bytes(bytes(raw))
    code, err = info(path, capsys)
    assert code == 2 and "counts/00001.data.npy: checksum mismatch with counts/manifest.json" in err


def test_truth_swapped_for_another_corpus_named(tmp_path, capsys):
    """truth.npz replaced by another valid one of the same shape (planted topics of another seed) -> exit 2
    naming truth.npz (its checksum), not recovery scores against the wrong truth."""
    path = tiny(tmp_path, truth=True)
    np.savez(path / "truth.npz", topics=np.eye(2, 3) * 0.5 + 0.25, theta=np.full((4, 2), 0.5))
    code, err = info(path, capsys)
    assert code == 2 and "truth.npz" in err and "checksum" in err, err


@pytest.mark.parametrize("drop", [pytest.param("all", id="corpus-json-checksums-emptied"),
                                  pytest.param("vocab.txt", id="corpus-json-vocab-checksum-removed")])
def test_checksums_removed_then_a_file_edited(tmp_path, capsys, drop):
    """corpus.json's checksums emptied (or one entry removed) and vocab.txt then edited -> exit 2 naming corpus.json
    and the unlisted file, never a corpus loaded unverified."""
    path = tiny(tmp_path)
    meta = json.loads((path / "corpus.json").read_text())
    meta["checksums"] = {} if drop == "all" else {k: v for k, v in meta["checksums"].items() if k != drop}
    (path / "corpus.json").write_text(json.dumps(meta))
    (path / "vocab.txt").write_text("apple\nbread\ncheddar\n")
    code, err = info(path, capsys)
    assert code == 2 and "corpus.json" in err and "vocab.txt" in err, err


def test_corpus_prepared_again_while_a_run_reads_it(tmp_path):
    """A corpus prepared again into its folder while a run reads its shards -> CorpusError naming the replaced
    shard, never rows of the new corpus under the old one's row pointers."""
    from topicbench.corpus import CorpusError, load_corpus

    path = tiny(tmp_path, shard_rows=2)
    corpus = load_corpus(path)
    first = corpus.store.rows(np.array([0])).toarray()
    other = Corpus(sp.csr_matrix(np.array(TINY)[::-1]), ["apple", "bread", "cheese"], make_docs_frame(4), {"name": "t"})
    save_corpus(other, path, shard_rows=2)  # the swap: same folder, new files
    with pytest.raises(CorpusError, match=r"counts/0000[01]\..*replaced while"):
        corpus.store.rows(np.array([0, 3]))
    assert first.sum() > 0


def test_whole_corpus_beside_leftovers_on_a_read_only_copy(tmp_path, monkeypatch):
    """A whole corpus on a read-only copy, beside a killed prepare's staging folder -> it loads, the leftover kept.

    (Was: 'cannot recover an interrupted prepare (Read-only file system)': the loader insisted on removing the
    leftover, so no run could read a whole corpus.)"""
    from topicbench import io as tb_io
    from topicbench.corpus import load_corpus

    path = tiny(tmp_path)
    leftover = tmp_path / ".tiny.staging-4000000"  # no live process holds its lock: a dead prepare's
    leftover.mkdir()
    (leftover / "vocab.txt").write_text("apple\n")

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tb_io.shutil, "rmtree", read_only)
    assert load_corpus(path).vocab == ["apple", "bread", "cheese"]
    assert (leftover / "vocab.txt").read_text() == "apple\n"


@pytest.mark.parametrize("at", ["vocab.txt", "manifest.json", "docs-column-after-load", "truth-theta-after-load"])
def test_corpus_prepared_again_while_it_loads(tmp_path, monkeypatch, at):
    """A corpus prepared again while a run loads it, or before a docs column it reads later -> CorpusError naming it.

    The swap lands after corpus.json and the checksums were read, before the vocabulary or the manifest, or after
    the load, before a docs column: never the new files under the old corpus.json (a mix that keeps the old
    content's sha256 as the runs' provenance)."""
    from topicbench import corpus as corpus_module
    from topicbench.corpus import CorpusError, load_corpus

    path = tiny(tmp_path, shard_rows=2)
    # the same shape, split and token counts (every summary check passes), other words and counts per word
    other = Corpus(sp.csr_matrix(np.array(TINY)[:, ::-1]), ["yam", "zest", "ziti"],
                   make_docs_frame(4, split=["train", "train", "test", "train"]), {"name": "tiny"})
    if at.endswith("after-load"):
        path = tiny(tmp_path, truth=True, shard_rows=2)
        corpus = load_corpus(path)
        other = Corpus(other.counts, other.vocab, make_docs_frame(4, split=["train", "train", "test", "train"]),
                       {"name": "tiny"}, {"topics": np.full((2, 3), 1 / 3), "theta": np.full((4, 2), 0.25)})
        save_corpus(other, path, shard_rows=2)
        culprit = "docs.parquet" if at.startswith("docs") else "truth.npz"
        with pytest.raises(CorpusError, match=rf"{path / culprit}: replaced while this process was reading"):
            corpus.docs if at.startswith("docs") else corpus.truth["theta"]
        return
    read_text, swapped = corpus_module.read_text_file, []

    def swap_then_read(file, *args, **kwargs):  # the prepare's swap lands just before this read
        if file.name == at and not swapped:
            swapped.append(file)
            save_corpus(other, path, shard_rows=2)
        return read_text(file, *args, **kwargs)

    monkeypatch.setattr(corpus_module, "read_text_file", swap_then_read)
    with pytest.raises(CorpusError, match=rf"{path}: replaced while this process was loading it"):
        load_corpus(path)
    assert swapped
    monkeypatch.undo()
    assert load_corpus(path).vocab == ["yam", "zest", "ziti"]  # the new corpus, whole, on the next load


@pytest.mark.parametrize("file, key", [pytest.param("corpus.json", "n_tokens", id="corpus-json-n_tokens-edited"),
                                       pytest.param("corpus.json", "n_train", id="corpus-json-n_train-edited"),
                                       pytest.param("counts/manifest.json", "n_tokens", id="manifest-n_tokens-edited")])
def test_summary_numbers_edited_by_hand(tmp_path, capsys, file, key):
    """A corpus.json or manifest whose token or training-document count was edited (checksums made to match) -> exit
    2 naming the file and the key, not a wrong number in every figure caption."""
    path = tiny(tmp_path)
    meta = json.loads((path / file).read_text())
    meta[key] = 7
    (path / file).write_text(json.dumps(meta))
    rechecksum(path)
    code, err = info(path, capsys)
    assert code == 2 and file in err and f"{key}=7" in err, err
