"""Results that lie (faults, eighth pass): `topicbench aggregate` builds all_traces.parquet, the one table every figure
averages over seeds and grid points; a trace that is not the run its folder names, or a second trace of one run,
must be refused naming both, never averaged in."""
import shutil

import pandas as pd
import pytest

from _run_util import tiny_corpus  # noqa: F401
from topicbench.cli import main as cli
from topicbench.grid import run_id
from topicbench.run import RunSpec, run

SPEC = dict(method="online_lda", n_checkpoints=2, experiment="e", dataset="tiny", label="x")


def fit(results, corpus, seed=0, K=3, folder_seed=None, folder_K=None):
    """One run written where the workflow puts it (folder names may lie: folder_seed, folder_K)."""
    rid = run_id("e", "tiny", "online_lda", "x", {"K": folder_K or K, "batch_size": 20},
                 seed if folder_seed is None else folder_seed)
    out = results / "runs" / rid
    run(RunSpec(**SPEC, params={"K": K, "batch_size": 20}, seed=seed), corpus, out)
    return out / "trace.parquet"


def aggregate(tmp_path, capsys, *traces):
    code = cli(["aggregate", "--out", str(tmp_path / "all_traces.parquet"), *map(str, traces)])
    return code, capsys.readouterr().err


def test_two_traces_of_one_run_refused(tmp_path, capsys, tiny_corpus):
    """Two traces of one run (same identity and seed, different bytes: a rerun kept elsewhere) -> exit 2 naming both.

    No table is written (was: both averaged in every figure as if two seeds)."""
    first = fit(tmp_path / "results", tiny_corpus)
    again = tmp_path / "rerun"
    run(RunSpec(**SPEC, params={"K": 3, "batch_size": 20}, seed=0), tiny_corpus, again)
    code, err = aggregate(tmp_path, capsys, first, again / "trace.parquet")
    assert code == 2 and str(first) in err and str(again / "trace.parquet") in err and "same run" in err, err
    assert not (tmp_path / "all_traces.parquet").exists()


@pytest.mark.parametrize("lie", ["seed", "K"])
def test_trace_whose_config_disagrees_with_its_folder_refused(tmp_path, capsys, tiny_corpus, lie):
    """A trace in a run folder naming another seed (seed~1 holding seed 0) or K (K~4 holding K=3) -> exit 2 naming it.

    The message names the trace and both values, and no table is written (was: aggregated under its own values)."""
    kwargs = {"folder_seed": 1} if lie == "seed" else {"folder_K": 4}
    trace = fit(tmp_path / "results", tiny_corpus, **kwargs)
    code, err = aggregate(tmp_path, capsys, trace)
    want = "seed '1' but records seed '0'" if lie == "seed" else "K '4' but records K '3'"
    assert code == 2 and str(trace) in err and want in err, err
    assert not (tmp_path / "all_traces.parquet").exists()


def test_trace_copied_over_another_run_refused(tmp_path, capsys, tiny_corpus):
    """seed 0's trace copied over seed 1's (a by-hand 'fix') -> exit 2 naming the copy, no table."""
    zero = fit(tmp_path / "results", tiny_corpus, seed=0)
    one = fit(tmp_path / "results", tiny_corpus, seed=1)
    shutil.copyfile(zero, one)
    pd.read_parquet(one).assign(fit_wall_s=1.0).to_parquet(one)  # not byte-equal, so not caught as a plain copy
    code, err = aggregate(tmp_path, capsys, zero, one)
    assert code == 2 and str(one) in err, err
    assert not (tmp_path / "all_traces.parquet").exists()


def test_traces_of_two_commits_are_recorded_row_by_row(tmp_path, capsys, tiny_corpus):
    """Traces made at two git commits (only the edited method's fits rerun) -> aggregated with each row's own git_sha,
    so a figure or the paper can tell them apart (recorded, never overwritten by one sha)."""
    zero = fit(tmp_path / "results", tiny_corpus, seed=0)
    one = fit(tmp_path / "results", tiny_corpus, seed=1)
    pd.read_parquet(one).assign(git_sha="0" * 40).to_parquet(one)
    code, err = aggregate(tmp_path, capsys, zero, one)
    assert code == 0, err
    table = pd.read_parquet(tmp_path / "all_traces.parquet")
    by_seed = table.groupby("seed")["git_sha"].agg(set).to_dict()
    assert by_seed[1] == {"0" * 40} and by_seed[0] == set(pd.read_parquet(zero)["git_sha"]) != {"0" * 40}


def test_grid_points_and_seeds_that_differ_are_aggregated(tmp_path, capsys, tiny_corpus):
    """Two seeds and two K of one label in their own folders -> aggregated (the identity check refuses only a run
    twice or a folder that lies)."""
    traces = [fit(tmp_path / "results", tiny_corpus, seed=s, K=k) for s in (0, 1) for k in (2, 3)]
    code, err = aggregate(tmp_path, capsys, *traces)
    assert code == 0, err
    table = pd.read_parquet(tmp_path / "all_traces.parquet")
    assert sorted(set(zip(table["seed"], table["p_K"]))) == [(0, 2), (0, 3), (1, 2), (1, 3)]
