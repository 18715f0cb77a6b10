"""Ported from ``pkg/scheduler/framework/plugins/helper/normalize_score_test.go`` (v1.20).

* TestDefaultNormalizeScore: all 7 cases (``case_0`` .. ``case_6``), with MaxNodeScore = 100.

Plus the Go integer semantics the helper relies on (truncating division), which the
upstream table cannot exercise because its scores are non-negative.
"""

import numpy as np
import pytest

from ruleset.plugins.helper.normalize import default_normalize_score, go_div

MAX_NODE_SCORE = 100

# (reverse, scores, expected): TestDefaultNormalizeScore, in upstream order.
DEFAULT_NORMALIZE_CASES = [
    (False, [1, 2, 3, 4], [25, 50, 75, 100]),
    (True, [1, 2, 3, 4], [75, 50, 25, 0]),
    (False, [1000, 10, 20, 30], [100, 1, 2, 3]),
    (True, [1000, 10, 20, 30], [0, 99, 98, 97]),
    (False, [1, 1, 1, 1], [100, 100, 100, 100]),
    (False, [1000, 1, 1, 1], [100, 0, 0, 0]),
    (True, [0, 1, 1, 1], [100, 0, 0, 0]),
]


@pytest.mark.parametrize(("reverse", "scores", "expected"), DEFAULT_NORMALIZE_CASES,
                         ids=[f"case_{i}" for i in range(len(DEFAULT_NORMALIZE_CASES))])
def test_default_normalize_score(reverse: bool, scores: list[int], expected: list[int]) -> None:
    original = np.array(scores, dtype=np.int64)
    got = default_normalize_score(MAX_NODE_SCORE, reverse, original)
    assert got.dtype == np.int64
    assert got.tolist() == expected
    assert original.tolist() == scores  # the input is not changed


@pytest.mark.parametrize(("reverse", "expected"), [(False, [0, 0, 0]), (True, [100, 100, 100])],
                         ids=["all-zero", "all-zero-reverse"])
def test_all_zero_scores(reverse: bool, expected: list[int]) -> None:
    assert default_normalize_score(MAX_NODE_SCORE, reverse, [0, 0, 0]).tolist() == expected


def test_empty_scores() -> None:
    assert default_normalize_score(MAX_NODE_SCORE, True, []).tolist() == []


def test_negative_scores_truncate_toward_zero() -> None:
    # Go: 100 * -1 / 3 == -33 (numpy's floor division would give -34); max(0, ...) keeps maxCount at 3.
    assert default_normalize_score(MAX_NODE_SCORE, False, [-1, 3]).tolist() == [-33, 100]
    assert default_normalize_score(MAX_NODE_SCORE, False, [-5, -1]).tolist() == [-5, -1]


@pytest.mark.parametrize(("a", "b", "expected"),
                         [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (-6, 2, -3), (0, -5, 0)])
def test_go_div(a: int, b: int, expected: int) -> None:
    assert int(go_div(np.array([a]), b)[0]) == expected
