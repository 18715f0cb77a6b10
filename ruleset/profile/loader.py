"""Load TOML profiles: parse, validate against the JSON Schema, resolve ``extends``, then run
the checks on the profile's plugins and point each problem at the file, line and column
where the setting in question was written.

The rules about plugins (args, points, weights, QueueSort and Bind...) live in
:mod:`ruleset.framework.validation`; this module only locates what they find. Every
problem found is collected (never just the first) and carries the file, the 1-based line
and column of the offending key or value, and the key path. :func:`load_profile` raises
:class:`~ruleset.errors.RulesetError` with all of them; :func:`check_profile` returns them
for ``ruleset validate``.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruleset import bundled
from ruleset.config import KeyPath, Origin, PluginConfig, Profile, RuleConfig, Source
from ruleset.errors import Problem, RulesetError, format_path
from ruleset.framework.points import MAX_WEIGHT
from ruleset.framework.validation import Finding, PluginCheck, check_plugins
from ruleset.gofmt import go_quote
from ruleset.kversion import GATES, gates_known_at, supported
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.schema import profile_validator
from ruleset.profile.toml_positions import index_positions, locate, string_column
from ruleset.reading import PROFILE, check_toml, decode_utf8, read_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_TOML_EOF = re.compile(r"\s*\(at end of document\)\s*$")


@dataclass
class ProfileFile:
    """One parsed profile file: its data, where each key is, and the problems found in it."""

    path: Path
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    positions: dict = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    parsed: bool = False

    def origin(self, path: tuple, value: bool = False) -> Origin:
        where = locate(self.positions, path, value=value) if self.positions else None
        if where is None:
            return Origin(str(self.path), 1, 1)
        return Origin(str(self.path), where[0], where[1])

    def problem(self, key_path: tuple, message: str, code: str, severity: str = "error",
                value: bool = False) -> Problem:
        """A problem at ``key_path`` of this file, also kept in :attr:`problems`."""
        problem = self.origin(key_path, value=value).problem(message, format_path(key_path) or None, code,
                                                             severity)
        self.problems.append(problem)
        return problem


def read_profile_file(path: Path) -> ProfileFile:
    """Read and parse one file; syntax errors, and inputs past the limits of
    :mod:`ruleset.reading` (a non-regular or too large file, nesting, long integers), become
    located problems."""
    pf = ProfileFile(path=path)
    try:
        raw = read_file(path, PROFILE)
    except FileNotFoundError:
        pf.problems.append(Problem("no such file", file=str(path), code="io-error"))
        return pf
    except OSError as exc:
        pf.problems.append(Problem(f"cannot read: {exc.strerror or exc}", file=str(path), code="io-error"))
        return pf
    except RulesetError as exc:
        pf.problems.extend(exc.problems)
        return pf
    try:
        # A UTF-8 byte order mark (which some Windows editors write) is not content; tomllib
        # rejects it, and toml_positions gives it no column.
        pf.text = decode_utf8(raw, str(path), "toml-syntax").removeprefix("\ufeff")
    except RulesetError as exc:
        pf.problems.extend(exc.problems)
        return pf
    limit = check_toml(pf.text, str(path), PROFILE)
    if limit is not None:
        pf.problems.append(limit)
        return pf
    try:
        pf.data = tomllib.loads(pf.text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line: int | None = None
        column: int | None = None
        match = _TOML_POSITION.search(message)
        if match:
            line, column = int(match.group(1)), int(match.group(2))
            message = message[: match.start()]
        elif _TOML_EOF.search(message):
            lines = pf.text.splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
            message = _TOML_EOF.sub("", message)
        pf.problems.append(Problem(f"invalid TOML: {message}", file=str(path), line=line, column=column,
                                   code="toml-syntax"))
        return pf
    except (RecursionError, ValueError) as exc:  # not expected within check_toml's limits
        pf.problems.append(Problem(f"invalid TOML: {exc}", file=str(path), code="toml-syntax"))
        return pf
    pf.positions = index_positions(pf.text)
    pf.parsed = True
    return pf


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory when it lies inside it, else absolute."""
    real = os.path.realpath(path)
    cwd = os.path.realpath(os.getcwd())
    if real.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(real, cwd)
    return real


