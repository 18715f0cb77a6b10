"""TaintToleration (Filter, PreScore, Score): keep pods off nodes whose taints they do not tolerate.

Filter: of the node's taints with effect NoSchedule or NoExecute, the first one (in node
order) that no toleration of the pod tolerates rejects the node with
UnschedulableAndUnresolvable ``node(s) had taint {<key>: <value>}, that the pod didn't
tolerate`` (v1.20 text; an empty value prints as ``{key: }``). The text is the target
release's: ``node(s) had untolerated taint {<key>: <value>}`` from 1.24 (upstream PR
#109119), ``node(s) had untolerated taint(s)`` from 1.35 (PR #134740: taint keys and
values may be sensitive, so they left the pod's status; also cherry-picked into 1.34
patch releases, which ruleset does not model separately).

PreScore keeps the pod's tolerations with effect "" or PreferNoSchedule. Score counts the
node's PreferNoSchedule taints that none of those tolerate; NormalizeScore is
``DefaultNormalizeScore(100, reverse=true)``, so fewer intolerable taints score higher.

``ToleratesTaint``: a toleration's non-empty effect and key must equal the taint's;
operator "" or "Equal" compares values, "Exists" matches any value, anything else never
matches.

Every distinct taint of the snapshot is checked against the pod's tolerations once per
cycle; per-node results are then gathered from a padded node x taint matrix built once
per snapshot (nodes and their taints never change during a run). Filter looks only at
the nodes that have a NoSchedule or NoExecute taint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ruleset import (
    MAX_NODE_SCORE,
    OTHER_PODS_IGNORED,
    Code,
    CycleState,
    FilterResult,
    Handle,
    NodeSet,
    Plugin,
    Snapshot,
    hookimpl,
    switch,
)
from ruleset.api.pod import Pod, Toleration
from ruleset.plugins.helper.normalize import default_normalize_score

NAME = "TaintToleration"
PRE_SCORE_STATE_KEY = "PreScore" + NAME

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
PREFER_NO_SCHEDULE = "PreferNoSchedule"


_REFERENCE = "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go"
#: Filter's reason names the taint more compactly (PR #109119).
REASON_UNTOLERATED = switch(
    "TaintToleration.reason-untolerated-taint", "1.24",
    "Filter reason \"node(s) had untolerated taint {key: value}\" "
    "(was \"node(s) had taint {key: value}, that the pod didn't tolerate\")", _REFERENCE)
#: Filter's reason no longer names the taint (PR #134740; also in 1.34 patch releases).
REASON_GENERIC = switch(
    "TaintToleration.reason-generic", "1.35",
    "Filter reason \"node(s) had untolerated taint(s)\", without the taint's key and value (patch "
    "release 1.34.2 has it too: kubernetes#135023)", _REFERENCE)

#: The 1.35 reason: one text whatever the taint.
ERR_REASON_GENERIC = "node(s) had untolerated taint(s)"


def err_reason_untolerated(key: str, value: str) -> str:
    """The v1.20 Filter reason, ``fmt.Sprintf("node(s) had taint {%s: %s}, ...", key, value)``."""
    return f"node(s) had taint {{{key}: {value}}}, that the pod didn't tolerate"


def err_reason_untolerated_v124(key: str, value: str) -> str:
    """The 1.24-1.34 Filter reason, ``fmt.Sprintf("node(s) had untolerated taint {%s: %s}", ...)``."""
    return f"node(s) had untolerated taint {{{key}: {value}}}"


def _err_reason_generic(key: str, value: str) -> str:
    return ERR_REASON_GENERIC


class _Codes:
    """String -> small integer, so taint fields compare as numpy integer columns."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def code(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    def lookup(self, text: str) -> int:
        return self.index.get(text, -1)


@dataclass
class _TaintTable:
    """The snapshot's distinct taints as integer columns, and each node's taints as ids."""

    keys: list[str]
    values: list[str]
    key_code: np.ndarray
    value_code: np.ndarray
    effect_code: np.ndarray
    key_codes: _Codes
    value_codes: _Codes
    effect_codes: _Codes
    #: node x position -> taint id (-1 = padding) of the NoSchedule/NoExecute taints, node order.
    hard: np.ndarray
    #: node x position -> taint id (-1 = padding) of the PreferNoSchedule taints.
    soft: np.ndarray
    #: Per node: has it a NoSchedule or NoExecute taint?
    tainted: np.ndarray

    def tolerated(self, tolerations: Sequence[Toleration]) -> np.ndarray:
        """Per distinct taint: does any of ``tolerations`` tolerate it (``TolerationsTolerateTaint``)?"""
        out = np.zeros(len(self.keys), dtype=bool)
        for t in tolerations:
            match = np.ones(len(self.keys), dtype=bool)
            if t.effect:
                match &= self.effect_code == self.effect_codes.lookup(t.effect)
            if t.key:
                match &= self.key_code == self.key_codes.lookup(t.key)
            if t.operator in ("", "Equal"):
                match &= self.value_code == self.value_codes.lookup(t.value)
            elif t.operator != "Exists":
                continue
            out |= match
        return out


