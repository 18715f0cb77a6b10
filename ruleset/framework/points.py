"""The extension points of the scheduling framework, as data.

kube-scheduler keeps its extension-point table beside the plugin interfaces
(``framework/runtime/framework.go: getExtensionPoints``); this is ruleset's: one row per
point, in cycle order, naming the hooks of :mod:`ruleset.hookspecs` that belong to it.
Profiles, the KubeSchedulerConfiguration import and export, ``ruleset show`` and the
runtime all read this one table. It imports nothing heavy (no numpy, no pluggy), so that
code which only needs the vocabulary, such as profile validation, stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: Attribute pluggy's ``HookimplMarker("ruleset")`` sets on a hook implementation
#: (``ruleset.hookspecs.PROJECT + "_impl"``; a test keeps the two in step).
IMPL_MARKER = "ruleset_impl"

#: ``framework.MaxNodeScore`` / ``MinNodeScore``: the range of a score after NormalizeScore.
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
#: ``framework.MaxTotalScore``: the weighted sum of every Score plugin must fit an int64.
MAX_TOTAL_SCORE = 2**63 - 1
#: The largest Score weight: one plugin at MaxNodeScore must not overflow the total alone.
MAX_WEIGHT = MAX_TOTAL_SCORE // MAX_NODE_SCORE


@dataclass(frozen=True, slots=True)
class ExtensionPoint:
    """One extension point: how profiles name it, how upstream titles it, which hooks it runs."""

    #: The name in profiles and KubeSchedulerConfiguration (``points = ["filter"]``).
    key: str
    #: Upstream's name in messages ("plugin %q does not extend %s plugin").
    title: str
    #: The hooks of the point; a plugin implements the point when it implements the first.
    hooks: tuple[str, ...]
    #: Points a plugin listed at this one brings along (PreFilter and PreScore only serve
    #: Filter and Score).
    implied: tuple[str, ...] = ()

    @property
    def main_hook(self) -> str:
        return self.hooks[0]


#: Every extension point, in cycle order (PreEnqueue, before the queue, first).
EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    # Before the queue: 1.26+ (a profile of an older release cannot enable a plugin here).
    ExtensionPoint("preEnqueue", "PreEnqueue", ("ruleset_pre_enqueue",)),
    ExtensionPoint("queueSort", "QueueSort", ("ruleset_queue_sort",)),
    ExtensionPoint("preFilter", "PreFilter",
                   ("ruleset_pre_filter", "ruleset_pre_filter_add_pod", "ruleset_pre_filter_remove_pod")),
    ExtensionPoint("filter", "Filter", ("ruleset_filter", "ruleset_queueing_hint"), implied=("preFilter",)),
    ExtensionPoint("postFilter", "PostFilter", ("ruleset_post_filter",)),
    ExtensionPoint("preScore", "PreScore", ("ruleset_pre_score",)),
    ExtensionPoint("score", "Score", ("ruleset_score", "ruleset_normalize_score"), implied=("preScore",)),
    ExtensionPoint("reserve", "Reserve", ("ruleset_reserve", "ruleset_unreserve")),
    ExtensionPoint("permit", "Permit", ("ruleset_permit",)),
    ExtensionPoint("preBind", "PreBind", ("ruleset_pre_bind",)),
    ExtensionPoint("bind", "Bind", ("ruleset_bind",)),
    ExtensionPoint("postBind", "PostBind", ("ruleset_post_bind",)),
)
#: The rows by key.
POINTS: dict[str, ExtensionPoint] = {point.key: point for point in EXTENSION_POINTS}
#: Point keys in cycle order.
POINT_KEYS: tuple[str, ...] = tuple(POINTS)
#: Every extension-point hook, in cycle order.
HOOKS: tuple[str, ...] = tuple(hook for point in EXTENSION_POINTS for hook in point.hooks)


def implemented_points(cls: type) -> list[str]:
    """Extension points a plugin class implements (those whose main hook it defines), in cycle order."""
    points = []
    for point in EXTENSION_POINTS:
        method = getattr(cls, point.main_hook, None)
        if method is not None and getattr(method, IMPL_MARKER, None) is not None:
            points.append(point.key)
    return points


def effective_points(cls: type, points: Iterable[str] | None) -> list[str]:
    """The extension points a plugin runs at: all it implements, or the named ones it
    implements plus the points they bring along (:attr:`ExtensionPoint.implied`), in cycle order."""
    available = implemented_points(cls)
    if points is None:
        return available
    wanted = set()
    for point in points:
        if point in available:
            wanted.add(point)
            wanted.update(p for p in POINTS[point].implied if p in available)
    return [p for p in POINT_KEYS if p in wanted]
