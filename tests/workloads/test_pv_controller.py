"""The PV controller's first sync of the claims a run creates (``ruleset.workloads.pv_controller``).

Upstream: ``pkg/controller/volume/persistentvolume/pv_controller.go`` (``syncUnboundClaim``,
``bind``) and ``index.go`` (``findBestMatchForClaim``, ``allPossibleMatchingAccessModes``) at
v1.20. Cases written here from that code (its own tests, ``binder_test.go`` and
``index_test.go``, drive the controller through fake API calls; what they check of matching
is ``FindMatchingVolume``, ported in ``tests/plugins/test_volume_binder.py``). Left out:
dynamic provisioning (not simulated, see the module) and the controller's retries.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from ruleset.api.meta import LabelSelector, ObjectMeta
from ruleset.api.storage import ObjectReference, PersistentVolume, PersistentVolumeClaim, StorageClass
from ruleset.cli import main
from ruleset.workloads.pv_controller import bind_new_claims

GI = 1024**3


def pv(name: str, size: int, modes: tuple[str, ...] = ("ReadWriteOnce",), cls: str = "manual",
       labels: dict | None = None) -> PersistentVolume:
    return PersistentVolume(ObjectMeta(name=name, labels=labels or {}), capacity=size * GI, access_modes=modes,
                            storage_class_name=cls)


def pvc(name: str, size: int, modes: tuple[str, ...] = ("ReadWriteOnce",), cls: str | None = "manual",
        volume_name: str = "", stored: bool = False, selector: LabelSelector | None = None) -> PersistentVolumeClaim:
    meta = ObjectMeta(name=name, namespace="default", uid="uid-" + name if stored else "")
    return PersistentVolumeClaim(meta, storage_class_name=cls, access_modes=modes, request=size * GI,
                                 volume_name=volume_name, selector=selector)


WFFC = StorageClass(ObjectMeta(name="local"), provisioner="kubernetes.io/no-provisioner",
                    volume_binding_mode="WaitForFirstConsumer")


def bound(claims: list[PersistentVolumeClaim]) -> dict[str, str]:
    return {c.meta.name: c.volume_name for c in claims if c.phase == "Bound"}


@pytest.mark.parametrize(("claims", "volumes", "expected"), [
    pytest.param([pvc("c", 3)], [pv("big", 100), pv("fits", 10), pv("small", 1)], {"c": "fits"},
                 id="smallest volume big enough"),
    pytest.param([pvc("c", 1)], [pv("rwx", 5, ("ReadWriteOnce", "ReadWriteMany")), pv("rwo", 50)], {"c": "rwo"},
                 id="fewest access modes first, then smallest"),
    pytest.param([pvc("c", 1, ("ReadWriteMany",))], [pv("rwo", 5)], {}, id="access modes not offered"),
    pytest.param([pvc("c", 1, cls="fast")], [pv("manual", 5)], {}, id="another class"),
    pytest.param([pvc("c", 1, cls=None)], [pv("none", 5, cls="")], {"c": "none"}, id="no class matches no class"),
    pytest.param([pvc("a", 1), pvc("b", 1)], [pv("only", 5)], {"a": "only"}, id="first claim takes the volume"),
    pytest.param([pvc("c", 1, stored=True)], [pv("v", 5)], {}, id="a stored claim is the controller's already"),
    pytest.param([pvc("c", 1, cls="local")], [pv("v", 5, cls="local")], {}, id="WaitForFirstConsumer: the scheduler's"),
    pytest.param([pvc("c", 1, volume_name="v")], [pv("bigger", 2), pv("v", 50)], {"c": "v"},
                 id="a claim naming its volume gets it"),
    pytest.param([pvc("c", 1, volume_name="gone")], [pv("v", 5)], {}, id="named volume missing: stays Pending"),
    pytest.param([pvc("c", 1, selector=LabelSelector(match_labels=(("tier", "gold"),)))],
                 [pv("plain", 1), pv("gold", 9, labels={"tier": "gold"})], {"c": "gold"}, id="selector"),
])
def test_new_immediate_claims_are_bound(claims, volumes, expected):
    claims, volumes = list(claims), list(volumes)
    assert bind_new_claims(claims, volumes, [WFFC]) == len(expected)
    assert bound(claims) == expected
    by_name = {v.name: v for v in volumes}
    for claim in claims:
        if claim.phase == "Bound":
            volume = by_name[claim.volume_name]
            assert (volume.phase, volume.claim_ref.namespace, volume.claim_ref.name) == ("Bound", "default",
                                                                                        claim.meta.name)
            assert claim.meta.annotations["pv.kubernetes.io/bind-completed"] == "yes"


def test_a_volume_pre_bound_to_the_claim_wins_and_is_not_marked_as_chosen():
    claims = [pvc("c", 1)]
    volumes = [pv("free", 1), dataclasses.replace(pv("mine", 10), claim_ref=ObjectReference("default", "c"))]
    assert bind_new_claims(claims, volumes, []) == 1
    assert claims[0].volume_name == "mine"
    assert "pv.kubernetes.io/bound-by-controller" not in volumes[1].meta.annotations


DOCS = Path(__file__).parent.parent / "e2e" / "storage"


def test_the_docs_pv_claim_and_pod_schedule_as_a_cluster_would(tmp_path, capsys):
    """kubernetes.io "Configure a Pod to Use a PersistentVolume for Storage": task-pv-volume,
    task-pv-claim (class ``manual``, which no StorageClass defines: Immediate) and task-pv-pod."""
    cluster = (DOCS / "local-pvs.yaml").read_text().split("---\napiVersion: storage.k8s.io/v1")[0]
    (tmp_path / "c.yaml").write_text(cluster)
    code = main(["schedule", "--cluster", str(tmp_path / "c.yaml"), "--pods", str(DOCS / "task-pv.yaml"),
                 "-o", "json", "-v"])
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert code == 0
    [placement] = data["placements"]
    assert placement["pod"] == "default/task-pv-pod" and placement["node"] in ("a-1", "b-1", "c-1")
    assert "note: bound 1 × PersistentVolumeClaim to a volume (the PV controller's Immediate binding)" in \
        captured.err.splitlines()
