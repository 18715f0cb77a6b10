"""PodDisruptionBudgets for preemption: ``filterPodsWithPDBViolation``, ``disruptionsAllowed``
with and without a status, evictions of a run, and the decoding rules (with upstream's
validation messages)."""

from __future__ import annotations

import pytest

from ruleset.errors import RulesetError
from ruleset.snapshot.pdb import (
    budgets,
    covering,
    disruptions_allowed,
    filter_pods_with_pdb_violation,
    record_eviction,
)
from tests.factories import build_cluster, make_node, make_object, make_pod


def pdb(
    name="pdb",
    namespace="default",
    *,
    selector=None,
    match=None,
    spec=None,
    status=None,
    api="policy/v1beta1",
):
    body = dict(spec or {})
    if match is not None:
        body["selector"] = {"matchLabels": dict(match)}
    if selector is not None:
        body["selector"] = selector
    return make_object("PodDisruptionBudget", name, namespace, api_version=api, spec=body, status=status)


def owned(kind: str, name: str) -> list[dict]:
    return [
        {"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": f"{kind}-{name}", "controller": True}
    ]


def cluster(*objects):
    return build_cluster([make_node("n1"), make_node("n2"), *objects])


def names(pods):
    return [p.name for p in pods]


def placed(state):
    return {p.name: p for p in state.snapshot.pod_table.pods}


# ----------------------------------------------------------- filterPodsWithPDBViolation
def split(state, order, allowed=None):
    pods = placed(state)
    pdbs = state.snapshot.workloads.pod_disruption_budgets
    allowed = budgets(state.snapshot) if allowed is None else allowed
    violating, non_violating = filter_pods_with_pdb_violation([pods[n] for n in order], pdbs, allowed)
    return names(violating), names(non_violating)


def test_budget_is_spent_in_the_order_the_pods_come():
    state = cluster(
        pdb(match={"app": "a"}, status={"disruptionsAllowed": 1}),
        *(make_pod(f"a{i}", labels={"app": "a"}, node_name="n1") for i in range(3)),
    )
    assert split(state, ["a0", "a1", "a2"]) == (["a1", "a2"], ["a0"])
    assert split(state, ["a2", "a0", "a1"]) == (["a0", "a1"], ["a2"])


def test_pods_in_disrupted_pods_spend_nothing():
    state = cluster(
        pdb(
            match={"app": "a"},
            status={"disruptionsAllowed": 1, "disruptedPods": {"a0": "2026-01-01T00:00:00Z"}},
        ),
        *(make_pod(f"a{i}", labels={"app": "a"}, node_name="n1") for i in range(3)),
    )
    assert split(state, ["a0", "a1", "a2"]) == (["a2"], ["a0", "a1"])


def test_a_pod_covered_by_two_budgets_violates_if_either_is_spent():
    state = cluster(
        pdb("by-app", match={"app": "a"}, status={"disruptionsAllowed": 5}),
        pdb("by-tier", match={"tier": "db"}, status={"disruptionsAllowed": 0}),
        make_pod("both", labels={"app": "a", "tier": "db"}, node_name="n1"),
        make_pod("app-only", labels={"app": "a"}, node_name="n1"),
    )
    assert split(state, ["both", "app-only"]) == (["both"], ["app-only"])
    # "both" spent one of by-app's five even though it violated by-tier.
    pods = placed(state)
    assert covering(pods["both"], state.snapshot.workloads.pod_disruption_budgets) == (0, 1)


