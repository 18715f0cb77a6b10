"""ruleset: declarative TOML scheduling profiles assembled into a Kubernetes-exact scheduler.

The public API for plugin authors is re-exported here (lazily, so that importing the
command line stays fast): :class:`Plugin`, :class:`PerNodeFilter`, :class:`PerNodeScore`,
:data:`hookimpl`, :class:`Status`, :class:`Code`, :class:`FilterResult`,
:class:`PostFilterResult`, :class:`CycleState`, :class:`NodeSet` and :class:`NodeInfo`.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "hookimpl": "ruleset.hookspecs",
    "hookspec": "ruleset.hookspecs",
    "Plugin": "ruleset.framework.plugin",
    "PerNodeFilter": "ruleset.framework.plugin",
    "PerNodeScore": "ruleset.framework.plugin",
    "Handle": "ruleset.framework.plugin",
    "Status": "ruleset.framework.status",
    "Code": "ruleset.framework.status",
    "FilterResult": "ruleset.framework.results",
    "PostFilterResult": "ruleset.framework.results",
    "NodeStatuses": "ruleset.framework.results",
    "CycleState": "ruleset.framework.cycle_state",
    "ArgError": "ruleset.framework.args",
    "arg_field": "ruleset.framework.args",
    "NodeSet": "ruleset.snapshot",
    "NodeInfo": "ruleset.snapshot",
    "Snapshot": "ruleset.snapshot",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ruleset' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
