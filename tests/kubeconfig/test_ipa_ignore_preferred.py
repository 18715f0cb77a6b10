"""InterPodAffinity's ``ignorePreferredTermsOfExistingPods`` through ``ruleset import`` and ``ruleset export``.

The arg is a field of kubescheduler.config.k8s.io/v1 ``InterPodAffinityArgs`` from Kubernetes 1.27
(kubernetes#114393; ``staging/src/k8s.io/kube-scheduler/config/v1/types_pluginargs.go``, serialized
without ``omitempty``, so kube-scheduler writes ``false`` too). Imported as a profile of 1.27 or
later it is kept (``true``) or dropped as the release's default (``false``); for an earlier
release it is refused by validation (``arg-not-in-release``). Exported back it is the same field.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ruleset.kubeconfig.exporter import export_profiles
from ruleset.kubeconfig.importer import import_config, render
from ruleset.kubeconfig.model import INVALID, LOSSY, ImportedProfile
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import load_profile

IPA = "InterPodAffinity"
ARG = "ignorePreferredTermsOfExistingPods"


def v1_config(args: dict) -> str:
    """A v1 KubeSchedulerConfiguration of the default plugins, with ``args`` for InterPodAffinity."""
    return yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "high-throughput", "pluginConfig": [{"name": IPA, "args": args}]}],
    })


def imported(tmp_path: Path, args: dict, kubernetes_version: str | None = None) -> ImportedProfile:
    path = tmp_path / "config.yaml"
    path.write_text(v1_config(args), encoding="utf-8")
    result = import_config(path, load_registry(), kubernetes_version=kubernetes_version)
    [profile] = result.profiles
    return profile


def ipa_args(data: dict) -> dict | None:
    plugin = (data.get("plugins") or {}).get(IPA) or {}
    return plugin.get("args")


@pytest.mark.parametrize(("version", "args", "expected"), [
    pytest.param(None, {ARG: True}, {ARG: True}, id="true, newest release"),
    pytest.param("1.27", {ARG: True}, {ARG: True}, id="true at 1.27"),
    pytest.param(None, {"hardPodAffinityWeight": 1, ARG: False}, None, id="false is the default: nothing written"),
    pytest.param(None, {"hardPodAffinityWeight": 5, ARG: True}, {"hardPodAffinityWeight": 5, ARG: True},
                 id="beside hardPodAffinityWeight"),
])
def test_import_keeps_the_arg(tmp_path: Path, version: str | None, args: dict, expected: dict | None) -> None:
    profile = imported(tmp_path, args, version)
    assert [(i.severity, i.item, i.reason) for i in profile.issues if i.severity in (LOSSY, INVALID)] == []
    assert ipa_args(profile.data) == expected


def test_import_for_a_release_without_the_arg_is_invalid(tmp_path: Path) -> None:
    profile = imported(tmp_path, {ARG: True}, "1.26")
    [issue] = [i for i in profile.issues if i.severity == INVALID]
    assert f"{ARG} is not in Kubernetes 1.26: it came in 1.27" in issue.reason


def test_import_then_export_carries_the_arg(tmp_path: Path) -> None:
    registry = load_registry()
    toml = tmp_path / "high-throughput.toml"
    toml.write_text(render(imported(tmp_path, {ARG: True})), encoding="utf-8")
    profile = load_profile(toml, registry)
    assert str(profile.target.version) == "1.35"
    exported = export_profiles([profile], "v1", registry)
    assert [(i.severity, i.item) for i in exported.issues] == []
    [out] = yaml.safe_load(exported.yaml())["profiles"]
    [config] = [c for c in out["pluginConfig"] if c["name"] == IPA]
    assert config["args"] == {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "InterPodAffinityArgs",
                              ARG: True}


def test_export_leaves_the_default_out(tmp_path: Path) -> None:
    toml = tmp_path / "p.toml"
    toml.write_text(render(imported(tmp_path, {"hardPodAffinityWeight": 1, ARG: False})), encoding="utf-8")
    exported = export_profiles([load_profile(toml)], "v1")
    [out] = yaml.safe_load(exported.yaml())["profiles"]
    assert [c for c in out.get("pluginConfig", []) if c["name"] == IPA] == []
