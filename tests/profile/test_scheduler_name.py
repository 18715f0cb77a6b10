"""A profile's ``schedulerName``: read, inherited through ``extends``, checked, and compared across
the profiles of one scheduler (:func:`ruleset.profile.loader.check_scheduler_names`).

Upstream (kubernetes/kubernetes v1.20.0, ``pkg/scheduler/apis/config/validation/validation.go``):
``validateKubeSchedulerProfile`` requires a non-empty ``schedulerName`` and checks nothing else of
it (no DNS-1123 rule; the API server does not validate a pod's ``spec.schedulerName`` either),
and ``ValidateKubeSchedulerConfiguration`` reports a later profile serving an earlier one's name
as ``field.Duplicate(profiles[i].schedulerName, profiles[j].schedulerName)``. Left out: that
error's value, which upstream prints as a Go struct dump of the other ``*field.Path``; here the
other profile's name and location stand in its place.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ruleset import bundled
from ruleset.config import DEFAULT_SCHEDULER_NAME
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import check_profile, check_scheduler_names, display_path, load_profile
from ruleset.profile.schema import profile_schema

REGISTRY = load_registry()


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ reading and extends
@pytest.mark.parametrize("files,name,origin", [
    pytest.param({"p.toml": 'name = "p"\n'}, DEFAULT_SCHEDULER_NAME, None, id="default"),
    pytest.param({"p.toml": 'name = "p"\nschedulerName = "batch"\n'}, "batch", ("p.toml", 2, 17), id="own"),
    pytest.param({"base.toml": 'name = "base"\nschedulerName = "batch"\n',
                  "p.toml": 'name = "p"\nextends = "base.toml"\n'},
                 "batch", ("base.toml", 2, 17), id="inherited"),
    pytest.param({"base.toml": 'name = "base"\nschedulerName = "batch"\n',
                  "p.toml": 'name = "p"\nextends = "base.toml"\nschedulerName = "gpu"\n'},
                 "gpu", ("p.toml", 3, 17), id="child-wins"),
    pytest.param({"base.toml": 'name = "base"\nschedulerName = "batch"\n',
                  "mid.toml": 'name = "mid"\nextends = "base.toml"\n',
                  "p.toml": 'name = "p"\nextends = "mid.toml"\n'},
                 "batch", ("base.toml", 2, 17), id="two-levels-up"),
    pytest.param({"p.toml": 'name = "p"\nextends = "default"\n'}, DEFAULT_SCHEDULER_NAME, None,
                 id="extends-bundled"),
    pytest.param({"p.toml": 'name = "p"\nextends = "cluster-autoscaler"\nschedulerName = "bin-packing"\n'},
                 "bin-packing", ("p.toml", 3, 17), id="renames-a-bundled-one"),
])
def test_scheduler_name_through_extends(project, files, name, origin):
    write(project, files)
    profile = load_profile(Path("p.toml"), REGISTRY)
    assert profile.scheduler_name == name
    where = profile.scheduler_name_origin
    assert (display_path(where.file), where.line, where.column) == origin if where else origin is None


@pytest.mark.parametrize("name", bundled.bundled_profile_names())
def test_bundled_profiles_serve_the_default_scheduler(name):
    # Each is a drop-in replacement for kube-scheduler's default profile (as the
    # ClusterAutoscalerProvider and a Policy were); a child profile renames it to run beside another.
    assert load_profile(name, REGISTRY).scheduler_name == DEFAULT_SCHEDULER_NAME


@pytest.mark.parametrize("value,problem", [
    pytest.param('""', (2, 17, "schedulerName", "must not be empty", "invalid-value"), id="empty"),
    pytest.param("3", (2, 17, "schedulerName", "expected a string, got an integer (3)", "invalid-type"),
                 id="integer"),
    pytest.param('["a"]', (2, 17, "schedulerName", "expected a string, got an array (['a'])", "invalid-type"),
                 id="array"),
    pytest.param("false", (2, 17, "schedulerName", "expected a string, got a boolean (False)", "invalid-type"),
                 id="boolean"),
])
def test_invalid_scheduler_name_is_located(project, value, problem):
    write(project, {"p.toml": f'name = "p"\nschedulerName = {value}\n'})
    profile, problems = check_profile(Path("p.toml"), REGISTRY)
    assert [(p.line, p.column, p.path, p.message, p.code) for p in problems] == [problem]
    assert profile is not None and profile.scheduler_name == ""  # serves nothing, so no duplicate either
    assert check_scheduler_names([profile, profile]) == []


@pytest.mark.parametrize("value", ["Batch_Scheduler", "my scheduler", "x" * 300, "ünïcode"])
def test_any_non_empty_string_is_accepted_as_kube_scheduler_does(project, value):
    write(project, {"p.toml": f'name = "p"\nschedulerName = "{value}"\n'})
    profile, problems = check_profile(Path("p.toml"), REGISTRY)
    assert problems == [] and profile is not None and profile.scheduler_name == value


def test_schema_describes_it():
    entry = profile_schema(REGISTRY)["properties"]["schedulerName"]
    assert entry == {
        "type": "string", "minLength": 1, "default": "default-scheduler",
        "description": "The spec.schedulerName of the pods this profile schedules (kube-scheduler's "
                       "profiles[].schedulerName); inherited through extends. Profiles run or exported "
                       "together need distinct ones.",
    }


# ------------------------------------------------------------------ duplicates
A = 'name = "a"\nschedulerName = "x"\n'
B = 'name = "b"\nschedulerName = "x"\n'
PLAIN_C = 'name = "c"\n'
PLAIN_D = 'name = "d"\n'
BASE = 'name = "base"\nschedulerName = "x"\n'
CHILD = 'name = "child"\nextends = "base.toml"\n'
DEFAULTED = "set schedulerName to serve another"


@pytest.mark.parametrize("order,expected", [
    pytest.param(["a.toml", "b.toml"],
                 [("b.toml", 2, 17, 'Duplicate value: "x" (also the schedulerName of a.toml:2:17)')],
                 id="both-written"),
    pytest.param(["a.toml", "a.toml"],
                 [("a.toml", 2, 17, 'Duplicate value: "x" (also the schedulerName of a.toml:2:17)')],
                 id="one-file-twice"),
    pytest.param(["c.toml", "d.toml"],
                 [("d.toml", 1, 1, 'Duplicate value: "default-scheduler" (also the schedulerName of c.toml, by '
                                   f'default); this profile serves it by default: {DEFAULTED}')],
                 id="both-defaulted"),
    pytest.param(["base.toml", "child.toml"],
                 [("child.toml", 1, 1, 'Duplicate value: "x" (also the schedulerName of base.toml:2:17); this '
                                       f"profile serves it as inherited from base.toml:2:17: {DEFAULTED}")],
                 id="inherited-later"),
    pytest.param(["child.toml", "a.toml"],
                 [("a.toml", 2, 17, 'Duplicate value: "x" (also the schedulerName of child.toml, as inherited '
                                    "from base.toml:2:17)")],
                 id="inherited-earlier"),
    pytest.param(["a.toml", "c.toml", "b.toml", "child.toml"],
                 [("b.toml", 2, 17, 'Duplicate value: "x" (also the schedulerName of a.toml:2:17)'),
                  ("child.toml", 1, 1, 'Duplicate value: "x" (also the schedulerName of a.toml:2:17); this '
                                       f"profile serves it as inherited from base.toml:2:17: {DEFAULTED}")],
                 id="each-later-one-against-the-first"),
    pytest.param(["a.toml", "c.toml"], [], id="distinct"),
])
def test_check_scheduler_names(project, order, expected):
    write(project, {"a.toml": A, "b.toml": B, "c.toml": PLAIN_C, "d.toml": PLAIN_D, "base.toml": BASE,
                    "child.toml": CHILD})
    profiles = [load_profile(Path(name), REGISTRY) for name in order]
    problems = check_scheduler_names(profiles)
    assert [(p.file, p.line, p.column, p.message) for p in problems] == expected
    assert {(p.path, p.code, p.severity) for p in problems} <= {
        ("schedulerName", "duplicate-scheduler-name", "error")}


def test_the_same_profile_object_twice(project):
    write(project, {"a.toml": A})
    profile = load_profile(Path("a.toml"), REGISTRY)
    assert [(p.file, p.line, p.column, p.message) for p in check_scheduler_names([profile, profile])] == [
        ("a.toml", 2, 17, 'Duplicate value: "x" (also the schedulerName of a.toml:2:17)')]


def test_bundled_profiles_together_are_duplicates():
    names = bundled.bundled_profile_names()
    problems = check_scheduler_names([load_profile(name, REGISTRY) for name in names])
    first = display_path(bundled.bundled_profile(names[0]) or names[0])
    assert [(os.path.basename(p.file or ""), p.line, p.column, p.message) for p in problems] == [
        (f"{name}.toml", 1, 1, f'Duplicate value: "default-scheduler" (also the schedulerName of {first}, by '
                               f"default); this profile serves it by default: {DEFAULTED}")
        for name in names[1:]
    ]
