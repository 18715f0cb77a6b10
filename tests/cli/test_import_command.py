"""``ruleset import``: one TOML per profile, atomically, never overwriting; refusals exit 1."""

import sys
from pathlib import Path

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
