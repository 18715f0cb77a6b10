"""Pod affinity terms as the scheduler reads them (v1.20 ``framework.AffinityTerm``).

Shared by the InterPodAffinity plugin and the scheduling queue, which in v1.20 retries a
parked pod when a pod lands that satisfies one of its required pod affinity terms
(``scheduling_queue.go: getUnschedulablePodsWithMatchingAffinityTerm``, whatever the
profile), as upstream's queue and plugin share ``pkg/scheduler/util``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ruleset.api.pod import Pod, PodAffinityTerm
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


def satisfies_required_affinity(pod: Pod, placed: Pod) -> bool:
    """Whether ``placed`` matches one of ``pod``'s required pod affinity terms (a term whose
    selector does not parse is skipped, as v1.20's queue logs it and goes on)."""
    affinity = pod.affinity.pod_affinity
    if affinity is None or not affinity.required:
        return False
    for term in affinity.required:
        try:
            if affinity_term(term, pod.namespace).matches(placed):
                return True
        except SelectorError:
            continue
    return False
