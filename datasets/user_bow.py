"""A bag-of-words corpus a user brings: UCI docword, LDA-C or Matrix Market, with its vocabulary file."""

from topicbench.corpus import CorpusError, make_docs_frame
from topicbench.dataset import Dataset, param_path
from topicbench.readers import bow_meta, corpus_from_bow, read_ldac, read_matrix_market, read_uci_bow, seeded_split

READERS = {"uci": read_uci_bow, "ldac": read_ldac, "mm": read_matrix_market}


class UserBow(Dataset):
    name = "user_bow"
    description = ("Your own bag-of-words corpus: format=uci|ldac|mm, path=<counts file>, vocab=<one word per line>; "
                   "a Matrix Market file with words in rows and documents in columns needs docs_in_rows=false; "
                   "LDA-C ids are 0-based unless id_base=1 (a file with no id 0 needs id_base stated); document ids "
                   "doc<n>, n the file's own number of the document (UCI docID, Matrix Market row or column, LDA-C line)")
    params = {"format": "uci", "path": None, "vocab": None, "docs_in_rows": True, "id_base": None, "encoding": "utf-8", "test_fraction": 0.1,
              "split_seed": 0}

    param_types = {"id_base": (int, type(None))}
    choices = {"format": READERS}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        if not p["path"] or not p["vocab"]:
            raise CorpusError("user_bow: needs --param path=<counts file> and --param vocab=<vocabulary file>")
        if not p["docs_in_rows"] and p["format"] != "mm":  # UCI and LDA-C say which id is the document
            raise CorpusError(f"user_bow: docs_in_rows=false is for format=mm only, got format={p['format']}")
        if p["id_base"] is not None and p["format"] != "ldac":  # UCI is 1-based, Matrix Market too, by their specs
            raise CorpusError(f"user_bow: id_base is for format=ldac only (uci and mm are 1-based by definition), got "
                              f"format={p['format']}")

    def build(self, corpora_dir=None, **p):
        path = param_path(p["path"], corpora_dir)
        vocab_path = param_path(p["vocab"], corpora_dir)
        if path.resolve() == vocab_path.resolve():  # each line of counts a 'word': refused only by luck (a repeat)
            raise CorpusError(f"user_bow: path and vocab name the same file, {path}: vocab= is the vocabulary file, "
                              f"one word per line")
        extra = ({"docs_in_rows": p["docs_in_rows"]} if p["format"] == "mm" else
                 {"id_base": p["id_base"]} if p["format"] == "ldac" else {})
        summed: dict = {}  # repeated (document, word) entries, added up as the formats' readers do, and counted
        counts, vocab, kept, n_input = READERS[p["format"]](path, vocab_path, **extra, encoding=p["encoding"], report=summed)
        docs = make_docs_frame(len(kept), split=seeded_split(len(kept), p["test_fraction"], p["split_seed"]),
                               doc_id=[f"doc{i + 1}" for i in kept])  # the file's own numbers, which count from 1
        meta = bow_meta(self.name, self.description, f"{p['format']} file {path.name} + {vocab_path.name}",
                        n_input - len(kept),
                        f"seeded random: {p['test_fraction']:.0%} test, seed {p['split_seed']}", format=p["format"], **extra,
                        **summed)
        return corpus_from_bow(counts, vocab, docs, meta)
