"""Lee background corpus (gensim test data): a tiny news smoke test."""
import pandas as pd

from topicbench.readers import TEXT_PARAMS, TextDataset, read_lines


class LeeNews(TextDataset):
    name = "lee_news_gensim"
    description = "Tiny news smoke test: 300 ABC news articles, one per line (no dates)"
    source = "gensim 4.4.0 test_data/lee_background.cor (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "vocab_size": 2000}

    def read(self, corpora_dir, **p):
        path = self.source_dir(corpora_dir, "lee_news_gensim") / "lee_background.cor"
        lines = list(read_lines(path))  # a blank line is an empty document: dropped by preprocessing, and counted
        return pd.DataFrame({"doc_id": [f"line{n}" for n, _ in lines], "text": [t for _, t in lines]})
