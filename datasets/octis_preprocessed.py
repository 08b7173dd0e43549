"""OCTIS preprocessed corpora: BBC News, DBLP titles, CiteSeer-M10 titles (as distributed, OCTIS splits)."""
import tarfile

from topicbench.corpus import make_docs_frame
from topicbench.dataset import Dataset
from topicbench.readers import ReaderError, bow_meta, corpus_from_bow, lines_of, whitespace_bow

SUBSETS = ("BBC_News", "DBLP", "M10")


class OctisPreprocessed(Dataset):
    name = "octis_preprocessed"
    description = "Lemmatized benchmark corpora from OCTIS: subset=BBC_News (2,225 news articles) | DBLP | M10 (paper titles)"
    params = {"subset": "BBC_News"}
    choices = {"subset": SUBSETS}

    def build(self, corpora_dir=None, **p):
        archive = self.source_dir(corpora_dir, "octis_preprocessed") / "octis_BBC_DBLP_M10.tar.xz"
        try:
            with tarfile.open(archive) as tar:
                tsv = tar.extractfile(f"{p['subset']}/corpus.tsv").read().decode("utf-8")
                vocab_text = tar.extractfile(f"{p['subset']}/vocabulary.txt").read().decode("utf-8")
        except (tarfile.TarError, EOFError, OSError, KeyError, UnicodeDecodeError) as err:
            raise ReaderError(f"{archive}: truncated or corrupt archive, or {p['subset']} missing ({err})") from err
        vocab, first = [], {}
        for line_no, line in enumerate(lines_of(vocab_text), start=1):
            word = line.strip()
            if not word:
                continue
            if len(word.split()) > 1 or word in first:  # a word twice would be two columns, one never counted
                raise ReaderError(f"{archive}/{p['subset']}/vocabulary.txt:{line_no}: "
                                  + (f"duplicate word {word!r} (first on line {first[word]})" if word in first else
                                     f"{word!r} is not one word (the file has one word a line)"))
            first[word] = line_no
            vocab.append(word)
        texts, splits, labels = [], [], []
        for line_no, line in enumerate(lines_of(tsv), start=1):
            fields = line.split("\t")
            if len(fields) < 2 or fields[1] not in ("train", "val", "test"):
                raise ReaderError(f"{archive}/{p['subset']}/corpus.tsv:{line_no}: expected 'text<TAB>train|val|test<TAB>label'")
            texts.append(fields[0])
            splits.append("test" if fields[1] == "test" else "train")
            labels.append(fields[2] if len(fields) > 2 else "")
        counts, vocab, kept, report = whitespace_bow(texts, sorted(vocab), source=f"{archive}/{p['subset']}/corpus.tsv")
        docs = make_docs_frame(len(kept), split=[splits[i] for i in kept], doc_id=[f"{p['subset']}{i}" for i in kept],
                               label=[labels[i] for i in kept])
        meta = bow_meta(self.name, self.description, "MIND-Lab/OCTIS preprocessed_datasets (see PROVENANCE.md)",
                        report["dropped_empty"], "OCTIS's own split: test -> test, train and val -> train",
                        subset=p["subset"], input_documents=len(texts))
        return corpus_from_bow(counts, vocab, docs, meta)
