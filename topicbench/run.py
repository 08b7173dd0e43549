"""The runner: one (corpus, method, hyperparameters, seed), driven over a stream, scored on schedule.

Writes ``model.npz``, ``topics.tsv`` and, last, ``trace.parquet`` (DESIGN.md, "Runner outputs"),
each atomically, so a run killed mid-fit leaves no trace that looks complete. Fit time excludes
evaluation time and JIT compilation: the clocks run only around ``partial_fit``, after an untimed
warm-up (``compile_wall_s``) has compiled the method's kernels.
"""
from __future__ import annotations

import copy
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from . import __version__, io, kernels
from .corpus import Corpus, load_corpus, release_memory
from .evaluate import Protocol, Unigram, loglik_per_word, perplexity, protocol_splits, split_documents
from .method import REPO_ROOT, Method, ParamError, get_method
from .quality import final_checkpoint_quality, planted_recovery
from .streams import STREAMS, Evaluation, Minibatch, Stream, StreamError, make_holdout, stream_order


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

    def check(self) -> type[Method]:
        """Validate everything that can be validated without data; returns the method class."""
        method_cls = get_method(self.method)
        params = method_cls.resolve_params(self.params)
        make_holdout(self.holdout, self.holdout_n, self.n_checkpoints).check(batch_method=params.get("batch_size") is None)
        Protocol(self.observed_fraction, self.folds, self.eval_seed)
        if self.stream not in STREAMS:
            raise StreamError(f"unknown stream {self.stream!r}; expected one of {STREAMS}")
        if self.passes <= 0:
            raise StreamError(f"passes must be positive, got {self.passes}")
        if self.train_subset is not None and self.train_subset < 1:
            raise StreamError(f"train_subset must be >= 1, got {self.train_subset}")
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        return method_cls


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


def _subset_rows(n_docs: int, size: int | None, seed: int) -> np.ndarray:
    if size is None or size >= n_docs:
        return np.arange(n_docs)
    return np.sort(np.random.default_rng([seed, 0x5B5E7]).permutation(n_docs)[:size])


def _id_ranks(corpus: Corpus) -> np.ndarray:
    """Each document's rank among the view's doc ids (int64): orders ties as the ids do, without Python strings."""
    column = corpus.column("doc_id")
    values = column._base()
    if isinstance(values, np.ndarray):
        ids = values if column.rows is None else values[column.rows]
        return np.argsort(np.argsort(ids, kind="stable"), kind="stable")
    import pyarrow.compute as pc

    ids = values if column.rows is None else values.take(column.rows)
    return pc.rank(ids, sort_keys="ascending", tiebreaker="first").to_numpy().astype(np.int64)


def _warm_up(method: Method, stream: Stream) -> float:
    """Compile (or load from numba's cache) the kernels the fit will call, off the fit clock; returns the wall time.

    Generic over methods: a deep copy takes two updates on a two-document minibatch of the stream (the
    second reaches warm-started paths, e.g. a batch method revisiting its batch), predicts words and bounds,
    and is discarded. numba specialises on types and layouts, not sizes, so the copy compiles what the
    full-size fit calls; the real method's state and random generator are untouched, so its numbers do not move.
    """
    start = time.perf_counter()
    first = stream.batch(0)
    rows = first.rows[:2]
    counts = stream.rows(rows)
    tiny = Minibatch(counts, rows, first.doc_ids[:2], None if first.times is None else first.times[:2], 0)
    twin = copy.deepcopy(method)
    for _ in range(2):
        twin.partial_fit(tiny)
    observed, heldout = split_documents(counts, 0.5, 0)
    if heldout.nnz:
        twin.predict_words(observed, heldout)
    twin.heldout_elbo(counts)
    return time.perf_counter() - start


def run(spec: RunSpec, corpus: Corpus | str | os.PathLike, out_dir: str | os.PathLike | None = None,
        progress_every_s: float = 5.0) -> tuple[pd.DataFrame, Method]:
    """Fit one run; returns the trace and the fitted method, and writes outputs if ``out_dir`` is given.

    ``spec.threads`` bounds the BLAS/OpenMP pools too (numpy-heavy methods such as LG-NMF), as Snakemake's
    *_NUM_THREADS variables do inside a rule, so a run called directly uses no more cores than it says.
    """
    with threadpool_limits(limits=spec.threads):
        return _run(spec, corpus, out_dir, progress_every_s)


