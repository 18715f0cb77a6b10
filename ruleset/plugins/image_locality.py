"""ImageLocality (Score): favour nodes that already hold the pod's container images (v1.20).

For each regular container (init containers are not counted) whose image, normalized to
``name:latest`` when it carries no tag, is on the node::

    scaled = int64(float64(size on this node) * (float64(nodes having it) / float64(all nodes)))
    sum    = Σ scaled
    maxT   = 1000 MiB * len(containers);  sum clamped to [23 MiB, maxT]
    score  = 100 * (sum - 23 MiB) / (maxT - 23 MiB)          (int64 division)

"All nodes" is every node of the snapshot, not just the feasible ones. A pod without
containers scores 0 (sum is raised to 23 MiB, so the numerator is 0).

The snapshot's image states never change during a run, so they are indexed once per
snapshot by image name: the nodes that have it and its size on each.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.plugin import Plugin
from ruleset.hookspecs import hookimpl
from ruleset.snapshot import NodeSet, Snapshot

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
MAX_NODE_SCORE = 100
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


_INDEXES: weakref.WeakKeyDictionary[Snapshot, _ImageIndex] = weakref.WeakKeyDictionary()


def image_index(snapshot: Snapshot) -> _ImageIndex:
    index = _INDEXES.get(snapshot)
    if index is not None and index.total_nodes == snapshot.num_nodes:
        return index
    nodes: dict[str, list[int]] = {}
    sizes: dict[str, list[int]] = {}
    num_nodes: dict[str, int] = {}
    for i in range(snapshot.num_nodes):
        for name, state in snapshot.image_states(i).items():
            nodes.setdefault(name, []).append(i)
            sizes.setdefault(name, []).append(state.size)
            num_nodes[name] = state.num_nodes
    images = {name: _ImageNodes(np.array(where, dtype=np.intp), np.array(sizes[name], dtype=np.int64),
                                num_nodes[name])
              for name, where in nodes.items()}
    index = _INDEXES[snapshot] = _ImageIndex(snapshot.num_nodes, images)
    return index


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


class ImageLocality(Plugin):
    name = "ImageLocality"

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        index = image_index(nodes.snapshot)
        total = np.zeros(index.total_nodes, dtype=np.int64)
        for container in pod.containers:
            image = index.images.get(normalized_image_name(container.image))
            if image is None:
                continue
            total[image.nodes] += scaled_image_score(image.sizes, image.num_nodes, index.total_nodes)
        return calculate_priority(total[nodes.indices], len(pod.containers))
