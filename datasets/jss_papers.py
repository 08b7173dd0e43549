"""Journal of Statistical Software abstracts 1996-2010 (topicmodels vignette corpus), dated."""
from topicbench.readers import TEXT_PARAMS, TextDataset, parse_time, read_jsonl


class JssPapers(TextDataset):
    name = "jss_papers"
    description = "Tiny dated science-abstract sample: 361 JSS papers 1996-2010 (title + abstract)"
    source = "CRAN topicmodels 0.2-16 JSS_papers (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "vocab_size": 2000, "max_df": 0.5}

    def read(self, corpora_dir, **p):
        path = self.source_dir(corpora_dir, "jss_papers") / "jss_papers.jsonl.gz"
        frame = read_jsonl(path, text_field="description", time_field="date")
        titles = read_jsonl(path, text_field="title")["text"]
        frame["title"] = titles.to_numpy()
        frame["text"] = frame["title"] + "\n" + frame["text"].str.replace(r"<[^>]+>|\\\w+", " ", regex=True)
        frame["doc_id"] = "jss" + frame["doc_id"]
        frame["time"] = parse_time(frame.pop("time_raw"), fmt="%Y-%m-%d", source=str(path),
                                   line_numbers=frame["line"].tolist())
        return frame
