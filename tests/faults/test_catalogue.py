"""The catalogue itself: docs/faults.md lists every collected case, and there are at least 100 of them."""
import re
import subprocess
import sys

from _run_util import REPO, env

MINIMUM_CASES = 100  # issue #11's acceptance


def test_faults_table_is_current():
    """docs/faults.md out of date with tests/faults/ -> this test fails (regenerate with tools/faults_table.py)."""
    result = subprocess.run([sys.executable, str(REPO / "tools" / "faults_table.py"), "--check"], cwd=REPO, env=env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_catalogue_has_enough_cases():
    """Fewer than 100 collected fault cases -> this test fails (issue #11's acceptance)."""
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-o", "addopts=", str(REPO / "tests" / "faults")], cwd=REPO, env=env(),
                            capture_output=True, text=True, timeout=600)
    match = re.search(r"(\d+) tests? collected", result.stdout)
    assert match, result.stdout[-2000:] + result.stderr[-2000:]
    assert int(match.group(1)) >= MINIMUM_CASES, f"{match.group(1)} cases collected in tests/faults/"
