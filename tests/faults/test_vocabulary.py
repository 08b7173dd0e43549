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
    """A word in exactly max_df of the documents (0.29 of 100; the float product is 28.999...) -> kept, as documented.

    max_df's range includes both ends; corpus.json records the largest document frequency kept.

    (Was: dropped without a word; which words survived the cut depended on how max_df rounds in binary.)"""
    edge = round(max_df * n_docs)
    texts = [("edge " if i < edge else "") + ("over " if i <= edge else "") + "filler" + (" rare" if i == 0 else "")
             for i in range(n_docs)]
    vocab, report = _vocab(texts, vocab_size=None, min_df=1, max_df=max_df)
    assert vocab == ["edge", "rare"], vocab
    assert report["max_df_documents"] == edge


def test_tie_at_the_vocab_size_cut_is_recorded():
    """vocab_size cutting a run of words of one document frequency -> the first in code-point order kept, tie recorded.

    (é sorts after z.) corpus.json names the rule and counts the tied words left out (was: the rule only in a code
    comment)."""
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
    """A test document of one token (nothing observed) -> not scored, counted in heldout_unscored; the rest scored.

    Halves: round(0.5) = 0 observed; threefold: its fold observes nothing. heldout_docs and heldout_tokens are the
    completable documents' alone.

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
    """Semi-synthetic test documents all of one token -> prepared, reference_perplexity null with the reason, counted.

    (min_length = max_length = 1.) The documents are counted as unscored (the runner's rule), never a
    ZeroDivisionError, nor a 'true model' perplexity of prior predictions."""
    from topicbench.dataset import get_dataset

    recipe = get_dataset("nyt_like")
    corpus = recipe().build(**recipe.resolve_params({"n_train": 40, "n_test": 8, "n_words": 50, "n_topics": 3,
                                                     "min_length": 1, "max_length": 1}))
    ref = corpus.meta["reference_perplexity"]
    assert ref["true_model"] is None and ref["word_frequency"] is None and "observed" in ref["why"], ref
    assert ref["heldout_docs"] == 0 and ref["heldout_unscored"] == 8


@pytest.mark.parametrize("joiner", [pytest.param("\u200c", id="zero-width-non-joiner"),
                                    pytest.param("\u200d", id="zero-width-joiner")])
def test_zero_width_joiner_inside_a_latin_word(joiner):
    """A zero-width (non-)joiner inside a Latin or Greek word -> one vocabulary entry, its plain spelling; counted.

    (Web or PDF text.) A Persian word keeps its joiner.

    (Was: 'inter<ZWNJ>national' a second vocabulary entry that looks identical to 'international'.)"""
    texts = [f"inter{joiner}national trade", "international trade", f"ΑΘΉ{joiner}ΝΑ αθήνα", f"می{joiner}خواهم می{joiner}خواهم"]
    vocab, report = _vocab(texts, vocab_size=None, min_df=1, max_df=1.0)
    assert vocab == ["international", "trade", "αθήνα", f"می{joiner}خواهم"], vocab
    assert report["removed_joiners_beside_cased_letters"] == 2


def test_word_longer_than_half_a_tokenising_piece_is_counted(monkeypatch):
    """A 'word' in a long document longer than half a tokenising piece -> the hard cut splitting it counted in corpus.json.

    (long_text_hard_cuts), never a silent second word."""
    from topicbench import readers

    monkeypatch.setattr(readers, "LONG_TEXT", 64)
    texts = ["start " + "x" * 200 + " end", "plain words here"]
    _, report = _vocab(texts, vocab_size=None, min_df=1, max_df=1.0)
    assert report["long_text_hard_cuts"] == 3  # 200 letters in pieces of 64: cut three times


def test_split_that_leaves_a_word_only_in_test(tmp_path):
    """A split that puts every document of a word in test -> corpus.json's vocabulary_use counts and names it.

    (The run scores it from the prior, finite.) A word no document holds (a fixed vocabulary) is counted too. Was:
    nothing told the user that a vocabulary word had no training token."""
    from topicbench.corpus import Corpus, load_corpus, make_docs_frame, save_corpus
    from topicbench.run import RunSpec, run
    import scipy.sparse as sp

    rows = [[2, 1, 0, 0, 0], [1, 2, 0, 0, 0], [3, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 2, 0, 0], [0, 1, 1, 1, 0]]
    docs = make_docs_frame(6, split=["train"] * 4 + ["test"] * 2)
    path = save_corpus(Corpus(sp.csr_matrix(rows), ["apple", "bread", "cider", "dates", "eggs"], docs, {"name": "t"}),
                       tmp_path / "c")
    use = json.loads((path / "corpus.json").read_text())["vocabulary_use"]
    assert use == {"words_only_in_test": 2, "first_only_in_test": ["cider", "dates"],
                   "words_in_no_document": 1, "first_in_no_document": ["eggs"]}, use
    trace, _ = run(RunSpec(method="online_lda", params={"K": 2, "batch_size": 2}, n_checkpoints=1,
                           topic_history_words=3), load_corpus(path))
    assert np.isfinite(trace["loglik_per_word"]).all()


def test_preprocessed_short_texts_with_one_word_in_two_unicode_forms(tmp_path):
    """Preprocessed short texts with 'café' composed and decomposed -> one NFC vocabulary word, recomposing counted.

    (STTM layout; NFC as the raw-text tokeniser.)

    (Was: two vocabulary entries that look identical, the word's counts split between them.)"""
    import io
    import tarfile

    from topicbench.dataset import get_dataset

    lines = ["caf\u00e9 latte milk", "cafe\u0301 latte sugar", "milk sugar tea", "tea latte milk", "sugar tea cafe"]
    folder = tmp_path / "sttm_shorttext"
    folder.mkdir()
    with tarfile.open(folder / "sttm_datasets.tar.xz", "w:xz") as tar:
        for name, text in (("Tweet.txt", "\n".join(lines) + "\n"), ("Tweet_LABEL.txt", "1\n2\n1\n2\n1\n")):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    recipe = get_dataset("sttm_shorttext")
    corpus = recipe().build(corpora_dir=tmp_path, **recipe.resolve_params({"test_fraction": 0.2}))
    assert corpus.vocab == ["cafe", "caf\u00e9", "latte", "milk", "sugar", "tea"], corpus.vocab
    assert corpus.meta["preprocessing"]["tokens_recomposed_to_nfc"] == 1


@pytest.mark.parametrize("holdout", ["every_nth_batch", "lookahead"])
def test_stream_window_too_short_to_complete_late_in_the_stream(holdout, monkeypatch):
    """A stream's last scored window too short to complete -> StreamError naming it before the warm-up or any fit.

    Two-token documents at observed_fraction=0.9 (round(1.8) = 2: nothing held out). Was: the same refusal after
    the fit had run up to it."""
    import scipy.sparse as sp

    from topicbench import run as run_module
    from topicbench.corpus import Corpus, make_docs_frame
    from topicbench.streams import StreamError

    rng = np.random.default_rng(0)
    lengths = [30] * 180 + [2] * 20 + [30] * 10  # in time order: the short documents last in the training split
    counts = sp.csr_matrix(np.array([np.bincount(rng.integers(0, 30, n), minlength=30) for n in lengths]))
    docs = make_docs_frame(len(lengths), split=["train"] * 200 + ["test"] * 10, time=np.arange(len(lengths)) * 1.0)
    corpus = Corpus(counts, [f"w{i}" for i in range(30)], docs, {"name": "short_tail"})
    monkeypatch.setattr(run_module, "_warm_up", lambda *a: pytest.fail("the warm-up ran: the check came after compute"))
    spec = run_module.RunSpec(method="online_lda", params={"K": 2, "batch_size": 10}, stream="time_ordered",
                              holdout=holdout, holdout_n=20 if holdout == "every_nth_batch" else 10,
                              observed_fraction=0.9, topic_history_words=3,
                              **({} if holdout == "every_nth_batch" else {"n_checkpoints": 3}))  # what each policy reads
    with pytest.raises(StreamError, match=f"{holdout} holds out no token at 190 documents: observed_fraction=0.9"):
        run_module.run(spec, corpus)


def test_own_split_documents_emptied_by_the_vocabulary_cut_counted_per_split():
    """A corpus with its own split whose documents the vocabulary cut empties -> dropped, counted per split in corpus.json.

    (20 Newsgroups bydate, Reuters ModApte.) Was: one total, so a test split thinned by the cut went unnoticed."""
    from topicbench.readers import TEXT_PARAMS, TextDataset

    class OwnSplit(TextDataset):
        name, params = "own_split", dict(TEXT_PARAMS)

        def read(self, source_dir, **p):
            texts = ["apple banana"] * 3 + ["zz", "apple cherry", "banana cherry", "qq", "apple banana cherry"]
            return pd.DataFrame({"doc_id": [f"d{i}" for i in range(8)], "text": texts,
                                 "split": ["train"] * 4 + ["test"] * 4})

    corpus = OwnSplit().build(**OwnSplit.resolve_params({"min_df": 1, "max_df": 1.0}))
    assert corpus.meta["preprocessing"]["dropped_by_split"] == {"test": 1, "train": 1}
    assert corpus.docs["split"].tolist() == ["train"] * 3 + ["test"] * 3


def test_fixed_vocabulary_word_in_decomposed_form_named(tmp_path, capsys):
    """A vocab_file word written decomposed ('cafe' + U+0301, NFD), which no NFC token can match -> exit 2 naming
    file:line and the word, before the text is read; no corpus (was: kept as a column of zeros, only counted)."""
    from _prepare_util import run_cli

    (tmp_path / "t.jsonl").write_text('{"text": "café bread bread"}\n{"text": "bread café bread"}\n',
                                      encoding="utf-8")
    (tmp_path / "v.txt").write_text("bread\ncafe\u0301\n", encoding="utf-8")
    code, err = run_cli(["prepare", "user_text", "--param", f"path={tmp_path / 't.jsonl'}", "--param",
                         f"vocab_file={tmp_path / 'v.txt'}", "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and f"v.txt:2: vocabulary word {'cafe' + chr(0x301)!r} is not in Unicode NFC" in err, err
    assert not (tmp_path / "out").exists()


def test_relative_vocab_file_is_read_under_corpora_dir(tmp_path, monkeypatch, capsys):
    """A relative vocab_file with a corpora_dir, prepared from two working folders (one holding another v.txt) -> both
    read corpora_dir/v.txt, as user_text's path is: one corpus (was: read from the working folder, so the same config
    gave another vocabulary, or none, by where Snakemake ran)."""
    from _prepare_util import run_cli
    from topicbench.corpus import load_corpus

    corpora = tmp_path / "corpora"
    corpora.mkdir()
    (corpora / "t.jsonl").write_text('{"text": "apple bread cheese"}\n{"text": "bread cheese apple"}\n'
                                     '{"text": "cheese apple bread"}\n')
    (corpora / "v.txt").write_text("bread\ncheese\n")
    vocabularies = []
    for where, decoy in (("here", "apple\n"), ("there", None)):
        (tmp_path / where).mkdir()
        if decoy:
            (tmp_path / where / "v.txt").write_text(decoy)
        monkeypatch.chdir(tmp_path / where)
        out = tmp_path / f"out_{where}"
        code, err = run_cli(["prepare", "user_text", "--corpora-dir", str(corpora), "--param", "path=t.jsonl",
                             "--param", "vocab_file=v.txt", "--param", "test_fraction=0", "--out", str(out)], capsys)
        assert code == 0, err
        vocabularies.append(load_corpus(out).vocab)
        assert "v.txt" in json.loads((out / "corpus.json").read_text())["source_files"]  # fingerprinted by that name
    assert vocabularies == [["bread", "cheese"]] * 2, vocabularies


def test_modifier_letter_apostrophe_is_an_apostrophe():
    """Words written with U+02BC (donʼt, мʼята) beside their ASCII spelling -> the same tokens, ʼ a break as ' is.

    U+02BC, the modifier letter apostrophe, looks like and stands for the apostrophe (Ukrainian writes мʼята and м'ята),
    and the documented rule is that apostrophes are word breaks (was: U+02BC read as a letter, so donʼt and мʼята were
    vocabulary words of their own beside don and ята)."""
    prep = Preprocess(stop_words=False, min_token_length=1)
    assert prep.tokenize("donʼt мʼята") == prep.tokenize("don't м'ята") == ["don", "t", "м", "ята"]


def test_case_is_lowered_not_folded():
    """'Maße' beside 'Masse', and Greek capitals ending in Σ -> lower-cased (str.lower), not case-folded, as documented:
    Maße and Masse stay two words (case folding would merge them as 'masse'), ΟΔΟΣ reads as οδος with its final sigma
    (folding would write every ς as σ, a spelling no Greek text uses)."""
    tokens = Preprocess(stop_words=False).tokenize("Maße Masse MASSE ΟΔΟΣ οδος")
    assert tokens == ["maße", "masse", "masse", "οδος", "οδος"], tokens


@pytest.mark.parametrize("words, named", [
    pytest.param(b"Bread\nthe\nx\n", "v.txt: no word of the vocab_file can ever be a token (upper case, a stop word, "
                                     "too short, or not one token), e.g. 'Bread'", id="vocab-file-no-word-a-token"),
    pytest.param(b"bread\rcafe\r", "v.txt:1: a CR inside the word 'bread\\rcafe'; its lines end in a bare CR",
                 id="vocab-file-bare-cr-lines"),
    pytest.param("bread\ncafé\n".encode("utf-16"), "v.txt:1: not valid utf-8 text (invalid start byte at byte 0); a "
                 "vocab_file is read as UTF-8 (the encoding parameter is the source's)", id="vocab-file-utf16"),
])
def test_fixed_vocabulary_that_can_match_nothing_named(tmp_path, capsys, words, named):
    """A vocab_file no token can match (every word upper case, a stop word or short; CR line ends) -> exit 2 naming it
    (was: 'every document is shorter than min_doc_length', naming the text; for UTF-16: 'pass encoding=utf-16', the
    source's parameter, which cannot read it)."""
    from _prepare_util import run_cli

    (tmp_path / "t.jsonl").write_text('{"text": "cafe bread bread"}\n{"text": "bread cafe bread"}\n')
    (tmp_path / "v.txt").write_bytes(words)
    code, err = run_cli(["prepare", "user_text", "--param", f"path={tmp_path / 't.jsonl'}", "--param",
                         f"vocab_file={tmp_path / 'v.txt'}", "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and named in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("mark", [pytest.param("\u200f", id="right-to-left-mark"), pytest.param("\u200e", id="left-to-right-mark"),
                                  pytest.param("\u061c", id="arabic-letter-mark"), pytest.param("\u2067", id="rtl-isolate")])
def test_bidirectional_mark_inside_a_word(mark):
    """A bidirectional mark (RLM, LRM, ALM, an isolate) inside a word -> one word, its plain spelling, as for a soft
    hyphen (was: two tokens, 'infor' + 'mation'; and 'RT <RLM>@someone' kept 'rt', not read as a retweet marker)."""
    prep = Preprocess(stop_words=False)
    assert prep.tokenize(f"infor{mark}mation \u05e9\u05dc{mark}\u05d5\u05dd \u0633\u0644{mark}\u0627\u0645 RT {mark}@someone hi") == \
        ["information", "\u05e9\u05dc\u05d5\u05dd", "\u0633\u0644\u0627\u0645", "hi"]


@pytest.mark.parametrize("texts, named", [
    pytest.param(["the and of it"] * 4 + ["1999 2024 42"] * 2, "(0 distinct words in 6 documents; of 16 word tokens, 16 "
                 "were stop words and 0 shorter than 2 letters (digits and symbols are no words))",
                 id="every-token-a-stop-word-or-a-number"),
    pytest.param(["apple bread cheese"] * 6, "(3 distinct words in 6 documents: 3 in more than max_df's 3 documents, 0 in "
                 "fewer than min_df's 2)", id="every-document-identical"),
])
def test_vocabulary_cut_keeping_nothing_says_why(texts, named):
    """Text whose every token is a stop word or a number, or whose documents are all identical -> refused saying which
    rule left no word (was: 'no word passes min_df=2, max_df=0.5 (0 distinct words ...)', the cause unsaid)."""
    from topicbench.corpus import CorpusError

    with pytest.raises(CorpusError) as err:
        bag_of_words(texts, Preprocess(), source="t.jsonl")
    assert "t.jsonl: no word passes min_df=2, max_df=0.5 " + named in str(err.value), str(err.value)
