"""The runner: one (corpus, method, hyperparameters, seed), driven over a stream, scored on schedule.

Writes ``model.npz``, ``topics.tsv`` and, last, ``trace.parquet`` (DESIGN.md, "Runner outputs"),
each atomically, so a run killed mid-fit leaves no trace that looks complete. Fit time excludes
evaluation time and JIT compilation: the clocks run only around ``partial_fit``, after an untimed
warm-up (``compile_wall_s``) has compiled the method's kernels. The CPU clock counts the fit's worker processes too
(``fit_cpu_workers_s``, ``topicbench.workers``).
"""
from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from . import __version__, io, kernels
from .corpus import Corpus, RowRange, content_fingerprint, is_corpus_dir, load_corpus, release_memory
from .evaluate import (Protocol, Unigram, available_memory, completable, loglik_per_word, perplexity, protocol_splits,
                       scored_documents)
from .method import (REPO_ROOT, SAFE_NAME, SAFE_RULES, Method, ParamError, PluginError, coerce, get_method, global_generators,
                     plugin_file)
from .quality import final_checkpoint_quality, planted_recovery
from .streams import POLICIES, STREAMS, Evaluation, Minibatch, Stream, StreamError, make_holdout, stream_order
from .workers import descendants_cpu_s


_FIELD_TYPES = {"str": str, "int": int, "float": float, "bool": bool}


# settings that only some held-out policies read (streams.py): given beside another policy they would be recorded
# in the spec and never used, so a run that looks configured one way would be scored another
POLICY_SETTINGS = {"holdout_n": ("every_nth_batch", "lookahead"), "n_checkpoints": ("fixed", "lookahead")}


@dataclass
class RunSpec:
    """Everything that determines a run's numbers (with the code version)."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    stream: str = "shuffled"
    passes: float = 1.0
    max_docs: int | None = None  # stop after this many documents (the with_replacement stream's budget)
    train_subset: int | None = None  # train on a fixed random subset of this many documents (Hoffman Fig. 1)
    subset_seed: int = 0  # the subset is the same for every method and seed
    holdout: str = "fixed"
    holdout_n: int = 10  # every_nth_batch: n; lookahead: documents scored
    n_checkpoints: int = 12
    max_test_docs: int | None = None
    observed_fraction: float = 0.5
    folds: int = 1
    eval_seed: int = 0  # the same document-completion split for every method and seed
    report_elbo: bool = True
    threads: int = 1
    experiment: str = "adhoc"
    dataset: str = ""
    label: str = ""  # the run group within the experiment (e.g. "online_subset")
    topic_history_words: int = 10  # top words of every topic kept at each fixed-policy checkpoint (Hoffman Fig. 1)

    def __post_init__(self):
        """Every field converted to its declared type (``coerce``) before any check, or ValueError naming it."""
        for f in fields(self):
            kind, _, rest = f.type.partition(" | ")
            if f.name != "params":
                setattr(self, f.name, coerce(getattr(self, f.name), _FIELD_TYPES[kind], f"run setting {f.name!r}",
                                             optional=rest == "None"))
        if not isinstance(self.params, dict):
            raise ValueError(f"run setting 'params' must be a mapping of hyperparameters, got {self.params!r}")

    def _check_policy_settings(self) -> None:
        """ValueError naming a setting (POLICY_SETTINGS) that the spec's held-out policy never reads, given at other than
        its default. The default passes: it says nothing a reader could take for a choice, and a whole recorded spec
        (the workflow's --spec-json) carries every setting."""
        for name, policies in POLICY_SETTINGS.items():
            chosen = getattr(self, name) != getattr(RunSpec, name)
            if chosen and self.holdout in POLICIES and self.holdout not in policies:
                raise ValueError(f"run setting {name!r} does not apply to the held-out policy {self.holdout!r} (only "
                                 f"to {' and '.join(policies)}); remove it, or choose one of those policies")

    def check(self) -> type[Method]:
        """Validate everything that can be validated without data; returns the method class.

        The given hyperparameters are replaced by their typed values (``1e-4`` read as a string becomes the
        float it means), so the run id, the recorded spec and the trace all carry the same value.
        """
        method_cls = get_method(self.method)
        typed = method_cls.resolve_params(self.params)
        self.params = {key: typed[key] for key in self.params}
        for name in ("seed", "subset_seed", "eval_seed", "topic_history_words"):
            if getattr(self, name) < 0:
                raise ValueError(f"run setting {name!r} must be >= 0, got {getattr(self, name)}")
        for name in ("seed", "subset_seed", "eval_seed"):  # the peers' RandomState (and so every method) takes < 2**32
            if getattr(self, name) >= 2**32:
                raise ValueError(f"run setting {name!r} must be < 2**32 (a RandomState seed), got {getattr(self, name)}")
        if typed.get("batch_size") is None:  # a batch method: one update per whole pass over the training set
            if not float(self.passes).is_integer():
                raise ValueError(f"run setting 'passes' must be a whole number for the batch method {self.method} "
                                 f"(one update per full pass), got {self.passes}")
            if self.max_docs is not None:
                raise ValueError(f"run setting 'max_docs' does not apply to the batch method {self.method} (it sees "
                                 f"every document each pass); use passes or train_subset")
            if self.stream != "shuffled":  # the default; any other order would be recorded, never used
                raise ValueError(f"run setting 'stream' = {self.stream!r} does not apply to the batch method "
                                 f"{self.method} (it sees the whole training set each pass, in corpus order)")
        for name in ("max_docs", "max_test_docs"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"run setting {name!r} must be >= 1 (or null: no limit), got {getattr(self, name)}")
        if not 0.0 < self.observed_fraction < 1.0:
            raise ValueError(f"run setting 'observed_fraction' must lie in (0, 1), got {self.observed_fraction}")
        if self.threads > kernels.numba.config.NUMBA_NUM_THREADS:
            cap = kernels.numba.config.NUMBA_NUM_THREADS
            if os.environ.get("NUMBA_NUM_THREADS"):  # the user's cap, not the machine's: say which to change
                raise ValueError(f"run setting 'threads' is {self.threads}, more than NUMBA_NUM_THREADS={cap} set in "
                                 f"the environment allows; raise or unset NUMBA_NUM_THREADS, or lower threads")
            raise ValueError(f"run setting 'threads' is {self.threads}, more than the {cap} CPUs this machine offers")
        for name in ("experiment", "dataset", "label"):
            if getattr(self, name) and not SAFE_NAME.fullmatch(getattr(self, name)):
                raise ValueError(f"run setting {name!r} = {getattr(self, name)!r} is not a safe name ({SAFE_RULES})")
        self._check_policy_settings()
        make_holdout(self.holdout, self.holdout_n, self.n_checkpoints).check(batch_method=typed.get("batch_size") is None)
        if self.holdout == "every_nth_batch" and self.holdout_n == 1 and not method_cls.model_before_first_batch:
            raise ValueError(f"run setting 'holdout_n' = 1 scores the first minibatch before any update, but "
                             f"{self.method} has no model before its first minibatch (it is built from it); use "
                             f"holdout_n >= 2 or another held-out policy")
        Protocol(self.observed_fraction, self.folds, self.eval_seed)
        if self.stream not in STREAMS:
            raise StreamError(f"unknown stream {self.stream!r}; expected one of {STREAMS}")
        if self.passes <= 0:
            raise StreamError(f"passes must be positive, got {self.passes}")
        if self.stream == "time_ordered" and self.passes != 1:  # as stream_order says, but before any data is read
            raise StreamError(f"time_ordered is a true stream: one pass only, got passes = {self.passes}")
        if self.train_subset is not None and self.train_subset < 1:
            raise StreamError(f"train_subset must be >= 1, got {self.train_subset}")
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        return method_cls


# the folders and files whose code a run executes (plugins loaded by path, the package, the workflow)
CODE_PATHS = ("methods", "datasets", "topicbench", "workflow", "Snakefile")


@lru_cache(maxsize=1)
def provenance() -> dict[str, str]:
    import numba
    import scipy

    sha = os.environ.get("TOPICBENCH_GIT_SHA", "")
    if not sha:
        try:
            sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True,
                                 timeout=10).stdout.strip()
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            # code the commit does not hold: a method or recipe file dropped in and never committed runs too
            dirty += subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", *CODE_PATHS],
                                    cwd=REPO_ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
            sha = (sha + ("-dirty" if dirty else "")) if sha else "unknown"
        except (OSError, subprocess.SubprocessError):
            sha = "unknown"
    return {
        "git_sha": sha,
        "topicbench_version": __version__,
        "python_version": platform.python_version(),
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "numba_version": numba.__version__,
        "pandas_version": pd.__version__,
        "host": platform.node(),
    }


