"""ImageLocality (Score): favour nodes that already hold the pod's container images.

For each regular container (init containers are not counted in 1.20; from 1.30 they are,
:data:`INIT_CONTAINERS`) whose image, normalized to ``name:latest`` when it carries no tag,
is on the node::

    scaled = int64(float64(size on this node) * (float64(nodes having it) / float64(all nodes)))
    sum    = Σ scaled
    maxT   = 1000 MiB * len(containers counted);  sum clamped to [23 MiB, maxT]
    score  = 100 * (sum - 23 MiB) / (maxT - 23 MiB)          (int64 division)

"All nodes" is every node of the snapshot, not just the feasible ones. A pod without
containers scores 0 (sum is raised to 23 MiB, so the numerator is 0).

The nodes' images never change during a run, so they are indexed once per snapshot by
image name: the nodes that have it and its size on each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ruleset import MAX_NODE_SCORE, Handle, NodeSet, Plugin, Snapshot, hookimpl, switch
from ruleset.api.pod import Container, Pod

INIT_CONTAINERS = switch(
    "ImageLocality.init-containers", "1.30",
    "init containers' images count too (and in the number of containers the maximum scales with)",
    "pkg/scheduler/framework/plugins/imagelocality/image_locality.go")

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
DEFAULT_IMAGE_TAG = "latest"


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: append ``:latest`` when the last ':' is not after the last '/'."""
    if name.rfind(":") <= name.rfind("/"):
        name = f"{name}:{DEFAULT_IMAGE_TAG}"
    return name


@dataclass(frozen=True, slots=True)
class _ImageNodes:
    """One image name: the nodes that have it and the image's size on each."""

    nodes: np.ndarray
    sizes: np.ndarray
    #: ``ImageStateSummary.NumNodes``: how many nodes of the snapshot list the name.
    num_nodes: int


@dataclass(frozen=True, slots=True)
class _ImageIndex:
    total_nodes: int
    images: dict[str, _ImageNodes]


def _build_index(snapshot: Snapshot) -> _ImageIndex:
    # The snapshot's image states (cache.NewSnapshot) turned inside out, read from the nodes
    # directly rather than through the per-node summaries: on a node, a name listed twice
    # has the size of its last image; a name's spread is the number of nodes listing it.
    nodes: dict[str, list[int]] = {}
    sizes: dict[str, list[int]] = {}
    for i, node in enumerate(snapshot.nodes):
        on_node = {name: image.size_bytes for image in node.images for name in image.names}
        for name, size in on_node.items():
            nodes.setdefault(name, []).append(i)
            sizes.setdefault(name, []).append(size)
    images = {name: _ImageNodes(np.array(where, dtype=np.intp), np.array(sizes[name], dtype=np.int64),
                                len(where))
              for name, where in nodes.items()}
    return _ImageIndex(snapshot.num_nodes, images)


def image_index(snapshot: Snapshot) -> _ImageIndex:
    return snapshot.derive(__name__, _build_index)


def scaled_image_score(sizes: np.ndarray, num_nodes: int, total_num_nodes: int) -> np.ndarray:
    """``scaledImageScore``: ``int64(float64(size) * (float64(numNodes) / float64(totalNumNodes)))``.

    The float64 product is truncated, so 330 bytes on 7 of 10 nodes scale to 230, not 231.
    """
    spread = float(num_nodes) / float(total_num_nodes)
    return (np.asarray(sizes, dtype=np.int64).astype(np.float64) * spread).astype(np.int64)


def calculate_priority(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    """``calculatePriority``: clamp to [minThreshold, maxThreshold] and scale to [0, 100]."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    # Not np.clip: with no containers maxThreshold < minThreshold and Go's if/else-if picks the minimum.
    clamped = np.where(sum_scores < MIN_THRESHOLD, MIN_THRESHOLD,
                       np.where(sum_scores > max_threshold, max_threshold, sum_scores)).astype(np.int64)
    # Operands are non-negative, or (no containers) the quotient is exact: // is Go's / here.
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


@lru_cache(maxsize=64)
def _zero_sum_priority(num_containers: int) -> int:
    """:func:`calculate_priority` of a node holding none of the images (the same on every node)."""
    return int(calculate_priority(np.zeros(1, dtype=np.int64), num_containers)[0])


def _regular_containers(pod: Pod) -> tuple[Container, ...]:
    return pod.containers


def _all_containers(pod: Pod) -> tuple[Container, ...]:
    """Init containers first, then the regular ones, as ``sumImageScores`` reads them (1.30+)."""
    return (*pod.init_containers, *pod.containers)


class ImageLocality(Plugin):
    """Favours nodes that already hold the pod's container images, weighted by image size and
    spread (Score)."""

    name = "ImageLocality"

    def __init__(self, args: Any = None, handle: Handle | None = None):
        super().__init__(args, handle)
        # Read once: the hook itself carries no version check.
        self._containers: Callable[[Pod], tuple[Container, ...]] = (
            _all_containers if self.handle.target.has(INIT_CONTAINERS) else _regular_containers)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        index = image_index(nodes.snapshot)
        containers = self._containers(pod)
        images = [image for image in (index.images.get(normalized_image_name(c.image)) for c in containers)
                  if image is not None]
        if not images:  # no node holds any of the pod's images: every node sums 0
            return np.full(len(nodes), _zero_sum_priority(len(containers)), dtype=np.int64)
        total = np.zeros(index.total_nodes, dtype=np.int64)
        for image in images:
            total[image.nodes] += scaled_image_score(image.sizes, image.num_nodes, index.total_nodes)
        return calculate_priority(total[nodes.indices], len(containers))
