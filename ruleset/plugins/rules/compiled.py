"""Rules compiled into label selectors, and the scoring arithmetic of the Rules plugin.

Each expression of a rule is a label selector (:mod:`ruleset.selector`: Kubernetes'
``labels.Parse`` syntax plus ``||`` for OR). ``pods`` is matched against the pod's labels,
``require`` and ``prefer`` against the node's.

Scoring: for a pod, every rule whose ``pods`` selector matches and which has ``prefer``
contributes ``weight × (100 if the node matches else 0)``; the Rules plugin's raw score is
the sum, and its normalized score is that sum divided by the sum of those rules' weights
(integer division): the weighted share of preferences the node meets, in [0, 100]. A pod
no preference applies to scores 0 on every node.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ruleset.gofmt import go_quote
from ruleset.plugins.rules.args import MATCH_SCORE, selector
from ruleset.selector import Selector

if TYPE_CHECKING:
    from ruleset import NodeSet
    from ruleset.api.pod import Pod


class RuleLike(Protocol):
    """A rule as written: a ``[[rules]]`` table or an entry of the Rules plugin's ``rules`` arg."""

    name: str
    pods: str
    require: str | None
    prefer: str | None
    weight: int


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A rule with its expressions parsed; ``require``/``prefer`` are None when not written."""

    name: str
    pods: Selector = Selector.EVERYTHING
    require: Selector | None = None
    prefer: Selector | None = None
    weight: int = 1

    @property
    def reason(self) -> str:
        """The Filter reason for nodes that do not match ``require``."""
        return f"node(s) didn't match rule {go_quote(self.name)}"

    def applies_to(self, pod: Pod) -> bool:
        """Whether the rule's ``pods`` selector matches ``pod``'s labels."""
        return self.pods.matches(pod.labels)


@dataclass(frozen=True, slots=True)
class RuleScore:
    """One preference rule's outcome on a set of nodes."""

    rule: CompiledRule
    #: Whether each node matches the rule's ``prefer`` selector, aligned with the nodes.
    matched: np.ndarray

    @property
    def scores(self) -> np.ndarray:
        """``MATCH_SCORE`` where the node matched, else 0 (before the rule's weight)."""
        return np.where(self.matched, MATCH_SCORE, 0).astype(np.int64)


def compile_rule(rule: RuleLike) -> CompiledRule:
    """Parse one rule's expressions; raises :class:`~ruleset.selector.SelectorError` for the first bad one."""
    return CompiledRule(
        name=rule.name,
        pods=selector(rule.pods) if rule.pods else Selector.EVERYTHING,
        require=selector(rule.require) if rule.require is not None else None,
        prefer=selector(rule.prefer) if rule.prefer is not None else None,
        weight=rule.weight,
    )


def applicable(rules: Iterable[CompiledRule], pod: Pod) -> list[CompiledRule]:
    """The rules whose ``pods`` selector matches ``pod``, in rule order."""
    return [rule for rule in rules if rule.applies_to(pod)]


def preferences(rules: Iterable[CompiledRule]) -> list[CompiledRule]:
    """The rules among ``rules`` that have ``prefer`` (those that score)."""
    return [rule for rule in rules if rule.prefer is not None]


def preference_scores(rules: Iterable[CompiledRule], nodes: NodeSet) -> list[RuleScore]:
    """For each rule with ``prefer``: which of ``nodes`` match it."""
    return [RuleScore(rule, nodes.match(rule.prefer)) for rule in rules if rule.prefer is not None]


def raw_score(scores: Sequence[RuleScore], n: int) -> np.ndarray:
    """The Rules plugin's raw score: Σ weight × (100 if matched else 0) over ``scores``."""
    total = np.zeros(n, dtype=np.int64)
    for score in scores:
        total += score.scores * score.rule.weight
    return total


def normalize(raw: np.ndarray, rules: Iterable[CompiledRule]) -> np.ndarray:
    """Raw score ÷ Σ weight of the preferences among ``rules`` (integer division): in [0, 100].

    0 everywhere when no rule has a preference.
    """
    weights = sum(rule.weight for rule in preferences(rules))
    if not weights:
        return np.zeros_like(raw)
    return raw // weights


def breakdown_json(scores: Sequence[RuleScore], position: int) -> dict[str, Any]:
    """Each preference rule's outcome on the node at ``position`` of the scores, for reports."""
    out = {}
    for score in scores:
        value = int(score.scores[position])
        out[score.rule.name] = {"matched": bool(score.matched[position]), "score": value,
                                "weight": score.rule.weight, "weighted": value * score.rule.weight}
    return out
