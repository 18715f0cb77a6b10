"""Compiling a profile's ``[[rules]]``, and how ``extends`` merges them."""

import textwrap

import pytest

from ruleset.config import Profile, RuleConfig
from ruleset.errors import RulesetError
from ruleset.framework.runtime import Framework, FrameworkError
from ruleset.pluginmanager import load_registry
from ruleset.plugins.rules import CompiledRule, applicable, compile_rule
from ruleset.profile.loader import check_profile, load_profile
from ruleset.selector import Selector, parse
from tests.factories import decode, make_pod


def compile_rules(rules):
    """The compiled rules of the Rules plugin of a framework built from ``rules`` (issue 9: rules are
    that plugin's args, checked and compiled like any other); RulesetError with every problem."""
    return Framework(Profile(name="t", rules=list(rules)), load_registry()).plugins["Rules"].rules


def rule_problems(profile):
    """What building ``profile``'s framework reports about its rules."""
    try:
        Framework(profile, load_registry())
    except FrameworkError as exc:
        return exc.problems
    return []


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def compiled(path):
    return compile_rules(load_profile(path).rules)


def test_compile_parses_every_expression(tmp_path):
    path = write(tmp_path, "p.toml", """\
        name = "p"
        [[rules]]
        name = "databases-on-ssd"
        pods = "app in (postgres, mysql)"
        require = "!node.kubernetes.io/maintenance"
        prefer = "disktype=ssd"
        weight = 5

        [[rules]]
        name = "zone-a"
        prefer = "zone=a || zone=b"
        """)
    assert compiled(path) == (
        CompiledRule("databases-on-ssd", parse("app in (mysql,postgres)"),
                     parse("!node.kubernetes.io/maintenance"), parse("disktype=ssd"), 5),
        CompiledRule("zone-a", Selector.EVERYTHING, None, parse("zone=a || zone=b"), 1),
    )


def test_defaults_every_pod_no_filter_weight_one():
    rule = compile_rule(RuleConfig("r", require="a"))
    assert (rule.pods, rule.require, rule.prefer, rule.weight) == (Selector.EVERYTHING, parse("a"), None, 1)
    assert rule.reason == 'node(s) didn\'t match rule "r"'


def test_applies_to_matches_pod_labels():
    rules = compile_rules([
        RuleConfig("db", pods="app in (postgres, mysql)", require="x"),
        RuleConfig("not-canary", pods="!canary", prefer="x"),
        RuleConfig("all", prefer="x"),
    ])
    pod = decode(make_pod("p", labels={"app": "postgres", "canary": "1"}))
    assert [r.name for r in applicable(rules, pod)] == ["db", "all"]
    assert [r.name for r in applicable(rules, decode(make_pod("q")))] == ["not-canary", "all"]


def test_compile_rules_raises_with_every_problem():
    with pytest.raises(RulesetError) as info:
        compile_rules([RuleConfig("a", pods="x in (", require="ok"), RuleConfig("b", prefer="=v"),
                       RuleConfig("a", prefer="ok")])
    assert [(p.path, p.code) for p in info.value.problems] == [
        ("rules[0].pods", "invalid-selector"), ("rules[1].prefer", "invalid-selector"),
        ("rules[2].name", "duplicate-rule")]


def test_extends_appends_rules_after_the_inherited_ones(tmp_path):
    write(tmp_path, "base.toml", """\
        name = "base"
        [[rules]]
        name = "ssd"
        require = "disktype=ssd"
        [[rules]]
        name = "zone"
        prefer = "zone=a"
        """)
    path = write(tmp_path, "child.toml", """\
        name = "child"
        extends = "base.toml"
        [[rules]]
        name = "gpu"
        pods = "gpu"
        require = "accelerator"
        """)
    rules = compiled(path)
    assert [r.name for r in rules] == ["ssd", "zone", "gpu"]
    assert rules[2] == CompiledRule("gpu", parse("gpu"), parse("accelerator"), None, 1)
    profile = load_profile(path)
    assert [r.origin.file for r in profile.rules] == [str(tmp_path / "base.toml")] * 2 + [str(path)]


def test_extends_same_name_replaces_the_inherited_rule_in_place(tmp_path):
    write(tmp_path, "base.toml", """\
        name = "base"
        [[rules]]
        name = "ssd"
        require = "disktype=ssd"
        weight = 3
        [[rules]]
        name = "zone"
        prefer = "zone=a"
        """)
    path = write(tmp_path, "child.toml", """\
        name = "child"
        extends = "base.toml"
        [[rules]]
        name = "ssd"
        prefer = "disktype in (ssd, nvme)"
        """)
    rules = compiled(path)
    # Replaced as a whole: the inherited require and weight are gone, the position is kept.
    assert rules == (
        CompiledRule("ssd", Selector.EVERYTHING, None, parse("disktype in (nvme,ssd)"), 1),
        CompiledRule("zone", Selector.EVERYTHING, None, parse("zone=a"), 1),
    )


def test_extends_chain_of_three(tmp_path):
    write(tmp_path, "a.toml", 'name = "a"\n[[rules]]\nname = "r1"\nrequire = "a"\n')
    write(tmp_path, "b.toml", 'name = "b"\nextends = "a.toml"\n[[rules]]\nname = "r2"\nrequire = "b"\n')
    path = write(tmp_path, "c.toml", 'name = "c"\nextends = "b.toml"\n[[rules]]\nname = "r1"\nrequire = "c"')
    assert [(r.name, str(r.require)) for r in compiled(path)] == [("r1", "c"), ("r2", "b")]


def test_an_error_in_an_inherited_rule_points_at_the_base_file(tmp_path):
    base = write(tmp_path, "base.toml", 'name = "base"\n[[rules]]\nname = "bad"\nrequire = "a in (b"\n')
    path = write(tmp_path, "child.toml", 'name = "child"\nextends = "base.toml"\n')
    _, problems = check_profile(path)
    assert [(p.file, p.line, p.column, p.path) for p in problems] == [(str(base), 4, 19, "rules[0].require")]


def test_a_replaced_inherited_rule_is_not_checked(tmp_path):
    write(tmp_path, "base.toml", 'name = "base"\n[[rules]]\nname = "bad"\nrequire = "a in (b"\n')
    path = write(tmp_path, "child.toml", 'name = "child"\nextends = "base.toml"\n'
                                         '[[rules]]\nname = "bad"\nrequire = "a"\n')
    assert check_profile(path)[1] == []


def test_rule_problems_of_rules_built_in_code_use_their_origin():
    from ruleset.config import Profile

    rules = [RuleConfig("ok", require="a"), RuleConfig("bad", prefer="a b")]
    problems = rule_problems(Profile(name="x", rules=rules))
    assert [(p.file, p.line, p.path, p.code) for p in problems] == [(None, None, "rules[1].prefer",
                                                                     "invalid-selector")]
    assert problems[0].message == ("rule 'bad': invalid selector: unable to parse requirement: found 'b', "
                                   "expected: '=', '!=', '==', 'in', notin'")


def test_preference_weights_that_could_overflow_are_reported(tmp_path):
    big = (2**63 - 1) // 100
    path = write(tmp_path, "p.toml", f"""\
        name = "p"
        [[rules]]
        name = "a"
        prefer = "x"
        weight = {big}
        [[rules]]
        name = "f"
        require = "x"
        weight = {big}
        [[rules]]
        name = "b"
        prefer = "y"
        weight = 1
        """)
    _, problems = check_profile(path)
    assert [(p.line, p.column, p.path, p.code) for p in problems] == [
        (13, 10, "rules[2].weight", "weight-overflow")]
