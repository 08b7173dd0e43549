"""Reuters-21578 newswire (original SGML), dated: a news stream for time-ordered runs."""
import re
import tarfile

import pandas as pd

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset, decimal_year, decode_legacy

_DOC = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
_OPEN = re.compile(r"<REUTERS\b")
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_DATE = re.compile(r"(\d{1,2}-[A-Z]{3}-\d{4})(?:\s+(\d{1,2}):(\d{2}):(\d{2}))?")
_ENTITY = re.compile(r"&#\d+;")
# Lewis's README (sec. VI): LEWISSPLIT is TRAIN, TEST or NOT-USED. NOT-USED documents were left out of Lewis's
# categorisation experiments, not because their text is bad; a topic model has no labels to leak, so they train.
LEWIS_SPLITS = {"TRAIN": "train", "TEST": "test", "NOT-USED": "train"}


def _field(tag, body):
    match = re.search(rf"<{tag}>(.*?)</{tag}>", body, re.S)
    return match.group(1) if match else ""


class Reuters21578(TextDataset):
    name = "reuters21578"
    description = "News stream: 21,578 Reuters newswires Feb-Oct 1987 with date+time stamps; LEWISSPLIT test, the rest train"
    source = "Reuters-21578 Distribution 1.0 SGML (see PROVENANCE.md)"
    params = {**TEXT_PARAMS}

    def read(self, corpora_dir, **p):
        src = self.source_dir(corpora_dir, "reuters21578")
        archive = src / "reuters21578.tar.gz"
        rows, bad_clock, with_body, body_tokens, first_seen, not_used = [], 0, 0, 0, {}, 0
        try:
            with tarfile.open(archive) as tar:
                members = sorted((m for m in tar.getmembers() if m.name.endswith(".sgm")), key=lambda m: m.name)
                for member in members:
                    text, _ = decode_legacy(tar.extractfile(member).read())
                    opened, closed = len(_OPEN.findall(text)), text.count("</REUTERS>")
                    if opened != closed:  # a document cut off (a truncated member) would be left out by _DOC silently
                        raise ReaderError(f"{archive}/{member.name}: {opened} <REUTERS> tags but {closed} </REUTERS>: "
                                          f"truncated or damaged file")
                    for attrs, body in _DOC.findall(text):
                        attr = dict(_ATTR.findall(attrs))
                        if not attr.get("NEWID"):  # the document id: without it a document has no name
                            raise ReaderError(f"{archive}/{member.name}: a <REUTERS> tag without NEWID "
                                              f"(after NEWID={rows[-1]['doc_id'] if rows else None})")
                        if attr["NEWID"] in first_seen:
                            raise ReaderError(f"{archive}/{member.name}: NEWID={attr['NEWID']} appears twice (first in "
                                              f"{first_seen[attr['NEWID']]})")
                        first_seen[attr["NEWID"]] = member.name
                        split = attr.get("LEWISSPLIT")
                        if split not in LEWIS_SPLITS:  # a misspelt or missing split would land in train unnoticed
                            raise ReaderError(f"{archive}/{member.name}: NEWID={attr['NEWID']}: LEWISSPLIT={split!r}, "
                                              f"expected one of {sorted(LEWIS_SPLITS)}")
                        not_used += split == "NOT-USED"
                        date = _DATE.search(_field("DATE", body))
                        if date is None:
                            raise ReaderError(f"{archive}/{member.name}: NEWID={attr.get('NEWID')}: no parseable <DATE>")
                        topics = re.findall(r"<D>(.*?)</D>", _field("TOPICS", body))
                        title = _ENTITY.sub(" ", _field("TITLE", body))
                        text_body = _ENTITY.sub(" ", _field("BODY", body))
                        with_body += "<BODY>" in body
                        body_tokens += len(text_body.split())
                        day, hour, minute, second = date.groups()
                        if hour is None or int(hour) > 23 or int(minute) > 59 or int(second) > 59:
                            bad_clock += 1  # one date reads "31-MAR-1987 605:12:19.12"
                            hour = minute = second = "00"
                        rows.append({"doc_id": attr["NEWID"], "date": f"{day} {hour}:{minute}:{second}",
                                     "split": LEWIS_SPLITS[split],
                                     "label": topics[0] if topics else "", "title": title,
                                     "text": title + "\n" + text_body})
        except (tarfile.TarError, EOFError, OSError) as err:
            raise ReaderError(f"{archive}: truncated or corrupt archive ({err})") from err
        self.notes.update(documents_with_body=with_body, body_whitespace_tokens=body_tokens)
        self.notes["dates_without_valid_clock_time"] = bad_clock  # kept at midnight of their day
        self.notes["lewissplit_not_used_kept_as_train"] = not_used
        frame = pd.DataFrame(rows)
        stamps = pd.to_datetime(frame["date"], format="%d-%b-%Y %H:%M:%S", errors="coerce")  # clocks repaired above
        if stamps.isna().any():  # so only the day can be impossible (30-FEB-1987)
            row = frame[stamps.isna()].iloc[0]
            raise ReaderError(f"{archive}/{first_seen[row['doc_id']]}: NEWID={row['doc_id']}: <DATE> "
                              f"{row['date'].split()[0]!r} is not a calendar day")
        frame.pop("date")
        frame["time"] = decimal_year(stamps)
        return frame
