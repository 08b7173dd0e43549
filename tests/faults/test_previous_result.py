"""A job's rerun that fails or is killed (Snakemake deleted its outputs first): topicbench.previous keeps the old set
and puts it back whole, or keeps the whole new set; never a mix, and only its own names are deleted. The workflow
end to end: tests/faults/test_workflow.py (test_failed_rerun_*, test_killed_rerun_*)."""
import errno
import json
import os
import signal
from pathlib import Path

import pytest

from topicbench import previous
from topicbench.grid import WORKFLOW_ENTRIES, GridError, check_folders_owned

RUN = "runs/exp/tiny/m/seed~0"
FILES = ("trace.parquet", "model.npz", "topics.tsv")


@pytest.fixture
def results(tmp_path):
    """A results_dir with one complete run, kept as the onstart keeps it before the run's job reruns."""
    for name in FILES:
        (tmp_path / RUN).mkdir(parents=True, exist_ok=True)
        (tmp_path / RUN / name).write_text(f"old {name}")
    assert previous.keep(tmp_path, [[tmp_path / RUN / name for name in FILES]]) == 1
    return tmp_path


def contents(root):
    return {name: (root / RUN / name).read_text() if (root / RUN / name).exists() else None for name in FILES}


def snakemake_deletes(root, names=FILES):
    for name in names:
        (root / RUN / name).unlink()


def test_failed_rerun_puts_the_old_set_back(results):
    """Rerun failed, its outputs deleted by Snakemake -> the old set back whole, named as stale until it reruns."""
    snakemake_deletes(results)
    restored = previous.finish(results)
    assert contents(results) == {name: f"old {name}" for name in FILES}
    assert restored == [[str(results / RUN / name) for name in FILES]]
    assert previous.pending(results) == []
    assert set(previous.restored_stale(results)) == {str(results / RUN / name) for name in FILES}


def test_touched_restored_set_is_still_stale(results):
    """A restored set touched afterwards (`snakemake --touch`) -> still named stale: the old result stays old."""
    snakemake_deletes(results)
    previous.finish(results)
    for name in FILES:
        os.utime(results / RUN / name)
    assert set(previous.restored_stale(results)) == {str(results / RUN / name) for name in FILES}


def test_partial_new_set_is_replaced_by_the_old_set(results):
    """Rerun killed with one new file written -> the old set whole, not the old files beside the new one."""
    snakemake_deletes(results)
    (results / RUN / "model.npz").write_text("new model.npz")
    previous.finish(results)
    assert contents(results) == {name: f"old {name}" for name in FILES}


def test_complete_new_set_is_kept_and_no_backup_left(results):
    """Rerun succeeded (a whole new set) -> the new set stays, and nothing is left in the keeping area."""
    snakemake_deletes(results)
    for name in FILES:
        (results / RUN / name).write_text(f"new {name}")
    assert previous.finish(results) == []
    assert contents(results) == {name: f"new {name}" for name in FILES}
    assert not (results / previous.AREA).exists()
    assert previous.restored_stale(results) == {}


def test_job_that_did_not_run_leaves_no_backup(results):
    """A kept set whose job never ran (another job failed first) -> left as it is, its links removed."""
    assert previous.finish(results) == []
    assert contents(results) == {name: f"old {name}" for name in FILES}
    assert not (results / previous.AREA).exists()


