"""The grid's checks at DAG build refuse exactly what a run would refuse, no more: each edge a run accepts is
accepted here, one step beyond is refused naming it (a refusal only at the job, or of a valid run, is the bug)."""
import copy
import os

import pytest

from topicbench import grid
from topicbench.grid import GridError, check_paths, expand_all
from topicbench.run import RunSpec

BASE = {"data_dir": "data", "results_dir": "results",
        "datasets": {"d": {"recipe": "nyt_like", "params": {"n_train": 300}}},
        "experiments": {"e": {"dataset": "d", "runs": [{"label": "x", "method": "online_lda", "grid": {"K": [3]}}]}}}


def config(settings=None, batch_size=None):
    out = copy.deepcopy(BASE)
    if settings:
        out["experiments"]["e"]["settings"] = settings
    if batch_size:
        out["experiments"]["e"]["runs"][0]["grid"]["batch_size"] = [batch_size]
    return out


def test_planted_training_sizes_refused_just_beyond_what_a_run_takes():
    """A run takes a train_subset of the whole training split and a minibatch of all its documents (run.py refuses
    only larger ones): n_train = 300 with train_subset = 300 and batch_size = 300, or train_subset = 100 and
    batch_size = 100, expand; batch_size = 101 over a train_subset of 100 is refused naming the subset."""
    expand_all(config({"train_subset": 300}, 300))
    expand_all(config({"train_subset": 100}, 100))
    with pytest.raises(GridError, match=r"batch_size = 101 exceeds the 100 training documents of dataset d \(train_subset\)"):
        expand_all(config({"train_subset": 100}, 101))


def test_settings_a_run_takes_elsewhere_are_not_settings():
    """The method, its params, the seed(s), the experiment, dataset, label and threads come from their own config
    entries: under settings each is an unknown run setting, named (not a TypeError from a second value)."""
    for name in ("method", "params", "seed", "experiment", "dataset", "label", "threads"):
        assert name in {field.name for field in grid.fields(RunSpec)}
        with pytest.raises(GridError, match=rf"unknown run setting\(s\) \['{name}'\]"):
            expand_all(config({name: 1}))


def test_a_name_of_the_longest_component_is_taken():
    """A name of MAX_COMPONENT (200) characters becomes a folder; 201 is refused naming its length."""
    longest = "a" * grid.MAX_COMPONENT
    assert grid._safe_component("run label", longest) == longest
    with pytest.raises(GridError, match=f"is {grid.MAX_COMPONENT + 1} characters"):
        grid._safe_component("run label", longest + "a")


def test_output_folders_behind_a_link_are_taken_a_link_at_their_top_refused(tmp_path):
    """results_dir itself a symbolic link (to a bigger disk) is where the workflow writes, and a corpora_dir apart
    from the outputs is read: taken. results_dir/runs a link (the first folder below it, which the workflow's jobs
    replace under) is refused naming it."""
    disk, corpora, elsewhere = tmp_path / "disk", tmp_path / "corpora", tmp_path / "elsewhere"
    for folder in (disk, corpora, elsewhere):
        folder.mkdir()
    (tmp_path / "results").symlink_to(disk)
    cfg = {**config(), "results_dir": str(tmp_path / "results"), "data_dir": str(tmp_path / "data"),
           "corpora_dir": str(corpora)}
    check_paths(cfg, expand_all(cfg))
    (disk / "runs").symlink_to(elsewhere)
    with pytest.raises(GridError, match=f"{tmp_path / 'results' / 'runs'} is a symbolic link"):
        check_paths(cfg, expand_all(cfg))


def test_run_ids_name_values_as_folders_do():
    """No seeds given -> seed 0 (one run, seed~0); a whole float below 10^15 is named as the integer (1234567.0 ->
    '1234567', not %g's '1.23457e+06'), from 10^15 on by %g without its '+' ('1e15'); a float %g would round keeps its
    digits ('1.0000001')."""
    assert list(expand_all(config())) == ["e/d/online_lda/label~x/K~3/seed~0"]
    assert [grid.format_value(v) for v in (1234567.0, 1e14, 1e15, 1.5e15, 1.0000001, 0.5, True)] == \
        ["1234567", "100000000000000", "1e15", "1.5e15", "1.0000001", "0.5", "true"]


