"""ImageLocality from 1.30: init containers' images count.

Ported from ``pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go`` (v1.34):
``TestImageLocalityPriority``, all 7 cases, run under ``kubernetesVersion = "1.34"`` (the
v1.20 port, ``test_image_locality.py``, keeps 1.20's answer for the 7th, the one with an
init container). ``TestNormalizedImageName`` did not change and is covered there. Added: the
switch's release boundary (1.29 vs 1.30) and the number of containers the maximum scales with.
"""

from __future__ import annotations

import pytest

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, make_node
from tests.plugins.test_image_locality import (
    NODE_20_30_40,
    NODE_40_300_2000,
    PRIORITY_CASES,
    image,
    pod_with_images,
)

#: The 7th case's answer from 1.30 on (upstream's own expectation).
INIT_CASE_V134 = [6, 0]


def scores(version: str, pod: dict, node_images: list[list[dict]]) -> list[int]:
    state = build_cluster([make_node(f"node{i + 1}", images=imgs) for i, imgs in enumerate(node_images)])
    profile = Profile(name="test", plugins=[PluginConfig(name="ImageLocality")], kubernetes_version=version)
    fw = Framework(profile, load_registry(), Handle(state.snapshot))
    result = Scheduler(fw, seed=0).schedule(decode(pod, state), always_score=True)
    assert result.scores is not None
    return [int(v) for v in result.scores.normalized[0]]


V134_CASES = [
    pytest.param(*case.values[:2], INIT_CASE_V134 if str(case.id).startswith("include InitContainers")
                 else case.values[2], id=str(case.id))
    for case in PRIORITY_CASES
]


@pytest.mark.parametrize(("pod", "node_images", "expected"), V134_CASES)
def test_image_locality_priority_v134(pod: dict, node_images: list[list[dict]], expected: list[int]) -> None:
    assert scores("1.34", pod, node_images) == expected


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", [0, 0], id="1.20"),
    pytest.param("1.29", [0, 0], id="1.29"),
    pytest.param("1.30", INIT_CASE_V134, id="1.30"),
    pytest.param("1.34", INIT_CASE_V134, id="1.34"),
])
def test_init_containers_switch(version: str, expected: list[int]) -> None:
    # node1: 300M on 1 of 2 nodes = 150M; 100 * (150M - 23M) / (1000M * 2 - 23M) = 6 (2 containers counted).
    pod = pod_with_images("gcr.io/30", init=("gcr.io/300",))
    assert scores(version, pod, [NODE_40_300_2000, NODE_20_30_40]) == expected


@pytest.mark.parametrize(("version", "expected"), [
    # 1.20: one container, maxThreshold 1000M: 100 * (900M - 23M) / 977M = 89.
    pytest.param("1.20", [89], id="1.20-one-container"),
    # 1.30: the init container (image absent) still counts: 100 * (900M - 23M) / (2000M - 23M) = 44.
    pytest.param("1.30", [44], id="1.30-two-containers"),
])
def test_init_containers_raise_the_maximum(version: str, expected: list[int]) -> None:
    pod = pod_with_images("gcr.io/900", init=("gcr.io/absent",))
    assert scores(version, pod, [[image(900, "gcr.io/900:latest")]]) == expected
