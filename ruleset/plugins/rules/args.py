"""The Rules plugin's args: the rules, as ``[[rules]]`` tables write them, and their validation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ruleset import MAX_TOTAL_SCORE, ArgError, arg_field
from ruleset.plugins.table import ArgsSpec
from ruleset.selector import SelectorError

if TYPE_CHECKING:
    from ruleset.selector import Selector

#: What a matching ``prefer`` selector is worth before the rule's weight.
MATCH_SCORE = 100
#: The selector-valued keys of a rule, in the order they are checked.
SELECTOR_FIELDS = ("pods", "require", "prefer")
#: The largest weight a rule may have: 100 × weight must fit the int64 total.
MAX_RULE_WEIGHT = MAX_TOTAL_SCORE // MATCH_SCORE

#: One rule (a ``[[rules]]`` table, or an entry of the ``rules`` arg).
RULE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "anyOf": [{"required": ["require"]}, {"required": ["prefer"]}],
    "properties": {
        "name": {"type": "string", "minLength": 1,
                 "description": "Unique rule name (shown in reasons and scores)."},
        "description": {"type": "string"},
        "pods": {"type": "string",
                 "description": "Selector of the pods the rule applies to (default: every pod)."},
        "require": {"type": "string", "description": "Filter: nodes must match this selector."},
        "prefer": {"type": "string",
                   "description": "Score: 100 where the node matches this selector, else 0."},
        "weight": {"type": "integer", "minimum": 1, "maximum": MAX_RULE_WEIGHT, "default": 1},
    },
}


@lru_cache(maxsize=4096)
def selector(text: str) -> Selector:
    """Parse a rule expression (raises :class:`~ruleset.selector.SelectorError`).

    Cached: args are validated and then compiled by the plugin, and many profiles share
    expressions; a :class:`Selector` is immutable. The parser (and lark) is imported by the
    first expression to parse.
    """
    from ruleset.selector import parse

    return parse(text)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule as written: selectors as text, ``require``/``prefer`` None when not written."""

    name: str
    pods: str = ""
    require: str | None = None
    prefer: str | None = None
    weight: int = 1
    description: str = ""


def _parse_rules(value: Sequence[dict[str, Any]]) -> tuple[Rule, ...]:
    return tuple(Rule(name=entry["name"], pods=entry.get("pods", ""), require=entry.get("require"),
                      prefer=entry.get("prefer"), weight=entry.get("weight", 1),
                      description=entry.get("description", "")) for entry in value)


def _dump_rules(rules: tuple[Rule, ...]) -> list[dict[str, Any]]:
    out = []
    for rule in rules:
        entry: dict[str, Any] = {"name": rule.name}
        if rule.description:
            entry["description"] = rule.description
        if rule.pods:
            entry["pods"] = rule.pods
        for key in ("require", "prefer"):
            if getattr(rule, key) is not None:
                entry[key] = getattr(rule, key)
        entry["weight"] = rule.weight
        out.append(entry)
    return out


@dataclass(frozen=True, slots=True)
class RulesArgs:
    """The Rules plugin's args. A profile writes them as ``[[rules]]`` tables, which are
    appended to this arg; None (the default) and an empty list both mean no rules."""

    rules: tuple[Rule, ...] | None = arg_field(
        "rules", None, parse=_parse_rules, dump=_dump_rules, schema={"type": "array", "items": RULE_SCHEMA},
        description="The rules, in order (a profile writes them as [[rules]] tables, appended here).")


def validate_rules(args: RulesArgs) -> list[ArgError]:
    """Selectors that do not parse (pointing at the offending character), two rules with one
    name, and preference weights whose total could overflow."""
    rules = args.rules or ()
    errors = []
    for index, rule in enumerate(rules):
        for key in SELECTOR_FIELDS:
            text = getattr(rule, key)
            if text is None:  # not written ("" is the selector that matches everything)
                continue
            try:
                selector(text)
            except SelectorError as exc:
                message = f"rule {rule.name!r}: invalid selector: {exc.reason}"
                errors.append(ArgError(("rules", index, key), message, code="invalid-selector", at_value=True,
                                       offset=exc.column))
    seen: set[str] = set()
    for index, rule in enumerate(rules):
        if rule.name in seen:
            errors.append(ArgError(("rules", index, "name"), f"duplicate rule name {rule.name!r}",
                                   code="duplicate-rule", at_value=True))
        seen.add(rule.name)
    total = 0
    for index, rule in enumerate(rules):
        if rule.prefer is None:
            continue
        total += rule.weight
        if total * MATCH_SCORE > MAX_TOTAL_SCORE:
            errors.append(ArgError(("rules", index, "weight"), "total weight of the rules' preferences could "
                                   "overflow", code="weight-overflow", at_value=True))
            break
    return errors


RULES_ARGS = ArgsSpec(RulesArgs, validate_args=validate_rules)
