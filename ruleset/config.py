"""The assembled profile: what the scheduler will run, after ``extends`` is resolved.

Data only (kube-scheduler's ``apis/config`` types): which plugins, with which weights,
points and args, and where each setting was written so that a problem found later can
point back at it. Which plugins the framework adds by itself, and every rule about a
profile's plugins, live in :mod:`ruleset.framework.defaults` and
:mod:`ruleset.framework.validation`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleset.errors import Problem
from ruleset.kversion import DEFAULT, Target, supported

#: The schedulerName kube-scheduler gives a profile that names none (``v1.DefaultSchedulerName``).
DEFAULT_SCHEDULER_NAME = "default-scheduler"

#: A key path: table keys as ``str``, array indices as ``int``.
KeyPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a setting was written (for error messages)."""

    file: str | None = None
    line: int | None = None
    column: int | None = None

    def problem(self, message: str, path: str | None, code: str, severity: str = "error") -> Problem:
        """A :class:`~ruleset.errors.Problem` located here."""
        return Problem(message, file=self.file, line=self.line, column=self.column, path=path, code=code,
                       severity=severity)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a setting in effect was written: its position, and its key path in that file."""

    origin: Origin
    path: KeyPath


@dataclass
class PluginConfig:
    """One enabled plugin of a profile."""

    name: str
    weight: int = 1
    #: Extension points the plugin is limited to; None means every point it implements.
    points: tuple[str, ...] | None = None
    #: The ``args`` table as written (merged through ``extends``), before parsing.
    args: dict[str, Any] = field(default_factory=dict)
    #: The plugin's table in the last file of the extends chain that mentions it.
    origin: Origin = field(default_factory=Origin)
    #: The name the profile first wrote, when it was a deprecated alias (e.g. ServiceSpreading).
    written_name: str | None = None
    #: Where each setting in effect was written, by key path inside the plugin's table:
    #: ``("weight",)``, ``("points",)``, ``("args",)``. Args that come from elsewhere in the
    #: profile add deeper paths (the Rules plugin's ``("args", "rules", 0)`` is a ``[[rules]]``
    #: table). Empty for a plugin built in code.
    sources: dict[KeyPath, Source] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The name results are reported under: as the profile wrote it."""
        return self.written_name or self.name

    def written(self, key: str) -> bool:
        """Whether the profile wrote ``key`` (``"weight"``, ``"points"``, ``"args"``) for this plugin."""
        return (key,) in self.sources


@dataclass
class RuleConfig:
    """A declarative ``[[rules]]`` entry: shorthand for one of the Rules plugin's ``rules`` args."""

    name: str
    pods: str = ""
    require: str | None = None
    prefer: str | None = None
    weight: int = 1
    origin: Origin = field(default_factory=Origin)
    #: The rule's key path in the file it was written in (``("rules", 2)``); empty when built in code.
    path: KeyPath = ()

    def as_args(self) -> dict[str, Any]:
        """The rule as an entry of the Rules plugin's ``rules`` arg."""
        entry: dict[str, Any] = {"name": self.name, "pods": self.pods}
        if self.require is not None:
            entry["require"] = self.require
        if self.prefer is not None:
            entry["prefer"] = self.prefer
        entry["weight"] = self.weight
        return entry


@dataclass
class Profile:
    """A scheduling profile ready to be built into a framework."""

    name: str
    plugins: list[PluginConfig] = field(default_factory=list)
    #: Plugin names explicitly disabled somewhere in the extends chain.
    disabled: set[str] = field(default_factory=set)
    #: 0 means adaptive (kube-scheduler's default); None means not set (adaptive).
    percentage_of_nodes_to_score: int | None = None
    rules: list[RuleConfig] = field(default_factory=list)
    #: The extends chain, this profile's file first.
    files: list[str] = field(default_factory=list)
    description: str = ""
    #: The ``spec.schedulerName`` of the pods this profile schedules (kube-scheduler's
    #: ``KubeSchedulerProfile.schedulerName``).
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    #: Where ``schedulerName`` was written (in this file or one it extends); None when defaulted.
    scheduler_name_origin: Origin | None = None
    #: ``kubernetesVersion`` as written ("1.34"), inherited through extends; None: the implicit 1.20.
    kubernetes_version: str | None = None
    #: ``featureGates`` overrides, inherited through extends (a child's entries win, key by key).
    feature_gates: dict[str, bool] = field(default_factory=dict)

    @property
    def target(self) -> Target:
        """The release and feature gates the profile runs as (the implicit 1.20 when it names
        none, or names one ruleset does not support: the loader reports that)."""
        try:
            version = supported(self.kubernetes_version) if self.kubernetes_version else DEFAULT
        except ValueError:
            version = DEFAULT
        return Target(version, dict(self.feature_gates), explicit=self.kubernetes_version is not None)

    def plugin(self, name: str) -> PluginConfig | None:
        for config in self.plugins:
            if config.name == name:
                return config
        return None
