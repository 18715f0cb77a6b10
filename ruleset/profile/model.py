"""The assembled profile: what the scheduler will run, after ``extends`` is resolved."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ruleset.errors import Problem

if TYPE_CHECKING:
    from ruleset.profile.loader import ProfileFile

#: The built-in plugin that runs a profile's ``[[rules]]`` (see :mod:`ruleset.rules`).
RULES_PLUGIN = "Rules"


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


@dataclass
class PluginConfig:
    """One enabled plugin of a profile."""

    name: str
    weight: int = 1
    #: Extension points the plugin is limited to; None means every point it implements.
    points: tuple[str, ...] | None = None
    #: The ``args`` table as written (merged through ``extends``), before parsing.
    args: dict[str, Any] = field(default_factory=dict)
    origin: Origin = field(default_factory=Origin)
    #: File (and position) the args came from, which may differ from ``origin`` after extends.
    args_origin: Origin = field(default_factory=Origin)
    #: The name the profile first wrote, when it was a deprecated alias (e.g. ServiceSpreading).
    written_name: str | None = None

    @property
    def label(self) -> str:
        """The name results are reported under: as the profile wrote it."""
        return self.written_name or self.name


@dataclass
class RuleConfig:
    """A declarative ``[[rules]]`` entry (compiled into the built-in Rules plugin)."""

    name: str
    pods: str = ""
    require: str | None = None
    prefer: str | None = None
    weight: int = 1
    origin: Origin = field(default_factory=Origin)
    #: The parsed file the rule was loaded from and its index in that file's ``rules`` (None when
    #: built in code), so that a problem can point into the expression.
    source: tuple[ProfileFile, int] | None = field(default=None, repr=False, compare=False)


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

    def plugin(self, name: str) -> PluginConfig | None:
        for config in self.plugins:
            if config.name == name:
                return config
        return None

    @property
    def adds_rules_plugin(self) -> bool:
        """Whether the framework adds the Rules plugin by itself: the profile has rules and
        neither lists ``[plugins.Rules]`` nor disables it."""
        return bool(self.rules) and RULES_PLUGIN not in self.disabled and self.plugin(RULES_PLUGIN) is None
