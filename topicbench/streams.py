"""Minibatch streams and held-out policies (DESIGN.md, "Streams and held-out policies").

A stream is an order of training-document rows, fixed up front from its seed, cut into
minibatches. Fixing the order up front makes every stream deterministic and lets the
``lookahead`` policy peek at the documents that come next.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import scipy.sparse as sp

STREAMS = ("shuffled", "with_replacement", "time_ordered")
HOLDOUTS = ("fixed", "every_nth_batch", "lookahead")


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


def stream_order(kind: str, n_docs: int, seed: int, passes: float = 1.0, times=None, doc_ids=None) -> np.ndarray:
    """The row order a stream visits; ``passes`` may be fractional."""
    if kind not in STREAMS:
        raise StreamError(f"unknown stream {kind!r}; expected one of {STREAMS}")
    if n_docs < 1:
        raise StreamError("stream over an empty training set")
    if passes <= 0:
        raise StreamError(f"passes must be positive, got {passes}")
    total = int(round(passes * n_docs))
    rng = np.random.default_rng([seed, 0x57])
    if kind == "with_replacement":
        return rng.integers(n_docs, size=total)
    if kind == "time_ordered":
        if times is None:
            raise StreamError("time_ordered stream needs document times; this corpus has no 'time' column")
        ids = np.arange(n_docs) if doc_ids is None else np.asarray(doc_ids)
        order = np.lexsort((ids, np.asarray(times)))
        if passes != 1:
            raise StreamError("time_ordered is a true stream: one pass only")
        return order
    n_full = int(np.ceil(passes))
    return np.concatenate([rng.permutation(n_docs) for _ in range(n_full)])[:total]


class Stream:
    """Minibatches over a training corpus in a fixed order."""

    def __init__(self, counts: sp.csr_matrix, order: np.ndarray, batch_size: int, doc_ids=None, times=None):
        if batch_size < 1:
            raise StreamError(f"batch_size must be >= 1, got {batch_size}")
        self.counts = counts
        self.order = np.asarray(order)
        self.batch_size = int(batch_size)
        self.doc_ids = np.arange(counts.shape[0]) if doc_ids is None else np.asarray(doc_ids)
        self.times = None if times is None else np.asarray(times)

    @property
    def n_batches(self) -> int:
        return -(-len(self.order) // self.batch_size)

    def batch(self, index: int) -> Minibatch:
        rows = self.order[index * self.batch_size : (index + 1) * self.batch_size]
        return Minibatch(
            self.counts[rows], rows, self.doc_ids[rows], None if self.times is None else self.times[rows], index
        )

    def __iter__(self) -> Iterator[Minibatch]:
        for index in range(self.n_batches):
            yield self.batch(index)

    def upcoming(self, docs_seen: int, n: int) -> np.ndarray:
        """Rows of the next ``n`` documents after ``docs_seen`` (the lookahead policy)."""
        return self.order[docs_seen : docs_seen + n]


def log_checkpoints(total_docs: int, n_checkpoints: int, first: int = 1) -> np.ndarray:
    """Log-spaced document counts at which the fixed policy evaluates; always includes the end."""
    if n_checkpoints < 1:
        raise StreamError(f"n_checkpoints must be >= 1, got {n_checkpoints}")
    points = np.unique(np.round(np.geomspace(max(first, 1), total_docs, n_checkpoints)).astype(np.int64))
    return points


@dataclass
class Holdout:
    """When and on what a run is scored.

    fixed:            the test split, scored when docs_seen first reaches each checkpoint;
    every_nth_batch:  minibatch i with (i + 1) % n == 0 is scored before it is trained on
                      (Paisley et al. 2014, sec. 11.6: every tenth batch);
    lookahead:        at each checkpoint the next ``n`` stream documents are scored before
                      they are trained on (McInerney et al. 2015, sec. 5: the next 10K documents).
    """

    policy: str = "fixed"
    n: int = 10
    n_checkpoints: int = 12

    def __post_init__(self):
        if self.policy not in HOLDOUTS:
            raise StreamError(f"unknown held-out policy {self.policy!r}; expected one of {HOLDOUTS}")
        if self.n < 1:
            raise StreamError(f"held-out policy {self.policy}: n must be >= 1, got {self.n}")
        if self.n_checkpoints < 1:
            raise StreamError(f"n_checkpoints must be >= 1, got {self.n_checkpoints}")
