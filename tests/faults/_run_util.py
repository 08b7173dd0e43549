"""Shared helpers of the faults_run part of the fault catalogue (issue #11): a tiny corpus, checksums, CLI runs in and out of process.

Every case asserts (a) the exit code or exception, (b) that the message names the culprit, (c) that nothing was
lost, mixed or left behind. Cases that need a real kill or exit code run the CLI in a subprocess; the rest call
it in-process, which keeps the catalogue fast.
"""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN_FILES = ("model.npz", "topics.tsv", "trace.parquet")
TINY = {"n_train": 120, "n_test": 20, "n_words": 60, "n_topics": 3, "min_length": 20, "max_length": 40}


def checksums(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under ``folder`` (hidden ones too)."""
    folder = Path(folder)
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def hidden_leftovers(folder: Path) -> list[str]:
    """Staging or temporary entries (dot names) anywhere under ``folder``."""
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob(".*"))


def env(**extra) -> dict:
    out = {**os.environ, "PYTHONPATH": str(REPO)}
    out.pop("TOPICBENCH_FAULT_AT", None)
    # Snakemake's run header calls getpass.getuser(), which fails where the uid has no passwd entry (containers)
    if not any(out.get(name) for name in ("LOGNAME", "USER", "LNAME", "USERNAME")):
        out["USER"] = "topicbench"
    out.update(extra)
    return out


def cli_subprocess(args, timeout=300, **extra_env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topicbench.cli", *map(str, args)], capture_output=True, text=True,
                          env=env(**extra_env), timeout=timeout, cwd=REPO)


FAST_RUN = ["--method", "online_lda", "--param", "K=3", "--param", "batch_size=20", "--set", "n_checkpoints=2"]


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory):
    """120 training and 20 test documents, 60 words, 3 planted topics: a fit takes well under a second.

    (A fixture here, imported by the modules, not in a tests/faults/conftest.py: a second conftest module
    would shadow tests/conftest.py, which tests/test_run.py imports by name.)"""
    from topicbench.dataset import prepare

    return prepare("nyt_like", tmp_path_factory.mktemp("faults_run") / "tiny", corpus_name="tiny", **TINY)
