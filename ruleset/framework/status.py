"""Status codes and values returned by plugins, with kube-scheduler's meanings."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class Code(IntEnum):
    """``framework.Code``; the integer values match upstream's iota order."""

    #: The plugin ran and found nothing wrong. ``None`` returned from a hook means the same.
    SUCCESS = 0
    #: An internal error: the cycle for this pod is aborted and the pod reported as failed.
    ERROR = 1
    #: The pod does not fit; preemption might make it fit.
    UNSCHEDULABLE = 2
    #: The pod does not fit and preemption cannot help; the node is no preemption candidate.
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    #: Permit only: the pod has to wait.
    WAIT = 4
    #: Bind only: this binder does not handle the pod; the next one is tried.
    SKIP = 5

    @property
    def label(self) -> str:
        """Upstream's ``Code.String()``: "Success", "UnschedulableAndUnresolvable", ..."""
        return _LABELS[self]

    @classmethod
    def from_label(cls, label: str) -> Code:
        return _BY_LABEL[label]

    def __str__(self) -> str:
        return self.label


_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
}
_BY_LABEL = {label: code for code, label in _LABELS.items()}


@dataclass(frozen=True, slots=True)
class Status:
    """The result of running a plugin: a code, the reasons and the plugin that decided it.

    The framework fills in ``package`` (where the plugin came from, see
    ``PluginRegistry.package_of``) on the statuses it reports for a plugin, and sets
    ``fault`` on an Error it made because the plugin raised, or returned what its hook
    cannot return: a fault of the plugin, not an outcome it reported. Neither takes part in
    comparisons; plugins leave both alone.
    """

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str | None = None
    package: str | None = field(default=None, compare=False, repr=False)
    fault: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        return cls(Code.UNSCHEDULABLE, reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)

    @classmethod
    def error(cls, message: str) -> Status:
        return cls(Code.ERROR, (message,))

    def message(self) -> str:
        """Reasons joined by ", ", as ``Status.Message()``."""
        return ", ".join(self.reasons)

    @property
    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    @property
    def is_unschedulable(self) -> bool:
        """True for Unschedulable and UnschedulableAndUnresolvable."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def with_plugin(self, plugin: str) -> Status:
        return Status(self.code, self.reasons, plugin)

    def to_json(self) -> dict[str, Any]:
        """The status as reports write a plugin's error: code, plugin, package and message."""
        return {"code": Code(self.code).label, "plugin": self.plugin, "package": self.package,
                "message": self.message()}


SUCCESS = Status()


def as_status(value: Status | None) -> Status:
    """Hooks may return None for success."""
    return SUCCESS if value is None else value
