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
    theta: np.ndarray | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Draw documents of the given lengths; returns counts (CSR) and the true theta.

    ``doc_alpha`` may be a (n_docs x K) array to let topic prevalence drift over time; a given
    ``theta`` (n_docs x K, rows summing to one) replaces the Dirichlet draw (semi-synthetic corpora).
    """
    n_docs = len(lengths)
    if theta is None:
        alpha = model.doc_alpha if doc_alpha is None else doc_alpha
        alpha = np.broadcast_to(alpha, (n_docs, model.n_topics))
        theta = rng.gamma(alpha)
        # a row whose draws are all subnormal (alpha ~1e-4) is scaled up exactly (a power of two) before it is
        # normalised: divided by the 1e-300 floor it would keep a sum far from one and pass for a live row
        theta[theta.sum(axis=1) < np.finfo(np.float64).tiny] *= 2.0 ** 600
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
    theta_sampler: Callable[[np.random.Generator, np.ndarray], np.ndarray] | None = None,
) -> Iterator[tuple[int, sp.csr_matrix, np.ndarray]]:
    """Yield (first_doc, counts, theta) chunks; ``alpha_at(doc_indices)`` lets prevalence drift;
    ``theta_sampler(rng, doc_indices)`` replaces the Dirichlet proportions (semi-synthetic corpora)."""
    for chunk, start in enumerate(range(0, n_docs, chunk_size)):
        stop = min(start + chunk_size, n_docs)
        rng = np.random.default_rng([seed, 1, chunk])
        lengths = np.maximum(length_sampler(rng, stop - start).astype(np.int64), 1)
        doc_alpha = None if alpha_at is None else alpha_at(np.arange(start, stop))
        theta = None if theta_sampler is None else theta_sampler(rng, np.arange(start, stop))
        counts, theta = sample_documents(model, lengths, rng, doc_alpha, theta)
        yield start, counts, theta


def oracle_loglik_per_word(theta: np.ndarray, topics: np.ndarray, heldout: sp.csr_matrix) -> float:
    """Per-word log likelihood of held-out tokens under the true theta and topics (the floor no fit beats)."""
    heldout = sp.csr_matrix(heldout)
    probs = np.empty(heldout.nnz)
    for start in range(0, heldout.shape[0], 256):  # in blocks: (tokens x K) temporaries stay small
        block = heldout[start:start + 256]
        rows = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
        lo, hi = heldout.indptr[start], heldout.indptr[min(start + 256, heldout.shape[0])]
        probs[lo:hi] = np.einsum("nk,kn->n", theta[start:start + 256][rows], topics[:, block.indices])
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


@dataclass
class PlantedRecipe:
    """Everything that determines a planted corpus; the in-memory and the streaming builders share it.

    ``alpha_at(doc_indices) -> (n x K)`` lets topic prevalence drift or burst over time;
    ``time_of(doc_indices)`` gives each document a sortable time. ``split_layout`` "tail" puts the
    test documents after the training ones; "interleaved" spreads exactly n_test of them evenly
    through the stream, so a drifting corpus is tested over its whole time span.
    """

    name: str
    n_train: int
    n_test: int
    n_words: int
    n_topics: int
    topic_concentration: float
    doc_alpha: float
    length_sampler: Callable[[np.random.Generator, int], np.ndarray]
    seed: int
    chunk_size: int = 5000
    observed_fraction: float = 0.5
    alpha_at: Callable[[np.ndarray], np.ndarray] | None = None
    time_of: Callable[[np.ndarray], np.ndarray] | None = None
    split_layout: str = "tail"
    description: str = ""
    generator_extra: dict | None = None  # recipe settings recorded in corpus.json
    time_unit: str | None = None

    @property
    def n_docs(self) -> int:
        return self.n_train + self.n_test

    def check(self) -> None:
        from .corpus import CorpusError

        for key in ("n_train", "n_words", "n_topics", "chunk_size"):
            if int(getattr(self, key)) < 1:
                raise CorpusError(f"{self.name}: {key} must be >= 1, got {getattr(self, key)}")
        if self.n_test < 0:
            raise CorpusError(f"{self.name}: n_test must be >= 0, got {self.n_test}")
        if self.topic_concentration <= 0 or self.doc_alpha <= 0:
            raise CorpusError(f"{self.name}: topic_concentration and doc_alpha must be positive")
        if self.split_layout not in ("tail", "interleaved"):
            raise CorpusError(f"{self.name}: split_layout must be 'tail' or 'interleaved', got {self.split_layout!r}")

    def is_test(self, doc_indices: np.ndarray) -> np.ndarray:
        doc_indices = np.asarray(doc_indices, dtype=np.int64)
        if self.split_layout == "tail":
            return doc_indices >= self.n_train
        # exactly n_test documents, evenly spaced: doc i is test when floor((i+1) n_test / D) steps up
        n_docs, n_test = self.n_docs, self.n_test
        return (doc_indices + 1) * n_test // n_docs > doc_indices * n_test // n_docs

    def model(self) -> PlantedModel:
        topics = planted_topics(self.n_topics, self.n_words, self.topic_concentration, self.seed)
        return PlantedModel(topics, np.full(self.n_topics, self.doc_alpha))

    def chunks(self, model: PlantedModel):
        return generate_chunks(model, self.n_docs, self.length_sampler, self.seed, self.chunk_size, self.alpha_at)

    def vocabulary(self, topics: np.ndarray) -> list[str]:
        """The words of the corpus (subclasses with real words override this)."""
        return word_names(topics)

    def truth_extra(self) -> dict:
        """Planted parameters stored in truth.npz beside topics and theta (e.g. a correlation matrix)."""
        return {}

    def base_meta(self) -> dict:
        generator = {"n_topics": self.n_topics, "topic_concentration": self.topic_concentration,
                     "doc_alpha": self.doc_alpha, "seed": self.seed, "chunk_size": self.chunk_size}
        if self.split_layout != "tail":
            generator["split_layout"] = self.split_layout
        generator.update(self.generator_extra or {})
        meta = {"name": self.name, "source": "synthetic (planted LDA)", "description": self.description,
                "generator": generator}
        if self.time_unit:
            meta["time_unit"] = self.time_unit
        return meta

    def reference_perplexity(self, topics, test_counts, test_theta, train_column_sums) -> dict:
        """Perplexities of the true model and of the word-frequency model on the test split's held-out part."""
        from .evaluate import Unigram, loglik_sum, scored_documents, split_documents

        observed, heldout = split_documents(test_counts, self.observed_fraction, 0)
        scored = scored_documents([(observed, heldout)])
        out = {"protocol": f"document completion, observed fraction {self.observed_fraction}, eval seed 0",
               "heldout_docs": scored, "heldout_unscored": int(test_counts.shape[0]) - scored}
        if not heldout.nnz:  # every test document too short to complete (one token): nothing to score, no 0/0
            return {**out, "true_model": None, "word_frequency": None,
                    "why": "no test document has both an observed and a held-out token"}
        truth_ll = oracle_loglik_per_word(test_theta, topics, heldout)
        unigram = Unigram(train_column_sums)
        uni_total, uni_tokens = loglik_sum(unigram, observed, heldout)
        return {**out, "true_model": float(np.exp(-truth_ll)), "word_frequency": float(np.exp(-uni_total / uni_tokens))}


