"""NYT-like semi-synthetic corpus: real-word topics and correlated proportions fitted on NYT articles (nyt_topmost)."""
from topicbench.semisynthetic import SemiSyntheticDataset


class NYTLike(SemiSyntheticDataset):
    name = "nyt_like"
    description = ("Semi-synthetic (sharpened, T=0.8) NYT: 100 topics over 8,000 real words and correlated (logistic-normal) proportions "
                   "fitted on NYT articles 2012-2022; NYT article lengths; exchangeable documents")
    # temperature 0.8: topics beta^(1/T) and proportions softmax(eta/T) sharpened so that the true model's
    # perplexity is at most ~half the word-frequency model's and one online pass learns (semisynthetic.py)
    source = "nyt"
    clock = (2012.0, 10.0)  # orders documents only (no drift), over the source's years
    params = {**SemiSyntheticDataset.base_params, "n_words": 8000, "n_topics": 100, "temperature": 0.8}
