"""Topic quality beside perplexity (DESIGN.md, "Evaluation"): NPMI coherence, topic diversity, planted recovery.

NPMI (Bouma 2009; as a topic coherence: Aletras & Stevenson 2013, Lau, Newman & Baldwin 2014, Roeder, Both &
Hinneburg 2015) scores each topic by the mean normalised PMI of the pairs of its top words, with probabilities
estimated from *document* co-occurrence in a stated reference corpus (boolean per document: a word counts once per
document however often it occurs). For one ordered pair (w_i, w_j) of a topic's top words:

    p_i = D_i / D,   p_ij = D_ij / D                          D_i: documents holding w_i, D_ij: holding both
    pmi_ij  = log((p_ij + eps) / (p_i p_j))
    npmi_ij = pmi_ij / -log(p_ij + eps)

and a topic's score is the mean over its n(n-1) ordered pairs (equal to the mean over unordered pairs: npmi is
symmetric). These are gensim's ``log_ratio_measure(normalize=True)`` and ``s_one_one`` segmentation with its
``EPSILON = 1e-12``; the model score is the arithmetic mean over topics, as gensim's ``aggregate_measures``.

gensim's ``coherence="c_npmi"`` estimates probabilities from sliding windows of 10 tokens over *texts*; a bag of
words has no token order, so the matching gensim configuration is ``c_npmi`` on texts that list each document's
distinct words once, with ``window_size`` at least the longest such text: every document is then exactly one window
and gensim's estimator is document co-occurrence (``tests/test_quality.py`` checks agreement this way).

Conventions that differ from gensim, where gensim returns a non-finite number:
- a pair with a word absent from the reference (D_i = 0) scores -1, NPMI's value for words that never co-occur
  (Bouma 2009; the ETM code of Dieng, Ruiz & Blei 2020 does the same); gensim divides by p_i p_j = 0 and returns inf;
- a topic with fewer than 2 top words (see :func:`top_words`: only words of positive weight are listed) has no pair
  and scores NaN; the mean is over the topics that have a score.
Note the eps convention's known quirk, kept for agreement: two present words that never co-occur score
-1 + log(p_i p_j) / log(eps), not -1 (the rarer the pair, the nearer 0).

Memory: only the co-document counts of each topic's own top-word pairs are kept (K n^2 numbers); the reference is
read in row chunks restricted to the columns of the union of top words.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

GENSIM_EPSILON = 1e-12  # gensim.topic_coherence.direct_confirmation_measure.EPSILON
NPMI_TOP_WORDS = 10  # top words per topic for NPMI (gensim's CoherenceModel uses topn=20; 10 is the common choice)
DIVERSITY_TOP_WORDS = 25  # Dieng, Ruiz & Blei 2020: "the top 25 words of all topics"
RECOVERY_THRESHOLD = 0.9
CHUNK_ENTRIES = 1 << 22  # dense chunk-of-documents x top-word cells per step (16 MiB in float32)


class Coherence(NamedTuple):
    per_topic: np.ndarray  # K scores, NaN for a topic with fewer than 2 words
    mean: float  # mean over the topics that have a score
    n_docs: int  # documents in the reference (D)


class Recovery(NamedTuple):
    cosine: float  # mean cosine over the min(K_fitted, K_true) Hungarian-matched pairs
    fraction: float  # true topics whose match has cosine >= threshold, over K_true
    matched_cosine: np.ndarray  # K_true: each true topic's matched cosine (NaN if left unmatched)


def top_words(topics: np.ndarray, n: int) -> list[np.ndarray]:
    """The ids of each topic's n heaviest words, heaviest first (ties by word id); only positive weights count.

    A topic with fewer than n positive weights lists only those: zero-weight words carry no ranking, and letting
    argsort pick among them would score arbitrary vocabulary ids.
    """
    topics = np.asarray(topics, dtype=np.float64)
    if topics.ndim != 2 or topics.shape[0] == 0:
        raise ValueError(f"topics must be a K x V matrix with K >= 1, got shape {topics.shape}")
    if n < 1:
        raise ValueError(f"number of top words must be >= 1, got {n}")
    bad = np.flatnonzero(~np.isfinite(topics).all(axis=1) | (topics < 0).any(axis=1))
    if len(bad):
        raise ValueError(f"topic {bad[0]} has a negative or non-finite weight")
    order = np.argsort(-topics, axis=1, kind="stable")[:, :n]
    return [row[topics[k, row] > 0] for k, row in enumerate(order)]


def _check_top_words(top: Sequence[Sequence[int]], n_words: int | None, what: str) -> list[np.ndarray]:
    if len(top) == 0:
        raise ValueError(f"{what}: no topics given")
    out = []
    for k, words in enumerate(top):
        words = np.asarray(words)
        if words.ndim != 1 or (words.size and not np.issubdtype(words.dtype, np.integer)):
            raise ValueError(f"{what}: topic {k}'s top words must be a 1-d list of integer word ids, got {words!r}")
        words = words.astype(np.int64)
        if n_words is not None and words.size and (words.min() < 0 or words.max() >= n_words):
            raise ValueError(f"{what}: topic {k} has a word id outside the reference vocabulary [0, {n_words})")
        if len(np.unique(words)) != len(words):
            raise ValueError(f"{what}: topic {k} lists a word twice: {words.tolist()}")
        out.append(words)
    return out


class _ViewRows:
    """A corpus view (``topicbench.corpus.Corpus``, validated at load) sliced as a matrix: rows read per chunk."""

    def __init__(self, view):
        self.view, self.shape = view, view.shape

    def __getitem__(self, rows: slice) -> sp.csr_matrix:
        return self.view.rows(np.arange(*rows.indices(self.shape[0])))


def _check_reference(reference) -> sp.csr_matrix:
    if isinstance(reference, _ViewRows):  # already checked (final_checkpoint_quality passes it on to npmi_coherence)
        return reference
    if not sp.issparse(reference) and hasattr(reference, "rows") and hasattr(reference, "shape"):
        if reference.shape[0] == 0:
            raise ValueError("NPMI reference has no documents")
        return _ViewRows(reference)  # a corpus too large to hold: co-document counts read it chunk by chunk
    if not sp.issparse(reference):
        raise TypeError("NPMI reference must be a scipy sparse documents x vocabulary matrix, "
                        f"got {type(reference).__name__}")
    reference = sp.csr_matrix(reference)
    if reference.shape[0] == 0:
        raise ValueError("NPMI reference has no documents")
    if reference.nnz and (not np.isfinite(reference.data).all() or reference.data.min() < 0):
        raise ValueError("NPMI reference has a negative or non-finite count")
    return reference


def co_document_counts(top: list[np.ndarray], reference: sp.csr_matrix,
                       chunk_entries: int = CHUNK_ENTRIES) -> list[np.ndarray]:
    """For each topic, the n x n matrix of documents holding both words (diagonal: documents holding the word)."""
    union, inverse = np.unique(np.concatenate(top), return_inverse=True)
    n = max(len(w) for w in top)
    # position of each topic's words among the union's columns; shorter topics are padded with an extra column
    # whose counts are sliced off at the end
    index = np.full((len(top), n), len(union), dtype=np.int64)
    start = 0
    for k, words in enumerate(top):
        index[k, : len(words)] = inverse[start : start + len(words)]
        start += len(words)
    counts = np.zeros((len(top), n, n))
    # K n >= len(union): a chunk holds <= chunk_entries cells; float32 sums of 0/1 are exact below 2^24 documents
    step = min(max(1, chunk_entries // (len(top) * n)), 1 << 24)
    for lo in range(0, reference.shape[0], step):
        columns = reference[lo : lo + step][:, union]  # this chunk of documents, the union's columns only (a copy)
        columns.data = (columns.data > 0).astype(np.float32)  # boolean per document
        block = np.zeros((len(union) + 1, columns.shape[0]), dtype=np.float32)  # words x documents
        columns.T.toarray(out=block[: len(union)])
        gathered = block[index]  # K x n x docs
        counts += gathered @ gathered.transpose(0, 2, 1)  # K x n x n: D_ij accumulated over this chunk
    return [counts[k, : len(w), : len(w)] for k, w in enumerate(top)]


def npmi_coherence(top: Sequence[Sequence[int]], reference, n: int = NPMI_TOP_WORDS, eps: float = GENSIM_EPSILON,
                   chunk_entries: int = CHUNK_ENTRIES) -> Coherence:
    """NPMI of each topic's first ``n`` top words (ids into the reference's columns) against ``reference``.

    ``reference`` is a documents x vocabulary count matrix (scipy sparse); see the module docstring for the
    estimator, the epsilon and the edge-case conventions.
    """
    if n < 2:
        raise ValueError(f"NPMI needs at least 2 top words per topic, got n={n}")
    if not eps > 0:  # eps = 0 would make a never co-occurring pair 0/0 (gensim's estimator needs eps > 0 too)
        raise ValueError(f"eps must be > 0, got {eps}")
    reference = _check_reference(reference)
    top = [w[:n] for w in _check_top_words(top, reference.shape[1], "npmi_coherence")]
    scores = np.full(len(top), np.nan)
    scored = [k for k, w in enumerate(top) if len(w) >= 2]
    if scored:
        counts = co_document_counts([top[k] for k in scored], reference, chunk_entries)
        D = reference.shape[0]
        for k, c in zip(scored, counts):
            p = np.diag(c) / D
            p_ij = c / D
            with np.errstate(divide="ignore", invalid="ignore"):
                pmi = np.log((p_ij + eps) / np.outer(p, p))
                npmi = pmi / -np.log(p_ij + eps)
            npmi[(p[:, None] == 0) | (p[None, :] == 0)] = -1.0  # a word absent from the reference: never co-occurs
            off = ~np.eye(len(p), dtype=bool)
            scores[k] = npmi[off].mean()
    mean = float(np.nanmean(scores)) if scored else float("nan")
    return Coherence(scores, mean, reference.shape[0])


def topic_diversity(top: Sequence[Sequence[int]], n: int = DIVERSITY_TOP_WORDS) -> float:
    """Fraction of unique words among the first ``n`` top words of every topic (Dieng, Ruiz & Blei 2020,
    "Topic modeling in embedding spaces", TACL).

    1 means no two topics share a top word; 1/K means all topics list the same words. A topic listing fewer than
    n words (see :func:`top_words`) contributes the words it has: the denominator is the number of words listed.
    """
    if n < 1:
        raise ValueError(f"number of top words must be >= 1, got {n}")
    top = [w[:n] for w in _check_top_words(top, None, "topic_diversity")]
    listed = np.concatenate(top)
    if listed.size == 0:
        raise ValueError("topic_diversity: no topic lists any word")
    return len(np.unique(listed)) / listed.size


def _unit_rows(topics, what: str, zero_ok: bool) -> np.ndarray:
    topics = np.asarray(topics, dtype=np.float64)
    if topics.ndim != 2 or topics.shape[0] == 0:
        raise ValueError(f"{what} must be a K x V matrix with K >= 1, got shape {topics.shape}")
    norms = np.linalg.norm(topics, axis=1)
    bad = np.flatnonzero(~np.isfinite(norms) | ((norms == 0) & (not zero_ok)))
    if len(bad):
        raise ValueError(f"{what}: topic {bad[0]} is all zero or non-finite; its cosine is undefined")
    return topics / np.where(norms > 0, norms, 1.0)[:, None]  # an all-zero row stays zero: cosine 0 with anything


def planted_recovery(fitted_topics, true_topics, threshold: float = RECOVERY_THRESHOLD) -> Recovery:
    """How well fitted topics recover planted ones: cosine similarity after Hungarian matching.

    The cosine matrix between fitted and true topic-word rows (any scale: rows are normalised) is matched
    one-to-one to maximise the total cosine (scipy's ``linear_sum_assignment``). With K_fitted != K_true,
    min(K_fitted, K_true) pairs are matched; ``cosine`` is their mean, ``fraction`` counts true topics whose
    match reaches ``threshold``, over all K_true (an unmatched true topic is not recovered). An all-zero fitted
    topic (LG-NMF keeps unused columns at zero) has cosine 0 with every true topic: it recovers nothing. An
    all-zero true topic is an error.
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"recovery threshold must lie in (0, 1], got {threshold}")
    fitted = _unit_rows(fitted_topics, "fitted topics", zero_ok=True)
    truth = _unit_rows(true_topics, "true topics", zero_ok=False)
    if fitted.shape[1] != truth.shape[1]:
        raise ValueError(f"fitted topics have {fitted.shape[1]} words, true topics {truth.shape[1]}: "
                         "vocabularies differ")
    cosine = fitted @ truth.T
    rows, cols = linear_sum_assignment(cosine, maximize=True)
    matched = np.full(truth.shape[0], np.nan)
    matched[cols] = cosine[rows, cols]
    return Recovery(float(cosine[rows, cols].mean()), float(np.sum(matched >= threshold) / truth.shape[0]), matched)


