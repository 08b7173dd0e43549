"""New York Times front-page headlines 1996-2006 with daily dates (RTextTools)."""
import numpy as np
import pandas as pd

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, decimal_year, parse_time, read_csv_text


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
        # a two-digit year 00-68 is read as 20xx, 69-99 as 19xx: a headline of 1950 would be dated 2050. A date after
        # today is no front page yet: the century was guessed wrong, never taken
        now = decimal_year(pd.DatetimeIndex([pd.Timestamp.now()]))[0]
        future = np.flatnonzero(frame["time"].to_numpy() > now)
        if future.size:
            row = frame.iloc[int(future[0])]
            raise ReaderError(f"{path}:{row['line']}: article {row['doc_id']}: its two-digit year reads as "
                              f"{int(row['time'])}, after today: the century is ambiguous ({future.size} such rows)")
        frame["title"] = frame.pop("Title")
        frame["label"] = frame.pop("Topic.Code")
        return frame
