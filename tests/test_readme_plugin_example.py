"""README's "Writing a plugin" example runs as written: its Python block defines a plugin and
its registration hook; registered, the plugin scores spot nodes 100 and the others 0. The
test-kit section's example tests that plugin, and its two test functions pass as written."""

from __future__ import annotations

import re
from pathlib import Path

from ruleset import Handle
from ruleset.config import PluginConfig, Profile
from ruleset.framework.runtime import Framework
from ruleset.scheduler import Scheduler
from tests.factories import Harness, make_node, make_pod, registry_with

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def example_module() -> dict:
    section = README[README.index("### Writing a plugin"):README.index("### Write a plugin, from")]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)
    namespace: dict = {"__name__": "readme_example"}
    exec(compile(code, "README.md", "exec"), namespace)
    return namespace


def test_the_example_plugin_registers_and_scores_spot_nodes():
    registered: list[type] = []
    example_module()["ruleset_register_plugins"](registered.append)
    assert [cls.name for cls in registered] == ["PreferSpotNodes"]

    harness = Harness([], [make_node("spot", {"node.kubernetes.io/lifecycle": "spot"}), make_node("on-demand")])
    profile = Profile(name="spot", plugins=[PluginConfig("PreferSpotNodes")], percentage_of_nodes_to_score=100)
    harness.framework = Framework(profile, registry_with(*registered), Handle(harness.snapshot))
    harness.scheduler = Scheduler(harness.framework)
    assert harness.score(make_pod("p")) == {"spot": 100, "on-demand": 0}


def test_the_test_kit_example_passes_as_written():
    section = README[README.index("### The plugin test kit"):README.index("### What a plugin author needs")]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)
    namespace = example_module()
    exec(compile(code, "README.md", "exec"), namespace)
    namespace["test_prefers_spot_nodes"]()
    namespace["test_conforms"]()
