"""Validate many profile files in one run: every problem of every file, grouped by file.

Each file goes through :func:`ruleset.profile.loader.check_profile_files` (TOML syntax, the
JSON Schema with every plugin's args schema, ``extends``, and every rule about the
profile's plugins: args, hooks, points, weights, QueueSort and Bind, rules' selectors); a
file without errors is then built into the :class:`~ruleset.framework.runtime.Framework`
the scheduler would run, which finds what only constructing the plugins can: the plugins that
are only declared (:func:`~ruleset.pluginmanager.load_profile_registry`: built-ins, whose
constructors refuse nothing their args checks have not, unless their
:class:`~ruleset.plugins.table.ArgsSpec` says so at the profile's release) are not built, and
when no plugin is left to build no framework is.
Across the files, duplicate profile names are reported (a name picks a profile out in the
outputs of ``show``, ``schedule`` and ``score``). Files validated ``one_scheduler`` are the
profiles of one scheduler, as ``export`` and ``schedule`` take several: two that serve one
``schedulerName`` are then an error too, as kube-scheduler reports it
(:func:`~ruleset.profile.loader.check_scheduler_names`). Without it they are not: a folder of
drop-in alternatives (the bundled profiles) all serve ``default-scheduler``.

Problems found in a file that another one extends are reported once, against that file;
the extending file gets one ``extends-invalid`` error at its ``extends`` value.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ruleset.config import Profile
from ruleset.errors import Problem, RulesetError
from ruleset.framework.validation import PlannedPlugin, PluginCheck, check_plugins
from ruleset.gofmt import go_quote
from ruleset.kversion import DEFAULT, Target
from ruleset.pluginmanager import (
    PluginProblem,
    PluginRegistry,
    args_spec,
    builtin_class,
    load_profile_registry,
)
from ruleset.profile.loader import (
    ProfileCheck,
    ProfileFile,
    check_profile_files,
    check_scheduler_names,
    display_path,
)

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
    #: What went wrong loading plugins: in no file, counted apart, failing only under ``--strict``
    #: (a profile naming a plugin they leave out has its own error).
    plugin_problems: list[PluginProblem] = field(default_factory=list)

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
        """0 every file valid, 1 some file invalid (or, under ``--strict``, a plugin load
        problem), 2 some file could not be read."""
        if any(p.code == "io-error" for f in self.files for p in f.problems):
            return 2
        return 1 if self.invalid or (self.strict and self.plugin_problems) else 0


def expand_paths(arguments: Iterable[str], notes: list[Problem] | None = None) -> list[Path]:
    """Files, folders (``*.toml`` recursively, skipping hidden folders) and globs, each file once.

    Raises :class:`RulesetError` (exit 2) for a path that does not exist, a glob that matches
    nothing, or a folder holding no ``*.toml`` file. What a folder holds that is not a
    regular file is skipped, each with a warning appended to ``notes``.
    """
    out, problems = expand_arguments(arguments, notes)
    if problems:
        raise RulesetError(problems)
    return out


def expand_arguments(arguments: Iterable[str], notes: list[Problem] | None = None,
                     suffix: str = ".toml") -> tuple[list[Path], list[Problem]]:
    """:func:`expand_paths` without raising: the files, and one ``io-error`` problem (its file
    the argument) per argument that names none, for :func:`validate_files` to report beside
    the files that do exist. Folders give their files named ``*<suffix>`` (``ruleset test``:
    ``.test.toml``); a file named directly may have any name."""
    notes = notes if notes is not None else []
    out: list[Path] = []
    seen: set[str] = set()
    problems: list[Problem] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = _toml_files(path, notes, suffix)
            if not found:
                problems.append(Problem(f"no *{suffix} files in this folder", file=argument, code="io-error"))
        elif path.exists():
            found = [path]
        elif _GLOB_CHARS & set(argument):
            found = []
            for match in sorted(glob.glob(argument, recursive=True)):
                is_dir = os.path.isdir(match)
                found.extend(_toml_files(Path(match), notes, suffix) if is_dir else [Path(match)])
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
    return out, problems


def _toml_files(folder: Path, notes: list[Problem], suffix: str = ".toml") -> list[Path]:
    """The ``*<suffix>`` regular files below ``folder``; others of that name (a FIFO would block
    the run, a device never end it) are skipped with a note."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(root) / name
            if not name.endswith(suffix):
                continue
            if path.is_file():
                found.append(path)
            else:
                notes.append(Problem("skipped: not a regular file", file=str(path), code="io-error",
                                     severity="warning"))
    return found