def _run(spec, corpus, out_dir, progress_every_s):
    method_cls = spec.check()  # fails before the corpus is even read
    if not isinstance(corpus, Corpus):
        corpus = load_corpus(corpus)
    threads = kernels.set_threads(spec.threads)
    # views: int64 row indices into the corpus; counts are read from disk a minibatch or a chunk at a time
    train = corpus.split("train")
    if spec.train_subset is not None:
        train = train.select(_subset_rows(train.n_docs, spec.train_subset, spec.subset_seed))
    test = corpus.split("test")
    if spec.max_test_docs is not None and test.n_docs > spec.max_test_docs:
        test = test.select(_subset_rows(test.n_docs, spec.max_test_docs, spec.eval_seed))
    kwargs = {"corpus_size": train.n_docs} if method_cls.uses_corpus_size else {}
    method = method_cls(corpus.n_words, seed=spec.seed, threads=threads, **kwargs, **spec.params)
    protocol = Protocol(spec.observed_fraction, spec.folds, spec.eval_seed)
    holdout = make_holdout(spec.holdout, spec.holdout_n, spec.n_checkpoints)
    batch_method = method.batch_size is None
    holdout.check(batch_method, test.n_docs, corpus.meta.get("name"))
    unigram = Unigram(sp.csr_matrix(train.word_totals()[None, :]))  # word totals accumulated chunk by chunk

    times = train.column("time")  # read from docs.parquet on first use
    doc_ids = train.column("doc_id")
    if batch_method:
        # one update per full pass over the training set in corpus order
        batch_size = train.n_docs
        order = np.tile(np.arange(train.n_docs), max(1, int(np.ceil(spec.passes))))
    else:
        batch_size = int(method.batch_size)
        tie = _id_ranks(train) if spec.stream == "time_ordered" else None  # ties in time by doc id
        order = stream_order(spec.stream, train.n_docs, spec.seed, spec.passes,
                             None if times is None or spec.stream != "time_ordered" else times.to_numpy(), tie)
        if spec.max_docs is not None:
            order = order[: spec.max_docs]
    # the policy says which rows the stream trains on (lookahead keeps its windows out) and when it scores
    order = holdout.training_order(order, spec.stream, spec.seed, batch_size, train.n_docs, batch_method)
    stream = Stream(train, order, batch_size, doc_ids, times)
    total_docs = len(stream.order)

    test_counts = test.counts if test.n_docs else None  # the held-out set: its configured size, read once
    release_memory()  # setup's per-document temporaries (split masks) go back to the OS before the fit
    fixed_splits = protocol_splits(test_counts, protocol) if holdout.name == "fixed" else None
    compile_wall = _warm_up(method, stream)  # numba compiles (or loads) the method's kernels off the fit clock
    # constant per-run columns
    base = {"experiment": spec.experiment, "dataset": spec.dataset or corpus.meta.get("name", ""),
            "label": spec.label or method.name, "method": method.name,
            "seed": spec.seed, "stream": "batch" if batch_method else spec.stream, "holdout": holdout.name,
            "protocol": protocol.describe(), "threads": threads, "corpus_size": train.n_docs,
            "test_docs": test.n_docs, "compile_wall_s": compile_wall,
            **{f"p_{k}": v for k, v in method.hyper.items()}, **provenance()}
    rows: list[dict] = []
    topic_history: list[np.ndarray] = []  # top word ids of each topic at each test checkpoint
    fit_wall = fit_cpu = 0.0
    report = _Progress(f"{spec.dataset}/{method.name}/seed{spec.seed}", total_docs, progress_every_s)

    processed = n_updates = 0
    truth_topics = (corpus.truth or {}).get("topics")
    trained = np.zeros(train.n_docs, dtype=bool)  # training rows some partial_fit has seen

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
        loglik, tokens = loglik_per_word(method, splits)
        base_loglik, _ = loglik_per_word(unigram, splits)
        # Hoffman et al. 2010 eq. 16 bounds whole held-out documents: counts, not the completion halves
        elbo = method.heldout_elbo(counts) if spec.report_elbo else None
        row = {**base, "docs_seen": processed, "updates": n_updates, "fit_wall_s": fit_wall,
               "fit_cpu_s": fit_cpu, "eval_kind": event.kind, "heldout_docs": docs, "heldout_excluded": event.excluded,
               "heldout_tokens": tokens, "loglik_per_word": loglik, "perplexity": perplexity(loglik),
               "unigram_loglik_per_word": base_loglik, "unigram_perplexity": perplexity(base_loglik),
               "elbo_per_word": np.nan if elbo is None else elbo, "eval_wall_s": time.perf_counter() - start}
        row.update({f"x_{k}": v for k, v in method.progress().items()})
        row.update({f"x_{k}": v for k, v in method.heldout_extras(splits).items()})
        if truth_topics is not None:  # planted-topic recovery at every checkpoint (cheap: K x K cosines)
            recovery = planted_recovery(method.topics(), truth_topics)
            row.update(recovery_cosine=recovery.cosine, recovery_frac_090=recovery.fraction)
        rows.append(row)
        if event.kind == "test" and spec.topic_history_words > 0:
            topics = method.topics()
            top = np.argpartition(-topics, spec.topic_history_words - 1, axis=1)[:, : spec.topic_history_words]
            order = np.take_along_axis(topics, top, axis=1).argsort(axis=1)[:, ::-1]
            topic_history.append(np.take_along_axis(top, order, axis=1))
        report(processed, fit_wall, loglik, force=True)

    for batch in stream:
        score(holdout.before_batch(batch, trained))
        wall0, cpu0 = time.perf_counter(), time.process_time()
        method.partial_fit(batch)
        fit_wall += time.perf_counter() - wall0
        fit_cpu += time.process_time() - cpu0
        trained[batch.rows] = True
        processed += len(batch)
        n_updates += 1
        report(processed, fit_wall)
        score(holdout.after_batch(processed, trained))
        if getattr(method, "converged", False):
            break
    score(holdout.at_end(processed, trained))
    if rows:  # topic quality of the final model, against documents it never trained on where there are any
        reference, which = (test_counts, "test") if test.n_docs else (train, "train")
        quality = final_checkpoint_quality(method, reference, truth_topics)
        rows[-1].update(npmi=quality["npmi"], topic_diversity=quality["topic_diversity"], npmi_reference=which)

    trace = pd.DataFrame(rows)
    if out_dir is not None:
        history = {}
        if topic_history:
            history = {"_topic_history": np.stack(topic_history),
                       "_topic_history_docs": trace.loc[trace["eval_kind"] == "test", "docs_seen"].to_numpy()}
        write_outputs(Path(out_dir), trace, method, corpus.vocab, spec, history)
    return trace, method


