"""InterPodAffinity's ``ignorePreferredTermsOfExistingPods`` arg (Kubernetes 1.27 on, kubernetes#114393).

Upstream (``pkg/scheduler/framework/plugins/interpodaffinity/scoring.go``): when the arg is true
and the incoming pod has no preferred pod affinity or anti-affinity terms, PreScore returns before
looking at any existing pod — at 1.27 with an empty state (every node scores 0), from 1.28
(kubernetes#117794, ruleset's ``InterPodAffinity.prescore-skip``) with Skip. Existing pods'
required affinity terms (``hardPodAffinityWeight``) are not counted either. When the incoming pod
has preferred terms the arg changes nothing: existing pods' preferred terms still count.

Ported from ``scoring_test.go`` ``TestPreferredAffinity`` as stored for kubernetes/kubernetes
(the v1.30+ layout, where the ignore case expects Skip): "Ignore preferred terms of existing
pods" and its twin "Do not ignore preferred terms of existing pods", exact scores; at 1.27 the
ignore case is PR #114393's version of the test (all 0, success). Upstream calls PreScore,
Score and NormalizeScore directly; here the pod goes through a profile of InterPodAffinity alone
and a PreScore Skip is the plugin named in the score table's ``skipped`` (``SKIP`` below).
The other cases are ruleset's: the same input with and without the arg, and the arg's release.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ruleset.kversion import KubeVersion, Target
from ruleset.plugins.interpodaffinity import InterPodAffinity
from ruleset.profile.loader import check_profile
from tests.plugins.noderesources_kit import VersionHarness
from tests.plugins.test_inter_pod_affinity_v134 import (
    AWAY_S2_AZ,
    AZ1,
    CHINA,
    HARD_AFFINITY,
    INDIA,
    S1,
    S2,
    STAY_S1_REGION,
    STAY_S1_REGION_AWAY_S2_AZ,
    STAY_S2_REGION,
    incoming,
    nodes,
    placed,
)

NAME = "InterPodAffinity"
ARG = "ignorePreferredTermsOfExistingPods"
SKIP = None
Case = tuple[list[dict], list[dict], dict]


def run(node_list: list[dict], existing: list[dict], pod: dict, version: str, ignore: bool | None,
        *, raw: bool = False) -> list[int] | None:
    """InterPodAffinity's scores (normalized, or ``raw``) in node order; SKIP when its PreScore skipped."""
    args: dict[str, Any] = {"hardPodAffinityWeight": 1}
    if ignore is not None:
        args[ARG] = ignore
    h = VersionHarness([(NAME, args)], [*node_list, *existing], version)
    result = h.run(pod)
    assert result.scores is not None
    if NAME in result.scores.skipped:
        return SKIP
    got = h.score(pod, NAME, raw=raw)
    return [got[n["metadata"]["name"]] for n in node_list]


# The upstream fixture of both cases: node1 (China) holds an S1 pod preferring S1 in its region and
# avoiding S2 by az; node2 (India) an S2 pod preferring S2 in its region. The incoming S2 pod has no
# affinity: only node2's pod's preferred term matches it.
UPSTREAM: Case = (nodes(CHINA, INDIA), placed(("node1", S1, STAY_S1_REGION_AWAY_S2_AZ), ("node2", S2, STAY_S2_REGION)),
            incoming(S2))


@pytest.mark.parametrize(("version", "ignore", "expected"), [
    pytest.param("1.34", True, SKIP, id="Ignore preferred terms of existing pods"),
    pytest.param("1.34", False, [0, 100], id="Do not ignore preferred terms of existing pods"),
    pytest.param("1.27", True, [0, 0], id="Ignore preferred terms of existing pods (1.27: empty state)"),
    pytest.param("1.27", False, [0, 100], id="Do not ignore preferred terms of existing pods (1.27)"),
    pytest.param("1.28", True, SKIP, id="Ignore preferred terms of existing pods (1.28: Skip)"),
])
def test_upstream_cases(version: str, ignore: bool, expected: list[int] | None) -> None:
    assert run(*UPSTREAM, version, ignore) == expected


@pytest.mark.parametrize("version", ["1.27", "1.34"])
def test_unset_is_false(version: str) -> None:
    assert run(*UPSTREAM, version, None) == run(*UPSTREAM, version, False) == [0, 100]


