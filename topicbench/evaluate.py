"""One evaluation protocol for every method (DESIGN.md, "Evaluation").

Document completion: each held-out document's tokens are split at random (fixed seed) into
an observed part and a held-out part. The method fits its local parameters to the observed
part with its globals fixed, and is scored on the held-out part:

    loglik_per_word = sum_{held-out tokens} log p(w | observed) / (number of held-out tokens)   [nats]
    perplexity      = exp(-loglik_per_word)

``observed_fraction`` splits each document once (McInerney et al. 2015: halves). ``folds = 3``
is Paisley et al. 2014's threefold variant: each third is held out in turn, observing the
other two; the scores of the folds are pooled over all tokens.

A document with no observed token in a split has nothing to complete from: its held-out tokens there are not scored
(they would score the prior predictive under the name of completion, and move the denominator). Such a document, and
one with no held-out token (a short one, round(fraction N_d) = N_d), is scored on nothing; the trace counts the
documents scored (``heldout_docs``) and those the protocol could not score (``heldout_unscored``, see
:func:`scored_documents`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

EVAL_CHUNK_DOCS = 2048  # bounds predict_words memory on large held-out sets


@dataclass(frozen=True)
class Protocol:
    observed_fraction: float = 0.5
    folds: int = 1
    seed: int = 0

    def __post_init__(self):
        if self.folds < 1:
            raise ValueError(f"evaluation folds must be >= 1, got {self.folds}")
        if self.folds == 1 and not 0.0 < self.observed_fraction < 1.0:
            raise ValueError(f"observed_fraction must lie in (0, 1), got {self.observed_fraction}")

    def describe(self) -> str:
        if self.folds > 1:
            return f"{self.folds}-fold document completion (observe {self.folds - 1}/{self.folds}, predict 1/{self.folds})"
        return f"document completion (observe {self.observed_fraction:g} of tokens, predict the rest)"


TOKEN_BYTES = 48  # _token_ranks' per-token arrays: entry, doc, key, order, rank (8 B each) and the keep mask


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux MemAvailable), or None where that cannot be told."""
    try:
        with open("/proc/meminfo") as handle:
            return next(int(line.split()[1]) * 1024 for line in handle if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return None


def _check_token_memory(counts: sp.csr_matrix) -> None:
    """Document completion draws tokens one by one, so its memory grows with the tokens, not the nonzeros: a
    document of a few huge counts is refused here, naming its length, instead of a MemoryError traceback."""
    n_tokens = int(counts.data.sum(dtype=np.int64))
    available = available_memory()
    if available is None:
        return  # no way to tell: let numpy try
    if n_tokens * TOKEN_BYTES > available:
        longest = int(np.asarray(counts.sum(axis=1, dtype=np.int64)).max())
        raise ValueError(f"document completion expands tokens one by one: {counts.shape[0]} documents of "
                         f"{n_tokens:,} tokens (the longest {longest:,}) need about "
                         f"{n_tokens * TOKEN_BYTES / 2**30:.1f} GiB, more than the {available / 2**30:.1f} GiB "
                         f"available; drop or cap the outsized documents in the corpus")


def _token_ranks(counts: sp.csr_matrix, seed: int):
    """Expand counts to tokens and give each token a random rank within its document."""
    counts = sp.csr_matrix(counts)
    n_docs = counts.shape[0]
    _check_token_memory(counts)
    nnz_doc = np.repeat(np.arange(n_docs), np.diff(counts.indptr))
    token_entry = np.repeat(np.arange(counts.nnz), counts.data.astype(np.int64))
    token_doc = nnz_doc[token_entry]
    keys = np.random.default_rng([seed, 0xE7A1]).random(len(token_entry))
    order = np.lexsort((keys, token_doc))
    token_entry, token_doc = token_entry[order], token_doc[order]
    doc_len = np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)
    doc_start = np.concatenate([[0], np.cumsum(doc_len)[:-1]])
    rank = np.arange(len(token_entry)) - doc_start[token_doc]
    return counts, token_entry, token_doc, rank, doc_len


def _assemble(counts: sp.csr_matrix, token_entry: np.ndarray, keep: np.ndarray) -> sp.csr_matrix:
    data = np.bincount(token_entry[keep], minlength=counts.nnz).astype(counts.data.dtype)
    part = sp.csr_matrix((data, counts.indices.copy(), counts.indptr.copy()), shape=counts.shape)
    part.eliminate_zeros()
    return part


def split_documents(counts: sp.csr_matrix, observed_fraction: float, seed: int):
    """(observed, heldout): round(fraction * N_d) tokens of each document, drawn without replacement, are observed."""
    counts, token_entry, token_doc, rank, doc_len = _token_ranks(counts, seed)
    n_observed = np.round(observed_fraction * doc_len).astype(np.int64)
    keep = rank < n_observed[token_doc]
    # a document with nothing observed (one token at fraction 0.5: round(0.5) = 0) has nothing to complete from
    return _assemble(counts, token_entry, keep), _assemble(counts, token_entry, ~keep & (n_observed[token_doc] > 0))


