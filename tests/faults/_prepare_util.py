"""Helpers of the prepare / corpus-file fault cases: tiny sources, the CLI in-process, a real SIGKILL by fork."""
import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from topicbench import cli
FAULT_ENV = "TOPICBENCH_FAULT_AT"

REPO = Path(__file__).resolve().parents[2]


def digest(root) -> dict:
    """{relative path: sha256} of every file under ``root`` (or of ``root`` itself): what must survive a fault."""
    root = Path(root)
    if root.is_file():
        return {".": hashlib.sha256(root.read_bytes()).hexdigest()}
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def uci(folder, rows, n_docs=None, n_words=3, vocab=("apple", "bread", "cheese"), name="docword.txt", nnz=None):
    """A UCI docword file of ``rows`` (docID, wordID, count as written) and its vocabulary; returns both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    n_docs = n_docs if n_docs is not None else max([int(r[0]) for r in rows] + [1])
    lines = [str(n_docs), str(n_words), str(len(rows) if nnz is None else nnz)] + [" ".join(map(str, r)) for r in rows]
    (folder / name).write_text("\n".join(lines) + "\n")
    (folder / "vocab.txt").write_text("".join(f"{w}\n" for w in vocab))
    return folder / name, folder / "vocab.txt"


GOOD_ROWS = [(d, w, 1 + (d + w) % 3) for d in range(1, 11) for w in (1, 2, 3) if (d + w) % 2 or w == 1]


def good_uci(folder, seed_rows=GOOD_ROWS):
    return uci(folder, seed_rows)


def uci_args(docword, vocab, out, *extra):
    return ["prepare", "user_bow", "--out", str(out), "--param", "format=uci", "--param", f"path={docword}",
            "--param", f"vocab={vocab}", "--param", "test_fraction=0.2", *extra]


def run_cli(argv, capsys):
    """``topicbench <argv>`` in-process: (exit code, stderr). A traceback would propagate and fail the test."""
    code = cli.main([str(a) for a in argv])
    err = capsys.readouterr().err
    return code, err


def run_subprocess(argv, cwd=None, env=None):
    """``python -m topicbench.cli <argv>`` in a fresh process (only where the exit code or a traceback is the point)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "topicbench.cli", *map(str, argv)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stderr


def killed_at(step, func, *args, env=None, **kwargs) -> bool:
    """Run ``func`` in a forked child with ``TOPICBENCH_FAULT_AT=kill:<step>``; True if the child died by SIGKILL."""
    pid = os.fork()
    if pid == 0:  # child: no pytest machinery, just the call, then a hard exit
        code = 0
        try:
            os.environ.update(env or {})
            os.environ[FAULT_ENV] = f"kill:{step}"
            func(*args, **kwargs)
        except BaseException:  # noqa: BLE001 - the parent only needs "not killed"
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def assert_no_leftovers(out):
    hidden = [p.name for p in Path(out).parent.iterdir() if p.name.startswith(f".{Path(out).name}.")]
    assert hidden == [], f"hidden leftovers beside {out}: {hidden}"
