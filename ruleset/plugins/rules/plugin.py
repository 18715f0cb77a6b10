"""Rules (Filter, Score): a profile's declarative rules.

Its one arg, ``rules``, is what a profile writes as ``[[rules]]`` tables (see README,
"Rules"); the plugin validates and compiles them like any other plugin's args. A profile
with rules that does not list ``[plugins.Rules]`` runs it after its own plugins (list it
to place it, weight it or limit its points).

Filter: for each rule, in rule order, whose ``pods`` selector matches the pod and which
has ``require``, nodes that do not match ``require`` are UnschedulableAndUnresolvable with
the reason ``node(s) didn't match rule "<name>"``; the first failing rule decides.

Score: Σ weight × (100 if the node matches ``prefer`` else 0) over the rules that apply to
the pod and have ``prefer``. NormalizeScore divides that by the sum of those rules'
weights (integer division), so the score is the weighted share of the pod's preferences
the node meets, in [0, 100]; 0 everywhere when no preference applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ruleset import OTHER_PODS_IGNORED, Code, CycleState, FilterResult, Handle, NodeSet, Plugin, hookimpl
from ruleset.api.pod import Pod
from ruleset.plugins.rules.args import RulesArgs, validate_rules
from ruleset.plugins.rules.compiled import (
    CompiledRule,
    applicable,
    breakdown_json,
    compile_rule,
    normalize,
    preference_scores,
    raw_score,
)


class Rules(Plugin):
    """Runs the profile's declarative rules: their require selectors filter nodes (Filter), their
    prefer selectors score them, 100 × weight where matched, over the rules' total weight (Score)."""

    name = "Rules"
    Args = RulesArgs

    def __init__(self, args: RulesArgs | None = None, handle: Handle | None = None):
        super().__init__(args, handle)
        self.rules: tuple[CompiledRule, ...] = tuple(compile_rule(rule) for rule in self.args.rules or ())
        self._last: tuple[Pod | None, list[CompiledRule]] = (None, [])

    @classmethod
    def validate_args(cls, args: RulesArgs) -> list[Any]:
        return validate_rules(args)

    def _applicable(self, pod: Pod) -> list[CompiledRule]:
        # Filter runs once per cycle and again per node in preemption dry runs: remember the
        # last pod's rules (a pod's labels do not change during a run, so identity is enough).
        last_pod, rules = self._last
        if last_pod is not pod:
            rules = applicable(self.rules, pod)
            self._last = (pod, rules)
        return rules

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        reasons: list[tuple[str, ...]] = [()]
        reason_index = np.zeros(len(nodes), dtype=np.int32)
        for rule in self._applicable(pod):
            if rule.require is None:
                continue
            fail = ~nodes.match(rule.require) & (reason_index == 0)
            if fail.any():
                reasons.append((rule.reason,))
                reason_index[fail] = len(reasons) - 1
        if len(reasons) == 1:
            return None
        codes = np.where(reason_index > 0, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                         np.int8(Code.SUCCESS)).astype(np.int8)
        return FilterResult(codes, reasons, reason_index)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        return raw_score(preference_scores(self._applicable(pod), nodes), len(nodes))

    @hookimpl
    def ruleset_normalize_score(self, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return normalize(scores, self._applicable(pod))

    def score_details(self, pod: Pod, nodes: NodeSet) -> Sequence[Mapping[str, Any]]:
        """Per node: ``{"rules": {name: {matched, score, weight, weighted}}}`` for each preference
        rule that applies to the pod (``score`` is before the rule's weight)."""
        scores = preference_scores(self._applicable(pod), nodes)
        return [{"rules": breakdown_json(scores, position)} for position in range(len(nodes))]
