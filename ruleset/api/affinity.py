"""Pod affinity terms as the scheduler reads them (v1.20 ``framework.AffinityTerm``).

With PodAffinityNamespaceSelector (1.21 on) a term's ``namespaceSelector`` also selects
namespaces: :class:`SelectedNamespacesTerm`.

Shared by the InterPodAffinity plugin and the scheduling queue, which in v1.20 retries a
parked pod when a pod lands that satisfies one of its required pod affinity terms
(``scheduling_queue.go: getUnschedulablePodsWithMatchingAffinityTerm``, whatever the
profile), as upstream's queue and plugin share ``pkg/scheduler/util``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ruleset.api.pod import Pod, PodAffinityTerm
from ruleset.kversion import switch
from ruleset.selector import Selector, SelectorError, from_label_selector


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """``framework.AffinityTerm``: a converted pod affinity term."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str

    def matches(self, pod: Pod) -> bool:
        """``PodMatchesTermsNamespaceAndSelector``."""
        return pod.namespace in self.namespaces and self.selector.matches(pod.labels)


@lru_cache(maxsize=65536)
def affinity_term(term: PodAffinityTerm, namespace: str) -> AffinityTerm:
    """``newAffinityTerm``; raises SelectorError. Cached, so the pods of a workload share one object."""
    namespaces = frozenset(term.namespaces) if term.namespaces else frozenset((namespace,))
    return AffinityTerm(namespaces, from_label_selector(term.label_selector), term.topology_key)


NAMESPACE_SELECTOR = switch(
    "InterPodAffinity.namespaceSelector", "1.21",
    "a pod affinity term's namespaceSelector also selects namespaces (a namespace's labels taken to be "
    "kubernetes.io/metadata.name=<name>); with a selector the pod's own namespace is no longer implied",
    "pkg/scheduler/framework/types.go (newAffinityTerm, getNamespacesFromPodAffinityTerm), "
    "pkg/scheduler/framework/plugins/interpodaffinity/plugin.go (mergeAffinityTermNamespacesIfNotEmpty)",
    gate="PodAffinityNamespaceSelector")

#: The label every namespace carries since 1.21 (``LabelMetadataName``), the only one modelled:
#: the snapshot holds no Namespace objects.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


@dataclass(frozen=True, slots=True)
class SelectedNamespacesTerm(AffinityTerm):
    """``framework.AffinityTerm`` of 1.22 for a term with a ``namespaceSelector``: a pod in one
    of ``namespaces`` or in a namespace the selector picks (a namespace's labels taken to be
    ``kubernetes.io/metadata.name=<name>``)."""

    namespace_selector: Selector = None  # type: ignore[assignment]  # always given

    def matches(self, pod: Pod) -> bool:
        """``AffinityTerm.Matches`` with the namespace's labels (its name label)."""
        return self.selects_namespace(pod.namespace) and self.selector.matches(pod.labels)

    def selects_namespace(self, namespace: str) -> bool:
        return (namespace in self.namespaces
                or self.namespace_selector.matches({NAMESPACE_NAME_LABEL: namespace}))


@lru_cache(maxsize=65536)
def selected_namespaces_term(term: PodAffinityTerm, namespace: str) -> AffinityTerm:
    """``newAffinityTerm`` of 1.22: with a ``namespaceSelector`` (even ``{}``) the pod's own
    namespace is not implied; raises SelectorError."""
    if term.namespace_selector is None:
        return affinity_term(term, namespace)
    return SelectedNamespacesTerm(frozenset(term.namespaces), from_label_selector(term.label_selector),
                                  term.topology_key, from_label_selector(term.namespace_selector))


def satisfies_required_affinity(pod: Pod, placed: Pod, namespace_selector: bool = False) -> bool:
    """Whether ``placed`` matches one of ``pod``'s required pod affinity terms (a term whose
    selector does not parse is skipped, as v1.20's queue logs it and goes on).

    ``namespace_selector`` (PodAffinityNamespaceSelector, from 1.21: the target's
    ``InterPodAffinity.namespaceSelector`` switch) reads a term's ``namespaceSelector`` as the
    plugin does, a namespace's only label being ``kubernetes.io/metadata.name=<name>``; False
    is v1.20, which ignores the field.
    """
    affinity = pod.affinity.pod_affinity
    if affinity is None or not affinity.required:
        return False
    for term in affinity.required:
        try:
            convert = selected_namespaces_term if namespace_selector else affinity_term
            if convert(term, pod.namespace).matches(placed):
                return True
        except SelectorError:
            continue
    return False