def type_name(value: Any) -> str:
    """A value's TOML type in words, as problems name it (``an integer``, ``a table``…)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
_TYPE_WORDS = {"integer": "an integer", "string": "a string", "boolean": "a boolean", "array": "an array",
               "object": "a table", "number": "a number"}


def _suggest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _schema_problems(pf: ProfileFile, registry: PluginRegistry) -> None:
    plugins = pf.data.get("plugins")
    if isinstance(plugins, dict):
        # First: a registry that builds plugins when first asked for them (ruleset validate's)
        # then holds every plugin the schema below must know.
        for name in plugins:
            registry.get(name)
    validator = profile_validator(registry)
    known_plugins = registry.names() + sorted(registry.aliases)
    if isinstance(plugins, dict):
        for name in plugins:
            unavailable = registry.unavailable(name) if registry.get(name) is None else None
            if unavailable is not None:
                pf.problem(("plugins", name), f"plugin {name!r} cannot be used: {unavailable}",
                           "plugin-unavailable")
            elif registry.get(name) is None:
                hint = _suggest(name, known_plugins)
                failed = [p.message for p in registry.problems if p.code == "plugin-load-failed"]
                extra = f" (note: {'; '.join(failed)})" if failed and not hint else ""
                pf.problem(("plugins", name), f"unknown plugin {name!r}{hint}{extra}", "unknown-plugin")
    for error in sorted(validator.iter_errors(pf.data), key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(error.absolute_path)
        if len(path) >= 3 and path[0] == "plugins" and path[2] == "args" and registry.get(path[1]) is None:
            continue  # args of an unknown plugin: the unknown plugin is the problem
        keyword = error.validator
        if keyword == "additionalProperties":
            allowed = sorted((error.schema.get("properties") or {}).keys())
            extras = [k for k in error.instance if k not in (error.schema.get("properties") or {})]
            for extra in extras:
                where = "arg" if "args" in path else "key"
                owner = f" for plugin {path[1]}" if where == "arg" and len(path) >= 2 else ""
                hint = _suggest(extra, allowed)
                expected = f" (expected one of: {', '.join(allowed)})" if allowed and not hint else ""
                if where == "arg" and not allowed:
                    expected = f" (plugin {path[1]} takes no args)"
                pf.problem((*path, extra), f"unknown {where} {extra!r}{owner}{hint}{expected}",
                           "unknown-arg" if where == "arg" else "unknown-key")
        elif keyword == "type":
            wanted = error.validator_value
            wanted = wanted if isinstance(wanted, list) else [wanted]
            words = " or ".join(_TYPE_WORDS.get(t, str(t)) for t in wanted)
            pf.problem(path, f"expected {words}, got {type_name(error.instance)} ({error.instance!r})",
                       "invalid-type", value=True)
        elif keyword == "required":
            missing = [k for k in error.validator_value if k not in error.instance]
            for key in missing:
                pf.problem(path, f"missing required key {key!r}", "missing-key")
        elif keyword in ("minimum", "maximum") and _is_weight(path):
            pf.problem(path, _weight_range_message(pf, path, error.instance), "weight-range", value=True)
        elif keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            bound = _BOUNDS[keyword]
            pf.problem(path, f"{error.instance!r} is out of range: must be {bound} {error.validator_value}",
                       "out-of-range", value=True)
        elif keyword == "enum":
            choices = ", ".join(repr(v) for v in error.validator_value)
            hint = _suggest(error.instance, [v for v in error.validator_value if isinstance(v, str)]) \
                if isinstance(error.instance, str) else ""
            pf.problem(path, f"{error.instance!r} is not one of {choices}{hint}", "invalid-value", value=True)
        elif keyword == "anyOf" and path[:1] == ("rules",):
            pf.problem(path, "a rule needs 'require' (a filter), 'prefer' (a score) or both", "missing-key")
        elif keyword == "minLength":
            pf.problem(path, "must not be empty", "invalid-value", value=True)
        elif keyword == "uniqueItems":
            pf.problem(path, "has duplicate entries", "invalid-value", value=True)
        else:
            pf.problem(path, error.message, "schema", value=True)


def _is_weight(path: tuple) -> bool:
    """``plugins.<Name>.weight`` or ``rules[i].weight``."""
    return len(path) == 3 and path[2] == "weight" and path[0] in ("plugins", "rules")


def _weight_range_message(pf: ProfileFile, path: tuple, weight: Any) -> str:
    """Legacy Policy validation's words (``validatePriorityOrDie``), with the bounds spelled out."""
    if path[0] == "plugins":
        what = f"plugin {path[1]}"
    else:
        rule = pf.data["rules"][path[1]]
        what = f"rule {rule['name']}" if isinstance(rule.get("name"), str) else f"rules[{path[1]}]"
    return (f"{what} should have a positive weight applied to it or it has overflown: weight must be in "
            f"[1, {MAX_WEIGHT}], got {weight!r}")


