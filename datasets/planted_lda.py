"""Planted LDA over fake words (``t003w000``): the pre-semi-synthetic recipes, kept for unit tests and ablations.

``like`` picks the shape of one former ``*_like`` recipe, with its former parameters and defaults; the
corpora are byte-identical to what those recipes wrote (Dirichlet(topic_concentration) topics,
Dirichlet(doc_alpha) proportions, independent across topics).
"""
import numpy as np

from topicbench.corpus import CorpusError
from topicbench.synthetic import (PlantedDataset, PlantedRecipe, bursty_prevalence, drifting_prevalence, linear_clock,
                                  prevalence_alpha)

SHAPES = {
    "nyt": {"n_train": 20000, "n_test": 1000, "n_words": 8000, "n_topics": 100, "topic_concentration": 0.01,
            "doc_alpha": 0.1, "min_length": 175, "max_length": 300, "seed": 1, "chunk_size": 5000},
    "wiki": {"n_train": 10000, "n_test": 1000, "n_words": 7700, "n_topics": 100, "topic_concentration": 0.01,
             "doc_alpha": 0.1, "mean_length": 300.0, "length_sigma": 1.0, "min_length": 5, "seed": 1, "chunk_size": 5000},
    "science": {"n_train": 5000, "n_test": 500, "n_words": 5855, "n_topics": 100, "topic_concentration": 0.01,
                "doc_alpha": 0.1, "min_length": 500, "max_length": 1500, "n_slices": 100, "drift_step": 0.3,
                "start_year": 1900.0, "seed": 1, "chunk_size": 2000},
    "twitter": {"n_train": 100000, "n_test": 5000, "n_words": 20000, "n_topics": 100, "topic_concentration": 0.01,
                "doc_alpha": 0.05, "min_length": 2, "max_length": 20, "n_slices": 200, "burst_fraction": 0.3,
                "burst_slices": 10, "burst_height": 20.0, "quiet_level": 0.02, "start_year": 2011.0,
                "span_years": 0.25, "seed": 1, "chunk_size": 20000},
}
DESCRIPTIONS = {
    "nyt": "V=8000, 175-300 tokens per article, planted LDA topics",
    "wiki": "V=7700, log-normal lengths (mean 300, sigma 1: stubs to 5,000+ tokens), planted LDA topics",
    "science": "V=5855, long documents (500-1500 tokens), topic prevalence drifting over 100 yearly slices; test "
               "documents spread over the whole span",
    "twitter": "V=20000, 2-20 tokens per tweet, time-ordered over a quarter year, 30% of topics quiet except one "
               "short burst",
}


def uniform_lengths(p):
    return lambda rng, n: rng.integers(p["min_length"], p["max_length"] + 1, size=n)


