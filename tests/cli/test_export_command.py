"""``ruleset export``: stdout or an atomic file, the configuration API the profile's release reads
(v1beta1 for 1.20-1.22, v1 from 1.25), refusals named with exit 1, --allow-lossy warnings; a
release the API version cannot express refused whatever --allow-lossy says; third-party plugins
refused with a hint, kept by --allow-third-party and imported back."""

import sys

import pytest
import yaml

from ruleset.cli import main
from ruleset.profile.loader import load_profile
from tests.kubeconfig.helpers import gang_installed

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_stdout_and_file(tmp_path, capsys):
    # "default" targets Kubernetes 1.35, which reads v1; "cluster-autoscaler" 1.20, which reads v1beta1.
    assert main(["export", "default", "--format", "kube-scheduler"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Exported by `ruleset export --api-version v1` from ")
    doc = yaml.safe_load(out)
    assert doc["kind"] == "KubeSchedulerConfiguration"
    assert doc["profiles"][0]["schedulerName"] == "default-scheduler"

    target = tmp_path / "scheduler.yaml"
    assert main(["export", "default", "-o", str(target)]) == 0
    assert yaml.safe_load(target.read_text()) == doc
    assert main(["export", "default", "-o", str(target)]) == 2
    assert "already exists; pass --force to overwrite" in capsys.readouterr().err
    assert main(["export", "cluster-autoscaler", "-o", str(target), "--force"]) == 0
    written = yaml.safe_load(target.read_text())
    assert (written["apiVersion"], written["profiles"][0]["schedulerName"]) == (
        "kubescheduler.config.k8s.io/v1beta1", "default-scheduler")
    assert [p.name for p in tmp_path.iterdir()] == ["scheduler.yaml"]  # no temporary file left behind


# A 1.28 profile (v1 is read from 1.25) with what v1 cannot express: SelectorSpread (still a
# plugin in 1.28, but removed from v1), two legacy priorities, and a rule.
LEGACY_128 = """\
name = "legacy"
extends = "default"
kubernetesVersion = "1.28"
[plugins.SelectorSpread]
weight = 1
[plugins.EqualPriority]
weight = 1
[plugins.NodeResourceLimits]
weight = 1
[[rules]]
name = "zone-a"
prefer = "zone=a"
"""
V1 = "cannot be expressed in kubescheduler.config.k8s.io/v1"
LEGACY_ITEMS = [
    "rule 'zone-a': [[rules]] are a ruleset extension; KubeSchedulerConfiguration has no equivalent",
    f"plugin SelectorSpread: {V1}: removed from the configuration API in v1beta2/v1 (use PodTopologySpread)",
    f"plugin EqualPriority: {V1}: EqualPriority was never a framework plugin: the legacy Policy's "
    "EqualPriority gave every node the same score and kube-scheduler skipped it",
    f"plugin NodeResourceLimits: {V1}: the ResourceLimits priority was removed from kube-scheduler in 1.19",
]


def test_refusal_names_each_item_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.toml").write_text(LEGACY_128)
    assert main(["export", "legacy.toml", "-o", "out.yaml"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        *(f"error: legacy.toml: {item}" for item in LEGACY_ITEMS),
        "error: 4 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1; nothing written "
        "(--allow-lossy drops them)"]
    assert not (tmp_path / "out.yaml").exists()


def test_allow_lossy_warns_per_item(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.toml").write_text(LEGACY_128)
    assert main(["export", "legacy.toml", "--api-version", "v1", "--allow-lossy"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"warning: dropped legacy.toml: {item}" for item in LEGACY_ITEMS]
    assert "# Lossy: 4 item(s) left out" in captured.out
    assert yaml.safe_load(captured.out)["apiVersion"] == "kubescheduler.config.k8s.io/v1"


def test_several_profiles_and_bad_input(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin.toml").write_text('name = "bin"\nextends = "cluster-autoscaler"\nschedulerName = "bin-packing"\n')
    # cluster-autoscaler is Kubernetes 1.20's: so is default-1.20, and one configuration holds both.
    assert main(["export", "default-1.20", "bin.toml"]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert doc["apiVersion"] == "kubescheduler.config.k8s.io/v1beta1"
    assert [p["schedulerName"] for p in doc["profiles"]] == ["default-scheduler", "bin-packing"]
    # One kube-scheduler runs one release: with the 1.35 default, v1 (its API) cannot hold bin.
    assert main(["export", "default", "bin.toml"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "error: bin.toml: profile 'bin': targets Kubernetes 1.20, and kubescheduler.config.k8s.io/v1 is read by "
        "1.25 to 1.35: export it with --api-version v1beta1, or set kubernetesVersion to a release in that range",
        "error: 1 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1; nothing written"]
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


V1_RELEASES = ("targets Kubernetes 1.20, and kubescheduler.config.k8s.io/v1 is read by 1.25 to 1.35: export it "
               "with --api-version v1beta1, or set kubernetesVersion to a release in that range")


@pytest.mark.parametrize("lossy", [[], ["--allow-lossy"]], ids=["strict", "allow-lossy"])
def test_v1_refuses_the_v1_20_default_and_says_why(tmp_path, capsys, lossy):
    # kube-scheduler 1.20 never read v1 (from 1.25): no item can be dropped to make it so.
    target = tmp_path / "scheduler.yaml"
    assert main(["export", "default-1.20", "--api-version", "v1", *lossy, "-o", str(target)]) == 1
    [reason, summary] = capsys.readouterr().err.splitlines()
    assert reason.startswith("error: ") and reason.endswith(f"default-1.20.toml: profile 'default-1.20': {V1_RELEASES}")
    assert summary == "error: 1 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1; nothing written"
    assert not target.exists()


def test_v1_takes_the_bundled_default(tmp_path, capsys):
    target = tmp_path / "scheduler.yaml"
    assert main(["export", "default", "--api-version", "v1", "-o", str(target)]) == 0
    assert capsys.readouterr().err == ""
    written = yaml.safe_load(target.read_text())
    assert (written["apiVersion"], written["profiles"][0]["schedulerName"]) == (
        "kubescheduler.config.k8s.io/v1", "default-scheduler")
    assert main(["export", "default", "--api-version", "v1beta1"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {load_profile('default').files[0]}: profile 'default': targets Kubernetes 1.35, and "
        "kubescheduler.config.k8s.io/v1beta1 is read by 1.20 to 1.22: export it with --api-version v1, or set "
        "kubernetesVersion to a release in that range",
        "error: 1 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1beta1; nothing written"]


# ------------------------------------------------------------------ third-party plugins
@pytest.fixture
def gang(monkeypatch):
    yield from gang_installed(monkeypatch)


GANG_PROFILE = """\
name = "gang"
schedulerName = "gang"
{version}[plugins.NodeUnschedulable]
[plugins.Gang]
weight = 3
args = { permitWaitingTimeSeconds = 10 }
"""


def test_third_party_plugin_is_refused_with_the_hint(gang, tmp_path, capsys):
    profile = tmp_path / "gang.toml"
    profile.write_text(GANG_PROFILE.replace("{version}", ""))
    assert main(["export", str(profile)]) == 1
    assert capsys.readouterr().err == (
        f"error: {profile}: plugin Gang: a third-party plugin (gang 0.1.0), not in kube-scheduler's in-tree "
        "registry (--allow-third-party keeps it, for a scheduler built with it)\n"
        "error: 1 item(s) cannot be expressed in kubescheduler.config.k8s.io/v1beta1; nothing written "
        "(--allow-lossy drops them)\n"
    )


# Each API version with a release that reads it; import gives the newest release that reads it.
@pytest.mark.parametrize(("version", "release", "imported"), [("v1beta1", "1.20", "1.22"), ("v1", "1.35", "1.35")],
                         ids=["v1beta1", "v1"])
def test_allow_third_party_keeps_it_and_import_reads_it_back(gang, tmp_path, capsys, version, release, imported):
    profile = tmp_path / "gang.toml"
    profile.write_text(GANG_PROFILE.replace("{version}", f'kubernetesVersion = "{release}"\n'))
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
    document = tomllib.loads((out / "gang.toml").read_text())
    assert document["kubernetesVersion"] == imported
    assert document["plugins"] == {
        "NodeUnschedulable": {},
        "Gang": {"weight": 3, "args": {"permitWaitingTimeSeconds": 10, "labelKey": "pod-group"}},
        "PrioritySort": {},
        "DefaultBinder": {},
    }