def _bundled(value: str) -> Path | None:
    """The bundled profile ``value`` names, when it is a bare name (no ``/``, no ``.toml``)."""
    if "/" in value or value.endswith(".toml"):
        return None
    return bundled.bundled_profile(value)


def resolve_extends(value: str, base_dir: Path) -> Path | None:
    """A bundled profile name, or a path relative to the extending file (None: neither).

    Where the path may lead is :func:`outside_root`'s question; this one only finds it.
    """
    named = _bundled(value)
    if named is not None:
        return named
    candidates = [base_dir / value]
    if not value.endswith(".toml"):
        candidates.append(base_dir / f"{value}.toml")
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate.resolve()
        except (OSError, RuntimeError, ValueError):  # a name too long, a NUL, a loop: no such profile
            continue
    return None


def default_root(path: Path) -> Path:
    """The folder ``extends`` may not leave when no ``--root`` is given: the working directory,
    or the named profile's own folder when that lies outside it."""
    cwd = Path.cwd().resolve()
    folder = path.resolve().parent
    return cwd if folder == cwd or cwd in folder.parents else folder


def outside_root(value: str, base_dir: Path, root: Path) -> str | None:
    """Why ``extends = value``, written in a file of ``base_dir``, may not be followed: an
    absolute path, or one that leads (``..``, a symbolic link) out of ``root`` and out of the
    bundled profiles. None when it may."""
    if _bundled(value) is not None:
        return None
    if Path(value).is_absolute() or value.startswith("~"):
        return "an absolute path is refused: name a bundled profile or a path relative to this file"
    try:
        target = (base_dir / value).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL, a name too long
        return None  # not found either; resolve_extends says so
    allowed = (root.resolve(), bundled.data_dir("profiles").resolve())
    if any(target == folder or folder in target.parents for folder in allowed):
        return None
    return f"{value!r} leads out of the project folder {display_path(root)} (--root widens it)"


#: The top-level keys a profile may have: a file with others, or without a name, is not one.
_PROFILE_KEYS = frozenset({"name", "schedulerName", "description", "extends", "percentageOfNodesToScore",
                           "plugins", "rules", "kubernetesVersion", "featureGates"})


def _check_target(profile: Profile, pf: ProfileFile, data: dict[str, Any]) -> list[Problem]:
    """``kubernetesVersion`` and ``featureGates`` of one file, onto ``profile``: a version ruleset
    does not model, or a gate that release does not know (kube-scheduler refuses unknown
    gates), is an error at its value."""
    problems: list[Problem] = []
    version = data.get("kubernetesVersion")
    if isinstance(version, str):
        try:
            supported(version)
        except ValueError as exc:
            problems.append(pf.problem(("kubernetesVersion",), str(exc), "invalid-value", value=True))
        else:
            profile.kubernetes_version = version
    gates = data.get("featureGates")
    if isinstance(gates, dict):
        known = gates_known_at(profile.target.version)
        for name, enabled in gates.items():
            if not isinstance(enabled, bool):
                continue  # the schema says so
            if name not in known:
                knows = ", ".join(sorted(known)) or "none ruleset models"
                release = profile.target.version
                message = f"unrecognized feature gate: {name} (Kubernetes {release} knows {knows})"
                problems.append(pf.problem(("featureGates", name), message, "invalid-value"))
                continue
            default = known[name][0]
            if enabled != default and GATES[name].locked(profile.target.version.minor):
                # component-base/featuregate's wording (SetFromMap).
                message = (f"cannot set feature gate {name} to {str(enabled).lower()}, feature is locked to "
                           f"{str(default).lower()} (Kubernetes {profile.target.version})")
                problems.append(pf.problem(("featureGates", name), message, "invalid-value", value=True))
                continue
            profile.feature_gates[name] = enabled
    return problems


