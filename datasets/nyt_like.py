"""NYT-like planted-topic corpus: the embedded default, needing no external data."""
from topicbench.synthetic import PlantedDataset, PlantedRecipe, linear_clock


class NYTLike(PlantedDataset):
    name = "nyt_like"
    description = "Synthetic stand-in for the NYT corpus: V=8000, 175-300 tokens per article, planted LDA topics"
    params = {"n_train": 20000, "n_test": 1000, "n_words": 8000, "n_topics": 100, "topic_concentration": 0.01,
              "doc_alpha": 0.1, "min_length": 175, "max_length": 300, "seed": 1, "chunk_size": 5000}

    def recipe(self, **p):
        def lengths(rng, n):
            return rng.integers(p["min_length"], p["max_length"] + 1, size=n)

        n_docs = p["n_train"] + p["n_test"]
        # exchangeable documents (no drift); the clock only orders them, over the NYT corpus's 1987-2007
        return PlantedRecipe(self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"], p["topic_concentration"],
                             p["doc_alpha"], lengths, p["seed"], p["chunk_size"], time_of=linear_clock(1987.0, 20.0, n_docs),
                             description=self.description, time_unit="decimal year (synthetic clock, generation order)",
                             generator_extra={"lengths": f"uniform integers in [{p['min_length']}, {p['max_length']}]"})
