"""``ruleset import``: one TOML per profile, atomically, never overwriting; refusals exit 1."""

import json
import sys
from pathlib import Path

import pytest
import yaml

from ruleset.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "kubeconfig" / "fixtures"


def test_directory_output_validates_and_never_overwrites(tmp_path, capsys):
    out = tmp_path / "profiles"
    assert main(["import", str(FIXTURES / "docs-multiple-profiles-v1.yaml"), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["default.toml", "no-scoring-scheduler.toml"]
    assert tomllib.loads((out / "default.toml").read_text())["name"] == "default-scheduler"
    assert main(["validate", str(out)]) == 0
    capsys.readouterr()
    assert main(["import", str(FIXTURES / "docs-multiple-profiles-v1.yaml"), "-o", str(out)]) == 2
    assert "already exists; pass --force to overwrite" in capsys.readouterr().err
    assert main(["import", str(FIXTURES / "docs-multiple-profiles-v1.yaml"), "-o", str(out), "--force"]) == 0


def test_stdout_separates_profiles(capsys):
    assert main(["import", str(FIXTURES / "docs-multiple-profiles-v1.yaml")]) == 0
    out = capsys.readouterr().out
    parts = out.split("# ---- ")
    assert [p.split(" ", 1)[0] for p in parts[1:]] == ["default.toml", "no-scoring-scheduler.toml"]
    assert tomllib.loads(parts[2].split("\n", 1)[1])["name"] == "no-scoring-scheduler"


def test_unsupported_plugins_exit_1_unless_allow_lossy(tmp_path, capsys):
    config = FIXTURES / "scheduler-plugins-noderesourcetopology-configmap-v1beta1.yaml"
    out = tmp_path / "out"
    assert main(["import", str(config), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "plugin NodeResourceTopologyMatch: not an in-tree plugin of kube-scheduler 1.20" in err
    assert not out.exists()
    assert main(["import", str(config), "-o", str(out), "--allow-lossy"]) == 0
    err = capsys.readouterr().err
    assert "warning: dropped" in err and "NodeResourceTopologyMatch" in err
    text = (out / "topo-aware-scheduler.toml").read_text()
    assert "# lost (--allow-lossy): plugin NodeResourceTopologyMatch" in text


def test_input_errors_exit_2(tmp_path, capsys):
    assert main(["import", str(tmp_path / "missing.yaml")]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [\n")
    assert main(["import", str(bad)]) == 2
    assert "invalid YAML" in capsys.readouterr().err


def test_invalid_configuration_exits_1_even_with_allow_lossy(tmp_path, capsys):
    config = tmp_path / "dup.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality}]\n"
    )
    assert main(["import", str(config), "--allow-lossy"]) == 1
    assert "enabled twice at score" in capsys.readouterr().err


# ------------------------------------------------------------------ schedulerName
KSC = "kind: KubeSchedulerConfiguration\napiVersion: kubescheduler.config.k8s.io/"


# Each with the release import gives it (the newest that read its apiVersion) and the API export
# then writes (the one that release reads).
@pytest.mark.parametrize("config,expected,release,api", [
    pytest.param(KSC + "v1beta1\n", [("default.toml", "default-scheduler")], "1.22", "v1beta1", id="no-profiles"),
    pytest.param(KSC + "v1\nprofiles:\n- plugins: {}\n", [("default.toml", "default-scheduler")], "1.35", "v1",
                 id="one-profile-naming-none"),
    pytest.param(KSC + "v1\nprofiles:\n- schedulerName: batch\n- schedulerName: gpu-scheduler\n",
                 [("batch.toml", "batch"), ("gpu-scheduler.toml", "gpu-scheduler")], "1.35", "v1", id="named"),
    pytest.param(KSC + "v1alpha1\nschedulerName: legacy\n", [("legacy.toml", "legacy")], "1.20", "v1beta1",
                 id="v1alpha1-top-level"),
])
def test_each_written_profile_serves_its_scheduler_name(tmp_path, capsys, config, expected, release, api):
    source = tmp_path / "config.yaml"
    source.write_text(config)
    out = tmp_path / "out"
    assert main(["import", str(source), "-o", str(out)]) == 0
    written = sorted((p.name, tomllib.loads(p.read_text())) for p in out.iterdir())
    assert [(name, data["schedulerName"]) for name, data in written] == expected
    assert all(data["name"] == data["schedulerName"] for _, data in written)
    assert [data["kubernetesVersion"] for _, data in written] == [release] * len(expected)
    capsys.readouterr()
    # ... which export writes back: the round trip keeps every name.
    assert main(["export", *(str(out / name) for name, _ in expected), "--allow-lossy"]) == 0
    document = yaml.safe_load(capsys.readouterr().out)
    assert document["apiVersion"] == f"kubescheduler.config.k8s.io/{api}"
    assert [p["schedulerName"] for p in document["profiles"]] == [name for _, name in expected]


def simulator_export(config):
    """What kube-scheduler-simulator's ``GET /api/v1/export`` answers (simulator/snapshot/snapshot.go
    ResourcesForSnap): the cluster's objects, and the scheduler's configuration under ``schedulerConfig``,
    serialised from a typed KubeSchedulerConfiguration whose apiVersion and kind are empty."""
    return json.dumps({"pods": [], "nodes": [], "pvs": [], "pvcs": [], "storageClasses": [],
                       "priorityClasses": [], "schedulerConfig": config, "namespaces": []})


def args(api_version):
    return {"name": "InterPodAffinity",
            "args": {"kind": "InterPodAffinityArgs", "apiVersion": api_version, "hardPodAffinityWeight": 5}}


# ``release``: whose defaults the header names (v1 is read at 1.35, whose defaults lack the in-tree
# volume-limit plugins, gone in 1.32; the other versions' defaults are those of the release that set them).
@pytest.mark.parametrize("config,version,release", [
    pytest.param({"parallelism": 16, "profiles": [{"schedulerName": "sim", "pluginConfig": [
        args("kubescheduler.config.k8s.io/v1")]}]}, "v1", "1.35", id="args-name-v1"),
    pytest.param({"parallelism": 16, "profiles": [{"schedulerName": "sim", "pluginConfig": [
        args("kubescheduler.config.k8s.io/v1beta2")]}]}, "v1beta2", "1.22", id="args-name-v1beta2"),
    pytest.param({"profiles": [{"schedulerName": "sim"}]}, "v1", "1.35", id="nothing-names-a-version"),
    pytest.param({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "profiles": [{"schedulerName": "sim"}]},
                 "v1beta3", "1.23", id="own-apiVersion"),
])
def test_kube_scheduler_simulator_export(tmp_path, capsys, config, version, release):
    source = tmp_path / "export.json"
    source.write_text(simulator_export(config))
    assert main(["import", str(source)]) == 0
    out = capsys.readouterr().out
    api = f"kubescheduler.config.k8s.io/{version}"
    assert out.splitlines()[1:3] == [
        f"# Imported by `ruleset import` from {source} (kube-scheduler-simulator export, schedulerConfig read as "
        f"{api}): profiles[0]",
        f"# ({api}, merged with the kube-scheduler {release} defaults).",
    ]
    data = tomllib.loads(out.split("\n", 1)[1])
    assert (data["name"], data["schedulerName"]) == ("sim", "sim")
    hard = data["plugins"]["InterPodAffinity"].get("args", {}).get("hardPodAffinityWeight")
    assert hard == (5 if config["profiles"][0].get("pluginConfig") else None)


def test_simulator_export_without_a_configuration(tmp_path, capsys):
    source = tmp_path / "export.json"
    source.write_text(simulator_export(None))
    assert main(["import", str(source)]) == 2
    assert capsys.readouterr().err == (
        f"error: {source}: no KubeSchedulerConfiguration or scheduler Policy found (skipped: 1 <no kind>)\n")
