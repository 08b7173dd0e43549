"""Wikipedia-like semi-synthetic corpus: real-word topics and correlated proportions fitted on Wikipedia articles."""
from topicbench.semisynthetic import SemiSyntheticDataset


class WikiLike(SemiSyntheticDataset):
    name = "wiki_like"
    description = ("Semi-synthetic (sharpened, T=0.7) Wikipedia: 100 topics over 6,130 real words and correlated (logistic-normal) "
                   "proportions fitted on 7,961 Wikipedia articles (bnpy); their widely spread lengths")
    # temperature 0.7: topics beta^(1/T) and proportions softmax(eta/T) sharpened so that the true model's
    # perplexity is at most ~half the word-frequency model's and one online pass learns (semisynthetic.py)
    source = "wiki"
    clock = (2000.0, 10.0)  # the source is undated; the clock only orders documents
    params = {**SemiSyntheticDataset.base_params, "n_train": 10000, "n_words": 6130, "n_topics": 100, "temperature": 0.7}