PACKAGE_DIR = Path(__file__).resolve().parent
_RECORDED_PACKAGES = {"numpy", "scipy", "numba", "pandas", "topicbench"}  # provenance() records these already


def code_fingerprint(plugin: Path) -> str:
    """sha256 over a method's file and every file of the topicbench package, the ``code_sha256`` of its trace rows:
    git_sha says '-dirty' for any uncommitted edit, this tells two such edits apart. Read at every run (~1 MB), never
    cached: a long process (a notebook, the tests) may run again after an edit."""
    import hashlib

    digest = hashlib.sha256()
    files = [(plugin.name, plugin), *((str(path.relative_to(PACKAGE_DIR.parent)), path)
                                      for path in sorted(PACKAGE_DIR.rglob("*"))
                                      if path.is_file() and "__pycache__" not in path.parts)]
    for name, path in files:
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@lru_cache(maxsize=None)
def method_packages(plugin: Path) -> str:
    """'name version' of each third-party distribution a method's file imports (gensim, scikit-learn for the peers),
    the ``method_packages`` of its trace rows; '' for a method built on topicbench, numpy and scipy alone."""
    import ast
    from importlib import metadata

    tree = ast.parse(plugin.read_text(encoding="utf-8"))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    distributions = metadata.packages_distributions()
    found = set()
    for module in modules - _RECORDED_PACKAGES - set(sys.stdlib_module_names):
        for dist in distributions.get(module, [module]):
            with contextlib.suppress(metadata.PackageNotFoundError):
                found.add(f"{dist} {metadata.version(dist)}")
    return ", ".join(sorted(found))


class _Progress:
    """One line on stderr every few seconds, so long fits show they are alive."""

    def __init__(self, label: str, total: int, every_s: float = 5.0):
        self.label, self.total, self.every_s = label, total, every_s
        self.last = time.monotonic()

    def __call__(self, docs_seen: int, fit_s: float, loglik: float | None = None, force: bool = False):
        now = time.monotonic()
        if not force and now - self.last < self.every_s:
            return
        self.last = now
        extra = "" if loglik is None or not np.isfinite(loglik) else f", loglik/word {loglik:.4f}"
        print(f"[{self.label}] {docs_seen:,}/{self.total:,} docs ({100 * docs_seen / max(self.total, 1):.0f}%), "
              f"fit {fit_s:.1f}s{extra}", file=sys.stderr, flush=True)


def top_words_table(method: Method, vocab: list[str], n_words: int = 20) -> pd.DataFrame:
    topics = method.topics()
    weights = np.asarray(method.topic_weights(), dtype=float)
    share = weights / weights.sum() if weights.sum() > 0 else weights
    rows = []
    for rank, k in enumerate(np.argsort(-weights, kind="stable")):
        best = np.argsort(-topics[k], kind="stable")[:n_words]
        rows.append({"rank": rank, "topic": int(k), "weight": float(share[k]),
                     "top_words": " ".join(vocab[w] for w in best)})
    return pd.DataFrame(rows)


def _subset_rows(n_docs: int, size: int | None, seed: int, what: str = "") -> np.ndarray:
    if what and size is not None and size > n_docs:  # an exact subset size, never silently the whole split
        raise StreamError(f"run setting {what!r} = {size} exceeds the {n_docs} documents of the training split")
    if size is None or size >= n_docs:
        return np.arange(n_docs)
    return np.sort(np.random.default_rng([seed, 0x5B5E7]).permutation(n_docs)[:size])


