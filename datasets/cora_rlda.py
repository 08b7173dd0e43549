"""Cora computer-science abstracts (R package lda), LDA-C with titles."""
from topicbench.corpus import make_docs_frame
from topicbench.dataset import Dataset
from topicbench.readers import ReaderError, bow_meta, corpus_from_bow, read_ldac, read_lines, seeded_split


class CoraRlda(Dataset):
    name = "cora_rlda"
    description = "Small scientific-abstract corpus (Science-like topics, no dates): 2,410 Cora CS abstracts, V=2,961"
    params = {"test_fraction": 0.1, "split_seed": 0}

    def build(self, corpora_dir=None, **p):
        src = self.source_dir(corpora_dir, "cora_rlda")
        counts, vocab, lines, n_read = read_ldac(src / "cora.ldac.gz", src / "vocab.txt", id_base=0)
        try:  # the R package's file is ASCII; a copy in UTF-8 is read as such, not as Latin-1 mojibake
            titles = [t for _, t in read_lines(src / "titles.txt", encoding="utf-8")]
        except ReaderError as err:
            if "not valid utf-8" not in str(err):
                raise
            titles = [t for _, t in read_lines(src / "titles.txt", encoding="latin-1")]
        if len(titles) != n_read:
            raise ReaderError(f"{src / 'titles.txt'}: {len(titles)} titles but {src / 'cora.ldac.gz'} "
                              f"has {n_read} documents")
        docs = make_docs_frame(counts.shape[0], split=seeded_split(counts.shape[0], p["test_fraction"], p["split_seed"]),
                               doc_id=[f"cora{i}" for i in lines], title=[titles[i] for i in lines])
        meta = bow_meta(self.name, self.description, "CRAN lda 1.5.2 cora.* (see PROVENANCE.md)", n_read - len(lines),
                        f"seeded random: {p['test_fraction']:.0%} test, seed {p['split_seed']}")
        return corpus_from_bow(counts, vocab, docs, meta)
