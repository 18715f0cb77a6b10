"""``ruleset.kversion``: releases, feature-gate defaults per release, and how a target decides
which switches apply (gates, overrides, a switch a later release undid)."""

from __future__ import annotations

import pytest

from ruleset.kversion import GATES, KubeVersion, Switch, Target, gate_default, gates_known_at, supported


@pytest.mark.parametrize("text, expected", [
    pytest.param("1.34", KubeVersion(1, 34), id="plain"),
    pytest.param("v1.20.15", KubeVersion(1, 20), id="v-and-patch"),
    pytest.param(" 1.9 ", KubeVersion(1, 9), id="spaces"),
])
def test_parse(text, expected):
    assert KubeVersion.parse(text) == expected


@pytest.mark.parametrize("text, message", [
    pytest.param("1", "'1' is not a Kubernetes version: write \"MAJOR.MINOR\", e.g. \"1.34\"", id="no-minor"),
    pytest.param("latest", "'latest' is not a Kubernetes version: write \"MAJOR.MINOR\", e.g. \"1.34\"",
                 id="word"),
    pytest.param("1.19", "Kubernetes 1.19 is not supported: ruleset models 1.20 to 1.35", id="too-old"),
    pytest.param("1.36", "Kubernetes 1.36 is not supported: ruleset models 1.20 to 1.35", id="too-new"),
    pytest.param("2.0", "Kubernetes 2.0 is not supported: ruleset models 1.20 to 1.35", id="major"),
])
def test_unsupported_versions_say_why(text, message):
    with pytest.raises(ValueError) as info:
        supported(text)
    assert str(info.value) == message


@pytest.mark.parametrize("gate, minor, expected", [
    pytest.param("SidecarContainers", 27, False, id="sidecars-unknown-before-alpha"),
    pytest.param("SidecarContainers", 28, False, id="sidecars-alpha-off"),
    pytest.param("SidecarContainers", 29, True, id="sidecars-beta-on"),
    pytest.param("PodSchedulingReadiness", 26, False, id="gates-alpha"),
    pytest.param("PodSchedulingReadiness", 27, True, id="gates-beta"),
    pytest.param("PodSchedulingReadiness", 34, True, id="gates-ga-on"),
    pytest.param("MinDomainsInPodTopologySpread", 34, True, id="removed-after-ga-stays-on"),
    pytest.param("BalanceAttachedNodeVolumes", 20, False, id="alpha-off"),
    pytest.param("BalanceAttachedNodeVolumes", 23, False, id="removed-while-alpha-is-off"),
    pytest.param("DefaultPodTopologySpread", 20, True, id="beta-on-at-1.20"),
    pytest.param("NoSuchGate", 34, False, id="unknown"),
])
def test_gate_defaults(gate, minor, expected):
    assert gate_default(gate, KubeVersion(1, minor)) is expected


def test_a_removed_gate_cannot_be_set_any_more():
    # kube_features.go: MinDomainsInPodTopologySpread is in v1.31 (GA), gone from v1.32.
    assert "MinDomainsInPodTopologySpread" in gates_known_at(KubeVersion(1, 31))
    assert "MinDomainsInPodTopologySpread" not in gates_known_at(KubeVersion(1, 32))
    # PodSchedulingReadiness is GA (locked) from 1.30 and still listed at 1.35.
    assert gates_known_at(KubeVersion(1, 35))["PodSchedulingReadiness"] == (True, "GA")
    assert gates_known_at(KubeVersion(1, 34))["PodLevelResources"] == (True, "beta")
    assert gates_known_at(KubeVersion(1, 34))["InPlacePodVerticalScaling"] == (True, "beta")
    assert gates_known_at(KubeVersion(1, 35))["InPlacePodVerticalScaling"] == (True, "GA")


STD = Switch("x.since-1.22", KubeVersion(1, 22), "", "")
GATED = Switch("x.gated", KubeVersion(1, 28), "", "", gate="SidecarContainers")
UNDONE = Switch("x.undone", KubeVersion(1, 22), "", "", until=KubeVersion(1, 25))


@pytest.mark.parametrize("target, switch, expected", [
    pytest.param(Target(), STD, False, id="default-is-1.20"),
    pytest.param(Target(KubeVersion(1, 21)), STD, False, id="before"),
    pytest.param(Target(KubeVersion(1, 22)), STD, True, id="at"),
    pytest.param(Target(KubeVersion(1, 28)), GATED, False, id="gate-off-by-default"),
    pytest.param(Target(KubeVersion(1, 28), {"SidecarContainers": True}), GATED, True, id="gate-set-on"),
    pytest.param(Target(KubeVersion(1, 34), {"SidecarContainers": False}), GATED, False, id="gate-set-off"),
    pytest.param(Target(KubeVersion(1, 24)), UNDONE, True, id="before-undone"),
    pytest.param(Target(KubeVersion(1, 25)), UNDONE, False, id="undone"),
])
def test_target_has(target, switch, expected):
    assert target.has(switch) is expected


def test_every_gate_names_itself_and_has_ordered_stages():
    for name, gate in GATES.items():
        assert gate.name == name
        assert [s[0] for s in gate.stages] == sorted(s[0] for s in gate.stages)
