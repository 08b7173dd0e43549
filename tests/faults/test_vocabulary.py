"""Where real text becomes the count matrices every method is scored on: the vocabulary cut-offs and their ties, and
the held-out halves of documents too short to complete. Each case is a corpus we had not seen, made small."""
import json

import numpy as np
import pandas as pd
import pytest

from topicbench.readers import Preprocess, bag_of_words


def _vocab(texts, **prep):
    _, vocab, _, report = bag_of_words(texts, Preprocess(stop_words=False, **prep))
    return vocab, report


@pytest.mark.parametrize("max_df, n_docs", [pytest.param(0.29, 100, id="0.29-of-100"),
                                            pytest.param(0.57, 100, id="0.57-of-100"),
                                            pytest.param(0.58, 50, id="0.58-of-50")])
def test_word_in_exactly_max_df_of_the_documents(max_df, n_docs):
    """A word in exactly max_df of the documents, where the float product falls below (0.29 * 100 = 28.999...) -> kept,
    as max_df's both-ends-included rule says, and corpus.json records the largest document frequency kept.

    (Was: dropped without a word; which words survived the cut depended on how max_df rounds in binary.)"""
    edge = round(max_df * n_docs)
    texts = [("edge " if i < edge else "") + ("over " if i <= edge else "") + "filler" + (" rare" if i == 0 else "")
             for i in range(n_docs)]
    vocab, report = _vocab(texts, vocab_size=None, min_df=1, max_df=max_df)
    assert vocab == ["edge", "rare"], vocab
    assert report["max_df_documents"] == edge


def test_tie_at_the_vocab_size_cut_is_recorded():
    """vocab_size falling inside a run of words of one document frequency -> the first in code-point order kept (é after
    z), and corpus.json names the rule and counts the tied words left out (was: the rule only in a code comment)."""
    texts = ["common zeta", "common éclair", "common alpha", "common mid mid", "mid x"]
    vocab, report = _vocab(texts, vocab_size=3, min_df=1, max_df=1.0)
    assert vocab == ["alpha", "common", "mid"]  # df 4, 2, then the first of the df-1 tie alpha, zeta, éclair
    assert report["vocab_size_cut_tie"] == {"document_frequency": 1, "kept": 1, "left_out": 2, "first_left_out": "zeta"}
    assert "code-point order" in report["vocab_source"]
    _, untied = _vocab(texts, vocab_size=2, min_df=1, max_df=1.0)
    assert "vocab_size_cut_tie" not in untied  # the cut between two frequencies breaks no tie


def _bow_corpus(tmp_path, lengths):
    """A UCI corpus whose documents have the given token lengths (word i % 20, one count each), all in test but one."""
    from topicbench.dataset import prepare

    lines = [(d + 1, 1 + (d + t) % 20, 1) for d, n in enumerate(lengths) for t in range(n)]
    (tmp_path / "docword.txt").write_text(f"{len(lengths)}\n20\n{len(lines)}\n"
                                          + "".join(f"{d} {w} {c}\n" for d, w, c in lines))
    (tmp_path / "vocab.txt").write_text("".join(f"w{i}\n" for i in range(20)))
    return prepare("user_bow", tmp_path / "c", format="uci", path=str(tmp_path / "docword.txt"),
                   vocab=str(tmp_path / "vocab.txt"), test_fraction=0.5)


@pytest.mark.parametrize("folds", [pytest.param(1, id="halves"), pytest.param(3, id="threefold")])
def test_test_document_of_one_token_is_not_scored_without_an_observed_part(tmp_path, folds):
    """A test document of one token (halves: round(0.5) = 0 observed; threefold: its fold observes nothing) -> not
    scored, counted in heldout_unscored; heldout_docs and heldout_tokens are the completable documents' alone.

    (Was: its token scored as a prior prediction under the name of document completion, in the denominator.)"""
    from topicbench.corpus import load_corpus
    from topicbench.run import RunSpec, run

    corpus = load_corpus(_bow_corpus(tmp_path, [1, 4, 1, 6, 1, 5, 9, 1, 8, 7, 6, 5]))
    test = corpus.split("test")
    lengths = np.asarray(test.counts.sum(axis=1)).ravel()
    assert (lengths == 1).any() and (lengths > 1).any(), lengths  # the seeded split puts both kinds in test
    spec = RunSpec(method="online_lda", params={"K": 2, "batch_size": 2}, n_checkpoints=1, folds=folds)
    trace, _ = run(spec, corpus)
    last = trace.iloc[-1]
    long = lengths[lengths > 1]
    expected_tokens = long.sum() if folds > 1 else (long - np.round(0.5 * long)).sum()
    assert last["heldout_tokens"] == expected_tokens
    assert last["heldout_docs"] == len(long)
    assert last["heldout_unscored"] == (lengths == 1).sum()
    assert np.isfinite(last["loglik_per_word"])


def test_semi_synthetic_test_documents_of_one_token(tmp_path):
    """A semi-synthetic corpus whose test documents are all one token (min_length = max_length = 1) -> prepared, its
    reference_perplexity null with the reason and the documents counted as unscored (the runner's rule), never a
    ZeroDivisionError, nor a 'true model' perplexity of prior predictions."""
    from topicbench.dataset import get_dataset

    recipe = get_dataset("nyt_like")
    corpus = recipe().build(**recipe.resolve_params({"n_train": 40, "n_test": 8, "n_words": 50, "n_topics": 3,
                                                     "min_length": 1, "max_length": 1}))
    ref = corpus.meta["reference_perplexity"]
    assert ref["true_model"] is None and ref["word_frequency"] is None and "observed" in ref["why"], ref
    assert ref["heldout_docs"] == 0 and ref["heldout_unscored"] == 8
