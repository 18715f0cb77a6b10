"""Every built-in plugin class conforms to what the engine, the editors and the docs expect of it.

The Python form of upstream's compile-time assertions (``var _ framework.FilterPlugin =
&NodeName{}``): a plugin that breaks one of these would otherwise only fail when a profile
uses it, or silently show editors and ``ruleset schema`` a wrong or empty description.
For each class the registry holds as built-in:

* ``name`` is set and is the name it is registered under;
* the class has its own docstring (its first paragraph is the plugin's description in
  ``ruleset schema``);
* ``args_schema`` is the schema derived from the ``Args`` dataclass (args are declared once,
  in ``arg_field``): its properties are exactly the dataclass's keys, in field order, every
  one with a description, and the ``default`` annotations are exactly the defaults the
  plugin applies (``args_to_mapping(Args())``);
* its hook methods conform to the hookspecs (``class_hooks(cls).problem is None``) and it
  implements at least one extension point;
* README.md's plugin table has a ``| Name |`` row for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ruleset import Plugin
from ruleset.framework.hooks import class_hooks
from ruleset.framework.points import implemented_points
from ruleset.pluginmanager import load_registry
from ruleset.testing.conformance_args import args_problems

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")

_REGISTRY = load_registry()
BUILTINS = [pytest.param(name, cls, id=name) for name, cls in _REGISTRY.classes.items()
            if _REGISTRY.is_builtin(name)]


def _properties(cls: type[Plugin]) -> dict[str, Any]:
    return cls.args_schema["properties"]


def test_every_builtin_plugin_is_checked():
    from ruleset.plugins import BUILTIN_PLUGINS

    assert [p.values[1] for p in BUILTINS] == list(BUILTIN_PLUGINS)


@pytest.mark.parametrize(("name", "cls"), BUILTINS)
def test_name_is_the_registry_key(name: str, cls: type[Plugin]):
    assert cls.__dict__.get("name") == name


@pytest.mark.parametrize(("name", "cls"), BUILTINS)
def test_has_its_own_docstring(name: str, cls: type[Plugin]):
    doc = cls.__dict__.get("__doc__")
    assert isinstance(doc, str)
    assert doc.strip() != ""


@pytest.mark.parametrize(("name", "cls"), BUILTINS)
def test_args_schema_is_derived_from_the_args_dataclass(name: str, cls: type[Plugin]):
    # The plugin test kit's check (what check_plugin runs for third-party plugins too):
    # PodTopologySpread's defaultingType defaults to "" (List with defaultConstraints, else
    # System), not to the "System" it resolves to without them, which is invalid next to
    # defaultConstraints: an editor inserting a default must not change the profile.
    assert args_problems(cls) == []
    if cls.Args is None:
        assert _properties(cls) == {}


@pytest.mark.parametrize(("name", "cls"), BUILTINS)
def test_hooks_conform_to_the_specs(name: str, cls: type[Plugin]):
    assert class_hooks(cls).problem is None


@pytest.mark.parametrize(("name", "cls"), BUILTINS)
def test_implements_an_extension_point(name: str, cls: type[Plugin]):
    assert implemented_points(cls) != []


@pytest.mark.parametrize(("name", "cls"), BUILTINS)
def test_has_a_readme_row(name: str, cls: type[Plugin]):
    assert f"| {name} |" in README
