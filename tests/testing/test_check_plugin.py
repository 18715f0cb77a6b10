"""``check_plugin``: every built-in plugin passes it (one case per registered plugin, with args
where a plugin needs or has interesting ones), and each rule it checks fails, with the exact
message, on a plugin breaking that rule (``broken_plugins``)."""

from __future__ import annotations

import pytest

from ruleset.pluginmanager import load_registry
from ruleset.plugins import BUILTIN_PLUGINS
from ruleset.testing import check_plugin
from ruleset.testing.check import sample_nodes, sample_pods, sample_running_pods
from tests.testing import broken_plugins as broken

ZONE = "topology.kubernetes.io/zone"
#: Args that make a built-in plugin do more than its defaults do (RequestedToCapacityRatio needs a shape).
BUILTIN_ARGS = {
    "NodeLabel": {"presentLabels": ["tier"], "absentLabels": ["accelerator"],
                  "presentLabelsPreference": ["node.kubernetes.io/lifecycle"], "absentLabelsPreference": ["tier"]},
    "NodeResourcesFit": {"ignoredResources": ["nvidia.com/gpu"]},
    "NodeResourcesLeastAllocated": {"resources": [{"name": "cpu", "weight": 2}, {"name": "nvidia.com/gpu",
                                                                                 "weight": 1}]},
    "RequestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]},
    "NodeAffinity": {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}]}}},
    "PodTopologySpread": {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}]},
    "InterPodAffinity": {"hardPodAffinityWeight": 5},
    "Rules": {"rules": [{"name": "frontend", "pods": "app=web", "require": "tier=frontend"},
                        {"name": "big-nodes", "prefer": "node.kubernetes.io/instance-type in (m5.2xlarge)",
                         "weight": 2},
                        {"name": "not-spot", "prefer": "!node.kubernetes.io/lifecycle"}]},
}

_REGISTRY = load_registry(autoload=False)
BUILTINS = [pytest.param(cls, BUILTIN_ARGS.get(name), id=name) for name, cls in _REGISTRY.classes.items()
            if _REGISTRY.is_builtin(name)]


def test_every_builtin_plugin_is_checked():
    assert [p.values[0] for p in BUILTINS] == list(BUILTIN_PLUGINS)
    assert set(BUILTIN_ARGS) <= set(_REGISTRY.classes)


@pytest.mark.parametrize(("cls", "args"), BUILTINS)
def test_builtin_plugin_passes(cls, args):
    check_plugin(cls, args=args)


#: The built-ins kube-scheduler 1.35 still has, each checked as that release runs it (PreFilter
#: Skips from 1.27 and 1.28 leave some Filters unrun for some sample pods).
NEWEST = [p for p in BUILTINS if p.values[0].removed_in is None]


@pytest.mark.parametrize(("cls", "args"), NEWEST)
def test_builtin_plugin_passes_at_1_35(cls, args):
    check_plugin(cls, args=args, kubernetes_version="1.35")


def test_the_sample_cluster():
    assert [(n.name, n.labels[ZONE], n.unschedulable, len(n.taints)) for n in sample_nodes()] == [
        ("a-1", "eu-1a", False, 0), ("a-2", "eu-1a", False, 1), ("b-1", "eu-1b", False, 1),
        ("b-2", "eu-1b", False, 0), ("c-1", "eu-1c", False, 0), ("c-2", "eu-1c", True, 0)]
    assert [(p.key, p.node_name, p.priority) for p in sample_running_pods()] == [
        ("default/web-1", "a-1", 100), ("data/db-1", "a-1", 0), ("ml/train-1", "a-2", 1000),
        ("default/web-2", "b-1", 100), ("default/batch-1", "b-2", -10), ("default/cache-1", "c-1", 0)]
    assert [p.key for p in sample_pods()] == ["default/tiny", "default/api-7f9", "ml/trainer"]


@pytest.mark.parametrize("cls", [broken.Good, broken.ClonedWebAntiAffinity], ids=lambda c: c.name)
def test_a_conforming_third_party_plugin_passes(cls):
    check_plugin(cls)


def _per_pod(check: str, message: str) -> list[str]:
    return [f"{check}: pod {pod}: {message}" for pod in ("default/tiny", "default/api-7f9", "ml/trainer")]


