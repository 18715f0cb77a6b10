"""The names controllers derive from hashes: pod-template-hash, controller-revision-hash, uids.

Upstream (v1.20) hashes Go values:

* ``controller.ComputeHash`` (Deployment's ``pod-template-hash``, DaemonSet's
  ``controller-revision-hash``): FNV-32a over ``hashutil.DeepHashObject`` of the
  ``PodTemplateSpec`` -- a go-spew dump of the defaulted Go struct -- then, when
  ``status.collisionCount`` is set, its value as 8 bytes (``binary.LittleEndian.PutUint32``
  into an 8-byte slice).
* ``history.HashControllerRevision`` (StatefulSet revisions): FNV-32 (not 32a) over the
  revision's JSON patch ``{"spec":{"template":{...,"$patch":"replace"}}}``, then the
  collision count in decimal.

Both end in ``rand.SafeEncodeString(fmt.Sprint(sum))``. A spew dump of the API server's
defaulted object cannot be rebuilt from a manifest, so :func:`compute_hash` hashes the
:func:`~ruleset.workloads.copying.canonical_json` text of the template instead: the same
algorithm, the same alphabet and length, deterministic, but not the value a cluster would
show. :func:`revision_hash` is upstream's algorithm exactly; only its input (the template
as written, not as defaulted) differs.
"""

from __future__ import annotations

import struct
import uuid
from typing import Any

from ruleset.workloads.copying import canonical_json

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
#: ``rand.alphanums``: no vowels, no 0/1/3, so that no word (or look-alike) is spelled.
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
#: The namespace of the stand-in uids given to workloads that have none.
UID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/ruleset/workloads")


def fnv32(data: bytes) -> int:
    """``hash/fnv.New32`` (FNV-1)."""
    h = _FNV32_OFFSET
    for byte in data:
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
        h ^= byte
    return h


def fnv32a(data: bytes) -> int:
    """``hash/fnv.New32a`` (FNV-1a)."""
    h = _FNV32_OFFSET
    for byte in data:
        h ^= byte
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def safe_encode_string(text: str) -> str:
    """``rand.SafeEncodeString``: each character mapped into :data:`ALPHANUMS` by code point."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def compute_hash(template: Any, collision_count: int | None = None) -> str:
    """``controller.ComputeHash`` of a raw pod template (see the module docstring)."""
    data = _utf8(canonical_json(template))
    if collision_count is not None:
        data += struct.pack("<I", collision_count & 0xFFFFFFFF) + bytes(4)
    return safe_encode_string(str(fnv32a(data)))


def revision_patch(template: Any) -> str:
    """StatefulSet ``getPatch``: the JSON patch a ControllerRevision stores."""
    return canonical_json({"spec": {"template": {**(template if isinstance(template, dict) else {}),
                                                 "$patch": "replace"}}})


def revision_hash(template: Any, collision_count: int = 0) -> str:
    """``history.HashControllerRevision`` of a StatefulSet revision (probe = collision count,
    always set by the v1.20 StatefulSet controller)."""
    data = _utf8(revision_patch(template)) + str(collision_count).encode()
    return safe_encode_string(str(fnv32(data)))


def controller_revision_name(prefix: str, hash_: str) -> str:
    """``history.ControllerRevisionName``: ``prefix-hash``, the prefix cut to 223 bytes."""
    raw = prefix.encode("utf-8", "surrogatepass")
    if len(raw) > 223:
        prefix = raw[:223].decode("utf-8", "ignore")
    return f"{prefix}-{hash_}"


def stand_in_uid(kind: str, namespace: str, name: str) -> str:
    """A uid for a workload written without one: ``uuid5`` of its kind, namespace and name,
    so that owner references and the ``controller-uid`` label are the same on every run."""
    return str(uuid.uuid5(UID_NAMESPACE, f"{kind}/{namespace}/{name}"))
