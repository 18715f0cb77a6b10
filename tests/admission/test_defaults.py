"""Defaulting: kubernetes v1.20 ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_Pod``,
``SetDefaults_PodSpec``) and the request's namespace, on raw pods.

Upstream's ``defaults_test.go`` tests these through the whole scheme (every default of every
field); these cases are ruleset's, one per rule it ports, with the exact dict expected.
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset.admission import Admission


def pod(spec: dict, meta: dict | None = None) -> dict:
    return {"metadata": meta if meta is not None else {"name": "p", "namespace": "ns"},
            "spec": {"schedulerName": "s", **spec}}


def res(requests: dict | None = None, limits: dict | None = None) -> dict:
    out: dict[str, Any] = {}
    if requests is not None:
        out["requests"] = requests
    if limits is not None:
        out["limits"] = limits
    return {"name": "c", "resources": out}


CASES = [
    pytest.param(pod({"containers": [res(limits={"cpu": "2", "memory": "1Gi"})]}),
                 pod({"containers": [res({"cpu": "2", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})]}),
                 {"requests defaulted from limits"}, id="requests from limits"),
    pytest.param(pod({"containers": [res({"cpu": "1"}, {"cpu": "2", "memory": "1Gi"})]}),
                 pod({"containers": [res({"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})]}),
                 {"requests defaulted from limits"}, id="a request already set is kept"),
    pytest.param(pod({"initContainers": [res(limits={"example.com/fpga": 2})]}),
                 pod({"initContainers": [res({"example.com/fpga": 2}, {"example.com/fpga": 2})]}),
                 {"requests defaulted from limits"}, id="init containers too"),
    pytest.param(pod({"containers": [res({"cpu": "1"}, {})]}), pod({"containers": [res({"cpu": "1"}, {})]}),
                 set(), id="empty limits: nothing"),
    pytest.param(pod({"containers": [res(limits={"cpu": "1"}, requests=None)]}, {"name": "p", "namespace": ""}),
                 pod({"containers": [res({"cpu": "1"}, {"cpu": "1"})]}, {"name": "p", "namespace": "default"}),
                 {"requests defaulted from limits", "namespace defaulted"}, id="empty namespace"),
    pytest.param({"metadata": {"name": "p"}}, {"metadata": {"name": "p", "namespace": "default"},
                                               "spec": {"schedulerName": "default-scheduler"}},
                 {"namespace defaulted", "schedulerName defaulted"}, id="no spec"),
    pytest.param(pod({"schedulerName": ""}), pod({"schedulerName": "default-scheduler"}),
                 {"schedulerName defaulted"}, id="empty schedulerName"),
    pytest.param(pod({"hostNetwork": True, "containers": [{"name": "c", "ports": [
        {"containerPort": 80}, {"containerPort": 443, "hostPort": 0}, {"containerPort": 53, "hostPort": 5353}]}],
        "initContainers": [{"name": "i", "ports": [{"containerPort": 8080}]}]}),
                 pod({"hostNetwork": True, "containers": [{"name": "c", "ports": [
                     {"containerPort": 80, "hostPort": 80}, {"containerPort": 443, "hostPort": 443},
                     {"containerPort": 53, "hostPort": 5353}]}],
                     "initContainers": [{"name": "i", "ports": [{"containerPort": 8080, "hostPort": 8080}]}]}),
                 {"hostPort defaulted from containerPort (hostNetwork)"}, id="host network ports"),
    pytest.param(pod({"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}),
                 pod({"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}), set(),
                 id="no host network: ports as they are"),
]


@pytest.mark.parametrize(("raw", "expected", "changes"), CASES)
def test_defaulting(raw, expected, changes):
    for created in (True, False):
        admission = Admission()
        result = admission.admit(raw, created=created)
        assert result.error is None
        result.raw["spec"].pop("tolerations", None)  # DefaultTolerationSeconds' (its own tests)
        assert result.raw == expected
        admission.counts.pop("DefaultTolerationSeconds tolerations added", None)
        assert set(admission.counts) == changes
        again = Admission().admit(result.raw, created=True)
        assert again.raw == result.raw  # idempotent