@pytest.mark.parametrize(
    ("budget", "pod"),
    [
        pytest.param(
            pdb(match={"app": "a"}, namespace="other", status={"disruptionsAllowed": 0}),
            make_pod("p", labels={"app": "a"}, node_name="n1"),
            id="other namespace",
        ),
        pytest.param(
            pdb(status={"disruptionsAllowed": 0}),
            make_pod("p", labels={"app": "a"}, node_name="n1"),
            id="nil selector matches nothing",
        ),
        pytest.param(
            pdb(selector={}, status={"disruptionsAllowed": 0}),
            make_pod("p", labels={"app": "a"}, node_name="n1"),
            id="empty selector is skipped",
        ),
        pytest.param(
            pdb(
                selector={"matchExpressions": [{"key": "app", "operator": "In", "values": []}]},
                status={"disruptionsAllowed": 0},
            ),
            make_pod("p", labels={"app": "a"}, node_name="n1"),
            id="selector that does not convert",
        ),
        pytest.param(
            pdb(
                selector={"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]},
                status={"disruptionsAllowed": 0},
            ),
            make_pod("p", node_name="n1"),
            id="a pod without labels matches no PDB",
        ),
        pytest.param(
            pdb(match={"app": "b"}, status={"disruptionsAllowed": 0}),
            make_pod("p", labels={"app": "a"}, node_name="n1"),
            id="selector does not match",
        ),
    ],
)
def test_pdbs_that_do_not_cover_the_pod(budget, pod):
    state = cluster(budget, pod)
    assert split(state, ["p"]) == ([], ["p"])


def test_selector_expressions_count():
    state = cluster(
        pdb(
            selector={"matchExpressions": [{"key": "app", "operator": "In", "values": ["a", "b"]}]},
            status={"disruptionsAllowed": 0},
        ),
        make_pod("p", labels={"app": "b"}, node_name="n1"),
    )
    assert split(state, ["p"]) == (["p"], [])


# ------------------------------------------------------------- disruptionsAllowed
def budget_of(*objects):
    state = cluster(*objects)
    [only] = state.snapshot.workloads.pod_disruption_budgets
    return disruptions_allowed(only, state.snapshot)


def app_pods(count, *, owner=None, node="n1", app="a", terminating=0, pending=0, prefix=None):
    refs = owned(*owner) if owner else ()
    out = [
        make_pod(
            f"{prefix or app}{i}",
            labels={"app": app},
            node_name=node,
            owner_references=refs,
            deletion_timestamp="2026-01-01T00:00:00Z" if i < terminating else None,
        )
        for i in range(count)
    ]
    out += [make_pod(f"{app}-pending{i}", labels={"app": app}, owner_references=refs) for i in range(pending)]
    return out


def rs(name, replicas):
    spec = {"selector": {"matchLabels": {"app": "a"}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return make_object("ReplicaSet", name, api_version="apps/v1", spec=spec)


@pytest.mark.parametrize(
    ("spec", "pods", "extra", "expected"),
    [
        pytest.param({"minAvailable": 2}, app_pods(5), [], 3, id="minAvailable int"),
        pytest.param({"minAvailable": 7}, app_pods(5), [], 0, id="minAvailable above healthy"),
        pytest.param({"minAvailable": 0}, app_pods(5), [], 5, id="minAvailable 0"),
        pytest.param({"minAvailable": 0}, [], [], 0, id="no pods: nothing expected"),
        pytest.param({}, app_pods(5), [], 4, id="neither set: minAvailable 1 (policy/v1beta1 default)"),
        pytest.param(
            {"minAvailable": 2}, app_pods(5, terminating=2), [], 1, id="terminating pods are not healthy"
        ),
        pytest.param({"minAvailable": 2}, app_pods(3, pending=4), [], 1, id="pending pods are not healthy"),
        pytest.param(
            {"minAvailable": "50%"},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 6)],
            2,
            id="minAvailable 50% of 6 replicas wants 3",
        ),
        pytest.param(
            {"minAvailable": "50%"},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 5)],
            2,
            id="minAvailable 50% of 5 rounds up to 3",
        ),
        pytest.param(
            {"minAvailable": "100%"},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 5)],
            0,
            id="minAvailable 100%",
        ),
        pytest.param(
            {"maxUnavailable": 1},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 5)],
            1,
            id="maxUnavailable int",
        ),
        pytest.param(
            {"maxUnavailable": 2},
            app_pods(4, owner=("ReplicaSet", "rs")),
            [rs("rs", 5)],
            1,
            id="maxUnavailable counts missing replicas",
        ),
        pytest.param(
            {"maxUnavailable": "30%"},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 5)],
            2,
            id="maxUnavailable 30% of 5 rounds up to 2",
        ),
        pytest.param(
            {"maxUnavailable": 9},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 5)],
            5,
            id="maxUnavailable above replicas wants 0",
        ),
        pytest.param(
            {"maxUnavailable": "20%"},
            [
                *app_pods(3, owner=("ReplicaSet", "one")),
                *app_pods(7, owner=("StatefulSet", "two"), app="a", node="n2", prefix="b"),
            ],
            [
                rs("one", 3),
                make_object(
                    "StatefulSet",
                    "two",
                    api_version="apps/v1",
                    spec={"replicas": 7, "selector": {"matchLabels": {"app": "a"}}},
                ),
            ],
            2,
            id="controllers' replicas are summed: 20% of 10 is 2",
        ),
        pytest.param(
            {"minAvailable": "50%"},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", None)],
            4,
            id="replicas defaults to 1",
        ),
        pytest.param(
            {"minAvailable": "50%"},
            app_pods(5, owner=("ReplicaSet", "rs")),
            [rs("rs", 0)],
            0,
            id="zero expected pods allow nothing",
        ),
        pytest.param(
            {"maxUnavailable": 1},
            app_pods(5),
            [],
            0,
            id="a covered pod without a controller: the controller fails safe",
        ),
        pytest.param(
            {"minAvailable": "40%"},
            app_pods(5, owner=("ReplicaSet", "elsewhere")),
            [],
            3,
            id="a controller missing from the snapshot counts the covered pods",
        ),
    ],
)
def test_disruptions_allowed_without_status(spec, pods, extra, expected):
    assert budget_of(pdb(match={"app": "a"}, spec=spec), *pods, *extra) == expected


