"""The dataset plugin contract and registry (``datasets/*.py``, loaded by path like ``methods/``).

A dataset file defines one subclass of :class:`Dataset` with a ``name``, a one-line
``description`` of what it stands in for, ``params`` (defaults, e.g. D for synthetic corpora)
and ``build(corpora_dir, **params) -> Corpus``. Real-corpus readers get their directory from
the config value ``corpora_dir`` and raise :class:`DatasetUnavailable` when it is missing.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

from .corpus import Corpus, CorpusError, save_corpus
from .method import REPO_ROOT, load_plugins

DATASETS_DIR = REPO_ROOT / "datasets"


class DatasetUnavailable(CorpusError):
    """A real corpus's source directory is missing (e.g. ``corpora_dir`` not present on this machine)."""


class Dataset:
    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    synthetic: ClassVar[bool] = False

    @classmethod
    def resolve_params(cls, given: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(given) - set(cls.params))
        if unknown:
            raise CorpusError(f"dataset {cls.name}: unknown parameter(s) {unknown}; known: {sorted(cls.params)}")
        return {**cls.params, **given}

    @classmethod
    def source_dir(cls, corpora_dir: str | os.PathLike | None, sub: str) -> Path:
        if corpora_dir is None:
            raise DatasetUnavailable(f"dataset {cls.name}: needs corpora_dir (config value) to find {sub}/")
        path = Path(corpora_dir) / sub
        if not path.is_dir():
            raise DatasetUnavailable(f"dataset {cls.name}: source directory {path} does not exist (check corpora_dir)")
        return path

    def build(self, corpora_dir: str | os.PathLike | None = None, **params) -> Corpus:
        raise NotImplementedError


_DATASETS: dict[str, type[Dataset]] | None = None


def registry() -> dict[str, type[Dataset]]:
    global _DATASETS
    if _DATASETS is None:
        _DATASETS = load_plugins(DATASETS_DIR, Dataset, "dataset")
    return _DATASETS


def get_dataset(name: str) -> type[Dataset]:
    datasets = registry()
    if name not in datasets:
        raise CorpusError(f"unknown dataset {name!r}; available: {sorted(datasets)}")
    return datasets[name]


def prepare(name: str, out_dir: str | os.PathLike, corpora_dir=None, corpus_name: str | None = None, **params) -> Path:
    """Build a dataset and save it as a corpus directory (atomically); ``corpus_name`` overrides the recorded name."""
    dataset_cls = get_dataset(name)
    resolved = dataset_cls.resolve_params(params)
    if hasattr(dataset_cls, "write"):  # streams to disk (paper-scale synthetic corpora) with the same bytes
        return Path(dataset_cls().write(out_dir, corpora_dir=corpora_dir, corpus_name=corpus_name, **resolved))
    corpus = dataset_cls().build(corpora_dir=corpora_dir, **resolved)
    if corpus_name:
        corpus.meta["name"] = corpus_name
    corpus.meta.setdefault("name", name)
    corpus.meta.setdefault("dataset_params", resolved)
    return save_corpus(corpus, out_dir)
