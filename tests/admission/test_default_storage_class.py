"""DefaultStorageClass: ported from kubernetes
``plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go`` (``TestAdmission``).

Two tables. Up to 1.25 (:data:`V1_20`): the seven rows of the file as it stood at v1.20
(the revisions stored for this port are an older one, ``k8s.io/klog`` and ``Admit(attrs,
nil)``, and the 1.26+ one; the 1.20 rows are the older file's, which 1.20 changed only in
the ``Admit`` call). From 1.26 (kubernetes#110559, :data:`V1_26`): the row "two defaults,
error" is gone and two rows choose among several defaults (same creation time: the first by
name; else the newest). Upstream checks whether an error occurs and the class name; here
the error's message is checked too; one row is added to the 1.26 table (see ``CREATED_3``). Left out: the informer plumbing and
``WithReinvocationTesting`` (admitting twice changes nothing here either: a claim given a
class has one). Added: the beta annotations (``IsDefaultAnnotation``,
``PersistentVolumeClaimHasClass``), the API server's defaults and the input left unchanged.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ruleset.admission.default_storage_class import (
    BETA_IS_DEFAULT_CLASS,
    IS_DEFAULT_CLASS,
    NEWEST_DEFAULT,
    admit_claim,
    default_class,
    has_class,
    is_default_class,
)
from ruleset.api.meta import ObjectMeta, parse_timestamp
from ruleset.api.storage import StorageClass
from ruleset.kversion import KubeVersion, Target
from ruleset.reading import CLUSTER, LocatedDict
from ruleset.yaml_reading import load_yaml


def _class(name: str, default: str | None, created: str | None = None) -> StorageClass:
    annotations = {} if default is None else {IS_DEFAULT_CLASS: default}
    stamp = None if created is None else parse_timestamp(created)
    return StorageClass(ObjectMeta(name=name, annotations=annotations, creation_timestamp=stamp),
                        provisioner=name)


DEFAULT_1 = _class("default1", "true")
DEFAULT_2 = _class("default2", "true")
FALSE_DEFAULT = _class("nondefault1", "false")
NO_DEFAULT = _class("nondefault2", None)
EMPTY_DEFAULT = _class("nondefault2", "")
# Upstream: 2022-01-01 00:00:00 and one nanosecond, and 2022-01-01 00:00:00. Timestamps are
# read as float seconds here, finer than the API server writes them (whole seconds) but not to
# the nanosecond: that row ties and the name decides, giving upstream's answer; the row
# "newer by a second, larger name" checks the newest wins.
CREATED_1 = _class("default1", "true", "2022-01-01T00:00:00.000000001Z")
CREATED_2 = _class("default2", "true", "2022-01-01T00:00:00Z")
CREATED_3 = _class("default3", "true", "2022-01-01T00:00:01Z")
NON_DEFAULTS = [FALSE_DEFAULT, NO_DEFAULT, EMPTY_DEFAULT]


def _claim(name: str, storage_class: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {} if storage_class is None else {"storageClassName": storage_class}
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


CLAIM_WITH_CLASS = _claim("claimWithClass", "foo")
CLAIM_WITH_EMPTY_CLASS = _claim("claimWithEmptyClass", "")
CLAIM_WITH_NO_CLASS = _claim("claimWithNoClass")

TWO_DEFAULTS_ERROR = ('persistentvolumeclaims "claimWithNoClass" is forbidden: '
                      "Internal error occurred: 2 default StorageClasses were found")

Row = tuple[list[StorageClass], dict[str, Any], str | None, str]

V1_20: dict[str, Row] = {
    "no default, no modification of PVCs": (NON_DEFAULTS, CLAIM_WITH_NO_CLASS, None, ""),
    "one default, modify PVC with class=nil": ([DEFAULT_1, *NON_DEFAULTS], CLAIM_WITH_NO_CLASS, None, "default1"),
    "one default, no modification of PVC with class=''": ([DEFAULT_1, *NON_DEFAULTS], CLAIM_WITH_EMPTY_CLASS,
                                                          None, ""),
    "one default, no modification of PVC with class='foo'": ([DEFAULT_1, *NON_DEFAULTS], CLAIM_WITH_CLASS, None,
                                                             "foo"),
    "two defaults, error with PVC with class=nil": ([DEFAULT_1, DEFAULT_2, *NON_DEFAULTS], CLAIM_WITH_NO_CLASS,
                                                    TWO_DEFAULTS_ERROR, ""),
    "two defaults, no modification of PVC with class=''": ([DEFAULT_1, DEFAULT_2, *NON_DEFAULTS],
                                                           CLAIM_WITH_EMPTY_CLASS, None, ""),
    "two defaults, no modification of PVC with class='foo'": ([DEFAULT_1, DEFAULT_2, *NON_DEFAULTS],
                                                              CLAIM_WITH_CLASS, None, "foo"),
}

V1_26: dict[str, Row] = {
    **{name: row for name, row in V1_20.items() if name != "two defaults, error with PVC with class=nil"},
    "two defaults with same creation time, choose the one with smaller name": (
        [DEFAULT_1, DEFAULT_2, *NON_DEFAULTS], CLAIM_WITH_NO_CLASS, None, "default1"),
    "two defaults, choose the one with newer creation time": (
        [CREATED_1, CREATED_2, *NON_DEFAULTS], CLAIM_WITH_NO_CLASS, None, "default1"),
    "newer by a second, larger name": ([CREATED_2, CREATED_3, *NON_DEFAULTS], CLAIM_WITH_NO_CLASS, None,
                                       "default3"),
}


def _class_of(claim: Any) -> str:
    """Upstream's check: the class name, "" when unset."""
    return claim.get("spec", {}).get("storageClassName") or ""


