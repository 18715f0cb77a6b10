"""DefaultTolerationSeconds: ported from kubernetes v1.20
``plugin/pkg/admission/defaulttolerationseconds/admission_test.go`` (``TestForgivenessAdmission``).

Its table, case for case (upstream's pods carry the tolerations in ``spec.tolerations``;
older releases used an annotation). Left out: ``TestHandles`` (operations; ruleset admits
creates only) and the flags that change the 300 seconds (ruleset uses the defaults).
"""

from __future__ import annotations

import pytest

from ruleset.admission import Admission

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


def t(key: str = "", operator: str = "", value: str = "", effect: str = "", seconds: int | None = None) -> dict:
    out: dict = {k: v for k, v in (("key", key), ("operator", operator), ("value", value), ("effect", effect)) if v}
    if seconds is not None:
        out["tolerationSeconds"] = seconds
    return out


DEFAULT_NOT_READY = t(NOT_READY, "Exists", effect="NoExecute", seconds=300)
DEFAULT_UNREACHABLE = t(UNREACHABLE, "Exists", effect="NoExecute", seconds=300)

CASES = [
    pytest.param(None, [DEFAULT_NOT_READY, DEFAULT_UNREACHABLE],
                 id="pod has no tolerations, expect add tolerations for not-ready and unreachable"),
    pytest.param([t("foo", "Equal", "bar", "NoSchedule", 700)],
                 [t("foo", "Equal", "bar", "NoSchedule", 700), DEFAULT_NOT_READY, DEFAULT_UNREACHABLE],
                 id="pod has tolerations, but none is for not-ready or unreachable, expect add both"),
    pytest.param([t(NOT_READY, "Exists", effect="NoExecute", seconds=700)],
                 [t(NOT_READY, "Exists", effect="NoExecute", seconds=700), DEFAULT_UNREACHABLE],
                 id="pod specified a toleration for not-ready:NoExecute, expect add unreachable"),
    pytest.param([t(UNREACHABLE, "Exists", effect="NoExecute", seconds=700)],
                 [t(UNREACHABLE, "Exists", effect="NoExecute", seconds=700), DEFAULT_NOT_READY],
                 id="pod specified a toleration for unreachable:NoExecute, expect add not-ready"),
    pytest.param([t(NOT_READY, "Exists", effect="NoExecute", seconds=700),
                  t(UNREACHABLE, "Exists", effect="NoExecute", seconds=700)],
                 [t(NOT_READY, "Exists", effect="NoExecute", seconds=700),
                  t(UNREACHABLE, "Exists", effect="NoExecute", seconds=700)],
                 id="pod specified tolerations for both, expect no change"),
    pytest.param([t(UNREACHABLE, "Exists", seconds=700)],
                 [t(UNREACHABLE, "Exists", seconds=700), DEFAULT_NOT_READY],
                 id="pod specified toleration for unreachable (no effect), expect add not-ready"),
    pytest.param([t(operator="Exists", seconds=700)], [t(operator="Exists", seconds=700)],
                 id="pod has wildcard toleration for all kind of taints, expect no change"),
    # ruleset's: the test is upstream's key-and-effect test, not ToleratesTaint.
    pytest.param([t(NOT_READY, "Equal", "x", "NoSchedule")],
                 [t(NOT_READY, "Equal", "x", "NoSchedule"), DEFAULT_NOT_READY, DEFAULT_UNREACHABLE],
                 id="a NoSchedule toleration of not-ready does not count"),
    pytest.param([t(NOT_READY, "Equal", "x", "NoExecute")],
                 [t(NOT_READY, "Equal", "x", "NoExecute"), DEFAULT_UNREACHABLE],
                 id="an Equal toleration of not-ready counts, whatever its value"),
]


@pytest.mark.parametrize(("tolerations", "expected"), CASES)
def test_forgiveness_admission(tolerations, expected):
    pod = {"metadata": {"name": "p", "namespace": "foo"}, "spec": {"schedulerName": "default-scheduler"}}
    if tolerations is not None:
        pod["spec"]["tolerations"] = tolerations
    admission = Admission()
    result = admission.admit(pod)
    assert result.error is None
    assert result.raw["spec"].get("tolerations") == expected
    changed = expected != (tolerations or [])
    assert admission.counts == ({"DefaultTolerationSeconds tolerations added": 1} if changed else {})


def test_running_pods_get_no_tolerations():
    pod = {"metadata": {"name": "p", "namespace": "foo"}, "spec": {"schedulerName": "default-scheduler"}}
    assert Admission().admit(pod, created=True).raw == pod
