"""NodeLabel (Filter, Score): require or prefer nodes by label presence (NodeLabelArgs).

Filter: every ``presentLabels`` key must be on the node and no ``absentLabels`` key may be.
Score: 100 for each ``presentLabelsPreference`` key present and each
``absentLabelsPreference`` key absent, averaged over the preference labels (integer
division). Only label keys matter, never values.

With no preference labels upstream's Score divides by zero (a Go panic). Here every plugin
runs at every point it implements unless the profile says otherwise, so a NodeLabel
configured only for filtering would hit that; it scores every node 0 instead, which leaves
the ranking unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import (
    MAX_NODE_SCORE,
    OTHER_PODS_IGNORED,
    ArgError,
    Code,
    CycleState,
    FilterResult,
    NodeSet,
    Plugin,
    arg_field,
    hookimpl,
)
from ruleset.api.pod import Pod
from ruleset.gofmt import go_quote

ERR_REASON_PRESENCE_VIOLATED = "node(s) didn't have the requested labels"

_LABEL_LIST = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True, slots=True)
class NodeLabelArgs:
    """``NodeLabelArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    present_labels: tuple[str, ...] = arg_field(
        "presentLabels", (), schema=_LABEL_LIST, description="Label keys a node must have (Filter).")
    absent_labels: tuple[str, ...] = arg_field(
        "absentLabels", (), schema=_LABEL_LIST, description="Label keys a node must not have (Filter).")
    present_labels_preference: tuple[str, ...] = arg_field(
        "presentLabelsPreference", (), schema=_LABEL_LIST,
        description="Label keys a node should have (Score).")
    absent_labels_preference: tuple[str, ...] = arg_field(
        "absentLabelsPreference", (), schema=_LABEL_LIST,
        description="Label keys a node should not have (Score).")


def _go_list(labels: tuple[str, ...]) -> str:
    """Go's ``%+v`` of a []string: ``[a b c]``."""
    return "[" + " ".join(labels) + "]"


class NodeLabel(Plugin):
    """Requires (Filter) or prefers (Score) nodes by which label keys they carry or lack."""

    name = "NodeLabel"
    # kubescheduler.config.k8s.io/v1beta2 (1.22) refuses it; v1beta1, the last API that takes it,
    # and the plugin itself (PR #105906) are gone in 1.23.
    removed_in = "1.23"
    replaced_by = "NodeAffinity (a nodeSelector or node affinity on the pods)"
    Args = NodeLabelArgs

    @classmethod
    def validate_args(cls, args: NodeLabelArgs) -> list[ArgError]:
        """``ValidateNodeLabelArgs`` (v1.20): the first absent label also listed as present.

        ``presentLabels``/``absentLabels`` are checked before the ``*Preference`` pair, and
        within a pair the absent list is walked in order, as ``validateNoConflict`` does.
        """
        pairs = (
            ("absentLabels", args.present_labels, args.absent_labels),
            ("absentLabelsPreference", args.present_labels_preference, args.absent_labels_preference),
        )
        for key, present, absent in pairs:
            present_set = set(present)
            for i, label in enumerate(absent):
                if label in present_set:
                    return [ArgError((key, i), f"detecting at least one label (e.g., {go_quote(label)}) that "
                                               f"exist in both the present({_go_list(present)}) and "
                                               f"absent({_go_list(absent)}) label list")]
        return []

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, nodes: NodeSet) -> FilterResult | None:
        args: NodeLabelArgs = self.args
        if not args.present_labels and not args.absent_labels:
            return None
        ok = np.ones(len(nodes), dtype=bool)
        for key in args.present_labels:
            ok &= nodes.has_label(key)
        for key in args.absent_labels:
            ok &= ~nodes.has_label(key)
        return FilterResult.reject(~ok, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_PRESENCE_VIOLATED)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        args: NodeLabelArgs = self.args
        count = len(args.present_labels_preference) + len(args.absent_labels_preference)
        score = np.zeros(len(nodes), dtype=np.int64)
        if count == 0:
            return score
        for key in args.present_labels_preference:
            score += np.where(nodes.has_label(key), MAX_NODE_SCORE, 0)
        for key in args.absent_labels_preference:
            score += np.where(nodes.has_label(key), 0, MAX_NODE_SCORE)
        return score // count
