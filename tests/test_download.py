"""UCI downloads against a local HTTP server on 127.0.0.1: cache, resume, verification, corruption.

The server serves a small UCI fixture (generated here) and can be told to cut a transfer short,
to ignore Range requests, or to serve corrupted bytes; it records every request it receives.
"""
import gzip
import hashlib
import http.server
import threading

import numpy as np
import pytest

from topicbench.dataset import DatasetUnavailable, prepare
from topicbench.download import DownloadError, UCICollection, fetch, fetch_uci_bow


class FixtureServer(http.server.ThreadingHTTPServer):
    files: dict[str, bytes]
    requests: list[tuple[str, str | None]]
    cut_after: int | None = None  # close the connection after this many body bytes (once)
    ignore_range = False
    corrupt = False


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        server = self.server
        name = self.path.rsplit("/", 1)[-1]
        server.requests.append((name, self.headers.get("Range")))
        if name not in server.files:
            self.send_error(404)
            return
        body = server.files[name]
        if server.corrupt:
            body = body[:100] + bytes([body[100] ^ 0xFF]) + body[101:]
        start = 0
        range_header = self.headers.get("Range")
        if range_header and not server.ignore_range:
            start = int(range_header.removeprefix("bytes=").rstrip("-"))
            if start >= len(body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        payload = body[start:]
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if server.cut_after is not None:
            cut, server.cut_after = server.cut_after, None
            self.wfile.write(payload[:cut])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(payload)


def uci_fixture(n_docs=200, n_words=50, seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for d in range(1, n_docs + 1):
        for w in sorted(rng.choice(n_words, size=5, replace=False) + 1):
            lines.append(f"{d} {w} {rng.integers(1, 4)}")
    text = "\n".join([str(n_docs), str(n_words), str(len(lines))] + lines) + "\n"
    vocab = "".join(f"word{i}\n" for i in range(n_words))
    return gzip.compress(text.encode(), mtime=0), vocab.encode()


@pytest.fixture
def server():
    docword, vocab = uci_fixture()
    srv = FixtureServer(("127.0.0.1", 0), Handler)
    srv.files = {"docword.tiny.txt.gz": docword, "vocab.tiny.txt": vocab}
    srv.requests = []
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.base = f"http://127.0.0.1:{srv.server_address[1]}/bag-of-words/"
    yield srv
    srv.shutdown()
    srv.server_close()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


REGISTRY = {"tiny": UCICollection("tiny", 200, 50)}


def test_download_verify_and_cache(server, tmp_path):
    docword, vocab = fetch_uci_bow("tiny", cache=tmp_path, base_url=server.base, registry=REGISTRY)
    assert docword.read_bytes() == server.files["docword.tiny.txt.gz"] and vocab.read_bytes() == server.files["vocab.tiny.txt"]
    manifest = (tmp_path / "manifest.json").read_text()
    assert sha(server.files["docword.tiny.txt.gz"]) in manifest  # pinned on first use
    n_requests = len(server.requests)
    fetch_uci_bow("tiny", cache=tmp_path, base_url=server.base, registry=REGISTRY)
    assert len(server.requests) == n_requests  # served from the cache
    docword.write_bytes(docword.read_bytes()[:-3] + b"xyz")  # the cached copy goes bad
    with pytest.raises(DownloadError, match=r"docword\.tiny\.txt\.gz: cached file does not match sha256"):
        fetch_uci_bow("tiny", cache=tmp_path, base_url=server.base, registry=REGISTRY)


def test_interrupted_transfer_resumes_with_range(server, tmp_path):
    body = server.files["docword.tiny.txt.gz"]
    server.cut_after = len(body) // 3
    path = fetch(server.base + "docword.tiny.txt.gz", tmp_path / "d.gz", sha256=sha(body), block=256)
    assert path.read_bytes() == body
    assert server.requests == [("docword.tiny.txt.gz", None), ("docword.tiny.txt.gz", f"bytes={len(body) // 3}-")]
    assert not (tmp_path / "d.gz.part").exists()


def test_leftover_part_file_is_resumed_or_restarted(server, tmp_path):
    body = server.files["docword.tiny.txt.gz"]
    (tmp_path / "d.gz.part").write_bytes(body[:500])
    assert fetch(server.base + "docword.tiny.txt.gz", tmp_path / "d.gz", sha256=sha(body)).read_bytes() == body
    assert server.requests[-1] == ("docword.tiny.txt.gz", "bytes=500-")
    server.ignore_range = True  # a server without Range support answers 200: start again, not append
    (tmp_path / "e.gz.part").write_bytes(body[:500])
    assert fetch(server.base + "docword.tiny.txt.gz", tmp_path / "e.gz", sha256=sha(body)).read_bytes() == body


def test_corrupted_download_is_rejected_and_removed(server, tmp_path):
    body = server.files["docword.tiny.txt.gz"]
    server.corrupt = True
    with pytest.raises(DownloadError, match=rf"docword\.tiny\.txt\.gz: sha256 mismatch: expected {sha(body)}, got [0-9a-f]{{64}}"):
        fetch(server.base + "docword.tiny.txt.gz", tmp_path / "d.gz", sha256=sha(body))
    assert not (tmp_path / "d.gz").exists() and not (tmp_path / "d.gz.part").exists()


def test_unpinned_corrupt_gzip_fails_the_uci_header_check(server, tmp_path):
    server.files["docword.tiny.txt.gz"] = server.files["docword.tiny.txt.gz"][:40]  # truncated at the source
    with pytest.raises(DownloadError, match=r"docword\.tiny\.txt\.gz: not a gzip UCI docword file"):
        fetch_uci_bow("tiny", cache=tmp_path, base_url=server.base, registry=REGISTRY)
    assert not (tmp_path / "uci_bow" / "docword.tiny.txt.gz").exists()
    wrong = {"tiny": UCICollection("tiny", 999, 50)}
    server.files["docword.tiny.txt.gz"] = uci_fixture()[0]
    with pytest.raises(DownloadError, match=r"header D=200, W=50; the UCI readme says D=999"):
        fetch_uci_bow("tiny", cache=tmp_path, base_url=server.base, registry=wrong)


def test_http_errors_and_retries_name_the_url(server, tmp_path):
    with pytest.raises(DownloadError, match=r"/bag-of-words/missing\.txt: HTTP 404"):
        fetch(server.base + "missing.txt", tmp_path / "m.txt")
    with pytest.raises(DownloadError, match=r"127\.0\.0\.1:1/x: cannot connect"):
        fetch("http://127.0.0.1:1/x", tmp_path / "x", timeout=2)
    with pytest.raises(DownloadError, match="unknown UCI bag-of-words collection 'nope'"):
        fetch_uci_bow("nope", cache=tmp_path)


def test_uci_dataset_never_downloads_unless_asked(server, tmp_path, monkeypatch):
    monkeypatch.setenv("TOPICBENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetUnavailable, match="pass --param download=true"):
        prepare("uci_bow", tmp_path / "out", collection="kos")
    assert server.requests == []
    # files placed in corpora_dir/uci_bow are read by the same dataset (no network)
    folder = tmp_path / "corpora" / "uci_bow"
    folder.mkdir(parents=True)
    docword, vocab = uci_fixture(n_docs=3430, n_words=6906, seed=1)
    (folder / "docword.kos.txt.gz").write_bytes(docword)
    (folder / "vocab.kos.txt").write_bytes(vocab)
    from topicbench.corpus import load_corpus

    corpus = load_corpus(prepare("uci_bow", tmp_path / "out", corpora_dir=tmp_path / "corpora", collection="kos"))
    assert corpus.n_docs == 3430 and corpus.n_words == 6906 and corpus.n_tokens > 3430 * 5
