"""Science-like planted corpus: long articles whose topic prevalence drifts over ~100 yearly slices."""
from topicbench.synthetic import PlantedDataset, PlantedRecipe, drifting_prevalence, linear_clock, prevalence_alpha


class ScienceLike(PlantedDataset):
    name = "science_like"
    description = ("Synthetic stand-in for a century of Science articles: V=5855, long documents (500-1500 tokens), topic "
                   "prevalence drifting over 100 yearly slices; test documents spread over the whole span")
    params = {"n_train": 5000, "n_test": 500, "n_words": 5855, "n_topics": 100, "topic_concentration": 0.01,
              "doc_alpha": 0.1, "min_length": 500, "max_length": 1500, "n_slices": 100, "drift_step": 0.3,
              "start_year": 1900.0, "seed": 1, "chunk_size": 2000}

    def recipe(self, **p):
        def lengths(rng, n):
            return rng.integers(p["min_length"], p["max_length"] + 1, size=n)

        n_docs = p["n_train"] + p["n_test"]
        prevalence = drifting_prevalence(p["n_topics"], p["n_slices"], p["drift_step"], p["seed"])
        return PlantedRecipe(self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"], p["topic_concentration"],
                             p["doc_alpha"], lengths, p["seed"], p["chunk_size"],
                             alpha_at=prevalence_alpha(prevalence, p["doc_alpha"], n_docs),
                             time_of=linear_clock(p["start_year"], float(p["n_slices"]), n_docs),
                             split_layout="interleaved", description=self.description,
                             time_unit="decimal year (synthetic; slice = floor(time - start_year))",
                             generator_extra={"lengths": f"uniform integers in [{p['min_length']}, {p['max_length']}]",
                                              "prevalence": f"log-odds random walk, step s.d. {p['drift_step']}, "
                                                            f"{p['n_slices']} slices"})
