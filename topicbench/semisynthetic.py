"""Semi-synthetic corpora: real-word topics and correlated, drifting or bursty proportions fitted once on real corpora.

DESIGN.md ("Corpus"): documents are drawn from topics fitted on real corpora, so their words are real
and their truth is known. ``tools/fit_source_models.py`` fitted each source once with the project's
online LDA and stored, in ``topicbench/data/sources/<source>.npz`` (see PROVENANCE.md there):

- ``topics_log``: log E[beta_k] (K x V, float16), topics sorted by prevalence, words by topic mass;
- ``mu``, ``cov``: mean and within-slice covariance of the centred log-ratio eta_d = clr(E[theta_d]), the logistic-normal
  proportions of the correlated topic model (Blei and Lafferty 2007, sec. 2: eta ~ N(mu, Sigma),
  theta = softmax(eta));
- ``slice_means`` (S x K) and ``slice_start``: the mean of eta per time slice, i.e. prevalence drift
  (SOTU, 5-year slices) or bursts (tweets, monthly slices); one slice for undated or exchangeable sources;
- ``length_quantiles``: the source's document-length quantile table.

Generation (per document d in time slice s(d) = floor(d S / D), all from the chunk's generator):
N_d from the length table; eta_d = mu_s(d) + L z, z ~ N(0, I), L L' = Sigma; theta_d = softmax(eta_d);
then LDA's z ~ theta_d, w ~ beta_z (``synthetic.sample_documents``). A ``temperature`` T < 1 sharpens
the topics to beta_kw^(1/T) / sum_v beta_kv^(1/T); each recipe states the T it uses and the
perplexities of its true model and of the word-frequency model (corpus.json ``reference_perplexity``).
Asking for fewer topics keeps the most prevalent ones, and their logistic normal is the marginal of
the source's (a sub-vector of mu, a sub-matrix of Sigma); fewer words keep the most massive ones.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np

from .corpus import CorpusError
from .synthetic import PlantedDataset, PlantedModel, PlantedRecipe, linear_clock

SOURCES = ("nyt", "wiki", "science", "twitter")


@dataclass(frozen=True)
class SourceModel:
    name: str
    topics_log: np.ndarray  # K x V log topic-word probabilities (float16 in the file)
    vocab: tuple[str, ...]
    mu: np.ndarray  # K
    cov: np.ndarray  # K x K
    slice_means: np.ndarray  # S x K
    slice_start: np.ndarray  # S, decimal years (0 for undated sources)
    length_quantiles: np.ndarray  # lengths at probabilities linspace(0, 1, len)
    info: dict = field(default_factory=dict)

    @property
    def n_topics(self) -> int:
        return self.topics_log.shape[0]

    @property
    def n_words(self) -> int:
        return self.topics_log.shape[1]


@lru_cache(maxsize=None)
def load_source(name: str) -> SourceModel:
    """The fitted source model shipped as package data (no corpora needed)."""
    if name not in SOURCES:
        raise CorpusError(f"unknown semi-synthetic source {name!r}; available: {list(SOURCES)}")
    path = resources.files("topicbench") / "data" / "sources" / f"{name}.npz"
    with resources.as_file(path) as file, np.load(file, allow_pickle=False) as z:
        return SourceModel(name, z["topics_log"].astype(np.float64), tuple(str(w) for w in z["vocab"]),
                           z["mu"].astype(np.float64), z["cov"].astype(np.float64),
                           z["slice_means"].astype(np.float64), z["slice_start"], z["length_quantiles"].astype(np.float64),
                           json.loads(str(z["info"])))


def sharpen(topics_log: np.ndarray, temperature: float) -> np.ndarray:
    """beta^(1/T), renormalised (T = 1 leaves the fitted topics as they are)."""
    scaled = topics_log / temperature
    scaled -= scaled.max(axis=1, keepdims=True)
    topics = np.exp(scaled)
    return topics / topics.sum(axis=1, keepdims=True)


def correlation(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.diag(cov))
    return cov / np.outer(sd, sd)


def matrix_root(cov: np.ndarray) -> np.ndarray:
    """L with L L' = cov, from the eigendecomposition: the centred log-ratio covariance is singular (rank K-1)."""
    values, vectors = np.linalg.eigh(cov)
    return vectors * np.sqrt(np.clip(values, 0.0, None))