class PlantedLDA(PlantedDataset):
    name = "planted_lda"
    description = ("Planted LDA over fake words (t003w000), independent Dirichlet proportions: like=nyt|wiki|science|"
                   "twitter gives the shape (and defaults) of the former *_like recipes")
    params = {"like": "nyt", **SHAPES["nyt"]}

    @classmethod
    def resolve_params(cls, given):
        like = given.get("like", "nyt")
        if like not in SHAPES:
            raise CorpusError(f"dataset {cls.name}: like must be one of {sorted(SHAPES)}, got {like!r}")
        unknown = sorted(set(given) - set(SHAPES[like]) - {"like"})
        if unknown:
            raise CorpusError(f"dataset {cls.name}: unknown parameter(s) {unknown} for like={like}; "
                              f"known: {sorted(SHAPES[like])}")
        typed = {key: cls._typed(key, value, SHAPES[like]) for key, value in given.items() if key != "like"}
        resolved = {"like": like, **SHAPES[like], **typed}
        if resolved["seed"] < 0 or resolved["seed"] >= 2**63:
            raise CorpusError(f"dataset {cls.name}: parameter seed must be a seed in [0, 2**63), got {resolved['seed']}")
        if "max_length" in resolved and not 1 <= resolved["min_length"] <= resolved["max_length"]:
            raise CorpusError(f"dataset {cls.name}: need 1 <= min_length <= max_length, got {resolved['min_length']}, "
                              f"{resolved['max_length']}")
        for key, low, high in (("n_slices", 1, None), ("burst_slices", 1, resolved.get("n_slices")), ("min_length", 1, None),
                               ("mean_length", 0, None), ("length_sigma", 0, None), ("drift_step", 0, None),
                               ("burst_fraction", 0, 1), ("burst_height", 0, None), ("quiet_level", 0, None),
                               ("span_years", 0, None)):
            value = resolved.get(key)  # None: not a parameter of this shape
            if value is None:
                continue
            strict = key in ("mean_length", "burst_height", "quiet_level", "span_years")  # these must be above 0
            if (value <= low if strict else value < low) or (high is not None and value > high):
                bound = f"{'>' if strict else '>='} {low}" + (f" and <= {high}" if high is not None else "")
                raise CorpusError(f"dataset {cls.name}: parameter {key} must be {bound}, got {value}")
        return resolved

    def recipe(self, like, **p):
        n_docs = p["n_train"] + p["n_test"]
        common = dict(description=f"{self.description.split(':')[0]}, like={like}: {DESCRIPTIONS[like]}",
                      time_unit="decimal year (synthetic clock, generation order)")
        args = (self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"], p["topic_concentration"],
                p["doc_alpha"])
        if like == "nyt":
            # exchangeable documents (no drift); the clock only orders them, over the NYT corpus's 1987-2007
            return PlantedRecipe(*args, uniform_lengths(p), p["seed"], p["chunk_size"],
                                 time_of=linear_clock(1987.0, 20.0, n_docs), **common,
                                 generator_extra={"lengths": f"uniform integers in [{p['min_length']}, {p['max_length']}]"})
        if like == "wiki":
            mu = np.log(p["mean_length"]) - p["length_sigma"] ** 2 / 2  # so that E[length] = mean_length

            def lengths(rng, n):
                return np.maximum(np.rint(rng.lognormal(mu, p["length_sigma"], size=n)), p["min_length"]).astype(np.int64)

            return PlantedRecipe(*args, lengths, p["seed"], p["chunk_size"], time_of=linear_clock(2000.0, 10.0, n_docs),
                                 **common, generator_extra={"lengths": f"max(round(lognormal(mean {p['mean_length']}, "
                                                                       f"sigma {p['length_sigma']})), {p['min_length']})"})
        if like == "science":
            prevalence = drifting_prevalence(p["n_topics"], p["n_slices"], p["drift_step"], p["seed"])
            return PlantedRecipe(*args, uniform_lengths(p), p["seed"], p["chunk_size"],
                                 alpha_at=prevalence_alpha(prevalence, p["doc_alpha"], n_docs),
                                 time_of=linear_clock(p["start_year"], float(p["n_slices"]), n_docs),
                                 split_layout="interleaved", **{**common, "time_unit": "decimal year (synthetic; slice "
                                                                                       "= floor(time - start_year))"},
                                 generator_extra={"lengths": f"uniform integers in [{p['min_length']}, {p['max_length']}]",
                                                  "prevalence": f"log-odds random walk, step s.d. {p['drift_step']}, "
                                                                f"{p['n_slices']} slices"})
        prevalence = bursty_prevalence(p["n_topics"], p["n_slices"], p["burst_fraction"], p["burst_slices"],
                                       p["burst_height"], p["quiet_level"], p["seed"])
        return PlantedRecipe(*args, uniform_lengths(p), p["seed"], p["chunk_size"],
                             alpha_at=prevalence_alpha(prevalence, p["doc_alpha"], n_docs),
                             time_of=linear_clock(p["start_year"], p["span_years"], n_docs),
                             split_layout="interleaved", **common,
                             generator_extra={"lengths": f"uniform integers in [{p['min_length']}, {p['max_length']}]",
                                              "prevalence": f"{p['burst_fraction']:.0%} of topics bursty: weight "
                                                            f"{p['burst_height']} for {p['burst_slices']} of "
                                                            f"{p['n_slices']} slices, {p['quiet_level']} otherwise"})