def test_control_characters_are_c0_del_and_c1_only():
    """U+0000-U+001F and U+007F-U+009F are control characters (each end named); a space, '~' and U+00A0 are not."""
    for ch in ("\x00", "\x1f", "\x7f", "\x9f"):
        assert grid.control_character(f"a{ch}b") == ch
    assert grid.control_character("a b~\xa0c") is None


def test_planted_checks_count_the_longest_documents_and_every_pass():
    """Documents of 1 to 2 tokens: the 2-token ones complete at fraction 0.5 (one observed, one held out), so the grid
    accepts them. Two passes over 300 documents in minibatches of 100 are 6 minibatches: every 6th is scored (accepted),
    every 7th refused naming the 6."""
    lengths = config()
    lengths["datasets"]["d"]["params"].update(min_length=1, max_length=2)
    expand_all(lengths)
    expand_all(config({"passes": 2, "holdout": "every_nth_batch", "holdout_n": 6}, 100))
    with pytest.raises(GridError, match="holdout_n = 7 but the stream has only 6 minibatches"):
        expand_all(config({"passes": 2, "holdout": "every_nth_batch", "holdout_n": 7}, 100))


@pytest.mark.parametrize("change, message", [
    ({"seeds": []}, "seeds must be a non-empty list"),
    ({"seeds": [0, -1]}, "seeds must be >= 0"),
    ({"runs": []}, "runs must be a non-empty list"),
], ids=["no-seeds", "one-negative-seed", "no-runs"])
def test_an_experiment_of_no_runs_is_refused(change, message):
    """No seeds, no run groups, one negative seed among valid ones -> refused naming it, not an empty or partial grid."""
    cfg = config()
    cfg["experiments"]["e"].update(change)
    with pytest.raises(GridError, match=message):
        expand_all(cfg)


def test_one_brace_is_refused_in_folders_and_files_and_a_real_corpus_is_found(tmp_path):
    """A lone '{' in results_dir or in a dataset's file path -> refused (Snakemake reads either brace); a real recipe
    whose corpora_dir holds its folder -> accepted."""
    cfg = config()
    cfg.update(results_dir=str(tmp_path / "res{"), data_dir=str(tmp_path / "data"))
    with pytest.raises(GridError, match="holds a brace"):
        check_paths(cfg, expand_all(cfg))
    (tmp_path / "we{ird.jsonl").write_text('{"text": "apple bread"}\n')
    cfg = config()
    cfg["datasets"] = {"d": {"recipe": "user_text", "params": {"path": str(tmp_path / "we{ird.jsonl")}}}
    with pytest.raises(GridError, match="names a file whose path holds a brace"):
        expand_all(cfg)
    (tmp_path / "corpora" / "sotu").mkdir(parents=True)
    cfg = config()
    cfg.update(corpora_dir=str(tmp_path / "corpora"), datasets={"d": {"recipe": "sotu"}})
    assert list(expand_all(cfg)) == ["e/d/online_lda/label~x/K~3/seed~0"]


def test_duplicate_keys_after_a_merge_key_are_refused(tmp_path):
    """'<<: *base' then x twice in one mapping -> refused naming the second x (the merge key is skipped, not the rest)."""
    path = tmp_path / "c.yaml"
    path.write_text("a: &base {x: 1}\nb:\n  <<: *base\n  x: 3\n  x: 4\n")
    with pytest.raises(GridError, match="line 5: key 'x' appears twice"):
        grid.check_config_file(path)


def test_new_nested_folders_are_made_marked_and_locked(tmp_path):
    """results_dir and data_dir two levels below nothing -> made, marked and locked by this process; a second onstart
    in this process with the same results_dir (held: skipped) and a new data_dir still locks the new data_dir."""
    from pathlib import Path

    cfg = {"results_dir": str(tmp_path / "a" / "res"), "data_dir": str(tmp_path / "b" / "data")}
    grid.mark_folders(cfg)
    assert all((Path(cfg[key]) / grid.FOLDER_MARK).is_file() for key in cfg)
    second = dict(cfg, data_dir=str(tmp_path / "c" / "data"))
    locks = [str((Path(folder) / grid.FOLDER_LOCK).resolve()) for folder in (*cfg.values(), second["data_dir"])]
    try:
        grid.lock_folders(cfg)
        grid.lock_folders(second)
        assert all(lock in grid._HELD_LOCKS for lock in locks)
    finally:
        for lock in locks:
            fd = grid._HELD_LOCKS.pop(lock, None)
            if fd is not None:
                os.close(fd)