def build_recipe(recipe: PlantedRecipe):
    """The planted corpus in memory (fine up to a few hundred thousand documents)."""
    from .corpus import Corpus, make_docs_frame

    recipe.check()
    model = recipe.model()
    parts, thetas = [], []
    for _, counts, theta in recipe.chunks(model):
        parts.append(counts)
        thetas.append(theta)
    counts = sp.vstack(parts, format="csr")
    theta = np.vstack(thetas)
    rows = np.arange(recipe.n_docs)
    test = recipe.is_test(rows)
    split = np.where(test, "test", "train")
    time = None if recipe.time_of is None else recipe.time_of(rows)
    docs = make_docs_frame(recipe.n_docs, split=split, time=time)
    meta = recipe.base_meta()
    if test.any():
        train_sums = sp.csr_matrix(counts[~test].sum(axis=0))
        meta["reference_perplexity"] = recipe.reference_perplexity(model.topics, counts[test], theta[test], train_sums)
    return Corpus(counts, recipe.vocabulary(model.topics), docs, meta,
                  {"topics": model.topics, "theta": theta, **recipe.truth_extra()})


def build_planted_corpus(name: str, n_train: int, n_test: int, n_words: int, n_topics: int,
                         topic_concentration: float, doc_alpha: float, length_sampler, seed: int,
                         chunk_size: int = 5000, observed_fraction: float = 0.5, alpha_at=None,
                         time_of=None, description: str = "", **recipe_options):
    """A planted LDA corpus (train then test documents), with truth and its reference perplexities.

    corpus.json records the perplexity of the true model (true theta and topics) and of the
    word-frequency model on the test split's document-completion held-out part; DESIGN.md requires
    the two to be far apart, or the corpus cannot tell a learner from a unigram model.
    """
    return build_recipe(PlantedRecipe(name, n_train, n_test, n_words, n_topics, topic_concentration, doc_alpha,
                                      length_sampler, seed, chunk_size, observed_fraction, alpha_at, time_of,
                                      description=description, **recipe_options))


