"""20 Newsgroups "bydate" (raw Usenet messages), with its date-based train/test split."""
import tarfile

import pandas as pd

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, decode_legacy


def strip_headers(message: str) -> str:
    """Drop the header block except the Subject line (From/Organization/... would leak the label)."""
    head, _, body = message.replace("\r\n", "\n").partition("\n\n")  # CRLF: the blank line is '\r\n\r\n'
    subject = [line[len("Subject:"):] for line in head.splitlines() if line.startswith("Subject:")]
    return "\n".join(subject + [body])


class News20Bydate(TextDataset):
    name = "20news_bydate"
    description = "Short-ish discussion posts (Twitter-like stand-in at small scale): 18,846 Usenet messages, 20 groups, bydate split"
    source = "20news-bydate (J. Rennie), copy from julenminer/mlnn_P65 (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "strip_headers": True}

    def read(self, corpora_dir, **p):
        src = self.source_dir(corpora_dir, "20news_bydate")
        archive = src / "20news-bydate.tar.xz"
        self.culprit = str(archive)  # what errors about its documents name
        rows, skipped, utf8 = [], [], 0
        try:
            with tarfile.open(archive) as tar:
                for member in tar:
                    if not member.isfile():
                        continue
                    parts = member.name.split("/")
                    if len(parts) != 3:  # not <split>/<group>/<message>: counted, never read as a message
                        skipped.append(member.name)
                        continue
                    text, was_utf8 = decode_legacy(tar.extractfile(member).read())
                    utf8 += was_utf8
                    rows.append({"doc_id": member.name, "split": "test" if parts[0].endswith("test") else "train",
                                 "label": parts[1], "text": strip_headers(text) if p["strip_headers"] else text})
        except (tarfile.TarError, EOFError, OSError) as err:
            raise ReaderError(f"{archive}: truncated or corrupt archive ({err})") from err
        self.notes["messages_read_as_utf8"] = utf8  # the others as Latin-1 (the 1990s posts' own encoding)
        if skipped:
            self.notes["archive_files_skipped"] = {"count": len(skipped), "first": sorted(skipped)[:5]}
        return pd.DataFrame(rows).sort_values("doc_id", kind="stable")
