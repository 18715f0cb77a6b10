"""The built-in Rules plugin: Filter reasons naming the rule, pods scoping, exact scores."""

import numpy as np
import pytest

from ruleset.config import PluginConfig, Profile, RuleConfig
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework, FrameworkError
from ruleset.pluginmanager import load_registry
from ruleset.plugins.rules import Rules, RulesArgs, compile_rule
from ruleset.scheduler import Scheduler
from tests.factories import Harness, decode, make_node, make_pod

SUCCESS = ("Success", ())


def unresolvable(rule: str) -> tuple[str, tuple[str, ...]]:
    return ("UnschedulableAndUnresolvable", (f'node(s) didn\'t match rule "{rule}"',))


NODES = [
    make_node("ssd-a", {"disktype": "ssd", "zone": "a"}),
    make_node("ssd-b", {"disktype": "ssd", "zone": "b"}),
    make_node("hdd-a", {"disktype": "hdd", "zone": "a"}),
    make_node("maint", {"disktype": "ssd", "zone": "a", "node.kubernetes.io/maintenance": ""}),
]
DB = make_pod("db", labels={"app": "postgres"})
WEB = make_pod("web", labels={"app": "web"})


def harness(rules: list[RuleConfig], nodes=NODES, plugins: list[PluginConfig] | None = None) -> Harness:
    """A Harness whose profile holds ``rules`` (the framework appends the Rules plugin itself)."""
    h = Harness([], nodes)
    profile = Profile(name="test", plugins=list(plugins or []), rules=rules, percentage_of_nodes_to_score=100)
    h.framework = Framework(profile, load_registry(), Handle(h.snapshot))
    h.scheduler = Scheduler(h.framework)
    return h


def test_the_framework_appends_rules_when_the_profile_has_rules():
    h = harness([RuleConfig("r", prefer="zone=a")])
    assert list(h.framework.plugins) == ["Rules", "PrioritySort", "DefaultBinder"]
    assert h.framework.points["Rules"] == ["filter", "score"]
    assert [r.name for r in h.framework.plugins["Rules"].rules] == ["r"]


def test_filter_reason_names_the_rule():
    h = harness([RuleConfig("no-maintenance", require="!node.kubernetes.io/maintenance")])
    assert h.filter(DB) == {"ssd-a": SUCCESS, "ssd-b": SUCCESS, "hdd-a": SUCCESS,
                            "maint": unresolvable("no-maintenance")}
    result = h.run(DB)
    assert result.statuses.status(3).plugin == "Rules"
    assert result.message == ""  # one node passing is enough
    assert h.run(make_pod("x")).node in {"ssd-a", "ssd-b", "hdd-a"}


def test_first_failing_rule_decides_in_rule_order():
    h = harness([
        RuleConfig("ssd", require="disktype=ssd"),
        RuleConfig("zone-a", require="zone=a"),
    ])
    assert h.filter(DB) == {"ssd-a": SUCCESS, "ssd-b": unresolvable("zone-a"), "hdd-a": unresolvable("ssd"),
                            "maint": SUCCESS}
    h = harness([
        RuleConfig("zone-a", require="zone=a"),
        RuleConfig("ssd", require="disktype=ssd"),
    ])
    assert h.filter(DB)["hdd-a"] == unresolvable("ssd")
    assert h.filter(DB)["ssd-b"] == unresolvable("zone-a")


def test_nothing_fits_message_counts_each_rule():
    h = harness([RuleConfig("ssd", require="disktype=ssd"), RuleConfig("zone-c", require="zone=c")])
    assert h.run(DB).message == ('0/4 nodes are available: 1 node(s) didn\'t match rule "ssd", '
                                 '3 node(s) didn\'t match rule "zone-c".')


def test_pods_selector_scopes_the_rule():
    h = harness([RuleConfig("db-on-ssd", pods="app in (postgres, mysql)", require="disktype=ssd")])
    assert h.filter(DB)["hdd-a"] == unresolvable("db-on-ssd")
    assert h.filter(make_pod("my", labels={"app": "mysql"}))["hdd-a"] == unresolvable("db-on-ssd")
    assert h.filter(WEB) == dict.fromkeys(["ssd-a", "ssd-b", "hdd-a", "maint"], SUCCESS)
    assert h.filter(make_pod("nolabels"))["hdd-a"] == SUCCESS


def test_empty_pods_selector_applies_to_every_pod():
    h = harness([RuleConfig("ssd", pods="", require="disktype=ssd")])
    assert h.filter(WEB)["hdd-a"] == unresolvable("ssd")


def test_or_selectors():
    h = harness([RuleConfig("a-or-hdd", pods="app=web || app=postgres", require="zone=a || disktype=hdd")])
    assert h.filter(WEB) == {"ssd-a": SUCCESS, "ssd-b": unresolvable("a-or-hdd"), "hdd-a": SUCCESS,
                             "maint": SUCCESS}


