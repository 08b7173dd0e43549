"""NBER working-paper titles 1973-2021 with year and month: a decades-long science stream (short docs)."""

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, read_csv_text


class NberTitles(TextDataset):
    name = "nber_titles"
    description = "Science-like stream over decades: 30,083 NBER working-paper titles 1973-2021 (year+month), short docs"
    source = "CRAN nberwp 1.2.0 papers (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "vocab_size": 5000, "min_doc_length": 2}

    def read(self, corpora_dir, **p):
        path = self.source_dir(corpora_dir, "nber_titles") / "nber_papers.csv.gz"
        frame = read_csv_text(path, "title", id_column="paper", extra_columns=("year", "month"))
        for column in ("year", "month"):
            bad = ~frame[column].str.fullmatch(r"\s*\d+\s*")
            if bad.any():
                row = frame[bad].iloc[0]
                raise ReaderError(f"{path}:{row['line']}: paper {row['doc_id']}: {column} {row[column]!r} is not an "
                                  f"integer ({int(bad.sum())} such rows)")
        year, month = frame.pop("year").astype(int).to_numpy(), frame.pop("month").astype(int).to_numpy()
        bad = (month < 1) | (month > 12)  # month 13 would be January of the next year, month 0 December of the last
        if bad.any():
            row = frame[bad].iloc[0]
            raise ReaderError(f"{path}:{row['line']}: paper {row['doc_id']}: month {int(month[bad][0])} is not in 1-12 "
                              f"({int(bad.sum())} such rows)")
        frame["time"] = year + (month - 1) / 12.0
        frame["title"] = frame["text"]
        return frame