def is_profile(pf: ProfileFile) -> bool:
    """Whether a parsed file looks like a profile at all (whatever problems it has)."""
    return isinstance(pf.data.get("name"), str) and set(pf.data) <= _PROFILE_KEYS


def resolve_profile_argument(value: str) -> Path:
    """``--profile`` takes a file path or a bundled profile name."""
    path = Path(value)
    if path.is_file():
        return path
    named = _bundled(value)
    if named is not None:
        return named
    names = ", ".join(bundled.bundled_profile_names())
    raise RulesetError(Problem(f"no such profile file, and no bundled profile of that name "
                               f"(bundled: {names})",
                               file=value, code="io-error"))


class _Assembler:
    """Resolves one profile's extends chain, collecting every problem of every file."""

    def __init__(self, registry: PluginRegistry, root: Path):
        self.registry = registry
        self.root = root
        self.files: dict[Path, ProfileFile] = {}
        self.problems: list[Problem] = []

    def _file(self, path: Path, extended_by: ProfileFile | None = None) -> ProfileFile:
        key = path.resolve()
        if key not in self.files:
            pf = read_profile_file(path)
            if pf.parsed and extended_by is not None and not is_profile(pf):
                # Not a profile: say so at the extends that named it, and show nothing of it
                # (a file reached by extends may hold anything; its values stay unprinted).
                value = extended_by.data.get("extends")
                keys = ", ".join(sorted(_PROFILE_KEYS))
                self.problems.append(extended_by.problem(
                    ("extends",), f"cannot extend {value!r}: it is not a ruleset profile (a profile has a "
                    f"name, and no keys but {keys})", "extends-invalid", value=True))
                pf.parsed = False
                self.files[key] = pf
                return pf
            if pf.parsed:
                _schema_problems(pf, self.registry)
            self.files[key] = pf
            self.problems.extend(pf.problems)
        return self.files[key]

    def assemble(self, path: Path, chain: tuple[Path, ...] = (),
                 extended_by: ProfileFile | None = None) -> Profile | None:
        pf = self._file(path, extended_by)
        if not pf.parsed:
            return None
        data = pf.data
        base: Profile | None = None
        extends = data.get("extends")
        if not isinstance(extends, str):
            extends = None
        refused = outside_root(extends, path.parent, self.root) if extends else None
        if refused is not None:
            self.problems.append(pf.problem(("extends",), refused, "extends-outside-root", value=True))
        elif extends:
            target = resolve_extends(extends, path.parent)
            if target is None:
                self.problems.append(pf.problem(("extends",), f"cannot find profile {extends!r} to extend "
                                                f"(neither a bundled profile nor a file next to this one)",
                                                "extends-not-found", value=True))
            elif target.resolve() in chain or target.resolve() == path.resolve():
                cycle = " -> ".join(display_path(p) for p in (*chain, path.resolve(), target.resolve()))
                self.problems.append(pf.problem(("extends",), f"extends cycle: {cycle}", "extends-cycle",
                                                value=True))
            else:
                base = self.assemble(target, (*chain, path.resolve()), pf)
        name = data.get("name")
        profile = Profile(name=name if isinstance(name, str) else "")
        if base is not None:
            profile.plugins = [_copy(c) for c in base.plugins]
            profile.disabled = set(base.disabled)
            profile.percentage_of_nodes_to_score = base.percentage_of_nodes_to_score
            profile.rules = list(base.rules)
            profile.files = list(base.files)
            profile.scheduler_name = base.scheduler_name
            profile.scheduler_name_origin = base.scheduler_name_origin
            profile.kubernetes_version = base.kubernetes_version
            profile.feature_gates = dict(base.feature_gates)
        profile.files.insert(0, str(path))
        self.problems.extend(_check_target(profile, pf, data))
        if "schedulerName" in data:
            # A value the schema rejects serves no name (rather than the default, which would
            # add a duplicate to the report).
            scheduler_name = data["schedulerName"]
            profile.scheduler_name = scheduler_name if isinstance(scheduler_name, str) else ""
            profile.scheduler_name_origin = pf.origin(("schedulerName",), value=True)
        if isinstance(data.get("description"), str):
            profile.description = data["description"]
        pct = data.get("percentageOfNodesToScore")
        if isinstance(pct, int) and not isinstance(pct, bool):
            profile.percentage_of_nodes_to_score = pct
        plugins = data.get("plugins")
        if isinstance(plugins, dict):
            for name, table in plugins.items():
                if not isinstance(table, dict):
                    continue
                self._merge_plugin(profile, pf, name, table)
        rules = data.get("rules")
        if isinstance(rules, list):
            for i, rule in enumerate(rules):
                if isinstance(rule, dict) and isinstance(rule.get("name"), str):
                    self._merge_rule(profile, pf, i, rule)
        return profile

    def _merge_plugin(self, profile: Profile, pf: ProfileFile, name: str, table: dict[str, Any]) -> None:
        canonical = self.registry.canonical_name(name)
        if canonical != name:
            self.problems.append(pf.problem(("plugins", name), f"{name!r} is a deprecated name for "
                                            f"{canonical!r}", "deprecated-name", severity="warning"))
        existing = profile.plugin(canonical)
        if table.get("enabled") is False:
            profile.disabled.add(canonical)
            if existing is not None:
                profile.plugins.remove(existing)
            return
        profile.disabled.discard(canonical)
        origin = pf.origin(("plugins", name))
        config = existing or PluginConfig(name=canonical, origin=origin,
                                          written_name=name if name != canonical else None)
        if existing is None:
            profile.plugins.append(config)
        config.origin = origin
        for key in ("weight", "points", "args"):
            if key in table:
                config.sources[(key,)] = Source(pf.origin(("plugins", name, key)), ("plugins", name, key))
        weight = table.get("weight")
        if isinstance(weight, int) and not isinstance(weight, bool):
            config.weight = weight
        points = table.get("points")
        if isinstance(points, list) and all(isinstance(p, str) for p in points):
            config.points = tuple(points)
        args = table.get("args")
        if isinstance(args, dict):
            # args replace inherited args wholesale, like a KubeSchedulerConfiguration pluginConfig entry.
            config.args = dict(args)

    def _merge_rule(self, profile: Profile, pf: ProfileFile, index: int, table: dict[str, Any]) -> None:
        weight = table.get("weight", 1)
        rule = RuleConfig(
            name=table["name"],
            pods=table.get("pods", "") if isinstance(table.get("pods", ""), str) else "",
            require=table.get("require") if isinstance(table.get("require"), str) else None,
            prefer=table.get("prefer") if isinstance(table.get("prefer"), str) else None,
            weight=weight if isinstance(weight, int) and not isinstance(weight, bool) else 1,
            origin=pf.origin(("rules", index)),
            path=("rules", index),
        )
        for i, existing in enumerate(profile.rules):
            if existing.name == rule.name:
                # Through extends a rule replaces the one of its name; in one file the name is
                # taken twice, and the later rule is the one checked from then on.
                if existing.origin.file == rule.origin.file:
                    self.problems.append(pf.problem(("rules", index, "name"),
                                                    f"duplicate rule name {rule.name!r}", "duplicate-rule",
                                                    value=True))
                profile.rules[i] = rule
                return
        profile.rules.append(rule)


