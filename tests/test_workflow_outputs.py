"""Every file a shipped config's workflow writes lies under results_dir or data_dir, under a name that
``grid.check_folders_owned`` guards; and every fit and prepare job has the code it runs among its inputs.

The folder check refuses an unmarked user folder that holds one of ``grid.WORKFLOW_ENTRIES``: Snakemake deletes a job's
old outputs before it runs the job, so a user's file of such a name would be lost. That list is written by hand; a new
rule whose output, log or benchmark file starts with another name would slip past the check. This test reads the
whole DAG of each shipped config from a dry run, so it fails as soon as a rule writes elsewhere.

Snakemake re-runs a job when an input is newer than its outputs; its own code trigger sees only a rule's shell line, so
without the method's (or recipe's) file and the topicbench package among the inputs an edited method would leave its
old results standing as if they were the new code's.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from topicbench.grid import WORKFLOW_ENTRIES

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p.stem for p in (REPO / "workflow" / "config").glob("*.yaml") if p.stem != "schema")
FILE_LINE = re.compile(r"^\s+(output|log|benchmark): (.*)$")
RULE_LINE = re.compile(r"^\s*(?:local)?rule (\w+):$")
INPUT_LINE = re.compile(r"^\s+input: (.*)$")


def _dry_run(config: str, results: Path, data: Path) -> str:
    """Snakemake's dry-run listing of the config's whole DAG (skips a config whose real corpora are absent)."""
    cmd = [sys.executable, "-m", "snakemake", "-n", "-s", str(REPO / "Snakefile"), "--configfile",
           str(REPO / "workflow" / "config" / f"{config}.yaml"), "--config", f"results_dir={results}", f"data_dir={data}"]
    result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "USER": "topicbench"})
    if result.returncode != 0 and "corpora_dir" in result.stdout + result.stderr:
        corpora_dir = yaml.safe_load((REPO / "workflow" / "config" / f"{config}.yaml").read_text()).get("corpora_dir")
        pytest.skip(f"{config}.yaml reads real corpora, not available here ({corpora_dir})")
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory):
    """config -> (its dry-run listing, results_dir, data_dir), each config's DAG built once for the module's tests."""
    listings = {}

    def listing(config: str):
        if config not in listings:
            root = tmp_path_factory.mktemp(config)
            listings[config] = (_dry_run(config, root / "results", root / "data"), root / "results", root / "data")
        return listings[config]
    return listing


def written_files(listing: str) -> list[str]:
    """The output, log and benchmark paths of every job in a dry-run listing (none of them exists yet)."""
    paths = []
    for line in listing.splitlines():
        match = FILE_LINE.match(line)
        if match:
            paths += [p.strip() for p in match.group(2).split(",") if p.strip()]
    return paths


@pytest.mark.parametrize("config", CONFIGS)
def test_every_written_name_is_guarded(dry_run, config):
    """A rule writing outside results_dir/data_dir, or under a name WORKFLOW_ENTRIES lacks -> this test fails."""
    listing, results, data = dry_run(config)
    paths = written_files(listing)
    assert len(paths) > 10, paths  # the dry run printed the jobs' files (the parse still matches Snakemake's format)
    roots = {"results_dir": results, "data_dir": data}
    unguarded = []
    for path in paths:
        owner = [key for key, root in roots.items() if Path(path).is_relative_to(root)]
        if not owner or Path(path).relative_to(roots[owner[0]]).parts[0] not in WORKFLOW_ENTRIES[owner[0]]:
            unguarded.append(path)
    assert not unguarded, f"{config}.yaml: written outside the guarded names: {sorted(set(unguarded))[:10]}"


def test_fits_and_prepares_depend_on_their_code(dry_run):
    """A fit or prepare job without its method's / recipe's file and the package among its inputs -> this test fails
    (an edited method would leave stale results standing)."""
    listing, _, _ = dry_run("ci")
    jobs, rule = [], None
    for line in listing.splitlines():
        if RULE_LINE.match(line):
            rule = RULE_LINE.match(line).group(1)
        elif INPUT_LINE.match(line) and rule in ("fit", "prepare_corpus"):
            jobs.append((rule, [Path(p.strip()) for p in INPUT_LINE.match(line).group(1).split(",")]))
    config = yaml.safe_load((REPO / "workflow" / "config" / "ci.yaml").read_text())
    recipes = {entry["recipe"] for entry in config["datasets"].values()}
    package = REPO / "topicbench"
    assert {rule for rule, _ in jobs} == {"fit", "prepare_corpus"}, jobs[:3]
    for rule, inputs in jobs:
        assert package / "run.py" in inputs and package / "kernels" / "lda_estep.py" in inputs, (rule, inputs[:5])
        plugins = [p for p in inputs if p.parent.name in ("methods", "datasets")]
        assert len(plugins) == 1 and plugins[0].is_file(), (rule, plugins)
        if rule == "prepare_corpus":
            assert plugins[0].parent == REPO / "datasets" and plugins[0].stem in recipes
        else:
            assert plugins[0].parent == REPO / "methods"
