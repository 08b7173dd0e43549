"""The corpus directory format: round trip, and every malformed input named at load time."""
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from topicbench.corpus import Corpus, CorpusError, canonical_counts, load_corpus, make_docs_frame, save_corpus


def tiny():
    counts = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 1], [4, 0, 0]]))
    return Corpus(counts, ["apple", "bread", "cheese"], make_docs_frame(3, split=["train", "train", "test"]),
                  {"name": "tiny"})


def test_round_trip(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny")
    loaded = load_corpus(path)
    assert (loaded.counts != tiny().counts).nnz == 0
    assert loaded.vocab == ["apple", "bread", "cheese"]
    assert list(loaded.docs["split"]) == ["train", "train", "test"]
    meta = json.loads((path / "corpus.json").read_text())
    assert meta["n_tokens"] == 11 and meta["n_train"] == 2 and set(meta["checksums"]) == {"counts/manifest.json", "vocab.txt", "docs.parquet"}
    assert loaded.split("test").n_docs == 1


def test_corrupt_counts_named(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny")
    (path / "counts" / "00000.data.npy").write_bytes(b"\x93NUMPY not really an array")
    with pytest.raises(CorpusError, match=r"counts/00000.data.npy"):
        load_corpus(path, verify_checksums=False)
    with pytest.raises(CorpusError, match=r"counts/00000.data.npy: checksum mismatch"):
        load_corpus(path)


def test_vocab_length_mismatch_named(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny")
    (path / "vocab.txt").write_text("apple\nbread\n")
    with pytest.raises(CorpusError, match=r"vocab.txt: vocabulary has 2 words but counts/manifest.json has 3 columns"):
        load_corpus(path, verify_checksums=False)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: Corpus(sp.csr_matrix(np.array([[1, 0, 2], [0, 0, 0], [4, 0, 0]])), c.vocab, c.docs), "document row 1 is empty"),
        (lambda c: Corpus(c.counts, c.vocab, c.docs.assign(doc_id=["a", "a", "b"])), "duplicate doc_id 'a'"),
        (lambda c: Corpus(c.counts, c.vocab, c.docs.assign(split=["train", "dev", "test"])), "split must be one of"),
        (lambda c: Corpus(c.counts, ["apple", "apple", "cheese"], c.docs), "duplicate word 'apple'"),
        (lambda c: Corpus(c.counts * -1, c.vocab, c.docs), "non-negative integers"),
        (lambda c: Corpus(c.counts, c.vocab, c.docs.iloc[:2]), "2 rows but counts has 3 documents"),
    ],
)
def test_invalid_corpus_rejected(tmp_path, mutate, message):
    with pytest.raises(CorpusError, match=message):
        save_corpus(mutate(tiny()), tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_out_of_range_word_id(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny")
    bad = sp.csr_matrix((np.array([1, 1]), np.array([0, 7]), np.array([0, 1, 2, 2])), shape=(3, 3), dtype=np.int64)
    with pytest.raises(CorpusError, match="word id 7 out of range"):
        from topicbench.corpus import validate

        validate(bad, ["a", "b", "c"], make_docs_frame(3), str(path))


def test_missing_files_named(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny")
    (path / "docs.parquet").unlink()
    with pytest.raises(CorpusError, match=r"docs.parquet: missing"):
        load_corpus(path)
    with pytest.raises(CorpusError, match="does not exist"):
        load_corpus(tmp_path / "nowhere")


def test_docs_parquet_corrupt_named(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny")
    (path / "docs.parquet").write_bytes(b"garbage")
    with pytest.raises(CorpusError, match=r"docs.parquet: cannot be read as parquet"):
        load_corpus(path, verify_checksums=False)


def test_save_is_atomic_on_failure(tmp_path, monkeypatch):
    """A failure while writing leaves neither a partial directory nor a staging directory behind."""
    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", boom)
    with pytest.raises(OSError):
        save_corpus(tiny(), tmp_path / "tiny")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# the sharded format: rows read from disk are the rows of the matrix, whatever the shards


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    """The planted test corpus (1,700 documents, time column), saved in shards of 128 documents (14 shards)."""
    from conftest import planted

    corpus = planted()
    # times with many ties, broken by doc id in string order ("d10" < "d2"): the time_ordered stream's order
    corpus.docs["time"] = np.round(np.random.default_rng(1).random(corpus.n_docs), 1)
    return corpus, load_corpus(save_corpus(corpus, tmp_path_factory.mktemp("sharded") / "c", shard_rows=128))


def test_minibatch_from_disk_equals_matrix_rows(sharded):
    memory, disk = sharded
    assert len(list((disk.store.root / "counts").glob("*.data.npy"))) == 14
    rows = np.random.default_rng(0).integers(memory.n_docs, size=1024)  # random rows across shards, repeats too
    for pick in (rows, np.arange(120, 400), np.array([memory.n_docs - 1, 0, 127, 128]), np.zeros(0, np.int64)):
        a, b = disk.rows(pick), memory.counts[pick]
        assert a.shape == b.shape and (a != b).nnz == 0 and a.dtype == b.dtype and a.has_sorted_indices
    train = disk.split("train")  # a view of a view: subset rows of the train split
    sub = train.select(np.array([5, 3, 900]))
    assert (sub.counts != memory.split("train").counts[[5, 3, 900]]).nnz == 0
    assert np.array_equal(disk.word_totals(), np.asarray(memory.counts.sum(axis=0)).ravel())
    assert list(sub.column("doc_id")[np.arange(3)]) == list(memory.split("train").docs["doc_id"].iloc[[5, 3, 900]])


def test_read_releases_mapped_pages(sharded):
    """After a read no shard page stays in the process's resident set (it stays in the page cache): RSS is one
    read's worth, not the corpus's."""
    _, disk = sharded
    disk.rows(np.arange(disk.n_docs))
    mapped = {str(disk.store.shard_file(s, part)) for s in disk.store._maps for part in ("indices", "data")}
    resident, current = 0, None
    for line in open("/proc/self/smaps"):
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's first line; anonymous ones have no path
            current = fields[5] if len(fields) >= 6 else None
        elif fields[0] == "Rss:" and current in mapped:
            resident += int(fields[1])
    assert mapped and resident == 0


@pytest.mark.parametrize("stream, holdout, subset", [("shuffled", "fixed", 1200), ("with_replacement", "lookahead", 1200),
                                                     ("time_ordered", "every_nth_batch", 1200),
                                                     ("time_ordered", "lookahead", None)])
def test_stream_over_shards_same_order_and_trace(sharded, stream, holdout, subset):
    """A run over the shards draws the same documents in the same order, and scores the same numbers, as in memory.

    Without a subset the train split is one block of rows (a ``RowRange`` view, no index array), the case the
    time-ordered stream's tie-break by doc id must also read."""
    from topicbench.run import RunSpec, run

    memory, disk = sharded
    reads = {"fixed": {"n_checkpoints": 4}, "every_nth_batch": {"holdout_n": 3}}  # the settings each policy reads
    spec = RunSpec("online_lda", {"K": 5, "batch_size": 64}, seed=3, stream=stream, holdout=holdout, max_docs=700,
                   train_subset=subset, max_test_docs=150, **reads.get(holdout, {"holdout_n": 3, "n_checkpoints": 4}))
    a, method_a = run(spec, memory)
    b, method_b = run(spec, disk)
    numbers = [c for c in a.columns if not c.endswith(("wall_s", "cpu_s"))]
    pd.testing.assert_frame_equal(a[numbers], b[numbers])
    assert np.array_equal(method_a.topics(), method_b.topics())  # bit for bit: the same minibatches in the same order


def test_single_npz_corpus_still_loads(tmp_path, sharded):
    """A folder of the older format (one counts.npz) loads, into memory, with the same rows."""
    memory, _ = sharded
    path = save_corpus(memory, tmp_path / "old")
    import shutil

    shutil.rmtree(path / "counts")
    sp.save_npz(path / "counts.npz", memory.counts, compressed=True)
    meta = json.loads((path / "corpus.json").read_text())
    del meta["checksums"]["counts/manifest.json"]
    meta["checksums"]["counts.npz"] = __import__("hashlib").sha256((path / "counts.npz").read_bytes()).hexdigest()
    (path / "corpus.json").write_text(json.dumps(meta))
    old = load_corpus(path)
    assert (old.counts != memory.counts).nnz == 0 and old.truth["theta"].shape == memory.truth["theta"].shape
    assert (old.rows(np.array([7, 3])) != memory.counts[[7, 3]]).nnz == 0


def test_tokens_and_lengths_count_every_token_of_the_view(tmp_path):
    """`topicbench corpus info` and the datasets table read n_tokens and doc_lengths: tokens, not distinct words, and
    of the view asked (a split of a loaded, sharded corpus), not of the whole corpus recorded in corpus.json. By hand:
    lengths 3, 4, 4; the train split holds 7 tokens."""
    corpus = load_corpus(save_corpus(tiny(), tmp_path / "c"))
    assert corpus.n_tokens == 11 and corpus.doc_lengths().tolist() == [3, 4, 4]
    train = corpus.split("train")
    assert train.n_tokens == 7 and train.doc_lengths().tolist() == [3, 4]
    assert corpus.split("test").n_tokens == 4


def test_row_ranges_take_negative_rows_from_their_end():
    """A contiguous split's row index (RowRange) reads like the int64 array it stands for: row -1 is its last."""
    from topicbench.corpus import RowRange

    rows = RowRange(10, 20)
    assert np.asarray(rows[np.array([-1, 0, -10])]).tolist() == [19, 10, 10]


def test_a_count_changed_past_the_header_fails_the_checksum(tmp_path):
    """Damage that keeps the shard valid and its token total (document 0's counts 1, 2 swapped to 2, 1, after the
    128-byte .npy header) is caught only by a checksum over every byte of the file."""
    path = save_corpus(tiny(), tmp_path / "tiny")
    data = path / "counts" / "00000.data.npy"
    raw = bytearray(data.read_bytes())
    assert len(raw) == 128 + 4 * 5 and raw[128:136] == np.array([1, 2], "<i4").tobytes()  # tiny()'s row 0, int32
    raw[128:136] = np.array([2, 1], "<i4").tobytes()
    data.write_bytes(bytes(raw))
    assert load_corpus(path, verify_checksums=False).counts[0].toarray().tolist() == [[2, 0, 1]]  # still well formed
    with pytest.raises(CorpusError, match=r"counts/00000.data.npy: checksum mismatch"):
        load_corpus(path)


def test_a_manifest_whose_shards_skip_rows_is_named(tmp_path):
    path = save_corpus(tiny(), tmp_path / "tiny", shard_rows=1)
    manifest = json.loads((path / "counts" / "manifest.json").read_text())
    assert [s["rows"] for s in manifest["shards"]] == [[0, 1], [1, 2], [2, 3]]
    manifest["shards"][1]["rows"] = [2, 3]  # rows 1..2 claimed to be 2..3: row 1 has no shard
    (path / "counts" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CorpusError, match=r"shard 1 covers rows \[2, 3\), expected to start at 1"):
        load_corpus(path, verify_checksums=False)


@pytest.mark.parametrize("saved", [False, True])
def test_an_interleaved_split_takes_exactly_its_rows(tmp_path, saved):
    """Splits train, test, train: the train split is rows 0 and 2 (not the block 0..1 from its first row)."""
    counts = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 1], [4, 0, 0]]))
    corpus = Corpus(counts, ["apple", "bread", "cheese"], make_docs_frame(3, split=["train", "test", "train"]),
                    {"name": "mixed"})
    if saved:
        corpus = load_corpus(save_corpus(corpus, tmp_path / "mixed"))
    assert np.asarray(corpus.split_rows("train")).tolist() == [0, 2]
    assert corpus.split("train").counts.toarray().tolist() == [[1, 0, 2], [4, 0, 0]]
    assert corpus.split("test").counts.toarray().tolist() == [[0, 3, 1]]


