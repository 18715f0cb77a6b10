"""The Kubernetes release a profile targets, and what differs between releases.

A profile says ``kubernetesVersion = "1.34"`` (any minor from :data:`OLDEST` to
:data:`NEWEST`; absent means 1.20, the release ruleset started from, so every older profile
keeps its meaning). What changed between releases is a list of **switches**: each one is
declared once, by the module whose behaviour it changes, with the release that changed it
(and the feature gate that guards it, if any) and the upstream file to read::

    STD_DEV = switch("NodeResourcesBalancedAllocation.standard-deviation", "1.22",
                     "standard deviation over args.resources",
                     "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go")

and read once, when a plugin is built, from the :class:`Target` of its profile
(``self.handle.target.has(STD_DEV)``), so that the hot path carries no version checks. A
release is the sum of the switches up to it; ``ruleset versions 1.34`` lists them.

Feature gates follow the release's defaults (:mod:`ruleset.kversion.gates`); a profile may
override them as kube-scheduler's ``--feature-gates`` does
(``featureGates = { MatchLabelKeysInPodTopologySpread = false }``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ruleset.kversion.gates import GATES, FeatureGate, gate_default, gates_known_at

__all__ = ["DEFAULT", "GATES", "NEWEST", "OLDEST", "SUPPORTED", "FeatureGate", "KubeVersion", "Switch",
           "Target", "gate_default", "gates_known_at", "supported", "switch", "switches"]


@dataclass(frozen=True, order=True)
class KubeVersion:
    """A Kubernetes release, ``MAJOR.MINOR`` (patch releases do not change the scheduler's behaviour
    ruleset models)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> KubeVersion:
        """``"1.34"`` (a leading ``v`` and a patch, ``v1.34.2``, are accepted and the patch
        ignored); raises ValueError with a message for anything else."""
        pattern = r"v?(\d{1,3})\.(\d{1,3})(?:\.\d{1,4})?"
        match = re.fullmatch(pattern, text.strip()) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"{text!r} is not a Kubernetes version: write \"MAJOR.MINOR\", e.g. \"1.34\"")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


#: The releases ruleset models, oldest first.
OLDEST = KubeVersion(1, 20)
NEWEST = KubeVersion(1, 35)
SUPPORTED = tuple(KubeVersion(1, minor) for minor in range(OLDEST.minor, NEWEST.minor + 1))
#: What a profile without ``kubernetesVersion`` targets.
DEFAULT = OLDEST


def supported(text: str) -> KubeVersion:
    """Parse and check a version; raises ValueError naming the supported range."""
    version = KubeVersion.parse(text)
    if version not in SUPPORTED:
        raise ValueError(f"Kubernetes {version} is not supported: ruleset models {OLDEST} to {NEWEST}")
    return version


@dataclass(frozen=True)
class Switch:
    """One behaviour that changed in a release: from ``since`` on (and while ``gate``, if any,
    is enabled) the new behaviour applies."""

    key: str
    since: KubeVersion
    summary: str
    reference: str
    gate: str | None = None
    #: The release that removed the new behaviour again, if one did (exclusive).
    until: KubeVersion | None = None


_SWITCHES: dict[str, Switch] = {}


def switch(key: str, since: str, summary: str, reference: str, gate: str | None = None,
           until: str | None = None) -> Switch:
    """Declare a switch (once per key; declaring the same key again with the same values is
    harmless, as a module imported twice does)."""
    made = Switch(key, KubeVersion.parse(since), summary, reference, gate,
                  KubeVersion.parse(until) if until else None)
    existing = _SWITCHES.setdefault(key, made)
    if existing != made:
        raise ValueError(f"switch {key!r} declared twice, differently")
    if gate is not None and gate not in GATES:
        raise ValueError(f"switch {key!r}: unknown feature gate {gate!r}")
    return made


def switches() -> list[Switch]:
    """Every declared switch, by release then key (built-in plugins declare theirs when
    imported: import :mod:`ruleset.plugins` first to see them all)."""
    return sorted(_SWITCHES.values(), key=lambda s: (s.since, s.key))


@dataclass(frozen=True)
class Target:
    """What one profile runs as: a release and its feature gates (the release's defaults,
    overridden by the profile's ``featureGates``). Plugins read it from ``handle.target``."""

    version: KubeVersion = DEFAULT
    overrides: Mapping[str, bool] = field(default_factory=dict)
    #: Whether the profile named its version (False: the implicit 1.20).
    explicit: bool = False

    def at_least(self, version: str | KubeVersion) -> bool:
        other = KubeVersion.parse(version) if isinstance(version, str) else version
        return self.version >= other

    def gate(self, name: str) -> bool:
        """Whether feature gate ``name`` is enabled (a gate the release does not know is off)."""
        if name in self.overrides:
            return bool(self.overrides[name])
        return gate_default(name, self.version)

    def has(self, change: Switch) -> bool:
        """Whether ``change`` applies to this target."""
        if self.version < change.since or (change.until is not None and self.version >= change.until):
            return False
        return change.gate is None or self.gate(change.gate)

    def __str__(self) -> str:
        return str(self.version)