def _implicit_version(check: ProfileCheck, path: Path) -> list[Problem]:
    """A profile that names no ``kubernetesVersion`` runs as 1.20: say so, at its ``name``."""
    pf = check.files.get(path.resolve())
    if pf is None or not pf.parsed:
        return []
    return [pf.origin(("name",)).problem(
        f"not set, so the profile runs as Kubernetes {DEFAULT}; set it to the release your cluster runs "
        '(e.g. kubernetesVersion = "1.34"), or to "1.20" to keep this', "kubernetesVersion",
        "implicit-kubernetes-version", "warning")]


def validate_files(paths: Sequence[Path], registry: PluginRegistry | None = None,
                   strict: bool = False, root: Path | None = None, one_scheduler: bool = False,
                   missing: Sequence[Problem] = ()) -> Report:
    """Check every file of ``paths`` (see the module docstring); never raises for a bad profile.
    ``extends`` may not leave ``root`` (default: each file's own, see
    :func:`~ruleset.profile.loader.default_root`). ``one_scheduler``: the files are the
    profiles of one scheduler (duplicate ``schedulerName`` values are errors). ``missing``:
    arguments that named no file (:func:`expand_arguments`), each reported as a file of its own
    after the others."""
    registry = registry or load_profile_registry()
    results: dict[str, FileResult] = {}
    served: list[Profile] = []

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
        check = check_profile_files(path, registry, root)
        mine = results[own]
        problems = check.problems
        if check.profile is not None and not check.errors:
            problems = [*problems, *_construction_problems(check, registry)]
        if (check.profile is not None and check.profile.kubernetes_version is None
                and not any(p.severity == "error" for p in problems)):
            # Said of profiles that are otherwise fine: an invalid one has more pressing problems.
            problems = [*problems, *_implicit_version(check, Path(path))]
        for problem in problems:
            target = result(problem.file) if problem.file else mine
            target.problems.append(replace(problem, file=target.path))
            if target is not mine and problem.severity == "error":
                counts = chain_errors.setdefault(own, {})
                counts[target.path] = counts.get(target.path, 0) + 1
        mine.seconds = time.perf_counter() - started
        if check.profile is not None:
            served.append(check.profile)
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
    if one_scheduler:
        for problem in check_scheduler_names(served):
            target = result(problem.file) if problem.file else results[os.path.realpath(paths[0])]
            target.problems.append(replace(problem, file=target.path))
    inputs = {os.path.realpath(p) for p in paths}
    files = []
    for key, file in results.items():
        if file.problems or key in inputs:
            file.problems = _ordered(file.problems)
            files.append(file)
    files.extend(FileResult(problem.file or "", [problem]) for problem in missing)
    return Report(files, strict=strict, plugin_problems=list(registry.problems))


def _ordered(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line or 0, p.column or 0))


def _construction_problems(check: ProfileCheck, registry: PluginRegistry) -> list[Problem]:
    """What only building the framework finds: plugin constructors that fail with these args (of
    the plugins that may, see the module docstring)."""
    assert check.profile is not None
    target = check.profile.target
    checked = check.plugins if check.plugins is not None else check_plugins(check.profile, registry)
    planned = [plugin for plugin in (_to_build(p, target) for p in checked.plugins) if plugin is not None]
    if not planned:
        return []
    from ruleset.framework.runtime import Framework  # numpy's import: only when a plugin is built

    try:
        Framework(check.profile, registry, checked=PluginCheck(planned))
    except RulesetError as exc:
        return exc.problems
    return []


def _to_build(plugin: PlannedPlugin, target: Target) -> PlannedPlugin | None:
    """The plugin with the class to build, or None when building it can find nothing."""
    row = getattr(plugin.cls, "declared_from", None)
    if row is None:
        return plugin
    spec = args_spec(row)
    if spec is None or spec.constructor_refuses is None or not spec.constructor_refuses(target):
        return None
    return replace(plugin, cls=builtin_class(row))
