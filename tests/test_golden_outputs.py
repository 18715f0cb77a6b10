"""``schedule``, ``score`` and ``validate`` JSON outputs, pinned byte for byte.

Issue 9 moved code between modules on the promise that no output changes; these recorded
outputs (``tests/golden/outputs/``, written before the moves by ``tests/golden/record.py
--write``) hold every later change to the same promise. A deliberate change of output
re-records them, and the diff is reviewed like any other.
"""

from __future__ import annotations

import difflib

import pytest

from tests.golden.cases import cases
from tests.golden.record import output_path, run

CASES = cases()


def test_every_case_is_recorded():
    assert sorted(p.stem for p in output_path("x").parent.glob("*.txt")) == sorted(c for c, _ in CASES)


@pytest.mark.parametrize(("case_id", "argv"), CASES, ids=[c for c, _ in CASES])
def test_output_is_byte_identical(case_id: str, argv: list[str]):
    expected = output_path(case_id).read_text(encoding="utf-8")
    actual = run(argv)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "recorded", "now", n=2))
        pytest.fail(f"ruleset {' '.join(argv)} changed:\n{diff[:4000]}")
