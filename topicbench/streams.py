"""Minibatch streams and held-out policies (DESIGN.md, "Streams and held-out policies").

A stream is an order of training-document rows, fixed up front from its seed, cut into
minibatches. Fixing the order up front makes every stream deterministic and lets the
``lookahead`` policy peek at the documents that come next. A held-out policy is a small object
(:class:`FixedTestSet`, :class:`EveryNthBatch`, :class:`Lookahead`) that says which rows the stream
may train on and when and what the runner scores; no policy ever scores a document the run has
already trained on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterator

import numpy as np
import scipy.sparse as sp

STREAMS = ("shuffled", "with_replacement", "time_ordered")


class StreamError(ValueError):
    """An impossible stream or held-out configuration."""


@dataclass
class Minibatch:
    counts: sp.csr_matrix
    rows: np.ndarray  # row indices into the training corpus
    doc_ids: np.ndarray
    times: np.ndarray | None
    index: int  # 0-based minibatch number in the stream

    def __len__(self) -> int:
        return self.counts.shape[0]


def stream_order(kind: str, n_docs: int, seed: int, passes: float = 1.0, times=None, doc_ids=None,
                 max_docs: int | None = None) -> np.ndarray:
    """The row order a stream visits, its first ``max_docs`` if given; ``passes`` may be fractional."""
    if kind not in STREAMS:
        raise StreamError(f"unknown stream {kind!r}; expected one of {STREAMS}")
    if n_docs < 1:
        raise StreamError("stream over an empty training set")
    if passes <= 0:
        raise StreamError(f"passes must be positive, got {passes}")
    total = int(round(passes * n_docs))
    if total < 1:
        raise StreamError(f"passes = {passes} of {n_docs} training documents rounds to no document to train on")
    visited = total if max_docs is None else min(total, max_docs)  # only these are drawn: the same first draws
    _check_order_memory(visited, passes, n_docs, max_docs)
    rng = np.random.default_rng([seed, 0x57])
    if kind == "with_replacement":
        return rng.integers(n_docs, size=visited)
    if kind == "time_ordered":
        if times is None:
            raise StreamError("time_ordered stream needs document times; this corpus has no 'time' column")
        ids = np.arange(n_docs) if doc_ids is None else np.asarray(doc_ids)
        times = np.asarray(times)
        # text sorts as text ('999' after '2012') and NaN sorts last: either would silently reorder the stream
        if times.dtype.kind not in "iuf":
            raise StreamError(f"time_ordered stream: the corpus's 'time' column (docs.parquet) holds {times.dtype} "
                              f"values, not numbers (e.g. {times[0]!r})")
        if not np.isfinite(times).all():
            raise StreamError(f"time_ordered stream: the corpus's 'time' column (docs.parquet) has "
                              f"{int((~np.isfinite(times)).sum())} missing or infinite value(s), first at training "
                              f"row {int(np.flatnonzero(~np.isfinite(times))[0])}")
        if passes != 1:
            raise StreamError("time_ordered is a true stream: one pass only")
        order = np.lexsort((ids, times))[:max_docs]
        if len(order) > 1 and (times[order] == times[order[0]]).all():  # ties go in doc-id order: no time order left
            raise StreamError(f"time_ordered stream: the corpus's 'time' column (docs.parquet) gives all {len(order)} "
                              f"documents it trains on{' (max_docs)' if len(order) < n_docs else ''} one time "
                              f"({times[order[0]].item()!r}), so the stream would be in document-id order, not time "
                              f"order; use stream: shuffled, or a corpus with dated documents")
        return order
    n_full = -(-visited // n_docs)  # the permutations the visited documents reach
    if n_full == 1:  # the same draws without a concatenated copy (8 bytes per document at 3.3M documents)
        return rng.permutation(n_docs)[:visited]
    return np.concatenate([rng.permutation(n_docs) for _ in range(n_full)])[:visited]


def _check_order_memory(visited: int, passes: float, n_docs: int, max_docs: int | None) -> None:
    """A stream's order is held in memory (8 bytes a document, twice while it is built): a ``passes`` too large for
    it is refused naming passes, not a MemoryError or an endless loop of permutations before the first update."""
    from .evaluate import available_memory

    needed, available = 2 * 8 * visited, available_memory()
    if available is not None and needed > available:
        budget = f" (max_docs {max_docs:,})" if max_docs is not None else ""
        raise StreamError(f"passes = {passes} over {n_docs:,} training documents is a stream of {visited:,} "
                          f"documents{budget}, whose order alone needs {needed / 2**30:,.1f} GiB, more than the "
                          f"{available / 2**30:.1f} GiB of memory available; lower passes, or set max_docs")


class Stream:
    """Minibatches over a training corpus in a fixed order.

    ``counts`` is a CSR matrix or a corpus view whose ``rows(rows)`` reads a minibatch from disk; ``doc_ids``
    and ``times`` anything indexable by a row array (arrays, or ``corpus.Column`` read on first use). Nothing
    per document is held beyond the int64 order.
    """

    def __init__(self, counts, order: np.ndarray, batch_size: int, doc_ids=None, times=None):
        if batch_size < 1:
            raise StreamError(f"batch_size must be >= 1, got {batch_size}")
        self.counts = counts
        self.order = np.asarray(order)
        self.batch_size = int(batch_size)
        self.doc_ids = np.arange(counts.shape[0]) if doc_ids is None else (
            doc_ids if hasattr(doc_ids, "__getitem__") and not isinstance(doc_ids, (list, tuple)) else np.asarray(doc_ids))
        self.times = None if times is None else (times if not isinstance(times, (list, tuple)) else np.asarray(times))

    def rows(self, rows: np.ndarray) -> sp.csr_matrix:
        """The counts of training rows ``rows`` (a gather from the shards for a corpus view)."""
        return self.counts.rows(rows) if hasattr(self.counts, "rows") else self.counts[rows]

    @property
    def n_batches(self) -> int:
        return -(-len(self.order) // self.batch_size)

    def batch(self, index: int) -> Minibatch:
        # a copy: a method editing batch.rows in place must not reach the order, nor the runner's record of the rows
        # trained on, which keeps trained documents out of what a policy scores
        rows = self.order[index * self.batch_size : (index + 1) * self.batch_size].copy()
        pick = lambda values: values.defer(rows) if hasattr(values, "defer") else values[rows]  # noqa: E731
        return Minibatch(self.rows(rows), rows, pick(self.doc_ids), None if self.times is None else pick(self.times),
                         index)

    def __iter__(self) -> Iterator[Minibatch]:
        for index in range(self.n_batches):
            yield self.batch(index)


def log_checkpoints(total_docs: int, n_checkpoints: int, first: int = 1) -> np.ndarray:
    """Log-spaced document counts at which the fixed policy evaluates; always includes the end."""
    if n_checkpoints < 1:
        raise StreamError(f"n_checkpoints must be >= 1, got {n_checkpoints}")
    first = max(first, 1)
    # so many points that consecutive ones lie at most 0.5 apart (the largest gap, at the top, is below
    # total_docs * ln(total_docs / first) / (n - 1)): every count from first to total_docs is one, as the points below
    # would round to, without n_checkpoints floats in memory (1e12 of them raised MemoryError)
    if total_docs >= first and n_checkpoints - 1 >= 2 * total_docs * np.log(total_docs / first):
        return np.arange(first, total_docs + 1, dtype=np.int64)
    points = np.unique(np.round(np.geomspace(first, total_docs, n_checkpoints)).astype(np.int64))
    return points



def scoring_positions(checkpoints: np.ndarray, total_docs: int, batch_size: int) -> np.ndarray:
    """Documents processed when each checkpoint is scored: the end of the first minibatch that reaches it."""
    return np.unique(np.minimum(-(-np.asarray(checkpoints) // batch_size) * batch_size, total_docs))


def reserved_draws(n_docs: int, positions: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """A with-replacement stream whose look-ahead windows it has never drawn before scoring them.

    The window scored at ``positions[j]`` is ``n`` documents drawn without replacement from those the
    stream has not drawn before ``positions[j - 1]``; from then until it is scored, the stream draws
    uniformly (with replacement, Hoffman et al. 2013's SVI sampling) from every other document. Once
    scored, a window returns to the pool. So at most ``n`` documents are out of the pool at a time, and
    a window never holds a document drawn earlier. Returns the order (``positions[-1]`` draws) and the
    window of each position.
    """
    rng = np.random.default_rng([seed, 0x57, 0x1A])
    drawn = np.zeros(n_docs, dtype=bool)
    order = np.empty(int(positions[-1]), dtype=np.int64)
    windows, start = {}, 0
    for stop in (int(p) for p in positions):
        fresh = np.flatnonzero(~drawn)
        window = rng.choice(fresh, size=min(n, len(fresh)), replace=False)
        pool = np.flatnonzero(~np.isin(np.arange(n_docs), window))
        order[start:stop] = pool[rng.integers(len(pool), size=stop - start)]
        drawn[order[start:stop]] = True
        windows[stop], start = window, stop
    return order, windows


@dataclass
class Evaluation:
    """What the runner scores now: training rows never trained on, or (``rows`` None) the test split."""

    kind: str  # the trace's eval_kind: test, batch or lookahead
    rows: np.ndarray | None = None
    excluded: int = 0  # rows the protocol named that the run had already trained on, dropped from the scored set
    salt: int | None = None  # every_nth_batch: the batch index, so each batch gets its own token split


class HeldoutPolicy:
    """When and on what a run is scored, as hooks the runner calls (DESIGN.md, "Streams and held-out policies").

    ``training_order``: which rows the stream may train on, in order; ``before_batch`` / ``after_batch`` /
    ``at_end``: what to score at those moments (an :class:`Evaluation` or None). The runner passes the mask
    of training rows trained on so far, and a policy scores only rows outside it (:meth:`unseen`): a scored
    document has never been trained on before it is scored, whatever the stream.
    """

    name: ClassVar[str] = ""

    def __init__(self, n: int = 10, n_checkpoints: int = 12):
        if n < 1:
            raise StreamError(f"held-out policy {self.name}: n must be >= 1, got {n}")
        if n_checkpoints < 1:
            raise StreamError(f"n_checkpoints must be >= 1, got {n_checkpoints}")
        self.n, self.n_checkpoints = int(n), int(n_checkpoints)
        self.checkpoints = np.zeros(0, dtype=np.int64)
        self._next = 0

    def check(self, batch_method: bool, test_docs: int | None = None, corpus: str = "") -> None:
        """Raise before any compute if this policy could not score anything on this run (``test_docs`` None: no
        data yet, check the method only)."""

    def check_length(self, stream_docs: int, batch_size: int, n_docs: int) -> None:
        """Raise if a stream of ``stream_docs`` documents in minibatches of ``batch_size``, over ``n_docs`` training
        documents, leaves this policy nothing to score or train on: by :meth:`training_order`, and at DAG build where
        a planted corpus's size is in its parameters (``grid.check_planted_sizes``)."""

    def training_order(self, order: np.ndarray, stream: str, seed: int, batch_size: int, n_docs: int,
                       batch_method: bool) -> np.ndarray:
        """The rows trained on, in order; sets the checkpoints (log-spaced; one per pass for batch methods)."""
        self.checkpoints = (batch_size * np.arange(1, -(-len(order) // batch_size) + 1) if batch_method
                            else log_checkpoints(len(order), self.n_checkpoints, first=batch_size))
        self._next = 0
        return order

    def due(self, processed: int) -> bool:
        """True once per minibatch that reaches one or more new checkpoints."""
        reached = self._next < len(self.checkpoints) and processed >= self.checkpoints[self._next]
        while self._next < len(self.checkpoints) and processed >= self.checkpoints[self._next]:
            self._next += 1
        return bool(reached)

    def unseen(self, kind: str, rows: np.ndarray, trained: np.ndarray, salt: int | None = None) -> Evaluation | None:
        """The rows never trained on (None if there are none), counting those dropped."""
        keep = ~trained[rows]
        return Evaluation(kind, rows[keep], int(np.count_nonzero(~keep)), salt) if keep.any() else None

    def scheduled(self, order: np.ndarray, batch_size: int) -> Iterator[tuple[int, np.ndarray]]:
        """(documents processed, training rows) of each stream evaluation :meth:`training_order` planned, before the
        fit (rows already trained on by then are dropped at scoring time); none for a policy scoring the test split."""
        return iter(())

    def before_batch(self, batch: Minibatch, trained: np.ndarray) -> Evaluation | None:
        return None

    def after_batch(self, processed: int, trained: np.ndarray) -> Evaluation | None:
        return None

    def at_end(self, processed: int, trained: np.ndarray) -> Evaluation | None:
        return None


class FixedTestSet(HeldoutPolicy):
    """``fixed``: the test split, scored when documents seen first reach each checkpoint and at the end.

    Test documents are never in the training split, so nothing is ever excluded (Hoffman et al. 2010, sec. 3).
    """

    name = "fixed"

    def check(self, batch_method, test_docs=None, corpus=""):
        if test_docs == 0:
            raise StreamError(f"held-out policy 'fixed' needs a test split; corpus {corpus} has none: prepare it with a "
                              f"test_fraction that leaves a test document, or run with --set holdout=every_nth_batch")

    def training_order(self, order, stream, seed, batch_size, n_docs, batch_method):
        self._last = -1
        return super().training_order(order, stream, seed, batch_size, n_docs, batch_method)

    def after_batch(self, processed, trained):
        if self.due(processed):
            self._last = processed
            return Evaluation("test")
        return None

    def at_end(self, processed, trained):
        return Evaluation("test") if self._last != processed else None


class EveryNthBatch(HeldoutPolicy):
    """``every_nth_batch``: minibatch i with (i + 1) % n == 0 is scored, then trained on.

    Paisley et al. 2014, sec. 11.6: "hold out every tenth batch for testing ... After testing the batch,
    stochastic inference proceeds as before, with the testing batch processed first ... every testing batch
    represents a new sample from the corpus". A stream can break that last premise (a second pass, or a
    with-replacement draw, revisits documents), so the documents of a testing batch already trained on are
    dropped from its scored set (``heldout_docs`` counts the rest, ``heldout_excluded`` the dropped); a
    batch with none left is not scored. On a shuffled stream that means scoring stops after the first pass.
    """

    name = "every_nth_batch"

    def check(self, batch_method, test_docs=None, corpus=""):
        if batch_method and self.n > 1:
            raise StreamError(f"held-out policy every_nth_batch with n = {self.n} on a batch method: its minibatch "
                              f"{self.n} is pass {self.n}, every document of which it has already trained on")

    def check_length(self, stream_docs, batch_size, n_docs):
        if -(-stream_docs // batch_size) < self.n:
            raise StreamError(f"held-out policy every_nth_batch: holdout_n = {self.n} but the stream has only "
                              f"{-(-stream_docs // batch_size)} minibatches, so no batch would be scored")

    def training_order(self, order, stream, seed, batch_size, n_docs, batch_method):
        self.check_length(len(order), batch_size, n_docs)
        return super().training_order(order, stream, seed, batch_size, n_docs, batch_method)

    def scheduled(self, order, batch_size):
        for index in range(self.n - 1, -(-len(order) // batch_size), self.n):
            yield index * batch_size, order[index * batch_size : (index + 1) * batch_size]

    def before_batch(self, batch, trained):
        if (batch.index + 1) % self.n == 0:
            return self.unseen("batch", batch.rows, trained, salt=batch.index)
        return None


class Lookahead(HeldoutPolicy):
    """``lookahead``: at each checkpoint the next ``n`` documents are scored before they are trained on.

    McInerney et al. 2015, sec. 3: "we test on the next 10K documents ... a valid held-out set because the data
    ahead of the current position in the stream have not yet been seen". The stream's last ``n`` documents are
    only scored, never trained on, so every run ends on a full window whatever its minibatch size. Per stream:
    ``time_ordered`` and a one-pass ``shuffled`` stream never revisit a document, so the next ``n`` are unseen;
    ``with_replacement`` (SVI) is built so that it cannot revisit one (:func:`reserved_draws`: each window is
    drawn from documents the stream has not drawn and kept out of its draws until scored); a multi-pass
    ``shuffled`` stream has no unseen documents after its first pass, so, as for every policy, documents
    already trained on are dropped from a window (``heldout_excluded``) and an empty window is not scored.
    """

    name = "lookahead"

    def check(self, batch_method, test_docs=None, corpus=""):
        if batch_method:
            raise StreamError("held-out policy lookahead on a batch method: its first update trains on every "
                              "document, so no document is ever ahead of it; use holdout: fixed")

    def check_length(self, stream_docs, batch_size, n_docs):
        if self.n >= min(stream_docs, n_docs):
            raise StreamError(f"held-out policy lookahead: n = {self.n} leaves nothing to train on (the stream has "
                              f"{stream_docs} documents, the corpus {n_docs})")

    def training_order(self, order, stream, seed, batch_size, n_docs, batch_method):
        self.check_length(len(order), batch_size, n_docs)
        self.ahead, self.windows = order, None  # the untrimmed stream, whose next n documents are scored
        train = super().training_order(order[: len(order) - self.n], stream, seed, batch_size, n_docs, batch_method)
        if stream == "with_replacement":
            train, self.windows = reserved_draws(n_docs, scoring_positions(self.checkpoints, len(train), batch_size),
                                                 self.n, seed)
        return train

    def scheduled(self, order, batch_size):
        for processed in scoring_positions(self.checkpoints, len(order), batch_size):
            yield int(processed), self._window(int(processed))

    def _window(self, processed: int) -> np.ndarray:
        return self.ahead[processed : processed + self.n] if self.windows is None else self.windows[processed]

    def after_batch(self, processed, trained):
        if not self.due(processed):
            return None
        rows = self._window(processed)
        return self.unseen("lookahead", rows, trained)


POLICIES: dict[str, type[HeldoutPolicy]] = {p.name: p for p in (FixedTestSet, EveryNthBatch, Lookahead)}
HOLDOUTS = tuple(POLICIES)


def make_holdout(policy: str = "fixed", n: int = 10, n_checkpoints: int = 12) -> HeldoutPolicy:
    """The policy object of a config's ``holdout`` string (fixed, every_nth_batch, lookahead)."""
    if policy not in POLICIES:
        raise StreamError(f"unknown held-out policy {policy!r}; expected one of {HOLDOUTS}")
    return POLICIES[policy](n, n_checkpoints)
