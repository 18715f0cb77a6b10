"""One function per kind of expectation: each reads the run and says whether it holds, and why.

A function returns an :class:`~ruleset.behaviour.model.Outcome`, or a
:class:`~ruleset.errors.Problem` when the expectation names something the run does not have
(a pod that was not scheduled in it): that is a bad test file, not a failed expectation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ruleset.analysis import metrics
from ruleset.behaviour.model import Expectation, Outcome
from ruleset.errors import Problem

if TYPE_CHECKING:
    from ruleset.scheduler.loop import Placement, ScheduleRun

#: How many differing placements or pods a message lists before "and N more".
SHOWN = 5


@dataclass
class Context:
    """The run of the test file's profile, and a way to run the same inputs under another profile."""

    run: ScheduleRun
    rerun: Callable[[str], ScheduleRun]


def check(expectation: Expectation, context: Context) -> Outcome | Problem:
    """Check ``expectation`` with the function of its kind."""
    return CHECKS[expectation.kind](expectation, context)


def _placement(expectation: Expectation, run: ScheduleRun) -> Placement | Problem:
    for placement in run.placements:
        if placement.pod.key == expectation.pod:
            return placement
    where = expectation.where
    pending = _listed([p.pod.key for p in run.placements]) or "none"
    return Problem(f"no pending pod {expectation.pod} in this run (pending pods: {pending})", file=where.file,
                   line=where.line, column=where.column, path=f"expect[{expectation.index}].pod",
                   code="unknown-pod")


def lands_on(expectation: Expectation, context: Context) -> Outcome | Problem:
    """The pod is placed on a node whose labels match the selector."""
    placement = _placement(expectation, context.run)
    if isinstance(placement, Problem):
        return placement
    if placement.node is None:
        return Outcome(expectation, False, f"{expectation.pod} was not scheduled: {placement.reason}")
    snapshot = context.run.state.snapshot
    labels = snapshot.node_info(snapshot.node_index[placement.node]).labels
    assert expectation.selector is not None  # the loader parsed it
    if expectation.selector.matches(labels):
        return Outcome(expectation, True, f"{expectation.pod} landed on {placement.node}")
    keys = sorted({r.key for group in expectation.selector.groups for r in group})
    shown = ", ".join(f"{k}={labels[k]}" if k in labels else f"no {k}" for k in keys)
    message = f"{expectation.pod} landed on {placement.node} ({shown}), which does not match "
    return Outcome(expectation, False, message + expectation.selector_text)


def unschedulable(expectation: Expectation, context: Context) -> Outcome | Problem:
    """The pod is left unscheduled, for a reason containing ``reason`` when one is given."""
    placement = _placement(expectation, context.run)
    if isinstance(placement, Problem):
        return placement
    if placement.node is not None:
        return Outcome(expectation, False, f"{expectation.pod} was scheduled on {placement.node}")
    if expectation.reason and expectation.reason not in placement.reason:
        return Outcome(expectation, False, f"{expectation.pod} is unschedulable, but not for "
                                           f"{expectation.reason!r}: {placement.reason}")
    return Outcome(expectation, True, f"{expectation.pod} is unschedulable: {placement.reason}")


def at_most(expectation: Expectation, context: Context) -> Outcome:
    """No node (or, not per node, the cluster) holds more than ``limit`` pods matching the selector."""
    snapshot = context.run.state.snapshot
    assert expectation.selector is not None
    matching = [[p.key for p in snapshot.pods_on(i) if expectation.selector.matches(p.labels)]
                for i in range(snapshot.num_nodes)]
    what = f"pods matching {expectation.selector_text}"
    if not expectation.per_node:
        total = sorted(key for keys in matching for key in keys)
        ok = len(total) <= expectation.limit
        verdict = "" if ok else f" (at most {expectation.limit}): {_listed(total)}"
        return Outcome(expectation, ok, f"the cluster holds {len(total)} {what}{verdict}")
    if not snapshot.num_nodes:
        return Outcome(expectation, True, "the cluster has no node")
    most = max(range(snapshot.num_nodes), key=lambda i: len(matching[i]))
    name, keys = snapshot.node_names[most], matching[most]
    if len(keys) <= expectation.limit:
        return Outcome(expectation, True, f"the most {what} on one node: {len(keys)} ({name})")
    over = sum(1 for keys_on in matching if len(keys_on) > expectation.limit)
    others = f"; {over - 1} other node(s) hold more than {expectation.limit} too" if over > 1 else ""
    return Outcome(expectation, False, f"{name} holds {len(keys)} {what} (at most {expectation.limit}): "
                                       f"{_listed(keys)}{others}")


def spread(expectation: Expectation, context: Context) -> Outcome:
    """The resource's utilisation spread after the run, as ``compare`` measures it
    (:func:`ruleset.analysis.metrics.spread`: percent, over the nodes that have the resource),
    has a standard deviation of at most ``max_stddev`` and a max−min of at most ``max_range``."""
    measured = metrics.spread(context.run.state.snapshot, expectation.resource)
    resource = expectation.resource
    if not measured["nodes"]:
        return Outcome(expectation, False, f"no node has {resource} allocatable")
    over = [f"{what} {measured[key]:g} is over {bound:g}"
            for what, key, bound in (("std-dev", "stddev", expectation.max_stddev),
                                     ("max-min", "range", expectation.max_range))
            if bound is not None and measured[key] > bound]
    facts = (f"{resource} utilisation over {measured['nodes']} nodes: std-dev {measured['stddev']:g}, "
             f"from {measured['min']:g}% to {measured['max']:g}%")
    return Outcome(expectation, not over, facts + (f" ({'; '.join(over)})" if over else ""))


def same_as(expectation: Expectation, context: Context) -> Outcome:
    """Every pod lands where it lands under the other profile (or stays unscheduled under both)."""
    other = context.rerun(expectation.profile)
    theirs = {p.pod.key: p.node for p in other.placements}
    mine = {p.pod.key: p.node for p in context.run.placements}
    differ = [f"{key}: {_node(node)} here, {_node(theirs.get(key, ''))} there"
              for key, node in mine.items() if theirs.get(key, "") != node]
    differ += [f"{key}: not pending here, {_node(node)} there"
               for key, node in theirs.items() if key not in mine]
    if not differ:
        return Outcome(expectation, True, f"all {len(mine)} placements agree")
    return Outcome(expectation, False,
                   f"{len(differ)} of {len(mine)} placements differ: {_listed(differ, '; ')}")


def _node(node: str | None) -> str:
    if node == "":
        return "not pending"
    return "unschedulable" if node is None else node


def _listed(items: list[str], sep: str = ", ") -> str:
    shown = sep.join(items[:SHOWN])
    return shown + (f"{sep}and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


#: The function checking each kind of expectation.
CHECKS: dict[str, Callable[[Expectation, Context], Outcome | Problem]] = {
    "lands-on": lands_on,
    "unschedulable": unschedulable,
    "at-most": at_most,
    "spread": spread,
    "same-as": same_as,
}
