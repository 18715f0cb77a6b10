"""Module attributes imported on first use (PEP 562), for packages whose import must stay cheap.

``ruleset`` (imported by every command and by every plugin) and ``ruleset.testing``
(imported by pytest in every run beside ruleset) declare their public names here as
``name -> defining module`` and pay for a module only when a name of it is read.
"""

from __future__ import annotations

import importlib

#: ``typing.TYPE_CHECKING``, without importing typing: this module is imported by ``ruleset`` itself.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose globals are ``namespace``: a
    name of ``exports`` is imported from its module when first read, then kept as a global."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
