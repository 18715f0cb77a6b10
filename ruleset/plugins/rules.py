"""Rules (Filter, Score): the profile's declarative ``[[rules]]``.

The plugin takes no args in TOML: its args are the profile's rules, compiled
(:func:`ruleset.rules.compile_rules`). The framework adds it by itself when the profile
has rules and does not list ``Rules`` (list ``[plugins.Rules]`` to place it, weight it or
limit its points); it then reads ``handle.framework.profile.rules`` when it is built.
Code may also build it directly with compiled rules as its args.

Filter: for each rule, in rule order, whose ``pods`` selector matches the pod and which
has ``require``, nodes that do not match ``require`` are UnschedulableAndUnresolvable with
the reason ``node(s) didn't match rule "<name>"``; the first failing rule decides.

Score: Σ weight × (100 if the node matches ``prefer`` else 0) over the rules that apply to
the pod and have ``prefer``. NormalizeScore divides that by the sum of those rules'
weights (integer division), so the score is the weighted share of the pod's preferences
the node meets, in [0, 100]; 0 everywhere when no preference applies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.plugin import Handle, Plugin
from ruleset.framework.results import FilterResult
from ruleset.framework.status import Code
from ruleset.hookspecs import hookimpl
from ruleset.rules import (
    RULES_PLUGIN,
    CompiledRule,
    applicable,
    compile_rules,
    normalize,
    preference_scores,
    raw_score,
)
from ruleset.snapshot import NodeSet


class Rules(Plugin):
    """The profile's declarative [[rules]]: require (Filter) and prefer (Score) label selectors."""

    name = RULES_PLUGIN

    def __init__(self, args: tuple[CompiledRule, ...] | None = None, handle: Handle | None = None):
        super().__init__(args, handle)
        # The framework sets handle.framework before building plugins: compile now, so a bad
        # rule fails the framework build (as "initializing plugin 'Rules'") rather than a pod.
        if self.args is None and self.handle.framework is not None:
            self.args = compile_rules(self.handle.framework.profile.rules)
        self._last: tuple[Pod | None, list[CompiledRule]] = (None, [])

    @classmethod
    def parse_args(cls, raw: Any) -> None:
        """No args in TOML (the schema accepts none): None means "the profile's rules"."""
        return None

    @classmethod
    def args_to_dict(cls, args: Any) -> dict[str, Any]:
        return {}

    @property
    def rules(self) -> tuple[CompiledRule, ...]:
        """The compiled rules (from the profile, on first use if the handle came later)."""
        if self.args is None:
            framework = self.handle.framework
            self.args = compile_rules(framework.profile.rules) if framework is not None else ()
        return self.args

    def _applicable(self, pod: Pod) -> list[CompiledRule]:
        # Filter runs once per cycle and again per node in preemption dry runs: remember the
        # last pod's rules (a pod's labels do not change during a run, so identity is enough).
        last_pod, rules = self._last
        if last_pod is not pod:
            rules = applicable(self.rules, pod)
            self._last = (pod, rules)
        return rules

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
