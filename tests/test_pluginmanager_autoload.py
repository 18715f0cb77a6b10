"""``RULESET_DISABLE_PLUGIN_AUTOLOAD``: only a truthy value (1, true, yes, in any case) skips the
entry points; 0, false, no, empty and anything else leave autoloading on."""

from __future__ import annotations

import pytest

from ruleset import pluginmanager
from ruleset.pluginmanager import AUTOLOAD_ENV, ENTRY_POINT_GROUP, autoload_disabled


@pytest.mark.parametrize(("value", "disabled"), [
    ("1", True), ("true", True), ("TRUE", True), ("True", True), ("yes", True), ("YES", True), (" yes\n", True),
    ("0", False), ("", False), ("false", False), ("False", False), ("no", False), ("off", False), ("2", False),
    ("y", False), ("disable", False),
])
def test_only_truthy_values_disable_autoloading(value: str, disabled: bool):
    assert autoload_disabled({AUTOLOAD_ENV: value}) is disabled


def test_unset_leaves_autoloading_on():
    assert autoload_disabled({}) is False


@pytest.mark.parametrize(("value", "consulted"), [("0", True), ("", True), ("false", True), ("1", False),
                                                  ("Yes", False)])
def test_load_registry_reads_entry_points_unless_disabled(monkeypatch, value: str, consulted: bool):
    groups: list[str] = []

    def entry_points(*, group: str) -> list:
        groups.append(group)
        return []

    monkeypatch.setattr(pluginmanager, "entry_points", entry_points)
    monkeypatch.setenv(AUTOLOAD_ENV, value)
    registry = pluginmanager.load_registry.__wrapped__()  # the uncached function: a fresh discovery
    assert groups == ([ENTRY_POINT_GROUP] if consulted else [])
    assert "NodeResourcesFit" in registry.classes