def test_restore_killed_midway_is_finished_by_the_next_call(results, monkeypatch):
    """Killed after putting back one file of three -> the next finish puts back the rest, all named stale.

    (The record is written before the first file moves.)"""
    snakemake_deletes(results)
    real_replace, moved = os.replace, []

    def killed_after_one(src, dst):
        if Path(dst).parent == results / RUN:  # a run file put back (not the record's own atomic write)
            if moved:
                raise KeyboardInterrupt  # stands for the kill: nothing after this line runs
            moved.append(dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", killed_after_one)
    with pytest.raises(KeyboardInterrupt):
        previous.finish(results)
    monkeypatch.setattr(os, "replace", real_replace)
    assert len(previous.pending(results)) == 1 and sum(v is not None for v in contents(results).values()) == 1
    previous.finish(results)
    assert contents(results) == {name: f"old {name}" for name in FILES}
    assert set(previous.restored_stale(results)) == {str(results / RUN / name) for name in FILES}


def test_restored_set_rerun_clears_its_stale_record(results):
    """A restored set later rerun successfully -> no longer named stale, and its record is pruned."""
    snakemake_deletes(results)
    previous.finish(results)
    assert previous.keep(results, [[results / RUN / name for name in FILES]]) == 1
    snakemake_deletes(results)
    for name in FILES:
        (results / RUN / name).write_text(f"new {name}")
    previous.finish(results)
    assert previous.restored_stale(results) == {}
    assert not (results / previous.AREA).exists()


def test_incomplete_old_set_is_not_kept(tmp_path, capsys):
    """An old set with a file missing (no complete old result) -> nothing kept, and no warning (nothing failed).

    So nothing half-old is ever put back."""
    (tmp_path / RUN).mkdir(parents=True)
    (tmp_path / RUN / "trace.parquet").write_text("old")
    assert previous.keep(tmp_path, [[tmp_path / RUN / name for name in FILES]]) == 0
    assert previous.pending(tmp_path) == [] and capsys.readouterr().err == ""


def test_killed_keep_leaves_only_its_own_links_behind(results):
    """A keep killed before its set folder got its final name -> the next finish removes only its staging folder.

    The files it had linked stay."""
    staging = results / previous.AREA / ".new-killed"
    staging.mkdir()
    os.link(results / RUN / "trace.parquet", staging / "0")
    previous.finish(results)
    assert not staging.exists() and contents(results) == {name: f"old {name}" for name in FILES}


def test_set_that_cannot_be_linked_is_named_and_left(results, monkeypatch, capsys):
    """No hard links on the file system -> one warning naming the first unkept result, and its files untouched."""
    def refuse(src, dst):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refuse)
    assert previous.keep(results, [[results / RUN / name for name in FILES]]) == 0
    err = capsys.readouterr().err
    assert "of 1 job(s) cannot be kept" in err and f"{RUN}/trace.parquet (Operation not permitted)" in err
    assert contents(results) == {name: f"old {name}" for name in FILES} and len(previous.pending(results)) == 1


@pytest.mark.parametrize("call, error", [pytest.param("link", errno.ENOSPC, id="enospc-linking"),
                                         pytest.param("link", errno.EIO, id="eio-linking"),
                                         pytest.param("write_text", errno.ENOSPC, id="enospc-writing-the-set-record")])
def test_disk_error_while_keeping_stops_before_the_rerun(tmp_path, monkeypatch, capsys, call, error):
    """A full or failing disk while the onstart keeps a set (not a file system without hard links) -> OSError naming
    the result and the error, stopping the workflow before its job can lose the set; the files untouched, no staging.

    (It was taken for 'no hard links': one warning, and the job reran with nothing kept.)"""
    for name in FILES:
        (tmp_path / RUN).mkdir(parents=True, exist_ok=True)
        (tmp_path / RUN / name).write_text(f"old {name}")

    def fail(*args, **kwargs):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(os, "link", fail) if call == "link" else monkeypatch.setattr(Path, "write_text", fail)
    with pytest.raises(OSError, match=rf"cannot keep the previous result of {RUN}/trace.parquet .*"
                                      rf"\({os.strerror(error)}\).*stopping before any job runs") as raised:
        previous.keep(tmp_path, [[tmp_path / RUN / name for name in FILES]])
    monkeypatch.undo()
    assert raised.value.errno == error and "cannot be kept" not in capsys.readouterr().err
    assert contents(tmp_path) == {name: f"old {name}" for name in FILES}
    assert previous.pending(tmp_path) == [] and list((tmp_path / previous.AREA).iterdir()) == []


