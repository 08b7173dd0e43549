"""New York Times front-page headlines 1996-2006 with daily dates (RTextTools)."""
from topicbench.readers import TEXT_PARAMS, TextDataset, parse_time, read_csv_text


class NYTHeadlines(TextDataset):
    name = "nyt_headlines_rtexttools"
    description = "Real NYT text with daily dates, tiny: 3,104 front-page headlines + subjects 1996-2006"
    source = "CRAN RTextTools 1.4.3 NYTimes (A. Boydstun; see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "vocab_size": 2000, "min_df": 2}

    def read(self, corpora_dir, **p):
        path = self.source_dir(corpora_dir, "nyt_headlines_rtexttools") / "NYTimes.csv.gz"
        frame = read_csv_text(path, ["Title", "Subject"], time_column="Date", id_column="Article_ID", sep=";",
                              encoding="latin-1", extra_columns=("Title", "Topic.Code"))
        frame["time"] = parse_time(frame.pop("time_raw"), fmt="%d-%b-%y", source=str(path),
                                   line_numbers=frame["line"].tolist())
        frame["title"] = frame.pop("Title")
        frame["label"] = frame.pop("Topic.Code")
        return frame
