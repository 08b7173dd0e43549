"""Readers on classes of text the earlier passes had not seen (fourth red-team): compatibility characters, tweets,
HTML left in a text column, folder trees with links, one-time corpora. Expected tokens are written out by hand."""
import json
import os
from collections import Counter

from topicbench import cli
from topicbench.readers import Preprocess, read_text_files

P = Preprocess(stop_words=False, min_token_length=1)


def test_compatibility_forms_fold_to_their_letters():
    """Ligature fi, fullwidth letters, a superscript, a no-break space: the words they spell; NFC = NFD; TM a break."""
    tally = Counter()
    assert P.tokenize("\ufb01nance \uff26\uff29\uff2e\uff21\uff2e\uff23\uff25 finance", tally=tally) == ["finance"] * 3
    assert P.tokenize("x\u00b2 non\u00a0breaking") == ["x", "non", "breaking"]  # x squared is x then the digit 2
    assert P.tokenize("caf\u00e9 cafe\u0301") == ["caf\u00e9", "caf\u00e9"]
    assert P.tokenize("apple\u2122 \ufe8d\ufedf") == ["apple", "\u0627\u0644"]  # TM kept (a break); Arabic forms
    # folded in the first text: the ligature and the 7 fullwidth letters, 1 + 7 = 8
    assert sum(n for k, n in tally.items() if k.startswith("folded:")) == 8


def _prepare(tmp_path, texts, *params, fmt="jsonl"):
    src = tmp_path / "t.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    out = tmp_path / "out"
    argv = ["prepare", "user_text", "--out", str(out), "--param", f"path={src}", "--param", "min_df=1",
            "--param", "max_df=1.0", "--param", "test_fraction=0", *[a for p in params for a in ("--param", p)]]
    assert cli.main(argv) == 0
    return json.loads((out / "corpus.json").read_text()), (out / "vocab.txt").read_text().split()


def test_compatibility_folds_recorded(tmp_path):
    """corpus.json counts the folded characters and names them; the tokenizer string says so."""
    meta, vocab = _prepare(tmp_path, ["\ufb01nance finance", "\uff41\uff42\uff43 abc words"])
    folded = meta["preprocessing"]["compatibility_characters_folded"]
    assert folded["count"] == 4 and "\ufb01 (U+FB01) -> fi" in folded["most_common"]
    assert vocab == ["abc", "finance", "words"]
    assert "NFKC compatibility forms folded" in meta["preprocessing"]["tokenizer"]


def test_tweet_tokens(tmp_path):
    """RT markers, @mentions and URLs removed and counted; #tag is its word; emoji break; &eacute; decodes."""
    p = Preprocess(stop_words=False)
    assert p.tokenize("RT @user: Loving the #MachineLearning talk! https://t.co/abc &amp; more \U0001F600caf&eacute;") == \
        ["loving", "the", "machinelearning", "talk", "more", "café"]
    assert p.tokenize("RT: AT&amp;T &#201;t&eacute; &foo; start") == ["at", "été", "start"]
    meta, vocab = _prepare(tmp_path, ["RT @a: hello world http://x.y/z", "hello @b world RT @c: more"])
    prep = meta["preprocessing"]
    assert (prep["removed_retweet_markers"], prep["removed_urls_and_mentions"]) == (2, 4)
    assert vocab == ["hello", "world"]  # "more" is a stop word


def test_html_left_in_text_is_counted(tmp_path):
    """HTML tags kept (strip_html=false) are counted in corpus.json; a mail address in angle brackets is not a tag."""
    meta, _ = _prepare(tmp_path, ["<p>hello <b>world</b></p>", "mail <id@host> hello world", "a < b > c hello"])
    assert meta["preprocessing"]["documents_with_html_tags_kept"] == 1
    (tmp_path / "s").mkdir()
    meta, vocab = _prepare(tmp_path / "s", ["<p>hello <b>world</b></p>", "<div class='x'>hello&nbsp;world</div>"],
                           "strip_html=true")
    assert "documents_with_html_tags_kept" not in meta["preprocessing"] and vocab == ["hello", "world"]


def test_folder_tree_with_links(tmp_path):
    """Nested folders, a link to an outside folder (read), a looping link (skipped, listed), other names listed."""
    root, outside = tmp_path / "tree", tmp_path / "outside"
    (root / "a" / "b").mkdir(parents=True)
    outside.mkdir()
    (root / "one.txt").write_text("one")
    (root / "a" / "b" / "two.txt").write_text("two")
    (root / "a" / "b" / "three.TXT").write_text("three")
    (outside / "ext.txt").write_text("ext")
    os.symlink(outside, root / "dirlink")
    os.symlink(root / "a", root / "a" / "b" / "loop")
    frame = read_text_files(root, "*.txt")
    assert frame["doc_id"].tolist() == ["a/b/two.txt", "dirlink/ext.txt", "one.txt"]
    assert frame.attrs["folder_links_skipped"]["first"] == ["a/b/loop"]
    assert frame.attrs["files_not_matching_pattern"]["first"] == ["a/b/three.TXT"]


def test_one_time_corpus_records_its_distinct_times(tmp_path):
    """corpus.json says how many distinct times a corpus has (1: a time_ordered stream has no order to follow)."""
    src = tmp_path / "t.jsonl"
    src.write_text("".join(json.dumps({"text": f"apple bread w{c}", "t": "2020-01-01"}) + "\n" for c in "abc"))
    assert cli.main(["prepare", "user_text", "--out", str(tmp_path / "o"), "--param", f"path={src}",
                     "--param", "time_column=t", "--param", "min_df=1", "--param", "max_df=1.0"]) == 0
    assert json.loads((tmp_path / "o" / "corpus.json").read_text())["time_distinct_values"] == 1