def test_a_block_across_shards_is_the_rows_in_memory(tmp_path):
    """One shard per document, read back as one block of all three: row pointers by hand from tiny()'s row lengths
    2, 2, 1 (checked before any scipy operation reads them)."""
    corpus = load_corpus(save_corpus(tiny(), tmp_path / "tiny", shard_rows=1))
    (start, block), = list(corpus.chunks(3))
    assert start == 0 and block.indptr.tolist() == [0, 2, 4, 5]
    assert block.toarray().tolist() == [[1, 0, 2], [0, 3, 1], [4, 0, 0]]


def test_counts_beyond_16_bits_survive_the_round_trip(tmp_path):
    """Shards hold int32 counts: 40,000 (past int16) and 70,000 (past uint16) come back as written."""
    counts = sp.csr_matrix(np.array([[40000, 0, 2], [0, 70000, 1]]))
    corpus = Corpus(counts, ["a", "b", "c"], make_docs_frame(2, split=["train", "test"]), {"name": "big"})
    loaded = load_corpus(save_corpus(corpus, tmp_path / "big"))
    assert loaded.counts.toarray().tolist() == [[40000, 0, 2], [0, 70000, 1]]
    assert loaded.n_tokens == 110003


def test_a_view_of_a_view_indexes_the_first_views_rows():
    """select([2, 0]) then select([1]) is the first view's row 1, i.e. the corpus's row 0."""
    view = tiny().select(np.array([2, 0])).select(np.array([1]))
    assert view.counts.toarray().tolist() == [[1, 0, 2]]
    assert list(view.docs["split"]) == ["train"]