def _copy(config: PluginConfig) -> PluginConfig:
    return dataclasses.replace(config, args=dict(config.args), sources=dict(config.sources))


@dataclass
class ProfileCheck:
    """The outcome of :func:`check_profile_files`: the profile, every problem, every file read."""

    profile: Profile | None
    problems: list[Problem]
    #: Each file of the extends chain by resolved path, the checked file first.
    files: dict[Path, ProfileFile]
    #: What :func:`~ruleset.framework.validation.check_plugins` found (None when the profile
    #: could not be assembled); a framework built from this profile can reuse it.
    plugins: PluginCheck | None = None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def check_profile_files(path: Path, registry: PluginRegistry | None = None,
                        root: Path | None = None) -> ProfileCheck:
    """:func:`check_profile`, also returning the parsed files (for ``ruleset validate``'s locations).

    The checks on the profile's plugins run even when other parts of the files have errors,
    skipping only what those errors make unreadable, so that one run reports every problem.
    ``extends`` may not lead out of ``root`` (default: :func:`default_root`).
    """
    registry = registry or load_registry()
    assembler = _Assembler(registry, root if root is not None else default_root(Path(path)))
    profile = assembler.assemble(Path(path))
    problems = list(assembler.problems)
    plugins = None
    if profile is not None:
        plugins = check_plugins(profile, registry)
        problems.extend(_located(profile, plugins.findings, assembler, problems))
    files = {str(f.path): i for i, f in enumerate(assembler.files.values())}
    ordered = sorted(dict.fromkeys(problems),
                     key=lambda p: (files.get(p.file or "", len(files)), p.line or 0, p.column or 0))
    return ProfileCheck(profile, ordered, assembler.files, plugins)