# ---------------------------------------------------------------------------------------------
# streaming writer: paper-scale corpora with bounded memory


def write_recipe(recipe: PlantedRecipe, out_dir, extra_meta: dict | None = None, shard_rows: int | None = None):
    """Write the corpus directory of ``build_recipe(recipe)`` + ``save_corpus`` without holding it in memory.

    Chunks go straight through ``corpus.CorpusWriter`` (the writer of every corpus), so peak memory is one
    chunk plus the test split (kept for the reference perplexities) and 8 bytes per document (id hashes).
    The files are byte-identical to the in-memory path (tested), so either may be used.
    """
    from pathlib import Path

    from .corpus import SHARD_ROWS, CorpusWriter, holds_only_corpus_files, is_corpus_dir, make_docs_frame
    from .io import atomic_directory

    recipe.check()
    out_dir = Path(out_dir)
    with atomic_directory(out_dir, complete=is_corpus_dir, ours=holds_only_corpus_files) as staging:
        model = recipe.model()
        writer = CorpusWriter(staging, recipe.n_words, str(out_dir), shard_rows or SHARD_ROWS)
        train_sums = np.zeros(recipe.n_words, dtype=np.int64)
        test_parts, test_thetas = [], []
        for start, counts, theta in recipe.chunks(model):
            rows = np.arange(start, start + counts.shape[0])
            test = recipe.is_test(rows)
            docs = make_docs_frame(len(rows), split=np.where(test, "test", "train"), doc_id=[f"d{i}" for i in rows],
                                   time=None if recipe.time_of is None else recipe.time_of(rows))
            writer.append(counts, docs, theta)
            train_sums += np.asarray(counts[~test].sum(axis=0)).ravel()
            if test.any():
                test_parts.append(counts[test])
                test_thetas.append(theta[test])
        meta = recipe.base_meta()
        if test_parts:
            meta["reference_perplexity"] = recipe.reference_perplexity(
                model.topics, sp.vstack(test_parts, format="csr"), np.vstack(test_thetas),
                sp.csr_matrix(train_sums[None, :]))
        meta.update(extra_meta or {})
        truth = {"topics": model.topics, **recipe.truth_extra()}  # theta streamed after topics, as in build_recipe
        writer.finish(recipe.vocabulary(model.topics), meta, truth)
    return out_dir


# ---------------------------------------------------------------------------------------------
# the synthetic family's shared pieces: clocks, drifting and bursty prevalence, the plugin base


def linear_clock(start: float, span: float, n_docs: int) -> Callable[[np.ndarray], np.ndarray]:
    """Documents evenly spaced in generation order over [start, start + span) (decimal years)."""
    return lambda rows: start + span * (np.asarray(rows, dtype=np.float64) / n_docs)


def slice_of(rows: np.ndarray, n_docs: int, n_slices: int) -> np.ndarray:
    return np.asarray(rows, dtype=np.int64) * n_slices // n_docs


def drifting_prevalence(n_topics: int, n_slices: int, step: float, seed: int) -> np.ndarray:
    """n_slices x K topic proportions whose log-odds follow a Gaussian random walk (step = its s.d.)."""
    rng = np.random.default_rng([seed, 0xD81F7])
    logits = np.cumsum(rng.normal(0.0, step, size=(n_slices, n_topics)), axis=0)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return weights / weights.sum(axis=1, keepdims=True)


