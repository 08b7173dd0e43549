"""The catalogue itself: docs/faults.md lists every collected case, and there are at least 100 of them."""
import re
import subprocess
import sys

import pytest

from _run_util import REPO, env

MINIMUM_CASES = 100  # issue #11's acceptance


@pytest.fixture(scope="module")
def table_check():
    """tools/faults_table.py --check, once: it collects tests/faults/ and compares docs/faults.md."""
    return subprocess.run([sys.executable, str(REPO / "tools" / "faults_table.py"), "--check"], cwd=REPO, env=env(),
                          capture_output=True, text=True, timeout=600)


def test_faults_table_is_current(table_check):
    """docs/faults.md out of date with tests/faults/ -> this test fails (regenerate with tools/faults_table.py)."""
    assert table_check.returncode == 0, table_check.stdout + table_check.stderr


def test_catalogue_has_enough_cases(table_check):
    """Fewer than 100 collected fault cases -> this test fails (issue #11's acceptance)."""
    match = re.search(r"(\d+) cases collected", table_check.stdout)
    assert match, table_check.stdout + table_check.stderr
    assert int(match.group(1)) >= MINIMUM_CASES, f"{match.group(1)} cases collected in tests/faults/"
