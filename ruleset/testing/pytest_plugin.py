"""pytest fixtures for plugin tests, loaded through the ``pytest11`` entry point ``ruleset``.

One fixture, ``ruleset_kit``: the :mod:`ruleset.testing` module itself, so that a test
reads ``ruleset_kit.node(...)``, ``ruleset_kit.run_plugin(...)``, ``ruleset_kit.check_plugin(...)``
without an import. Nothing of ruleset is imported until a test asks for it: every pytest
run in an environment with ruleset installed loads this module.
"""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture
def ruleset_kit() -> ModuleType:
    """The plugin test kit, :mod:`ruleset.testing` (``node``, ``pod``, ``cluster``,
    ``run_plugin``, ``check_plugin``, ``PluginRun``)."""
    import ruleset.testing

    return ruleset.testing
