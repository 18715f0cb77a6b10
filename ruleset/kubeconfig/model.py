"""The values passed between reading, merging, translating and writing configurations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleset.errors import printable

#: An item that cannot cross to the other side: refused unless ``--allow-lossy``, which
#: drops it with a warning.
LOSSY = "lossy"
#: Dropped without changing any placement ruleset computes (see catalogue.HARMLESS); reported.
DROPPED = "dropped"
#: Something worth knowing that changes nothing (an order kube-scheduler does not depend on).
NOTE = "note"
#: An invalid configuration: kube-scheduler itself would refuse it.
INVALID = "invalid"


@dataclass(frozen=True)
class Issue:
    """One item that did not translate as is, named, with the reason."""

    severity: str
    item: str
    reason: str
    where: str = ""

    def __str__(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return printable(f"{where}{self.item}: {self.reason}")


@dataclass
class UpstreamProfile:
    """One kube-scheduler profile after its version's merge with the defaults.

    ``points`` holds, per extension point (KubeSchedulerConfiguration names), the enabled
    plugins in the order kube-scheduler runs them, with the Score weight where one applies.
    """

    name: str
    api_version: str
    release: str
    points: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)
    #: ``pluginConfig`` args by plugin name, ``apiVersion``/``kind`` removed.
    args: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    #: The in-tree plugin names of the kube-scheduler release the profile is read as.
    in_tree: frozenset[str] = frozenset()
    #: Where the profile came from, for messages: ``file: profiles[1]``.
    where: str = ""
    issues: list[Issue] = field(default_factory=list)


@dataclass
class ImportedProfile:
    """A ruleset profile made from an :class:`UpstreamProfile`: the TOML data and what was left out."""

    name: str
    data: dict[str, Any]
    header: list[str] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    where: str = ""


class RefusedError(Exception):
    """Items that cannot cross without ``--allow-lossy``; the CLI prints each and exits 1."""

    def __init__(self, issues: list[Issue]):
        self.issues = issues
        super().__init__("\n".join(str(i) for i in issues))
