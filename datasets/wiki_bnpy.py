"""Wikipedia bag-of-words shipped with bnpy: the real Wikipedia-like corpus."""
from topicbench.corpus import make_docs_frame
from topicbench.dataset import Dataset
from topicbench.readers import bow_meta, corpus_from_bow, read_ldac, seeded_split


class WikiBnpy(Dataset):
    name = "wiki_bnpy"
    description = "Real Wikipedia-like corpus: 7,961 Wikipedia articles as LDA-C BoW (V=6,130) from bnpy; no dates"
    params = {"test_fraction": 0.1, "split_seed": 0}

    def build(self, corpora_dir=None, **p):
        src = self.source_dir(corpora_dir, "wiki_bnpy")
        counts, vocab, lines, n_read = read_ldac(src / "train.ldac.gz", src / "vocab.txt", id_base=0)
        docs = make_docs_frame(counts.shape[0], split=seeded_split(counts.shape[0], p["test_fraction"], p["split_seed"]),
                               doc_id=[f"line{i + 1}" for i in lines])
        meta = bow_meta(self.name, self.description, "bnpy 0.1.7 datasets/wiki (see PROVENANCE.md)", n_read - len(lines),
                        f"seeded random: {p['test_fraction']:.0%} test, seed {p['split_seed']}")
        return corpus_from_bow(counts, vocab, docs, meta)
