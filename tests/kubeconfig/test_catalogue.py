"""The upstream extension points per release (:func:`ruleset.kubeconfig.catalogue.upstream_points`),
where a plugin gained a point between the catalogue's two tables (v1.20 and v1.28).

Not an upstream port: the releases come from the PRs named in ``POINTS_SINCE``
(kubernetes#99213: NodeAffinity's PreFilter, v1.21; kubernetes#115398: the volume-limit
plugins' PreFilter, v1.28) and from the plugins' sources at each minor release (the first in
which the plugin type has the method: NodeAffinity's PreScore 1.21, NodeResourcesFit's and
BalancedAllocation's PreScore 1.27, VolumeZone's PreFilter 1.27, VolumeBinding's PreScore 1.30).
"""

from __future__ import annotations

import pytest

from ruleset.kubeconfig.catalogue import upstream_points


@pytest.mark.parametrize(("name", "release", "expected"), [
    pytest.param("NodeAffinity", "1.20", {"filter", "score"}, id="NodeAffinity 1.20"),
    pytest.param("NodeAffinity", "1.21", {"preFilter", "filter", "preScore", "score"},
                 id="NodeAffinity 1.21 PreFilter and PreScore"),
    pytest.param("NodeResourcesFit", "1.26", {"preFilter", "filter", "score"}, id="NodeResourcesFit 1.26"),
    pytest.param("NodeResourcesFit", "1.27", {"preFilter", "filter", "preScore", "score"},
                 id="NodeResourcesFit 1.27 PreScore"),
    pytest.param("NodeResourcesBalancedAllocation", "1.26", {"score"}, id="BalancedAllocation 1.26"),
    pytest.param("NodeResourcesBalancedAllocation", "1.27", {"preScore", "score"}, id="BalancedAllocation 1.27"),
    pytest.param("VolumeBinding", "1.29", {"preFilter", "filter", "reserve", "preBind", "score"},
                 id="VolumeBinding 1.29"),
    pytest.param("VolumeBinding", "1.30", {"preFilter", "filter", "reserve", "preBind", "preScore", "score"},
                 id="VolumeBinding 1.30 PreScore"),
    pytest.param("VolumeZone", "1.26", {"filter"}, id="VolumeZone 1.26"),
    pytest.param("VolumeZone", "1.27", {"preFilter", "filter"}, id="VolumeZone 1.27 PreFilter"),
    pytest.param("NodeAffinity", "1.28", {"preFilter", "filter", "preScore", "score"}, id="NodeAffinity 1.28"),
    pytest.param("NodeVolumeLimits", "1.22", {"filter"}, id="NodeVolumeLimits 1.22"),
    pytest.param("NodeVolumeLimits", "1.27", {"filter"}, id="NodeVolumeLimits 1.27"),
    pytest.param("NodeVolumeLimits", "1.28", {"preFilter", "filter"}, id="NodeVolumeLimits 1.28 PreFilter"),
    pytest.param("NodeVolumeLimits", "1.28.3", {"preFilter", "filter"}, id="a patch release"),
    pytest.param("EBSLimits", "1.27", {"filter"}, id="EBSLimits 1.27"),
    pytest.param("EBSLimits", "1.31", {"preFilter", "filter"}, id="EBSLimits 1.31 PreFilter"),
    pytest.param("NodeResourcesFit", "1.21", {"preFilter", "filter"}, id="unchanged, v1.20 table"),
    pytest.param("NotInTree", "1.28", None, id="not in-tree"),
])
def test_upstream_points(name: str, release: str, expected: set[str] | None) -> None:
    assert upstream_points(name, release) == (None if expected is None else frozenset(expected))
