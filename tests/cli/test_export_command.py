"""``ruleset export``: stdout or an atomic file, refusals named with exit 1, --allow-lossy warnings;
third-party plugins refused with a hint, kept by --allow-third-party and imported back."""

import sys

import pytest
import yaml

from ruleset.cli import main
from tests.kubeconfig.helpers import gang_installed

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_stdout_and_file(tmp_path, capsys):
    assert main(["export", "default", "--format", "kube-scheduler"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Exported by `ruleset export --api-version v1beta1` from ")
    doc = yaml.safe_load(out)
    assert doc["kind"] == "KubeSchedulerConfiguration"
    assert doc["profiles"][0]["schedulerName"] == "default-scheduler"

    target = tmp_path / "scheduler.yaml"
    assert main(["export", "default", "-o", str(target)]) == 0
    assert yaml.safe_load(target.read_text()) == doc
    assert main(["export", "default", "-o", str(target)]) == 2
    assert "already exists; pass --force to overwrite" in capsys.readouterr().err
    assert main(["export", "cluster-autoscaler", "-o", str(target), "--force"]) == 0
    assert yaml.safe_load(target.read_text())["profiles"][0]["schedulerName"] == "default-scheduler"
    assert [p.name for p in tmp_path.iterdir()] == ["scheduler.yaml"]  # no temporary file left behind


def test_refusal_names_each_item_and_writes_nothing(tmp_path, capsys):
    target = tmp_path / "out.yaml"
    assert main(["export", "legacy-policy", "--api-version", "v1", "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert "plugin EqualPriority: cannot be expressed in kubescheduler.config.k8s.io/v1" in err
    assert "plugin SelectorSpread" in err and "use PodTopologySpread" in err
    assert "6 item(s) cannot be expressed" in err
    assert not target.exists()


def test_allow_lossy_warns_per_item(tmp_path, capsys):
    assert main(["export", "legacy-policy", "--api-version", "v1", "--allow-lossy"]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if line.startswith("warning: dropped ")]
    assert len(warnings) == 6
    assert "# Lossy: 6 item(s) left out" in captured.out
    assert yaml.safe_load(captured.out)["apiVersion"] == "kubescheduler.config.k8s.io/v1"


def test_several_profiles_and_bad_input(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin.toml").write_text('name = "bin"\nextends = "cluster-autoscaler"\nschedulerName = "bin-packing"\n')
    assert main(["export", "default", "bin.toml"]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert [p["schedulerName"] for p in doc["profiles"]] == ["default-scheduler", "bin-packing"]
    assert main(["export", str(tmp_path / "missing.toml")]) == 2
    assert main(["export", "default", "--api-version", "v1beta3"]) == 2


DEFAULTED = "this profile serves it by default: set schedulerName to serve another"


@pytest.mark.parametrize("files,argv,errors", [
    pytest.param({"a.toml": 'name = "a"\nschedulerName = "x"\n', "b.toml": 'name = "b"\nschedulerName = "x"\n'},
                 ["a.toml", "b.toml"],
                 ['error: b.toml:2:17: schedulerName: Duplicate value: "x" (also the schedulerName of a.toml:2:17)'],
                 id="written"),
    pytest.param({"a.toml": 'name = "a"\n', "b.toml": 'name = "b"\n'}, ["a.toml", "b.toml"],
                 ['error: b.toml:1:1: schedulerName: Duplicate value: "default-scheduler" (also the schedulerName '
                  f'of a.toml, by default); {DEFAULTED}'],
                 id="defaulted"),
    # The same profile twice: kube-scheduler would refuse the configuration this used to write.
    pytest.param({"a.toml": 'name = "a"\nschedulerName = "x"\n'}, ["a.toml", "a.toml", "--api-version", "v1"],
                 ['error: a.toml:2:17: schedulerName: Duplicate value: "x" (also the schedulerName of a.toml:2:17)'],
                 id="one-file-twice"),
])
def test_two_profiles_serving_one_scheduler_name_are_refused(tmp_path, capsys, monkeypatch, files, argv, errors):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert main(["export", *argv, "-o", "out.yaml"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err.splitlines()) == ("", errors)
    assert not (tmp_path / "out.yaml").exists()


def test_v1_refuses_the_bundled_default_and_says_why(tmp_path, capsys):
    # kube-scheduler 1.20's default profile scores with NodePreferAvoidPods, which v1 has no more.
    target = tmp_path / "scheduler.yaml"
    assert main(["export", "default", "--api-version", "v1", "-o", str(target)]) == 1
    [reason, summary] = capsys.readouterr().err.splitlines()
    assert reason.endswith(
        "default.toml: plugin NodePreferAvoidPods: cannot be expressed in kubescheduler.config.k8s.io/v1: "
        "removed from the configuration API in v1beta2/v1 (use node taints; it scored down the nodes whose "
        "scheduler.alpha.kubernetes.io/preferAvoidPods annotation names the pod's controller, so dropping it "
        "changes placements only on nodes that carry that annotation)")
    assert summary == ("error: 1 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1; nothing written "
                       "(--allow-lossy drops them)")
    assert not target.exists()
    assert main(["export", "default", "--api-version", "v1", "--allow-lossy", "-o", str(target)]) == 0
    assert yaml.safe_load(target.read_text())["profiles"][0]["schedulerName"] == "default-scheduler"


# ------------------------------------------------------------------ third-party plugins
@pytest.fixture
def gang(monkeypatch):
    yield from gang_installed(monkeypatch)


GANG_PROFILE = """\
name = "gang"
schedulerName = "gang"
[plugins.NodeUnschedulable]
[plugins.Gang]
weight = 3
args = { permitWaitingTimeSeconds = 10 }
"""


def test_third_party_plugin_is_refused_with_the_hint(gang, tmp_path, capsys):
    profile = tmp_path / "gang.toml"
    profile.write_text(GANG_PROFILE)
    assert main(["export", str(profile)]) == 1
    assert capsys.readouterr().err == (
        f"error: {profile}: plugin Gang: a third-party plugin (gang 0.1.0), not in kube-scheduler's in-tree "
        "registry (--allow-third-party keeps it, for a scheduler built with it)\n"
        "error: 1 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1beta1; nothing written "
        "(--allow-lossy drops them)\n"
    )


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_allow_third_party_keeps_it_and_import_reads_it_back(gang, tmp_path, capsys, version):
    profile = tmp_path / "gang.toml"
    profile.write_text(GANG_PROFILE)
    target = tmp_path / "scheduler.yaml"
    assert main(["export", str(profile), "--api-version", version, "--allow-third-party", "-o", str(target)]) == 0
    assert capsys.readouterr().err == ""
    text = target.read_text()
    assert text.splitlines()[:2] == [
        f"# Exported by `ruleset export --api-version {version}` from {profile}.",
        "# Third-party plugin Gang (gang 0.1.0): needs a kube-scheduler built with it.",
    ]
    assert yaml.safe_load(text)["profiles"][0]["pluginConfig"] == [
        {"name": "Gang", "args": {"permitWaitingTimeSeconds": 10, "labelKey": "pod-group"}}
    ]
    out = tmp_path / "imported"
    assert main(["import", str(target), "-o", str(out)]) == 0
    assert capsys.readouterr().err == f"wrote {out / 'gang.toml'}\n"
    plugins = tomllib.loads((out / "gang.toml").read_text())["plugins"]
    assert plugins == {
        "NodeUnschedulable": {},
        "Gang": {"weight": 3, "args": {"permitWaitingTimeSeconds": 10, "labelKey": "pod-group"}},
        "PrioritySort": {},
        "DefaultBinder": {},
    }
