"""What Filter and Score share (upstream's ``podtopologyspread/common.go``): the pod's constraints
with their selectors parsed, the defaults that stand in when it declares none, and which
nodes carry every constraint's topology key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ruleset import Snapshot
from ruleset.api.pod import Pod, TopologySpreadConstraint
from ruleset.plugins.helper.spread import default_selector, matching_pods_per_node

# Defined with the args (ruleset validate reads them without this module's numpy), re-exported.
from ruleset.plugins.podtopologyspread.args import (  # noqa: F401
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    SCHEDULE_ANYWAY,
)
from ruleset.selector import Selector, from_label_selector, from_set

if TYPE_CHECKING:
    from ruleset.plugins.podtopologyspread.args import DefaultConstraint

MAX_INT32 = 2**31 - 1
HONOR = "Honor"
IGNORE = "Ignore"


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """``topologySpreadConstraint``: a constraint with its selector parsed.

    ``min_domains`` and the node inclusion policies keep upstream's defaults (1, Honor,
    Ignore) unless the target reads the pod's fields (MinDomainsInPodTopologySpread,
    NodeInclusionPolicyInPodTopologySpread); with those defaults a constraint behaves as
    in v1.20.
    """

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE


def merge_match_label_keys(selector: Selector, keys: Sequence[str], pod_labels: dict[str, str]) -> Selector:
    """``mergeLabelSetWithSelector`` (MatchLabelKeysInPodTopologySpread): the pod's values for
    ``keys`` (keys it lacks are skipped) ANDed into ``selector``; NOTHING (a nil selector)
    stays NOTHING. Merging what the API server already merged (1.34's
    MatchLabelKeysInPodTopologySpreadSelectorMerge) repeats a requirement, which matches the same pods."""
    match_labels = {key: pod_labels[key] for key in keys if key in pod_labels}
    if not match_labels:
        return selector
    requirements, ok = selector.requirements()
    if not ok:
        return selector
    return from_set(match_labels).add(*requirements)


def filter_constraints(constraints: Sequence[TopologySpreadConstraint], action: str,
                       pod_labels: dict[str, str] | None = None, min_domains: bool = False,
                       inclusion_policies: bool = False) -> list[SpreadConstraint]:
    """``filterTopologySpreadConstraints``: the pod's constraints with ``action``, selectors parsed.

    A nil selector parses to NOTHING (``LabelSelectorAsSelector``); an invalid one raises
    SelectorError. With ``pod_labels`` (the MatchLabelKeysInPodTopologySpread behaviour), each
    constraint's ``matchLabelKeys`` are merged into its selector; ``min_domains`` and
    ``inclusion_policies`` read the fields of those gates (absent ones keep the defaults).
    Without labels to merge, the answer depends on the (frozen) constraints alone and is kept
    per distinct list: pods of one template parse theirs once.
    """
    if pod_labels is None or not any(getattr(c, "match_label_keys", ()) for c in constraints):
        return list(_filter_constraints_kept(tuple(constraints), action, min_domains, inclusion_policies))
    return _filter_constraints(constraints, action, pod_labels, min_domains, inclusion_policies)


@lru_cache(maxsize=1024)
def _filter_constraints_kept(constraints: tuple[TopologySpreadConstraint, ...], action: str,
                             min_domains: bool, inclusion_policies: bool) -> tuple[SpreadConstraint, ...]:
    return tuple(_filter_constraints(constraints, action, None, min_domains, inclusion_policies))


def _filter_constraints(constraints: Sequence[TopologySpreadConstraint], action: str,
                        pod_labels: dict[str, str] | None, min_domains: bool,
                        inclusion_policies: bool) -> list[SpreadConstraint]:
    out = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = from_label_selector(c.label_selector)
        keys: Sequence[str] = getattr(c, "match_label_keys", ())  # decoded from 1.25 on (api/pod.py)
        if pod_labels is not None and keys:
            selector = merge_match_label_keys(selector, keys, pod_labels)
        made = SpreadConstraint(c.max_skew, c.topology_key, selector)
        if min_domains and c.min_domains is not None:
            made = replace(made, min_domains=c.min_domains)
        if inclusion_policies:
            made = replace(made, node_affinity_policy=c.node_affinity_policy or HONOR,
                           node_taints_policy=c.node_taints_policy or IGNORE)
        out.append(made)
    return out


def pod_constraints(pod: Pod, snapshot: Snapshot, action: str, defaults: Sequence[DefaultConstraint],
                    match_label_keys: bool = False, min_domains: bool = False,
                    inclusion_policies: bool = False) -> list[SpreadConstraint]:
    """The pod's constraints with ``action``, or ``buildDefaultConstraints`` when it has none.

    Raises SelectorError for an invalid selector of the pod's own constraints.
    """
    if pod.topology_spread_constraints:
        return filter_constraints(pod.topology_spread_constraints, action,
                                  pod.labels if match_label_keys else None, min_domains, inclusion_policies)
    # buildDefaultConstraints: the defaults carry no selector (validation forbids one),
    # so parsing theirs cannot fail; DefaultSelector(pod) replaces it.
    chosen = [c for c in defaults if c.when_unsatisfiable == action]
    if not chosen:
        return []
    selector = _default_selector(pod, snapshot)
    if selector.empty():
        return []
    return [SpreadConstraint(c.max_skew, c.topology_key, selector) for c in chosen]


def _default_selector(pod: Pod, snapshot: Snapshot) -> Selector:
    """``DefaultSelector`` of the pod, kept per (namespace, labels): it reads nothing else, and
    the Services and controllers it reads do not change during a run (kept per Workloads)."""
    name = f"{__name__}.default_selector"
    kept: dict[tuple[str, frozenset[tuple[str, str]]], Selector]
    workloads, kept = snapshot.derive(name, lambda s: (s.workloads, {}))
    if workloads is not snapshot.workloads:  # replaced: start over
        kept = {}
        snapshot.derived[name] = (snapshot.workloads, kept)
    shape = (pod.namespace, frozenset(pod.labels.items()))
    selector: Selector | None = kept.get(shape)
    if selector is None:
        if len(kept) >= _MAX_DEFAULT_SELECTORS:
            kept.clear()
        selector = kept[shape] = default_selector(pod, snapshot)
    return selector


#: (namespace, labels) shapes whose default selector is kept per snapshot.
_MAX_DEFAULT_SELECTORS = 4096


class CountCache:
    """Per-node matching counts, computed once per distinct selector within one hook call."""

    def __init__(self, snapshot: Snapshot, namespace: str, empty_counts_nothing: bool = False):
        self.snapshot = snapshot
        self.namespace = namespace
        #: From 1.27, ``countPodsMatchSelector`` returns 0 for an empty selector (``{}``,
        #: which matches every pod): an upstream bug, reproduced.
        self.empty_counts_nothing = empty_counts_nothing
        self._counts: dict[Selector, np.ndarray] = {}

    def __call__(self, selector: Selector) -> np.ndarray:
        counts = self._counts.get(selector)
        if counts is None and self.empty_counts_nothing and selector.empty():
            counts = self._counts[selector] = np.zeros(self.snapshot.num_nodes, dtype=np.int64)
        if counts is None:
            counts = self._counts[selector] = matching_pods_per_node(self.snapshot, selector, self.namespace)
        return counts


def has_all_keys(snapshot: Snapshot, constraints: Sequence[SpreadConstraint],
                 rows: np.ndarray | None = None) -> np.ndarray:
    """``nodeLabelsMatchSpreadConstraints`` for the given nodes (all when ``rows`` is None).

    For every node the answer is kept per tuple of keys (node labels do not change during a
    run) and shared: read-only."""
    if rows is None:
        kept: dict[tuple[str, ...], np.ndarray] = snapshot.derive(f"{__name__}.has_all_keys", lambda _: {})
        keys = tuple(c.topology_key for c in constraints)
        found = kept.get(keys)
        if found is None:
            if len(kept) >= _MAX_DEFAULT_SELECTORS:
                kept.clear()
            found = kept[keys] = _has_all_keys(snapshot, constraints, None)
            found.flags.writeable = False
        return found
    return _has_all_keys(snapshot, constraints, rows)


def _has_all_keys(snapshot: Snapshot, constraints: Sequence[SpreadConstraint], rows: np.ndarray | None,
                  ) -> np.ndarray:
    n = snapshot.num_nodes if rows is None else len(rows)
    ok = np.ones(n, dtype=bool)
    for c in constraints:
        column = snapshot.node_labels.column(c.topology_key)
        if column is None:
            return np.zeros(n, dtype=bool)
        ok &= (column if rows is None else column[rows]) >= 0
    return ok

