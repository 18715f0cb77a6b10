"""The Rules plugin: a profile's declarative ``[[rules]]`` (label-selector filters and preferences)."""

from ruleset.plugins.rules.args import RULE_SCHEMA, Rule, RulesArgs, validate_rules
from ruleset.plugins.rules.compiled import CompiledRule, RuleScore, applicable, compile_rule
from ruleset.plugins.rules.plugin import Rules

__all__ = ["RULE_SCHEMA", "CompiledRule", "Rule", "RuleScore", "Rules", "RulesArgs", "applicable",
           "compile_rule", "validate_rules"]
