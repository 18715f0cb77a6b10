"""Ported from ``pkg/scheduler/framework/plugins/helper/spread_test.go`` (v1.20).

* TestGetPodServices: the 5 cases (3 Services in namespace "test" selecting ``app=test-<i>``;
  pods 0-2 find their Service, pods 3 and 4 none).

v1.20 has no table for ``DefaultSelector`` itself (later versions test its owner-reference
form, which v1.20 does not have). The ``default_selector`` checks below are ruleset's own:
the exact selector built from Services, RCs, ReplicaSets and StatefulSets, namespaces,
empty and nil selectors, pods without labels, and the v1.20 listers dropping every
ReplicaSet (StatefulSet) when one of them has an invalid selector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ruleset.plugins.helper.spread import default_selector, get_pod_services
from ruleset.selector import Requirement, Selector, from_set
from tests.factories import build_cluster, decode, make_node, make_object, make_pod

# ---------------------------------------------------------------------------------------------------
# TestGetPodServices
# ---------------------------------------------------------------------------------------------------

SERVICES = [make_object("Service", f"service-{i}", "test", spec={"selector": {"app": f"test-{i}"}})
            for i in range(3)]


@pytest.mark.parametrize(("index", "expected"), [
    pytest.param(0, ["service-0"], id="GetPodServices for pod-0"),
    pytest.param(1, ["service-1"], id="GetPodServices for pod-1"),
    pytest.param(2, ["service-2"], id="GetPodServices for pod-2"),
    pytest.param(3, [], id="GetPodServices for pod-3"),
    pytest.param(4, [], id="GetPodServices for pod-4"),
])
def test_get_pod_services(index: int, expected: list[str]) -> None:
    state = build_cluster(SERVICES)
    pod = decode(make_pod(f"test-pod-{index}", "test", {"app": f"test-{index}", "label": f"label-{index}"}))
    assert [s.meta.name for s in get_pod_services(pod, state.snapshot.workloads)] == expected


# ---------------------------------------------------------------------------------------------------
# default_selector (ruleset's checks)
# ---------------------------------------------------------------------------------------------------

POD_LABELS = {"app": "web", "tier": "front", "track": "stable"}


def service(name: str, selector: Mapping[str, str] | None, namespace: str = "default") -> dict:
    spec = {} if selector is None else {"selector": dict(selector)}
    return make_object("Service", name, namespace, spec=spec)


def rc(name: str, selector: Mapping[str, str], namespace: str = "default") -> dict:
    return make_object("ReplicationController", name, namespace, spec={"selector": dict(selector)})


def label_selector(match_labels: Mapping[str, str] | None = None,
                   expressions: Sequence[Mapping[str, Any]] = ()) -> dict:
    out: dict[str, Any] = {}
    if match_labels is not None:
        out["matchLabels"] = dict(match_labels)
    if expressions:
        out["matchExpressions"] = [dict(e) for e in expressions]
    return out


def rs(name: str, selector: dict | None, namespace: str = "default") -> dict:
    spec = {} if selector is None else {"selector": selector}
    return make_object("ReplicaSet", name, namespace, api_version="apps/v1", spec=spec)


def ss(name: str, selector: dict | None, namespace: str = "default") -> dict:
    spec = {} if selector is None else {"selector": selector}
    return make_object("StatefulSet", name, namespace, api_version="apps/v1", spec=spec)


def selector_for(objects: Sequence[dict], labels: Mapping[str, str] | None = POD_LABELS,
                 namespace: str = "default") -> Selector:
    state = build_cluster([make_node("n1"), *objects])
    pod = decode(make_pod("pod", namespace, labels), state)
    return default_selector(pod, state.snapshot)


def req(key: str, operator: str, *values: str) -> Requirement:
    return Requirement(key, operator, values)


def test_nothing_selects_the_pod_gives_an_empty_selector() -> None:
    selector = selector_for([])
    assert selector == Selector.EVERYTHING
    assert selector.empty()


def test_services_and_rcs_are_merged_into_one_label_set() -> None:
    selector = selector_for([service("s1", {"app": "web"}), service("s2", {"tier": "front"}),
                             rc("rc1", {"track": "stable", "app": "web"})])
    assert selector == from_set({"app": "web", "tier": "front", "track": "stable"})


def test_non_matching_and_other_namespace_objects_are_ignored() -> None:
    selector = selector_for([service("s1", {"app": "db"}), service("s2", {"tier": "front"}, "other"),
                             rc("rc1", {"app": "db"}), rc("rc2", {"track": "stable"}, "other"),
                             rs("rs1", label_selector({"app": "db"})),
                             ss("ss1", label_selector({"app": "web"}), "other"),
                             service("s3", {"app": "web"})])
    assert selector == from_set({"app": "web"})


def test_service_without_selector_is_skipped_and_empty_selector_adds_nothing() -> None:
    selector = selector_for([service("nil", None), service("empty", {}), service("s", {"tier": "front"})])
    assert selector == from_set({"tier": "front"})


def test_replica_set_and_stateful_set_requirements_are_anded() -> None:
    selector = selector_for([
        service("s1", {"app": "web"}),
        rs("rs1", label_selector({"tier": "front"},
                                 [{"key": "track", "operator": "In", "values": ["stable", "x"]}])),
        ss("ss1", label_selector(None, [{"key": "canary", "operator": "DoesNotExist"}])),
    ])
    assert selector == Selector(((req("app", "=", "web"), req("tier", "=", "front"),
                                  req("track", "in", "stable", "x"), req("canary", "!")),))


def test_replica_sets_alone_give_their_requirements() -> None:
    selector = selector_for([rs("rs1", label_selector({"app": "web"})),
                             rs("rs2", label_selector({"tier": "front"}))])
    assert selector == Selector(((req("app", "=", "web"), req("tier", "=", "front")),))


def test_empty_and_nil_replica_set_selectors_match_nothing() -> None:
    selector = selector_for([rs("empty", label_selector({})), rs("nil", None), ss("ss", label_selector({}))])
    assert selector == Selector.EVERYTHING


def test_an_invalid_replica_set_selector_drops_every_replica_set() -> None:
    """v1.20's ``GetPodReplicaSets`` fails on the first invalid selector; StatefulSets still count."""
    invalid = label_selector(None, [{"key": "app", "operator": "In", "values": []}])
    selector = selector_for([rs("good", label_selector({"app": "web"})), rs("bad", invalid),
                             ss("ss1", label_selector({"tier": "front"}))])
    assert selector == Selector(((req("tier", "=", "front"),),))


