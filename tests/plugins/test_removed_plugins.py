"""Plugins that left kube-scheduler: refused in profiles of the release that no longer has them.

* NodeLabel: refused by ``kubescheduler.config.k8s.io/v1beta2`` (1.22,
  ``apis/config/validation`` removedPluginsByVersion); v1beta1, the last API taking it, and
  the plugin (PR #105906) are gone in 1.23.
* NodePreferAvoidPods: likewise out of v1beta2 (1.22) and of every API 1.23 serves.
* SelectorSpread: refused by v1 (1.25), allowed by v1beta3 until the plugin was removed
  (PR #117720) in 1.29.
* ServiceAffinity: ruleset has no such plugin.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleset.plugins.node_label import NodeLabel
from ruleset.plugins.node_prefer_avoid_pods import NodePreferAvoidPods
from ruleset.plugins.selector_spread import SelectorSpread
from ruleset.profile.loader import check_profile


@pytest.mark.parametrize(("cls", "removed_in", "replaced_by"), [
    (NodeLabel, "1.23", "NodeAffinity (a nodeSelector or node affinity on the pods)"),
    (NodePreferAvoidPods, "1.23", "taints with effect PreferNoSchedule (TaintToleration)"),
    (SelectorSpread, "1.29", "PodTopologySpread (its system default constraints spread the same pods)"),
])
def test_release_attributes(cls: type, removed_in: str, replaced_by: str) -> None:
    assert (cls.introduced_in, cls.removed_in, cls.replaced_by) == (None, removed_in, replaced_by)


def _errors(tmp_path: Path, plugin: str, version: str) -> list[str]:
    path = tmp_path / "p.toml"
    path.write_text(f'name = "p"\nkubernetesVersion = "{version}"\n\n[plugins.PrioritySort]\n\n'
                    f'[plugins.{plugin}]\n\n[plugins.DefaultBinder]\n', encoding="utf-8")
    _, problems = check_profile(path)
    return [p.message for p in problems if p.severity == "error"]


@pytest.mark.parametrize(("plugin", "last", "gone", "replacement"), [
    ("NodeLabel", "1.22", "1.23", "NodeAffinity"),
    ("NodePreferAvoidPods", "1.22", "1.23", "TaintToleration"),
    ("SelectorSpread", "1.28", "1.29", "PodTopologySpread"),
])
def test_accepted_until_removed_then_refused_naming_the_replacement(
        tmp_path: Path, plugin: str, last: str, gone: str, replacement: str) -> None:
    assert _errors(tmp_path, plugin, "1.20") == []
    assert _errors(tmp_path, plugin, last) == []
    (message,) = _errors(tmp_path, plugin, gone)
    assert message.startswith(f"plugin {plugin!r} is not in Kubernetes {gone}: it was removed in {gone}; use ")
    assert replacement in message
    assert len(_errors(tmp_path, plugin, "1.34")) == 1
