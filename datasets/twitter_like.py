"""Twitter-like planted corpus: a large vocabulary, 2-20 tokens per tweet, time-ordered, with bursty topics."""
from topicbench.synthetic import PlantedDataset, PlantedRecipe, bursty_prevalence, linear_clock, prevalence_alpha


class TwitterLike(PlantedDataset):
    name = "twitter_like"
    description = ("Synthetic stand-in for McInerney et al.'s tweet stream: V=20000, 2-20 tokens per tweet, "
                   "time-ordered over a quarter year, 30% of topics quiet except one short burst")
    params = {"n_train": 100000, "n_test": 5000, "n_words": 20000, "n_topics": 100, "topic_concentration": 0.01,
              "doc_alpha": 0.05, "min_length": 2, "max_length": 20, "n_slices": 200, "burst_fraction": 0.3,
              "burst_slices": 10, "burst_height": 20.0, "quiet_level": 0.02, "start_year": 2011.0, "span_years": 0.25,
              "seed": 1, "chunk_size": 20000}

    def recipe(self, **p):
        def lengths(rng, n):
            return rng.integers(p["min_length"], p["max_length"] + 1, size=n)

        n_docs = p["n_train"] + p["n_test"]
        prevalence = bursty_prevalence(p["n_topics"], p["n_slices"], p["burst_fraction"], p["burst_slices"],
                                       p["burst_height"], p["quiet_level"], p["seed"])
        return PlantedRecipe(self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"], p["topic_concentration"],
                             p["doc_alpha"], lengths, p["seed"], p["chunk_size"],
                             alpha_at=prevalence_alpha(prevalence, p["doc_alpha"], n_docs),
                             time_of=linear_clock(p["start_year"], p["span_years"], n_docs),
                             split_layout="interleaved", description=self.description,
                             time_unit="decimal year (synthetic clock, generation order)",
                             generator_extra={"lengths": f"uniform integers in [{p['min_length']}, {p['max_length']}]",
                                              "prevalence": f"{p['burst_fraction']:.0%} of topics bursty: weight "
                                                            f"{p['burst_height']} for {p['burst_slices']} of {p['n_slices']} "
                                                            f"slices, {p['quiet_level']} otherwise"})