def check_profile(path: Path, registry: PluginRegistry | None = None,
                  root: Path | None = None) -> tuple[Profile | None, list[Problem]]:
    """Load a profile and check everything short of running it; returns (profile, problems)."""
    check = check_profile_files(path, registry, root)
    return check.profile, check.problems


def check_profile_argument(value: str | Path, registry: PluginRegistry | None = None,
                           root: Path | None = None) -> ProfileCheck:
    """Load a profile (a path, or a bundled name when ``value`` is a str); raise RulesetError
    with every error found, else return the check (warnings included). ``root``: as for
    :func:`check_profile_files`."""
    resolved = resolve_profile_argument(value) if not isinstance(value, Path) else value
    check = check_profile_files(resolved, registry, root)
    if check.errors or check.profile is None:
        raise RulesetError(check.errors or [Problem("cannot load profile", file=str(resolved))])
    return check


def check_scheduler_names(profiles: Sequence[Profile]) -> list[Problem]:
    """Profiles that one scheduler would run (``schedule --profile a --profile b``, ``export a b``)
    serving a ``schedulerName`` an earlier one serves: one ``duplicate-scheduler-name`` error per
    later profile, as kube-scheduler's ``ValidateKubeSchedulerConfiguration`` reports
    ``profiles[i].schedulerName: Duplicate value``.

    Each is located at the profile's ``schedulerName`` when its own file writes it, else at the
    first line of its file, and says where the name comes from (the default, or a file it extends).
    """
    problems: list[Problem] = []
    first: dict[str, Profile] = {}
    for profile in profiles:
        if not profile.scheduler_name:
            continue  # not a string, or empty: the schema's error says so
        earlier = first.get(profile.scheduler_name)
        if earlier is None:  # (the same Profile object twice is a duplicate too)
            first[profile.scheduler_name] = profile
            continue
        origin, own_note = _scheduler_name_source(profile)
        other, other_note = _scheduler_name_source(earlier)
        where = f"{display_path(other.file)}:{other.line}:{other.column}" if other.file else "another profile"
        if other_note:
            where = f"{display_path(other.file)}, {other_note}" if other.file else other_note
        message = f"Duplicate value: {go_quote(profile.scheduler_name)} (also the schedulerName of {where})"
        if own_note:
            message += f"; this profile serves it {own_note}: set schedulerName to serve another"
        problems.append(origin.problem(message, "schedulerName", "duplicate-scheduler-name"))
    return problems


def _scheduler_name_source(profile: Profile) -> tuple[Origin, str]:
    """Where to report ``profile``'s schedulerName, and how it got it when its own file does not
    write it (``"by default"``, ``"as inherited from base.toml:2:17"``; empty when it does)."""
    file = profile.files[0] if profile.files else None
    origin = profile.scheduler_name_origin
    if origin is not None and origin.file == file:
        return origin, ""
    at_top = Origin(file, 1, 1) if file else Origin()
    if origin is None or origin.file is None:
        return at_top, "by default"
    return at_top, f"as inherited from {display_path(origin.file)}:{origin.line}:{origin.column}"


def load_profile(path: str | Path, registry: PluginRegistry | None = None,
                 root: Path | None = None) -> Profile:
    """Load a profile (a path or a bundled name); raise RulesetError with every error found."""
    profile = check_profile_argument(path, registry, root).profile
    assert profile is not None
    return profile