def test_user_folder_holding_the_keeping_area_name_is_refused(tmp_path):
    """A results_dir topicbench did not make, holding a .topicbench-previous -> refused at DAG build, naming it.

    (The workflow removes what it finds there.)"""
    assert previous.AREA in WORKFLOW_ENTRIES["results_dir"]
    (tmp_path / previous.AREA).mkdir()
    with pytest.raises(GridError, match=r"already holds \.topicbench-previous, which the workflow writes"):
        check_folders_owned({"results_dir": str(tmp_path), "data_dir": str(tmp_path / "data")})


def test_rerun_that_rewrote_one_file_beside_its_old_siblings_gets_the_old_set_back(results):
    """A rerun that replaced one file and left its siblings as they were (old files) -> the old set whole, not the new
    file beside old ones: a set is new only when every file of it is a new file."""
    (results / RUN / "model.npz.tmp").write_text("new model.npz")
    os.replace(results / RUN / "model.npz.tmp", results / RUN / "model.npz")
    assert previous.finish(results) == [[str(results / RUN / name) for name in FILES]]
    assert contents(results) == {name: f"old {name}" for name in FILES}


def test_sets_that_cannot_be_kept_do_not_stop_the_others(tmp_path):
    """A set with an output outside results_dir, or with a file missing, before a complete one -> those two not kept,
    the complete one kept (each set on its own)."""
    for name in FILES:
        (tmp_path / RUN).mkdir(parents=True, exist_ok=True)
        (tmp_path / RUN / name).write_text(f"old {name}")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    sets = [[outside], [tmp_path / "runs/other/missing.parquet"], [tmp_path / RUN / name for name in FILES]]
    assert previous.keep(tmp_path, sets) == 1
    [kept] = previous.pending(tmp_path)
    assert json.loads((kept / previous.SET_RECORD).read_text())["outputs"] == [f"{RUN}/{name}" for name in FILES]


def test_set_that_cannot_be_linked_does_not_stop_the_next(tmp_path, monkeypatch, capsys):
    """One set on a file system without hard links, then one that links -> the first named and left, the second kept."""
    other = "runs/exp/tiny/m/seed~1"
    for run in (RUN, other):
        (tmp_path / run).mkdir(parents=True)
        (tmp_path / run / "trace.parquet").write_text("old")
    real_link = os.link

    def refuse_first(src, dst):
        if Path(src).parent == tmp_path / RUN:
            raise PermissionError(1, "Operation not permitted")
        real_link(src, dst)

    monkeypatch.setattr(os, "link", refuse_first)
    assert previous.keep(tmp_path, [[tmp_path / run / "trace.parquet"] for run in (RUN, other)]) == 1
    assert "of 1 job(s) cannot be kept" in capsys.readouterr().err


def test_failed_rerun_whose_folders_were_removed_gets_its_folders_back(results):
    """A failed rerun after the run's folder and the folders above it were removed -> the old set back in them."""
    import shutil

    shutil.rmtree(results / "runs")
    previous.finish(results)
    assert contents(results) == {name: f"old {name}" for name in FILES}


def test_set_of_a_replaced_folder_is_not_put_back_into_the_new_one(tmp_path, capsys):
    """A prepare killed after swapping in its new corpus folder (Snakemake then removes its corpus.json) -> the old
    corpus.json is not put into the new folder (it would describe other files), with a warning; the new files stay.

    Was: the old corpus.json went back beside the new counts, a mix that failed to load (checksum mismatch)."""
    corpus = tmp_path / "corpora" / "tiny"
    corpus.mkdir(parents=True)
    (corpus / "corpus.json").write_text("old")
    assert previous.keep(tmp_path, [[corpus / "corpus.json"]], folder_swapped=lambda outputs: True) == 1
    corpus.rename(tmp_path / "corpora" / ".tiny.old")  # the swap: a new folder in its place
    corpus.mkdir()
    (corpus / "counts").write_text("new")  # the new corpus; its corpus.json removed by Snakemake
    assert previous.finish(tmp_path) == []
    assert "replaced its folder and did not complete" in capsys.readouterr().err
    assert sorted(p.name for p in corpus.iterdir()) == ["counts"] and previous.restored_stale(tmp_path) == {}
    assert not (tmp_path / previous.AREA).exists()


