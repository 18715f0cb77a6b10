"""What the API server does to a PersistentVolumeClaim on create, for the claims ruleset
creates (a StatefulSet's ``volumeClaimTemplates``), including the DefaultStorageClass
admission plugin (v1.20 ``plugin/pkg/admission/storage/storageclass/setdefault/admission.go``).

In the API server's order:

* defaulting (``pkg/apis/core/v1/defaults.go``): ``spec.volumeMode`` ``Filesystem``
  (``SetDefaults_PersistentVolumeClaimSpec``);
* the DefaultStorageClass plugin, on create only: a claim that names no class (no
  ``spec.storageClassName`` and no ``volume.beta.kubernetes.io/storage-class`` annotation,
  ``helper.PersistentVolumeClaimHasClass``; an empty class is a class) gets the default
  class: the one annotated ``storageclass.kubernetes.io/is-default-class: "true"`` (or the
  beta ``storageclass.beta.kubernetes.io/is-default-class``). No default class: the claim
  is left without one. Several: up to 1.25 the claim is refused (``Internal error occurred:
  N default StorageClasses were found``); from 1.26 (kubernetes#110559) the newest by
  ``creationTimestamp`` wins, then the first by name;
* ``PrepareForCreate`` (``pkg/registry/core/persistentvolumeclaim/strategy.go``): the
  status is cleared, and reads back ``phase: Pending`` (``SetDefaults_PersistentVolumeClaim``).

The input is never changed: the result is a new dict, line maps kept on every level copied.
Claims read from the input are the API server's already and do not come here; the PV
controller's retroactive assignment of a default class to stored claims without one
(RetroactiveDefaultStorageClass, 1.25+) is not admission and is not done here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruleset.admission.raw import Editor, get_dict, new_map_like, scalar_text
from ruleset.api.storage import ANN_BETA_STORAGE_CLASS, StorageClass
from ruleset.gofmt import go_quote
from ruleset.kversion import switch

#: ``storageutil.IsDefaultStorageClassAnnotation`` and its beta predecessor.
IS_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
BETA_IS_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"

NEWEST_DEFAULT = switch(
    "DefaultStorageClass.newest-default", "1.26",
    "several default StorageClasses: a new claim without a class gets the newest (then the first by "
    "name) instead of being refused",
    "plugin/pkg/admission/storage/storageclass/setdefault/admission.go; pkg/volume/util/storageclass.go")

#: ``time.Time{}.UnixNano()`` in Go (the zero time overflows int64 and wraps): what a class
#: without ``creationTimestamp`` sorts as, older than any real one.
_ZERO_TIME_UNIX_NANO = -6795364578871345152

DEFAULTED_CLASS = "DefaultStorageClass class set"


def is_default_class(storage_class: StorageClass) -> bool:
    """``storageutil.IsDefaultAnnotation``: either annotation is exactly ``"true"``."""
    annotations = storage_class.meta.annotations
    return annotations.get(IS_DEFAULT_CLASS) == "true" or annotations.get(BETA_IS_DEFAULT_CLASS) == "true"


def _unix_nano(storage_class: StorageClass) -> int:
    stamp = storage_class.meta.creation_timestamp
    return _ZERO_TIME_UNIX_NANO if stamp is None else round(stamp * 1e9)


def default_class(classes: Sequence[StorageClass],
                  newest_wins: bool = False) -> tuple[StorageClass | None, str]:
    """``getDefaultClass``: the default class (None when there is none), or, when several are
    default and ``newest_wins`` is off (before 1.26), None and the error."""
    defaults = [c for c in classes if is_default_class(c)]
    if not defaults:
        return None, ""
    if newest_wins:
        return min(defaults, key=lambda c: (-_unix_nano(c), c.name)), ""
    if len(defaults) > 1:
        return None, f"Internal error occurred: {len(defaults)} default StorageClasses were found"
    return defaults[0], ""


def has_class(claim: Any) -> bool:
    """``helper.PersistentVolumeClaimHasClass`` on a raw claim: the beta annotation is set (to
    anything), or ``spec.storageClassName`` is (an empty string too; ``null`` is unset)."""
    meta = get_dict(claim, "metadata") or {}
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and ANN_BETA_STORAGE_CLASS in annotations:
        return True
    spec = get_dict(claim, "spec") or {}
    return spec.get("storageClassName") is not None


@dataclass
class AdmittedClaim:
    """One claim after the API server's create path."""

    #: The claim as stored (a new dict); for a refused claim, as it was when refused.
    raw: Any
    #: The Forbidden message of a refusal (the claim is never stored).
    error: str | None = None
    #: The default class it was given ("" when none).
    defaulted_to: str = ""


def forbidden(claim: Any, message: str) -> str:
    """``admission.NewForbidden``: ``persistentvolumeclaims "<name>" is forbidden: <message>``."""
    meta = get_dict(claim, "metadata") or {}
    name = scalar_text(meta.get("name")) or scalar_text(meta.get("generateName")) or "Unknown"
    return f"persistentvolumeclaims {go_quote(name)} is forbidden: {message}"


def admit_claim(raw: Any, classes: Sequence[StorageClass], newest_wins: bool = False) -> AdmittedClaim:
    """Create the raw claim ``raw`` as the API server does (see the module docstring);
    ``classes`` are every StorageClass of the cluster, ``newest_wins`` the run's release has
    :data:`NEWEST_DEFAULT`. A malformed part is left for the claim's decoder to report."""
    if not isinstance(raw, dict):
        return AdmittedClaim(raw)
    editor = Editor()
    claim = editor.root(raw)
    if claim.get("spec") is not None and not isinstance(claim.get("spec"), dict):
        return AdmittedClaim(claim)  # malformed: the decoder reports it
    spec = editor.own(claim, "spec", create=True)
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    defaulted_to = ""
    if not has_class(claim):
        chosen, error = default_class(classes, newest_wins)
        if error:
            return AdmittedClaim(claim, forbidden(claim, error))
        if chosen is not None:
            spec["storageClassName"] = defaulted_to = chosen.name
    status = new_map_like(claim)
    status["phase"] = "Pending"
    claim["status"] = status
    return AdmittedClaim(claim, None, defaulted_to)
