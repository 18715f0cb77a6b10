"""The bulk dry run's columnar candidates (:class:`~ruleset.plugins.default_preemption_bulk.Found`).

Not an upstream port: ``Found.pick`` must pick exactly what ``pick_one_node_for_preemption``
picks from the same candidates made into :class:`Candidate` objects (same index, same reason),
and ``_accepted`` must keep and stop exactly where ``dryRunPreemption``'s bookkeeping does;
both on seeded random inputs full of ties, plus the edge cases by hand.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ruleset.api.pod import Pod
from ruleset.plugins.default_preemption import FoundCandidates, pick_one_node_for_preemption
from ruleset.plugins.default_preemption_bulk import MAX_INT32, Found, _accepted, _rankings
from tests.factories import decode


def _pods(n: int) -> list[Pod]:
    return [decode({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "pause"}]}}) for i in range(n)]


def _found(rng: random.Random, n: int) -> Found:
    """``n`` candidates whose criteria are drawn from few values, so that many tie."""
    count = np.array([rng.choice([0, 1, 1, 2, 3]) for _ in range(n)], dtype=np.int64)
    first = np.array([rng.choice([-5, 0, 10]) for _ in range(n)], dtype=np.int64)
    total = np.array([rng.choice([1, 2]) * (MAX_INT32 + 1) for _ in range(n)], dtype=np.int64)
    earliest = np.array([rng.choice([1.0, 2.0, np.inf]) for _ in range(n)])
    violations = np.array([rng.choice([0, 0, 1]) for _ in range(n)], dtype=np.int64)
    ends = np.cumsum(count)
    rows = np.arange(int(ends[-1]) if n else 0, dtype=np.intp)
    return Found(np.arange(n, dtype=np.intp), violations, first, total, count, earliest, rows, ends)


@pytest.mark.parametrize("seed", range(300))
def test_pick_agrees_with_the_list_pick(seed: int) -> None:
    rng = random.Random(seed)
    found = _found(rng, rng.randint(1, 12))
    candidates = FoundCandidates(found, [f"node{i}" for i in range(len(found))], _pods(int(found.count.sum())))
    index, why = found.pick()
    chosen, expected_why = pick_one_node_for_preemption(list(candidates))
    assert (candidates[index], why) == (chosen, expected_why)


def test_pick_of_nothing() -> None:
    assert Found.empty().pick() == (-1, "")


@pytest.mark.parametrize(("earliest", "expected"), [
    pytest.param([1.0, 3.0, 2.0, 3.0], 1, id="latest start, first of two"),
    pytest.param([np.inf] * 4, 0, id="no start times: the first"),
])
def test_pick_when_every_criterion_ties(earliest: list[float], expected: int) -> None:
    """Candidates alike in everything but their victims' start times (PreemptionBasic's shape)."""
    n = len(earliest)
    found = Found(np.arange(n), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                  np.full(n, 3 * (MAX_INT32 + 1)), np.full(n, 3), np.array(earliest), np.arange(3 * n),
                  np.arange(3, 3 * n + 1, 3))
    candidates = FoundCandidates(found, [f"node{i}" for i in range(n)], _pods(3 * n))
    assert found.pick() == (expected, "latest start time of its most important victims")
    chosen, why = pick_one_node_for_preemption(list(candidates))
    assert (candidates[expected], "latest start time of its most important victims") == (chosen, why)


def test_take_keeps_each_candidates_victims() -> None:
    found = Found(np.array([7, 8, 9]), np.array([0, 1, 0]), np.array([1, 2, 3]), np.array([4, 5, 6]),
                  np.array([2, 0, 3]), np.array([1.0, 2.0, 3.0]), np.array([10, 11, 20, 21, 22]),
                  np.array([2, 2, 5]))
    taken = found.take(np.array([2, 0]))
    assert (taken.nodes.tolist(), taken.victim_rows.tolist(), taken.ends.tolist(), taken.count.tolist()) == (
        [9, 7], [20, 21, 22, 10, 11], [3, 5], [3, 2])
    joined = Found.joined([taken, found.take(np.array([1]))])
    assert (joined.nodes.tolist(), joined.victim_rows.tolist(), joined.ends.tolist()) == (
        [9, 7, 8], [20, 21, 22, 10, 11], [3, 5, 5])


def _reference_accepted(violates: list[bool], clean: int, violating: int,
                        wanted: int) -> tuple[list[int], int | None, int, int]:
    """``dryRunPreemption``'s loop, one candidate at a time (DefaultPreemption.dry_run's ``found``)."""
    kept = []
    for k, v in enumerate(violates):
        if v and violating < wanted:
            violating += 1
            kept.append(k)
        elif not v and clean < wanted:
            clean += 1
            kept.append(k)
        if clean and clean + violating >= wanted:
            return kept, k, clean, violating
    return kept, None, clean, violating


@pytest.mark.parametrize("share", [0.5, 0.0], ids=["some-violate", "none-violates"])
@pytest.mark.parametrize("seed", range(300))
def test_accepted_agrees_with_the_loop(seed: int, share: float) -> None:
    """Random inputs; with ``share`` 0 no candidate violates a PDB (_accepted's integer path)."""
    rng = random.Random(seed)
    wanted = rng.randint(1, 6)
    clean, violating = rng.randint(0, wanted - 1), rng.randint(0, wanted)
    if clean + violating >= wanted:
        clean = 0  # the walk would have stopped already otherwise
    violates = [rng.random() < share for _ in range(rng.randint(0, 10))]
    kept, end, clean_after, violating_after = _accepted(np.array(violates, dtype=bool), clean, violating, wanted)
    assert (kept.tolist(), end, clean_after, violating_after) == _reference_accepted(violates, clean, violating,
                                                                                     wanted)


class _Table:
    """The pod-table columns _rankings reads."""

    def __init__(self, priority: np.ndarray, start: np.ndarray):
        self.priority, self.start = priority, start


@pytest.mark.parametrize("seed", range(200))
def test_rankings_of_ordered_rows_as_in_general(seed: int) -> None:
    """Rows running from the most important pod down (no PDB reordered them): the shortcut reading
    each row's first victim gives what the general computation gives, to the bit."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(6, 30))
    table = _Table(rng.choice([-5, 0, 3, 10, MAX_INT32, -MAX_INT32 - 1], size).astype(np.int64),
                   rng.choice([1.0, 2.0, 5.0, np.inf], size))
    candidates, longest = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    matrix = np.full((candidates, longest), -1, dtype=np.intp)
    victim = np.zeros((candidates, longest), dtype=bool)
    for c in range(candidates):
        n = int(rng.integers(1, longest + 1))
        rows = rng.choice(size, n, replace=False)
        matrix[c, :n] = rows[np.lexsort((table.start[rows], -table.priority[rows]))]
        victim[c, :n] = rng.random(n) < 0.5
    fast, general = _rankings(table, matrix, victim, True), _rankings(table, matrix, victim, False)
    assert [(a.dtype, a.tolist()) for a in fast] == [(b.dtype, b.tolist()) for b in general]
