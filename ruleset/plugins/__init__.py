"""The built-in (in-tree) plugins, registered through the discovery hook.

Laid out as upstream's ``pkg/scheduler/framework/plugins``: a family with several files is
a package (:mod:`.noderesources`, :mod:`.podtopologyspread`, :mod:`.interpodaffinity`,
:mod:`.rules`), a plugin of one file a module, and :mod:`.helper` holds what plugins share.
They import the framework only from the top-level :mod:`ruleset` package, as a third-party
plugin would.

Registration is strict: every class is imported by name (:mod:`.builtin`), so a missing or
renamed module is an ImportError when the plugins load, never a plugin silently left out.
Importing this package imports none of them: :data:`BUILTIN_PLUGINS` is read on first use (so
``ruleset validate`` imports a plugin's args module, :mod:`.table`, without the plugins).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ruleset import hookimpl

if TYPE_CHECKING:
    from ruleset import Plugin
    from ruleset.plugins.builtin import BUILTIN_PLUGINS

__all__ = ["BUILTIN_PLUGINS", "ruleset_register_plugins"]


@hookimpl
def ruleset_register_plugins(register: Callable[[type[Plugin]], None]) -> None:
    """Register every built-in plugin class, in :data:`BUILTIN_PLUGINS` order."""
    for cls in importlib.import_module("ruleset.plugins.builtin").BUILTIN_PLUGINS:
        register(cls)


def __getattr__(name: str) -> Any:
    if name == "BUILTIN_PLUGINS":
        return importlib.import_module("ruleset.plugins.builtin").BUILTIN_PLUGINS
    raise AttributeError(f"module 'ruleset.plugins' has no attribute {name!r}")