def logistic_normal(rng: np.random.Generator, means: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """theta = softmax(eta), eta ~ N(means[d], L L') (Blei and Lafferty 2007, sec. 2); means is n x K."""
    eta = means + rng.standard_normal(means.shape) @ chol.T
    eta -= eta.max(axis=1, keepdims=True)
    theta = np.exp(eta)
    return theta / theta.sum(axis=1, keepdims=True)


@dataclass
class SemiSyntheticRecipe(PlantedRecipe):
    """A :class:`PlantedRecipe` whose topics, vocabulary and proportions come from a fitted source model.

    ``topic_concentration`` and ``doc_alpha`` of the base are unused (NaN): there is no Dirichlet here.
    """

    source: SourceModel | None = None
    temperature: float = 1.0

    def check(self) -> None:
        super().check()
        src = self.source
        if not 1 <= self.n_topics <= src.n_topics:
            raise CorpusError(f"{self.name}: n_topics must be in [1, {src.n_topics}] (the {src.name} source's K), "
                              f"got {self.n_topics}")
        if not 2 <= self.n_words <= src.n_words:
            raise CorpusError(f"{self.name}: n_words must be in [2, {src.n_words}] (the {src.name} source's "
                              f"vocabulary), got {self.n_words}")
        if not self.temperature > 0:
            raise CorpusError(f"{self.name}: temperature must be positive, got {self.temperature}")

    # the planted parameters: the first n_topics topics (most prevalent) over the first n_words words (most massive)
    def _cached(self):
        key = (self.n_topics, self.n_words, self.temperature)
        if getattr(self, "_cache_key", None) != key:
            src, K = self.source, self.n_topics
            cov = src.cov[:K, :K]
            # softmax(eta / T) sharpens the proportions as beta^(1/T) does the topics: eta / T is logistic normal
            # with mean mu / T and covariance Sigma / T^2, so the correlations and the drift pattern are unchanged
            self._cache = {"topics": sharpen(src.topics_log[:K, : self.n_words], self.temperature),
                           "chol": matrix_root(cov) / self.temperature,
                           "slice_means": src.slice_means[:, :K] / self.temperature, "correlation": correlation(cov)}
            self._cache_key = key
        return self._cache

    def model(self) -> PlantedModel:
        return PlantedModel(self._cached()["topics"], np.full(self.n_topics, np.nan))

    def draw_theta(self, rng: np.random.Generator, rows: np.ndarray) -> np.ndarray:
        means = self._cached()["slice_means"]
        slices = np.asarray(rows, dtype=np.int64) * len(means) // self.n_docs
        return logistic_normal(rng, means[slices], self._cached()["chol"])

    def chunks(self, model: PlantedModel):
        from .synthetic import generate_chunks

        return generate_chunks(model, self.n_docs, self.length_sampler, self.seed, self.chunk_size,
                               theta_sampler=self.draw_theta)

    def vocabulary(self, topics: np.ndarray) -> list[str]:
        return list(self.source.vocab[: self.n_words])

    def truth_extra(self) -> dict:
        cached = self._cached()
        return {"correlation": cached["correlation"], "slice_means": cached["slice_means"]}

    def base_meta(self) -> dict:
        info = self.source.info
        generator = {"n_topics": self.n_topics, "n_words": self.n_words, "temperature": self.temperature,
                     "seed": self.seed, "chunk_size": self.chunk_size, "split_layout": self.split_layout,
                     "n_slices": int(len(self.source.slice_means)),
                     "proportions": "logistic normal: eta ~ N(mu_slice, Sigma), theta = softmax(eta)",
                     "source_model": {k: info.get(k) for k in ("dataset", "dataset_params", "K", "fit", "slice_years")}}
        generator.update(self.generator_extra or {})
        meta = {"name": self.name, "description": self.description, "generator": generator,
                "source": f"semi-synthetic: topics and proportions fitted on {info.get('dataset')} "
                          f"(topicbench/data/sources/{self.source.name}.npz)"}
        if self.time_unit:
            meta["time_unit"] = self.time_unit
        return meta


def quantile_lengths(quantiles: np.ndarray):
    """Inverse-CDF sampling from an empirical quantile table (linear between the stored quantiles)."""
    probs = np.linspace(0.0, 1.0, len(quantiles))
    return lambda rng, n: np.maximum(np.rint(np.interp(rng.random(n), probs, quantiles)), 1).astype(np.int64)


class SemiSyntheticDataset(PlantedDataset):
    """Base of the ``*_like`` recipes: a subclass sets ``source``, ``params``, ``split_layout`` and its clock.

    ``min_length``/``max_length`` None draw lengths from the source's table; both set draw uniform
    integers in [min_length, max_length] (e.g. the long documents of a NIPS stand-in).
    """

    source: str = ""
    split_layout: str = "tail"
    clock: tuple[float, float] | None = None  # (start, span) in decimal years; None: the source's slices
    base_params = {"n_train": 20000, "n_test": 1000, "min_length": None, "max_length": None, "seed": 1,
                   "chunk_size": 5000}
    param_types = {"min_length": (int, type(None)), "max_length": (int, type(None))}

    def recipe(self, **p) -> SemiSyntheticRecipe:
        src = load_source(self.source)
        if (p["min_length"] is None) != (p["max_length"] is None):
            raise CorpusError(f"{self.name}: set both min_length and max_length, or neither (source lengths)")
        if p["min_length"] is None:
            lengths, described = quantile_lengths(src.length_quantiles), f"the {src.info['dataset']} length quantiles"
        else:
            if not 1 <= p["min_length"] <= p["max_length"]:
                raise CorpusError(f"{self.name}: need 1 <= min_length <= max_length, got "
                                  f"{p['min_length']}, {p['max_length']}")
            lo, hi = int(p["min_length"]), int(p["max_length"])
            lengths, described = (lambda rng, n: rng.integers(lo, hi + 1, size=n)), f"uniform integers in [{lo}, {hi}]"
        n_docs = p["n_train"] + p["n_test"]
        if self.clock is not None:
            start, span = self.clock
        else:
            width = src.info["slice_years"]
            start, span = float(src.slice_start[0]), width * len(src.slice_start)
        return SemiSyntheticRecipe(
            self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"], np.nan, np.nan, lengths, p["seed"],
            p["chunk_size"], time_of=linear_clock(start, span, n_docs), split_layout=self.split_layout,
            description=self.description, time_unit="decimal year (synthetic clock, generation order)",
            generator_extra={"lengths": described}, source=src, temperature=float(p["temperature"]))
