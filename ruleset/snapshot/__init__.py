"""The columnar cluster snapshot and the views plugins get of it."""

from ruleset.snapshot.node_info import ImageState, NodeInfo, NodeSet
from ruleset.snapshot.pod_table import PodTable
from ruleset.snapshot.snapshot import DEFAULT_BIND_ALL_HOST_IP, Snapshot, Workloads, sanitize_host_port
from ruleset.snapshot.storage import VolumeStore

__all__ = [
    "DEFAULT_BIND_ALL_HOST_IP", "ImageState", "NodeInfo", "NodeSet", "PodTable", "Snapshot", "VolumeStore",
    "Workloads", "sanitize_host_port",
]
