"""Batch results: per-node filter outcomes and the PostFilter result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ruleset.framework.status import SUCCESS, Code, Status
from ruleset.kversion import Target, switch

if TYPE_CHECKING:
    from ruleset.api.pod import Pod

_TYPES_GO = "pkg/scheduler/framework/types.go (FitError.Error)"
FIT_ERROR_POST_FILTER = switch(
    "FitError.post-filter-message", "1.24",
    "the FitError message ends with the PostFilter plugins' message (DefaultPreemption's "
    "\"preemption: ...\"), after a space; an Error's message is left out",
    f"{_TYPES_GO}; pkg/scheduler/scheduler.go (scheduleOne), kubernetes#107775")
FIT_ERROR_SEPARATED = switch(
    "FitError.pre-filter-message", "1.26",
    "\"0/N nodes are available: <PreFilter message>. <histogram>. <PostFilter message>.\": a PreFilter "
    "rejection's message comes first, each part ends with \".\" (the histogram is still written too)",
    f"{_TYPES_GO}, SeparatorFormat, kubernetes#110894")
FIT_ERROR_POST_FILTER_ERROR = switch(
    "FitError.post-filter-error-message", "1.27",
    "a PostFilter Error's message is appended to the FitError message as well",
    "pkg/scheduler/schedule_one.go (schedulingCycle: PostFilterMsg = status.Message() whatever the code)")
FIT_ERROR_PRE_FILTER_ONCE = switch(
    "FitError.pre-filter-once", "1.28",
    "after a PreFilter rejection the histogram (that one reason on every node) is left out",
    f"{_TYPES_GO}, kubernetes#115651")
FIT_ERROR_POST_FILTER_NO_PERIOD = switch(
    "FitError.post-filter-no-period", "1.29",
    "the PostFilter message is appended without a \".\" of its own (it ends with one already: no \"..\")",
    f"{_TYPES_GO}, kubernetes#117588")

_NO_REASONS: tuple[str, ...] = ()
#: Each code as an int8 scalar: a bool mask times one of these is that code where the mask
#: is true and Success (0) elsewhere, the cheapest way to build a codes array.
_CODE_SCALARS = {code: np.int8(code) for code in Code}
#: Code by value: a dict lookup, where ``Code(value)`` goes through the enum machinery.
_CODES = {int(code): code for code in Code}
#: Success as a plain int: numpy compares an array with an IntEnum member several times slower.
_SUCCESS = int(Code.SUCCESS)


def _code(value: int) -> Code:
    code = _CODES.get(value)
    return Code(value) if code is None else code  # Code() raises the usual error for a bad value


@dataclass(slots=True)
class FilterResult:
    """One filter plugin's verdict on each candidate node.

    ``codes[i]`` is the :class:`Code` for the i-th candidate node; ``reasons[reason_index[i]]``
    are its reasons (ignored where the code is Success). Sharing a small reason table keeps
    the common case, one reason for every rejected node, a pair of numpy arrays.
    """

    codes: np.ndarray
    reasons: list[tuple[str, ...]]
    reason_index: np.ndarray

    def __post_init__(self) -> None:
        # Checked on construction, so that a malformed result (a 0-d mask from np.squeeze on one
        # node, a 2-d one) fails inside the plugin's own call, where the framework names the plugin.
        codes, index = self.codes, self.reason_index
        if not isinstance(codes, np.ndarray) or codes.ndim != 1:
            raise ValueError(f"a FilterResult holds one code per node (a 1-d array), got {_shape_of(codes)}")
        if not isinstance(index, np.ndarray) or index.shape != codes.shape:
            raise ValueError(f"a FilterResult's reason_index must match its {len(codes)} codes, "
                             f"got {_shape_of(index)}")

    def __len__(self) -> int:
        return len(self.codes)

    @classmethod
    def passing(cls, n: int) -> FilterResult:
        """Every node passes."""
        return cls(np.zeros(n, dtype=np.int8), [_NO_REASONS], np.zeros(n, dtype=np.int32))

    @classmethod
    def reject(cls, fail: np.ndarray, code: Code, *reasons: str) -> FilterResult:
        """Nodes where ``fail`` is true get ``code`` with ``reasons``; the rest pass."""
        fail = np.asarray(fail, dtype=bool)
        if fail.ndim != 1:
            raise ValueError(f"a FilterResult holds one code per node (a 1-d array), got {_shape_of(fail)}")
        scalar = _CODE_SCALARS.get(code)
        if scalar is None or isinstance(code, bool):
            raise ValueError(f"{code!r:.80} is not a status Code")
        return cls(fail * scalar, [_NO_REASONS, reasons], fail.astype(np.int32))

    @classmethod
    def error(cls, n: int, message: str) -> FilterResult:
        """Every node gets an Error with ``message`` (e.g. PreFilter's state is missing)."""
        return cls.reject(np.ones(n, dtype=bool), Code.ERROR, message)

    @classmethod
    def from_statuses(cls, statuses: Sequence[Status | None]) -> FilterResult:
        """Build from one Status (or None) per node: the per-node convenience path."""
        n = len(statuses)
        codes = np.zeros(n, dtype=np.int8)
        index = np.zeros(n, dtype=np.int32)
        table: list[tuple[str, ...]] = [_NO_REASONS]
        seen: dict[tuple[str, ...], int] = {_NO_REASONS: 0}
        for i, status in enumerate(statuses):
            if status is None:
                continue
            if not isinstance(status, Status):
                raise TypeError(f"expected a Status or None for node {i}, got {status!r:.80}")
            if status.code == Code.SUCCESS:
                continue
            if status.code not in _CODES or isinstance(status.code, bool):
                raise ValueError(f"{status.code!r:.80} is not a status Code (node {i})")
            codes[i] = status.code
            slot = seen.get(status.reasons)
            if slot is None:
                slot = seen[status.reasons] = len(table)
                table.append(status.reasons)
            index[i] = slot
        return cls(codes, table, index)

    def status(self, i: int) -> Status:
        code = _code(int(self.codes[i]))
        return SUCCESS if code == Code.SUCCESS else Status(code, self.reasons[int(self.reason_index[i])])


@dataclass(frozen=True)
class PreFilterResult:
    """What a PreFilter plugin may return instead of a Status: Success, and only the nodes named
    are worth filtering (upstream's ``PreFilterResult``, read by kube-scheduler from 1.24).

    The framework intersects the results of every plugin; an empty intersection rejects the pod
    (``node(s) didn't satisfy plugin X``). The cycle then filters those of the named nodes the
    snapshot holds, as :mod:`ruleset.scheduler.cycle` describes, release by release. Before
    1.24 a result is read as plain Success."""

    #: The node names (an empty set: no node).
    node_names: frozenset[str]

    def __post_init__(self) -> None:
        if not isinstance(self.node_names, frozenset) or not all(isinstance(n, str) for n in self.node_names):
            raise TypeError(f"PreFilterResult.node_names must be a frozenset of node names, "
                            f"got {self.node_names!r:.80}")


def _shape_of(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return f"a {type(value).__name__}"


class NodeStatuses:
    """Every snapshot node's filter status in one cycle, with the plugin that decided it."""

    def __init__(self, num_nodes: int):
        self.codes = np.zeros(num_nodes, dtype=np.int8)
        self.plugin_index = np.full(num_nodes, -1, dtype=np.int16)
        self.reason_index = np.zeros(num_nodes, dtype=np.int32)
        self.plugins: list[str] = []
        self.reasons: list[tuple[str, ...]] = [_NO_REASONS]
        self._reason_slots: dict[tuple[str, ...], int] = {_NO_REASONS: 0}
        #: Nodes whose filters actually ran (percentageOfNodesToScore may stop the search early).
        self.evaluated = np.zeros(num_nodes, dtype=bool)
        #: The message of a PreFilter rejection (``Diagnosis.PreFilterMsg``), "" when PreFilter passed.
        self.pre_filter_message = ""

    def _plugin_slot(self, plugin: str | None) -> int:
        if plugin is None:
            return -1
        try:
            return self.plugins.index(plugin)
        except ValueError:
            self.plugins.append(plugin)
            return len(self.plugins) - 1

    def _reason_slot(self, reasons: tuple[str, ...]) -> int:
        slot = self._reason_slots.get(reasons)
        if slot is None:
            slot = self._reason_slots[reasons] = len(self.reasons)
            self.reasons.append(reasons)
        return slot

    def record(self, nodes: np.ndarray, result: FilterResult, plugin: str, mask: np.ndarray) -> None:
        """Record ``result`` (aligned with ``nodes``) for the nodes where ``mask`` is true."""
        failing = int(np.count_nonzero(mask))
        if not failing:
            return
        plugin_slot = self._plugin_slot(plugin)
        remap = np.array([self._reason_slot(r) for r in result.reasons], dtype=np.int32)
        if failing == len(mask):  # every node failed (as in a preemptor's scan): no masking
            targets, codes, reasons = nodes, result.codes, result.reason_index
        else:
            targets, codes, reasons = nodes[mask], result.codes[mask], result.reason_index[mask]
        self.codes[targets] = codes
        self.plugin_index[targets] = plugin_slot
        self.reason_index[targets] = remap[reasons]

    def set_all(self, nodes: np.ndarray | int, status: Status) -> None:
        """Give every node in ``nodes`` the same status (a PreFilter rejection)."""
        self.codes[nodes] = status.code
        self.plugin_index[nodes] = self._plugin_slot(status.plugin)
        self.reason_index[nodes] = self._reason_slot(status.reasons)
        self.evaluated[nodes] = True

    def reject_at_pre_filter(self, status: Status) -> None:
        """A PreFilter rejection: every node gets ``status``, and its message is kept for the
        FitError message of 1.26 on (``Diagnosis.PreFilterMsg``)."""
        self.set_all(np.arange(len(self.codes)), status)
        self.pre_filter_message = status.message()

    def set_status(self, i: int, status: Status) -> None:
        """Record one node's status (e.g. from a two-pass nominated-pods check)."""
        self.set_all(i, status)

    def status(self, i: int) -> Status:
        code = _code(int(self.codes[i]))
        if code == Code.SUCCESS:
            return SUCCESS
        slot = int(self.plugin_index[i])
        plugin = self.plugins[slot] if slot >= 0 else None
        return Status(code, self.reasons[int(self.reason_index[i])], plugin)

    def passed(self) -> np.ndarray:
        """Where the filters ran and passed (a node no filter ran on has no verdict)."""
        passed: np.ndarray = self.evaluated & (self.codes == _SUCCESS)
        return passed

    def failed(self) -> np.ndarray:
        """Indices of nodes with a non-success status."""
        return np.flatnonzero(self.codes != _SUCCESS)

    def reason_histogram(self) -> dict[str, int]:
        """How many failed nodes carry each reason (a node with two reasons counts for both)."""
        failed = self.failed()
        counts: dict[str, int] = {}
        if not len(failed):
            return counts
        per_slot = np.bincount(self.reason_index[failed], minlength=len(self.reasons))
        for slot in np.flatnonzero(per_slot):
            for reason in self.reasons[slot]:
                counts[reason] = counts.get(reason, 0) + int(per_slot[slot])
        return counts


def fit_error_message(num_all_nodes: int, statuses: NodeStatuses) -> str:
    """``FitError.Error()`` of v1.20: "0/N nodes are available: <sorted histogram>."

    The histogram entries ("<count> <reason>") are sorted as strings, as upstream's
    ``sort.Strings`` does, so "10 X" sorts before "2 Y".
    """
    histogram = sorted(f"{count} {reason}" for reason, count in statuses.reason_histogram().items())
    return f"0/{num_all_nodes} nodes are available: {', '.join(histogram)}."


def _histogram(statuses: NodeStatuses) -> str:
    return ", ".join(sorted(f"{count} {reason}" for reason, count in statuses.reason_histogram().items()))


@dataclass(frozen=True)
class FitErrorText:
    """``FitError.Error()`` of one release, chosen once per profile (:meth:`of`).

    Up to 1.25 the message is v1.20's sorted histogram, then (1.24 on) a space and the PostFilter
    message. From 1.26 it is "0/N nodes are available:" followed by the PreFilter message, the
    histogram and the PostFilter message, each written as " <part>." (upstream's SeparatorFormat)
    when present; 1.27 appends a PostFilter Error's message too, 1.28 drops the histogram after a
    PreFilter rejection, 1.29 the "." after the PostFilter message (which ends with its own).
    """

    post_filter: bool = False
    separated: bool = False
    post_filter_error: bool = False
    pre_filter_once: bool = False
    post_filter_period: bool = True

    @classmethod
    def of(cls, target: Target) -> FitErrorText:
        """The message format of ``target``'s release."""
        return cls(post_filter=target.has(FIT_ERROR_POST_FILTER), separated=target.has(FIT_ERROR_SEPARATED),
                   post_filter_error=target.has(FIT_ERROR_POST_FILTER_ERROR),
                   pre_filter_once=target.has(FIT_ERROR_PRE_FILTER_ONCE),
                   post_filter_period=not target.has(FIT_ERROR_POST_FILTER_NO_PERIOD))

    def post_filter_message(self, post_filter: PostFilterResult | None) -> str:
        """``Diagnosis.PostFilterMsg``: the PostFilter status's message ("" before 1.24, and for an
        Error before 1.27)."""
        if not self.post_filter or post_filter is None:
            return ""
        if post_filter.status.code == Code.ERROR and not self.post_filter_error:
            return ""
        return post_filter.status.message()

    def message(self, num_all_nodes: int, statuses: NodeStatuses,
                post_filter: PostFilterResult | None = None) -> str:
        """The FitError message of a pod no node fits, after PostFilter ran (``post_filter``, if any)."""
        post = self.post_filter_message(post_filter)
        if not self.separated:
            text = f"0/{num_all_nodes} nodes are available: {_histogram(statuses)}."
            return f"{text} {post}" if post else text
        text = f"0/{num_all_nodes} nodes are available:"
        pre = statuses.pre_filter_message
        if pre:
            text += f" {pre}."
        if not (pre and self.pre_filter_once):
            histogram = _histogram(statuses)
            if histogram:
                text += f" {histogram}."
        if post:
            text += f" {post}." if self.post_filter_period else f" {post}"
        return text


@dataclass(frozen=True)
class PostFilterReport:
    """What the scheduler and the reports read of a PostFilter plugin's ``details``, taken and
    checked inside the plugin's isolation boundary (``Framework.run_post_filter``), so that
    nothing outside it touches the plugin's own objects."""

    #: The pods to evict, each on the nominated node (none when no node was nominated).
    victims: tuple[Pod, ...] = ()
    #: ``details.candidates``, each as its ``to_json()`` gave it (JSON-ready).
    candidates: tuple[dict[str, Any], ...] = ()
    #: ``details.why``: why this node, or why preemption did nothing.
    why: str = ""
    #: ``details.clear_nomination``: no node could help, the pod's nomination is cleared.
    clear_nomination: bool = False
    #: ``details.to_json()`` (JSON-ready), when the details have one: ``ruleset score``'s report.
    json: dict[str, Any] | None = None
    #: How many candidates the details list (all of them, even when :attr:`candidates` is not read).
    candidate_count: int = 0


#: The report of a result without details.
NO_REPORT = PostFilterReport()


@dataclass
class PostFilterResult:
    """What a PostFilter plugin achieved: a nominated node on success, and a report."""

    nominated_node: str | None = None
    status: Status = SUCCESS
    #: Plugin-specific detail for reports (DefaultPreemption puts its candidates here).
    details: Any = None
    #: ``details`` as the framework checked them (set by the framework, not by plugins).
    report: PostFilterReport = field(default=NO_REPORT, init=False, repr=False, compare=False)
