"""The API server's defaulting of a pod (``pkg/apis/core/v1/defaults.go``, v1.20), on raw dicts.

Only defaults the scheduler reads are applied: ``SetDefaults_Pod`` (requests from limits),
``SetDefaults_PodSpec`` (``schedulerName``; a host-network pod's ``hostPort`` from
``containerPort``), and the request's namespace. Each runs when an object is created and
again when it is read back, so each is idempotent, and applies to pods from dumps too.
"""

from __future__ import annotations

from typing import Any

from ruleset.admission.goquantity import go_quantity
from ruleset.admission.raw import Editor, get_dict, get_list

REQUESTS_FROM_LIMITS = "requests defaulted from limits"
SCHEDULER_NAME = "schedulerName defaulted"
NAMESPACE = "namespace defaulted"
HOST_PORTS = "hostPort defaulted from containerPort (hostNetwork)"

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_NAMESPACE = "default"
CONTAINER_LISTS = ("containers", "initContainers")


def default_pod(editor: Editor, pod: dict) -> set[str]:
    """Apply the defaults to ``pod`` (an editor's copy); the kinds of change made."""
    changes: set[str] = set()
    if _requests_from_limits(editor, pod):
        changes.add(REQUESTS_FROM_LIMITS)
    if _host_network_ports(editor, pod):
        changes.add(HOST_PORTS)
    spec = pod.get("spec")
    if (spec is None or isinstance(spec, dict)) and _blank(spec.get("schedulerName") if spec else None):
        editor.own(pod, "spec", create=True)["schedulerName"] = DEFAULT_SCHEDULER_NAME
        changes.add(SCHEDULER_NAME)
    meta = pod.get("metadata")
    if (meta is None or isinstance(meta, dict)) and _blank(meta.get("namespace") if meta else None):
        editor.own(pod, "metadata", create=True)["namespace"] = DEFAULT_NAMESPACE
        changes.add(NAMESPACE)
    return changes


def _blank(value: Any) -> bool:
    return value is None or value == ""


def _requests_from_limits(editor: Editor, pod: dict) -> bool:
    """``SetDefaults_Pod``: for each container and init container, each resource in ``limits``
    missing from ``requests`` is requested at its limit. A value that is no quantity is left
    for the decoder to report (once, where it was written)."""
    changed = False
    spec = get_dict(pod, "spec")
    for list_key in CONTAINER_LISTS:
        containers = get_list(spec, list_key)
        for i, container in enumerate(containers or ()):
            resources = get_dict(container, "resources")
            limits = get_dict(resources, "limits")
            if not limits or resources is None:
                continue
            requests = resources.get("requests")
            if requests is not None and not isinstance(requests, dict):
                continue
            missing = [(k, v) for k, v in limits.items()
                       if (requests is None or k not in requests) and go_quantity(v) is not None]
            if not missing:
                continue
            own_spec = editor.own(pod, "spec")
            own_list = editor.own(own_spec, list_key)
            own_container = editor.own(own_list, i)
            own_resources = editor.own(own_container, "resources")
            own_requests = editor.own(own_resources, "requests", create=True)
            for k, v in missing:
                own_requests[k] = v
            changed = True
    return changed


def _host_network_ports(editor: Editor, pod: dict) -> bool:
    """``SetDefaults_PodSpec``'s ``defaultHostNetworkPorts``: with ``hostNetwork: true``, a
    port's ``hostPort`` of 0 (or none) becomes its ``containerPort``."""
    spec = get_dict(pod, "spec")
    if spec is None or spec.get("hostNetwork") is not True:
        return False
    changed = False
    for list_key in CONTAINER_LISTS:
        for i, container in enumerate(get_list(spec, list_key) or ()):
            for j, port in enumerate(get_list(container, "ports") or ()):
                if not isinstance(port, dict):
                    continue
                container_port = port.get("containerPort")
                host_port = port.get("hostPort")
                if (isinstance(container_port, bool) or not isinstance(container_port, int)
                        or container_port == 0 or host_port not in (None, 0) or isinstance(host_port, bool)):
                    continue
                own_port = editor.own(editor.own(editor.own(editor.own(pod, "spec"), list_key), i), "ports")
                editor.own(own_port, j)["hostPort"] = container_port
                changed = True
    return changed
