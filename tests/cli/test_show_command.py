"""``ruleset show PROFILE``: the effective profile, exactly as the framework runs it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.framework.points import EXTENSION_POINTS
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import load_profile, tomllib

BUNDLED = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "profiles").glob("*.toml"))


def run(capsys, *argv):
    code = main(["show", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def child(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.toml").write_text(textwrap.dedent("""\
        name = "base"
        [plugins.NodeResourcesFit]
        [plugins.NodeLabel]
        weight = 2
        args = { presentLabelsPreference = ["ssd"] }
        """))
    path = tmp_path / "child.toml"
    path.write_text(textwrap.dedent("""\
        name = "child"
        extends = "base.toml"
        percentageOfNodesToScore = 70
        [plugins.NodeResourcesLeastAllocated]
        weight = 3
        [[rules]]
        name = "ssd"
        prefer = "disktype=ssd"
        weight = 4
        """))
    return path


def tables(framework: Framework) -> dict[str, list[tuple[str, int]]]:
    return {hook: [(s.plugin, s.weight) for s in steps] for hook, steps in framework.tables.items()}


def test_json_is_what_the_framework_runs(child, capsys):
    code, out, err = run(capsys, "child.toml", "-o", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["schemaVersion"] == 1
    assert doc["name"] == "child" and doc["percentageOfNodesToScore"] == 70
    assert doc["files"] == ["child.toml", "base.toml"]
    framework = Framework(load_profile(child), load_registry())
    assert doc["extensionPoints"] == {point.key: [s.plugin for s in framework.tables[point.main_hook]]
                                      for point in EXTENSION_POINTS}
    assert doc["extensionPoints"]["queueSort"] == ["PrioritySort"]
    assert doc["extensionPoints"]["bind"] == ["DefaultBinder"]
    assert doc["extensionPoints"]["score"] == ["NodeLabel", "NodeResourcesLeastAllocated", "Rules"]
    plugins = {p["name"]: p for p in doc["plugins"]}
    names = ["NodeResourcesFit", "NodeLabel", "NodeResourcesLeastAllocated", "Rules", "PrioritySort",
             "DefaultBinder"]
    assert [p["name"] for p in doc["plugins"]] == names
    implicit = {name for name, p in plugins.items() if p["implicit"]}
    assert implicit == {"Rules", "PrioritySort", "DefaultBinder"}
    assert plugins["NodeLabel"]["weight"] == 2 and plugins["NodeResourcesFit"]["weight"] is None
    assert plugins["NodeLabel"]["origin"] == "base.toml:3:10"
    # args with their defaults filled in
    assert plugins["NodeLabel"]["args"] == {"presentLabels": [], "absentLabels": [],
                                            "presentLabelsPreference": ["ssd"], "absentLabelsPreference": []}
    assert plugins["NodeResourcesLeastAllocated"]["args"] == {"resources": [{"name": "cpu", "weight": 1},
                                                                            {"name": "memory", "weight": 1}]}
    assert doc["rules"] == [
        {"name": "ssd", "pods": "", "require": None, "prefer": "disktype=ssd", "weight": 4}]


def test_text(child, capsys):
    code, out, _ = run(capsys, "child.toml")
    assert code == 0
    assert "files: child.toml extends base.toml" in out
    assert "  score       NodeLabel×2, NodeResourcesLeastAllocated×3, Rules×1" in out
    assert "  PrioritySort  (points queueSort; added by the framework)" in out
    assert "      presentLabelsPreference = [\"ssd\"]" in out
    assert "  ssd  (weight 4; prefer: disktype=ssd)" in out


@pytest.mark.parametrize("name", BUNDLED)
def test_toml_is_a_flattened_profile_that_builds_the_same_framework(name, tmp_path, capsys):
    code, out, _ = run(capsys, name, "--output", "toml")
    assert code == 0
    data = tomllib.loads(out)
    assert "extends" not in data
    saved = tmp_path / "flat.toml"
    saved.write_text(out, encoding="utf-8")
    assert main(["validate", "--strict", str(saved)]) == 0
    capsys.readouterr()
    registry = load_registry()
    original = Framework(load_profile(name), registry)
    flattened = Framework(load_profile(saved), registry)
    assert tables(flattened) == tables(original)
    assert flattened.profile.target == original.profile.target
    assert {n: c.args for n, c in flattened.configs.items()} == {
        n: with_defaults(type(original.plugins[n]), c.args, original.profile.target)
        for n, c in original.configs.items()}


def with_defaults(cls, args, target):
    """``args`` with every default filled in, those of ``target``'s release (``defaults_for``) too,
    without the args that release does not have (``args_not_in``)."""
    release = cls.defaults_for(target) if hasattr(cls, "defaults_for") else {}
    hidden = cls.args_not_in(target) if hasattr(cls, "args_not_in") else frozenset()
    filled = cls.args_to_dict(cls.parse_args({**release, **args}))
    return {key: value for key, value in filled.items() if key not in hidden}


CPU_MEMORY = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


# (balanceAttachedNodeVolumes, a 1.20/1.21 arg, is not shown from 1.22 on: args_not_in.)
@pytest.mark.parametrize(("name", "version", "fit", "balanced"), [
    pytest.param("default-1.20", "1.20", {"ignoredResources": [], "ignoredResourceGroups": []}, None, id="1.20"),
    pytest.param("default", "1.35", {"ignoredResources": [], "ignoredResourceGroups": [], "scoringStrategy": {
        "type": "LeastAllocated", "resources": CPU_MEMORY}}, CPU_MEMORY, id="1.35"),
])
def test_release_dependent_default_args_are_filled(capsys, name, version, fit, balanced):
    document = json.loads(run(capsys, name, "-o", "json")[1])
    plugins = {p["name"]: p["args"] for p in document["plugins"]}
    assert (document["kubernetesVersion"], document["featureGates"]) == (version, {})
    assert (plugins["NodeResourcesFit"], plugins["NodeResourcesBalancedAllocation"].get("resources")) == (
        fit, balanced)


def test_toml_of_a_profile_with_rules_round_trips(child, capsys, tmp_path):
    _, out, _ = run(capsys, "child.toml", "-o", "toml")
    (tmp_path / "flat.toml").write_text(out)
    registry = load_registry()
    assert tables(Framework(load_profile(tmp_path / "flat.toml"), registry)) == tables(
        Framework(load_profile(child), registry))


def test_invalid_profile_exits_2_with_located_errors(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\n[plugins.NodeLabl]\n')
    code, out, err = run(capsys, str(path))
    assert (code, out) == (2, "")
    assert err == (f"error: {path}:2:10: plugins.NodeLabl: unknown plugin 'NodeLabl'; "
                   "did you mean 'NodeLabel'?\n")


def test_unknown_profile_name_exits_2(capsys):
    code, _, err = run(capsys, "no-such-profile")
    assert code == 2 and "no such profile file, and no bundled profile of that name" in err


# ------------------------------------------------------------------ aliases and schedulerName
ALIASES = """\
name = "aliases"
schedulerName = "legacy"
[plugins.PrioritySort]
[plugins.ServiceSpreading]
weight = 2
[plugins.ResourceLimits]
weight = 3
[plugins.DefaultBinder]
"""


@pytest.mark.parametrize("files,argument,expected", [
    # (issue 12: a KeyError once, the extension points listing the name as written)
    pytest.param({"p.toml": ALIASES}, "p.toml", [
        "profile aliases",
        "files: p.toml",
        "schedulerName: legacy",
        "kubernetesVersion: 1.20",
        "percentageOfNodesToScore: 0 (adaptive)",
        "",
        "extension points, in run order:",
        "  queueSort   PrioritySort",
        "  preScore    ServiceSpreading, ResourceLimits",
        "  score       ServiceSpreading×2, ResourceLimits×3",
        "  bind        DefaultBinder",
        "",
        "plugins:",
        "  PrioritySort  (points queueSort; from p.toml:3:10)",
        "  SelectorSpread  (weight 2; points preScore, score; written as ServiceSpreading; from p.toml:4:10)",
        "      zoneWeighting = 0.6666666666666666",
        "  NodeResourceLimits  (weight 3; points preScore, score; written as ResourceLimits; from p.toml:6:10)",
        "  DefaultBinder  (points bind; from p.toml:8:10)",
    ], id="both-aliases"),
    pytest.param({"p.toml": 'name = "p"\n[plugins.ResourceLimits]\n'}, "p.toml", [
        "profile p",
        "files: p.toml",
        "schedulerName: default-scheduler",
        "kubernetesVersion: 1.20",
        "percentageOfNodesToScore: 0 (adaptive)",
        "",
        "extension points, in run order:",
        "  queueSort   PrioritySort",
        "  preScore    ResourceLimits",
        "  score       ResourceLimits×1",
        "  bind        DefaultBinder",
        "",
        "plugins:",
        "  NodeResourceLimits  (weight 1; points preScore, score; written as ResourceLimits; from p.toml:2:10)",
        "  PrioritySort  (points queueSort; added by the framework)",
        "  DefaultBinder  (points bind; added by the framework)",
    ], id="alias-alone"),
    pytest.param({"base.toml": ALIASES, "p.toml": 'name = "p"\nextends = "base.toml"\n[plugins.SelectorSpread]\n'
                  "weight = 5\n"}, "p.toml", [
        "profile p",
        "files: p.toml extends base.toml",
        "schedulerName: legacy",
        "kubernetesVersion: 1.20",
        "percentageOfNodesToScore: 0 (adaptive)",
        "",
        "extension points, in run order:",
        "  queueSort   PrioritySort",
        "  preScore    ServiceSpreading, ResourceLimits",
        "  score       ServiceSpreading×5, ResourceLimits×3",
        "  bind        DefaultBinder",
        "",
        "plugins:",
        "  PrioritySort  (points queueSort; from base.toml:3:10)",
        "  SelectorSpread  (weight 5; points preScore, score; written as ServiceSpreading; from p.toml:3:10)",
        "      zoneWeighting = 0.6666666666666666",
        "  NodeResourceLimits  (weight 3; points preScore, score; written as ResourceLimits; from base.toml:6:10)",
        "  DefaultBinder  (points bind; from base.toml:8:10)",
    ], id="alias-inherited-canonical-in-child"),
])
def test_aliases(tmp_path, monkeypatch, capsys, files, argument, expected):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = run(capsys, argument)
    assert (code, err) == (0, "")
    assert out.splitlines() == expected


@pytest.mark.parametrize("files,scheduler_name", [
    pytest.param({"p.toml": ALIASES}, "legacy", id="own"),
    pytest.param({"p.toml": 'name = "p"\nextends = "default"\n'}, "default-scheduler", id="default"),
])
def test_scheduler_name_in_json_and_flattened_toml(tmp_path, monkeypatch, capsys, files, scheduler_name):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert json.loads(run(capsys, "p.toml", "-o", "json")[1])["schedulerName"] == scheduler_name
    flat = run(capsys, "p.toml", "-o", "toml")[1]
    assert tomllib.loads(flat)["schedulerName"] == scheduler_name
    (tmp_path / "flat.toml").write_text(flat, encoding="utf-8")
    assert load_profile(tmp_path / "flat.toml").scheduler_name == scheduler_name
