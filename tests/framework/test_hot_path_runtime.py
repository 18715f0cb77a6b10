"""The framework's per-cycle shortcuts change no outcome (ruleset's own optimisation, no
upstream table):

- ``_each`` goes straight on when a plugin returns None at a point whose outcome function makes
  None "go on": checked on every such function.
- ``run_score`` shares one array for raw and normalized scores when a plugin has no
  NormalizeScore, copies it for a normalizer that changes its input in place, and still
  names the first score out of range, from Score alone or after normalizing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ruleset import MAX_NODE_SCORE, Plugin, hookspecs
from ruleset.framework import runtime
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.runtime import Step
from ruleset.snapshot import NodeSet
from tests.factories import build_cluster, framework_for, make_node, registry_with

hookimpl = hookspecs.hookimpl


@pytest.mark.parametrize("decide", sorted(runtime._NONE_GOES_ON, key=lambda f: f.__name__),
                         ids=lambda f: f.__name__)
def test_every_none_goes_on_outcome_goes_on_for_none(decide: Any) -> None:
    step = Step("P", lambda: None, ())
    kwargs = {"skipped": [], "pod": None, "waits": {}, "last": None, "cluster": None, "details": False}
    assert decide(step, None, kwargs) is None
    assert kwargs["skipped"] == [] and kwargs["last"] is None


def test_bind_is_not_among_them() -> None:
    assert runtime._bind_outcome not in runtime._NONE_GOES_ON
    assert runtime._bind_outcome(Step("B", lambda: None, ()), None, {}) is not None


class Fixed(Plugin):
    """Scores [10, 250, -3] cut to the nodes asked; normalizes by halving in place."""

    name = "Fixed"
    scores = np.array([10, 250, -3], dtype=np.int64)

    @hookimpl
    def ruleset_score(self, pod: Any, nodes: NodeSet) -> np.ndarray:
        return self.scores[nodes.indices].copy()

    @hookimpl
    def ruleset_normalize_score(self, scores: np.ndarray) -> None:
        scores //= 5
        np.clip(scores, 0, MAX_NODE_SCORE, out=scores)


class Plain(Plugin):
    """Scores without NormalizeScore."""

    name = "Plain"
    scores = np.array([10, 20, 30], dtype=np.int64)

    @hookimpl
    def ruleset_score(self, pod: Any, nodes: NodeSet) -> np.ndarray:
        return self.scores[nodes.indices].copy()


def _run(plugins: list[Any], indices: list[int]) -> tuple[Any, Any]:
    state = build_cluster([make_node(f"n{i}") for i in range(3)])
    framework = framework_for([(p.name, {}, 2) for p in plugins], registry_with(*plugins), snapshot=state.snapshot)
    return framework.run_score(CycleState(), None, NodeSet(state.snapshot, np.array(indices)))  # type: ignore[arg-type]


def test_raw_stays_raw_when_normalized_in_place() -> None:
    table, status = _run([Fixed, Plain], [0, 1, 2])
    assert status.is_success
    assert [r.tolist() for r in table.raw] == [[10, 250, -3], [10, 20, 30]]
    assert [n.tolist() for n in table.normalized] == [[2, 50, 0], [10, 20, 30]]
    assert table.total.tolist() == [24, 140, 60]


class OutOfRange(Plain):
    name = "OutOfRange"
    scores = np.array([5, -1, 101], dtype=np.int64)


@pytest.mark.parametrize(("indices", "bad"), [([0, 1, 2], -1), ([0, 2], 101)], ids=["negative-first", "over"])
def test_the_first_score_out_of_range_is_named(indices: list[int], bad: int) -> None:
    table, status = _run([OutOfRange], indices)
    assert table is None
    assert status.message() == (f'plugin "OutOfRange" returns an invalid score {bad}, it should in the range '
                                "of [0, 100] after normalizing")


def test_no_nodes_scores_nothing() -> None:
    table, status = _run([Plain], [])
    assert status.is_success and table.total.tolist() == [] and table.plugins == ["Plain"]