def test_stale_outputs_name_missing_run_files_and_changed_aggregated_traces(tmp_path):
    """A run folder holding topics.tsv only (after a run never started) -> its trace.parquet and model.npz are stale (missing from a partial run
    folder); an aggregate recording the sha256 of the run's trace is current while the trace is, stale once it changes or when it
    records another run too."""
    import hashlib
    import json

    import pandas as pd

    from topicbench import io

    two = config()
    two["experiments"]["e"]["runs"][0]["grid"]["K"] = [3, 4]
    runs = expand_all(two)  # the K = 3 run never ran: no folder
    rid = "e/d/online_lda/label~x/K~4/seed~0"
    folder = tmp_path / "runs" / rid
    folder.mkdir(parents=True)
    (folder / "topics.tsv").write_text("topic\tword\n")
    stale = grid.stale_outputs(tmp_path, runs)
    runs = {rid: runs[rid]}
    assert sorted(stale) == sorted(str(folder / name) for name in grid.RUN_FILES if name != "topics.tsv")
    assert all(why == "it is missing from its run folder, which holds topics.tsv" for why in stale.values())
    for name in grid.RUN_FILES:
        (folder / name).unlink(missing_ok=True)
    io.write_parquet(folder / "trace.parquet", pd.DataFrame({"x": [1]}), {})
    digest = hashlib.sha256((folder / "trace.parquet").read_bytes()).hexdigest()
    io.write_parquet(tmp_path / "all_traces.parquet", pd.DataFrame({"x": [1]}),
                     {grid.AGGREGATE_INPUTS: json.dumps({f"runs/{rid}/trace.parquet": digest})})
    assert str(tmp_path / "all_traces.parquet") not in grid.stale_outputs(tmp_path, runs)
    io.write_parquet(folder / "trace.parquet", pd.DataFrame({"x": [2]}), {})
    assert grid.stale_outputs(tmp_path, runs)[str(tmp_path / "all_traces.parquet")] == \
        f"runs/{rid}/trace.parquet changed since it was aggregated"
    io.write_parquet(tmp_path / "all_traces.parquet", pd.DataFrame({"x": [1]}),
                     {grid.AGGREGATE_INPUTS: json.dumps({f"runs/{rid}/trace.parquet": digest, "runs/gone": digest})})
    assert grid.stale_outputs(tmp_path, runs)[str(tmp_path / "all_traces.parquet")] == \
        "it was not aggregated from exactly the configured runs"


def test_stale_corpora_judge_every_dataset_past_missing_or_unreadable_ones(tmp_path):
    """Datasets a (never prepared), b (unreadable corpus.json) and c (prepared with the config's recipe and
    parameters, its listed vocab.txt there, no code record: no evidence either way) -> b is stale, c current; c with
    other parameters, or recording other code, -> stale too."""
    import json

    from topicbench.dataset import get_dataset

    datasets = {name: {"recipe": "nyt_like", "params": {"n_train": 300}} for name in "abc"}
    params = json.loads(json.dumps(get_dataset("nyt_like").resolve_params({"n_train": 300}), default=str))
    record = {"checksums": {"vocab.txt": "0" * 64}, "dataset_recipe": "nyt_like", "dataset_params": params}
    for name, text in (("b", "{"), ("c", json.dumps(record))):
        (tmp_path / "corpora" / name).mkdir(parents=True)
        (tmp_path / "corpora" / name / "corpus.json").write_text(text)
    (tmp_path / "corpora" / "c" / "vocab.txt").write_text("apple\n")
    b, c = (str(tmp_path / "corpora" / name / "corpus.json") for name in "bc")
    assert grid.stale_corpora(tmp_path, datasets, {"a", "b", "c"}) == {b: "its corpus.json or counts manifest is unreadable"}
    datasets["c"]["params"]["n_train"] = 301
    assert grid.stale_corpora(tmp_path, datasets, {"a", "b", "c"}) == {
        b: "its corpus.json or counts manifest is unreadable", c: "its recorded dataset parameters differ from the config"}
    datasets["c"]["params"]["n_train"] = 300
    (tmp_path / "corpora" / "c" / "corpus.json").write_text(json.dumps({**record, "prepared_by": {"code_sha256": "0" * 64}}))
    assert grid.stale_corpora(tmp_path, datasets, {"c"}) == {
        c: "it was prepared by other code than the file of recipe nyt_like and the topicbench package hold now"}


