"""Ported from the PodTopologySpreadArgs part of
``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go`` (v1.20), plus the
v1beta1 defaulting of ``defaultingType`` and ruleset checks.

* TestValidatePodTopologySpreadArgs: all 10 cases, exact messages. Upstream returns one
  aggregate error; ruleset reports each field error as a problem, and
  :func:`aggregate` rebuilds upstream's text (``e`` alone, ``[e1, e2]`` for several) to
  compare with upstream's ``wantErr``.
* SetDefaults_PodTopologySpreadArgs (v1beta1 defaults.go, gate DefaultPodTopologySpread on):
  empty ``defaultingType`` becomes List with constraints, System without; an explicit type
  is kept (and "System" with constraints is then rejected).
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset.framework.plugin import check_plugin_args
from ruleset.framework.runtime import FrameworkError
from ruleset.plugins.podtopologyspread import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    DefaultConstraint,
    PodTopologySpread,
)
from tests.factories import Harness


def constraint(max_skew: int, key: str, action: str, **extra: Any) -> dict:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action, **extra}


def aggregate(problems: list[tuple[tuple, str]]) -> str:
    """``field.ErrorList.ToAggregate().Error()`` of the problems' messages ("" for none)."""
    messages = [message for _, message in problems]
    if not messages:
        return ""
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


VALIDATION_CASES = [
    pytest.param(
        {"defaultConstraints": [constraint(1, "node", "DoNotSchedule"),
                                constraint(2, "zone", "ScheduleAnyway")],
         "defaultingType": "List"},
        "", id="valid config"),
    pytest.param(
        {"defaultConstraints": [constraint(-1, "node", "DoNotSchedule")], "defaultingType": "List"},
        "defaultConstraints[0].maxSkew: Invalid value: -1: must be greater than zero",
        id="maxSkew less than zero"),
    pytest.param(
        {"defaultConstraints": [constraint(1, "", "DoNotSchedule")], "defaultingType": "List"},
        "defaultConstraints[0].topologyKey: Required value: can not be empty",
        id="empty topology key"),
    pytest.param(
        {"defaultConstraints": [constraint(1, "node", "")], "defaultingType": "List"},
        "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty",
        id="whenUnsatisfiable is empty"),
    pytest.param(
        {"defaultConstraints": [constraint(1, "node", "unknown action")], "defaultingType": "List"},
        'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": supported values: '
        '"DoNotSchedule", "ScheduleAnyway"',
        id="whenUnsatisfiable contains unsupported action"),
    pytest.param(
        {"defaultConstraints": [constraint(1, "node", "DoNotSchedule"),
                                constraint(2, "node", "DoNotSchedule")],
         "defaultingType": "List"},
        'defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"',
        id="duplicated constraints"),
    pytest.param(
        {"defaultConstraints": [constraint(1, "key", "DoNotSchedule",
                                           labelSelector={"matchLabels": {"a": "b"}})],
         "defaultingType": "List"},
        "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, "
        "as they deduced for each pod",
        id="label selector present"),
    pytest.param(
        {"defaultingType": "List"}, "", id="list default constraints, no constraints"),
    pytest.param(
        {"defaultingType": "System"}, "", id="system default constraints"),
    pytest.param(
        {"defaultConstraints": [constraint(1, "key", "DoNotSchedule")], "defaultingType": "System"},
        'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
        id="system default constraints, but has constraints"),
]


@pytest.mark.parametrize(("args", "want_err"), VALIDATION_CASES)
def test_validate_pod_topology_spread_args(args: dict, want_err: str) -> None:
    _, problems = check_plugin_args(PodTopologySpread, args)
    assert aggregate(problems) == want_err


# ---------------------------------------------------------------------------------------------------
# Defaulting (SetDefaults_PodTopologySpreadArgs, v1beta1, gate on)
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "defaulting_type"), [
    pytest.param({}, "System", id="nothing given: System"),
    pytest.param({"defaultConstraints": [constraint(1, "rack", "ScheduleAnyway")]}, "List",
                 id="constraints given: List"),
    pytest.param({"defaultingType": "List"}, "List", id="explicit List without constraints stays List"),
])
def test_defaulting_type(args: dict, defaulting_type: str) -> None:
    parsed, problems = check_plugin_args(PodTopologySpread, args)
    assert problems == []
    assert parsed.defaulting_type == defaulting_type
    assert PodTopologySpread.args_to_dict(parsed)["defaultingType"] == defaulting_type


