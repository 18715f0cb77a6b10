"""Declarative rules: a profile's ``[[rules]]`` entries, compiled into label selectors.

A rule is written with no Python::

    [[rules]]
    name = "databases-on-ssd"
    pods = "app in (postgres, mysql)"            # the pods it applies to; default: every pod
    require = "!node.kubernetes.io/maintenance"  # Filter: nodes must match
    prefer = "disktype=ssd"                      # Score: 100 where the node matches, else 0
    weight = 5

Each expression is a label selector (:mod:`ruleset.selector`: Kubernetes' ``labels.Parse``
syntax plus ``||`` for OR). ``pods`` is matched against the pod's labels, ``require`` and
``prefer`` against the node's. The built-in ``Rules`` plugin
(:mod:`ruleset.plugins.rules`) runs the compiled rules; this module compiles them, locates
selector syntax errors in the profile file for :func:`rule_problems` (which the profile
loader calls), and holds the scoring arithmetic that the plugin and ``ruleset score``'s
per-rule breakdown share.

Scoring: for a pod, every rule whose ``pods`` selector matches and which has ``prefer``
contributes ``weight × (100 if the node matches else 0)``; the Rules plugin's raw score is
the sum, and its normalized score is that sum divided by the sum of those rules' weights
(integer division): the weighted share of preferences the node meets, in [0, 100]. A pod
no preference applies to scores 0 on every node.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ruleset.errors import Problem, RulesetError, format_path
from ruleset.gofmt import go_quote
from ruleset.profile.model import RULES_PLUGIN as RULES_PLUGIN  # the plugin that runs the rules
from ruleset.selector import Selector, SelectorError

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.profile.model import Profile, RuleConfig
    from ruleset.snapshot import NodeSet

#: What a matching ``prefer`` selector is worth before the rule's weight.
MATCH_SCORE = 100
#: The selector-valued keys of a rule, in the order they are checked.
SELECTOR_FIELDS = ("pods", "require", "prefer")
_MAX_INT64 = 2**63 - 1


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


# ---------------------------------------------------------------------------- compiling
def _parse(text: str) -> Selector:
    from ruleset.selector import parse

    return parse(text)


def compile_rule(rule: RuleConfig) -> CompiledRule:
    """Parse one rule's expressions; raises :class:`SelectorError` for the first bad one."""
    return CompiledRule(
        name=rule.name,
        pods=_parse(rule.pods) if rule.pods else Selector.EVERYTHING,
        require=_parse(rule.require) if rule.require is not None else None,
        prefer=_parse(rule.prefer) if rule.prefer is not None else None,
        weight=rule.weight,
    )


def compile_rules(rules: Iterable[RuleConfig]) -> tuple[CompiledRule, ...]:
    """Compile rules in order; raise :class:`RulesetError` with every problem (located) if any."""
    rules = list(rules)
    compiled, problems = _compile_all(rules)
    seen: set[str] = set()
    for index, rule in enumerate(rules):
        if rule.name in seen:
            message = f"duplicate rule name {rule.name!r}"
            problems.append(_problem(rule, index, "name", message, "duplicate-rule"))
        seen.add(rule.name)
    if problems:
        raise RulesetError(problems)
    return tuple(compiled)


def rule_problems(profile: Profile) -> list[Problem]:
    """Problems in a profile's rules: selector syntax errors, and weights that could overflow.

    A syntax error points at the offending character of the expression in the profile
    file (see :func:`selector_error_column`), with path ``rules[<index in that file>].<key>``.
    Rules with the same name in one file are reported by the loader, not here.
    """
    rules = list(profile.rules)
    _, problems = _compile_all(rules)
    total = 0
    for index, rule in enumerate(rules):
        if rule.prefer is None:
            continue
        total += rule.weight
        if total * MATCH_SCORE > _MAX_INT64:
            problems.append(_problem(rule, index, "weight", "total weight of the rules' preferences could "
                                     "overflow", "weight-overflow"))
            break
    return problems