def write_outputs(out_dir: Path, trace: pd.DataFrame, method: Method, vocab: list[str], spec: RunSpec,
                  extras: dict | None = None) -> None:
    """model.npz and topics.tsv first, trace.parquet last: the trace marks a complete run."""
    out_dir.mkdir(parents=True, exist_ok=True)
    state = dict(method.state())
    state.update(extras or {})
    state["_spec_json"] = np.array(json.dumps(asdict(spec), sort_keys=True, default=str))
    state["_method"] = np.array(method.name)
    state["_n_words"] = np.array(method.n_words)
    state["_corpus_size"] = np.array(getattr(method, "corpus_size", 0))
    io.save_npz(out_dir / "model.npz", state)
    table = top_words_table(method, vocab)
    io.write_text(out_dir / "topics.tsv", table.to_csv(sep="\t", index=False))
    io.write_parquet(out_dir / "trace.parquet", trace)


def load_model(path: str | os.PathLike, n_words: int | None = None) -> Method:
    """Rebuild a fitted method from its ``model.npz``."""
    with np.load(path, allow_pickle=False) as archive:
        state = {k: archive[k] for k in archive.files}
    spec = json.loads(str(state.pop("_spec_json")))
    state = {k: v for k, v in state.items() if not k.startswith("_topic_history")}
    method_cls = get_method(str(state.pop("_method")))
    corpus_size = int(state.pop("_corpus_size"))
    kwargs = {"corpus_size": corpus_size} if method_cls.uses_corpus_size else {}
    stored_words = int(state.pop("_n_words"))
    n_words = stored_words if n_words is None else n_words
    return method_cls.from_state(state, n_words, seed=spec["seed"], **kwargs, **spec["params"])


__all__ = ["RunSpec", "run", "write_outputs", "load_model", "ParamError"]