def test_interleaved_split_rows_and_summary_by_hand(tmp_path):
    """Splits train, test, test, train, test (not one block each) -> the test split is rows 1, 2, 4, from memory and
    from disk (a corpus all in train: its train split is all 5); the summary's length quantiles of lengths 1..5 are
    numpy's linear ones (q10 = 1.4, q90 = 4.6)."""
    from topicbench.corpus import Corpus, load_corpus, make_docs_frame, save_corpus

    counts = sp.csr_matrix(np.array([[1, 0], [2, 0], [1, 2], [4, 0], [2, 3]], dtype=np.int32))
    memory = Corpus(counts, ["apple", "bread"], make_docs_frame(5, split=["train", "test", "test", "train", "test"]),
                    {"name": "t"})
    disk = load_corpus(save_corpus(memory, tmp_path / "c"))
    for corpus in (memory, disk):
        test = corpus.split("test")
        assert test.docs["doc_id"].tolist() == ["d1", "d2", "d4"] and list(test.docs.columns) == ["doc_id", "split"]
        assert (test.counts != counts[[1, 2, 4]]).nnz == 0
    whole = load_corpus(save_corpus(Corpus(counts, ["apple", "bread"], make_docs_frame(5), {"name": "w"}), tmp_path / "w"))
    assert whole.split("train").n_docs == 5 and whole.split("test").n_docs == 0  # every document in one split
    quantiles = disk.summary()["length_quantiles"]
    assert quantiles == pytest.approx({"q0": 1.0, "q10": 1.4, "q50": 3.0, "q90": 4.6, "q100": 5.0})