def test_planted_checks_reach_runs_after_a_real_corpus_and_take_open_lengths(tmp_path):
    """An experiment on a real corpus (no planted size) then one on a planted corpus with a minibatch over its 300
    documents -> the planted run is still refused; a planted corpus with a minimum length and no maximum (planted_lda
    like=wiki: log-normal lengths) is accepted."""
    (tmp_path / "corpora" / "sotu").mkdir(parents=True)
    cfg = config(batch_size=301)
    cfg["corpora_dir"] = str(tmp_path / "corpora")
    cfg["datasets"]["a_real"] = {"recipe": "sotu"}
    cfg["experiments"] = {"a": {"dataset": "a_real", "runs": [{"label": "x", "method": "online_lda", "grid": {"K": [3]}}]},
                          **cfg["experiments"]}
    with pytest.raises(GridError, match="batch_size = 301 exceeds the 300 training documents of dataset d"):
        expand_all(cfg)
    wiki = config()
    wiki["datasets"]["d"] = {"recipe": "planted_lda", "params": {"like": "wiki", "n_train": 300}}
    assert list(expand_all(wiki)) == ["e/d/online_lda/label~x/K~3/seed~0"]


def test_recorded_sizes_take_corpus_json_and_every_shard_file():
    """_recorded_sizes: corpus.json's 'bytes' and each shard's, the shards' under counts/; a shard recording none adds
    nothing (a corpus written before sizes were recorded)."""
    meta = {"bytes": {"corpus.json": "10"}}
    shards = [{"files": {"train": "a.npz", "test": "b.npz"}, "bytes": {"train": 5, "test": "7"}},
              {"files": {"train": "c.npz"}}]
    assert grid._recorded_sizes(meta, shards) == {"corpus.json": 10, "counts/a.npz": 5, "counts/b.npz": 7}
    assert grid._recorded_sizes({}, []) == {}


def test_each_run_spec_names_its_experiment_dataset_label_and_seed_and_takes_its_groups_settings():
    """Two datasets x two seeds x K in (3, 4) of one group: eight runs, each spec recording the experiment, dataset,
    label, seed and grid point its run id names (the trace's identity columns come from the spec); a group's settings
    override the experiment's (passes 3 over 2), which the group inherits otherwise (n_checkpoints 5)."""
    cfg = config({"passes": 2, "n_checkpoints": 5})
    cfg["datasets"]["d2"] = {"recipe": "nyt_like", "params": {"n_train": 300}}
    experiment = cfg["experiments"]["e"]
    experiment.pop("dataset")
    experiment.update(datasets=["d", "d2"], seeds=[0, 7])
    experiment["runs"][0].update(grid={"K": [3, 4]}, settings={"passes": 3})
    runs = expand_all(cfg)
    assert len(runs) == 8
    for rid, entry in runs.items():
        spec = entry["spec"]
        assert rid == f"e/{spec.dataset}/online_lda/label~x/K~{spec.params['K']}/seed~{spec.seed}", rid
        assert (spec.experiment, spec.label, entry["dataset"], entry["label"]) == ("e", "x", spec.dataset, "x")
        assert (spec.passes, spec.n_checkpoints) == (3.0, 5)
    assert sorted((s.dataset, s.seed, s.params["K"]) for s in (e["spec"] for e in runs.values())) == \
        [(d, seed, k) for d in ("d", "d2") for seed in (0, 7) for k in (3, 4)]
