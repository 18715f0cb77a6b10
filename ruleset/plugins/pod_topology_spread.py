"""PodTopologySpread (PreFilter + AddPod/RemovePod, Filter, PreScore, Score, NormalizeScore), v1.20.

A pod's ``topologySpreadConstraints`` (or, when it has none, the plugin's default
constraints with ``DefaultSelector(pod)`` as selector — Services, ReplicationControllers,
ReplicaSets and StatefulSets selecting the pod — and none at all when that selector is
empty) spread matching pods of the pod's namespace (terminating pods excluded) over the
values of a node label.

Filter (``DoNotSchedule`` constraints). PreFilter counts, per topology pair (key, value),
the matching pods. A pair exists for the values of nodes that match the pod's
``nodeSelector``/required node affinity and carry every constraint's key; then the pods of
*every* node whose pair exists are counted (v1.20 counts pods on nodes the pod's affinity
excludes; v1.24 stopped; a node without the key reads as value "", Go's missing map
entry). Per key the two smallest counts are kept as "critical paths".
A node missing a key is UnschedulableAndUnresolvable ``node(s) didn't match pod topology
spread constraints (missing required label)``; otherwise, constraint by constraint,
``count(pair) + selfMatch - min(key) > maxSkew`` is Unschedulable ``node(s) didn't match pod
topology spread constraints``. The AddPod/RemovePod extensions (nominated pods,
preemption dry runs) update the counts and critical paths of a cloned state.

Score (``ScheduleAnyway`` constraints). Nodes missing a key are ignored (score 0). For the
others ``score = Σ cnt·log(size+2) + (maxSkew-1)`` in float64, truncated to int64, where
``cnt`` is the matching pods on the node itself for ``kubernetes.io/hostname`` and on the
whole pair otherwise (pods of nodes matching the pod's node affinity and carrying every
key), and ``size`` the number of values among the scored nodes (for hostname: the scored,
not ignored, nodes). ``log`` is Go's ``math.Log``, ported, which differs from the C
library's in the last bit for about 1% of arguments. NormalizeScore: ignored nodes 0;
``max == 0`` gives 100; otherwise ``100·(max+min-s)/max`` (int64 division), min and max
over the non-ignored nodes.

Args (PodTopologySpreadArgs, v1beta1): ``defaultConstraints`` and ``defaultingType``. An
empty ``defaultingType`` becomes ``List`` when constraints are given, else ``System``
(the DefaultPodTopologySpread gate is on in v1.20); ``System`` uses hostname maxSkew 3 and
zone maxSkew 5, both ``ScheduleAnyway``.

Deterministic choices where Go iterates a map: critical paths are built by visiting each
key's pairs in ascending order of the value, so ties keep the alphabetically first value
(upstream's tests compare paths modulo that order). v1.20's ``updateWithPod`` dereferences
a nil counter (a scheduler panic, kubernetes#110726) when a pod is added or removed on a
node whose pair was never created, i.e. a node the pod's node affinity excludes with a
value no eligible node has; here that update is skipped, which is what upstream does since
the fix (kubernetes#110853).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ruleset.api.pod import Pod, TopologySpreadConstraint
from ruleset.errors import format_path
from ruleset.framework.args import ArgError, arg_field
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import MAX_NODE_SCORE, Plugin
from ruleset.framework.results import FilterResult
from ruleset.framework.status import Code, Status
from ruleset.gofmt import go_quote
from ruleset.hookspecs import hookimpl
from ruleset.plugins.normalize import go_div
from ruleset.plugins.pod_topology_spread_helpers import node_affinity_mask, topology_normalizing_weight
from ruleset.plugins.spread_helpers import default_selector, matching_pods_per_node
from ruleset.selector import Selector, SelectorError, from_label_selector, qualified_name_errors
from ruleset.snapshot import NodeSet, Snapshot

NAME = "PodTopologySpread"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"

MAX_INT32 = 2**31 - 1
#: NormalizeScore's marker for ignored nodes (``invalidScore``).
INVALID_SCORE = -1


# ---------------------------------------------------------------------------------------------
# Args
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DefaultConstraint:
    """One ``defaultConstraints`` entry (a ``v1.TopologySpreadConstraint``).

    Omitted fields read as Go's zero values, which validation then rejects; a
    ``labelSelector`` is kept only to be rejected (defaults take the pod's DefaultSelector).
    """

    max_skew: int = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: dict[str, Any] | None = None


def _parse_constraints(raw: list[dict[str, Any]]) -> tuple[DefaultConstraint, ...]:
    return tuple(DefaultConstraint(max_skew=int(c.get("maxSkew", 0)),
                                   topology_key=str(c.get("topologyKey", "")),
                                   when_unsatisfiable=str(c.get("whenUnsatisfiable", "")),
                                   label_selector=c.get("labelSelector")) for c in raw)


def _dump_constraints(constraints: tuple[DefaultConstraint, ...]) -> list[dict[str, Any]]:
    out = []
    for c in constraints:
        entry: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                                 "whenUnsatisfiable": c.when_unsatisfiable}
        if c.label_selector is not None:
            entry["labelSelector"] = c.label_selector
        out.append(entry)
    return out


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    """``PodTopologySpreadArgs`` of kubescheduler.config.k8s.io/v1beta1, defaulted as v1.20 does."""

    default_constraints: tuple[DefaultConstraint, ...] = arg_field(
        "defaultConstraints", (), parse=_parse_constraints, dump=_dump_constraints)
    defaulting_type: str = arg_field("defaultingType", "")

    def __post_init__(self) -> None:
        # SetDefaults_PodTopologySpreadArgs with the DefaultPodTopologySpread gate on (beta in v1.20).
        if self.defaulting_type == "":
            object.__setattr__(self, "defaulting_type",
                               LIST_DEFAULTING if self.default_constraints else SYSTEM_DEFAULTING)


#: ``systemDefaultConstraints`` of v1.20's plugin.go.
SYSTEM_DEFAULT_CONSTRAINTS = (
    DefaultConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY),
    DefaultConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY),
)

_CONSTRAINT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "maxSkew": {"type": "integer", "description": "How uneven the matching pods may be spread (> 0)."},
        "topologyKey": {"type": "string", "description": "Node label whose values are the topology domains."},
        "whenUnsatisfiable": {"type": "string",
                              "description": "DoNotSchedule (Filter) or ScheduleAnyway (Score)."},
        "labelSelector": {"type": "object",
                          "description": "Not allowed: default constraints select the pod's own workload."},
    },
}


def _field_error(path: tuple[str | int, ...], kind: str, value: str | int | None, detail: str) -> ArgError:
    """A ``field.Error`` as ``Error()`` prints it: ``<path>: <type>[: <value>][: <detail>]``.

    Strings (and Go named string types, printed with ``%#v``) are quoted; integers are not;
    Required and Forbidden print no value.
    """
    text = f"{format_path(path)}: {kind}"
    if value is not None:
        text += f": {go_quote(value) if isinstance(value, str) else value}"
    if detail:
        text += f": {detail}"
    return ArgError(path, text)


def validate_pod_topology_spread_args(args: PodTopologySpreadArgs) -> list[ArgError]:
    """``ValidatePodTopologySpreadArgs`` of v1.20: every error, in upstream's order, duplicates dropped.

    Upstream returns them as one aggregate (``[e1, e2]`` for several); each is a separate
    problem here, with the same text.
    """
    errors: list[ArgError] = []
    kind = args.defaulting_type
    if kind not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        choices = f"{go_quote(SYSTEM_DEFAULTING)}, {go_quote(LIST_DEFAULTING)}"
        errors.append(_field_error(("defaultingType",), "Invalid value", kind,
                                   f"must be one of {{{choices}}}"))
    elif kind == SYSTEM_DEFAULTING and args.default_constraints:
        errors.append(_field_error(("defaultingType",), "Invalid value", kind,
                                   "when .defaultConstraints are not empty"))
    constraints = args.default_constraints
    for i, c in enumerate(constraints):
        if c.max_skew <= 0:
            errors.append(_field_error(("defaultConstraints", i, "maxSkew"), "Invalid value", c.max_skew,
                                       "must be greater than zero"))
        key_path = ("defaultConstraints", i, "topologyKey")
        if not c.topology_key:
            errors.append(_field_error(key_path, "Required value", None, "can not be empty"))
        else:
            errors.extend(_field_error(key_path, "Invalid value", c.topology_key, msg)
                          for msg in qualified_name_errors(c.topology_key))
        action_path = ("defaultConstraints", i, "whenUnsatisfiable")
        if not c.when_unsatisfiable:
            errors.append(_field_error(action_path, "Required value", None, "can not be empty"))
        elif c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            supported = f"{go_quote(DO_NOT_SCHEDULE)}, {go_quote(SCHEDULE_ANYWAY)}"
            errors.append(_field_error(action_path, "Unsupported value", c.when_unsatisfiable,
                                       f"supported values: {supported}"))
        if c.label_selector is not None:
            errors.append(_field_error(("defaultConstraints", i, "labelSelector"), "Forbidden", None,
                                       "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if (other.topology_key, other.when_unsatisfiable) == (c.topology_key, c.when_unsatisfiable):
                errors.append(_field_error(("defaultConstraints", i), "Duplicate value",
                                           f"{{{c.topology_key}, {c.when_unsatisfiable}}}", ""))
                break
    seen: set[str] = set()
    unique = []
    for error in errors:  # field.ErrorList.ToAggregate drops repeated messages
        if error.message not in seen:
            seen.add(error.message)
            unique.append(error)
    return unique


# ---------------------------------------------------------------------------------------------
# Constraints
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """``topologySpreadConstraint``: a constraint with its selector parsed."""

    max_skew: int
    topology_key: str
    selector: Selector


def filter_constraints(constraints: Sequence[TopologySpreadConstraint],
                       action: str) -> list[SpreadConstraint]:
    """``filterTopologySpreadConstraints``: the pod's constraints with ``action``, selectors parsed.

    A nil selector parses to NOTHING (``LabelSelectorAsSelector``); an invalid one raises
    SelectorError.
    """
    return [SpreadConstraint(c.max_skew, c.topology_key, from_label_selector(c.label_selector))
            for c in constraints if c.when_unsatisfiable == action]


class _CountCache:
    """Per-node matching counts, computed once per distinct selector within one hook call."""

    def __init__(self, snapshot: Snapshot, namespace: str):
        self.snapshot = snapshot
        self.namespace = namespace
        self._counts: dict[Selector, np.ndarray] = {}

    def __call__(self, selector: Selector) -> np.ndarray:
        counts = self._counts.get(selector)
        if counts is None:
            counts = self._counts[selector] = matching_pods_per_node(self.snapshot, selector, self.namespace)
        return counts


def _has_all_keys(snapshot: Snapshot, constraints: Sequence[SpreadConstraint],
                  rows: np.ndarray | None = None) -> np.ndarray:
    """``nodeLabelsMatchSpreadConstraints`` for the given nodes (all when ``rows`` is None)."""
    n = snapshot.num_nodes if rows is None else len(rows)
    ok = np.ones(n, dtype=bool)
    for c in constraints:
        column = snapshot.node_labels.column(c.topology_key)
        if column is None:
            return np.zeros(n, dtype=bool)
        ok &= (column if rows is None else column[rows]) >= 0
    return ok


# ---------------------------------------------------------------------------------------------
# PreFilter state
# ---------------------------------------------------------------------------------------------

CriticalPaths = list[tuple[str, int]]


def new_critical_paths() -> CriticalPaths:
    """``newCriticalPaths``: two empty slots (value "", count MaxInt32)."""
    return [("", MAX_INT32), ("", MAX_INT32)]


def update_critical_paths(paths: CriticalPaths, value: str, num: int) -> None:
    """``criticalPaths.update``: keep ``paths[0]`` the minimum; ``paths[1]`` is only >= it.

    As upstream this is exact when building from scratch but may lose the true minimum
    after several updates (the "[2]criticalPath" caveat); it is reproduced, not fixed.
    Note that a value "" matches an empty slot, as in Go.
    """
    if value == paths[0][0]:
        i = 0
    elif value == paths[1][0]:
        i = 1
    else:
        i = -1
    if i >= 0:
        paths[i] = (paths[i][0], num)
        if paths[0][1] > paths[1][1]:
            paths[0], paths[1] = paths[1], paths[0]
    elif num < paths[0][1]:
        paths[1] = paths[0]
        paths[0] = (value, num)
    elif num < paths[1][1]:
        paths[1] = (value, num)


def build_critical_paths(values: list[str], exists: np.ndarray, counts: np.ndarray,
                         rank: np.ndarray) -> CriticalPaths:
    """Critical paths of a key from scratch, vectorised.

    Upstream calls :func:`update_critical_paths` for every pair, in Go's random map order.
    Here the pairs are taken in ascending order of their value (``rank``), and that loop
    then yields exactly the two smallest counts, ties going to the smaller value (an
    initial value "" only ever fills the first slot, as it would first in that order); so
    this computes that result directly with numpy instead of a Python loop over the
    pairs.
    """
    paths = new_critical_paths()
    codes = np.flatnonzero(exists)
    if not len(codes):
        return paths
    order = counts[codes] * (len(rank) + 1) + rank[codes]  # count first, then value order
    best = int(np.argmin(order))
    paths[0] = (values[codes[best]], int(counts[codes[best]]))
    if len(codes) > 1:
        order[best] = np.iinfo(np.int64).max
        second = int(np.argmin(order))
        paths[1] = (values[codes[second]], int(counts[codes[second]]))
    return paths


def value_rank(snapshot: Snapshot, key: str) -> np.ndarray:
    """Per code of a node label ``key``: the position of its value in sorted order (cached;
    node labels do not change during a run)."""
    ranks: dict[str, np.ndarray] = snapshot.derive(f"{__name__}.value_rank", lambda _: {})
    rank = ranks.get(key)
    if rank is None:
        values = snapshot.node_labels.vocabulary(key)
        rank = np.empty(len(values), dtype=np.int64)
        rank[sorted(range(len(values)), key=values.__getitem__)] = np.arange(len(values))
        ranks[key] = rank
    return rank


@dataclass
class TopologyCounts:
    """One topology key's part of ``TpPairToMatchNum`` and its ``TpKeyToCriticalPaths`` entry.

    ``counts`` and ``exists`` are indexed by the code of the value in the snapshot's node
    label vocabulary of the key (node labels never change during a run).
    """

    values: list[str]
    exists: np.ndarray
    counts: np.ndarray
    paths: CriticalPaths

    def clone(self) -> TopologyCounts:
        # ``exists`` (which pairs there are) never changes after PreFilter; it is shared.
        return TopologyCounts(self.values, self.exists, self.counts.copy(), list(self.paths))


@dataclass
class PreFilterState:
    """``preFilterState``: the DoNotSchedule constraints and the counts per topology pair."""

    constraints: tuple[SpreadConstraint, ...] = ()
    keys: dict[str, TopologyCounts] = field(default_factory=dict)

    def clone(self) -> PreFilterState:
        return PreFilterState(self.constraints, {k: v.clone() for k, v in self.keys.items()})

    def pair_counts(self) -> dict[tuple[str, str], int]:
        """``TpPairToMatchNum`` as a mapping, for reports and tests."""
        return {(key, t.values[code]): int(t.counts[code])
                for key, t in self.keys.items() for code in np.flatnonzero(t.exists)}

    def critical_paths(self) -> dict[str, tuple[tuple[str, int], tuple[str, int]]]:
        """``TpKeyToCriticalPaths`` as a mapping, for reports and tests."""
        return {key: (t.paths[0], t.paths[1]) for key, t in self.keys.items()}

    def update_with_pod(self, updated: Pod, preemptor: Pod, snapshot: Snapshot, node: int,
                        delta: int) -> None:
        """``preFilterState.updateWithPod`` (v1.20): no node-affinity check, terminating pods count."""
        if not self.constraints or updated.namespace != preemptor.namespace:
            return
        labels = snapshot.nodes[node].labels
        if any(c.topology_key not in labels for c in self.constraints):
            return
        for c in self.constraints:
            if not c.selector.matches(updated.labels):
                continue
            key = c.topology_key
            counts = self.keys[key]
            value = labels[key]
            code = snapshot.node_labels.code_of(key, value)
            if code < 0 or code >= len(counts.exists) or not counts.exists[code]:
                continue  # upstream panics on the nil counter here; see the module docstring
            counts.counts[code] += delta
            update_critical_paths(counts.paths, value, int(counts.counts[code]))


# ---------------------------------------------------------------------------------------------
# PreScore state
# ---------------------------------------------------------------------------------------------

@dataclass
class PreScoreState:
    """``preScoreState``: the ScheduleAnyway constraints, ignored nodes and pair counts.

    ``ignored`` is indexed by snapshot node (``IgnoredNodes``); ``pair_counts[key]`` by the
    code of a value of ``key`` (``TopologyPairToPodCounts``, zero where no pair exists);
    ``node_counts[i]`` is constraint i's matching pods per node, read for hostname.
    """

    constraints: tuple[SpreadConstraint, ...] = ()
    ignored: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    pair_exists: dict[str, np.ndarray] = field(default_factory=dict)
    pair_counts: dict[str, np.ndarray] = field(default_factory=dict)
    node_counts: list[np.ndarray] = field(default_factory=list)
    weights: tuple[float, ...] = ()
    values: dict[str, list[str]] = field(default_factory=dict)

    def topology_pair_counts(self) -> dict[tuple[str, str], int]:
        """``TopologyPairToPodCounts`` as a mapping, for reports and tests."""
        return {(key, self.values[key][code]): int(self.pair_counts[key][code])
                for key, exists in self.pair_exists.items() for code in np.flatnonzero(exists)}


# ---------------------------------------------------------------------------------------------
# The plugin
# ---------------------------------------------------------------------------------------------

class PodTopologySpread(Plugin):
    name = NAME
    Args = PodTopologySpreadArgs
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "defaultConstraints": {
                "type": "array", "items": _CONSTRAINT_SCHEMA, "default": [],
                "description": "Constraints for pods that declare none (defaultingType List)."},
            "defaultingType": {
                "type": "string", "default": "",
                "description": 'System (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) or List '
                               '(defaultConstraints); empty means List when defaultConstraints are given, '
                               'else System.'},
        },
    }

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        chosen: PodTopologySpreadArgs = self.args
        system = chosen.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: tuple[DefaultConstraint, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if system else chosen.default_constraints)

    @classmethod
    def validate_args(cls, args: PodTopologySpreadArgs) -> list[ArgError]:
        return validate_pod_topology_spread_args(args)

    # -------------------------------------------------------------- constraints
    def constraints_for(self, pod: Pod, snapshot: Snapshot, action: str) -> list[SpreadConstraint]:
        """The pod's constraints with ``action``, or ``buildDefaultConstraints`` when it has none.

        Raises SelectorError for an invalid selector of the pod's own constraints.
        """
        if pod.topology_spread_constraints:
            return filter_constraints(pod.topology_spread_constraints, action)
        # buildDefaultConstraints: the defaults carry no selector (validation forbids one),
        # so parsing theirs cannot fail; DefaultSelector(pod) replaces it.
        defaults = [c for c in self.default_constraints if c.when_unsatisfiable == action]
        if not defaults:
            return []
        selector = default_selector(pod, snapshot)
        if selector.empty():
            return []
        return [SpreadConstraint(c.max_skew, c.topology_key, selector) for c in defaults]

    # ------------------------------------------------------------------- filter
    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        try:
            constraints = self.constraints_for(pod, snapshot, DO_NOT_SCHEDULE)
        except SelectorError as exc:
            return Status.error(f"obtaining pod's hard topology spread constraints: {exc}")
        state.write(PRE_FILTER_STATE_KEY, self.pre_filter_state(pod, snapshot, constraints))
        return None

    @staticmethod
    def pre_filter_state(pod: Pod, snapshot: Snapshot, constraints: list[SpreadConstraint]) -> PreFilterState:
        """``calPreFilterState`` once the constraints are known."""
        if not constraints:
            return PreFilterState()
        eligible = _has_all_keys(snapshot, constraints)
        affinity = node_affinity_mask(pod, snapshot)
        if affinity is not None:
            eligible &= affinity
        per_node = _CountCache(snapshot, pod.namespace)
        keys: dict[str, TopologyCounts] = {}
        for c in constraints:
            key = c.topology_key
            column = snapshot.node_labels.column(key)
            values = snapshot.node_labels.vocabulary(key)
            counts = keys.get(key)
            if counts is None:
                exists = np.zeros(len(values), dtype=bool)
                if column is not None:
                    exists[column[eligible]] = True
                counts = keys[key] = TopologyCounts(values, exists, np.zeros(len(values), dtype=np.int64),
                                                    new_critical_paths())
            if column is None or not counts.exists.any():
                continue
            # Every node is counted into its pair when that pair exists; a node without
            # the key reads as value "" (Go's missing map entry), which exists only if an
            # eligible node carries the key with an empty value.
            codes = np.where(column >= 0, column, snapshot.node_labels.code_of(key, ""))
            counted = codes >= 0
            counted[counted] = counts.exists[codes[counted]]
            matches = per_node(c.selector)
            counts.counts += np.bincount(codes[counted], weights=matches[counted],
                                         minlength=len(values)).astype(np.int64)
        for key, counts in keys.items():
            counts.paths = build_critical_paths(counts.values, counts.exists, counts.counts,
                                                value_rank(snapshot, key))
        return PreFilterState(tuple(constraints), keys)

    @hookimpl
    def ruleset_pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node: int,
                                   snapshot: Snapshot) -> Status | None:
        return self._update(state, pod, pod_to_add, node, snapshot, 1)

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node: int,
                                      snapshot: Snapshot) -> Status | None:
        return self._update(state, pod, pod_to_remove, node, snapshot, -1)

    @staticmethod
    def _update(state: CycleState, pod: Pod, other: Pod, node: int, snapshot: Snapshot,
                delta: int) -> Status | None:
        current: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if current is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        current.update_with_pod(other, pod, snapshot, node, delta)
        return None

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        current: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        n = len(nodes)
        if current is None:
            return FilterResult.error(n, f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not current.constraints:
            return None
        codes = np.zeros(n, dtype=np.int8)
        reason = np.zeros(n, dtype=np.int32)
        open_ = np.ones(n, dtype=bool)  # nodes no earlier constraint has rejected
        for c in current.constraints:
            column = nodes.label_column(c.topology_key)
            missing = open_ & (column < 0)
            codes[missing] = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            reason[missing] = 1
            open_ &= ~missing
            if not open_.any():
                break
            counts = current.keys[c.topology_key]
            self_match = 1 if c.selector.matches(pod.labels) else 0
            skew = counts.counts[np.where(open_, column, 0)] + self_match - counts.paths[0][1]
            over = open_ & (skew > c.max_skew)
            codes[over] = Code.UNSCHEDULABLE
            reason[over] = 2
            open_ &= ~over
        if open_.all():
            return None
        reasons = [(), (ERR_REASON_NODE_LABEL_NOT_MATCH,), (ERR_REASON_CONSTRAINTS_NOT_MATCH,)]
        return FilterResult(codes, reasons, reason)

    # -------------------------------------------------------------------- score
    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status | None:
        snapshot = nodes.snapshot
        if len(nodes) == 0 or snapshot.num_nodes == 0:
            return None  # nothing to score; upstream writes no state either
        try:
            constraints = self.constraints_for(pod, snapshot, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.error("calculating preScoreState: obtaining pod's soft topology spread "
                                f"constraints: {exc}")
        state.write(PRE_SCORE_STATE_KEY, self.pre_score_state(pod, nodes, constraints))
        return None

    @staticmethod
    def pre_score_state(pod: Pod, nodes: NodeSet, constraints: list[SpreadConstraint]) -> PreScoreState:
        """``initPreScoreState`` and PreScore's counting over all nodes."""
        snapshot = nodes.snapshot
        ignored = np.zeros(snapshot.num_nodes, dtype=bool)
        if not constraints:
            return PreScoreState(ignored=ignored)
        scored = _has_all_keys(snapshot, constraints, nodes.indices)
        ignored[nodes.indices[~scored]] = True
        candidates = nodes.indices[scored]
        eligible = _has_all_keys(snapshot, constraints)
        affinity = node_affinity_mask(pod, snapshot)
        if affinity is not None:
            eligible &= affinity
        per_node = _CountCache(snapshot, pod.namespace)
        state = PreScoreState(tuple(constraints), ignored)
        weights = []
        for c in constraints:
            key = c.topology_key
            state.node_counts.append(per_node(c.selector))
            if key == LABEL_HOSTNAME:
                weights.append(topology_normalizing_weight(len(candidates)))
                continue
            column = snapshot.node_labels.column(key)
            size = 0
            exists = state.pair_exists.get(key)
            if exists is None:
                # Pairs come from the scored nodes; only the first constraint of a key
                # creates them, so only it counts them into its topology size.
                values = state.values[key] = snapshot.node_labels.vocabulary(key)
                exists = state.pair_exists[key] = np.zeros(len(values), dtype=bool)
                if column is not None:
                    exists[column[candidates]] = True
                size = int(exists.sum())
                state.pair_counts[key] = np.zeros(len(values), dtype=np.int64)
            weights.append(topology_normalizing_weight(size))
            if column is None or not exists.any():
                continue
            # Every constraint adds its matching pods into the pairs of its key, on the nodes
            # that match the pod's node affinity and carry every key.
            codes = column[eligible]
            matches = state.node_counts[-1][eligible]
            keep = exists[codes]
            state.pair_counts[key] += np.bincount(codes[keep], weights=matches[keep],
                                                  minlength=len(exists)).astype(np.int64)
        state.weights = tuple(weights)
        return state

    @hookimpl
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        current: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if current is None:
            raise LookupError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        score = np.zeros(len(nodes), dtype=np.float64)
        if not current.constraints:
            return score.astype(np.int64)
        ignored = current.ignored[nodes.indices]
        for i, c in enumerate(current.constraints):
            if c.topology_key == LABEL_HOSTNAME:
                count = current.node_counts[i][nodes.indices]
            else:
                column = nodes.label_column(c.topology_key)
                count = np.zeros(len(nodes), dtype=np.int64)
                labelled = column >= 0  # every node that is not ignored
                count[labelled] = current.pair_counts[c.topology_key][column[labelled]]
            # scoreForCount, added in Go's order: (cnt*weight + (maxSkew-1)), then into the sum.
            score = score + (count.astype(np.float64) * current.weights[i] + float(c.max_skew - 1))
        return np.where(ignored, 0, np.trunc(score)).astype(np.int64)

    @hookimpl
    def ruleset_normalize_score(self, state: CycleState, nodes: NodeSet, scores: np.ndarray) -> np.ndarray:
        current: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if current is None:
            raise LookupError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        scores = np.array(scores, dtype=np.int64)
        ignored = current.ignored[nodes.indices] if len(current.ignored) else np.zeros(len(nodes), dtype=bool)
        scores[ignored] = INVALID_SCORE
        valid = scores[~ignored]
        # A node that is not ignored but scored -1 (maxSkew 0, no pods) still counts in
        # min/max and then reads as "invalid", exactly as upstream's sentinel does.
        min_score = int(valid.min()) if len(valid) else 2**63 - 1
        max_score = max(0, int(valid.max())) if len(valid) else 0
        if max_score == 0:
            out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
        else:
            out = go_div(MAX_NODE_SCORE * (max_score + min_score - scores), max_score)
        out[scores == INVALID_SCORE] = 0
        return out
