"""Planted-topic corpora, generated in chunks so that paper-scale sizes fit in memory.

The generative model is LDA (Blei et al. 2003): topics beta_k ~ Dirichlet(topic_concentration),
theta_d ~ Dirichlet(doc_alpha), tokens z ~ theta_d, w ~ beta_z. DESIGN.md ("Corpus") explains
why the topics must be peaked (Dirichlet(0.01), no shared background): with flat topics one
online pass learns nothing and agreement between methods proves nothing.

Every chunk draws from its own generator seeded by (seed, chunk index), so a corpus is
byte-identical for a given seed and chunk size however it is consumed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import scipy.sparse as sp


@dataclass
class PlantedModel:
    topics: np.ndarray  # K x V, rows sum to one
    doc_alpha: np.ndarray  # K, Dirichlet parameter of theta

    @property
    def n_topics(self) -> int:
        return self.topics.shape[0]


def planted_topics(n_topics: int, n_words: int, concentration: float, seed: int) -> np.ndarray:
    """K x V topics from Dirichlet(concentration); tiny floors keep every word reachable."""
    rng = np.random.default_rng([seed, 0xB7A])
    topics = rng.dirichlet(np.full(n_words, concentration), size=n_topics)
    topics = np.maximum(topics, 1e-12)
    return topics / topics.sum(axis=1, keepdims=True)


def sample_documents(
    model: PlantedModel,
    lengths: np.ndarray,
    rng: np.random.Generator,
    doc_alpha: np.ndarray | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Draw documents of the given lengths; returns counts (CSR) and the true theta.

    ``doc_alpha`` may be a (n_docs x K) array to let topic prevalence drift over time.
    """
    n_docs = len(lengths)
    alpha = model.doc_alpha if doc_alpha is None else doc_alpha
    alpha = np.broadcast_to(alpha, (n_docs, model.n_topics))
    theta = rng.gamma(alpha)
    theta /= np.maximum(theta.sum(axis=1, keepdims=True), 1e-300)
    # rows whose gamma draws all underflowed get one topic at random
    dead = ~np.isfinite(theta).all(axis=1) | (theta.sum(axis=1) == 0)
    if dead.any():
        theta[dead] = np.eye(model.n_topics)[rng.integers(model.n_topics, size=int(dead.sum()))]
    topic_counts = rng.multinomial(lengths, theta)  # n_docs x K
    cdf = np.cumsum(model.topics, axis=1)
    cdf[:, -1] = 1.0
    rows, cols = [], []
    doc_index = np.arange(n_docs)
    for k in range(model.n_topics):
        n_k = topic_counts[:, k]
        total = int(n_k.sum())
        if total == 0:
            continue
        rows.append(np.repeat(doc_index, n_k))
        cols.append(np.searchsorted(cdf[k], rng.random(total), side="right"))
    rows = np.concatenate(rows)
    cols = np.minimum(np.concatenate(cols), model.topics.shape[1] - 1)
    counts = sp.csr_matrix(
        (np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(n_docs, model.topics.shape[1]), dtype=np.int32
    )
    counts.sum_duplicates()
    return counts, theta


def generate_chunks(
    model: PlantedModel,
    n_docs: int,
    length_sampler: Callable[[np.random.Generator, int], np.ndarray],
    seed: int,
    chunk_size: int = 5000,
    alpha_at: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Iterator[tuple[int, sp.csr_matrix, np.ndarray]]:
    """Yield (first_doc, counts, theta) chunks; ``alpha_at(doc_indices)`` lets prevalence drift."""
    for chunk, start in enumerate(range(0, n_docs, chunk_size)):
        stop = min(start + chunk_size, n_docs)
        rng = np.random.default_rng([seed, 1, chunk])
        lengths = np.maximum(length_sampler(rng, stop - start).astype(np.int64), 1)
        doc_alpha = None if alpha_at is None else alpha_at(np.arange(start, stop))
        counts, theta = sample_documents(model, lengths, rng, doc_alpha)
        yield start, counts, theta


def oracle_loglik_per_word(theta: np.ndarray, topics: np.ndarray, heldout: sp.csr_matrix) -> float:
    """Per-word log likelihood of held-out tokens under the true theta and topics (the floor no fit beats)."""
    heldout = sp.csr_matrix(heldout)
    rows = np.repeat(np.arange(heldout.shape[0]), np.diff(heldout.indptr))
    probs = np.einsum("nk,kn->n", theta[rows], topics[:, heldout.indices])
    return float((heldout.data * np.log(probs)).sum() / heldout.data.sum())


def word_names(topics: np.ndarray) -> list[str]:
    """Readable synthetic words: ``t012w003`` is the 3rd most probable word of planted topic 12,
    so a fitted topic table shows at a glance whether a planted topic was recovered."""
    n_topics, n_words = topics.shape
    owner = topics.argmax(axis=0)
    names = [""] * n_words
    for k in range(n_topics):
        members = np.flatnonzero(owner == k)
        for rank, w in enumerate(members[np.argsort(-topics[k, members], kind="stable")]):
            names[w] = f"t{k:03d}w{rank:03d}"
    return names


def build_planted_corpus(name: str, n_train: int, n_test: int, n_words: int, n_topics: int,
                         topic_concentration: float, doc_alpha: float, length_sampler, seed: int,
                         chunk_size: int = 5000, observed_fraction: float = 0.5, alpha_at=None,
                         time_of=None, description: str = ""):
    """A planted LDA corpus (train then test documents), with truth and its reference perplexities.

    corpus.json records the perplexity of the true model (true theta and topics) and of the
    word-frequency model on the test split's document-completion held-out part; DESIGN.md requires
    the two to be far apart, or the corpus cannot tell a learner from a unigram model.
    """
    from .corpus import Corpus, make_docs_frame
    from .evaluate import Unigram, split_documents

    topics = planted_topics(n_topics, n_words, topic_concentration, seed)
    model = PlantedModel(topics, np.full(n_topics, doc_alpha))
    n_docs = n_train + n_test
    parts, thetas = [], []
    for _, counts, theta in generate_chunks(model, n_docs, length_sampler, seed, chunk_size, alpha_at):
        parts.append(counts)
        thetas.append(theta)
    counts = sp.vstack(parts, format="csr")
    theta = np.vstack(thetas)
    split = np.where(np.arange(n_docs) < n_train, "train", "test")
    time = None if time_of is None else time_of(np.arange(n_docs))
    docs = make_docs_frame(n_docs, split=split, time=time)
    test_rows = np.flatnonzero(split == "test")
    meta = {"name": name, "source": "synthetic (planted LDA)", "description": description,
            "generator": {"n_topics": n_topics, "topic_concentration": topic_concentration, "doc_alpha": doc_alpha,
                          "seed": seed, "chunk_size": chunk_size}}
    if len(test_rows):
        observed, heldout = split_documents(counts[test_rows], observed_fraction, 0)
        truth_ll = oracle_loglik_per_word(theta[test_rows], topics, heldout)
        from .evaluate import loglik_sum

        unigram = Unigram(counts[split == "train"])
        uni_total, uni_tokens = loglik_sum(unigram, observed, heldout)
        meta["reference_perplexity"] = {
            "protocol": f"document completion, observed fraction {observed_fraction}, eval seed 0",
            "true_model": float(np.exp(-truth_ll)),
            "word_frequency": float(np.exp(-uni_total / uni_tokens)),
        }
    return Corpus(counts, word_names(topics), docs, meta, {"topics": topics, "theta": theta})
