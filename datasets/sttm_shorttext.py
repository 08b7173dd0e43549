"""STTM short-text benchmark sets (already preprocessed): tweets, news titles, snippets, questions."""
import tarfile


from topicbench.corpus import make_docs_frame
from topicbench.dataset import Dataset
from topicbench.readers import ReaderError, bow_meta, corpus_from_bow, lines_of, seeded_split, whitespace_bow

SUBSETS = {"Biomedical": "Biomedical_label.txt", "GoogleNews": "GoogleNews_LABEL.txt",
           "Pascal_Flickr": "Pascal_Flickr_LABEL.txt", "SearchSnippets": "SearchSnippets_label.txt",
           "StackOverflow": "StackOverflow_label.txt", "Tweet": "Tweet_LABEL.txt"}


class SttmShorttext(Dataset):
    name = "sttm_shorttext"
    description = "Twitter-like short texts at small scale (5-15 tokens/doc): STTM sets, subset=Tweet|GoogleNews|... as distributed"
    params = {"subset": "Tweet", "test_fraction": 0.1, "split_seed": 0}
    choices = {"subset": SUBSETS}

    def build(self, corpora_dir=None, **p):
        archive = self.source_dir(corpora_dir, "sttm_shorttext") / "sttm_datasets.tar.xz"
        try:
            with tarfile.open(archive) as tar:
                text = tar.extractfile(f"{p['subset']}.txt").read().decode("utf-8")
                labels = lines_of(tar.extractfile(SUBSETS[p["subset"]]).read().decode("utf-8"))
        except (tarfile.TarError, EOFError, OSError, KeyError, UnicodeDecodeError) as err:
            raise ReaderError(f"{archive}: truncated or corrupt archive, or {p['subset']} missing ({err})") from err
        lines = lines_of(text)
        if len(lines) != len(labels):
            raise ReaderError(f"{archive}: {p['subset']}.txt has {len(lines)} lines but its label file {len(labels)}")
        counts, vocab, kept, report = whitespace_bow(lines, source=f"{archive}/{p['subset']}.txt")
        docs = make_docs_frame(len(kept), split=seeded_split(len(kept), p["test_fraction"], p["split_seed"]),
                               doc_id=[f"{p['subset']}{i}" for i in kept], label=[labels[i] for i in kept])
        meta = bow_meta(self.name, self.description, "qiang2100/STTM dataset/ (see PROVENANCE.md)", report["dropped_empty"],
                        f"seeded random: {p['test_fraction']:.0%} test, seed {p['split_seed']}",
                        subset=p["subset"], input_documents=len(lines),
                        **{k: v for k, v in report.items() if k == "tokens_recomposed_to_nfc"})
        return corpus_from_bow(counts, vocab, docs, meta)
