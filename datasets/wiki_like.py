"""Wikipedia-like planted corpus: V=7700 (Hoffman's vocabulary size) and widely spread article lengths."""
import numpy as np

from topicbench.synthetic import PlantedDataset, PlantedRecipe, linear_clock


class WikiLike(PlantedDataset):
    name = "wiki_like"
    description = ("Synthetic stand-in for Hoffman's random Wikipedia articles: V=7700, log-normal lengths "
                   "(mean 300, sigma 1: stubs to 5,000+ tokens), planted LDA topics")
    params = {"n_train": 10000, "n_test": 1000, "n_words": 7700, "n_topics": 100, "topic_concentration": 0.01,
              "doc_alpha": 0.1, "mean_length": 300.0, "length_sigma": 1.0, "min_length": 5, "seed": 1, "chunk_size": 5000}

    def recipe(self, **p):
        mu = np.log(p["mean_length"]) - p["length_sigma"] ** 2 / 2  # so that E[length] = mean_length

        def lengths(rng, n):
            return np.maximum(np.rint(rng.lognormal(mu, p["length_sigma"], size=n)), p["min_length"]).astype(np.int64)

        n_docs = p["n_train"] + p["n_test"]
        return PlantedRecipe(self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"], p["topic_concentration"],
                             p["doc_alpha"], lengths, p["seed"], p["chunk_size"], time_of=linear_clock(2000.0, 10.0, n_docs),
                             description=self.description, time_unit="decimal year (synthetic clock, generation order)",
                             generator_extra={"lengths": f"max(round(lognormal(mean {p['mean_length']}, sigma "
                                                         f"{p['length_sigma']})), {p['min_length']})"})
