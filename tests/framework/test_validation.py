"""``check_plugins``: every rule about a profile's plugins, once, as findings before location.

Each rule is one row: a profile built in code, and the findings (code, plugin, key) it
gives. Where the profile comes from a file, ``tests/profile/corpus`` pins the located
problems (file, line, column, message); here the rules themselves are pinned. The messages
are kube-scheduler v1.20's (``framework/runtime/framework.go``, ``apis/config/validation``)
where it has one.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from ruleset import Plugin, hookimpl
from ruleset.config import Origin, PluginConfig, Profile, RuleConfig, Source
from ruleset.framework.defaults import plugin_configs
from ruleset.framework.points import MAX_WEIGHT
from ruleset.framework.validation import check_plugins
from tests.factories import registry_with


class Picky(Plugin):
    """Takes a ``mode`` arg that must not be "bad"."""

    name = "Picky"
    args_schema: ClassVar[dict] = {"type": "object", "properties": {"mode": {"type": "string"}}}

    @classmethod
    def validate_args(cls, args):
        from ruleset import ArgError

        return [ArgError(("mode",), "mode must not be bad")] if args.get("mode") == "bad" else []

    @hookimpl
    def ruleset_filter(self, nodes):
        return None


class Typo(Plugin):
    name = "Typo"

    @hookimpl
    def ruleset_filtr(self, nodes):
        return None


class OtherSort(Plugin):
    name = "OtherSort"

    @hookimpl
    def ruleset_queue_sort(self, a, b):
        return False


REGISTRY = registry_with(Picky, Typo, OtherSort)
WEIGHT_SET = {("weight",): Source(Origin("p.toml", 3, 1), ("plugins", "NodeName", "weight"))}


def findings(*configs: PluginConfig, disabled=(), rules=()) -> list[tuple[str, str | None, tuple, str]]:
    profile = Profile(name="p", plugins=list(configs), disabled=set(disabled), rules=list(rules))
    return [(f.code, f.config.name if f.config else None, f.key, f.severity)
            for f in check_plugins(profile, REGISTRY).findings]


CASES = [
    pytest.param([PluginConfig("NodeName")], {}, [], id="fine"),
    pytest.param([PluginConfig("Nope")], {}, [("unknown-plugin", "Nope", (), "error")], id="unknown-plugin"),
    pytest.param([PluginConfig("NodeName"), PluginConfig("NodeName")], {},
                 [("duplicate-plugin", "NodeName", (), "error")], id="duplicate-plugin"),
    pytest.param([PluginConfig("Picky", args={"mode": "bad"})], {},
                 [("invalid-args", "Picky", ("args", "mode"), "error")], id="invalid-args"),
    pytest.param([PluginConfig("Typo")], {}, [("invalid-hook", "Typo", (), "error")], id="invalid-hook"),
    pytest.param([PluginConfig("NodeName", points=("score",))], {},
                 [("point-not-implemented", "NodeName", ("points", 0), "error")], id="point-not-implemented"),
    pytest.param([PluginConfig("NodeName", points=("filter", "nowhere"))], {},
                 [("unknown-extension-point", "NodeName", ("points", 1), "error")], id="unknown-point"),
    pytest.param([PluginConfig("NodeName", weight=2, sources=WEIGHT_SET)], {},
                 [("weight-without-score", "NodeName", ("weight",), "warning")], id="weight-without-score"),
    pytest.param([PluginConfig("NodeName", weight=2)], {}, [], id="an-unwritten-weight-warns-of-nothing"),
    pytest.param([PluginConfig("NodeName")], {"disabled": ["PrioritySort"]},
                 [("no-queue-sort", None, (), "error")], id="no-queue-sort"),
    pytest.param([PluginConfig("PrioritySort"), PluginConfig("OtherSort")], {},
                 [("multiple-queue-sort", "OtherSort", (), "error")], id="multiple-queue-sort"),
    pytest.param([PluginConfig("NodeName")], {"disabled": ["DefaultBinder"]},
                 [("no-bind-plugin", None, (), "error")], id="no-bind-plugin"),
    pytest.param([PluginConfig("ImageLocality", weight=MAX_WEIGHT), PluginConfig("NodeAffinity", weight=MAX_WEIGHT)],
                 {}, [("weight-overflow", "ImageLocality", ("weight",), "error")], id="weight-overflow"),
    # A weight the schema refuses (above MAX_WEIGHT) is not summed: the schema reports it.
    pytest.param([PluginConfig("ImageLocality", weight=2**62), PluginConfig("NodeAffinity", weight=2**62)],
                 {}, [], id="out-of-range-weights-are-the-schemas"),
    # A points mistake on a default plugin is one problem, not a cascade (the default is not
    # added again, and QueueSort/Bind are only checked once every plugin is fine).
    pytest.param([PluginConfig("PrioritySort", points=("filter",))], {},
                 [("point-not-implemented", "PrioritySort", ("points", 0), "error")], id="points-on-a-default"),
    pytest.param([], {"rules": [RuleConfig("r", require="a in (")]},
                 [("invalid-selector", "Rules", ("args", "rules", 0, "require"), "error")], id="rule-selector"),
]


@pytest.mark.parametrize(("configs", "extra", "expected"), CASES)
def test_each_rule(configs, extra, expected):
    assert findings(*configs, **extra) == expected


def test_the_default_plugins_fill_the_points_no_plugin_fills():
    profile = Profile(name="p", plugins=[PluginConfig("NodeName")])
    assert [c.name for c in plugin_configs(profile, REGISTRY)] == ["NodeName", "PrioritySort", "DefaultBinder"]
    profile = Profile(name="p", plugins=[PluginConfig("OtherSort")])
    assert [c.name for c in plugin_configs(profile, REGISTRY)] == ["OtherSort", "DefaultBinder"]


def test_rules_become_the_rules_plugins_args_after_the_profiles_plugins():
    rule = RuleConfig("r", prefer="disktype=ssd", weight=3, origin=Origin("p.toml", 7, 1), path=("rules", 0))
    profile = Profile(name="p", plugins=[PluginConfig("NodeName")], rules=[rule])
    configs = plugin_configs(profile, REGISTRY)
    assert [c.name for c in configs] == ["NodeName", "Rules", "PrioritySort", "DefaultBinder"]
    assert configs[1].args == {"rules": [{"name": "r", "pods": "", "prefer": "disktype=ssd", "weight": 3}]}
    assert configs[1].sources == {("args", "rules", 0): Source(Origin("p.toml", 7, 1), ("rules", 0))}


def test_rules_are_appended_to_a_listed_rules_plugin_in_its_place():
    rule = RuleConfig("r", require="a")
    listed = PluginConfig("Rules", weight=4, args={"rules": [{"name": "first", "require": "b"}]})
    profile = Profile(name="p", plugins=[listed, PluginConfig("NodeName")], rules=[rule])
    configs = plugin_configs(profile, REGISTRY)
    assert [c.name for c in configs] == ["Rules", "NodeName", "PrioritySort", "DefaultBinder"]
    assert [r["name"] for r in configs[0].args["rules"]] == ["first", "r"]
    assert configs[0].weight == 4
    assert listed.args == {"rules": [{"name": "first", "require": "b"}]}  # the profile itself is unchanged
    assert configs[0].sources == {("args", "rules", 1): Source(Origin(), ("rules", 0))}


def test_a_disabled_rules_plugin_is_not_added_back():
    profile = Profile(name="p", plugins=[PluginConfig("NodeName")], disabled={"Rules"},
                      rules=[RuleConfig("r", require="a")])
    assert [c.name for c in plugin_configs(profile, REGISTRY)] == ["NodeName", "PrioritySort", "DefaultBinder"]


def test_only_plugins_without_errors_are_planned_with_their_parsed_args_and_points():
    profile = Profile(name="p", plugins=[PluginConfig("NodeLabel", points=("filter",),
                                                      args={"presentLabels": ["zone"]}),
                                         PluginConfig("Picky", args={"mode": "bad"})])
    check = check_plugins(profile, REGISTRY)
    assert [(p.config.name, p.points) for p in check.plugins] == [
        ("NodeLabel", ("filter",)), ("PrioritySort", ("queueSort",)), ("DefaultBinder", ("bind",))]
    assert check.plugins[0].args.present_labels == ("zone",)
    assert [f.code for f in check.errors] == ["invalid-args"]
