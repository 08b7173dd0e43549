"""New York Times front-page headlines 1996-2006 with daily dates (RTextTools)."""
import numpy as np

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, parse_time, read_csv_text

RELEASE = "RTextTools 1.4.3"  # the release this recipe reads (its PROVENANCE.md); published on CRAN in 2020
RELEASED_BEFORE = 2021  # decimal year: no headline of the release is dated on or after it


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
        # the release was published is no front page of it: the century was guessed wrong, never taken. The bound is
        # the release's, not today's, so the same file prepares (or is refused) the same on any day
        late = np.flatnonzero(frame["time"].to_numpy() >= RELEASED_BEFORE)
        if late.size:
            row = frame.iloc[int(late[0])]
            raise ReaderError(f"{path}:{row['line']}: article {row['doc_id']}: its two-digit year reads as "
                              f"{int(row['time'])}, after the release ({RELEASE}, {RELEASED_BEFORE - 1}): the century "
                              f"is ambiguous ({late.size} such rows)")
        frame["title"] = frame.pop("Title")
        frame["label"] = frame.pop("Topic.Code")
        return frame