def plugin_tables(profile: Profile, files: dict[Path, ProfileFile], registry: PluginRegistry,
                  name: str) -> Iterator[tuple[ProfileFile, str, dict[str, Any]]]:
    """Each ``[plugins.<name>]`` table of the profile's extends chain, child first.

    Yields the file, the plugin name as written there (an alias, maybe) and the table;
    ``files`` are the parsed files of the chain (:attr:`ProfileCheck.files`).
    """
    by_name = {str(pf.path): pf for pf in files.values()}
    for file in profile.files:
        pf = by_name.get(file)
        plugins = pf.data.get("plugins") if pf is not None else None
        if pf is None or not isinstance(plugins, dict):
            continue
        for written, table in plugins.items():
            if registry.canonical_name(written) == name and isinstance(table, dict):
                yield pf, written, table


#: The keys of a ``[plugins.<Name>]`` table a finding may be about.
_TABLE_KEYS = {("weight",), ("points",), ("args",)}


def _located(profile: Profile, findings: list[Finding], assembler: _Assembler,
             found: list[Problem]) -> list[Problem]:
    """Each finding at the line and column where what it is about was written.

    ``found`` are the problems already reported. A finding about a plugin table's value
    they flag as an error is dropped (that value is not what the user meant, and one report
    is enough), and so is every finding about the args of a plugin whose written ``args``
    they flag anything in (args are only checked as a whole, once the schema accepts
    them). Findings about ``[[rules]]`` are otherwise about what the loader could read of
    each rule, and kept.
    """
    flagged = {(p.file, p.path) for p in found if p.severity == "error" and p.path}

    def flagged_at(file: str | None, path: KeyPath) -> bool:
        return (file, format_path(path)) in flagged

    def flagged_inside(file: str | None, path: KeyPath) -> bool:
        text = format_path(path)
        return any(f == file and (p == text or p.startswith((f"{text}.", f"{text}["))) for f, p in flagged)

    files = {str(pf.path): pf for pf in assembler.files.values()}
    problems: list[Problem] = []
    if not profile.name and not found:  # (the schema reports a missing or bad name already)
        problems.append(Problem("missing required key 'name'", file=profile.files[0], line=1, column=1,
                                code="missing-key"))
    for finding in findings:
        config = finding.config
        if config is None:
            problems.append(_unfilled_point(profile, finding, assembler))
            continue
        written = finding.written_at()
        pf = files.get(written[1].origin.file or "") if written is not None else None
        if written is None or pf is None:
            path = ("plugins", config.name, *finding.key)
            if not flagged_at(config.origin.file, path):  # e.g. an unknown plugin the schema reported
                problems.append(config.origin.problem(finding.message, format_path(path), finding.code,
                                                      finding.severity))
            continue
        prefix, source = written
        path = (*source.path, *finding.key[len(prefix):])
        if prefix in _TABLE_KEYS and flagged_at(str(pf.path), path):
            continue
        args = config.sources.get(("args",))
        if finding.key[:1] == ("args",) and args is not None and flagged_inside(args.origin.file, args.path):
            continue
        problems.append(_at(pf, path, finding))
    return problems


def _at(pf: ProfileFile, path: KeyPath, finding: Finding) -> Problem:
    """``finding`` at ``path`` of ``pf``: the key, or its value, or a character inside the value."""
    origin = pf.origin(path, value=finding.at_value)
    line, column = origin.line, origin.column
    if finding.offset is not None and line is not None and column is not None:
        value = _value_at(pf.data, path)
        if isinstance(value, str):
            column += string_column(pf.text, line, column, value, finding.offset) - 1
    return Problem(finding.message, file=origin.file, line=line, column=column, path=format_path(path),
                   code=finding.code, severity=finding.severity)


def _value_at(data: Any, path: KeyPath) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _unfilled_point(profile: Profile, finding: Finding, assembler: _Assembler) -> Problem:
    """A point no plugin fills: at the ``enabled = false`` that removed its default plugin,
    else at the profile's first line."""
    if finding.default is not None:
        tables = plugin_tables(profile, assembler.files, assembler.registry, finding.default)
        for pf, written, table in tables:
            if table.get("enabled") is False:
                return pf.origin(("plugins", written, "enabled"), value=True).problem(
                    finding.message, f"plugins.{written}.enabled", finding.code, finding.severity)
    return Origin(profile.files[0], 1, 1).problem(finding.message, None, finding.code, finding.severity)
