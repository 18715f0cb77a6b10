"""Ported from ``pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go``.

* TestImageLocalityPriority: 7 cases. The stored upstream table is newer than v1.20; its
  first 6 cases follow the v1.20 formula (maxThreshold = 1000 MiB x containers) and keep
  their expected scores. The 7th, ``include InitContainers: ...``, comes from the later
  change that counts init containers; v1.20 scores only regular containers, so the pod's
  only regular image (gcr.io/30) decides: node1 lacks it (0), node2 has 30 MiB on 1 of 2
  nodes, 15 MiB < 23 MiB (0). Expected {node1: 0, node2: 0} instead of upstream's {6, 0}.
* TestNormalizedImageName: all 4 cases.

Plus ruleset checks: spread counted over all snapshot nodes (not only the feasible ones),
each node's own image size, the float64 truncation of the scaled size, the thresholds, and
a pod without containers.
"""

import hashlib

import numpy as np
import pytest

from ruleset.plugins.image_locality import calculate_priority, normalized_image_name, scaled_image_score
from tests.factories import Harness, container, make_node, make_pod

MB = 1024 * 1024


def image(size_mb: int, *names: str) -> dict:
    return {"names": list(names), "sizeBytes": size_mb * MB}


def pod_with_images(*images: str, init: tuple[str, ...] = ()) -> dict:
    return make_pod("pod", containers=[container(image=img, name=f"c{i}") for i, img in enumerate(images)],
                    init_containers=[container(image=img, name=f"init{i}") for i, img in enumerate(init)])


