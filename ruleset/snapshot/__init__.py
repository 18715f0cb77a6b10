"""The columnar cluster snapshot and the views plugins get of it."""

from ruleset.snapshot.node_info import ImageState, NodeInfo, NodeSet
from ruleset.snapshot.pod_table import PodTable
from ruleset.snapshot.snapshot import Snapshot, Workloads

__all__ = ["ImageState", "NodeInfo", "NodeSet", "PodTable", "Snapshot", "Workloads"]
