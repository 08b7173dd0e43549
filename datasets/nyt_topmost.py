"""Real NYT articles 2012-2022 (TopMost bag-of-words), with years and sections: the real NYT-like, time-ordered corpus."""
import ast
import json

import pandas as pd
import scipy.sparse as sp

from topicbench.corpus import Corpus, make_docs_frame
from topicbench.dataset import Dataset
from topicbench.readers import ReaderError, bow_meta, read_lines, read_vocab


class NYTTopmost(Dataset):
    name = "nyt_topmost"
    description = "Real NYT-like stream: 9,172 NYT articles 2012-2022 (BoW, V=10,000), year stamps, own train/test split"
    params = {}

    def build(self, corpora_dir=None, **p):
        src = self.source_dir(corpora_dir, "nyt_topmost")
        vocab = read_vocab(src / "vocab.txt")
        year_of_slice = {v: int(k) for k, v in json.loads((src / "time2id.txt").read_text()).items()}
        section_of = {v: k for k, v in ast.literal_eval((src / "label2id.txt").read_text()).items()}
        parts, frames = [], []
        for split in ("train", "test"):
            counts = sp.load_npz(src / f"{split}_bow.npz").tocsr()
            ids = [line for _, line in read_lines(src / f"{split}_idx.txt")]
            slices = [int(line) for _, line in read_lines(src / f"{split}_times.txt")]
            labels = [int(line) for _, line in read_lines(src / f"{split}_labels.txt")]
            if not (len(ids) == len(slices) == len(labels) == counts.shape[0]):
                raise ReaderError(f"{src}: {split} files disagree on the number of documents")
            parts.append(counts)
            frames.append(make_docs_frame(counts.shape[0], split=[split] * counts.shape[0],
                                          doc_id=[f"{split}-{i}" for i in ids],
                                          time=[float(year_of_slice[s]) for s in slices],
                                          label=[section_of[l] for l in labels]))
        counts = sp.vstack(parts, format="csr")
        meta = bow_meta(self.name, self.description, "BobXWu/TopMost tutorials/datasets/NYT (see PROVENANCE.md)", 0,
                        "the corpus's own train/test split")
        meta["time_unit"] = "decimal year (year only)"
        return Corpus(counts, vocab, pd.concat(frames, ignore_index=True), meta)
