"""Twitter-like semi-synthetic stream: topics fitted on dated tweets 2009-2018, with their monthly bursts."""
from topicbench.semisynthetic import SemiSyntheticDataset


class TwitterLike(SemiSyntheticDataset):
    name = "twitter_like"
    description = ("Semi-synthetic (sharpened, T=0.6) tweet stream: 50 topics over 5,000 real words fitted on 18,605 dated tweets "
                   "2009-2018, correlated proportions with monthly bursts (105 slices), tweet lengths; test documents "
                   "spread over the whole span")
    # temperature 0.6: topics beta^(1/T) and proportions softmax(eta/T) sharpened so that the true model's
    # perplexity is at most ~half the word-frequency model's and one online pass learns (semisynthetic.py)
    source = "twitter"
    split_layout = "interleaved"
    params = {**SemiSyntheticDataset.base_params, "n_train": 100000, "n_test": 5000, "n_words": 5000, "n_topics": 50,
              "temperature": 0.6, "chunk_size": 20000}
