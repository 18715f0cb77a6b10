"""Types the framework hands to plugins besides the snapshot (upstream's ``framework/types.go``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ruleset.api.pod import Pod


@dataclass(eq=False)
class QueuedPodInfo:
    """A pod waiting in the scheduling queue (``framework.QueuedPodInfo``), as QueueSort sees it."""

    pod: Pod
    #: When the pod entered the queue. Pods of a snapshot "enter" at their creation time;
    #: pods without one enter at time 0, in input order (``sequence`` breaks every tie).
    timestamp: float
    sequence: int
    attempts: int = 0
    #: The last reason this pod could not be scheduled, for the final report.
    last_failure: str = field(default="", repr=False)