def _id_ranks(corpus: Corpus) -> np.ndarray:
    """Each document's rank among the view's doc ids (int64): orders ties as the ids do, without Python strings.

    An id's trailing number counts by its value, not as text ('train-2' before 'train-10', '9' before '10'): as text
    '10' sorts before '2', and a time-ordered stream would take the documents of one time stamp (a year, a speech's
    paragraphs) out of the order they are numbered in. Ids are compared by the text before that number, then it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = corpus.column("doc_id")
    values, rows = column._base(), column.rows
    if isinstance(rows, RowRange):  # a split stored in one block: a slice, no index array
        values, rows = values[rows.start:rows.stop], None
    if isinstance(values, np.ndarray):
        ids = values if rows is None else values[rows]
        if ids.dtype.kind in "iuf" or len(ids) == 0:
            return np.argsort(np.argsort(ids, kind="stable"), kind="stable")
        ids = pa.array(ids, type=pa.string())
    else:
        ids = values if rows is None else values.take(rows)
    number = pc.struct_field(pc.extract_regex(ids, r"(?P<n>[0-9]*)$"), [0])
    keys = pa.table({"prefix": pc.replace_substring_regex(ids, r"[0-9]+$", ""), "digits": pc.utf8_length(number),
                     "number": number, "id": ids})  # the id last: '007' and '7' still in one fixed order
    order = pc.sort_indices(keys, sort_keys=[(k, "ascending") for k in keys.column_names]).to_numpy()
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[order] = np.arange(len(ids), dtype=np.int64)
    return ranks


def _check_heldout_tokens(splits, spec: RunSpec, where: str) -> None:
    """Document completion must score at least one held-out token, or the log predictive is 0/0 (a NaN score)."""
    if not any(heldout.nnz for _, heldout in splits):
        observed = [np.diff(part.indptr) > 0 for part, _ in splits]
        blind = int(np.logical_not(np.logical_or.reduce(observed)).sum())  # documents observing nothing in any split
        raise StreamError(f"{where} holds out no token: observed_fraction={spec.observed_fraction} (folds="
                          f"{spec.folds}) leaves none of its {splits[0][0].shape[0]} documents both an observed and a "
                          f"held-out token ({blind} observe nothing, so are not scored; the others keep every token "
                          f"observed); change observed_fraction or use longer documents")


def _check_folds(longest: int, spec: RunSpec, where: str) -> None:
    """k-fold completion holds out each token in one fold; past the longest document's length every token is already
    alone in its fold (leave-one-out), so more folds hold out nothing, yet each costs a split of every scored document
    (folds = 1e6 hung the run, or ran out of memory): refused before the fit."""
    if spec.folds > 1 and spec.folds > longest:
        raise StreamError(f"run setting 'folds' = {spec.folds} exceeds the {longest} tokens of the longest document "
                          f"{where}: each token is held out alone from {longest} folds on, and more hold out nothing; "
                          f"use folds <= {longest}")


def _check_scheduled_windows(holdout, order, batch_size, train, protocol: Protocol, spec: RunSpec) -> None:
    """Each minibatch or look-ahead window the policy will score holds a document the protocol can complete, checked
    from token lengths before the fit (not a refusal after hours of it); each planned row is read once."""
    plan = list(holdout.scheduled(order, batch_size))  # views of the order (or the policy's own windows): no copies
    if not plan:
        return
    planned = np.zeros(train.n_docs, dtype=bool)  # a byte a document, however many passes the plan repeats a row in
    for _, scored in plan:
        planned[scored] = True
    rows, ok = np.flatnonzero(planned), np.zeros(train.n_docs, dtype=bool)  # ok: planned rows the protocol completes
    longest = 0
    for start in range(0, len(rows), 65536):
        part = rows[start:start + 65536]
        lengths = np.asarray(train.rows(part).sum(axis=1)).ravel()
        ok[part] = completable(lengths, protocol)
        longest = max(longest, int(lengths.max(initial=0)))
    _check_folds(longest, spec, f"held-out policy {holdout.name} scores")
    for processed, scored in plan:
        if not ok[scored].any():
            raise StreamError(f"held-out policy {holdout.name} holds out no token at {processed} documents: "
                              f"observed_fraction={spec.observed_fraction} (folds={spec.folds}) leaves none of the "
                              f"{len(scored)} documents it scores there both an observed and a held-out token (too "
                              f"short); change observed_fraction, holdout_n or batch_size, or use longer documents")


WARM_UP_MAX_COUNT = 100  # the largest count of a word in the warm-up's documents (_warm_up)


def _warm_up(method: Method, stream: Stream) -> float:
    """Compile (or load from numba's cache) the kernels the fit will call, off the fit clock; returns the wall time.

    The method does the work (``Method.warm_up``) on a two-document minibatch of the stream. numba specialises
    on types and layouts, not sizes, so a tiny batch compiles what the full-size fit calls; its counts are capped at
    WARM_UP_MAX_COUNT (a throwaway copy the fit never sees), as the warm-up's document completion expands tokens one
    by one and a training document holding 1e9 of a word would otherwise refuse the run for ~45 GiB of memory.
    """
    start = time.perf_counter()
    first = stream.batch(0)
    rows = first.rows[:2]
    counts = sp.csr_matrix(stream.rows(rows), copy=True)
    counts.data = np.minimum(counts.data, WARM_UP_MAX_COUNT)
    method.warm_up(Minibatch(counts, rows, first.doc_ids[:2],
                             None if first.times is None else first.times[:2], 0))
    return time.perf_counter() - start


def run(spec: RunSpec, corpus: Corpus | str | os.PathLike, out_dir: str | os.PathLike | None = None,
        progress_every_s: float = 5.0) -> tuple[pd.DataFrame, Method]:
    """Fit one run; returns the trace and the fitted method, and writes outputs if ``out_dir`` is given.

    ``spec.threads`` bounds the BLAS/OpenMP pools too (numpy-heavy methods such as LG-NMF), as Snakemake's
    *_NUM_THREADS variables do inside a rule, so a run called directly uses no more cores than it says.
    """
    if not isinstance(corpus, Corpus):
        io.check_path_argument(corpus, "corpus")
    io.check_path_argument(out_dir, "out_dir")
    if out_dir is not None:
        check_output_location(out_dir, spec, corpus)  # a bad --out is found in seconds, not after the fit
    with threadpool_limits(limits=spec.threads):
        return _run(spec, corpus, out_dir, progress_every_s)


def _run(spec, corpus, out_dir, progress_every_s):
    method_cls = spec.check()  # fails before the corpus is even read
    if not isinstance(corpus, Corpus):
        corpus = load_corpus(corpus)
    threads = kernels.set_threads(spec.threads)
    fingerprint = content_fingerprint(corpus)  # of the whole corpus, before any split or subset view
    # views: int64 row indices into the corpus; counts are read from disk a minibatch or a chunk at a time
    train = corpus.split("train")
    train_split_docs = train.n_docs  # before any subset: what "the full corpus" is, for the figures
    if spec.train_subset is not None:
        train = train.select(_subset_rows(train.n_docs, spec.train_subset, spec.subset_seed, "train_subset"))
    test = corpus.split("test")
    if spec.max_test_docs is not None and test.n_docs > spec.max_test_docs:
        test = test.select(_subset_rows(test.n_docs, spec.max_test_docs, spec.eval_seed))
    kwargs = {"corpus_size": train.n_docs} if method_cls.uses_corpus_size else {}
    generators = global_generators()  # a method draws from its own generator only (check_own_generator)
    method = method_cls(corpus.n_words, seed=spec.seed, threads=threads, **kwargs, **spec.params)
    if spec.topic_history_words > corpus.n_words:
        raise ValueError(f"run setting 'topic_history_words' = {spec.topic_history_words} exceeds the corpus's "
                         f"{corpus.n_words} words: pass --set topic_history_words=<at most {corpus.n_words}> "
                         f"(0 keeps no topic history)")
    protocol = Protocol(spec.observed_fraction, spec.folds, spec.eval_seed)
    holdout = make_holdout(spec.holdout, spec.holdout_n, spec.n_checkpoints)
    batch_method = method.batch_size is None
    holdout.check(batch_method, test.n_docs, f"{corpus.meta.get('name')} ({corpus.n_docs} documents, split: "
                                             f"{corpus.meta.get('split_rule', 'not recorded')})")
    unigram = Unigram(sp.csr_matrix(train.word_totals()[None, :]))  # word totals accumulated chunk by chunk

    times = train.column("time")  # read from docs.parquet on first use
    doc_ids = train.column("doc_id")
    if batch_method:
        # one update per full pass over the training set in corpus order
        batch_size = train.n_docs
        order = np.tile(np.arange(train.n_docs), max(1, int(np.ceil(spec.passes))))
    else:
        batch_size = int(method.batch_size)
        if batch_size > train.n_docs:  # every minibatch would be the whole split: |S| would not be the S asked for
            raise ValueError(f"{method.name}: batch_size = {batch_size} exceeds the {train.n_docs} training documents of "
                             f"{corpus.meta.get('name')}; use a batch_size of at most {train.n_docs} (or the batch method)")
        tie = _id_ranks(train) if spec.stream == "time_ordered" else None  # ties in time by doc id (digits by value)
        order = stream_order(spec.stream, train.n_docs, spec.seed, spec.passes,
                             None if times is None or spec.stream != "time_ordered" else times.to_numpy(), tie,
                             spec.max_docs)
    # the policy says which rows the stream trains on (lookahead keeps its windows out) and when it scores
    order = holdout.training_order(order, spec.stream, spec.seed, batch_size, train.n_docs, batch_method)
    stream = Stream(train, order, batch_size, doc_ids, times)
    total_docs = len(stream.order)

    test_counts = test.counts if test.n_docs else None  # the held-out set: its configured size, read once
    release_memory()  # setup's per-document temporaries (split masks) go back to the OS before the fit
    if holdout.name == "fixed" and test_counts is not None:
        _check_folds(int(np.asarray(test_counts.sum(axis=1)).max(initial=0)), spec, "of the test split")
    fixed_splits = protocol_splits(test_counts, protocol) if holdout.name == "fixed" else None
    if fixed_splits is not None:
        _check_heldout_tokens(fixed_splits, spec, "the test split")  # before the fit, not a NaN score after it
    _check_scheduled_windows(holdout, order, batch_size, train, protocol, spec)
    with _named(method, "partial_fit/predict_words", "the warm-up (two updates on two documents, before the fit)"):
        compile_wall = _warm_up(method, stream)  # numba compiles (or loads) the method's kernels off the fit clock
    check_own_generator(method, generators, "the end of the warm-up")
    # constant per-run columns
    base = {"experiment": spec.experiment, "dataset": spec.dataset or corpus.meta.get("name", ""),
            "label": spec.label or method.name, "method": method.name,
            "seed": spec.seed, "stream": "batch" if batch_method else spec.stream, "holdout": holdout.name,
            "protocol": protocol.describe(), "threads": threads, "corpus_size": train.n_docs,
            "train_split_docs": train_split_docs, "test_docs": test.n_docs, "compile_wall_s": compile_wall,
            **{f"p_{k}": v for k, v in method.hyper.items()}, **provenance(),
            "corpus_sha256": fingerprint, "code_sha256": code_fingerprint(plugin_file(method_cls)),
            "method_packages": method_packages(plugin_file(method_cls))}
    rows: list[dict] = []
    topic_history: list[np.ndarray] = []  # top word ids of each topic at each test checkpoint
    fit_wall = fit_cpu = fit_cpu_workers = 0.0  # fit_cpu includes fit_cpu_workers (NaN once it cannot be read)
    report = _Progress(f"{spec.dataset}/{method.name}/seed{spec.seed}", total_docs, progress_every_s)

    processed = n_updates = 0
    truth_topics = (corpus.truth or {}).get("topics")
    trained = np.zeros(train.n_docs, dtype=bool)  # training rows some partial_fit has seen
    state_checked: list[str] = []  # where check_state ran (once)

    def score(event: Evaluation | None):
        if event is None:
            return
        start = time.perf_counter()
        if event.rows is None:  # the test split
            splits, counts, docs = fixed_splits, test_counts, test.n_docs
        else:
            counts, docs = train.rows(event.rows), len(event.rows)
            seed = spec.eval_seed if event.salt is None else spec.eval_seed * 100003 + event.salt
            splits = protocol_splits(counts, Protocol(protocol.observed_fraction, protocol.folds, seed))
        _check_heldout_tokens(splits, spec, f"the checkpoint at {processed} documents")
        unscored = docs - scored_documents(splits)  # nothing observed or nothing held out: counted, not scored
        docs -= unscored
        where = f"checkpoint {len(rows) + 1} ({processed} documents)"
        diverged = f"{method.name} with {spec.params or 'its defaults'} diverged at {where}: "
        check_topics(method, where, diverged)  # a plugin's topics() holds the contract
        check_predictive(method, splits, where, diverged)  # and its predict_words is a distribution over the vocabulary
        if n_updates and not state_checked:
            check_state(method, spec, where)  # its state() is a model a figure can load
            state_checked.append(where)
        try:
            with _named(method, "predict_words", where):
                loglik, tokens = loglik_per_word(method, splits)  # the method sees copies of the splits
        except FloatingPointError as err:
            raise FitDiverged(f"{diverged}{err}; nothing was written") from None
        base_loglik, _ = loglik_per_word(unigram, splits)
        # Hoffman et al. 2010 eq. 16 bounds whole held-out documents: counts, not the completion halves
        with _named(method, "heldout_elbo", where):
            elbo = method.heldout_elbo(counts.copy()) if spec.report_elbo else None
        # a bound on log p(w) per word of discrete data is finite and <= 0; anything else is lost precision
        # (e.g. alpha = 1e300 cancels in gammaln(K alpha) - K gammaln(alpha)), never a score to record
        if tokens and not np.isfinite(loglik) or elbo is not None and not (np.isfinite(elbo) and elbo <= 0):
            raise FitDiverged(f"{diverged}held-out log-likelihood {loglik}, ELBO per word {elbo}; nothing was written")
        row = {**base, "docs_seen": processed, "updates": n_updates, "fit_wall_s": fit_wall,
               "fit_cpu_s": fit_cpu, "fit_cpu_workers_s": fit_cpu_workers, "eval_kind": event.kind, "heldout_docs": docs,
               "heldout_unscored": unscored, "heldout_excluded": event.excluded,
               "heldout_tokens": tokens, "loglik_per_word": loglik, "perplexity": perplexity(loglik),
               "unigram_loglik_per_word": base_loglik, "unigram_perplexity": perplexity(base_loglik),
               "elbo_per_word": np.nan if elbo is None else elbo, "eval_wall_s": time.perf_counter() - start}
        row.update({f"x_{k}": v for k, v in method.progress().items()})
        if type(method).heldout_extras is not Method.heldout_extras:  # the splits copied only for a method that reads them
            with _named(method, "heldout_extras", where):
                own = [(observed.copy(), heldout.copy()) for observed, heldout in splits]  # copies, as predict_words
                row.update({f"x_{k}": v for k, v in method.heldout_extras(own).items()})
        if truth_topics is not None:  # planted-topic recovery at every checkpoint (cheap: K x K cosines)
            recovery = planted_recovery(method.topics(), truth_topics)
            row.update(recovery_cosine=recovery.cosine, recovery_frac_090=recovery.fraction)
        rows.append(row)
        if event.kind == "test" and spec.topic_history_words > 0:
            topics = method.topics()
            top = np.argpartition(-topics, spec.topic_history_words - 1, axis=1)[:, : spec.topic_history_words]
            order = np.take_along_axis(topics, top, axis=1).argsort(axis=1)[:, ::-1]
            topic_history.append(np.take_along_axis(top, order, axis=1))
        check_own_generator(method, generators, where)
        report(processed, fit_wall, loglik, force=True)

    for batch in stream:
        score(holdout.before_batch(batch, trained))
        batch_rows, size = batch.rows.copy(), len(batch)  # the runner's own record: the method may edit its batch in place
        workers0 = descendants_cpu_s()  # read outside the clocks: reading costs this process CPU, not the fit
        wall0, cpu0 = time.perf_counter(), time.process_time()
        with _named(method, "partial_fit", f"update {n_updates + 1} ({processed} documents seen)"):
            method.partial_fit(batch)
        fit_wall += time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        workers = descendants_cpu_s() - workers0  # e.g. sklearn_lda's loky workers (n_jobs = threads > 1)
        fit_cpu += cpu + workers
        fit_cpu_workers += workers
        with _named(method, "after_update", f"update {n_updates + 1} ({processed} documents seen)"):
            method.after_update()  # bounds kept only for the trace, off the fit clock
        if kernels.numba.get_num_threads() != threads:  # the trace's threads column and fit times would not be this run's
            raise PluginError(f"{plugin_file(type(method))}: {method.name}.partial_fit changed numba's thread count "
                              f"from {threads} to {kernels.numba.get_num_threads()} (update {n_updates + 1}); the "
                              f"runner sets it from --threads, a method must not; nothing was written")
        trained[batch_rows] = True
        processed += size
        n_updates += 1
        report(processed, fit_wall)
        score(holdout.after_batch(processed, trained))
        if getattr(method, "converged", False):
            break
    score(holdout.at_end(processed, trained))
    if rows:  # topic quality of the final model, against documents it never trained on where there are any
        reference, which = (test_counts, "test") if test.n_docs else (train, "train")
        try:
            quality = final_checkpoint_quality(method, reference, truth_topics)
        except ValueError as err:  # topics without a word (all zero or NaN): name the run, not only the measure
            raise FitDiverged(f"{method.name} with {spec.params or 'its defaults'} ended with unusable topics: {err}; "
                              f"nothing was written") from None
        rows[-1].update(npmi=quality["npmi"], topic_diversity=quality["topic_diversity"], npmi_reference=which)

    trace = pd.DataFrame(rows)
    if out_dir is not None:
        history = {}
        if topic_history:
            history = {"_topic_history": np.stack(topic_history),
                       "_topic_history_docs": trace.loc[trace["eval_kind"] == "test", "docs_seen"].to_numpy()}
        with io.sigterm_as_exit():  # a cancelled job's staging folder removed, not left hidden beside the run
            write_outputs(Path(out_dir), trace, method, corpus.vocab, spec, history)
    return trace, method


RUN_FILES = ("model.npz", "topics.tsv", "trace.parquet")


@contextlib.contextmanager
def _named(method: Method, call: str, where: str):
    """An exception from a method's ``call`` named with its file, the call and where in the run: a bug of the file
    becomes a PluginError (exit 2, one line); a plain ValueError (numpy's, or a plugin's own refusal) keeps its
    message behind the same prefix. The harness's own refusals (ParamError, StreamError, FitDiverged, ...), OSError,
    MemoryError and arithmetic errors pass unchanged: they name their culprit already or are handled by the caller."""
    try:
        yield
    except (PluginError, ParamError, StreamError, FitDiverged, OSError, MemoryError, ArithmeticError):
        raise
    except ValueError as err:
        raise PluginError(f"{plugin_file(type(method))}: {method.name}.{call} at {where}: {err}; nothing was "
                          f"written") from err
    except Exception as err:
        raise PluginError(f"{plugin_file(type(method))}: {method.name}.{call} raised {type(err).__name__} ({err}) at "
                          f"{where}; nothing was written") from err


def check_own_generator(method: Method, before: tuple, where: str) -> None:
    """A method draws only from its own seeded generator (``self.rng``): one that drew from numpy's or Python's
    global generator gives other numbers at each call for the same seed, so it is refused naming its file."""
    if global_generators() != before:
        raise PluginError(f"{plugin_file(type(method))}: {method.name} drew from numpy's or Python's global random "
                          f"generator (np.random.*, random.*) by {where}, which the run's seed does not set, so the "
                          f"same seed would not give the same numbers; draw from self.rng (seeded by the runner), or "
                          f"pass a generator or seed from it to the library you call; nothing was written")


def check_predictive(method: Method, splits, where: str, diverged: str) -> None:
    """``predict_words`` is a distribution over the whole vocabulary (the contract every per-word score rests on):
    for the first document observing something, its probabilities at all V words must sum to 1. A predictive summing
    to more (or less) would score better (or worse) than the model is, so it is refused naming the file. NaN, inf or
    negative values are a numerical failure of the fit (``diverged``, as the scores' own check), not of the contract."""
    observed = splits[0][0]
    seen = np.flatnonzero(np.diff(observed.indptr) > 0)
    if not seen.size:
        return
    d, V = int(seen[0]), method.n_words
    every_word = sp.csr_matrix((np.ones(V), np.arange(V), [0, V]), shape=(1, V))
    with _named(method, "predict_words", where):
        probs = np.asarray(method.predict_words(observed[d:d + 1].copy(), every_word))
    if probs.shape != (V,) or probs.dtype.kind not in "fiu":
        raise PluginError(f"{plugin_file(type(method))}: {method.name}.predict_words returned {probs.dtype} shape "
                          f"{probs.shape} for one document and all {V} words at {where}, expected ({V},) numbers")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise FitDiverged(f"{diverged}predict_words returned NaN, inf or negative probabilities ({plugin_file(type(method))});"
                          f" nothing was written")
    total = probs.sum(dtype=np.float64)
    tol = max(1e-6, 4 * V * np.finfo(probs.dtype).eps) if probs.dtype.kind == "f" else 1e-6
    if abs(total - 1) > tol:
        raise PluginError(f"{plugin_file(type(method))}: {method.name}.predict_words must be a distribution over the "
                          f"vocabulary: for held-out document {d}, its probabilities at all {V} words sum to "
                          f"{total:.6g} at {where}; nothing was written")


def saved_state(method: Method) -> dict[str, np.ndarray]:
    """``method.state()`` as the arrays model.npz stores (read back without pickle): a dict of names to numbers or
    text; anything else (None, a dict, an object array) is refused naming the file, not written for a figure to trip."""
    file = plugin_file(type(method))
    with _named(method, "state", "saving the model"):
        state = method.state()
    if not isinstance(state, dict):
        raise PluginError(f"{file}: {method.name}.state() must return a dict of names to arrays, got "
                          f"{type(state).__name__}")
    arrays = {}
    for key, value in state.items():
        array = np.asarray(value) if isinstance(value, (np.ndarray, np.generic, int, float, bool, str)) else None
        if not isinstance(key, str) or not key or key.startswith("_") or array is None or array.dtype.kind not in "biufcUS":
            raise PluginError(f"{file}: {method.name}.state()[{key!r}] is {value!r:.80}; state() maps names (not "
                              f"starting with '_', which the runner keeps) to numpy arrays or numbers, which model.npz "
                              f"stores and reads back without pickle")
        arrays[key] = array
    return arrays


def check_state(method: Method, spec: RunSpec, where: str) -> None:
    """``from_state(state())`` rebuilds this method's topics, as a figure's ``load_model`` will from model.npz:
    checked once, at the first checkpoint after an update, so a state that cannot be saved or reloaded is named
    before the fit goes on, not found by a figure after it."""
    import io as _io

    file = plugin_file(type(method))
    buffer = _io.BytesIO()
    np.savez(buffer, **saved_state(method))
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as archive:
        state = {key: archive[key] for key in archive.files}
    kwargs = {"corpus_size": method.corpus_size} if type(method).uses_corpus_size else {}
    try:
        twin = type(method).from_state(state, method.n_words, seed=spec.seed, **kwargs, **spec.params)
        same = np.allclose(np.asarray(twin.topics()), np.asarray(method.topics()), rtol=1e-6, atol=1e-12)
    except Exception as err:
        raise PluginError(f"{file}: {method.name}.from_state(state()) raised {type(err).__name__} ({err}) at {where}: "
                          f"load_state must read back exactly what state() returns (a figure loads the model so); "
                          f"nothing was written") from err
    if not same:
        raise PluginError(f"{file}: {method.name}.from_state(state()) gives other topics than the method has at "
                          f"{where}: state() must hold every array topics() is computed from; nothing was written")


def check_topics(method: Method, where: str, diverged: str) -> None:
    """A method's ``topics()`` (K x V, rows probability vectors or all zero) and ``topic_weights()`` (K, finite), the
    contract every figure, topics.tsv and the recovery score read: a plugin breaking it is named with its file,
    a numerical failure (NaN, inf, negative) after ``diverged`` (the run's "<method> with <params> diverged at
    <checkpoint>: ") and the quantity; nothing is written."""
    K, V = method.n_topics, method.n_words
    topics = np.asarray(method.topics())
    weights = np.asarray(method.topic_weights())
    file = plugin_file(type(method))
    if topics.shape != (K, V) or weights.shape != (K,):
        raise PluginError(f"{file}: {method.name}.topics() returned shape {topics.shape} and topic_weights() shape "
                          f"{weights.shape} at {where}; the contract is ({K}, {V}) (K topics over the corpus's "
                          f"{V} words) and ({K},)")
    if topics.dtype.kind not in "fiu" or weights.dtype.kind not in "fiu":
        raise PluginError(f"{file}: {method.name}.topics()/topic_weights() returned {topics.dtype}/{weights.dtype} "
                          f"arrays at {where}; numbers are expected")
    if not np.isfinite(topics).all() or not np.isfinite(weights).all():
        raise FitDiverged(f"{diverged}{'topics' if not np.isfinite(topics).all() else 'topic weights'} hold "
                          f"NaN or inf ({file}); nothing was written")
    if (topics < 0).any():
        raise FitDiverged(f"{diverged}topics hold negative probabilities (min {topics.min():.3g}; {file}); nothing "
                          f"was written")
    mass = topics.sum(axis=1, dtype=np.float64)
    # rounding of V normalised entries (float32 from a peer such as gensim loses ~V * 6e-8), not a contract breach
    tol = max(1e-6, 4 * V * np.finfo(topics.dtype).eps) if topics.dtype.kind == "f" else 1e-6
    off = np.flatnonzero((np.abs(mass - 1) > tol) & (mass != 0))
    if off.size:
        raise PluginError(f"{file}: {method.name}.topics() rows must each sum to 1 (or be all zero), topic "
                          f"{off[0]} sums to {mass[off[0]]:.6g} at {where}; nothing was written")


class FitDiverged(ValueError):
    """A checkpoint's score is not a number a fit can have (NaN, inf, a positive bound): the run is refused."""


class OutputError(OSError):
    """The run folder cannot be written (or holds files that are not a run's): found before any compute."""


def _staging_dirs(out_dir: Path, kind: str = "staging"):
    return out_dir.parent.glob(f".{out_dir.name}.{kind}-*") if out_dir.parent.is_dir() else []


def clean_stale_staging(out_dir: Path) -> None:
    """Remove staging folders beside ``out_dir`` left by runs that were killed (their process is gone), and
    put back an old run that a kill left renamed aside mid-swap (file systems without RENAME_EXCHANGE)."""
    for kind in ("old", "staging"):
        for stale in _staging_dirs(out_dir, kind):
            pid = stale.name.rsplit(f".{kind}-", 1)[1].split("-", 1)[0]
            if not pid.isdigit() or io.pid_alive(int(pid)) or not _holds_only_run_files(stale):
                continue  # a live run's, or a user's folder that merely looks like ours: never removed
            if kind == "old" and not out_dir.exists():
                os.rename(stale, out_dir)  # killed between the two renames of a swap: the old run comes back
            else:
                shutil.rmtree(stale, ignore_errors=True)


def _holds_only_run_files(folder: Path) -> bool:
    """A real folder holding nothing but a run's files and the temporary files of their atomic writes."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    temp = re.compile(r"\.(model\.npz|topics\.tsv|trace\.parquet)\.\d+-[A-Za-z0-9_]+\.tmp")
    return all(entry.is_file() and not entry.is_symlink() and (entry.name in RUN_FILES or temp.fullmatch(entry.name))
               for entry in folder.iterdir())


def _is_run_file(path: Path) -> bool:
    """A file a run wrote (by its first bytes), not a user's file that happens to carry a run file's name."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    if path.name == "model.npz":  # a zip holding the runner's _spec_json member
        return head.startswith(b"PK") and _zip_has(path, "_spec_json.npy")
    if path.name == "trace.parquet":
        return head.startswith(b"PAR1")
    return head.startswith(b"rank\ttopic\tweight\ttop_words")  # topics.tsv's header


def _zip_has(path: Path, member: str) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return member in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def check_output_location(out_dir: str | os.PathLike, spec: RunSpec, corpus=None) -> None:
    """Before compute: ``out_dir`` is a directory we may replace (absent, or holding only a run's files), its
    nearest existing ancestor takes a file, and the disk has room for the model (two copies while staging)."""
    out_dir = Path(out_dir).absolute()  # "." has no name to stage beside
    if out_dir.name in ("", ".."):  # a run is staged beside its folder and renamed onto it: '..' cannot be
        raise OutputError(f"--out {out_dir} ends in '..' (or is the root); name the run folder itself")
    clean_stale_staging(out_dir)
    if out_dir.is_symlink():
        raise OutputError(f"--out {out_dir} is a symbolic link; give the folder it points to (a run replaces "
                          f"its folder, which would replace the link)")
    if out_dir.exists():
        if not out_dir.is_dir():
            raise OutputError(f"--out {out_dir} is an existing file, not a run folder")
        other = sorted(p.name for p in out_dir.iterdir() if p.name not in RUN_FILES or not _is_run_file(p))
        if other:
            raise OutputError(f"--out {out_dir} holds files that are not a run's outputs ({', '.join(other[:5])}); "
                              f"a run replaces its whole folder, so give an empty or new folder")
    inside = next((folder for folder in out_dir.parents if is_corpus_dir(folder)), None)
    if inside is not None:
        raise OutputError(f"--out {out_dir} lies inside the corpus folder {inside}, which preparing that corpus "
                          f"again replaces as a whole (the run with it); give a folder outside it")
    ancestor = out_dir.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"--out {out_dir}: {ancestor} is a file, not a directory")
    # the staging folder beside out_dir carries a suffix; a name the file system refuses fails only at the swap
    staged = f".{out_dir.name}.staging-{os.getpid()}-xxxxxxxx"
    name_max = os.pathconf(ancestor, "PC_NAME_MAX")
    too_long = [part for part in (*out_dir.parts[1:-1], staged) if len(os.fsencode(part)) > name_max]
    if too_long:
        raise OutputError(f"--out {out_dir}: the name {too_long[0][:40]!r}... is {len(os.fsencode(too_long[0]))} bytes "
                          f"(with the staging suffix), over this file system's {name_max}; give a shorter name")
    try:
        io.fault_point("run.check_out")
        with tempfile.NamedTemporaryFile(dir=ancestor, prefix=".topicbench-probe-") as probe:
            probe.write(b"x")
            probe.flush()
    except OSError as err:
        raise OutputError(f"--out {out_dir}: cannot write in {ancestor} ({err.strerror or err})") from None
    n_words = getattr(corpus, "n_words", None)
    if n_words is None and corpus is not None and (Path(corpus) / "corpus.json").is_file():
        with contextlib.suppress(ValueError, OSError):
            n_words = int(json.loads((Path(corpus) / "corpus.json").read_text()).get("n_words", 0))
    K = spec.params.get("K", 100) if isinstance(spec.params.get("K", 100), int) else 100
    need = 2 * 8 * K * (n_words or 0) + (1 << 20)  # the K x V model uncompressed, staged beside the old one
    free = shutil.disk_usage(ancestor).free
    if free < need:
        raise OutputError(f"--out {out_dir}: {free / 2**20:.1f} MiB free on {ancestor}, a run of K={K} over "
                          f"{n_words} words needs about {need / 2**20:.1f} MiB")
    # a fit holds at least three K x V float64 arrays (Hoffman's onlineldavb.py: lambda, E[log beta] and its exp):
    # a model that cannot fit in memory is refused naming K here, not a MemoryError traceback after the corpus load
    in_memory, available = 3 * 8 * K * (n_words or 0), available_memory()
    if available is not None and in_memory > available:
        raise ParamError(f"hyperparameter 'K' = {K} over {n_words} words needs about {in_memory / 2**30:.1f} GiB for "
                         f"the model's K x V arrays, more than the {available / 2**30:.1f} GiB of memory available")


def write_outputs(out_dir: Path, trace: pd.DataFrame, method: Method, vocab: list[str], spec: RunSpec,
                  extras: dict | None = None) -> None:
    """model.npz, topics.tsv and trace.parquet as one unit: all three are written into a staging folder beside
    ``out_dir``, which then replaces ``out_dir`` in one atomic rename. A kill or a full disk at any step leaves
    the complete old run or the complete new one, never a mix; a killed run's staging folder is removed by
    the next run of that folder (``clean_stale_staging``)."""
    out_dir = Path(out_dir).absolute()
    if trace.empty:  # a run that scored nothing is not a run: keep whatever out_dir holds
        raise OutputError(f"the run scored nothing (no trace row), so nothing was written to {out_dir}")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.staging-{os.getpid()}-", dir=out_dir.parent))
    aside = None  # the old run while renamed aside (file systems without RENAME_EXCHANGE)
    try:
        os.chmod(stage, 0o777 & ~io.current_umask())  # mkdtemp's 0700 would make the swapped-in run private
        state = saved_state(method)
        state.update(extras or {})
        state["_spec_json"] = np.array(json.dumps(asdict(spec), sort_keys=True, default=str))
        state["_method"] = np.array(method.name)
        state["_corpus_sha256"] = np.array(str(trace["corpus_sha256"].iloc[0]) if "corpus_sha256" in trace else "")
        state["_code_sha256"] = np.array(str(trace["code_sha256"].iloc[0]) if "code_sha256" in trace else "")
        state["_n_words"] = np.array(method.n_words)
        state["_corpus_size"] = np.array(getattr(method, "corpus_size", 0))
        io.fault_point("run.model")
        io.save_npz(stage / "model.npz", state)
        io.fault_point("run.topics")
        io.write_text(stage / "topics.tsv", top_words_table(method, vocab).to_csv(sep="\t", index=False))
        io.fault_point("run.trace")
        io.write_parquet(stage / "trace.parquet", trace)
        io.fault_point("run.swap")
        if out_dir.is_dir() and io.exchange_directories(stage, out_dir):
            pass  # stage now holds the old run
        elif out_dir.is_dir():  # no atomic exchange on this file system: two renames, undone by the next run
            old = out_dir.parent / f".{out_dir.name}.old-{os.getpid()}"
            os.rename(out_dir, old)
            aside = old
            io.fault_point("run.swap_new")  # the one window without out_dir; clean_stale_staging restores it
            os.rename(stage, out_dir)
            aside = None
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(stage, out_dir)
        io.fault_point("run.discard_old")
    except BaseException as err:
        if aside is not None:  # failed between the two renames (a kill leaves this to clean_stale_staging)
            if not out_dir.exists() and not out_dir.is_symlink():
                os.rename(aside, out_dir)  # the old run goes back: never a missing run folder
            elif _holds_only_run_files(out_dir):  # another run of this folder renamed its whole run in meanwhile
                shutil.rmtree(aside, ignore_errors=True)
        if isinstance(err, OutputError) or not isinstance(err, OSError):
            raise
        raise OutputError(f"writing the run's outputs to {out_dir} failed, this run was not written: {err}") from err
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def load_model(path: str | os.PathLike, n_words: int | None = None) -> Method:
    """Rebuild a fitted method from its ``model.npz``; a missing, truncated or foreign file is named."""
    io.check_path_argument(path, "path")
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            state = {k: archive[k] for k in archive.files}
        spec = json.loads(str(state.pop("_spec_json")))
        state = {k: v for k, v in state.items() if not k.startswith("_topic_history")}
        method_cls = get_method(str(state.pop("_method")))
        corpus_size = int(state.pop("_corpus_size"))
        stored_words = int(state.pop("_n_words"))
        state.pop("_corpus_sha256", None)  # provenance (stale_outputs reads them), no part of the model
        state.pop("_code_sha256", None)
    except FileNotFoundError:
        raise OutputError(f"model file {path} does not exist (run not finished?)") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise OutputError(f"model file {path} is unreadable or not a topicbench model: {err}") from None
    if n_words is not None and n_words != stored_words:
        raise OutputError(f"model file {path} was fitted over {stored_words} words, not the {n_words} asked for")
    kwargs = {"corpus_size": corpus_size} if method_cls.uses_corpus_size else {}
    try:
        return method_cls.from_state(state, stored_words, seed=spec["seed"], **kwargs, **spec["params"])
    except (KeyError, ValueError, TypeError) as err:  # arrays of another method, or a hand-edited _method
        raise OutputError(f"model file {path}: its arrays are not a {method_cls.name} model "
                          f"({type(err).__name__}: {err})") from None


__all__ = ["RunSpec", "run", "write_outputs", "load_model", "check_output_location", "OutputError", "ParamError"]
