"""The grid of a sweep: profiles × snapshots × scenarios × Kubernetes releases, from the command
line or from a TOML sweep file, every problem located (``FILE:LINE:COL`` for a sweep file, the
flag for the command line).

A sweep file::

    profiles = ["default", "mine.toml"]          # bundled names or files (relative to this file)
    clusters = ["monday.yaml", "tuesday/"]       # optional: each a snapshot, a file or a folder
    kubernetesVersions = ["1.20", "1.35"]        # optional: each profile run as each release
    seed = 0                                     # optional

    [[scenarios]]                                # optional: one "as-is" scenario when absent
    name = "as-is"

    [[scenarios]]
    name = "web-x3"
    pods = ["extra-pods.yaml"]                   # pods (and workloads) created and scheduled
    scale = ["deployment/shop/web=30"]           # workloads scaled to N replicas
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruleset.errors import Problem, RulesetError
from ruleset.kversion import supported
from ruleset.profile.loader import ProfileFile, read_profile_file, type_name
from ruleset.profile.toml_positions import locate

#: The scenario of a grid that names none: the snapshot's own pending pods.
AS_IS = "as-is"
#: The snapshot of a grid that names none.
DEMO = "demo"
#: The keys of a sweep file and of one of its scenarios.
FILE_KEYS = ("profiles", "clusters", "kubernetesVersions", "seed", "scenarios")
SCENARIO_KEYS = ("name", "pods", "scale")
_SCALE = re.compile(r"[^/=\s]+/[^/=\s]+/[^/=\s]+=\d{1,7}\Z")


@dataclass(frozen=True)
class Scenario:
    """What is scheduled on top of a snapshot: pods created from ``pods`` files and workloads scaled
    by ``scale`` (``KIND/NAMESPACE/NAME=N`` texts)."""

    name: str
    pods: tuple[str, ...] = ()
    scale: tuple[str, ...] = ()


@dataclass(frozen=True)
class Grid:
    """Every axis of a sweep. ``clusters`` holds one entry per snapshot (a file or a folder; the
    empty tuple means the bundled demo cluster); ``versions`` None for a profile's own release."""

    profiles: tuple[str, ...]
    clusters: tuple[str, ...]
    scenarios: tuple[Scenario, ...]
    versions: tuple[str | None, ...] = (None,)
    seed: int = 0

    @property
    def size(self) -> int:
        """How many tasks the grid makes."""
        return (len(self.profiles) * max(len(self.clusters), 1) * len(self.scenarios)
                * len(self.versions))


def grid_from_flags(profiles: Sequence[str] | None, clusters: Sequence[str] | None,
                    pods: Sequence[str] | None, scales: Sequence[str] | None,
                    versions: Sequence[str] | None, seed: int = 0) -> Grid:
    """The grid the command-line flags give: each ``--cluster`` value a snapshot, each ``--pods``
    file a scenario (named by the file), each ``--scale`` value a scenario (comma-separated
    requests scale together; named by its text); with neither, the one :data:`AS_IS` scenario."""
    problems: list[Problem] = []
    scenarios = [Scenario(name=Path(p).name, pods=(p,)) for p in pods or []]
    for value in scales or []:
        requests = tuple(part.strip() for part in value.split(","))
        for request in requests:
            if not _SCALE.match(request):
                problems.append(Problem(f"expected KIND/NAMESPACE/NAME=N (comma-separated to scale several "
                                        f"together), got {request!r}", file=f"--scale {value}",
                                        code="invalid-value"))
        scenarios.append(Scenario(name=value, scale=requests))
    problems += _version_problems(versions or [])
    problems += _duplicates([s.name for s in scenarios], lambda name, _: f"--pods/--scale {name}", "scenario")
    problems += _duplicates(list(profiles or []), lambda name, _: f"--profile {name}", "profile")
    problems += _duplicates(list(clusters or []), lambda name, _: f"--cluster {name}", "snapshot")
    if problems:
        raise RulesetError(problems)
    return Grid(profiles=tuple(profiles or ["default"]), clusters=tuple(clusters or []),
                scenarios=tuple(scenarios) or (Scenario(AS_IS),),
                versions=tuple(versions) if versions else (None,), seed=seed)


def load_sweep_file(path: str | Path) -> Grid:
    """The grid a TOML sweep file describes; raises RulesetError with every problem, each at its
    line and column. Relative paths are read from the file's folder; a profile value that is no
    file there is kept as written (a bundled name, or a path the profile loader reports)."""
    pf = read_profile_file(Path(path))
    if pf.problems:
        raise RulesetError(pf.problems)
    reader = _Reader(pf)
    grid = reader.grid()
    if reader.problems:
        raise RulesetError(reader.problems)
    return grid


