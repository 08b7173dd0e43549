"""Downloads of the public UCI bag-of-words collections (Newman 2008): cached, resumable, verified.

Never used by the default or ci profiles: the ``uci_bow`` dataset only downloads with
``download=True``. A transfer goes to ``<file>.part`` and resumes with an HTTP Range request
after an interruption; the finished file is checked against its sha256 before it is renamed into
the cache, so a corrupt or truncated download never looks complete.

The sha256 sums of the UCI files could not be computed where this was written (no network), so
``UCI_BOW`` pins none yet. Until a sum is pinned, the first verified download records its sum in
the cache's ``manifest.json`` (trust on first use) and every later use is checked against it;
the UCI header (D and W, from the collection's readme) is checked on every download.
"""
from __future__ import annotations

import gzip
import http.client
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .corpus import CorpusError
from .io import check_path_argument, file_sha256

UCI_BASE = "https://archive.ics.uci.edu/ml/machine-learning-databases/bag-of-words/"


@dataclass(frozen=True)
class UCICollection:
    name: str
    n_docs: int  # D in the UCI readme
    n_words: int  # W in the UCI readme
    docword_sha256: str | None = None  # pin here once known
    vocab_sha256: str | None = None

    @property
    def docword(self) -> str:
        return f"docword.{self.name}.txt.gz"

    @property
    def vocab(self) -> str:
        return f"vocab.{self.name}.txt"


UCI_BOW = {c.name: c for c in (
    UCICollection("kos", 3430, 6906),
    UCICollection("nips", 1500, 12419),
    UCICollection("enron", 39861, 28102),
    UCICollection("nytimes", 300000, 102660),
    UCICollection("pubmed", 8200000, 141043),
)}


class DownloadError(CorpusError):
    """A download failed, was interrupted for good, or did not match its checksum."""


def cache_dir() -> Path:
    """$TOPICBENCH_CACHE, else ~/.cache/topicbench. Set empty (an unset shell variable exported) it would be the current
    folder, and '~/x' quoted is a folder named '~' there: both refused, so a download never writes where no one asked."""
    given = os.environ.get("TOPICBENCH_CACHE")
    if given is not None and (not given.strip() or given.startswith("~")):
        raise DownloadError(f"$TOPICBENCH_CACHE is {given!r}: " + ("empty, which would put the download cache in the "
                            "current folder" if not given.strip() else "it starts with '~', which is not expanded to "
                            "the home folder here (it would be a folder named '~')") + "; give the full path or unset it")
    return Path(given) if given is not None else Path.home() / ".cache" / "topicbench"


def _manifest(cache: Path) -> dict:
    path = cache / "manifest.json"
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise DownloadError(f"{path}: cannot be read as JSON ({err}); delete it to re-verify the cache") from err
    if not isinstance(manifest, dict) or not all(isinstance(v, dict) for v in manifest.values()):
        raise DownloadError(f"{path}: expected a JSON object of {{file: {{url, sha256}}}}; delete it to re-verify the cache")
    return manifest


def _record(cache: Path, name: str, url: str, digest: str) -> None:
    from .io import write_text

    manifest = _manifest(cache)
    manifest[name] = {"url": url, "sha256": digest}
    write_text(cache / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def _transfer(url: str, part: Path, timeout: float, block: int) -> bool:
    """Append the rest of ``url`` to ``part``; returns True when the transfer reached its end."""
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and have:  # nothing left to send: the part file is already whole
            return True
        raise DownloadError(f"{url}: HTTP {err.code} {err.reason}") from err
    except (urllib.error.URLError, OSError) as err:
        raise DownloadError(f"{url}: cannot connect ({err})") from err
    with response:
        if have and response.status == 200:  # the server ignored Range: start again
            have = 0
        expected = response.headers.get("Content-Length")
        expected = int(expected) if expected is not None else None
        received = 0
        with open(part, "ab" if have else "wb") as out:
            try:
                for chunk in iter(lambda: response.read(block), b""):
                    out.write(chunk)
                    received += len(chunk)
            except (OSError, http.client.HTTPException):  # connection dropped: keep what arrived, resume later
                return False
    return expected is None or received >= expected


def fetch(url: str, dest, sha256: str | None = None, retries: int = 3, timeout: float = 60.0,
          block: int = 1 << 20) -> Path:
    """Download ``url`` to ``dest`` unless it is already there; resume interrupted transfers; verify sha256.

    A checksum mismatch deletes the partial file and raises :class:`DownloadError` naming the URL and
    both sums. An existing ``dest`` is re-verified when a sum is given.
    """
    check_path_argument(dest, "dest", DownloadError)
    dest = Path(dest)
    if dest.is_file():
        if sha256 and file_sha256(dest) != sha256:
            raise DownloadError(f"{dest}: cached file does not match sha256 {sha256} (corrupt cache?); delete it to re-download")
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    for _attempt in range(retries + 1):
        if _transfer(url, part, timeout, block):
            break
    else:
        size = part.stat().st_size if part.exists() else 0
        raise DownloadError(f"{url}: transfer interrupted {retries + 1} times ({size} bytes kept in {part}); "
                            f"run again to resume")
    digest = file_sha256(part)
    if sha256 and digest != sha256:
        part.unlink()
        raise DownloadError(f"{url}: sha256 mismatch: expected {sha256}, got {digest} (corrupt download; removed)")
    os.replace(part, dest)
    return dest


def _check_uci_header(path: Path, collection: UCICollection) -> None:
    try:
        with gzip.open(path, "rt", encoding="ascii") as handle:
            header = [handle.readline().strip() for _ in range(3)]
        n_docs, n_words = int(header[0]), int(header[1])
        int(header[2])
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as err:
        raise DownloadError(f"{path}: not a gzip UCI docword file ({err})") from err
    if (n_docs, n_words) != (collection.n_docs, collection.n_words):
        raise DownloadError(f"{path}: header D={n_docs}, W={n_words}; the UCI readme says D={collection.n_docs}, "
                            f"W={collection.n_words} for {collection.name}")


def fetch_uci_bow(name: str, cache=None, base_url: str = UCI_BASE, registry: dict | None = None,
                  **fetch_options) -> tuple[Path, Path]:
    """The (docword, vocab) paths of a UCI collection, downloaded into the cache if needed."""
    registry = UCI_BOW if registry is None else registry
    if name not in registry:
        raise DownloadError(f"unknown UCI bag-of-words collection {name!r}; known: {sorted(registry)}")
    collection = registry[name]
    check_path_argument(cache, "cache", DownloadError)
    cache = Path(cache) if cache is not None else cache_dir()
    folder = cache / "uci_bow"
    manifest = _manifest(cache)
    paths = []
    for filename, pinned in ((collection.docword, collection.docword_sha256), (collection.vocab, collection.vocab_sha256)):
        known = pinned or manifest.get(f"uci_bow/{filename}", {}).get("sha256")
        url = base_url.rstrip("/") + "/" + filename
        fresh = not (folder / filename).is_file()
        path = fetch(url, folder / filename, known, **fetch_options)
        if filename.startswith("docword") and fresh:
            try:
                _check_uci_header(path, collection)
            except DownloadError:
                path.unlink()
                raise
        if known is None:
            _record(cache, f"uci_bow/{filename}", url, file_sha256(path))
        paths.append(path)
    return paths[0], paths[1]