def _compile_all(rules: Sequence[RuleConfig]) -> tuple[list[CompiledRule], list[Problem]]:
    """Each rule compiled (parsing each expression once), and every selector syntax error, located."""
    compiled = []
    problems = []
    for index, rule in enumerate(rules):
        parsed: dict[str, Selector] = {}
        for key in SELECTOR_FIELDS:
            text = getattr(rule, key)
            if text is None:  # not written ("" is the selector that matches everything)
                continue
            try:
                parsed[key] = _parse(text)
            except SelectorError as exc:
                message = f"rule {rule.name!r}: invalid selector: {exc.reason}"
                problems.append(_problem(rule, index, key, message, "invalid-selector", exc))
        compiled.append(CompiledRule(rule.name, parsed.get("pods", Selector.EVERYTHING),
                                     parsed.get("require"), parsed.get("prefer"), rule.weight))
    return compiled, problems


def _problem(rule: RuleConfig, index: int, key: str, message: str, code: str,
             error: SelectorError | None = None) -> Problem:
    """A problem about ``rule``'s ``key``, located in the file the rule was written in."""
    if rule.source is None:  # built in code, not loaded: only the rule's origin is known
        return rule.origin.problem(message, format_path(("rules", index, key)), code)
    pf, file_index = rule.source
    key_path = ("rules", file_index, key)
    origin = pf.origin(key_path, value=True)
    line, column = origin.line, origin.column
    if error is not None and error.column is not None and line is not None and column is not None:
        column += selector_error_column(pf.text, line, column, getattr(rule, key), error.column) - 1
    return Problem(message, file=origin.file, line=line, column=column, path=format_path(key_path), code=code)


_BASIC_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_LITERAL_STRING = re.compile(r"'([^'\n]*)'")


def selector_error_column(text: str, line: int, column: int, value: str, error_column: int) -> int:
    """Where, counted from the value's first character (1), the expression's ``error_column`` is.

    ``line``/``column`` locate the value in the TOML ``text`` (its opening quote). For a
    one-line string the answer is ``1 + error_column`` (the quote, then the expression),
    as long as no escape sequence comes before the offending character; multi-line
    strings, escapes before it, or anything unexpected give 1: the value's start.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return 1
    raw = lines[line - 1][column - 1:]
    if raw.startswith(('"""', "'''")):
        return 1
    offset = max(0, min(error_column - 1, len(value)))
    match = _BASIC_STRING.match(raw) or _LITERAL_STRING.match(raw)
    if match is None:
        return 1
    content = match.group(1)
    if raw[0] == '"' and "\\" in content[:offset]:
        return 1  # an escape before the offending character: raw and decoded offsets differ
    if content[:offset] != value[:offset]:
        return 1
    return 1 + 1 + offset


# ----------------------------------------------------------------------------- running
def applicable(rules: Iterable[CompiledRule], pod: Pod) -> list[CompiledRule]:
    """The rules whose ``pods`` selector matches ``pod``, in rule order."""
    return [rule for rule in rules if rule.applies_to(pod)]


def preferences(rules: Iterable[CompiledRule]) -> list[CompiledRule]:
    """The rules among ``rules`` that have ``prefer`` (those that score)."""
    return [rule for rule in rules if rule.prefer is not None]


def preference_scores(rules: Iterable[CompiledRule], nodes: NodeSet) -> list[RuleScore]:
    """For each rule with ``prefer``: which of ``nodes`` match it."""
    return [RuleScore(rule, nodes.match(rule.prefer)) for rule in preferences(rules)]  # type: ignore[arg-type]


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
    """The per-rule entry of ``ruleset score``'s JSON for the node at ``position`` of the scores."""
    out = {}
    for score in scores:
        value = int(score.scores[position])
        out[score.rule.name] = {"matched": bool(score.matched[position]), "score": value,
                                "weight": score.rule.weight, "weighted": value * score.rule.weight}
    return out
