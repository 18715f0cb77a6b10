"""``ruleset capacity``: its count agrees with scheduling the copies by hand through
``ruleset schedule --pods`` (N copies all land, N+1 leave one unschedulable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main

DATA = Path(__file__).parent.parent / "analysis" / "data"
CLUSTER, POD = str(DATA / "capacity-cluster.yaml"), str(DATA / "capacity-pod.yaml")


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def _copies(path: Path, n: int) -> str:
    pod = Path(POD).read_text()
    docs = [pod.replace("name: web,", f"name: web-capacity-{i},") for i in range(1, n + 1)]
    path.write_text("---\n".join(docs))
    return str(path)


def test_capacity_agrees_with_scheduling_copies_by_hand(capsys, tmp_path: Path) -> None:
    code, document = _json(capsys, ["capacity", "--pod", POD, "-c", CLUSTER, "-o", "json"])
    assert (code, document["schemaVersion"], document["count"]) == (0, 1, 9)
    n = document["count"]
    for copies, unschedulable in ((n, 0), (n + 1, 1)):
        code, run = _json(capsys, ["schedule", "-c", CLUSTER, "--pods", _copies(tmp_path / f"{copies}.yaml", copies),
                                   "-o", "json"])
        assert code == 0
        assert sum(1 for p in run["placements"] if p["node"] is None) == unschedulable
        if not unschedulable:
            by_hand = sorted((p["pod"], p["node"]) for p in run["placements"])
            assert by_hand == sorted((p["pod"], p["node"]) for p in document["placements"])


@pytest.mark.parametrize(("argv", "count", "capped"), [(["--max", "5"], 5, True), (["--max", "20"], 9, False)],
                         ids=["capped", "not-capped"])
def test_max(capsys, argv: list[str], count: int, capped: bool) -> None:
    code, document = _json(capsys, ["capacity", "--pod", POD, "-c", CLUSTER, "-o", "json", *argv])
    assert (code, document["count"], document["capped"]) == (0, count, capped)


def test_text(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["capacity", "--pod", POD, "-c", CLUSTER]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "profile default: 9 more copies of default/web fit"
    flat = " ".join(out.split())
    assert "default/web-capacity-10 does not fit: 0/3 nodes are available: 3 Insufficient cpu." in flat
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize("argv", [["--max", "0"], ["--max", "x"], [], ["--pod", "missing.yaml"]],
                         ids=["max-zero", "max-word", "no-pod", "missing-file"])
def test_bad_input_exits_2(capsys, argv: list[str]) -> None:
    pod = [] if "--pod" in argv or argv == [] else ["--pod", POD]
    assert main(["capacity", "-c", CLUSTER, *pod, *argv]) == 2
    assert "Traceback" not in capsys.readouterr().err