def fold_splits(counts: sp.csr_matrix, folds: int, seed: int):
    """[(observed, heldout)] for each fold: fold f holds out the tokens whose rank falls in its f-th share."""
    counts, token_entry, token_doc, rank, doc_len = _token_ranks(counts, seed)
    fold_of = (rank * folds) // np.maximum(doc_len[token_doc], 1)
    splits = []
    for f in range(folds):
        held = fold_of == f
        # a document whose every token fold f holds out (a one-token document) observes nothing there: not scored
        observes = (doc_len - np.bincount(token_doc[held], minlength=len(doc_len))) > 0
        splits.append((_assemble(counts, token_entry, ~held), _assemble(counts, token_entry, held & observes[token_doc])))
    return splits


def completable(lengths: np.ndarray, protocol: "Protocol") -> np.ndarray:
    """Which documents of these token lengths the protocol scores: an observed and a held-out token in some split
    (halves: 0 < round(fraction N_d) < N_d; k folds: N_d >= 2, as every fold then observes a token), from the lengths
    alone, so a schedule can be checked before any fit."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if protocol.folds > 1:
        return lengths >= 2
    n_observed = np.round(protocol.observed_fraction * lengths).astype(np.int64)
    return (n_observed > 0) & (n_observed < lengths)


def scored_documents(splits) -> int:
    """The documents with a held-out token scored in some split; the others (nothing observed, or nothing held out)
    the protocol cannot score and the trace counts as ``heldout_unscored``."""
    scored = np.zeros(splits[0][1].shape[0], dtype=bool)
    for _, heldout in splits:
        scored |= np.diff(heldout.indptr) > 0  # _assemble dropped explicit zeros
    return int(scored.sum())


def protocol_splits(counts: sp.csr_matrix, protocol: Protocol):
    if protocol.folds > 1:
        return fold_splits(counts, protocol.folds, protocol.seed)
    return [split_documents(counts, protocol.observed_fraction, protocol.seed)]


def loglik_sum(method, observed: sp.csr_matrix, heldout: sp.csr_matrix) -> tuple[float, int]:
    """Sum of log p(w | observed) over held-out tokens, and their number."""
    total, tokens = 0.0, 0
    for start in range(0, heldout.shape[0], EVAL_CHUNK_DOCS):
        obs = observed[start : start + EVAL_CHUNK_DOCS]
        held = heldout[start : start + EVAL_CHUNK_DOCS]
        if held.nnz == 0:
            continue
        # copies: a method editing its arguments in place cannot change the counts weighed here, nor the splits
        # the next checkpoint or the baseline scores
        probs = np.asarray(method.predict_words(obs.copy(), held.copy()), dtype=np.float64)
        if probs.shape != (held.nnz,):
            raise ValueError(f"{getattr(method, 'name', method)}.predict_words returned shape {probs.shape}, expected ({held.nnz},)")
        if np.any(probs > 1 + 1e-9):  # a score better than any model can have, never a numerical failure
            raise ValueError(f"{getattr(method, 'name', method)}.predict_words returned a probability above 1 "
                             f"({probs.max():.6g}); it returns p(w | observed part) at each held-out word")
        if np.any(~np.isfinite(probs)) or np.any(probs <= 0):
            raise FloatingPointError(f"{getattr(method, 'name', method)}.predict_words returned a non-positive or non-finite probability")
        # p(w) = sum_k theta_k beta_kw is at most 1; above it only by the rounding of sum_k theta_k (within the 1e-9
        # accepted above: a word certain under every topic, e.g. a one-word vocabulary), which would score log p > 0
        probs = np.minimum(probs, 1.0)
        # numpy's pairwise sum, not BLAS's dot: ddot splits its sum between the run's threads, so the score would
        # change with the thread count in the last digits
        total += float(np.sum(held.data * np.log(probs)))
        tokens += int(held.data.sum())
    return total, tokens


def loglik_per_word(method, splits) -> tuple[float, int]:
    """Per-word log predictive (nats) pooled over the splits (folds), and the number of held-out tokens."""
    total, tokens = 0.0, 0
    for observed, heldout in splits:
        t, n = loglik_sum(method, observed, heldout)
        total += t
        tokens += n
    return (total / tokens if tokens else float("nan")), tokens


class Unigram:
    """The word-frequency baseline: every held-out word predicted from training frequencies.

    Add-one smoothing keeps words unseen in training finite; it is the floor of every figure.
    """

    name = "unigram"

    def __init__(self, train_counts: sp.csr_matrix):
        freq = np.asarray(sp.csr_matrix(train_counts).sum(axis=0)).ravel().astype(np.float64) + 1.0
        self.probs = freq / freq.sum()

    def predict_words(self, observed, word_ids):
        return self.probs[sp.csr_matrix(word_ids).indices]


def perplexity(loglik: float) -> float:
    return float(np.exp(-loglik))
