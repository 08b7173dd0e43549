"""NYT-like planted-topic corpus: the embedded default, needing no external data."""
import numpy as np

from topicbench.dataset import Dataset
from topicbench.synthetic import build_planted_corpus


class NYTLike(Dataset):
    name = "nyt_like"
    description = "Synthetic stand-in for the NYT corpus: V=8000, 175-300 tokens per article, planted LDA topics"
    synthetic = True
    params = {"n_train": 20000, "n_test": 1000, "n_words": 8000, "n_topics": 100, "topic_concentration": 0.01,
              "doc_alpha": 0.1, "min_length": 175, "max_length": 300, "seed": 1}

    def build(self, corpora_dir=None, **p):
        def lengths(rng, n):
            return rng.integers(p["min_length"], p["max_length"] + 1, size=n)

        return build_planted_corpus(self.name, p["n_train"], p["n_test"], p["n_words"], p["n_topics"],
                                    p["topic_concentration"], p["doc_alpha"], lengths, p["seed"],
                                    description=self.description)