def test_an_invalid_stateful_set_selector_drops_every_stateful_set() -> None:
    invalid = label_selector(None, [{"key": "app", "operator": "Bogus"}])
    selector = selector_for([ss("bad", invalid), ss("good", label_selector({"app": "web"})),
                             rs("rs1", label_selector({"tier": "front"}))])
    assert selector == Selector(((req("tier", "=", "front"),),))


def test_invalid_selector_in_another_namespace_does_not_matter() -> None:
    invalid = label_selector(None, [{"key": "app", "operator": "In", "values": []}])
    selector = selector_for([rs("bad", invalid, "other"), rs("good", label_selector({"app": "web"}))])
    assert selector == Selector(((req("app", "=", "web"),),))


def test_pod_without_labels_only_matches_services_with_empty_selectors() -> None:
    """RC, ReplicaSet and StatefulSet listers refuse a pod without labels."""
    selector = selector_for([service("all", {}), rc("rc1", {"app": "web"}),
                             rs("rs1", label_selector(None, [{"key": "app", "operator": "DoesNotExist"}])),
                             ss("ss1", label_selector(None, [{"key": "x", "operator": "DoesNotExist"}]))],
                            labels=None)
    assert selector == Selector.EVERYTHING


def test_selector_in_pod_namespace() -> None:
    selector = selector_for([service("s1", {"app": "web"}, "prod"), service("s2", {"tier": "front"})],
                            namespace="prod")
    assert selector == from_set({"app": "web"})
