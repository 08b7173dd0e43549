"""The previous result of a job that reruns, kept until the rerun ends, so a failed or killed rerun leaves it in place.

Snakemake deletes a job's outputs before it runs the job (and again when the job fails), so a rerun that fails would
leave neither the old result nor a new one. The workflow's onstart hard-links each complete output set of a job that
is about to run into ``<results_dir>/.topicbench-previous/`` (``keep``). When the workflow ends (onsuccess,
onerror), or at the next workflow's start if this one was killed, each kept set is finished (``finish``): a job
that wrote its whole new set keeps it; otherwise the whole old set goes back (never old files beside new siblings).

Snakemake records a failed job as finished with its new inputs and params, so it would take the restored old set
for current; the restored files are listed in ``restored.json`` by inode, and ``restored_stale`` names
them at DAG build for the workflow to force their rerun, until a new file replaces them. Only names this module made
(links, its own records) are ever deleted.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

AREA = ".topicbench-previous"
RESTORED = "restored.json"
SET_RECORD = "set.json"
# what os.link raises on a file system (or a folder across mounts) without hard links: the set is left unprotected,
# with a warning; any other error (ENOSPC, EIO, EDQUOT) stops the workflow before a job can lose the set
CANNOT_LINK = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


def _identity(path: Path) -> list[int] | None:
    """(device, inode, size) of a file, None if there is none: a restored file is the kept link itself, and stays
    that file when touched (`snakemake --touch` cannot mark a restored result current)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return [st.st_dev, st.st_ino, st.st_size]


def _relative(root: Path, path) -> str | None:
    """``path`` relative to ``root``, or None when it lies outside (then it is not kept)."""
    try:
        return Path(os.path.abspath(path)).relative_to(root).as_posix()
    except ValueError:
        return None


def lies_under(results_dir, outputs) -> bool:
    """Whether every file of ``outputs`` lies under ``results_dir`` (a set :func:`keep` keeps there)."""
    root = Path(results_dir).absolute()
    return all(_relative(root, path) is not None for path in outputs)


def pending(results_dir) -> list[Path]:
    """Kept sets not finished yet (a workflow still running, or one that was killed)."""
    area = Path(results_dir).absolute() / AREA
    return sorted(p for p in area.glob("set-*") if (p / SET_RECORD).is_file()) if area.is_dir() else []


def keep(results_dir, output_sets, folder_swapped=lambda outputs: False) -> int:
    """Hard-link every complete output set (each a job's outputs) that lies under ``results_dir`` into the area;
    returns how many were kept. A set with a missing file has no old result to keep. A set is kept whole or not
    at all: its folder gets its final name only when every link is made. ``folder_swapped(outputs)``: the job
    replaces the whole folder of its outputs (a prepare's corpus folder), so its set goes back only into that folder."""
    root = Path(results_dir).absolute()
    area = root / AREA
    kept, unkept = 0, []
    for outputs in output_sets:
        rels = [_relative(root, path) for path in outputs]
        if not rels or None in rels or not all((root / rel).is_file() for rel in rels):
            continue
        staging = None
        try:
            area.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".new-", dir=area))
            for i, rel in enumerate(rels):
                os.link(root / rel, staging / str(i))
            record = {"outputs": rels}
            if folder_swapped(outputs):
                record["folder"] = _identity(root / Path(rels[0]).parent)[:2]
            (staging / SET_RECORD).write_text(json.dumps(record))
            os.rename(staging, area / f"set-{staging.name[len('.new-'):]}")
        except OSError as err:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            if err.errno not in CANNOT_LINK:  # a full or failing disk: the rerun, unprotected, would lose the set
                raise OSError(err.errno, f"cannot keep the previous result of {rels[0]} in {area} while its job "
                                         f"reruns ({err.strerror or err}), so a failed rerun would lose it; stopping "
                                         f"before any job runs: free the disk or fix the folder, then start again") from err
            unkept.append(f"{rels[0]} ({err.strerror or err})")  # no hard links here: not protected, as before
            continue
        kept += 1
    if unkept:
        print(f"topicbench: warning: the previous result of {len(unkept)} job(s) cannot be kept while they rerun, so a "
              f"failed rerun loses it; first: {unkept[0]}", file=sys.stderr)
    return kept


def finish(results_dir) -> list[list[str]]:
    """End every kept set: keep a whole new set, else put the whole old one back (recorded in restored.json before
    the first file moves, so a kill midway is finished by the next call). Returns the restored sets' outputs."""
    root = Path(results_dir).absolute()
    area = root / AREA
    if not area.is_dir():
        return []
    for leftover in area.glob(".new-*"):  # a keep killed before its set was complete: no job ran on it
        shutil.rmtree(leftover, ignore_errors=True)
    restored = []
    for folder in pending(root):
        record = json.loads((folder / SET_RECORD).read_text())
        rels = record["outputs"]
        old = [_identity(folder / str(i)) for i in range(len(rels))]
        now = [_identity(root / rel) for rel in rels]
        home = _identity(root / Path(rels[0]).parent)
        if now == old or all(n is not None and n[:2] != o[:2] for n, o in zip(now, old)):
            pass  # the job did not run, or wrote its whole new set
        elif "folder" in record and (home or [])[:2] != record["folder"]:
            # the job swapped in a new folder (or was killed mid-swap) and then failed, and Snakemake removed the
            # new folder's outputs: the old files in the new folder would describe files they did not come from
            print(f"topicbench: warning: the rerun of {root / rels[0]} replaced its folder and did not complete "
                  f"(Snakemake removed its outputs), so its previous result cannot be put back without mixing old and "
                  f"new files; it reruns next time", file=sys.stderr)
        else:
            _record_restored(root, {rel: ident for rel, ident in zip(rels, old)})
            for i, rel in enumerate(rels):
                target = root / rel
                if _identity(target) != old[i]:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    temporary = target.with_name(f".{target.name}.topicbench-restore")
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(temporary)
                    os.link(folder / str(i), temporary)
                    os.replace(temporary, target)
            restored.append([str(root / rel) for rel in rels])
        shutil.rmtree(folder)
    _record_restored(root, {})  # prune: what a successful rerun replaced is no longer stale
    if not any(area.iterdir()):
        area.rmdir()
    return restored


def restored_stale(results_dir) -> dict[str, str]:
    """Restored old outputs still in place: {path as the workflow spells it: why}, for the workflow to force."""
    area = Path(results_dir) / AREA
    try:
        record = json.loads((area / RESTORED).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return {str(Path(results_dir) / rel): "the previous result, put back after its rerun failed"
            for rel, ident in record.items() if _identity(Path(results_dir) / rel) in (ident, None)}


def _record_restored(root: Path, entries: dict) -> None:
    """Add ``entries`` to restored.json, dropping files replaced since (their rerun succeeded); atomic. A restored
    file deleted since stays listed: Snakemake recorded its failed job as done, and would rebuild none of a missing
    file's downstream results (made from the old one), so it is forced until a rerun writes it."""
    from .io import write_text

    path = root / AREA / RESTORED
    try:
        record = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        record = {}
    record = {rel: ident for rel, ident in record.items() if _identity(root / rel) in (ident, None)}
    record.update(entries)
    if record:
        write_text(path, json.dumps(record, sort_keys=True))
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()

