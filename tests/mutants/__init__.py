"""Equation mutants: deliberate, plausible errors in the equations the tests guard (issue #10).

Each ``tests/mutants/<family>.py`` defines ``MUTANTS``, a list of :class:`Mutant`. The runner
``tests/test_equation_mutants.py`` applies each one to a scratch copy of the repository and requires its
listed tests to fail there; a mutant that survives names an equation no test can see break.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

ID_PATTERN = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class Mutant:
    """Replace the one occurrence of ``find`` in ``path`` (repo-relative) by ``replace``; ``tests`` (pytest
    node ids, repo-relative) must then fail. ``cites`` names the equation the edit breaks."""

    id: str
    cites: str
    path: str
    find: str
    replace: str
    tests: list[str] | tuple[str, ...]

    def __post_init__(self):
        if not ID_PATTERN.fullmatch(self.id):
            raise ValueError(f"mutant id {self.id!r} must match [a-z0-9_]+")
        if self.find == self.replace:
            raise ValueError(f"mutant {self.id}: replace is the same text as find")
        if isinstance(self.tests, str) or not self.tests:
            raise ValueError(f"mutant {self.id}: tests must be a non-empty list of pytest node ids")
        object.__setattr__(self, "tests", tuple(self.tests))

    def apply(self, source: str) -> str:
        """The mutated text of ``source``; ValueError naming the mutant unless ``find`` occurs exactly once."""
        n = source.count(self.find)
        if n != 1:
            raise ValueError(f"mutant {self.id}: find occurs {n} times in {self.path} (must be exactly once): "
                             f"{self.find!r}")
        return source.replace(self.find, self.replace)