# Existing pods' required affinity terms count hardPodAffinityWeight (upstream's "Affinity symmetry:
# required terms"); under the arg a pod without preferred terms is not scored, so they do not count.
HARD: Case = (nodes(CHINA, INDIA, AZ1), placed(("node1", S1, HARD_AFFINITY), ("node2", S2, HARD_AFFINITY)), incoming(S1))
# An incoming pod with a preferred affinity term: the existing pods' preferred terms still count
# (node2's S2 pod prefers S2 in India: +6 there; the incoming term matches node1's S1 pod: +5 in China).
WITH_PREFERRED: Case = (nodes(CHINA, INDIA), UPSTREAM[1], incoming(S2, STAY_S1_REGION))
# Only a preferred anti-affinity term (S2 by az) is enough to be scored as without the arg.
WITH_PREFERRED_ANTI: Case = (nodes(CHINA, INDIA), UPSTREAM[1], incoming(S2, AWAY_S2_AZ))


@pytest.mark.parametrize(("case", "version", "ignore", "raw", "expected"), [
    pytest.param(HARD, "1.34", False, False, [100, 100, 0], id="required terms of existing pods count"),
    pytest.param(HARD, "1.34", True, False, SKIP, id="ignored: not even required terms count (1.34)"),
    pytest.param(HARD, "1.27", True, False, [0, 0, 0], id="ignored: not even required terms count (1.27)"),
    pytest.param(WITH_PREFERRED, "1.34", False, True, [5, 6], id="preferred pod, without the arg: raw"),
    pytest.param(WITH_PREFERRED, "1.34", True, True, [5, 6], id="preferred pod: existing preferred terms count"),
    pytest.param(WITH_PREFERRED, "1.27", True, True, [5, 6], id="preferred pod at 1.27: the same"),
    pytest.param(WITH_PREFERRED_ANTI, "1.34", True, True, [0, 6], id="preferred anti-affinity only: scored"),
])
def test_which_pods_the_arg_skips(case: Case, version: str, ignore: bool, raw: bool,
                                  expected: list[int] | None) -> None:
    assert run(*case, version, ignore, raw=raw) == expected


# ------------------------------------------------------------------------------- the arg itself
def target(version: str) -> Target:
    return Target(KubeVersion.parse(version), {}, explicit=True)


@pytest.mark.parametrize(("version", "defaults", "not_in"), [
    pytest.param("1.20", {}, {ARG}, id="1.20"),
    pytest.param("1.26", {}, {ARG}, id="1.26"),
    pytest.param("1.27", {ARG: False}, set(), id="1.27"),
    pytest.param("1.34", {ARG: False}, set(), id="1.34"),
])
def test_defaults_and_args_not_in(version: str, defaults: dict, not_in: set) -> None:
    assert InterPodAffinity.defaults_for(target(version)) == defaults
    assert InterPodAffinity.args_not_in(target(version)) == not_in


def _problems(tmp_path: Path, version: str, value: str) -> list[tuple[str | None, str]]:
    path = tmp_path / "p.toml"
    path.write_text(f'name = "p"\nkubernetesVersion = "{version}"\n\n[plugins.PrioritySort]\n\n'
                    f'[plugins.InterPodAffinity]\nargs = {{ {ARG} = {value} }}\n\n[plugins.DefaultBinder]\n',
                    encoding="utf-8")
    _, problems = check_profile(path)
    return [(p.code, p.message) for p in problems if p.severity == "error"]


@pytest.mark.parametrize(("version", "value", "expected"), [
    pytest.param("1.20", "true", [("arg-not-in-release", f"{ARG} is not in Kubernetes 1.20: it came in 1.27")],
                 id="true@1.20"),
    pytest.param("1.25", "false", [("arg-not-in-release", f"{ARG} is not in Kubernetes 1.25: it came in 1.27")],
                 id="false@1.25 (written at all)"),
    pytest.param("1.26", "true", [("arg-not-in-release", f"{ARG} is not in Kubernetes 1.26: it came in 1.27")],
                 id="true@1.26"),
    pytest.param("1.27", "true", [], id="true@1.27"),
    pytest.param("1.34", "false", [], id="false@1.34"),
])
def test_release_of_the_arg(tmp_path: Path, version: str, value: str, expected: list) -> None:
    assert _problems(tmp_path, version, value) == expected


def test_the_arg_is_a_boolean(tmp_path: Path) -> None:
    assert _problems(tmp_path, "1.34", '"yes"') == [("invalid-type", "expected a boolean, got a string ('yes')")]


def test_direct_construction_at_1_20_is_refused() -> None:
    """A plugin built without a framework runs as 1.20, which has no such arg."""
    args = InterPodAffinity.parse_args({ARG: True})
    with pytest.raises(ValueError, match=f"^{ARG} is not in Kubernetes 1.20: it came in 1.27$"):
        InterPodAffinity(args)
