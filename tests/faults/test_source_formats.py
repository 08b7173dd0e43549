"""Fault catalogue, source formats a researcher brings that the earlier passes had not seen (third red-team).

Each case prepares a small user source whose damage the formats' own parsers would take silently (csv and json
never complain about these) and asserts exit 2, a message naming the file and line and the fix, that no corpus
appeared at --out, and that the source was left as it was.
"""
import json

import pytest

try:
    from ._prepare_util import digest, run_cli
except ImportError:
    from _prepare_util import digest, run_cli

TEXTS = ["apple bread cheese", "bread cheese dates", "cheese dates apple", "dates apple bread", "apple cheese bread"]


def _source(tmp_path, damage):
    """A five-document source with one damage; returns (format, path, extra --param values)."""
    src = tmp_path / "src"
    src.mkdir()
    csv = "id,text\n" + "".join(f"{i},{t}\n" for i, t in enumerate(TEXTS))
    records = [{"id": i, "text": t} for i, t in enumerate(TEXTS)]
    if damage == "csv-quote-never-closed":  # a quote opened on line 3 swallows lines 4-6 (3 lines) into document 1
        (src / "t.csv").write_text(csv.replace("1,bread", '1,"bread'))
        return "csv", src / "t.csv", []
    if damage == "tsv-quote-never-closed":  # a tweet that starts with a quotation mark, in a tab-separated file
        tsv = "id\ttext\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(TEXTS))
        (src / "t.tsv").write_text(tsv.replace("3\tdates", '3\t"dates'))
        return "csv", src / "t.tsv", ["--param", "sep=\\t"]
    if damage == "csv-header-repeated":  # two exports joined with cat
        half = csv.splitlines(keepends=True)
        (src / "t.csv").write_text("".join(half[:3] + half[:1] + half[3:]))
        return "csv", src / "t.csv", []
    if damage == "csv-header-repeated-with-bom":  # two exports, each with the byte-order mark Excel writes, joined
        half = ("\ufeff" + csv).splitlines(keepends=True)
        (src / "t.csv").write_text("".join(half[:3] + half[:1] + half[3:]), encoding="utf-8")
        return "csv", src / "t.csv", []
    if damage in ("jsonl-text-twice", "jsonl-id-null", "jsonl-id-object"):
        bad = {"jsonl-text-twice": '{"id": 2, "text": "cheese dates apple", "text": "zebra"}',
               "jsonl-id-null": '{"id": null, "text": "cheese dates apple"}',
               "jsonl-id-object": '{"id": {"n": 2}, "text": "cheese dates apple"}'}[damage]
        lines = [json.dumps(r) for r in records]
        lines[2] = bad
        (src / "t.jsonl").write_text("\n".join(lines) + "\n")
        return "jsonl", src / "t.jsonl", ["--param", "id_column=id"]
    if damage in ("utf8-read-as-latin1", "utf8-read-as-cp1252"):
        (src / "t.csv").write_bytes(csv.replace("2,cheese", "2,café cheese").encode("utf-8"))
        return "csv", src / "t.csv", ["--param", f"encoding={damage.rsplit('-', 1)[1]}"]
    if damage == "decimal-years-as-iso":  # 2001.5 is mid-2001; pandas' ISO 8601 reads it as May 2001
        lines = [json.dumps({**r, "t": f"{2001 + i}.5"}) for i, r in enumerate(records)]
        (src / "t.jsonl").write_text("\n".join(lines) + "\n")
        return "jsonl", src / "t.jsonl", ["--param", "time_column=t"]
    if damage == "ids-differing-by-a-space":  # 'a' and 'a ' print alike, and were two documents
        (src / "t.csv").write_text(csv.replace("\n3,", "\n1 ,"))
        return "csv", src / "t.csv", ["--param", "id_column=id", "--param", "max_df=1.0"]
    if damage == "ids-in-two-unicode-forms":  # 'é' composed and decomposed print alike, and were two documents
        (src / "t.csv").write_text(csv.replace("\n1,", "\n\u00e9,").replace("\n3,", "\ne\u0301,"), encoding="utf-8")
        return "csv", src / "t.csv", ["--param", "id_column=id", "--param", "max_df=1.0"]
    if damage in ("file-names-in-two-unicode-forms", "file-names-differing-by-a-space", "folder-names-differing-by-a-space",
                  "file-name-of-white-space"):
        names = {"file-name-of-white-space": ["  "],  # a blank document id, as a blank id column is
                 "file-names-in-two-unicode-forms": ["caf\u00e9.txt", "cafe\u0301.txt"],  # two files on Linux
                 "file-names-differing-by-a-space": ["a.txt", "a.txt "],
                 "folder-names-differing-by-a-space": ["sub/a.txt", "sub /a.txt"]}[damage]
        (src / "files").mkdir()
        for name, text in zip(names + ["x.txt", "y.txt", "z.txt"], TEXTS):
            (src / "files" / name).parent.mkdir(exist_ok=True)
            (src / "files" / name).write_text(text, encoding="utf-8")
        return "files", src / "files", ["--param", "max_df=1.0"]
    if damage == "utf16-be-without-bom":  # Python's utf-16 reads a file without a byte-order mark little-endian
        (src / "t.csv").write_bytes(csv.encode("utf-16-be"))
        return "csv", src / "t.csv", ["--param", "encoding=utf-16"]
    raise AssertionError(damage)


