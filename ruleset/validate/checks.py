"""Validate many profile files in one run: every problem of every file, grouped by file.

Each file goes through :func:`ruleset.profile.loader.check_profile_files` (TOML syntax, the
JSON Schema with every plugin's args schema, ``extends``, each plugin's args rules,
points, weights, rules' selectors); a file without errors is then built into the
:class:`~ruleset.framework.runtime.Framework` the scheduler would run, which catches what
only a build can (queue sort and bind plugins, plugin constructors, hook signatures).
Across the files, duplicate profile names are reported as kube-scheduler reports
duplicate ``schedulerName`` values.

Problems found in a file that another one extends are reported once, against that file;
the extending file gets one ``extends-invalid`` error at its ``extends`` value.
"""

from __future__ import annotations

import copy
import glob
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ruleset.errors import Problem, RulesetError
from ruleset.gofmt import go_quote
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.loader import (
    ProfileFile,
    check_profile_files,
    display_path,
    plugin_tables,
)
from ruleset.profile.model import Origin, PluginConfig, Profile

if TYPE_CHECKING:
    from ruleset.framework.runtime import Framework

_GLOB_CHARS = frozenset("*?[")


@dataclass
class FileResult:
    """One file's problems; ``path`` is as displayed (relative to the working directory when inside it)."""

    path: str
    problems: list[Problem] = field(default_factory=list)
    #: Wall time spent checking the file (the JUnit report's ``time``).
    seconds: float = 0.0

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.severity == "warning")

    def valid(self, strict: bool = False) -> bool:
        return not self.errors and not (strict and self.warnings)


@dataclass
class Report:
    """Every file validated (inputs first, then files they extend that have problems)."""

    files: list[FileResult]
    strict: bool = False
    #: Problems that belong to no file (plugin packages that failed to load).
    notes: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(f.errors for f in self.files)

    @property
    def warnings(self) -> int:
        return sum(f.warnings for f in self.files)

    @property
    def invalid(self) -> int:
        return sum(1 for f in self.files if not f.valid(self.strict))

    @property
    def exit_code(self) -> int:
        """0 every file valid, 1 some file invalid, 2 some file could not be read."""
        if any(p.code == "io-error" for f in self.files for p in f.problems):
            return 2
        return 1 if self.invalid else 0


def expand_paths(arguments: Iterable[str]) -> list[Path]:
    """Files, folders (``*.toml`` recursively, skipping hidden folders) and globs, each file once.

    Raises :class:`RulesetError` (exit 2) for a path that does not exist, a glob that matches
    nothing, or a folder holding no ``*.toml`` file.
    """
    out: list[Path] = []
    seen: set[str] = set()
    problems: list[Problem] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = _toml_files(path)
            if not found:
                problems.append(Problem("no *.toml files in this folder", file=argument, code="io-error"))
        elif path.exists():
            found = [path]
        elif _GLOB_CHARS & set(argument):
            found = []
            for match in sorted(glob.glob(argument, recursive=True)):
                found.extend(_toml_files(Path(match)) if os.path.isdir(match) else [Path(match)])
            if not found:
                problems.append(Problem("no files match this pattern", file=argument, code="io-error"))
        else:
            problems.append(Problem("no such file or directory", file=argument, code="io-error"))
            continue
        for file in found:
            key = os.path.realpath(file)
            if key not in seen:
                seen.add(key)
                out.append(file)
    if problems:
        raise RulesetError(problems)
    return out


def _toml_files(folder: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(root) / name for name in sorted(files) if name.endswith(".toml"))
    return found


