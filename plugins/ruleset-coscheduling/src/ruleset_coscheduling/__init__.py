"""ruleset-coscheduling: gang scheduling for ruleset (scheduler-plugins' Coscheduling, simplified).

Installing the package registers the ``Coscheduling`` plugin through the ``ruleset``
entry-point group; a profile then enables it like a built-in (see the README).
"""

from __future__ import annotations

from collections.abc import Callable

from ruleset import Plugin, hookimpl
from ruleset_coscheduling.coscheduling import (
    MIN_AVAILABLE_ANNOTATION,
    POD_GROUP_LABEL,
    Coscheduling,
    CoschedulingArgs,
)

__all__ = ["MIN_AVAILABLE_ANNOTATION", "POD_GROUP_LABEL", "Coscheduling", "CoschedulingArgs",
           "ruleset_register_plugins"]


@hookimpl
def ruleset_register_plugins(register: Callable[[type[Plugin]], None]) -> None:
    register(Coscheduling)