def _padded(rows: list[list[int]]) -> np.ndarray:
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def _build_table(snapshot: Snapshot) -> _TaintTable:
    ids: dict[tuple[str, str, str], int] = {}
    keys: list[str] = []
    values: list[str] = []
    key_codes, value_codes, effect_codes = _Codes(), _Codes(), _Codes()
    columns: list[tuple[int, int, int]] = []
    hard: list[list[int]] = []
    soft: list[list[int]] = []
    for node in snapshot.nodes:
        node_hard: list[int] = []
        node_soft: list[int] = []
        for taint in node.taints:
            ident = (taint.key, taint.value, taint.effect)
            tid = ids.get(ident)
            if tid is None:
                tid = ids[ident] = len(keys)
                keys.append(taint.key)
                values.append(taint.value)
                columns.append((key_codes.code(taint.key), value_codes.code(taint.value),
                                effect_codes.code(taint.effect)))
            if taint.effect in (NO_SCHEDULE, NO_EXECUTE):
                node_hard.append(tid)
            elif taint.effect == PREFER_NO_SCHEDULE:
                node_soft.append(tid)
        hard.append(node_hard)
        soft.append(node_soft)
    cols = np.array(columns, dtype=np.int64).reshape(-1, 3)
    tainted = np.array([bool(row) for row in hard], dtype=bool)
    return _TaintTable(keys, values, cols[:, 0], cols[:, 1], cols[:, 2], key_codes, value_codes, effect_codes,
                       _padded(hard), _padded(soft), tainted)


def taint_table(snapshot: Snapshot) -> _TaintTable:
    return snapshot.derive(__name__, _build_table)


def _untolerated(ids: np.ndarray, tolerated: np.ndarray) -> np.ndarray:
    """Mask over a node x position id matrix: a real taint that is not tolerated."""
    if ids.size == 0:
        return np.zeros(ids.shape, dtype=bool)
    return (ids >= 0) & ~tolerated[np.maximum(ids, 0)]


class TaintToleration(Plugin):
    """Keeps pods off nodes with NoSchedule/NoExecute taints they do not tolerate (Filter) and
    favours nodes with fewer untolerated PreferNoSchedule taints (PreScore, Score)."""

    name = NAME

    def __init__(self, args: object = None, handle: Handle | None = None):
        super().__init__(args, handle)
        target = self.handle.target
        self._reason: Callable[[str, str], str] = (
            _err_reason_generic if target.has(REASON_GENERIC)
            else err_reason_untolerated_v124 if target.has(REASON_UNTOLERATED)
            else err_reason_untolerated)

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        table = taint_table(nodes.snapshot)
        # Only nodes with a NoSchedule/NoExecute taint can fail: work on those alone.
        tainted = table.tainted[nodes.indices].nonzero()[0]
        if not len(tainted):
            return None
        ids = table.hard[nodes.indices[tainted]]
        bad = _untolerated(ids, table.tolerated(pod.tolerations))
        fails = bad.any(axis=1)
        if not fails.any():
            return None
        # argmax finds the first True: the first untolerated taint in node order.
        first = ids[np.arange(len(tainted)), bad.argmax(axis=1)][fails]
        # One reason per distinct culprit, in taint id order (np.unique's, at a fraction of
        # its cost: taint ids are small integers).
        seen = np.zeros(len(table.keys), dtype=bool)
        seen[first] = True
        culprits = np.flatnonzero(seen).tolist()
        reasons: list[tuple[str, ...]] = [()]
        reasons += [(self._reason(table.keys[t], table.values[t]),) for t in culprits]
        failing = tainted[fails]
        reason_index = np.zeros(len(nodes), dtype=np.int32)
        reason_index[failing] = seen.cumsum()[first]  # the k-th culprit (from 1) is reasons[k]
        codes = np.zeros(len(nodes), dtype=np.int8)
        codes[failing] = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return FilterResult(codes, reasons, reason_index)

    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> None:
        if len(nodes) == 0:
            return
        # An empty effect tolerates every effect, PreferNoSchedule included.
        state.write(PRE_SCORE_STATE_KEY,
                    tuple(t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE)))

    @hookimpl
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        if PRE_SCORE_STATE_KEY not in state:
            raise LookupError(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        tolerations: tuple[Toleration, ...] = state.read(PRE_SCORE_STATE_KEY)
        table = taint_table(nodes.snapshot)
        if table.soft.shape[1] == 0:  # no node has a PreferNoSchedule taint: nothing to count
            return np.zeros(len(nodes), dtype=np.int64)
        bad = _untolerated(table.soft[nodes.indices], table.tolerated(tolerations))
        return bad.sum(axis=1, dtype=np.int64)

    @hookimpl
    def ruleset_normalize_score(self, scores: np.ndarray) -> np.ndarray:
        if type(scores) is np.ndarray and scores.dtype == np.int64 and scores.ndim == 1 \
                and not np.count_nonzero(scores):
            # No node has a PreferNoSchedule taint the pod does not tolerate: reversed, all 100.
            return np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
        return default_normalize_score(MAX_NODE_SCORE, True, scores)