def validate_files(paths: Sequence[Path], registry: PluginRegistry | None = None,
                   strict: bool = False) -> Report:
    """Check every file of ``paths`` (see the module docstring); never raises for a bad profile."""
    registry = registry or load_registry()
    framework = FrameworkCheck(registry)
    results: dict[str, FileResult] = {}

    def result(file: str) -> FileResult:
        key = os.path.realpath(file)
        if key not in results:
            results[key] = FileResult(display_path(file))
        return results[key]

    for path in paths:
        result(str(path))
    chain_errors: dict[str, dict[str, int]] = {}
    own_files: dict[str, ProfileFile] = {}
    names: dict[str, str] = {}
    for path in paths:
        own = os.path.realpath(path)
        started = time.perf_counter()
        check = check_profile_files(path, registry)
        mine = results[own]
        problems = check.problems
        if check.profile is not None and not any(p.severity == "error" for p in problems):
            problems = [*problems, *framework.problems(check.profile, check.files)]
        for problem in problems:
            target = result(problem.file) if problem.file else mine
            target.problems.append(replace(problem, file=target.path))
            if target is not mine and problem.severity == "error":
                counts = chain_errors.setdefault(own, {})
                counts[target.path] = counts.get(target.path, 0) + 1
        mine.seconds = time.perf_counter() - started
        pf = check.files.get(Path(path).resolve())
        if pf is None or not pf.parsed:
            continue
        own_files[own] = pf
        name = pf.data.get("name")
        if isinstance(name, str) and name:
            origin = pf.origin(("name",), value=True)
            where = f"{mine.path}:{origin.line}:{origin.column}"
            if name in names:
                message = f"Duplicate value: {go_quote(name)} (also the name of {names[name]})"
                mine.problems.append(Problem(message, file=mine.path, line=origin.line, column=origin.column,
                                             path="name", code="duplicate-profile-name"))
            else:
                names[name] = where
    for own, counts in chain_errors.items():
        mine, pf = results[own], own_files.get(own)
        if mine.errors or pf is None:
            continue  # its own errors say enough (e.g. both ends of an extends cycle)
        origin = pf.origin(("extends",), value=True)
        detail = ", ".join(f"{n} error{'s' if n != 1 else ''} in {file}" for file, n in counts.items())
        mine.problems.append(Problem(f"cannot extend {pf.data.get('extends')!r}: {detail}", file=mine.path,
                                     line=origin.line, column=origin.column, path="extends",
                                     code="extends-invalid"))
    inputs = {os.path.realpath(p) for p in paths}
    files = []
    for key, file in results.items():
        if file.problems or key in inputs:
            file.problems = _ordered(file.problems)
            files.append(file)
    return Report(files, strict=strict, notes=list(registry.problems))


def _ordered(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line or 0, p.column or 0))


