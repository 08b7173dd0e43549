"""Shared fixtures: small planted corpora, built once per session."""
import numpy as np
import pytest

from topicbench.corpus import save_corpus
from topicbench.synthetic import build_planted_corpus


def planted(n_train=1500, n_test=200, n_words=1000, n_topics=10, seed=5, **kwargs):
    def lengths(rng, n):
        return rng.integers(150, 250, size=n)

    return build_planted_corpus("planted_test", n_train, n_test, n_words, n_topics, 0.01, 0.1, lengths, seed, **kwargs)


@pytest.fixture(scope="session")
def small_corpus():
    """1,500 training and 200 test documents from 10 planted topics over 1,000 words."""
    return planted()


@pytest.fixture(scope="session")
def small_corpus_dir(tmp_path_factory, small_corpus):
    return save_corpus(small_corpus, tmp_path_factory.mktemp("corpora") / "planted_test")


def matched_cosine(fitted: np.ndarray, truth: np.ndarray) -> float:
    """Mean cosine similarity of fitted to true topics after Hungarian matching."""
    from scipy.optimize import linear_sum_assignment

    a = fitted / np.linalg.norm(fitted, axis=1, keepdims=True)
    b = truth / np.linalg.norm(truth, axis=1, keepdims=True)
    cosine = a @ b.T
    rows, cols = linear_sum_assignment(-cosine)
    return float(cosine[rows, cols].mean())


def central_difference(f, x, index, eps):
    """(f(x + eps e_index) - f(x - eps e_index)) / 2 eps, perturbing ``x`` in place and restoring it."""
    old = x[index]
    x[index] = old + eps
    up = f()
    x[index] = old - eps
    down = f()
    x[index] = old
    return (up - down) / (2 * eps)
