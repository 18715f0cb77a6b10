"""The behavioural test file, as data, and the outcome of running it.

A test file (TOML, named ``*.test.toml`` so that a folder argument finds it) names a
profile, a cluster and pending pods, and states what must happen when every pending pod is
scheduled, as ``ruleset schedule`` schedules them::

    profile = "../profiles/bin-packing.toml"   # relative to this file, or a bundled name (default "default")
    cluster = ["cluster.yaml"]                 # manifest files or folders, relative to this file
    seed = 0                                   # as schedule --seed

    [[nodes]]                                  # inline nodes (with or without `cluster`)
    name = "n1"
    cpu = "4"                                  # allocatable; default 4 CPUs, 8Gi, 110 pods
    memory = "8Gi"
    labels = { zone = "a" }
    taints = ["dedicated=gpu:NoSchedule"]      # KEY[=VALUE]:EFFECT

    [[pods]]                                   # pods to create and schedule: inline tables, or
    name = "web-1"                             # pods = ["pods.yaml"] (files or folders)
    cpu = "500m"
    labels = { app = "web" }
    tolerations = ["dedicated=gpu:NoSchedule"] # KEY[=VALUE][:EFFECT]; no value: operator Exists

    [[expect]]
    pod = "default/web-1"                      # NAMESPACE/NAME, or NAME in "default"
    lands-on = "zone=a"                        # the node it lands on matches this label selector
    [[expect]]
    pod = "default/big"
    unschedulable = true
    reason = "Insufficient cpu"                # optional: a substring of the scheduler's message
    [[expect]]
    at-most = 2                                # no node holds more than 2 pods matching `pods`
    pods = "app=web"                           # (per-node = false: not more than 2 in the cluster)
    [[expect]]
    spread = "cpu"                             # utilisation (requested/allocatable, percent) after
    max-stddev = 20                            # the run, over the nodes that have the resource, as
    max-range = 60                             # `compare` reports it; either bound, or both
    [[expect]]
    same-as = "default-1.20"                   # this profile places every pod as that one does

Without ``cluster`` and ``nodes`` the cluster is the bundled demo; without ``pods`` the
pods scheduled are the cluster's pending ones. Inline nodes and pods are written as
manifests and read by the code behind ``--cluster`` and ``--pods`` (API checks,
admission). Every expectation may have a ``name`` (its title in reports). Selectors are
those of ``ruleset selector``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruleset.errors import Problem
from ruleset.selector import Selector

if TYPE_CHECKING:
    from ruleset.pluginmanager import PluginProblem

#: The key that makes an ``[[expect]]`` table each kind of expectation, in the order documented.
KINDS = ("lands-on", "unschedulable", "at-most", "spread", "same-as")
#: The code of a failed expectation's problem.
FAILED = "expectation-failed"


@dataclass(frozen=True)
class Where:
    """Where an ``[[expect]]`` table starts (its header)."""

    file: str
    line: int
    column: int


@dataclass(frozen=True)
class Expectation:
    """One ``[[expect]]`` table; which fields are set depends on :attr:`kind`."""

    kind: str
    where: Where
    index: int
    name: str | None = None
    pod: str | None = None
    selector: Selector | None = None
    selector_text: str = ""
    reason: str | None = None
    limit: int = 0
    per_node: bool = True
    resource: str = ""
    #: ``spread``: bounds in percentage points (None: not bounded), as ``compare`` reports spread.
    max_stddev: float | None = None
    max_range: float | None = None
    #: ``same-as``: the other profile as ``--profile`` takes it (a path or a bundled name).
    profile: str = ""
    #: ``same-as``: the profile as written in the file.
    profile_text: str = ""

    @property
    def title(self) -> str:
        """What is expected, in a few words (a report's test name)."""
        if self.name:
            return self.name
        if self.kind == "lands-on":
            return f"{self.pod} lands on {self.selector_text}"
        if self.kind == "unschedulable":
            return f"{self.pod} is unschedulable" + (f" ({self.reason})" if self.reason else "")
        if self.kind == "at-most":
            where = "per node" if self.per_node else "in the cluster"
            return f"at most {self.limit} pods matching {self.selector_text} {where}"
        if self.kind == "spread":
            bounds = [f"{what} at most {bound:g}" for what, bound in (("std-dev", self.max_stddev),
                                                                      ("max-min", self.max_range))
                      if bound is not None]
            return f"{self.resource} spread: {', '.join(bounds)}"
        return f"same placements as {self.profile_text}"


@dataclass
class TestFile:
    """A test file, read and checked: the inputs of one run and what it must show."""

    __test__ = False  # not a pytest class

    path: Path
    profile: str = "default"
    cluster: list[str] = field(default_factory=list)
    #: Inline Node manifests, with the key path of the table each came from.
    nodes: list[tuple[tuple[str | int, ...], dict[str, Any]]] = field(default_factory=list)
    pod_files: list[str] = field(default_factory=list)
    #: Inline Pod manifests, with the key path of the table each came from.
    pods: list[tuple[tuple[str | int, ...], dict[str, Any]]] = field(default_factory=list)
    seed: int = 0
    expectations: list[Expectation] = field(default_factory=list)
    #: Where each inline table is (key path -> (line, column)), to locate what decoding finds.
    places: dict[tuple[str | int, ...], tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """One expectation, checked: ``message`` says what happened (why it failed, when it did)."""

    expectation: Expectation
    passed: bool
    message: str

    def problem(self) -> Problem:
        """A failed expectation as a located problem at its ``[[expect]]`` table."""
        where = self.expectation.where
        return Problem(self.message, file=where.file, line=where.line, column=where.column,
                       path=f"expect[{self.expectation.index}]", code=FAILED)


@dataclass
class FileOutcome:
    """One test file's outcomes, or the problems that kept it from running."""

    path: str
    outcomes: list[Outcome] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> int:
        return sum(1 for o in self.outcomes if not o.passed)

    @property
    def passed(self) -> int:
        return sum(1 for o in self.outcomes if o.passed)


@dataclass
class Report:
    """Every test file run: exit code 0 all passed, 1 an expectation failed, 2 a bad test file."""

    files: list[FileOutcome]
    #: What went wrong loading plugins (in no file; reported, never failing the run by itself).
    plugin_problems: list[PluginProblem] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(f.passed for f in self.files)

    @property
    def failed(self) -> int:
        return sum(f.failed for f in self.files)

    @property
    def errors(self) -> int:
        return sum(len(f.problems) for f in self.files)

    @property
    def exit_code(self) -> int:
        if self.errors:
            return 2
        return 1 if self.failed else 0
