"""Fault catalogue, classes of source the earlier passes had not seen (fourth red-team): LDA-C files whose id base is
ambiguous, dictionaries in another order than the counts, folders of mixed files.

Each case asserts exit 2 (or the error) naming the file (and line where there is one) and the fix, that no corpus
appeared at --out, and that the source was left as it was.
"""
import pytest

try:
    from ._prepare_util import digest, run_cli
except ImportError:
    from _prepare_util import digest, run_cli


def _fails(tmp_path, capsys, args):
    src, out = tmp_path / "src", tmp_path / "out"
    before = digest(src)
    code, err = run_cli([*args, "--out", out], capsys)
    assert digest(src) == before, "prepare changed its own input"
    assert not out.exists() or not any(out.iterdir()), "a failed prepare left a corpus behind"
    return code, err


def _ldac(tmp_path, body, *params):
    src = tmp_path / "src"
    src.mkdir()
    (src / "c.ldac").write_text(body)
    (src / "v.txt").write_text("apple\nbread\ncheese\ndates\n")
    args = ["prepare", "user_bow", "--param", "format=ldac", "--param", f"path={src / 'c.ldac'}",
            "--param", f"vocab={src / 'v.txt'}", "--param", "test_fraction=0"]
    return args + [a for p in params for a in ("--param", p)]


def test_ldac_without_id_zero_is_ambiguous(tmp_path, capsys):
    """An LDA-C file with no id 0 and largest id below V (1-based or 0-based?) -> exit 2 naming the file and id_base."""
    code, err = _fails(tmp_path, capsys, _ldac(tmp_path, "2 1:2 2:1\n1 3:4\n2 1:1 3:1\n"))
    assert code == 2 and "c.ldac: ambiguous word ids: no id 0 appears" in err and "id_base=1" in err


def test_ldac_stated_one_based_but_uses_id_zero(tmp_path, capsys):
    """id_base=1 stated for a file that uses id 0 -> exit 2 naming file:line (never shifted to word -1)."""
    code, err = _fails(tmp_path, capsys, _ldac(tmp_path, "2 1:2 2:1\n2 0:1 3:1\n", "id_base=1"))
    assert code == 2 and "c.ldac:2: word id 0 out of range [1, 5)" in err


def test_ldac_one_past_the_vocabulary_names_id_base(tmp_path, capsys):
    """An LDA-C id equal to V (a 1-based file) -> exit 2 naming file:line and the id_base=1 to pass."""
    code, err = _fails(tmp_path, capsys, _ldac(tmp_path, "2 0:2 4:1\n"))
    assert code == 2 and "c.ldac:1: word id 4 out of range [0, 4)" in err and "pass id_base=1" in err


@pytest.mark.parametrize("lines, named", [
    pytest.param(["2 cheese", "0 apple", "1 bread"], "an id column, not in line order", id="vocab-id-word-unsorted"),
    pytest.param(["cheese 2", "apple 0", "bread 1"], "sort it by the id", id="vocab-word-id-unsorted"),
    pytest.param(["apple 17", "bread 3", "cheese 9"], "a number column (frequencies?)", id="vocab-word-frequency"),
])
def test_vocabulary_with_a_number_column(tmp_path, capsys, lines, named):
    """A vocabulary file of 'id word' / 'word count' pairs (its order not the counts') -> exit 2 naming vocab:1."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "docword.txt").write_text("2\n3\n3\n1 1 2\n1 2 1\n2 3 1\n")
    (src / "vocab.txt").write_text("\n".join(lines) + "\n")
    code, err = _fails(tmp_path, capsys, ["prepare", "user_bow", "--param", f"path={src / 'docword.txt'}",
                                          "--param", f"vocab={src / 'vocab.txt'}"])
    assert code == 2 and "vocab.txt:1: every line is a word and a number" in err and named in err


def test_folder_with_a_binary_file(tmp_path, capsys):
    """A folder of text with an image beside it, read with pattern='*' -> exit 2 naming the image and pattern=."""
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("apple bread cheese")
    (src / "sub" / "b.txt").write_text("bread cheese dates")
    (src / "sub" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    code, err = _fails(tmp_path, capsys, ["prepare", "user_text", "--param", "format=files", "--param", f"path={src}"])
    assert code == 2 and "sub/pic.png:1: not valid utf-8" in err and "pass pattern=" in err

