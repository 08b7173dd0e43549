"""Science-like semi-synthetic stream: topics fitted on State of the Union paragraphs 1790-2026, with their drift."""
from topicbench.semisynthetic import SemiSyntheticDataset


class ScienceLike(SemiSyntheticDataset):
    name = "science_like"
    description = ("Semi-synthetic (sharpened, T=0.6) long-span stream: 50 topics over 5,000 real words fitted on State of the Union "
                   "paragraphs 1790-2026, correlated proportions whose means drift over 48 five-year slices; test "
                   "documents spread over the whole span")
    # temperature 0.6: topics beta^(1/T) and proportions softmax(eta/T) sharpened so that the true model's
    # perplexity is at most ~half the word-frequency model's and one online pass learns (semisynthetic.py)
    source = "science"
    split_layout = "interleaved"
    params = {**SemiSyntheticDataset.base_params, "n_train": 5000, "n_test": 500, "n_words": 5000, "n_topics": 50,
              "temperature": 0.6, "chunk_size": 2000}