def final_checkpoint_quality(method, reference_counts, truth_topics=None, npmi_words: int = NPMI_TOP_WORDS,
                             diversity_words: int = DIVERSITY_TOP_WORDS) -> dict[str, float]:
    """The quality columns of a run's final checkpoint row: ``npmi``, ``topic_diversity``, ``recovery_cosine``,
    ``recovery_frac_090`` (NaN without planted truth).

    ``reference_counts`` is the NPMI reference corpus; the runner passes the held-out test split's counts (all of
    its tokens, not only the observed halves), so coherence is measured on documents no method trained on. Top
    words are column ids shared by the method's topics and the reference, so no vocabulary is needed.
    ``truth_topics`` is a synthetic corpus's planted K x V topic matrix (``corpus.truth["topics"]``).
    """
    topics = np.asarray(method.topics(), dtype=np.float64)
    reference = _check_reference(reference_counts)
    if topics.ndim != 2 or topics.shape[1] != reference.shape[1]:
        raise ValueError(f"{getattr(method, 'name', method)}: topics of shape {topics.shape} do not match the "
                         f"reference vocabulary of {reference.shape[1]} words")
    top = top_words(topics, max(npmi_words, diversity_words))
    row = {"npmi": npmi_coherence(top, reference, n=npmi_words).mean,
           "topic_diversity": topic_diversity(top, n=diversity_words),
           "recovery_cosine": float("nan"), "recovery_frac_090": float("nan")}
    if truth_topics is not None:
        recovery = planted_recovery(topics, truth_topics, threshold=0.9)
        row.update(recovery_cosine=recovery.cosine, recovery_frac_090=recovery.fraction)
    return row


__all__ = ["Coherence", "Recovery", "top_words", "co_document_counts", "npmi_coherence", "topic_diversity",
           "planted_recovery", "final_checkpoint_quality", "GENSIM_EPSILON"]
