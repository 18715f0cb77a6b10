"""The README documents every hook with its exact signature (datasette's docs test)."""

from pathlib import Path

import pluggy

from ruleset import hookspecs

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _signatures(specs: type) -> list[str]:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(specs)
    out = []
    for name in dir(specs):
        if name.startswith("ruleset_"):
            caller = getattr(pm.hook, name)
            out.append(f"{name}({', '.join(caller.spec.argnames)})")
    return out


def test_every_hook_is_documented_with_its_signature():
    missing = [s for s in _signatures(hookspecs.DiscoverySpecs) + _signatures(hookspecs.ExtensionPointSpecs)
               if s not in README]
    assert missing == []


def test_every_builtin_plugin_is_in_the_readme_table():
    from ruleset.pluginmanager import load_registry

    missing = [name for name in load_registry().names() if f"| {name} |" not in README]
    assert missing == []


def test_the_hook_reference_is_generated_from_the_specs():
    # A hookspec docstring changed without `python tests/hook_reference.py --write` fails here.
    from tests.hook_reference import readme_with_reference

    assert readme_with_reference(README) == README