def test_disruptions_allowed_from_the_status_when_present():
    # The spec would allow 4; the status says 1, and the status wins.
    assert (
        budget_of(
            pdb(match={"app": "a"}, spec={"minAvailable": 1}, status={"disruptionsAllowed": 1}), *app_pods(5)
        )
        == 1
    )
    assert budget_of(pdb(match={"app": "a"}, status={"disruptionsAllowed": 0}), *app_pods(5)) == 0
    # The old field name (policy/v1beta1 before 1.15) is read too.
    assert budget_of(pdb(match={"app": "a"}, status={"podDisruptionsAllowed": 3}), *app_pods(5)) == 3


def test_budget_without_status_follows_the_snapshot():
    state = cluster(pdb(match={"app": "a"}, spec={"minAvailable": 2}), *app_pods(4))
    [budget] = state.snapshot.workloads.pod_disruption_budgets
    assert disruptions_allowed(budget, state.snapshot) == 2
    state.snapshot.remove_pod(placed(state)["a0"])
    assert disruptions_allowed(budget, state.snapshot) == 1
    newcomer = build_cluster([make_pod("a9", labels={"app": "a"})]).pending[0]
    state.snapshot.add_pod(newcomer, 1)
    assert budgets(state.snapshot) == [2]


def test_evictions_of_a_run_are_taken_off_the_status():
    state = cluster(
        pdb(
            match={"app": "a"},
            status={"disruptionsAllowed": 2, "disruptedPods": {"a3": "2026-01-01T00:00:00Z"}},
        ),
        *app_pods(5, terminating=1),
    )
    snapshot = state.snapshot
    pods = placed(state)
    assert budgets(snapshot) == [2]
    for name in ("a0", "a3", "a1"):  # terminating (not healthy), already disrupted, healthy
        record_eviction(snapshot, pods[name])
        snapshot.remove_pod(pods[name])
    assert budgets(snapshot) == [1]
    record_eviction(snapshot, pods["a2"])
    record_eviction(snapshot, pods["a4"])
    assert budgets(snapshot) == [0]


def test_disruptions_allowed_of_a_foreign_pdb():
    state = cluster(pdb(match={"app": "a"}))
    other = build_cluster([pdb("other", match={"app": "a"})]).snapshot.workloads.pod_disruption_budgets[0]
    with pytest.raises(ValueError, match="PodDisruptionBudget default/other is not in the snapshot"):
        disruptions_allowed(other, state.snapshot)


# ------------------------------------------------------------------ decoding
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
    "regex used for validation is '[0-9]+%')"
)