def test_counts_up_to_int32_max_are_kept_and_unreadable_folders_are_not_corpus_leftovers(tmp_path):
    """A count of 2^31 - 1 is stored as is (one more would wrap: refused); a path that is a file, a corpus.json
    without checksums or cut short, or a folder holding a link, is neither a corpus nor a prepare's leftover to
    remove; a folder of corpus files and a staged .tmp is one, until it holds a file of the user's."""
    from topicbench.corpus import CorpusError, canonical_counts, holds_only_corpus_files, is_corpus_dir

    top = np.iinfo(np.int32).max
    assert canonical_counts(sp.csr_matrix(np.array([[top, 1]], dtype=np.int64)), 2, "c").data.tolist() == [top, 1]
    with pytest.raises(CorpusError, match="c: count 2147483648 at document row 0, word id 0"):
        canonical_counts(sp.csr_matrix(np.array([[top + 1, 1]], dtype=np.int64)), 2, "c")
    (tmp_path / "file").write_text("notes")
    assert not holds_only_corpus_files(tmp_path / "file")
    (tmp_path / "half").mkdir()  # a killed prepare's leftover: its files and a staged .tmp
    for name in ("vocab.txt", "docs.parquet", ".vocab.txt.tmp"):
        (tmp_path / "half" / name).write_text("")
    assert holds_only_corpus_files(tmp_path / "half")
    for mine in ("notes.txt", ".notes", "notes.tmp"):  # a file of the user's: not a prepare's scratch .<name>.tmp
        (tmp_path / "half" / mine).write_text("mine")
        assert not holds_only_corpus_files(tmp_path / "half")
        (tmp_path / "half" / mine).unlink()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "corpus.json").write_text('{"n_docs": 1}')
    assert not is_corpus_dir(tmp_path / "c")
    (tmp_path / "c" / "corpus.json").write_text("{")  # cut short
    assert not is_corpus_dir(tmp_path / "c")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "vocab.txt").symlink_to(tmp_path / "file")  # a link is never a prepare's own file
    assert not holds_only_corpus_files(tmp_path / "linked")


