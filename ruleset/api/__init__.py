"""Kubernetes objects as the scheduler reads them, decoded from real manifests."""

from ruleset.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference
from ruleset.api.node import ContainerImage, Node, Taint
from ruleset.api.pod import (
    Affinity,
    Container,
    ContainerPort,
    NodeAffinity,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from ruleset.api.workloads import (
    PodDisruptionBudget,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)

__all__ = [
    "Affinity", "Container", "ContainerImage", "ContainerPort", "LabelSelector", "LabelSelectorRequirement",
    "Node", "NodeAffinity", "NodeSelectorTerm", "ObjectMeta", "OwnerReference", "Pod", "PodAffinity",
    "PodAffinityTerm", "PodDisruptionBudget", "PreferredSchedulingTerm", "PriorityClass", "ReplicaSet",
    "ReplicationController", "Service", "StatefulSet", "Taint", "Toleration", "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
]