@pytest.mark.parametrize("damage, named", [
    pytest.param("csv-quote-never-closed", "t.csv:3: a quoted field opens on this line and is never closed: it would run "
                 "to the end of the file and swallow the 3 line(s) after it", id="csv-quote-never-closed"),
    pytest.param("tsv-quote-never-closed", "t.tsv:5: a quoted field opens on this line and is never closed: it would run "
                 "to the end of the file and swallow the 1 line(s) after it", id="tsv-quote-never-closed"),
    pytest.param("csv-header-repeated", "t.csv:4: the header row again (files joined with their headers?): ['id', "
                 "'text'] would be read as a document", id="csv-header-repeated-mid-file"),
    pytest.param("csv-header-repeated-with-bom", "t.csv:4: the header row again (files joined with their headers?)",
                 id="csv-header-repeated-with-its-byte-order-mark"),
    pytest.param("jsonl-text-twice", "t.jsonl:3: field 'text' appears 2 times in the object: which one holds the data "
                 "is ambiguous", id="jsonl-field-written-twice"),
    pytest.param("jsonl-id-null", "t.jsonl:3: field 'id' is null, expected a document id", id="jsonl-id-null"),
    pytest.param("jsonl-id-object", "t.jsonl:3: field 'id' is {\"n\": 2}, expected a document id", id="jsonl-id-an-object"),
    pytest.param("utf8-read-as-latin1", "t.csv:4: the text is UTF-8 ('2,café'), which read as latin1 would become "
                 "'2,cafÃ©': pass encoding=utf-8", id="utf8-file-read-as-latin1"),
    pytest.param("utf8-read-as-cp1252", "t.csv:4: the text is UTF-8 ('2,café'), which read as cp1252 would become "
                 "'2,cafÃ©': pass encoding=utf-8", id="utf8-file-read-as-cp1252"),
    pytest.param("decimal-years-as-iso", "t.jsonl:1: time '2001.5' is not an ISO 8601 date (read as one it would be "
                 "year.month); for decimal years pass time_format=decimal_year (5 such values)",
                 id="decimal-years-read-as-iso-dates"),
    pytest.param("ids-differing-by-a-space", "t.csv:5: id '1 ' differs from '1' (line 3) only in white space around it",
                 id="ids-differing-only-by-a-trailing-space"),
    pytest.param("ids-in-two-unicode-forms", "t.csv:5: id 'e\u0301' differs from '\u00e9' (line 3) only in Unicode form",
                 id="ids-differing-only-in-unicode-form"),
    pytest.param("file-names-in-two-unicode-forms", "files/caf\u00e9.txt: its name 'caf\u00e9.txt' differs from "
                 "'cafe\u0301.txt' (", id="file-names-differing-only-in-unicode-form"),
    pytest.param("file-names-differing-by-a-space", "files/a.txt : its name 'a.txt ' differs from 'a.txt' (",
                 id="file-names-differing-only-by-a-trailing-space"),
    pytest.param("folder-names-differing-by-a-space", "files/sub /a.txt: its name 'sub /a.txt' differs from 'sub/a.txt' (",
                 id="folder-names-differing-only-by-a-trailing-space"),
    pytest.param("file-name-of-white-space", "files/  : a file or folder name of white space only, which would be a blank "
                 "document id", id="file-name-of-white-space-only"),
    pytest.param("utf16-be-without-bom", "t.csv: the text is UTF-16 big-endian (by its zero bytes; no byte-order mark), "
                 "which read as utf-16 would be other characters: pass encoding=utf-16-be",
                 id="utf16-big-endian-without-bom-read-as-utf16"),
])
def test_unseen_source_format_damage_named(tmp_path, capsys, damage, named):
    """A user source with damage of the case's id -> exit 2 naming file:line and the fix, before compute.

    Damage: a quote never closed (CSV, or a TSV tweet starting with a quotation mark); the header row again mid-file;
    a JSON field written twice; a null or object id; UTF-8 read as Latin-1 / cp1252; decimal years read as ISO dates;
    ids '1' and '1 ', or 'é' composed and decomposed, as ids or as the names of a folder's files; UTF-16-BE without a byte-order mark read as utf-16.
    Was: the rows after the quote merged into one document; 'id text' prepared as a document (also when the joined
    file's header starts with a byte-order mark, as Excel's UTF-8 CSV does: found only without one); the last copy of the
    field taken; the id 'None' or "{'n': 2}"; 'cafÃ©' in the vocabulary; 2001.5 read as 2001-05-01 (2001.33); two
    documents whose ids print alike; a vocabulary of CJK characters ('ab' decoded as '愀戀')."""
    fmt, path, extra = _source(tmp_path, damage)
    before = digest(path)
    code, err = run_cli(["prepare", "user_text", "--out", tmp_path / "out", "--param", f"format={fmt}",
                         "--param", f"path={path}", "--param", "min_df=1", *extra], capsys)
    assert digest(path) == before, "prepare changed its own input"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir()), "a failed prepare left a corpus"
    assert code == 2 and named in err, err


