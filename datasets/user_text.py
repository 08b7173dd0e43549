"""A raw-text corpus a user brings: a folder of files, a JSONL file or a CSV file, with optional times."""

from topicbench.corpus import CorpusError
from topicbench.dataset import param_path
from topicbench.readers import TEXT_PARAMS, TextDataset, parse_time, read_csv_text, read_jsonl, read_text_files


# the parameters each format's reader reads (the others apply to every format)
READS = {"files": {"pattern"}, "jsonl": {"text_column", "time_column", "time_format", "id_column"},
         "csv": {"text_column", "time_column", "time_format", "id_column", "sep"}}


class UserText(TextDataset):
    name = "user_text"
    description = ("Your own raw text: format=files (path=<folder>) | jsonl | csv, text/time/id columns, "
                   "tokenised, stop-worded and vocabulary-selected as recorded in corpus.json; strip_html=true for web pages; "
                   "time_format: a strftime format, unix_s, unix_ms or decimal_year (default ISO 8601); sep=\\t for tab-separated files")
    source = "user-supplied text"
    params = {**TEXT_PARAMS, "format": "jsonl", "path": None, "text_column": "text", "time_column": None,
              "time_format": None, "id_column": None, "sep": ",", "encoding": "utf-8", "pattern": "*", "dedupe": False, "strip_html": False,
              "cjk_bigrams": True}
    param_types = {**TextDataset.param_types, "text_column": (str, list)}
    choices = {"format": ("files", "jsonl", "csv")}

    @classmethod
    def check_params(cls, p):
        super().check_params(p)
        if not p["path"]:
            raise CorpusError("user_text: needs --param path=<folder or file>")
        fmt = p["format"]
        unused = [k for k in sorted(set().union(*READS.values()) - READS[fmt]) if p[k] != cls.params[k]]
        if unused:  # a setting the format's reader never reads (a folder of files has no columns): refused, not ignored
            raise CorpusError(f"user_text: parameter {unused[0]} does not apply to format={fmt} (only to format="
                              f"{' or '.join(f for f in READS if unused[0] in READS[f])}); remove it")
        if p["time_format"] is not None and p["time_column"] is None:
            raise CorpusError(f"user_text: time_format={p['time_format']!r} without a time_column to read it from")
        columns = p["text_column"] if isinstance(p["text_column"], list) else [p["text_column"]]
        twice = sorted({c for c in columns if columns.count(c) > 1})
        if not columns or twice or not all(isinstance(c, str) and c for c in columns):  # a column twice: its counts doubled
            raise CorpusError(f"user_text: parameter text_column must name one or more distinct columns, got "
                              f"{p['text_column']!r}" + (f" ({twice[0]!r} twice: every word of it would count twice)"
                                                          if twice else ""))

    def read(self, corpora_dir, **p):
        path = param_path(p["path"], corpora_dir)
        self.culprit = f"user_text ({path})"
        if p["format"] == "files":
            frame = read_text_files(path, p["pattern"], p["encoding"])
        elif p["format"] == "jsonl":
            frame = read_jsonl(path, p["text_column"], p["time_column"], p["id_column"], p["encoding"])
        else:
            frame = read_csv_text(path, p["text_column"], p["time_column"], p["id_column"], p["sep"], p["encoding"])
        # what the reader records for corpus.json: files skipped as not documents (hidden, PROVENANCE.md) by name,
        # CSV records whose quoted fields span lines
        self.notes.update(frame.attrs)
        if "time_raw" in frame.columns:
            frame["time"] = parse_time(frame.pop("time_raw"), p["time_format"], source=str(path), report=self.notes,
                                       line_numbers=frame["line"].tolist() if "line" in frame else None)
        return frame
