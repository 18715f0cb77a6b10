"""SchedulingGates (PreEnqueue).

Ported from ``pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates_test.go``
(v1.34): ``TestPreEnqueue``, both cases. Left out: ``TestEventsToRegister`` /
``isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated`` (a pod is never updated during
a ruleset run, so nothing lifts a gate). Added: the PodSchedulingReadiness gate, off by
default in 1.26 (the plugin lets every pod through, as 1.26's own test table has it), and the
hook as the framework's PreEnqueue table runs it.
"""

from __future__ import annotations

import pytest

from ruleset import Code, Status
from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.plugins.scheduling_gates import SchedulingGates, gates_message
from tests.factories import decode, make_pod


def framework(version: str, **gates: bool) -> Framework:
    profile = Profile(name="test", plugins=[PluginConfig(name="SchedulingGates")], kubernetes_version=version,
                      feature_gates=dict(gates))
    return Framework(profile, load_registry(), Handle())


def gated(*names: str) -> dict:
    raw = make_pod("p")
    if names:
        raw["spec"]["schedulingGates"] = [{"name": n} for n in names]
    return raw


@pytest.mark.parametrize(("raw", "expected"), [
    pytest.param(gated(), None, id="pod does not carry scheduling gates"),
    pytest.param(gated("foo", "bar"),
                 Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for scheduling gates: [foo bar]",)),
                 id="pod carries scheduling gates"),
])
def test_pre_enqueue_v134(raw: dict, expected: Status | None) -> None:
    plugin = framework("1.34").plugins["SchedulingGates"]
    assert isinstance(plugin, SchedulingGates)
    assert plugin.ruleset_pre_enqueue(decode(raw)) == expected


@pytest.mark.parametrize(("version", "gates", "expected"), [
    pytest.param("1.26", {}, None, id="1.26-PodSchedulingReadiness-alpha-off"),
    pytest.param("1.26", {"PodSchedulingReadiness": True}, "waiting for scheduling gates: [g]", id="1.26-gate-on"),
    pytest.param("1.27", {}, "waiting for scheduling gates: [g]", id="1.27-beta-on"),
    pytest.param("1.30", {}, "waiting for scheduling gates: [g]", id="1.30-GA"),
    pytest.param("1.34", {}, "waiting for scheduling gates: [g]", id="1.34-gate-removed-feature-on"),
])
def test_the_gate_decides(version: str, gates: dict[str, bool], expected: str | None) -> None:
    plugin = framework(version, **gates).plugins["SchedulingGates"]
    assert isinstance(plugin, SchedulingGates)
    status = plugin.ruleset_pre_enqueue(decode(gated("g")))
    assert (status.message() if status else None) == expected


def test_the_framework_runs_it_at_pre_enqueue() -> None:
    fw = framework("1.34")
    assert fw.points["SchedulingGates"] == ["preEnqueue"]
    [step] = fw.tables["ruleset_pre_enqueue"]
    assert step(pod=decode(gated("x"))) == Status.unresolvable("waiting for scheduling gates: [x]")


def test_a_1_20_handle_lets_every_pod_through() -> None:
    # Built outside a framework, a plugin's handle targets 1.20, which has no scheduling gates.
    assert SchedulingGates().ruleset_pre_enqueue(decode(gated("g"))) is None


@pytest.mark.parametrize(("gates", "expected"), [
    pytest.param(("a",), "waiting for scheduling gates: [a]", id="one"),
    pytest.param(("a", "b", "c"), "waiting for scheduling gates: [a b c]", id="three"),
    pytest.param(("",), "waiting for scheduling gates: []", id="empty-name"),
])
def test_gates_message_is_gos_percent_v(gates: tuple[str, ...], expected: str) -> None:
    assert gates_message(gates) == expected


def test_class_attributes() -> None:
    assert (SchedulingGates.name, SchedulingGates.introduced_in, SchedulingGates.removed_in) == (
        "SchedulingGates", "1.26", None)
