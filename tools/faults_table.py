"""Build docs/faults.md, the fault catalogue of issue #11, from the collected cases of tests/faults/.

One row per collected case (a test function, or one parametrized case of it): its area (the module,
tests/faults/test_<area>.py), its id, and the fault and the promise from the test's one-line docstring
"<fault> -> <promised behaviour>". A case without such a docstring is an error.

    python tools/faults_table.py            # rewrite docs/faults.md
    python tools/faults_table.py --check    # exit 1 if docs/faults.md is not current (what CI runs)
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "docs" / "faults.md"
HEADER = """# The fault catalogue

Every bad input gets a clear error naming the culprit before compute, and no fault loses or mixes data
(issue #11). Each row is one case in `tests/faults/`, run by CI with the rest of the suite; the fault and the
promise are the test's docstring. Regenerate with `python tools/faults_table.py` (a test fails while this
file is stale).

"""


class _Collector:
    def __init__(self):
        self.rows: list[tuple[str, str, str, str]] = []
        self.problems: list[str] = []

    def pytest_collection_modifyitems(self, items):
        for item in items:
            module = Path(str(item.fspath)).stem
            area = module.removeprefix("test_")
            doc = (getattr(item, "function", None).__doc__ or "").strip()
            first = doc.splitlines()[0].strip() if doc else ""
            if "->" not in first:
                self.problems.append(f"{item.nodeid}: docstring must read '<fault> -> <promised behaviour>'")
                continue
            fault, promise = (part.strip() for part in first.split("->", 1))
            case = item.nodeid.split("::", 1)[1]
            self.rows.append((area, case, fault, promise))


def collect(folder: Path = REPO / "tests" / "faults") -> list[tuple[str, str, str, str]]:
    collector = _Collector()
    with contextlib.redirect_stdout(io.StringIO()):  # pytest's list of node ids
        code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-o", "addopts=", str(folder)],
                           plugins=[collector])
    if code != 0 or collector.problems:
        raise SystemExit("\n".join(collector.problems) or f"collection of {folder} failed (pytest exit {code})")
    return collector.rows


def render(rows) -> str:
    escape = lambda text: text.replace("|", "\\|")  # noqa: E731
    areas = sorted({row[0] for row in rows})
    lines = [HEADER.rstrip("\n"), "", f"{len(rows)} cases in {len(areas)} areas: "
             + ", ".join(f"{area} ({sum(r[0] == area for r in rows)})" for area in areas) + ".", "",
             "| area | case | fault | promise |", "|---|---|---|---|"]
    lines += [f"| {area} | `{escape(case)}` | {escape(fault)} | {escape(promise)} |"
              for area, case, fault, promise in sorted(rows, key=lambda r: r[0])]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/faults.md is not current")
    args = parser.parse_args(argv)
    rows = collect()
    text = render(rows)
    if args.check:
        print(f"{len(rows)} cases collected")
        current = TABLE.read_text() if TABLE.exists() else ""
        if current != text:
            print(f"{TABLE.relative_to(REPO)} is stale: run python tools/faults_table.py", file=sys.stderr)
            return 1
        return 0
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(text)
    print(f"{len(rows)} cases -> {TABLE.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
