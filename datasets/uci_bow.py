"""The public UCI bag-of-words collections (NYTimes, KOS, NIPS, Enron, PubMed); downloads only when asked."""
import os

from topicbench.corpus import make_docs_frame
from topicbench.dataset import Dataset, DatasetUnavailable
from topicbench.download import UCI_BOW
from topicbench.readers import bow_meta, corpus_from_bow, read_uci_bow, seeded_split


class UCIBow(Dataset):
    name = "uci_bow"
    description = ("UCI bag-of-words sets (collection=nytimes: the 300K-article NYT-like BoW; kos, nips, enron, "
                   "pubmed); files from corpora_dir/uci_bow/ or the download cache, fetched only with download=true")
    params = {"collection": "kos", "download": False, "test_fraction": 0.1, "split_seed": 0}
    choices = {"collection": UCI_BOW}

    @staticmethod
    def _folders(corpora_dir, collection):
        """(the folders searched in order, the first holding both files or None): corpora_dir/uci_bow/, the cache."""
        from pathlib import Path

        from topicbench.download import cache_dir

        spec = UCI_BOW[collection]
        candidates = ([Path(corpora_dir) / "uci_bow"] if corpora_dir else []) + [cache_dir() / "uci_bow"]
        found = next((d for d in candidates if (d / spec.docword).is_file() and (d / spec.vocab).is_file()), None)
        return candidates, found

    @staticmethod
    def _check_partial(folder, spec):
        """corpora_dir/uci_bow/ holding one of a collection's two files, or a name of one that is no file (a folder, a
        broken link), or its decompressed copy: an error saying which, where 'not found' would hide it and the download
        cache could be read in its place."""
        from topicbench.readers import missing_file

        names = [folder / spec.docword, folder / spec.vocab]
        beside = [p.with_suffix("") for p in names if p.suffix == ".gz"]
        if not any(os.path.lexists(p) for p in names + beside):
            return
        for path in names:
            if not path.is_file():
                problem = (str(missing_file(path)) if not os.path.lexists(path) else
                           f"{path}: {'a broken or looping symbolic link' if path.is_symlink() else 'not a file'}")
                raise DatasetUnavailable(f"uci_bow: {problem}; corpora_dir/uci_bow/ needs both {spec.docword} and "
                                         f"{spec.vocab} (collection={spec.name})")

    @classmethod
    def other_sources(cls, corpora_dir, params):
        """The two files read, where they are found (or, for a download, where it puts them): fingerprinted."""
        candidates, found = cls._folders(corpora_dir, params["collection"])
        spec = UCI_BOW[params["collection"]]
        folder = found if found is not None else candidates[-1] if params["download"] else None
        return [] if folder is None else [folder / spec.docword, folder / spec.vocab]

    def build(self, corpora_dir=None, **p):
        from topicbench.download import fetch_uci_bow

        candidates, found = self._folders(corpora_dir, p["collection"])
        spec = UCI_BOW[p["collection"]]
        if corpora_dir and found != candidates[0]:  # the user's folder, partly filled: named, not passed over for the cache
            self._check_partial(candidates[0], spec)
        if found is not None:
            docword, vocab_path = found / spec.docword, found / spec.vocab
        elif p["download"]:
            docword, vocab_path = fetch_uci_bow(p["collection"])
        else:
            raise DatasetUnavailable(f"uci_bow: {spec.docword} and {spec.vocab} not found in {[str(c) for c in candidates]}; "
                                     f"pass --param download=true to fetch them from UCI")
        summed: dict = {}  # repeated (document, word) entries, added up and counted in corpus.json
        counts, vocab, kept, n_input = read_uci_bow(docword, vocab_path, report=summed)
        docs = make_docs_frame(len(kept), split=seeded_split(len(kept), p["test_fraction"], p["split_seed"]),
                               doc_id=[f"{p['collection']}{i + 1}" for i in kept])
        meta = bow_meta(f"uci_{p['collection']}", self.description, f"UCI bag-of-words {spec.docword}",
                        n_input - len(kept), f"seeded random: {p['test_fraction']:.0%} test, seed {p['split_seed']}",
                        collection=p["collection"], **summed)
        return corpus_from_bow(counts, vocab, docs, meta)
