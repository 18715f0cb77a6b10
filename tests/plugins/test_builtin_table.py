"""The built-in plugins as data (:mod:`ruleset.plugins.table`) say what their classes say.

``ruleset validate`` checks profiles with *declared* classes built from the table rows and the
plugins' args modules (:func:`ruleset.pluginmanager.declared_class`), without importing the
plugins. Each row is compared with the class it names; each declared class with the real one
(args schema, args parsing and checks on a table of args at every release, points at every
release, hook conformance); each :class:`~ruleset.plugins.table.ArgsSpec`'s
``constructor_refuses`` with the constructor at every release with every gate it knows flipped;
and ``validate`` with the declared classes against ``validate`` with the real ones on every
profile of the repository.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from ruleset import Handle, Plugin, Target
from ruleset.config import Profile
from ruleset.framework.hooks import class_hooks
from ruleset.framework.points import HOOKS, IMPL_MARKER, implemented_points
from ruleset.framework.validation import available_points
from ruleset.kversion import SUPPORTED, gates_known_at
from ruleset.pluginmanager import (
    args_spec,
    builtin_class,
    declared_class,
    load_profile_registry,
    load_registry,
)
from ruleset.plugins import BUILTIN_PLUGINS
from ruleset.plugins.table import BUILTINS, IN_CLASS, BuiltinPlugin
from ruleset.validate.checks import validate_files

ROOT = Path(__file__).resolve().parents[2]
ROWS = {row.name: row for row in BUILTINS}
DECLARED = [row for row in BUILTINS if row.declared]


def test_the_table_lists_every_built_in_plugin_in_order():
    assert [(row.module, row.cls) for row in BUILTINS] == [(c.__module__, c.__qualname__) for c in BUILTIN_PLUGINS]
    assert [row.name for row in BUILTINS] == [c.name for c in BUILTIN_PLUGINS]
    assert [builtin_class(row) for row in BUILTINS] == list(BUILTIN_PLUGINS)


def _hooks(cls: type) -> tuple[str, ...]:
    return tuple(h for h in HOOKS if getattr(getattr(cls, h, None), IMPL_MARKER, None) is not None)


@pytest.mark.parametrize("row", BUILTINS, ids=[row.name for row in BUILTINS])
def test_each_row_declares_what_its_class_does(row: BuiltinPlugin):
    cls = builtin_class(row)
    assert (row.hooks, row.aliases, row.introduced_in, row.removed_in, row.replaced_by, dict(row.points_since)) == (
        _hooks(cls), cls.aliases, cls.introduced_in, cls.removed_in, cls.replaced_by, dict(cls.points_since))
    if row.args is None:
        assert cls.Args is None
    elif row.args == IN_CLASS:
        assert cls.Args is not None
    else:
        spec = args_spec(row)
        assert spec is not None and spec.Args is cls.Args
        for method in ("validate_args", "validate_args_for", "defaults_for", "args_not_in"):
            overridden = any(method in k.__dict__ for k in cls.__mro__ if k is not Plugin)
            assert (getattr(spec, method) is not None) == overridden, method


@pytest.mark.parametrize("row", DECLARED, ids=[row.name for row in DECLARED])
def test_a_declared_class_has_the_real_classes_schema_points_and_hooks(row: BuiltinPlugin):
    cls, declared = builtin_class(row), declared_class(row)
    assert (declared.name, declared.aliases, declared.args_schema) == (cls.name, cls.aliases, cls.args_schema)
    assert implemented_points(declared) == implemented_points(cls)
    for version in SUPPORTED:
        target = Target(version)
        assert available_points(declared, target) == available_points(cls, target)
        for method in ("defaults_for", "args_not_in"):
            if hasattr(cls, method):
                assert getattr(declared, method)(target) == getattr(cls, method)(target), (method, version)
    assert class_hooks(declared).problem is None and class_hooks(cls).problem is None
    with pytest.raises(TypeError):
        declared()


_AFFINITY_TERM = {"matchExpressions": [{"key": "a", "operator": "Bogus", "values": ["x"]}]}
#: Args for each declared plugin that takes some: defaults, valid and invalid values.
ARGS: dict[str, list[dict[str, Any]]] = {
    "NodeResourcesFit": [
        {}, {"ignoredResources": ["example.com/gpu", "bad name!"]}, {"ignoredResourceGroups": ["a/b", "ok"]},
        {"scoringStrategy": {"type": "MostAllocated"}},
        {"scoringStrategy": {"type": "Bogus", "resources": [{"name": "cpu", "weight": 101}]}},
        {"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
        {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
            "shape": [{"utilization": 50, "score": 11}, {"utilization": 10, "score": 2}]}}},
    ],
    "NodeResourcesBalancedAllocation": [
        {}, {"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 2}]},
        {"balanceAttachedNodeVolumes": True}, {"resources": []},
    ],
    "NodeAffinity": [
        {}, {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
        {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            _AFFINITY_TERM, {}, _AFFINITY_TERM]}}},
        {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}},
            {"weight": 0, "preference": _AFFINITY_TERM}]}},
    ],
    "PodTopologySpread": [
        {}, {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Sometimes"},
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]},
        {"defaultingType": "System", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]},
    ],
    "InterPodAffinity": [{}, {"hardPodAffinityWeight": 101}, {"ignorePreferredTermsOfExistingPods": True}],
    "VolumeBinding": [{}, {"bindTimeoutSeconds": 0}, {"bindTimeoutSeconds": -1}],
    "DefaultPreemption": [
        {}, {"minCandidateNodesPercentage": 101}, {"minCandidateNodesAbsolute": -1},
        {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
    ],
    "Rules": [{}, {"rules": [{"name": "a", "require": "zone in (", "weight": 1},
                             {"name": "a", "prefer": "disk=ssd", "weight": 2}]}],
}
ARG_CASES = [(name, raw) for name, cases in ARGS.items() for raw in cases]


def test_every_declared_plugin_with_args_has_cases():
    assert sorted(ARGS) == sorted(row.name for row in DECLARED if row.args is not None)


@pytest.mark.parametrize(("name", "raw"), ARG_CASES, ids=[f"{n}-{i}" for n, c in ARGS.items() for i in range(len(c))])
def test_a_declared_class_checks_args_as_the_real_class(name: str, raw: dict[str, Any]):
    cls, declared = builtin_class(ROWS[name]), declared_class(ROWS[name])
    args, errors = declared.check_args(raw)
    assert (args, errors) == cls.check_args(raw)
    release_check = getattr(cls, "validate_args_for", None)
    declared_check = getattr(declared, "validate_args_for", None)
    assert (declared_check is None) == (release_check is None)
    if args is not None and release_check is not None and declared_check is not None:
        for version in SUPPORTED:
            assert declared_check(args, Target(version)) == release_check(args, Target(version))


def _targets() -> list[Target]:
    """Every release, with its default gates and with each gate it knows flipped."""
    out = []
    for version in SUPPORTED:
        out.append(Target(version))
        for gate, (enabled, _) in gates_known_at(version).items():
            out.append(Target(version, {gate: not enabled}))
    return out


def _built(cls: type[Plugin], target: Target) -> bool:
    profile = Profile("p", kubernetes_version=str(target.version), feature_gates=dict(target.overrides))
    handle = Handle()
    handle.framework = types.SimpleNamespace(profile=profile)  # type: ignore[assignment]
    try:
        cls(None, handle)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("row", DECLARED, ids=[row.name for row in DECLARED])
def test_constructor_refuses_says_when_the_constructor_refuses(row: BuiltinPlugin):
    cls, spec = builtin_class(row), args_spec(row)
    refuses = spec.constructor_refuses if spec is not None else None
    for target in _targets():
        assert _built(cls, target) == (refuses is None or not refuses(target)), (str(target), target.overrides)


def test_volume_binding_refuses_its_scoring_gates():
    spec = args_spec(ROWS["VolumeBinding"])
    assert spec is not None and spec.constructor_refuses is not None
    assert spec.constructor_refuses(Target(SUPPORTED[1], {"VolumeCapacityPriority": True})) is True
    assert spec.constructor_refuses(Target(SUPPORTED[1])) is False


def _profiles() -> list[Path]:
    found = sorted({*ROOT.glob("profiles/**/*.toml"), *ROOT.glob("tests/**/*.toml"), *ROOT.glob("examples/**/*.toml")})
    return [p for p in found if "golden" not in p.parts or p.suffix == ".toml"]


def _problems(path: Path, registry: Any) -> list[tuple[Any, ...]]:
    report = validate_files([path], registry)
    return [(f.path, p.code, p.severity, p.line, p.column, p.path, p.message) for f in report.files for p in f.problems]


def test_validate_with_declared_classes_reports_what_the_real_classes_do():
    """Every profile in the repository: the same problems, at the same places, either way."""
    load_registry.cache_clear()
    eager, lazy = load_registry(autoload=False), load_profile_registry(autoload=False)
    paths = _profiles()
    assert len(paths) > 100
    differ = [p for p in paths if _problems(p, lazy) != _problems(p, eager)]
    assert differ == []
    assert lazy.deferred is not None and any(getattr(c, "declared_from", None) for c in lazy.classes.values())


def test_a_declared_rows_plugins_are_built_only_when_their_constructor_may_refuse(tmp_path: Path):
    path = tmp_path / "p.toml"
    path.write_text('name = "p"\nkubernetesVersion = "1.21"\nfeatureGates = { VolumeCapacityPriority = true }\n'
                    '[plugins.VolumeBinding]\n[plugins.PrioritySort]\n[plugins.DefaultBinder]\n')
    load_registry.cache_clear()
    [problem] = [p for f in validate_files([path], load_profile_registry(autoload=False)).files for p in f.problems]
    assert (problem.code, problem.line, problem.column, problem.message) == (
        "plugin-init-failed", 4, 10, "initializing plugin 'VolumeBinding': ValueError: VolumeBinding's scoring "
        "under the VolumeCapacityPriority feature gate is not modelled by ruleset (leave the gate off)")


def test_rows_are_frozen_data():
    assert dataclasses.is_dataclass(BuiltinPlugin) and all(isinstance(row.hooks, tuple) for row in BUILTINS)


def test_the_versions_command_lists_every_built_in_plugins_switches():
    """``ruleset.plugins`` imports no plugin by itself: ``versions`` must still see their switches."""
    code = ("import json, sys\nfrom ruleset.cli.versions import versions_json\n"
            "print(json.dumps(sorted({s['key'].split('.')[0] for s in versions_json('1.35')['switches']})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    owners = set(json.loads(out))
    assert {"NodeResourcesFit", "DefaultPreemption", "InterPodAffinity", "VolumeBinding"} <= owners