def test_rule_names_are_quoted_as_go_does():
    h = harness([RuleConfig('say "ssd"', require="disktype=ssd")])
    reason = 'node(s) didn\'t match rule "say \\"ssd\\""'
    assert h.filter(DB)["hdd-a"] == ("UnschedulableAndUnresolvable", (reason,))


def test_score_is_the_weighted_share_of_matched_preferences():
    h = harness([
        RuleConfig("ssd", pods="app=postgres", prefer="disktype=ssd", weight=5),
        RuleConfig("zone-a", prefer="zone=a", weight=1),
        RuleConfig("not-for-db", pods="app=web", prefer="disktype=hdd", weight=7),
        RuleConfig("filter-only", require="disktype"),
    ])
    # db: ssd (5) and zone-a (1) apply; raw = 100 × Σ matched weights, score = raw // 6.
    assert h.score(DB, "Rules", raw=True) == {"ssd-a": 600, "ssd-b": 500, "hdd-a": 100, "maint": 600}
    assert h.score(DB, "Rules") == {"ssd-a": 100, "ssd-b": 83, "hdd-a": 16, "maint": 100}
    # web: zone-a (1) and not-for-db (7) apply; weights sum to 8.
    assert h.score(WEB, "Rules", raw=True) == {"ssd-a": 100, "ssd-b": 0, "hdd-a": 800, "maint": 100}
    assert h.score(WEB, "Rules") == {"ssd-a": 12, "ssd-b": 0, "hdd-a": 100, "maint": 12}


def test_score_is_zero_when_no_preference_applies():
    h = harness([RuleConfig("ssd", pods="app=postgres", prefer="disktype=ssd"),
                 RuleConfig("r", require="zone")])
    assert h.score(WEB, "Rules", raw=True) == dict.fromkeys(["ssd-a", "ssd-b", "hdd-a", "maint"], 0)
    assert h.score(WEB, "Rules") == dict.fromkeys(["ssd-a", "ssd-b", "hdd-a", "maint"], 0)


def test_scores_are_only_for_feasible_nodes_and_the_plugin_weight_applies():
    h = harness(
        [RuleConfig("no-maint", require="!node.kubernetes.io/maintenance", prefer="zone=a", weight=3)],
        plugins=[PluginConfig(name="Rules", weight=4)],
    )
    assert h.score(DB, "Rules") == {"ssd-a": 100, "ssd-b": 0, "hdd-a": 100}
    assert h.total(DB) == {"ssd-a": 400, "ssd-b": 0, "hdd-a": 400}


def test_points_limit_the_rules_plugin():
    h = harness([RuleConfig("ssd", require="disktype=ssd", prefer="zone=a")],
                plugins=[PluginConfig(name="Rules", points=("score",))])
    assert h.filter(DB)["hdd-a"] == SUCCESS
    assert h.score(DB, "Rules")["hdd-a"] == 100


def test_the_plugin_can_be_built_with_its_args():
    # Issue 9: rules are the plugin's ordinary args (before, compiled rules were passed as args).
    args = Rules.parse_args({"rules": [{"name": "ssd", "require": "disktype=ssd", "prefer": "zone=a",
                                        "weight": 2}]})
    plugin = Rules(args)
    assert plugin.rules == (compile_rule(RuleConfig("ssd", require="disktype=ssd", prefer="zone=a", weight=2)),)
    h = Harness([], NODES)
    nodes = h.snapshot.all_nodes()
    result = plugin.ruleset_filter(_pod(h), nodes)
    assert result.codes.tolist() == [0, 0, 3, 0]
    raw = plugin.ruleset_score(_pod(h), nodes)
    assert raw.tolist() == [200, 0, 200, 200]
    assert plugin.ruleset_normalize_score(_pod(h), raw).tolist() == [100, 0, 100, 100]


def _pod(h: Harness):
    return decode(DB, h.state)


def test_without_a_framework_or_rules_it_does_nothing():
    plugin = Rules()
    assert plugin.rules == ()
    h = Harness([], NODES)
    nodes = h.snapshot.all_nodes()
    assert plugin.ruleset_filter(_pod(h), nodes) is None
    assert np.array_equal(plugin.ruleset_normalize_score(_pod(h), plugin.ruleset_score(_pod(h), nodes)),
                          np.zeros(4))


def test_a_bad_rule_fails_the_framework_build():
    profile = Profile(name="t", rules=[RuleConfig("bad", require="a in (b")])
    with pytest.raises(FrameworkError) as info:
        Framework(profile, load_registry(), Handle())
    [problem] = info.value.problems
    # Issue 9: a rule is an arg, validated before any plugin is built (it was the constructor's error).
    assert problem.code == "invalid-selector"
    assert "rules[0].require: rule 'bad': invalid selector: unable to parse requirement" in str(problem)


def test_without_rules_the_args_are_empty():
    # Issue 9: the rules are the plugin's one arg; none written shows as no args.
    assert Rules.parse_args({}) == RulesArgs()
    assert Rules.args_to_dict(RulesArgs()) == {}