class FrameworkCheck:
    """What building a profile's :class:`~ruleset.framework.runtime.Framework` would report, cheaply.

    A full build registers every plugin instance with pluggy, which costs milliseconds per
    profile. The build's problems come in two kinds, each found here as the build finds it:

    * per plugin (its constructor fails, its hook methods do not match the specs): a
      framework is built for that one plugin, once per process for each distinct plugin
      configuration (name, points, args, and the rules for the Rules plugin);
    * per profile (no QueueSort plugin, more than one, no Bind plugin): computed from the
      plugins that run, with the framework's own defaults (PrioritySort, DefaultBinder).

    Problems are located at the plugin's table, or at the profile's first line when they
    are about the profile as a whole.
    """

    #: Problems about the profile as a whole, which the one-plugin builds are expected to give.
    TABLE_CODES = frozenset({"no-queue-sort", "multiple-queue-sort", "no-bind-plugin"})

    def __init__(self, registry: PluginRegistry):
        self.registry = registry
        #: (plugin, points) -> (its framework, or None when that failed; the problems; the args it had)
        self._probes: dict[tuple, tuple[Framework | None, list[Problem], str]] = {}

    def problems(self, profile: Profile, files: dict[Path, ProfileFile]) -> list[Problem]:
        """``files`` are the profile's parsed files (to point at an ``enabled = false``)."""
        from ruleset.framework.runtime import (
            DEFAULT_BINDER,
            DEFAULT_QUEUE_SORT,
            effective_points,
            framework_configs,
        )

        configs = framework_configs(profile, self.registry)
        if sum(1 for c in configs if (c.name, c.points) not in self._probes) > 1:
            self._build_whole(profile)
        out: list[Problem] = []
        running = []  # (config, points it runs at)
        for config in configs:
            cls = self.registry.get(config.name)
            if cls is None:
                continue
            for problem in self._plugin_problems(profile, config):
                origin = config.origin if problem.file is None else Origin(problem.file, problem.line,
                                                                             problem.column)
                out.append(replace(problem, file=origin.file, line=origin.line, column=origin.column))
            running.append((config, effective_points(cls, config.points)))
        queue_sorts = [config for config, points in running if "queueSort" in points]
        if not queue_sorts:
            out.append(self._missing(profile, files, DEFAULT_QUEUE_SORT, "no queue sort plugin is enabled",
                                     "no-queue-sort"))
        elif len(queue_sorts) > 1:
            second = queue_sorts[1]
            out.append(second.origin.problem("only one queue sort plugin can be enabled",
                                             f"plugins.{second.name}", "multiple-queue-sort"))
        if not any("bind" in points for _, points in running):
            out.append(self._missing(profile, files, DEFAULT_BINDER, "at least one bind plugin is needed",
                                     "no-bind-plugin"))
        return out

    def _missing(self, profile: Profile, files: dict[Path, ProfileFile], default: str, message: str,
                 code: str) -> Problem:
        """At the ``enabled = false`` that removed the default plugin, else at the profile's first line."""
        for pf, written, table in plugin_tables(profile, files, self.registry, default):
            if table.get("enabled") is False:
                return pf.origin(("plugins", written, "enabled"), value=True).problem(
                    message, f"plugins.{written}.enabled", code)
        return Origin(profile.files[0], 1, 1).problem(message, None, code)

    def _plugin_problems(self, profile: Profile, config: PluginConfig) -> list[Problem]:
        """The problems a framework with this plugin reports about it, without locations.

        The first configuration of a plugin at given points is built into a framework of its
        own (pluggy checks its hooks then). Any other configuration of it differs only in args
        and profile, so only the constructor can fail differently: it is constructed against
        a copy of that framework holding the profile being checked (the Rules plugin reads
        its rules from there).
        """
        from ruleset.framework.plugin import Handle
        from ruleset.framework.runtime import _describe, check_plugin_args

        name = config.name
        args = json.dumps(config.args, sort_keys=True, default=repr)
        key = (name, config.points)
        probe = self._probes.get(key)
        if probe is None or (probe[0] is None and probe[2] != args
                             and all(p.code == "plugin-init-failed" for p in probe[1])):
            probe = self._probes[key] = (*self._build_one(profile, config), args)
            return probe[1]
        framework, problems, _ = probe
        if framework is None:
            return problems  # its hooks are wrong, whatever the args
        cls = self.registry.get(name)
        parsed, _ = check_plugin_args(cls, config.args)  # the loader has checked the args already
        handle = Handle()
        handle.framework = copy.copy(framework)
        handle.framework.profile = profile
        handle.framework.handle = handle
        try:
            cls(parsed, handle)
        except Exception as exc:  # as Framework._instantiate reports it
            return [Problem(f"initializing plugin {name!r}: {_describe(exc)}", path=f"plugins.{name}",
                            code="plugin-init-failed")]
        return []

    def _build_whole(self, profile: Profile) -> None:
        """Build the profile's own framework; if it builds, every plugin in it is probed at once."""
        from ruleset.framework.runtime import Framework

        try:
            framework = Framework(profile, self.registry)
        except Exception:
            return  # each plugin is then built on its own, which tells which one failed
        for name, config in framework.configs.items():
            args = json.dumps(config.args, sort_keys=True, default=repr)
            self._probes.setdefault((name, config.points), (framework, [], args))

    def _build_one(self, profile: Profile, config: PluginConfig) -> tuple[Framework | None, list[Problem]]:
        """A framework of this plugin (and the default QueueSort and Bind plugins when it is neither)."""
        from ruleset.framework.runtime import Framework, FrameworkError

        name = config.name
        probe = Profile(name=profile.name, rules=list(profile.rules), files=list(profile.files),
                             plugins=[PluginConfig(name=name, points=config.points, args=dict(config.args))])
        try:
            return Framework(probe, self.registry), []
        except FrameworkError as exc:
            return None, [p for p in exc.problems if p.code not in self.TABLE_CODES]
        except Exception as exc:  # a third-party plugin failing somewhere unexpected
            return None, [Problem(f"initializing plugin {name!r}: {type(exc).__name__}: {exc}",
                                  path=f"plugins.{name}", code="plugin-init-failed")]

