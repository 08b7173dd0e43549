"""The corpus directory format: round trip, and every malformed input named at load time."""
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from topicbench.corpus import Corpus, CorpusError, load_corpus, make_docs_frame, save_corpus


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