NODE_40_300_2000 = [image(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
                    image(300, "gcr.io/300:latest", "gcr.io/300:v1"),
                    image(2000, "gcr.io/2000:latest")]
NODE_250_10 = [image(250, "gcr.io/250:latest"), image(10, "gcr.io/10:latest", "gcr.io/10:v1")]
NODE_600_40_900 = [image(600, "gcr.io/600:latest"), image(40, "gcr.io/40:latest"),
                   image(900, "gcr.io/900:latest")]
NODE_300_600_900 = [image(300, "gcr.io/300:latest"), image(600, "gcr.io/600:latest"),
                    image(900, "gcr.io/900:latest")]
NODE_4000_30 = [image(4000, "gcr.io/4000:latest"), image(30, "gcr.io/30:latest")]
NODE_20_30_40 = [image(20, "gcr.io/20:latest"), image(30, "gcr.io/30:latest"), image(40, "gcr.io/40:latest")]
NODE_NO_IMAGES: list[dict] = []

TEST_40_250 = ("gcr.io/40", "gcr.io/250")
TEST_40_300 = ("gcr.io/40", "gcr.io/300")
TEST_MIN_MAX = ("gcr.io/10", "gcr.io/4000")
TEST_300_600_900 = ("gcr.io/300", "gcr.io/600", "gcr.io/900")
TEST_30_40 = ("gcr.io/30", "gcr.io/40")

PRIORITY_CASES = [
    # node1: 40M*1/2 < 23M -> 0; node2: 100 * (250M*1/2 - 23M) / (1000M*2 - 23M) = 5
    pytest.param(pod_with_images(*TEST_40_250), [NODE_40_300_2000, NODE_250_10], [0, 5],
                 id="two images spread on two nodes, prefer the larger image one"),
    # node1: 100 * ((40M + 300M)/2 - 23M) / (1000M*2 - 23M) = 7
    pytest.param(pod_with_images(*TEST_40_300), [NODE_40_300_2000, NODE_250_10], [7, 0],
                 id="two images on one node, prefer this node"),
    # node1: 4000M*1/2 >= 1000M*2 -> 100; node2: 10M*1/2 < 23M -> 0
    pytest.param(pod_with_images(*TEST_MIN_MAX), [NODE_4000_30, NODE_250_10], [100, 0],
                 id="if exceed limit, use limit"),
    # node1: 100 * (4000M*1/3 - 23M) / (1000M*2 - 23M) = 66
    pytest.param(pod_with_images(*TEST_MIN_MAX), [NODE_4000_30, NODE_250_10, NODE_NO_IMAGES], [66, 0, 0],
                 id="if exceed limit, use limit (with node which has no images present)"),
    # node1: 100 * (600M*2/3 + 900M*2/3 - 23M) / (1000M*3 - 23M) = 32
    # node2: 100 * (300M*1/3 + 600M*2/3 + 900M*2/3 - 23M) / (1000M*3 - 23M) = 36
    pytest.param(pod_with_images(*TEST_300_600_900), [NODE_600_40_900, NODE_300_600_900, NODE_NO_IMAGES],
                 [32, 36, 0], id="pod with multiple large images, node2 is preferred"),
    # node1: 100 * (30M + 40M*1/2 - 23M) / (1000M*2 - 23M) = 1; node2: 100 * (30M*1/2 ...) -> 0
    pytest.param(pod_with_images(*TEST_30_40), [NODE_20_30_40, NODE_4000_30], [1, 0],
                 id="pod with multiple small images"),
    # v1.20 ignores the init container's gcr.io/300 (upstream, later: [6, 0]).
    pytest.param(pod_with_images("gcr.io/30", init=("gcr.io/300",)), [NODE_40_300_2000, NODE_20_30_40],
                 [0, 0],
                 id="include InitContainers: two images spread on two nodes, prefer the larger image one"),
]


@pytest.mark.parametrize(("pod", "node_images", "expected"), PRIORITY_CASES)
def test_image_locality_priority(pod: dict, node_images: list[list[dict]], expected: list[int]) -> None:
    nodes = [make_node(f"node{i + 1}", images=imgs) for i, imgs in enumerate(node_images)]
    h = Harness(["ImageLocality"], nodes)
    assert h.score(pod) == {f"node{i + 1}": score for i, score in enumerate(expected)}


def _fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(("name", "expected"), [
    pytest.param("root", "root:latest", id="add :latest postfix 1"),
    pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
    pytest.param("root:tag", "root:tag", id="keep it as is 1"),
    pytest.param("root@" + _fake_digest("root"), "root@" + _fake_digest("root"), id="keep it as is 2"),
])
def test_normalized_image_name(name: str, expected: str) -> None:
    assert normalized_image_name(name) == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_spread_counts_all_snapshot_nodes_not_only_feasible_ones() -> None:
    # NodeName leaves node1 as the only feasible node; totalNumNodes is still 3 and NumNodes 2:
    # 900M * 2/3 = 600M -> 100 * (600M - 23M) / (1000M - 23M) = 59 (89 if only feasible nodes counted).
    nodes = [make_node("node1", images=[image(900, "gcr.io/900:latest")]),
             make_node("node2", images=[image(900, "gcr.io/900:latest")]),
             make_node("node3")]
    h = Harness(["NodeName", "ImageLocality"], nodes)
    pod = make_pod("pod", containers=[container(image="gcr.io/900")], node_name="node1")
    assert h.score(pod, "ImageLocality") == {"node1": 59}


def test_size_is_the_nodes_own_size() -> None:
    # The same name with different sizes on two nodes (cache.NewSnapshot keeps each node's size):
    # node1 900M * 2/2 -> 89; node2 300M * 2/2 -> 100 * (300M - 23M) / 977M = 28.
    nodes = [make_node("node1", images=[image(900, "img:v1")]),
             make_node("node2", images=[image(300, "img:v1")])]
    h = Harness(["ImageLocality"], nodes)
    assert h.score(make_pod("pod", containers=[container(image="img:v1")])) == {"node1": 89, "node2": 28}


def test_untagged_node_image_name_is_not_matched_by_normalized_pod_image() -> None:
    # The pod's "img" becomes "img:latest"; a node listing only "img" does not match it.
    # node2: 900M * 1/2 = 450M -> 100 * (450M - 23M) / 977M = 43.
    nodes = [make_node("node1", images=[image(900, "img")]),
             make_node("node2", images=[image(900, "img:latest")])]
    h = Harness(["ImageLocality"], nodes)
    assert h.score(make_pod("pod", containers=[container(image="img")])) == {"node1": 0, "node2": 43}


@pytest.mark.parametrize(("size", "num_nodes", "total", "expected"), [
    (330, 7, 10, 230),  # float64: 330 * 0.7 = 230.99999999999997 -> 230 (exact arithmetic: 231)
    (2570, 7, 10, 1798),
    (300 * MB, 1, 3, 104857600),
    (900 * MB, 3, 3, 900 * MB),
])
def test_scaled_image_score_truncates_the_float64_product(size: int, num_nodes: int, total: int,
                                                          expected: int) -> None:
    assert scaled_image_score(np.array([size]), num_nodes, total).tolist() == [expected]


def test_calculate_priority_thresholds() -> None:
    sums = np.array([0, 23 * MB, 23 * MB + 1, 500 * MB, 1000 * MB, 5000 * MB])
    # 100 * (500M - 23M) / 977M = 48
    assert calculate_priority(sums, 1).tolist() == [0, 0, 0, 48, 100, 100]


def test_pod_without_containers_scores_zero() -> None:
    # No containers, so the sum is 0; maxThreshold = 0 < minThreshold and the sum is raised to
    # minThreshold: 100 * 0 / (0 - 23M) = 0, no division by zero.
    # (Such a pod cannot be decoded here, so the helper is checked directly.)
    assert calculate_priority(np.array([0]), 0).tolist() == [0]