CASES = [
    pytest.param(broken.NoDocstring, ["docstring: the class has no docstring of its own (its first paragraph "
                                      "describes it in `ruleset schema`)"], id="docstring"),
    pytest.param(broken.InvalidSchema, ["args: args_schema is not a valid JSON Schema (draft 2020-12): 'nope' is "
                                        "not valid under any of the given schemas"], id="invalid-schema"),
    pytest.param(broken.SchemaDisagrees, [
        "args: args_schema is not the schema derived from the Args dataclass (declare each arg once, with "
        "arg_field(key, default, schema=...))",
        "args: writing out the schema default of ['limit'] changes the args (a default must mean what omitting "
        "the arg means)",
        "args: the schema annotates defaults for ['limit'], the Args dataclass defaults ['limit', 'note']",
        "args: args without a description: ['note']"], id="schema-disagrees"),
    pytest.param(broken.UnknownHookArgument, [
        "hooks: Plugin 'UnknownHookArgument' for hook 'ruleset_score' hookimpl definition: "
        "ruleset_score(nodes, weather) Argument(s) {'weather'} are declared in the hookimpl but can not be found "
        "in the hookspec"], id="hook-argument"),
    pytest.param(broken.FilterTooLong, _per_pod("filter", "Filter returned codes of shape (7,) and dtype int8 for "
                                                          "6 nodes"), id="filter-length"),
    pytest.param(broken.FilterSkips, _per_pod("filter", "Filter returned codes [5]; a node passes (0), is "
                                                        "Unschedulable (2) or UnschedulableAndUnresolvable (3)"),
                 id="filter-code"),
    pytest.param(broken.ScoreOutOfRange, _per_pod("score", 'plugin "ScoreOutOfRange" returns an invalid score '
                                                           "101, it should in the range of [0, 100] after "
                                                           "normalizing"), id="score-range"),
    pytest.param(broken.ScoreNotIntegers, _per_pod("score", 'plugin "ScoreNotIntegers" failed with: Score '
                                                            "returned 0.5 for node 'a-1', not an integer score"),
                 id="score-integers"),
    pytest.param(broken.MutatesSnapshot, _per_pod("snapshot", "the snapshot changed during a cycle: pod_count"),
                 id="snapshot"),
    pytest.param(broken.EmptyNodeSetFails, _per_pod("filter", "Filter raised IndexError: list index out of range "
                                                              "on an empty node set"), id="empty-node-set"),
    pytest.param(broken.BatchDisagrees, _per_pod("per-node filter", "c-2: filter_node Unschedulable "
                                                                    "['cordoned'], Filter Success"),
                 id="per-node"),
    pytest.param(broken.WebAntiAffinity, _per_pod(
        "dry run", "node a-1 without default/web-1: the RemovePod extension changed the original cycle state, not "
                   "only its clone (Filter now gives Success, before Unschedulable ['web pod present']; a value a "
                   "PreFilter extension changes needs a clone() method)"), id="dry-run-clone"),
    pytest.param(broken.NoRemovePod, [
        line for pod in ("default/tiny", "default/api-7f9", "ml/trainer") for node, victim in (
            ("a-1", "default/web-1"), ("b-1", "default/web-2"))
        for line in [f"dry run: pod {pod}: node {node} without {victim}: Filter after the RemovePod extension "
                     "gives Unschedulable ['web pod present'], on a cluster without that pod Success"]],
        id="dry-run-remove-pod"),
    pytest.param(broken.AlwaysFirst, ['queue sort: default/tiny sorts before itself ("less" must be a strict '
                                      'order)'], id="queue-sort"),
]


@pytest.mark.parametrize(("cls", "failures"), CASES)
def test_a_broken_rule_is_reported(cls, failures):
    with pytest.raises(AssertionError) as info:
        check_plugin(cls)
    listed = "\n".join(f"  - {line}" for line in failures)
    assert str(info.value) == f"plugin {cls.name!r} fails {len(failures)} conformance check(s):\n{listed}"


def test_not_deterministic():
    with pytest.raises(AssertionError) as info:
        check_plugin(broken.NotDeterministic)
    lines = str(info.value).splitlines()
    assert lines[0] == "plugin 'NotDeterministic' fails 3 conformance check(s):"
    # The counter runs on through every call, so the values differ from run to run: the shape is fixed.
    assert [line.split(": [")[0] for line in lines[1:]] == [
        f"  - deterministic: pod {pod}: the same cycle run twice gave different raw scores"
        for pod in ("default/tiny", "default/api-7f9", "ml/trainer")]


@pytest.mark.parametrize(("args", "message"), [
    pytest.param({"presentLabel": ["x"]}, "args: the args given: args: Additional properties are not allowed "
                                          "('presentLabel' was unexpected)", id="schema"),
    pytest.param({"presentLabels": ["x"], "absentLabels": ["x"]},
                 "args: the args given: absentLabels.0: detecting at least one label (e.g., \"x\") that exist in both the "
                 "present([x]) and absent([x]) label list", id="validate-args"),
])
def test_args_given_are_checked(args, message):
    with pytest.raises(AssertionError) as info:
        check_plugin(_REGISTRY.classes["NodeLabel"], args=args)
    assert str(info.value).splitlines()[1:] == [f"  - {message}"]
