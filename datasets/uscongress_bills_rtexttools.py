"""U.S. Congress bill descriptions, 107th Congress (RTextTools), with policy-agenda topic codes."""
from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, read_csv_text


class USCongressBills(TextDataset):
    name = "uscongress_bills_rtexttools"
    description = "Short legislative texts: 4,449 bill descriptions of the 107th Congress (time = 2001, its first year)"
    source = "CRAN RTextTools 1.4.3 USCongress (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "vocab_size": 3000}

    def read(self, corpora_dir, **p):
        path = self.source_dir(corpora_dir, "uscongress_bills_rtexttools") / "USCongress.csv.gz"
        frame = read_csv_text(path, "text", id_column="ID", sep=";", encoding="latin-1", extra_columns=("cong", "major"))
        bad = ~frame["cong"].str.fullmatch(r"\s*[1-9]\d*\s*")  # a Congress is numbered from 1 (the 1st, 1789)
        if bad.any():
            row = frame[bad].iloc[0]
            raise ReaderError(f"{path}:{row['line']}: bill {row['doc_id']}: cong {row['cong']!r} is not a Congress number "
                              f"(a positive integer) ({int(bad.sum())} such rows)")
        frame["time"] = 1789.0 + 2 * (frame.pop("cong").astype(int) - 1)  # a Congress starts in odd years from 1789
        frame["label"] = frame.pop("major")
        return frame