def test_manifest_shard_without_its_data_file_is_refused(tmp_path):
    """A shard listing only indptr and indices (files and sha256 alike) -> refused naming the shard, not a KeyError;
    a manifest, or in-memory counts, of no document, or a shard of no row -> refused."""
    from topicbench.corpus import SHARD_FORMAT, read_manifest

    shard = {"rows": [0, 3], "nnz": 6, "files": {"indptr": "0.indptr.npy", "indices": "0.indices.npy"},
             "sha256": {"indptr": "0" * 64, "indices": "0" * 64}}
    (tmp_path / "counts").mkdir()
    (tmp_path / "counts" / "manifest.json").write_text(json.dumps({"format": SHARD_FORMAT, "n_docs": 3, "n_words": 2, "nnz": 6,
                                                        "n_tokens": 6, "shards": [shard]}))
    with pytest.raises(CorpusError, match="shard 0 must list indptr, indices and data files with their sha256"):
        read_manifest(tmp_path)
    (tmp_path / "counts" / "manifest.json").write_text(json.dumps({"format": SHARD_FORMAT, "n_docs": 0, "n_words": 2,
                                                                   "nnz": 0, "n_tokens": 0, "shards": []}))
    with pytest.raises(CorpusError, match="shards cover 0 rows, n_docs is 0"):
        read_manifest(tmp_path)
    empty_first = {"rows": [0, 0], "nnz": 0, "files": {k: f"0.{k}.npy" for k in ("indptr", "indices", "data")},
                   "sha256": {k: "0" * 64 for k in ("indptr", "indices", "data")}}
    (tmp_path / "counts" / "manifest.json").write_text(json.dumps({"format": SHARD_FORMAT, "n_docs": 3, "n_words": 2,
                                                                   "nnz": 6, "n_tokens": 6, "shards": [empty_first, shard]}))
    with pytest.raises(CorpusError, match="shard 0 covers rows \\[0, 0\\)"):
        read_manifest(tmp_path)
    from topicbench.corpus import validate

    with pytest.raises(CorpusError, match="the corpus has no documents"):
        validate(sp.csr_matrix((0, 2), dtype=np.int32), ["a", "b"], make_docs_frame(0))


def test_row_ranges_slice_and_refuse_out_of_range_rows_and_time_needs_every_date():
    """RowRange(5, 10): [1:3] is rows 6, 7; index -5 is row 5, -6 and 5 out of range (beside a valid one). A corpus has
    time only when it has a time column without a missing value; its summary spans earliest to latest. A vocabulary's
    first repeated word is named."""
    from topicbench.corpus import RowRange, check_vocab

    part = RowRange(5, 10)[1:3]
    assert (part.start, part.stop) == (6, 8)
    assert RowRange(5, 10)[[-5, 4]].tolist() == [5, 9]
    for rows in ([4, -6], [0, 5]):
        with pytest.raises(IndexError, match="out of range for a view of 5 documents"):
            RowRange(5, 10)[rows]
    counts = sp.csr_matrix(np.ones((2, 2), dtype=np.int32))
    assert not Corpus(counts, ["a", "b"], make_docs_frame(2), {"name": "t"}).has_time
    assert not Corpus(counts, ["a", "b"], make_docs_frame(2, time=[2001.0, np.nan]), {"name": "t"}).has_time
    dated = Corpus(counts, ["a", "b"], make_docs_frame(2, time=[2002.5, 2001.0]), {"name": "t"})
    assert dated.has_time and dated.summary()["time_span"] == ["2001.0", "2002.5"]
    with pytest.raises(CorpusError, match="duplicate word 'b'"):
        check_vocab(["a", "b", "c", "b", "a"], 5, "w")


