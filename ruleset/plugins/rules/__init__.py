"""The Rules plugin: a profile's declarative ``[[rules]]`` (label-selector filters and preferences)."""

from ruleset.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.plugins.rules.args import RULE_SCHEMA, Rule, RulesArgs, validate_rules
    from ruleset.plugins.rules.compiled import CompiledRule, RuleScore, applicable, compile_rule
    from ruleset.plugins.rules.plugin import Rules

#: Each name -> its module, imported when the name is first read: importing one module of the
#: package (its args, for ``ruleset validate``) imports no other.
_EXPORTS = {
    "RULE_SCHEMA": "ruleset.plugins.rules.args",
    "Rule": "ruleset.plugins.rules.args",
    "RulesArgs": "ruleset.plugins.rules.args",
    "validate_rules": "ruleset.plugins.rules.args",
    "CompiledRule": "ruleset.plugins.rules.compiled",
    "RuleScore": "ruleset.plugins.rules.compiled",
    "applicable": "ruleset.plugins.rules.compiled",
    "compile_rule": "ruleset.plugins.rules.compiled",
    "Rules": "ruleset.plugins.rules.plugin",
}

__all__ = ["RULE_SCHEMA", "CompiledRule", "Rule", "RuleScore", "Rules", "RulesArgs", "applicable",
           "compile_rule", "validate_rules"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
