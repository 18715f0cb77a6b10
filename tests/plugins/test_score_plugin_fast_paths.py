"""Fast paths of TaintToleration, NodeAffinity and ImageLocality scoring give what the general
code gives: NormalizeScore of all-zero scores (no preference, no PreferNoSchedule taint to
count), TaintToleration on a cluster without PreferNoSchedule taints, ImageLocality when no
node holds the pod's images. ruleset's own optimisation, checked against
``default_normalize_score`` and ``calculate_priority`` themselves: no upstream table.
"""

from __future__ import annotations

import numpy as np
import pytest

from ruleset.plugins.helper.normalize import default_normalize_score
from ruleset.plugins.image_locality import MIN_THRESHOLD, calculate_priority
from ruleset.plugins.node_affinity import NodeAffinity
from ruleset.plugins.taint_toleration import TaintToleration
from tests.factories import Harness, container, make_node, make_pod

ARRAYS = [np.zeros(0, dtype=np.int64), np.zeros(5, dtype=np.int64), np.array([0, 3, 0, 7]),
          np.array([-2, 0, -1]), np.array([5, 5])]
IDS = ["empty", "zeros", "mixed", "negative", "equal"]


@pytest.mark.parametrize("scores", ARRAYS, ids=IDS)
@pytest.mark.parametrize(("plugin", "reverse"), [(NodeAffinity, False), (TaintToleration, True)],
                         ids=["NodeAffinity", "TaintToleration"])
def test_normalize_matches_the_helper(plugin: type, reverse: bool, scores: np.ndarray) -> None:
    given = scores.astype(np.int64)
    got = plugin().ruleset_normalize_score(given.copy())
    expected = default_normalize_score(100, reverse, given)
    assert got.dtype == np.int64 and got.tolist() == expected.tolist()


def test_normalize_of_zeros_does_not_hand_back_the_input() -> None:
    scores = np.zeros(3, dtype=np.int64)
    assert NodeAffinity().ruleset_normalize_score(scores) is not scores


def _nodes(taints: list[list[dict]]) -> list[dict]:
    return [make_node(f"n{i}", taints=t) for i, t in enumerate(taints)]


@pytest.mark.parametrize(("taints", "expected"), [
    ([[], [], []], {"n0": 100, "n1": 100, "n2": 100}),
    ([[{"key": "a", "value": "b", "effect": "NoSchedule"}], [], []], {"n1": 100, "n2": 100}),
    ([[{"key": "a", "value": "b", "effect": "PreferNoSchedule"}], [], []], {"n0": 0, "n1": 100, "n2": 100}),
], ids=["untainted", "only-hard-taints", "one-soft-taint"])
def test_taint_toleration_score(taints: list[list[dict]], expected: dict[str, int]) -> None:
    h = Harness(["TaintToleration"], _nodes(taints))
    assert h.score(make_pod("p")) == expected


def test_taint_toleration_raw_is_zero_without_soft_taints() -> None:
    h = Harness(["TaintToleration"], _nodes([[], [{"key": "a", "value": "", "effect": "NoExecute"}]]),
                points={"TaintToleration": ["score"]})
    assert h.score(make_pod("p"), raw=True) == {"n0": 0, "n1": 0}


@pytest.mark.parametrize("containers", [0, 1, 3], ids=["none", "one", "three"])
def test_image_locality_without_held_images_is_the_zero_sum_priority(containers: int) -> None:
    nodes = [make_node("n0", images=[{"names": ["other:1"], "sizeBytes": 500 * 1024 * 1024}]), make_node("n1")]
    h = Harness(["ImageLocality"], nodes)
    pod = make_pod("p", containers=[container(image="missing:1", name=f"c{i}") for i in range(containers)])
    expected = int(calculate_priority(np.zeros(2, dtype=np.int64), containers)[0])
    assert expected == 0 and MIN_THRESHOLD > 0
    assert h.score(pod, raw=True) == {"n0": expected, "n1": expected}
