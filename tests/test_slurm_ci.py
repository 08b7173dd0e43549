"""profiles/slurm: what it must (not) contain, and the end-to-end run through a real SLURM (tools/slurm_ci.sh).

The end-to-end test stands up slurmctld, slurmd, slurmdbd, MariaDB and munge on this machine and runs the ci config
through the profile; it takes longer than CI's budget leaves, so it runs only with TOPICBENCH_SLURM=1, as root, on
Debian (README, "Scaling out")."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PROFILE = ROOT / "profiles" / "slurm" / "config.yaml"


def rule_groups():
    """Group names the rules declare (`group:` followed by a quoted name on the next line)."""
    text = "".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    return set(re.findall(r'^\s+group:\s*\n\s+"([^"]+)"', text, flags=re.M))


def test_slurm_profile_takes_threads_and_memory_from_the_config():
    profile = yaml.safe_load(PROFILE.read_text())
    # set-threads/set-resources would override threads_per_run, mem_mb_per_run and mem_mb_per_prepare
    assert "set-threads" not in profile and "set-resources" not in profile
    assert "mem_mb" not in profile["default-resources"]


def test_slurm_profile_names_partition_account_and_a_status_command_that_needs_no_accounting():
    profile = yaml.safe_load(PROFILE.read_text())
    assert {"slurm_partition", "slurm_account"} <= set(profile["default-resources"])
    assert profile["slurm-status-command"] == "squeue"  # sacct hangs forever on a cluster without slurmdbd


def test_slurm_profile_groups_exist_in_the_rules():
    profile = yaml.safe_load(PROFILE.read_text())
    groups = {item.split("=")[0] for item in profile["group-components"]}
    assert groups and groups <= rule_groups(), (groups, rule_groups())


def rule_blocks():
    """{rule name: its text} for every rule in workflow/rules."""
    text = "".join(p.read_text() for p in sorted((ROOT / "workflow" / "rules").glob("*.smk")))
    return dict(re.findall(r"^rule (\w+):\n(.*?)(?=^\S|\Z)", text, flags=re.M | re.S))


def test_a_grouped_slurm_job_asks_for_one_members_cpus():
    # The plugin runs a group job's members one after another (--jobs 1 inside the job). Snakemake sums the
    # threads and memory of group members that may run side by side unless a constraint stacks them in
    # series: every grouped rule holds one group_slots and the profile allows one per job, scoped local so
    # that it limits each job and not the whole run. Without it a 6-fit job asks for 6 x threads_per_run CPUs.
    profile = yaml.safe_load(PROFILE.read_text())
    assert "group_slots=1" in profile["resources"]
    assert "group_slots=local" in profile["set-resource-scopes"]
    grouped = {name: body for name, body in rule_blocks().items() if re.search(r"^\s+group:", body, flags=re.M)}
    assert set(grouped) >= {"fit", "prepare_corpus"}, sorted(grouped)
    for name, body in grouped.items():
        assert re.search(r"^\s+group_slots=1,", body, flags=re.M), f"rule {name} is grouped but holds no group_slots"


def _can_run_slurm():
    return os.environ.get("TOPICBENCH_SLURM") == "1" and os.geteuid() == 0 and Path("/etc/debian_version").exists()


@pytest.mark.slow
@pytest.mark.skipif(not _can_run_slurm(), reason="needs TOPICBENCH_SLURM=1, root and Debian (README, Scaling out)")
def test_ci_config_through_a_real_slurm():
    proc = subprocess.run(["bash", str(ROOT / "tools" / "slurm_ci.sh")], cwd=ROOT, capture_output=True, text=True,
                          timeout=3600)
    print(proc.stdout[-4000:], proc.stderr[-4000:])
    assert proc.returncode == 0 and "PASS" in proc.stdout