def test_space_as_the_csv_separator_read(tmp_path, capsys):
    """user_text format=csv with --param 'sep= ' (a space) -> the file read with a space between its columns (was:
    'parameter sep must be a string, got None': YAML reads a blank value as null)."""
    (tmp_path / "t.csv").write_text("id text\n" + "".join(f"{i} {t.split()[0]}\n" for i, t in enumerate(TEXTS)))
    code, err = run_cli(["prepare", "user_text", "--out", tmp_path / "out", "--param", "format=csv", "--param",
                         f"path={tmp_path / 't.csv'}", "--param", "sep= ", "--param", "id_column=id", "--param",
                         "min_df=1", "--param", "max_df=1.0", "--param", "min_doc_length=1"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert meta["dataset_params"]["sep"] == " " and meta["n_docs"] == len(TEXTS)


def test_gensim_dictionary_as_vocabulary_named(tmp_path, capsys):
    """A vocabulary file written as 'id<TAB>word<TAB>count' (gensim's save_as_text, Mallet) -> exit 2 naming file:line
    and the word column to cut out (was: prepared with the words '0\\tapple\\t5', ..., whose tabs break topics.tsv)."""
    (tmp_path / "vocab.txt").write_text("0\tapple\t5\n1\tbread\t3\n2\tcheese\t1\n")
    (tmp_path / "docword.txt").write_text("2\n3\n3\n1 1 2\n1 2 1\n2 3 4\n")
    before = digest(tmp_path)
    code, err = run_cli(["prepare", "user_bow", "--out", tmp_path / "out", "--param", "format=uci", "--param",
                         f"path={tmp_path / 'docword.txt'}", "--param", f"vocab={tmp_path / 'vocab.txt'}"], capsys)
    assert code == 2 and "vocab.txt:1: a tab inside the word '0\\tapple\\t5'" in err and "cut -f2" in err, err
    assert digest(tmp_path) == before and not (tmp_path / "out").exists()


def test_jsonl_files_joined_with_their_byte_order_marks_read(tmp_path, capsys):
    """Two JSONL files joined with cat, each saved with a UTF-8 byte-order mark -> every record read, the mark skipped
    as at the file's start and counted in corpus.json (was: exit 2, 'not valid JSON (Unexpected UTF-8 BOM)')."""
    part = "".join(json.dumps({"text": t}) + "\n" for t in TEXTS)
    (tmp_path / "t.jsonl").write_text("\ufeff" + part + "\ufeff" + part, encoding="utf-8")
    code, err = run_cli(["prepare", "user_text", "--out", tmp_path / "out", "--param", f"path={tmp_path / 't.jsonl'}",
                         "--param", "min_df=1", "--param", "max_df=1.0"], capsys)
    assert code == 0, err
    meta = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert meta["n_docs"] == 10 and meta["preprocessing"]["byte_order_marks_inside_the_file"]["count"] == 1


@pytest.mark.parametrize("record, named", [
    pytest.param('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", "t.jsonl:2: not valid JSON (maximum recursion depth "
                 "exceeded", id="jsonl-arrays-nested-100000-deep"),
    pytest.param('{"text": "apple", "id": 1' + "0" * 5000 + "}", "t.jsonl:2: not valid JSON (Exceeds the limit (4300 "
                 "digits) for integer string conversion: value has 5001 digits)", id="jsonl-integer-of-5001-digits"),
])
def test_jsonl_record_json_cannot_hold_named(tmp_path, capsys, record, named):
    """A JSONL record nested 100,000 deep or holding an integer of 5,001 digits -> exit 2 naming file:line (was:
    'user_text.py: dataset user_text.build raised RecursionError / ValueError', blaming the recipe)."""
    (tmp_path / "t.jsonl").write_text(json.dumps({"text": "apple bread", "id": 0}) + "\n" + record + "\n")
    code, err = run_cli(["prepare", "user_text", "--out", tmp_path / "out", "--param", f"path={tmp_path / 't.jsonl'}",
                         "--param", "id_column=id"], capsys)
    assert code == 2 and named in err and not (tmp_path / "out").exists(), err