def bursty_prevalence(n_topics: int, n_slices: int, burst_fraction: float, burst_slices: int,
                      burst_height: float, quiet_level: float, seed: int) -> np.ndarray:
    """n_slices x K topic proportions where a fraction of topics are quiet except for one short burst."""
    rng = np.random.default_rng([seed, 0xB0257])
    weights = np.ones((n_slices, n_topics))
    n_bursty = int(round(burst_fraction * n_topics))
    bursty = rng.permutation(n_topics)[:n_bursty]
    starts = rng.integers(0, n_slices - burst_slices + 1, size=n_bursty)  # the last burst may end on the last slice
    for k, start in zip(bursty, starts):
        weights[:, k] = quiet_level
        weights[start:start + burst_slices, k] = burst_height
    return weights / weights.sum(axis=1, keepdims=True)


def prevalence_alpha(prevalence: np.ndarray, doc_alpha: float, n_docs: int) -> Callable[[np.ndarray], np.ndarray]:
    """Dirichlet parameters for documents: total concentration K * doc_alpha, split by the slice's prevalence."""
    n_slices, n_topics = prevalence.shape
    return lambda rows: doc_alpha * n_topics * prevalence[slice_of(rows, n_docs, n_slices)]


def _dataset_base():
    from .dataset import Dataset

    return Dataset


class PlantedDataset(_dataset_base()):
    """Base of the synthetic family in ``datasets/``: a subclass defines ``recipe(**params)``.

    ``build`` returns the corpus in memory; ``write`` (used by ``topicbench prepare``) streams it to
    disk with bounded memory. Both give the same bytes.
    """

    synthetic = True

    def recipe(self, **params) -> PlantedRecipe:
        raise NotImplementedError

    def build(self, corpora_dir=None, **params):
        return build_recipe(self.recipe(**params))

    def write(self, out_dir, corpora_dir=None, corpus_name=None, extra_meta=None, **params):
        extra = {"dataset_recipe": self.name, "dataset_params": params,
                 **({"name": corpus_name} if corpus_name else {}), **(extra_meta or {})}
        return write_recipe(self.recipe(**params), out_dir, extra_meta=extra)


# ---------------------------------------------------------------------------------------------
# correlated topic proportions (the logistic normal of the CTM, Paisley et al. 2014, eqs. 11.10-11.12)


def logistic_normal_corpus(n_docs: int, n_words: int, covariance: np.ndarray, topic_concentration: float,
                           mean_length: float, seed: int, mean: np.ndarray | None = None):
    """Documents with correlated topics: theta_d = softmax(y_d), y_d ~ N(mean, covariance) (logistic normal),
    topics ~ Dirichlet(topic_concentration), Poisson(mean_length) tokens (at least one) drawn from theta_d' B.

    The model C-NMF approximates (eqs. 11.10-11.13, with L'L = covariance): a planted covariance with
    clear positive and negative correlations is what eq. 11.36's read-out should recover. Returns
    (counts CSR, topics K x V, theta n_docs x K).
    """
    covariance = np.asarray(covariance, dtype=np.float64)
    n_topics = covariance.shape[0]
    if covariance.shape != (n_topics, n_topics) or not np.allclose(covariance, covariance.T):
        raise ValueError(f"covariance must be a symmetric K x K matrix, got shape {covariance.shape}")
    if np.linalg.eigvalsh(covariance).min() < -1e-10 * np.abs(covariance).max():
        raise ValueError("covariance must be positive semi-definite")
    if not (topic_concentration > 0 and mean_length > 0):
        raise ValueError(f"topic_concentration and mean_length must be > 0, got {topic_concentration}, {mean_length}")
    rng = np.random.default_rng([seed, 0x10C])
    topics = planted_topics(n_topics, n_words, topic_concentration, seed)
    y = rng.multivariate_normal(np.zeros(n_topics) if mean is None else mean, covariance, size=n_docs)
    theta = np.exp(y - y.max(axis=1, keepdims=True))
    theta /= theta.sum(axis=1, keepdims=True)
    lengths = np.maximum(rng.poisson(mean_length, size=n_docs), 1)
    probs = theta @ topics  # p(w | d), z marginalised
    rows = [sp.csr_matrix(rng.multinomial(n, p / p.sum())) for n, p in zip(lengths, probs)]
    return sp.vstack(rows, format="csr"), topics, theta