def test_a_views_fingerprint_is_its_own_and_stored_zeros_are_dropped(tmp_path):
    """A loaded corpus's train split (a view) -> the fingerprint of those documents (as an in-memory corpus of them
    computes it), not the whole corpus's recorded one; an empty block of rows is a 0 x V matrix; a stored zero count
    is dropped, not an error; an .npz holding a pickled object is refused, never unpickled."""
    from topicbench.corpus import content_fingerprint, read_npz

    counts = sp.csr_matrix(np.array([[1, 0], [2, 1], [0, 3]], dtype=np.int32))
    docs = make_docs_frame(3, split=["train", "test", "train"])
    disk = load_corpus(save_corpus(Corpus(counts, ["apple", "bread"], docs, {"name": "t"}), tmp_path / "c"))
    train = Corpus(counts[[0, 2]], ["apple", "bread"], docs.iloc[[0, 2]].reset_index(drop=True), {"name": "t"})
    assert content_fingerprint(disk.split("train")) == content_fingerprint(train) != content_fingerprint(disk)
    assert disk.store.block(1, 1).shape == disk.store.block(3, 3).shape == (0, 2)
    stored_zero = sp.csr_matrix((np.array([1, 0, 2]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    assert canonical_counts(stored_zero, 2, "c").toarray().tolist() == [[1, 0], [0, 2]]
    np.savez(tmp_path / "p.npz", a=np.array([{"x": 1}], dtype=object))
    with pytest.raises(CorpusError, match="p.npz"):
        read_npz(tmp_path / "p.npz")
    from topicbench.corpus import _read_npz_member

    with pytest.raises(CorpusError, match="p.npz"):
        _read_npz_member(tmp_path / "p.npz", "a")


def test_row_ranges_concatenate_and_a_views_truth_is_its_rows_of_theta():
    """_ranges([5, 10], [2, 3]) = 5 6 10 11 12 (by hand); a view's planted truth gives its rows of theta and every
    topic (topics are not per document)."""
    from topicbench.corpus import Truth, _ranges

    assert _ranges(np.array([5, 10]), np.array([2, 3])).tolist() == [5, 6, 10, 11, 12]
    truth = Truth({"theta": np.arange(6).reshape(3, 2), "topics": np.eye(3)[:2]}, rows=np.array([0, 2]))
    assert truth["theta"].tolist() == [[0, 1], [4, 5]] and truth["topics"].shape == (2, 3)


def test_split_rows_of_a_docs_table_read_in_several_batches(tmp_path):
    """65,539 documents (docs.parquet read 65,536 rows at a time: two batches), test documents 1 and 65,537 -> the
    test split is exactly those two rows (a batch written at the wrong offset would mark others)."""
    n = 65536 + 3
    counts = sp.csr_matrix((np.ones(n, dtype=np.int32), np.zeros(n, dtype=np.int32), np.arange(n + 1)), shape=(n, 2))
    split = ["train"] * n
    split[1] = split[65537] = "test"
    disk = load_corpus(save_corpus(Corpus(counts, ["a", "b"], make_docs_frame(n, split=split), {"name": "t"}),
                                   tmp_path / "c"))
    assert disk.split_rows("test").tolist() == [1, 65537]


def test_shards_validate_block_by_block_to_the_token_total(tmp_path):
    """Counts [[1, 2], [3, 0], [0, 4], [5, 6]] (21 tokens) checked 2 entries at a time and all at once -> 21 both ways;
    a word id out of range, or repeated within a document, in the third block is found there too."""
    from topicbench.corpus import validate_shards

    counts = sp.csr_matrix(np.array([[1, 2], [3, 0], [0, 4], [5, 6]], dtype=np.int32))
    disk = load_corpus(save_corpus(Corpus(counts, ["a", "b"], make_docs_frame(4), {"name": "t"}), tmp_path / "c"))
    assert validate_shards(disk.store, block_entries=2) == validate_shards(disk.store) == 21
    indices = tmp_path / "c" / "counts" / "00000.indices.npy"
    damaged = np.load(indices)
    damaged[4] = 2  # the third block's first entry, document row 3's first word: one past the vocabulary
    np.save(indices, damaged)
    with pytest.raises(CorpusError, match="word id 2 out of range \\[0, 2\\) at document row 3"):
        validate_shards(disk.store, block_entries=2)
    damaged[4] = 1  # document row 3 is word 1 twice: its ids must increase
    np.save(indices, damaged)
    with pytest.raises(CorpusError, match="word ids not increasing within document row 3"):
        validate_shards(disk.store, block_entries=2)


def test_corpus_in_shards_of_two_documents_reads_back_whole(tmp_path):
    """Five documents saved in shards of 2 (3 shards) -> the same counts back, and the folder is a complete corpus
    (until a listed file is gone); a corpus of one word, or of one document, is a corpus; a manifest of no word is
    refused."""
    from topicbench.corpus import SHARD_FORMAT, is_corpus_dir, read_manifest

    counts = sp.csr_matrix(np.array([[1, 0], [2, 1], [0, 3], [4, 0], [1, 1]], dtype=np.int32))
    path = save_corpus(Corpus(counts, ["a", "b"], make_docs_frame(5), {"name": "t"}), tmp_path / "c", shard_rows=2)
    assert is_corpus_dir(path)
    disk = load_corpus(path)
    assert len(disk.store.shards) == 3 and (disk.counts != counts).nnz == 0
    one_word = Corpus(sp.csr_matrix(np.array([[2], [1]], dtype=np.int32)), ["a"], make_docs_frame(2), {"name": "o"})
    assert load_corpus(save_corpus(one_word, tmp_path / "o")).counts.toarray().tolist() == [[2], [1]]
    one_doc = Corpus(sp.csr_matrix(np.array([[2, 1]], dtype=np.int32)), ["a", "b"], make_docs_frame(1), {"name": "d"})
    assert load_corpus(save_corpus(one_doc, tmp_path / "d")).counts.toarray().tolist() == [[2, 1]]
    (path / "vocab.txt").unlink()  # a listed file gone: no longer a complete corpus
    assert not is_corpus_dir(path)
    (tmp_path / "m" / "counts").mkdir(parents=True)
    (tmp_path / "m" / "counts" / "manifest.json").write_text(json.dumps({
        "format": SHARD_FORMAT, "n_docs": 1, "n_words": 0, "nnz": 1, "n_tokens": 1,
        "shards": [{"rows": [0, 1], "nnz": 1, "files": {k: f"0.{k}.npy" for k in ("indptr", "indices", "data")},
                    "sha256": {k: "0" * 64 for k in ("indptr", "indices", "data")}}]}))
    with pytest.raises(CorpusError, match="n_words 0"):
        read_manifest(tmp_path / "m")


def test_writer_cuts_shards_every_shard_rows_whatever_the_chunks(tmp_path):
    """Chunks of 3 then 2 documents into shards of 2 -> shards of rows [0, 2), [2, 4), [4, 5) holding the counts and
    ids in order; the manifest counts 7 entries, 13 tokens."""
    import pyarrow as pa

    from topicbench.corpus import CorpusWriter

    counts = sp.csr_matrix(np.array([[1, 0], [2, 1], [0, 3], [4, 0], [1, 1]], dtype=np.int32))
    docs = make_docs_frame(5)
    (tmp_path / "s").mkdir()
    writer = CorpusWriter(tmp_path / "s", 2, "c", 2, pa.Schema.from_pandas(docs, preserve_index=False))
    writer.append(counts[:3], docs.iloc[:3], None)
    writer.append(counts[3:], docs.iloc[3:], None)
    writer.finish(["a", "b"], {"name": "t"}, None)
    disk = load_corpus(tmp_path / "s")
    assert [list(shard["rows"]) for shard in disk.store.shards] == [[0, 2], [2, 4], [4, 5]]
    assert (disk.counts != counts).nnz == 0 and disk.docs["doc_id"].tolist() == ["d0", "d1", "d2", "d3", "d4"]
    manifest = json.loads((tmp_path / "s" / "counts" / "manifest.json").read_text())
    assert (manifest["nnz"], manifest["n_tokens"]) == (7, 13)


def test_numeric_doc_ids_are_saved_as_text(tmp_path):
    """doc_id given as integers 10 and 2 -> saved and read back as the ids '10' and '2' (docs.parquet holds text ids)."""
    docs = pd.DataFrame({"doc_id": [10, 2], "split": ["train", "train"]})
    corpus = Corpus(sp.csr_matrix(np.ones((2, 2), dtype=np.int32)), ["a", "b"], docs, {"name": "t"})
    assert load_corpus(save_corpus(corpus, tmp_path / "c")).docs["doc_id"].tolist() == ["10", "2"]


def test_foreign_counts_entries_are_all_but_the_manifest_and_shard_files(tmp_path):
    """counts/ holding the manifest and a shard file, a user's note, a folder, a folder and a link named as shard
    files -> all but the first two are foreign (replacing the corpus would delete them)."""
    import os

    from topicbench.corpus import foreign_counts_entries

    counts = tmp_path / "counts"
    counts.mkdir()
    (counts / "manifest.json").write_text("{}")
    (counts / "00000.indptr.npy").write_bytes(b"")
    (counts / "notes.txt").write_text("mine")
    (counts / "old").mkdir()
    (counts / "00002.data.npy").mkdir()
    os.symlink(counts / "00000.indptr.npy", counts / "00001.data.npy")
    assert foreign_counts_entries(tmp_path) == ["counts/00001.data.npy", "counts/00002.data.npy", "counts/notes.txt",
                                                "counts/old"]
    assert foreign_counts_entries(tmp_path / "none") == []


def test_a_chunk_word_id_just_outside_the_vocabulary_is_refused():
    """A chunk whose CSR arrays hold word id V (one past the last) or -1 beside valid ones -> refused naming the id
    and the document row, as any other id out of range (scipy accepts such arrays unchecked)."""
    for bad in (2, -1):
        chunk = sp.csr_matrix((np.array([1, 1]), np.array([0, bad]), np.array([0, 1, 2])), shape=(2, 2))
        with pytest.raises(CorpusError, match=rf"word id {bad} out of range \[0, 2\) at document row 6"):
            canonical_counts(chunk, 2, "c", row0=5)


def test_meta_kept_and_deferred_columns_behave_as_their_arrays(tmp_path):
    """A corpus keeps the meta it is given ({} when none); a deferred docs column (a minibatch's doc ids, read on first
    use) equals, slices, indexes and converts as the array it stands for, from memory and from docs.parquet."""
    assert tiny().meta == {"name": "tiny"} and Corpus(tiny().counts, tiny().vocab, tiny().docs).meta == {}
    for corpus in (tiny(), load_corpus(save_corpus(tiny(), tmp_path / "tiny"))):
        ids = corpus.column("doc_id").defer(np.array([2, 0, 1]))
        assert (ids == "d0").tolist() == [False, True, False] and list(ids) == ["d2", "d0", "d1"]
        assert list(ids[1:]) == ["d0", "d1"] and list(ids[np.array([2])]) == ["d1"]
        assert np.asarray(ids, dtype=object).tolist() == ["d2", "d0", "d1"] and type(ids[1:]).__name__ == "Deferred"
        assert np.asarray(ids[np.array([True, False, True])]).tolist() == ["d2", "d1"]  # a mask is not row numbers


def test_saved_truth_theta_and_docs_columns_come_back_as_written(sharded):
    """The planted corpus saved in shards -> the same theta values (row-major, not transposed) and the same docs
    columns (no index column added by the writer's concatenation or parquet)."""
    memory, disk = sharded
    assert np.array_equal(disk.truth["theta"], memory.truth["theta"])
    assert list(disk.docs.columns) == list(memory.docs.columns)


def test_totals_past_int32_are_exact(tmp_path):
    """Two documents holding the largest int32 count of one word: word totals, document lengths and the token count
    (in memory, from shards and in corpus.json) are exact int64 sums, never an int32 wrap."""
    top = np.iinfo(np.int32).max
    counts = sp.csr_matrix(np.array([[top, 1], [top, 2]], dtype=np.int64))
    memory = Corpus(counts, ["apple", "bread"], make_docs_frame(2), {"name": "big"})
    disk = load_corpus(save_corpus(memory, tmp_path / "big"))
    for corpus in (memory, disk):
        assert corpus.word_totals().tolist() == [2 * top, 3] and corpus.doc_lengths().tolist() == [top + 1, top + 2]
        assert corpus.n_tokens == 2 * top + 3
    assert disk.meta["n_tokens"] == 2 * top + 3


def test_truth_without_theta_is_saved_and_a_theta_chunk_of_other_rows_refused(tmp_path):
    """A corpus whose truth has topics but no theta keeps its truth.npz, a view keeps its rows of theta; a theta chunk
    whose rows or topics do not fit
    (a 1-d array, other rows, other columns than the first chunk) is refused naming truth.npz."""
    from topicbench.corpus import CorpusWriter

    corpus = tiny()
    corpus.truth = {"topics": np.eye(3)[:2]}
    assert load_corpus(save_corpus(corpus, tmp_path / "t")).truth["topics"].tolist() == np.eye(3)[:2].tolist()
    planted = Corpus(corpus.counts, corpus.vocab, corpus.docs, {}, {"theta": np.arange(6.0).reshape(3, 2)})
    assert planted.split("train").truth["theta"].tolist() == [[0, 1], [2, 3]]  # a view's truth: its rows of theta
    (tmp_path / "w").mkdir()
    writer = CorpusWriter(tmp_path / "w", 3, "w")
    writer.append(corpus.counts[:1], corpus.docs.iloc[:1], np.ones((1, 2)))
    for theta in (np.ones(2), np.ones((2, 2)), np.ones((1, 3))):
        with pytest.raises(CorpusError, match=r"w/truth\.npz: theta chunk of shape"):
            writer.append(corpus.counts[1:2], corpus.docs.iloc[1:2], theta)


def test_fingerprint_names_ids_splits_and_times_and_trusts_only_verified_loads(tmp_path):
    """Two corpora of the same counts and vocabulary but other doc ids, splits or times -> other content fingerprints;
    a corpus loaded without verifying its checksums does not vouch for its content (no loaded_from)."""
    from topicbench.corpus import content_fingerprint

    base = tiny()
    prints = {content_fingerprint(base)}
    for docs in (base.docs.assign(doc_id=["x", "y", "z"]), base.docs.assign(split=["train", "test", "test"]),
                 base.docs.assign(time=[2001.0, 2002.0, 2003.0])):
        prints.add(content_fingerprint(Corpus(base.counts, base.vocab, docs, {})))
    assert len(prints) == 4
    path = save_corpus(base, tmp_path / "t")
    assert load_corpus(path).loaded_from == path and load_corpus(path, verify_checksums=False).loaded_from is None
