"""The dataset recipe base class's own rules (topicbench/dataset.py), on minimal recipes defined here: the seed range
every recipe shares, which parameters take null, and the raw files a prepare records (corpus.json's source_files)."""
import json
from pathlib import Path

import numpy as np
import pytest

import topicbench.dataset as dataset_module
from topicbench.corpus import Corpus, CorpusError, make_docs_frame
from topicbench.dataset import Dataset, prepare, source_files


class Numbers(Dataset):
    name = "numbers"
    params = {"seed": 0, "n": 5, "path": None}
    param_types = {"path": (str, type(None))}


def test_a_seed_is_any_int64_that_is_not_negative():
    assert Numbers.resolve_params({"seed": 2**63 - 1})["seed"] == 2**63 - 1
    for bad in (2**63, -1):
        with pytest.raises(CorpusError, match=r"seed in \[0, 2\*\*63\)"):
            Numbers.resolve_params({"seed": bad})


def test_only_a_parameter_that_allows_null_takes_it():
    assert Numbers.resolve_params({"path": None})["path"] is None
    with pytest.raises(CorpusError, match="parameter n must be an integer, got None"):
        Numbers.resolve_params({"n": None})


class Real(Dataset):
    """A real-corpus recipe: it reads corpora_dir/real/ (its source_dir call) and a downloaded file in a cache."""
    name = "real"
    params = {"cache": ""}

    @classmethod
    def other_sources(cls, corpora_dir, params):
        return [Path(params["cache"]) / "fetched.txt"] if params["cache"] else []

    def build(self, corpora_dir=None, **p):
        folder = self.source_dir(corpora_dir, "real")
        (Path(p["cache"]) / "fetched.txt").write_text("downloaded while building")  # a verified download
        (folder / "late.txt").write_text("added by someone while the build read the folder")
        counts = np.array([[len((folder / "a.txt").read_text()), 1]])
        return Corpus(counts, ["w0", "w1"], make_docs_frame(1, split=["train"]), meta={"source": "real"})


def test_a_real_recipe_without_corpora_dir_has_no_source_folder():
    assert source_files(Real, {"cache": ""}, None) == {}


def test_a_file_the_build_fetched_is_recorded_with_the_sources(tmp_path, monkeypatch):
    """A prepare records the raw files it read and those its build brought (a download into the cache), not a file
    that appeared in its source folder meanwhile: unrecorded, it makes the next workflow prepare the corpus again."""
    (tmp_path / "corpora" / "real").mkdir(parents=True)
    (tmp_path / "corpora" / "real" / "a.txt").write_text("abc")
    (tmp_path / "cache").mkdir()
    monkeypatch.setattr(dataset_module, "_DATASETS", {"real": Real})
    out = prepare("real", tmp_path / "out", corpora_dir=tmp_path / "corpora", cache=str(tmp_path / "cache"))
    recorded = json.loads((out / "corpus.json").read_text())["source_files"]
    assert set(recorded) == {"real/a.txt", str((tmp_path / "cache" / "fetched.txt").resolve())}


def test_source_changes_by_hand(tmp_path):
    """A prepared corpus's raw files against its source record: untouched, or touched with the same bytes -> None; the
    same size with other bytes, another size, a file added or gone -> named (each file compared, not only the first)."""
    import os

    from topicbench.dataset import source_changes, source_record

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("apple")
    b.write_text("bread")
    files = {"a.txt": a, "b.txt": b}
    record = source_record(files)
    assert source_changes(record, files) is None
    os.utime(b, ns=(1, 1))  # touched: the mtime differs, the bytes do not
    assert source_changes(record, files) is None
    b.write_text("bReAd")  # same size, other bytes
    assert source_changes(record, files) == "source file b.txt changed since it was prepared"
    b.write_text("bread and more")
    assert source_changes(record, files) == "source file b.txt changed since it was prepared"
    b.write_text("bread")
    assert source_changes(record, {"a.txt": a}) == "source file b.txt gone since it was prepared"
    assert source_changes(source_record({"a.txt": a}), files) == "source file b.txt added since it was prepared"


def test_each_missing_path_parameter_is_named(tmp_path):
    """path, vocab and vocab_file naming nothing -> each listed with the path it was looked for at (under corpora_dir
    when relative); an existing one, an empty value or a non-path parameter is not."""
    from topicbench.dataset import missing_path_params

    (tmp_path / "here.txt").write_text("x")
    params = {"path": "gone.txt", "vocab": "also_gone.txt", "vocab_file": "none.txt", "text_column": "nowhere.txt"}
    assert missing_path_params(params, tmp_path) == [("path", tmp_path / "gone.txt"), ("vocab", tmp_path / "also_gone.txt"),
                                                     ("vocab_file", tmp_path / "none.txt")]
    assert missing_path_params({"path": "here.txt", "vocab": "", "vocab_file": None}, tmp_path) == []


def test_parameter_values_typed_by_their_defaults_never_changed():
    """Parameters as a config or command line writes them -> the default's type, value kept: a bool stays a bool, "100"
    and 100.0 are the int 100, "0.25" the float 0.25, a seed written as text past 2**53 keeps every digit (never via a
    float); "1e-400" for a float is refused as underflowing to 0, not read as 0."""
    from topicbench.readers import TEXT_PARAMS, TextDataset

    class Tiny(TextDataset):
        name, params = "tiny", {**TEXT_PARAMS, "dedupe": None}

    p = Tiny.resolve_params({"dedupe": True, "vocab_size": "100", "min_df": 3.0, "max_df": "0.25",
                             "split_seed": "9007199254740993"})
    assert (p["dedupe"], p["vocab_size"], p["min_df"], p["max_df"], p["split_seed"]) == (True, 100, 3, 0.25, 9007199254740993)
    assert type(p["vocab_size"]) is int and type(p["min_df"]) is int and type(p["max_df"]) is float
    with pytest.raises(CorpusError, match=r"parameter max_df: '1e-400' is below the smallest float"):
        Tiny.resolve_params({"max_df": "1e-400"})
