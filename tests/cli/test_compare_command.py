"""``ruleset compare``: output, and exit codes 0 (same, or differences without the gate),
1 (differences with ``--fail-if-differs``), 2 (bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main

DATA = Path(__file__).parent.parent / "analysis" / "data"
VERSIONS = ["-p", str(DATA / "balanced.toml"), "-c", str(DATA / "version-cluster.yaml"),
            "--kubernetes-version", "1.20", "--kubernetes-version", "1.34"]
LOOSE = ["--tolerance", "placements=1", "--tolerance", "memory.stddev=6.25", "--tolerance", "memory.range=12.5",
         "--tolerance", "nodesUsed=1"]


@pytest.mark.parametrize(("argv", "code"), [
    ([], 0),
    (["--fail-if-differs"], 1),
    (["--fail-if-differs", *LOOSE], 0),
    (["--fail-if-differs", *LOOSE[:-2]], 1),
], ids=["no-gate", "gate", "within-tolerance", "nodes-used-not-tolerated"])
def test_exit_codes(capsys, argv: list[str], code: int) -> None:
    assert main(["compare", *VERSIONS, "-o", "json", *argv]) == code
    document = json.loads(capsys.readouterr().out)
    assert document["schemaVersion"] == 1
    assert len(document["placementsDiffer"]) == 1


def test_same_profile_twice_agrees(capsys) -> None:
    argv = ["compare", "-p", str(DATA / "balanced.toml"), "-p", str(DATA / "balanced.toml"),
            "-c", str(DATA / "version-cluster.yaml"), "--fail-if-differs"]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "balanced#1 vs balanced#2: agree; 0 pod(s) placed differently, 0 scheduled by one side only")


def test_demo_text_fits_the_width(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["compare", "-p", "default-1.20", "-p", "cluster-autoscaler"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("default-1.20 vs cluster-autoscaler: differ; 5 pod(s) placed")
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize("argv", [
    ["-p", "default"],
    ["--kubernetes-version", "1.20"],
    ["-p", "default", "--kubernetes-version", "1.20", "--kubernetes-version", "1.34"],
    [*VERSIONS, "--tolerance", "nope=1"],
    [*VERSIONS, "--tolerance", "cpu.stddev"],
    ["-p", str(DATA / "balanced.toml"), "--kubernetes-version", "1.20", "--kubernetes-version", "0.9"],
], ids=["one-profile", "one-release", "plugin-not-in-release", "unknown-metric", "malformed-tolerance",
        "unsupported-release"])
def test_bad_input_exits_2(capsys, argv: list[str]) -> None:
    assert main(["compare", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize(("argv", "first"), [
    ([], "balanced@1.20 vs balanced@1.34: differ; 1 pod(s) placed differently, 0 scheduled by one side only"),
    (LOOSE, "balanced@1.20 vs balanced@1.34: within tolerance; 1 pod(s) placed differently, 0 scheduled by one "
            "side only"),
], ids=["differ", "within-tolerance"])
def test_text_verdict(capsys, monkeypatch, argv: list[str], first: str) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    main(["compare", *VERSIONS, *argv])
    assert capsys.readouterr().out.splitlines()[0] == first
