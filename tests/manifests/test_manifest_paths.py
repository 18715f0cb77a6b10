"""Manifest paths as people give them: folders (recursively, sorted), several paths per flag,
a file named twice read once, and every bad path reported with the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests, manifest_files

NODE = "kind: Node\nmetadata: {{name: {name}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '10'}}}}\n"
POD = "kind: Pod\nmetadata: {{name: {name}, namespace: d}}\nspec: {{containers: [{{name: c}}]}}\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "c" / "b-nodes.yaml", NODE.format(name="n2"))
    write(tmp_path / "c" / "a-nodes.yml", NODE.format(name="n1"))
    write(tmp_path / "c" / "sub" / "more.json", json.dumps({"kind": "Node", "metadata": {"name": "n3"}}))
    write(tmp_path / "c" / "notes.txt", "not a manifest")
    write(tmp_path / "c" / ".hidden.yaml", NODE.format(name="hidden"))
    write(tmp_path / "c" / ".git" / "x.yaml", NODE.format(name="git"))
    return tmp_path


def test_a_folder_gives_its_manifests_sorted_and_recursively(tree):
    problems: list = []
    files = manifest_files([tree / "c"], problems)
    assert ([f.relative_to(tree).as_posix() for f in files], problems) == (
        ["c/a-nodes.yml", "c/b-nodes.yaml", "c/sub/more.json"], [])
    assert [n.name for n in load_manifests([tree / "c"]).nodes] == ["n1", "n2", "n3"]


def test_a_file_named_twice_is_read_once(tree):
    cluster = load_manifests([tree / "c" / "a-nodes.yml", tree / "c"])
    assert [n.name for n in cluster.nodes] == ["n1", "n2", "n3"]


@pytest.mark.parametrize("names, expected", [
    pytest.param(["missing.yaml"], ["{t}/missing.yaml: cannot read: No such file or directory"], id="missing"),
    pytest.param(["empty"], ["{t}/empty: no *.yaml, *.yml or *.json file in this folder"], id="empty-folder"),
    pytest.param(["missing.yaml", "empty"], ["{t}/empty: no *.yaml, *.yml or *.json file in this folder",
                                             "{t}/missing.yaml: cannot read: No such file or directory"],
                 id="both-reported"),
])
def test_bad_paths_are_each_reported(tmp_path, names, expected):
    (tmp_path / "empty").mkdir()
    with pytest.raises(RulesetError) as info:
        load_manifests([tmp_path / n for n in names])
    assert sorted(str(p) for p in info.value.problems) == [e.format(t=tmp_path) for e in expected]


def test_cluster_and_pods_take_several_paths_per_flag_and_folders(tree, capsys):
    write(tree / "p" / "one.yaml", POD.format(name="a"))
    write(tree / "p" / "two.yaml", POD.format(name="b"))
    code = main(["schedule", "--cluster", str(tree / "c" / "a-nodes.yml"), str(tree / "c" / "b-nodes.yaml"),
                 "--cluster", str(tree / "c" / "sub"), "--pods", str(tree / "p"), "-o", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [n["name"] for n in data["nodes"]] == ["n1", "n2", "n3"]
    assert sorted(p["pod"] for p in data["placements"]) == ["d/a", "d/b"]


def test_duplicates_across_files_name_both(tmp_path):
    first = write(tmp_path / "a.yaml", NODE.format(name="n1"))
    second = write(tmp_path / "b.yaml", "\n\n" + NODE.format(name="n1"))
    from ruleset.cluster import build_cluster_state

    with pytest.raises(RulesetError) as info:
        build_cluster_state(load_manifests([first, second]))
    assert [str(p) for p in info.value.problems] == [
        f"{second}:3: Node n1: duplicate Node 'n1' (first at {first}:1)"]