@pytest.mark.parametrize(("version", "row"), [
    *(("1.20", row) for row in V1_20.values()),
    *(("1.26", row) for row in V1_26.values()),
], ids=[*(f"1.20: {name}" for name in V1_20), *(f"1.26: {name}" for name in V1_26)])
def test_admission(version: str, row: Row) -> None:
    classes, claim, error, class_name = row
    before = copy.deepcopy(claim)
    newest = Target(KubeVersion.parse(version)).has(NEWEST_DEFAULT)
    admitted = admit_claim(claim, classes, newest_wins=newest)
    assert admitted.error == error
    assert _class_of(admitted.raw) == class_name
    assert admitted.defaulted_to == ("" if error or claim.get("spec") else class_name)
    assert claim == before  # a new dict; the input is not changed


@pytest.mark.parametrize(("version", "newest"), [("1.20", False), ("1.25", False), ("1.26", True),
                                                 ("1.35", True)])
def test_newest_default_from_1_26(version: str, newest: bool) -> None:
    assert Target(KubeVersion.parse(version)).has(NEWEST_DEFAULT) is newest


@pytest.mark.parametrize(("annotations", "default"), [
    ({IS_DEFAULT_CLASS: "true"}, True),
    ({BETA_IS_DEFAULT_CLASS: "true"}, True),
    ({IS_DEFAULT_CLASS: "false", BETA_IS_DEFAULT_CLASS: "true"}, True),
    ({IS_DEFAULT_CLASS: "True"}, False),
    ({IS_DEFAULT_CLASS: ""}, False),
    ({}, False),
], ids=["ga", "beta", "beta-despite-ga-false", "not-exactly-true", "empty", "none"])
def test_is_default_annotation(annotations: dict[str, str], default: bool) -> None:
    assert is_default_class(StorageClass(ObjectMeta(name="c", annotations=annotations))) is default


@pytest.mark.parametrize(("claim", "has"), [
    ({"spec": {}}, False),
    ({"spec": {"storageClassName": None}}, False),
    ({"spec": {"storageClassName": ""}}, True),
    ({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": ""}}, "spec": {}}, True),
    ({"metadata": {"annotations": {"other": "x"}}}, False),
], ids=["unset", "null", "empty", "beta-annotation", "other-annotation"])
def test_has_class(claim: dict[str, Any], has: bool) -> None:
    assert has_class(claim) is has


def test_newest_wins_over_a_class_without_creation_time_and_ties_go_by_name() -> None:
    undated = _class("a", "true")
    dated = _class("z", "true", "2020-01-01T00:00:00Z")
    assert default_class([undated, dated], newest_wins=True) == (dated, "")
    assert default_class([_class("b", "true"), undated], newest_wins=True) == (undated, "")
    assert default_class([undated, dated], newest_wins=False) == (
        None, "Internal error occurred: 2 default StorageClasses were found")


def test_api_server_defaults_keep_the_claims_lines() -> None:
    raw = next(load_yaml("""\
kind: PersistentVolumeClaim
metadata: {name: data-db-0, namespace: ns}
spec:
  accessModes: [ReadWriteOnce]
  volumeMode: Block
status: {phase: Bound}
""", "claim.yaml", CLUSTER))
    admitted = admit_claim(raw, [DEFAULT_1])
    assert admitted.error is None and admitted.defaulted_to == "default1"
    assert admitted.raw == {"kind": "PersistentVolumeClaim", "metadata": {"name": "data-db-0", "namespace": "ns"},
                            "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Block",
                                     "storageClassName": "default1"},
                            "status": {"phase": "Pending"}}  # PrepareForCreate clears the status
    spec = admitted.raw["spec"]
    assert isinstance(spec, LocatedDict) and spec.key_lines["accessModes"] == 4
    assert raw["spec"] == {"accessModes": ["ReadWriteOnce"], "volumeMode": "Block"}
    assert admit_claim({"metadata": {"name": "x"}}, []).raw == {
        "metadata": {"name": "x"}, "spec": {"volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}


def test_a_malformed_spec_is_left_for_the_decoder() -> None:
    assert admit_claim({"metadata": {"name": "x"}, "spec": 3}, [DEFAULT_1]).raw == {"metadata": {"name": "x"},
                                                                                 "spec": 3}