def test_system_defaulting_uses_the_v1_20_system_constraints() -> None:
    plugin = PodTopologySpread(check_plugin_args(PodTopologySpread, {})[0])
    assert plugin.default_constraints == SYSTEM_DEFAULT_CONSTRAINTS == (
        DefaultConstraint(3, "kubernetes.io/hostname", "ScheduleAnyway"),
        DefaultConstraint(5, "topology.kubernetes.io/zone", "ScheduleAnyway"),
    )
    listed = PodTopologySpread(check_plugin_args(PodTopologySpread, {"defaultingType": "List"})[0])
    assert listed.default_constraints == ()


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_unknown_defaulting_type() -> None:
    assert aggregate(check_plugin_args(PodTopologySpread, {"defaultingType": "Sometimes"})[1]) == (
        'defaultingType: Invalid value: "Sometimes": must be one of {"System", "List"}')


def test_every_error_is_reported_in_upstreams_order() -> None:
    args = {"defaultConstraints": [constraint(0, "a/b/c", "Never", labelSelector={}),
                                   constraint(0, "a/b/c", "Never")],
            "defaultingType": "System"}
    name_error = ("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
                  "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                  "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
                  "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
    action_error = 'Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"'
    selector_error = "Forbidden: constraint must not define a selector, as they deduced for each pod"
    problems = check_plugin_args(PodTopologySpread, args)[1]
    assert [path for path, _ in problems] == [
        ("defaultingType",),
        ("defaultConstraints", 0, "maxSkew"), ("defaultConstraints", 0, "topologyKey"),
        ("defaultConstraints", 0, "whenUnsatisfiable"), ("defaultConstraints", 0, "labelSelector"),
        ("defaultConstraints", 1, "maxSkew"), ("defaultConstraints", 1, "topologyKey"),
        ("defaultConstraints", 1, "whenUnsatisfiable"), ("defaultConstraints", 1),
    ]
    assert [message for _, message in problems] == [
        'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
        "defaultConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        f'defaultConstraints[0].topologyKey: Invalid value: "a/b/c": {name_error}',
        f"defaultConstraints[0].whenUnsatisfiable: {action_error}",
        f"defaultConstraints[0].labelSelector: {selector_error}",
        "defaultConstraints[1].maxSkew: Invalid value: 0: must be greater than zero",
        f'defaultConstraints[1].topologyKey: Invalid value: "a/b/c": {name_error}',
        f"defaultConstraints[1].whenUnsatisfiable: {action_error}",
        'defaultConstraints[1]: Duplicate value: "{a/b/c, Never}"',
    ]


def test_omitted_fields_are_gos_zero_values() -> None:
    problems = check_plugin_args(PodTopologySpread, {"defaultConstraints": [{}]})[1]
    assert aggregate(problems) == (
        "[defaultConstraints[0].maxSkew: Invalid value: 0: must be greater than zero, "
        "defaultConstraints[0].topologyKey: Required value: can not be empty, "
        "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty]")


def test_invalid_args_fail_the_profile() -> None:
    with pytest.raises(FrameworkError) as info:
        Harness([("PodTopologySpread", {"defaultConstraints": [constraint(1, "node", "DoNotSchedule"),
                                                               constraint(1, "node", "DoNotSchedule")]})], [])
    [problem] = info.value.problems
    assert problem.path == "plugins.PodTopologySpread.args.defaultConstraints[1]"
    assert problem.message == 'defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"'


def test_args_round_trip() -> None:
    args = {"defaultConstraints": [constraint(2, "rack", "DoNotSchedule")], "defaultingType": "List"}
    parsed, problems = check_plugin_args(PodTopologySpread, args)
    assert problems == []
    assert PodTopologySpread.args_to_dict(parsed) == args
