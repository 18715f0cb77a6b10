"""Which extension-point hooks a plugin class implements, checked against the specs once per class.

Hook conformance is a property of a class, not of a profile: pluggy checks every
``@hookimpl`` method of the class against :class:`~ruleset.hookspecs.ExtensionPointSpecs`
(an unknown hook, or an argument the spec does not have, is an error naming plugin and
hook) the first time the class is asked about, and the answer is kept. Frameworks then
call the methods of their instances directly, through tables built from this answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pluggy

from ruleset import hookspecs
from ruleset.framework.points import HOOKS


@dataclass(frozen=True, slots=True)
class ClassHooks:
    """A plugin class's hook implementations: hook name -> the argument names it takes."""

    argnames: dict[str, tuple[str, ...]]
    #: Why the class does not conform to the specs (pluggy's message), or None.
    problem: str | None = None


_checked: dict[type, ClassHooks] = {}
_manager: pluggy.PluginManager | None = None


def class_hooks(cls: type) -> ClassHooks:
    """Check ``cls``'s hook methods against the specs (once per class)."""
    found = _checked.get(cls)
    if found is None:
        found = _checked[cls] = _check(cls)
    return found


def _check(cls: type) -> ClassHooks:
    global _manager
    if _manager is None:  # one manager for every class: adding the specs is the costly part
        _manager = pluggy.PluginManager(hookspecs.PROJECT)
        _manager.add_hookspecs(hookspecs.ExtensionPointSpecs)
    manager = _manager
    name = getattr(cls, "name", cls.__qualname__)
    try:
        # An instance that skipped __init__: pluggy only reads the methods, and a constructor
        # needs args and a handle that conformance has nothing to do with.
        new: Any = cls.__new__
        instance = new(cls)
    except Exception as exc:  # a class pluggy cannot even inspect
        return ClassHooks({}, f"cannot read its hooks: {type(exc).__name__}: {exc}")
    try:
        # Alone in the manager while it is checked, so check_pending speaks of this class only.
        manager.register(instance, name=name)
        manager.check_pending()
    except pluggy.PluginValidationError as exc:
        return ClassHooks({}, str(exc))
    except Exception as exc:
        return ClassHooks({}, f"cannot read its hooks: {type(exc).__name__}: {exc}")
    else:
        argnames = {hook: tuple(impl.argnames) for hook in HOOKS
                    for impl in getattr(manager.hook, hook).get_hookimpls()}
        return ClassHooks(argnames)
    finally:
        if manager.is_registered(instance):
            manager.unregister(instance)
