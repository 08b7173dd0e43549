"""Real NYT articles 2012-2022 (TopMost bag-of-words), with years and sections: the real NYT-like, time-ordered corpus."""
import ast

import pandas as pd
import scipy.sparse as sp

from topicbench.corpus import Corpus, make_docs_frame, read_json, read_sparse_npz, read_text_file
from topicbench.dataset import Dataset
from topicbench.readers import ReaderError, _drop_empty, bow_meta, check_unique_ids, read_lines, read_vocab, whole_counts


def _mapping(path, parse) -> dict:
    """A ``{name: id}`` file (JSON or a Python dict literal) inverted to ``{id: name}``; names the file when malformed."""
    try:
        value = parse(path)
        if not isinstance(value, dict):
            raise ValueError(f"expected a mapping, got {type(value).__name__}")
        inverse: dict[int, str] = {}
        for name, id_ in value.items():
            if isinstance(id_, bool) or not isinstance(id_, int):  # int(1.7) would be 1, int(True) 1: never guessed
                raise ValueError(f"the id of {name!r} is {id_!r}, not an integer")
            if id_ in inverse:  # one id for two names: every document of that id would get the last name silently
                raise ValueError(f"id {id_} is given to both {inverse[id_]!r} and {name!r}")
            inverse[id_] = name
        return inverse
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as err:
        raise ReaderError(f"{path}: expected a {{name: integer id}} mapping ({type(err).__name__}: {err})") from err


def _ints(path, lookup=None) -> list:
    """One integer per line (mapped through ``lookup``); a bad line is named with its number."""
    out = []
    for line_no, line in read_lines(path):
        try:
            value = int(line)
            out.append(value if lookup is None else lookup[value])
        except ValueError:
            raise ReaderError(f"{path}:{line_no}: expected an integer, got {line[:40]!r}") from None
        except KeyError:
            raise ReaderError(f"{path}:{line_no}: id {line.strip()} has no entry in its id mapping") from None
    return out


class NYTTopmost(Dataset):
    name = "nyt_topmost"
    description = "Real NYT-like stream: 9,172 NYT articles 2012-2022 (BoW, V=10,000), year stamps, own train/test split"
    params = {}

    def build(self, corpora_dir=None, **p):
        src = self.source_dir(corpora_dir, "nyt_topmost")
        vocab = read_vocab(src / "vocab.txt")
        year_of_slice = _mapping(src / "time2id.txt", read_json)
        try:
            year_of_slice = {s: float(year) for s, year in year_of_slice.items()}
        except ValueError as err:
            raise ReaderError(f"{src / 'time2id.txt'}: a year is not a number ({err})") from None
        section_of = _mapping(src / "label2id.txt", lambda path: ast.literal_eval(read_text_file(path)))
        parts, frames = [], []
        for split in ("train", "test"):
            counts = whole_counts(read_sparse_npz(src / f"{split}_bow.npz"), src / f"{split}_bow.npz")
            if counts.shape[1] != len(vocab):
                raise ReaderError(f"{src / f'{split}_bow.npz'}: {counts.shape[1]} columns but {src / 'vocab.txt'} "
                                  f"has {len(vocab)} words")
            numbered = list(read_lines(src / f"{split}_idx.txt"))
            ids = [line.strip() for _, line in numbered]
            check_unique_ids(ids, [n for n, _ in numbered], src / f"{split}_idx.txt", "document index")
            times = _ints(src / f"{split}_times.txt", year_of_slice)
            labels = _ints(src / f"{split}_labels.txt", section_of)
            sizes = {f"{split}_bow.npz": counts.shape[0], f"{split}_idx.txt": len(ids),
                     f"{split}_times.txt": len(times), f"{split}_labels.txt": len(labels)}
            if len(set(sizes.values())) != 1:
                raise ReaderError(f"{src}: {split} files disagree on the number of documents: {sizes}")
            parts.append(counts)
            frames.append(make_docs_frame(counts.shape[0], split=[split] * counts.shape[0],
                                          doc_id=[f"{split}-{i}" for i in ids], time=times, label=labels))
        counts, kept = _drop_empty(sp.vstack(parts, format="csr"))  # as every bag-of-words reader: dropped and counted
        meta = bow_meta(self.name, self.description, "BobXWu/TopMost tutorials/datasets/NYT (see PROVENANCE.md)",
                        sum(p.shape[0] for p in parts) - len(kept), "the corpus's own train/test split")
        meta["time_unit"] = "decimal year (year only)"
        return Corpus(counts, vocab, pd.concat(frames, ignore_index=True).iloc[kept].reset_index(drop=True), meta)
