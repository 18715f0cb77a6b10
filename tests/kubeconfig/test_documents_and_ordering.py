"""Finding configurations in files, and the one plugin order from kube-scheduler's per-point orders."""

import pytest

from ruleset.errors import RulesetError
from ruleset.kubeconfig.documents import find_configs
from ruleset.kubeconfig.importer import file_name, import_config
from ruleset.kubeconfig.ordering import global_order
from ruleset.kubeconfig.versions import DEFAULTS_1_20


def test_lists_policy_configmaps_and_skipped_objects(tmp_path):
    path = tmp_path / "all.yaml"
    path.write_text("""
kind: List
items:
- kind: ConfigMap
  metadata: {name: policy, namespace: kube-system}
  data:
    policy.cfg: '{"kind": "Policy", "apiVersion": "v1", "priorities": []}'
- kind: Secret
  metadata: {name: s}
""")
    found = find_configs(path)
    assert [d.kind for d in found.documents] == ["Policy"]
    assert found.skipped == {"Secret": 1}


def test_no_configuration_and_unknown_versions_are_input_errors(tmp_path):
    path = tmp_path / "none.yaml"
    path.write_text("kind: Pod\nmetadata: {name: p}\n")
    with pytest.raises(
        RulesetError, match=r"no KubeSchedulerConfiguration or scheduler Policy found \(skipped: 1 Pod"
    ):
        find_configs(path)
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v2\nkind: KubeSchedulerConfiguration\n")
    with pytest.raises(RulesetError, match="unknown KubeSchedulerConfiguration apiVersion"):
        import_config(path)


def test_the_1_20_defaults_read_in_filter_order():
    points = {p: [n for n, _ in items] for p, items in DEFAULTS_1_20.items()}
    order, conflicts = global_order(points)
    assert order[:7] == [
        "PrioritySort",
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
    ]
    assert order[-6:] == [
        "DefaultPreemption",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
        "NodeResourcesLeastAllocated",
        "NodePreferAvoidPods",
        "DefaultBinder",
    ]
    assert set(conflicts) == {"preFilter", "preScore", "score"}  # orders that change no result


def test_contradicting_significant_orders_are_reported():
    order, conflicts = global_order({"filter": ["A", "B"], "permit": ["B", "A"], "score": ["C", "A"]})
    assert order == ["C", "A", "B"]
    assert conflicts == {"permit": ["B before A"]}


def test_file_names():
    taken = set()
    assert [file_name(n, taken) for n in ("default-scheduler", "my/sched", "default", "")] == [
        "default.toml",
        "my-sched.toml",
        "default-2.toml",
        "default-3.toml",
    ]