def load_errors(tmp_path, spec: str) -> list[str]:
    """Load a PDB manifest file; the problems as printed (``file:line: where: message``)."""
    from ruleset.manifests import load_manifests

    path = tmp_path / "pdb.yaml"
    path.write_text(
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  selector: {matchLabels: {app: web}}\n" + spec
    )
    with pytest.raises(RulesetError) as info:
        load_manifests([path])
    return [str(p).replace(str(path), "pdb.yaml") for p in info.value.problems]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            "  minAvailable: 2\n  maxUnavailable: 1\n",
            [
                "pdb.yaml:7: PodDisruptionBudget shop/web: spec: "
                "Invalid value: {minAvailable: 2, maxUnavailable: 1}: "
                "minAvailable and maxUnavailable cannot be both set"
            ],
            id="both set",
        ),
        pytest.param(
            "  minAvailable: abc\n",
            [f"pdb.yaml:6: PodDisruptionBudget shop/web: spec.minAvailable: Invalid value: abc: {PERCENT}"],
            id="not a percentage",
        ),
        pytest.param(
            "  maxUnavailable: 120%\n",
            [
                "pdb.yaml:6: PodDisruptionBudget shop/web: spec.maxUnavailable: Invalid value: 120%: "
                "must not be greater than 100%"
            ],
            id="above 100%",
        ),
        pytest.param(
            "  minAvailable: -1\n",
            [
                "pdb.yaml:6: PodDisruptionBudget shop/web: spec.minAvailable: Invalid value: -1: "
                "must be greater than or equal to 0"
            ],
            id="negative int",
        ),
        pytest.param(
            '  minAvailable: "3"\n',
            [f"pdb.yaml:6: PodDisruptionBudget shop/web: spec.minAvailable: Invalid value: 3: {PERCENT}"],
            id="a quoted integer is a string, so it must be a percentage",
        ),
        pytest.param(
            "  minAvailable: -5%\n",
            [f"pdb.yaml:6: PodDisruptionBudget shop/web: spec.minAvailable: Invalid value: -5%: {PERCENT}"],
            id="negative percentage",
        ),
        pytest.param(
            "  minAvailable: abc\n  maxUnavailable: -2\n",
            [
                "pdb.yaml:7: PodDisruptionBudget shop/web: spec: "
                "Invalid value: {minAvailable: abc, maxUnavailable: -2}: "
                "minAvailable and maxUnavailable cannot be both set",
                f"pdb.yaml:6: PodDisruptionBudget shop/web: spec.minAvailable: Invalid value: abc: {PERCENT}",
                "pdb.yaml:7: PodDisruptionBudget shop/web: spec.maxUnavailable: Invalid value: -2: "
                "must be greater than or equal to 0",
            ],
            id="every problem, in upstream's order",
        ),
        pytest.param(
            "  maxUnavailable: 1.5\n",
            [
                "pdb.yaml:6: PodDisruptionBudget shop/web: spec.maxUnavailable: Invalid value: 1.5: "
                "expected an integer or a percent string"
            ],
            id="a float",
        ),
    ],
)
def test_invalid_budgets(tmp_path, spec, expected):
    assert load_errors(tmp_path, spec) == expected


@pytest.mark.parametrize(
    ("spec", "min_available", "max_unavailable"),
    [
        ({"minAvailable": "50%"}, "50%", None),
        ({"minAvailable": "0%"}, "0%", None),
        ({"maxUnavailable": "100%"}, None, "100%"),
        ({"minAvailable": 0}, 0, None),
        ({"maxUnavailable": 3}, None, 3),
        ({}, None, None),
    ],
)
def test_valid_budgets(spec, min_available, max_unavailable):
    [budget] = build_cluster([pdb(match={"app": "a"}, spec=spec)]).snapshot.workloads.pod_disruption_budgets
    assert (budget.min_available, budget.max_unavailable, budget.disruptions_allowed) == (
        min_available,
        max_unavailable,
        None,
    )


def test_status_is_decoded():
    [budget] = build_cluster(
        [
            pdb(
                match={"app": "a"},
                status={
                    "disruptionsAllowed": 2,
                    "currentHealthy": 5,
                    "expectedPods": 6,
                    "disruptedPods": {"x": "2026-01-01T00:00:00Z"},
                },
            )
        ]
    ).snapshot.workloads.pod_disruption_budgets
    assert (
        budget.disruptions_allowed,
        budget.current_healthy,
        budget.expected_pods,
        budget.disrupted_pods,
    ) == (2, 5, 6, frozenset({"x"}))