def test_set_of_a_kept_folder_is_put_back(tmp_path):
    """A prepare that failed before its swap (the folder still the old one) -> the old corpus.json back in it."""
    corpus = tmp_path / "corpora" / "tiny"
    corpus.mkdir(parents=True)
    (corpus / "corpus.json").write_text("old")
    previous.keep(tmp_path, [[corpus / "corpus.json"]], folder_swapped=lambda outputs: True)
    (corpus / "corpus.json").unlink()
    assert previous.finish(tmp_path) == [[str(corpus / "corpus.json")]]
    assert (corpus / "corpus.json").read_text() == "old"


def test_set_of_a_folder_killed_mid_swap_is_not_put_back(tmp_path):
    """A prepare killed between the two renames of the fallback swap (its folder missing) -> no folder is made to hold
    the old corpus.json alone: the next load finishes the swap from the staged copy.

    Was: a folder holding only the old corpus.json, and the load then deleted both the old and the staged copies."""
    corpus = tmp_path / "corpora" / "tiny"
    corpus.mkdir(parents=True)
    (corpus / "corpus.json").write_text("old")
    previous.keep(tmp_path, [[corpus / "corpus.json"]], folder_swapped=lambda outputs: True)
    corpus.rename(tmp_path / "corpora" / ".tiny.old-1")
    assert previous.finish(tmp_path) == [] and not corpus.exists()


def test_set_of_a_replaced_folder_with_its_new_output_is_kept_quietly(tmp_path, capsys):
    """A prepare that swapped in its whole new corpus folder and succeeded -> kept, nothing put back, no warning.

    Was (for a moment, found with two datasets in one run): the warning that its rerun did not complete."""
    corpus = tmp_path / "corpora" / "tiny"
    corpus.mkdir(parents=True)
    (corpus / "corpus.json").write_text("old")
    previous.keep(tmp_path, [[corpus / "corpus.json"]], folder_swapped=lambda outputs: True)
    corpus.rename(tmp_path / "corpora" / ".tiny.old")
    corpus.mkdir()
    (corpus / "corpus.json").write_text("new")
    assert previous.finish(tmp_path) == [] and (corpus / "corpus.json").read_text() == "new"
    assert capsys.readouterr().err == "" and not (tmp_path / previous.AREA).exists()


def test_restored_file_deleted_by_hand_is_still_stale(results):
    """A restored set whose file the user deleted before the next run -> still named stale (forced), not forgotten.

    Was: forgotten, and Snakemake, which recorded the failed job as done, rebuilt nothing under an up-to-date target:
    found with a corpus folder deleted after a failed prepare, its old fits kept as current for the new parameters."""
    snakemake_deletes(results)
    previous.finish(results)
    (results / RUN / "model.npz").unlink()
    previous.finish(results)  # the next workflow's prune
    assert str(results / RUN / "model.npz") in previous.restored_stale(results)


def test_a_set_partly_outside_the_results_folder_is_not_kept_there(tmp_path):
    """An output set with one file outside the results folder -> not one keep() can keep there (every file must lie
    under it)."""
    results = tmp_path / "results"
    assert previous.lies_under(results, [results / "a" / "trace.parquet", results / "b.csv"])
    assert not previous.lies_under(results, [results / "b.csv", tmp_path / "elsewhere.csv"])
