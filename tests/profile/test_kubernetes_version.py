"""A profile's ``kubernetesVersion`` and ``featureGates``: read, inherited through extends,
located when wrong; ``validate`` warns when the version is implicit; ``show`` prints them;
profiles run together share one release; ``ruleset versions`` lists what the code declares."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.errors import RulesetError
from ruleset.kversion import KubeVersion
from ruleset.profile.loader import check_profile_argument, load_profile


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_version_and_gates_are_read_and_inherited(tmp_path):
    write(tmp_path, "base.toml", 'name = "base"\nkubernetesVersion = "1.30"\nfeatureGates = { SidecarContainers = false }\n'
          "[plugins.PrioritySort]\n[plugins.DefaultBinder]\n")
    child = write(tmp_path, "child.toml", 'name = "child"\nextends = "base.toml"\n'
                  "featureGates = { MatchLabelKeysInPodTopologySpread = false }\n")
    profile = load_profile(child, root=tmp_path)
    assert profile.kubernetes_version == "1.30"
    assert profile.feature_gates == {"SidecarContainers": False, "MatchLabelKeysInPodTopologySpread": False}
    target = profile.target
    assert (target.version, target.explicit) == (KubeVersion(1, 30), True)
    assert (target.gate("SidecarContainers"), target.gate("PodSchedulingReadiness")) == (False, True)


def test_without_a_version_a_profile_is_1_20():
    profile = load_profile("default-1.20")
    assert str(profile.target.version) == "1.20"


@pytest.mark.parametrize("text, expected", [
    pytest.param('kubernetesVersion = "1.19"\n',
                 "{p}:2:21: kubernetesVersion: Kubernetes 1.19 is not supported: ruleset models 1.20 to 1.35",
                 id="unsupported"),
    pytest.param('kubernetesVersion = "latest"\n',
                 "{p}:2:21: kubernetesVersion: 'latest' is not a Kubernetes version: write \"MAJOR.MINOR\", "
                 "e.g. \"1.34\"", id="not-a-version"),
    pytest.param('kubernetesVersion = "1.25"\nfeatureGates = { SidecarContainers = true }\n',
                 "{p}:3:18: featureGates.SidecarContainers: unrecognized feature gate: SidecarContainers "
                 "(Kubernetes 1.25 knows CSIMigration, CSIMigrationAWS, CSIMigrationAzureDisk, CSIMigrationGCE, "
                 "CSIMigrationOpenStack, CSIStorageCapacity, DefaultPodTopologySpread, "
                 "MatchLabelKeysInPodTopologySpread, MinDomainsInPodTopologySpread, "
                 "NodeInclusionPolicyInPodTopologySpread, PodAffinityNamespaceSelector, PodOverhead, PreferNominatedNode, "
                 "ReadWriteOncePod, VolumeCapacityPriority)", id="unknown-gate"),
    # GA gates are locked to their default (component-base featuregate's SetFromMap).
    pytest.param('kubernetesVersion = "1.34"\nfeatureGates = { SidecarContainers = false }\n',
                 "{p}:3:38: featureGates.SidecarContainers: cannot set feature gate SidecarContainers to false, "
                 "feature is locked to true (Kubernetes 1.34)", id="locked-gate"),
    pytest.param('kubernetesVersion = "1.35"\nfeatureGates = { DynamicResourceAllocation = false }\n',
                 "{p}:3:46: featureGates.DynamicResourceAllocation: cannot set feature gate "
                 "DynamicResourceAllocation to false, feature is locked to true (Kubernetes 1.35)",
                 id="locked-gate-dra-1.35"),
])
def test_problems_are_located(tmp_path, text, expected):
    path = write(tmp_path, "p.toml", 'name = "p"\n' + text + "[plugins.PrioritySort]\n[plugins.DefaultBinder]\n")
    with pytest.raises(RulesetError) as info:
        check_profile_argument(path, root=tmp_path)
    assert [str(p) for p in info.value.problems][:1] == [expected.format(p=path)]


@pytest.mark.parametrize(("version", "gate"), [
    ("1.32", "SidecarContainers"),  # beta: may be turned off
    ("1.34", "DynamicResourceAllocation"),  # GA in 1.34 but locked only from 1.35
])
def test_gates_not_yet_locked_may_be_turned_off(tmp_path, version, gate):
    path = write(tmp_path, "p.toml", f'name = "p"\nkubernetesVersion = "{version}"\nfeatureGates = {{ {gate} = false }}\n'
                                     "[plugins.PrioritySort]\n[plugins.DefaultBinder]\n")
    assert load_profile(path, root=tmp_path).feature_gates == {gate: False}


def test_validate_warns_when_the_version_is_implicit(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "old.toml", 'name = "old"\n[plugins.PrioritySort]\n[plugins.DefaultBinder]\n')
    write(tmp_path, "new.toml", 'name = "new"\nkubernetesVersion = "1.20"\n[plugins.PrioritySort]\n'
          "[plugins.DefaultBinder]\n")
    write(tmp_path, "inherits.toml", 'name = "inherits"\nextends = "default-1.20"\n')
    assert main(["validate", "old.toml", "new.toml", "inherits.toml"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        'old.toml:1:1: warning: kubernetesVersion: not set, so the profile runs as Kubernetes 1.20; set it to the '
        'release your cluster runs (e.g. kubernetesVersion = "1.34"), or to "1.20" to keep this '
        "[implicit-kubernetes-version]",
        "3 files checked, 0 invalid, 0 errors, 1 warning",
    ]


def test_show_prints_the_release_and_gates(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "p.toml", 'name = "p"\nkubernetesVersion = "1.34"\nfeatureGates = { PodLevelResources = false }\n'
          "[plugins.PrioritySort]\n[plugins.DefaultBinder]\n")
    assert main(["show", "p.toml"]) == 0
    assert "kubernetesVersion: 1.34 (feature gates: PodLevelResources=false)" in capsys.readouterr().out.splitlines()
    assert main(["show", "p.toml", "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["kubernetesVersion"], data["featureGates"]) == ("1.34", {"PodLevelResources": False})


def test_profiles_run_together_share_one_release(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "other.toml", 'name = "other"\nschedulerName = "other"\nextends = "default"\n')
    assert main(["schedule", "--profile", "default-1.20", "--profile", "other.toml"]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {tmp_path / 'other.toml'}: kubernetesVersion: profiles[1]: kubernetesVersion 1.35 "
                   "differs from 1.20 (profile 'default-1.20'): profiles run together are one kube-scheduler, one "
                   "release\n")


def test_versions_lists_the_switches_the_code_declares(capsys):
    assert main(["versions", "-o", "json"]) == 0
    releases = json.loads(capsys.readouterr().out)["releases"]
    assert [r["version"] for r in releases] == [f"1.{m}" for m in range(20, 36)]
    assert releases[0]["switches"] == 0
    counts = [r["switches"] for r in releases]
    assert counts == sorted(counts) and counts[-1] > 10
    assert main(["versions", "1.24", "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    keys = {s["key"] for s in data["switches"]}
    assert {"TaintToleration.reason-untolerated-taint", "defaults.weights", "FitError.post-filter-message"} <= keys
    assert main(["versions", "1.27", "-o", "json"]) == 0
    assert "framework.prescore-skip" in {s["key"] for s in json.loads(capsys.readouterr().out)["switches"]}
    assert all(s["since"] <= "1.24" for s in data["switches"])
    assert main(["versions", "1.99"]) == 2
    assert capsys.readouterr().err == "error: 1.99: Kubernetes 1.99 is not supported: ruleset models 1.20 to 1.35\n"


def test_fields_newer_than_the_release_are_flagged(tmp_path, capsys):
    pods = write(tmp_path, "gated.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: gated}\nspec:\n"
                 "  schedulingGates: [{name: example.com/wait}]\n  resourceClaims: [{name: gpu}]\n"
                 "  containers: [{name: c, image: nginx}]\n")
    assert main(["schedule", "--profile", "default-1.20", "--pods", str(pods), "-o", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "warning: 1 pod uses spec.schedulingGates, which Kubernetes 1.20 ignores (honoured from 1.27, feature gate "
        "PodSchedulingReadiness): set kubernetesVersion to the release your cluster runs",
        "warning: 1 pod uses spec.resourceClaims (dynamic resource allocation), which ruleset does not model: the "
        "scheduler's answer may differ",
    ]
    assert [e["field"] for e in json.loads(captured.out)["ignoredPodFields"]] == [
        "spec.schedulingGates", "spec.resourceClaims (dynamic resource allocation)"]