class _Reader:
    """Reads one parsed sweep file, collecting located problems."""

    def __init__(self, pf: ProfileFile) -> None:
        self.pf = pf
        self.base = pf.path.parent
        self.problems: list[Problem] = []

    def problem(self, key: tuple, message: str, value: bool = True, code: str = "invalid-value") -> None:
        where = locate(self.pf.positions, key, value=value) or (1, 1)
        self.problems.append(Problem(message, file=str(self.pf.path), line=where[0], column=where[1],
                                     path=".".join(str(k) for k in key) or None, code=code))

    def grid(self) -> Grid:
        data = self.pf.data
        for key in data:
            if key not in FILE_KEYS:
                self.problem((key,), f"unknown key {key!r}; expected one of {', '.join(FILE_KEYS)}",
                             value=False, code="unknown-key")
        profiles = [self.profile(p) for p in self.strings(("profiles",), required=True)]
        clusters = [self.path(key, value, folder_ok=True)
                    for key, value in self.strings(("clusters",), keyed=True)]
        versions = self.strings(("kubernetesVersions",))
        for i, version in enumerate(versions):
            try:
                supported(version)
            except ValueError as exc:
                self.problem(("kubernetesVersions", i), str(exc))
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            what = seed if isinstance(seed, int) and not isinstance(seed, bool) else type_name(seed)
            self.problem(("seed",), f"expected an integer ≥ 0, got {what}")
            seed = 0
        scenarios = self.scenarios()
        for kind, names in (("profile", profiles), ("snapshot", clusters)):
            key = "profiles" if kind == "profile" else "clusters"
            seen: set[str] = set()
            for i, name in enumerate(names):
                if name in seen:
                    self.problem((key, i), f"{kind} {name!r} is listed twice")
                seen.add(name)
        return Grid(profiles=tuple(profiles), clusters=tuple(clusters), scenarios=tuple(scenarios),
                    versions=tuple(versions) if versions else (None,), seed=seed)

    def strings(self, key: tuple, required: bool = False, keyed: bool = False) -> Any:
        """The non-empty list of strings at ``key`` (with each element's key path when ``keyed``)."""
        node: Any = self.pf.data
        for part in key:
            if isinstance(node, dict):
                node = node.get(part)
            else:
                node = node[part] if isinstance(node, list) and isinstance(part, int) else None
        if node is None:
            if required:
                self.problem(key[:-1] or key, f"missing key {key[-1]!r} (a list of strings)", value=False,
                             code="missing-key")
            return []
        if not isinstance(node, list) or (required and not node):
            self.problem(key, f"expected a non-empty list of strings, got {type_name(node)}")
            return []
        out = []
        for i, item in enumerate(node):
            if not isinstance(item, str) or not item:
                self.problem((*key, i), f"expected a non-empty string, got {type_name(item)}")
                continue
            out.append(((*key, i), item) if keyed else item)
        return out

    def profile(self, value: str) -> str:
        candidate = self.base / value
        return str(candidate) if candidate.is_file() else value

    def path(self, key: tuple, value: str, folder_ok: bool = False) -> str:
        candidate = self.base / value
        if not candidate.exists():
            self.problem(key, f"no such file or folder: {value}", code="io-error")
        elif candidate.is_dir() and not folder_ok:
            self.problem(key, f"is a folder; name a file: {value}", code="io-error")
        return str(candidate)

    def scenarios(self) -> list[Scenario]:
        tables = self.pf.data.get("scenarios")
        if tables is None:
            return [Scenario(AS_IS)]
        if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
            self.problem(("scenarios",), "expected one or more [[scenarios]] tables")
            return [Scenario(AS_IS)]
        out, names = [], set()
        for i, table in enumerate(tables):
            for key in table:
                if key not in SCENARIO_KEYS:
                    self.problem(("scenarios", i, key), f"unknown key {key!r}; expected one of "
                                 f"{', '.join(SCENARIO_KEYS)}", value=False, code="unknown-key")
            name, named = table.get("name"), "name" in table
            if not named:
                self.problem(("scenarios", i), "missing key 'name' (the scenario's name)", value=False,
                             code="missing-key")
                continue
            if not isinstance(name, str) or not name:
                self.problem(("scenarios", i, "name"), f"expected a non-empty string, got {type_name(name)}")
                continue
            if name in names:
                self.problem(("scenarios", i, "name"), f"scenario {name!r} is defined twice")
            names.add(name)
            pods = tuple(self.path(k, v) for k, v in self.strings(("scenarios", i, "pods"), keyed=True))
            scale = tuple(self.strings(("scenarios", i, "scale")))
            for j, request in enumerate(scale):
                if not _SCALE.match(request):
                    self.problem(("scenarios", i, "scale", j), "expected KIND/NAMESPACE/NAME=N (e.g. "
                                 "deployment/default/web=40)")
            out.append(Scenario(name=name, pods=pods, scale=scale))
        return out


def _version_problems(versions: Sequence[str]) -> list[Problem]:
    problems = []
    for version in versions:
        try:
            supported(version)
        except ValueError as exc:
            problems.append(Problem(str(exc), file=f"--kubernetes-version {version}", code="invalid-value"))
    return problems


def _duplicates(names: list[str], where: Any, kind: str) -> list[Problem]:
    seen: set[str] = set()
    problems = []
    for i, name in enumerate(names):
        if name in seen:
            problems.append(Problem(f"{kind} {name!r} is given twice", file=where(name, i),
                                    code="invalid-value"))
        seen.add(name)
    return problems
