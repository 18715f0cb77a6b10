"""A test kit for plugin authors: build nodes, pods and clusters, run one plugin through the
real framework, and check that a plugin does what every plugin must.

    from ruleset.testing import node, pod, run_plugin, check_plugin

    def test_conforms():
        check_plugin(MyPlugin, args={"label": "example.com/tier"})

    def test_prefers_spot_nodes():
        run = run_plugin(MyPlugin, pod("p"), [node("spot", labels={...}), node("on-demand")])
        assert run.scores == {"spot": 100, "on-demand": 0}

Nothing here needs pytest; with pytest installed, ``ruleset.testing.pytest_plugin`` (loaded
through the ``pytest11`` entry point) offers the same builders as the ``ruleset_kit`` fixture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ruleset.lazy import lazy_exports

if TYPE_CHECKING:
    from ruleset.testing.builders import cluster, node, pod
    from ruleset.testing.check import check_plugin
    from ruleset.testing.run import PluginRun, run_plugin

# Imported on first use: pytest loads the plugin module, and so this package, in every run
# of every project installed beside ruleset.
_EXPORTS = {
    "node": "ruleset.testing.builders",
    "pod": "ruleset.testing.builders",
    "cluster": "ruleset.testing.builders",
    "run_plugin": "ruleset.testing.run",
    "PluginRun": "ruleset.testing.run",
    "check_plugin": "ruleset.testing.check",
}

__all__ = ["PluginRun", "check_plugin", "cluster", "node", "pod", "run_plugin"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
