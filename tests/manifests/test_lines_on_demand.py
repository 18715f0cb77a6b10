"""Large YAML streams are read without their lines, and read again with them to report a problem.

``load_manifests`` reads a stream the native parser takes (``ruleset.native_yaml``) as plain
``dict`` and ``list``: building every key's line is most of that path's walk, and nothing reads a
line unless a problem is reported. A problem found while reading, creating the pods or building
the snapshot makes it read everything again with every line, so problems are the same, at the
same lines, as when every line is kept. Here: what a clean read gives either way (equal objects,
the file named in ``Cluster.unlocated``), problems of each stage at exact lines, progress called
once per file, and no second read where the first kept every line or no problem needs one.
Tests skip when fastyaml-rs is not installed (except under ``CI=true``, where they fail).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import ruleset.manifests as manifests
from ruleset import native_yaml
from ruleset.app import load_state
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests
from tests.native_kit import NODE, use_native


@pytest.fixture(autouse=True)
def _native(monkeypatch: pytest.MonkeyPatch) -> None:
    use_native(monkeypatch)


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: pod-{i}
  namespace: default
spec:
  containers:
  - name: c
    image: i
    resources:
      requests:
        cpu: {cpu}
  nodeName: node-1
---
"""


def _write(tmp_path: Path, nodes: int, pods: list[str], name: str = "cluster.yaml") -> Path:
    """``nodes`` nodes (10 lines each), then a pod (14 lines) for each cpu request of ``pods``."""
    path = tmp_path / name
    path.write_text("".join(NODE.format(i=i) for i in range(nodes))
                    + "".join(POD.format(i=i, cpu=cpu) for i, cpu in enumerate(pods)), encoding="utf-8")
    return path


def _without_origin(obj: Any) -> str:
    return repr(dataclasses.replace(obj, meta=dataclasses.replace(obj.meta, origin=None)))


def _problems(exc: pytest.ExceptionInfo[RulesetError]) -> list[tuple[str | None, int | None, str | None, str]]:
    return [(p.file, p.line, p.path, p.message) for p in exc.value.problems]


def test_a_clean_read_without_lines_gives_the_same_objects(tmp_path: Path) -> None:
    path = _write(tmp_path, 3, ["100m", "250m"])
    plain = load_manifests([path])
    located = load_manifests([path], every_line=True)
    assert plain.unlocated == {str(path)} and located.unlocated == set()
    assert [n.meta.origin.line for n in plain.nodes] == [None, None, None]
    assert [n.meta.origin.line for n in located.nodes] == [1, 11, 21]
    assert [p.meta.origin.line for p in located.pods] == [31, 45]
    assert [_without_origin(n) for n in plain.nodes] == [_without_origin(n) for n in located.nodes]
    assert [_without_origin(p) for p in plain.pods] == [_without_origin(p) for p in located.pods]


def test_a_problem_while_reading_is_reported_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 30 nodes, then a pod, then one whose cpu is no quantity: its line is 300 + 14 + 12 = 326.
    path = _write(tmp_path, 30, ["100m", "lots"])
    seen: list[Path] = []
    with pytest.raises(RulesetError) as info:
        load_manifests([path], on_file=seen.append)
    assert seen == [path]  # progress once, though the file was read twice
    monkeypatch.setattr(native_yaml, "USE_NATIVE", False)
    with pytest.raises(RulesetError) as expected:
        load_manifests([path])
    assert _problems(info) == _problems(expected)
    assert [line for _, line, _, _ in _problems(info)] == [326]


def test_a_duplicate_found_building_the_snapshot_is_reported_at_its_line(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Nodes are told apart only when the snapshot is built, after reading: node-1 again at line 31.
    path = tmp_path / "cluster.yaml"
    path.write_text("".join(NODE.format(i=i) for i in (0, 1, 2, 1)), encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_state([str(path)])
    monkeypatch.setattr(native_yaml, "USE_NATIVE", False)
    with pytest.raises(RulesetError) as expected:
        load_state([str(path)])
    assert _problems(info) == _problems(expected)
    assert _problems(info) == [(str(path), 31, "Node node-1", "duplicate Node 'node-1' (first at line 11)")]


def test_a_duplicate_across_files_names_the_line_of_the_first(tmp_path: Path) -> None:
    # The first pod is in a file read without lines, the duplicate in a small located one.
    big = _write(tmp_path, 2, ["100m"], "big.yaml")
    small = tmp_path / "small.yaml"
    small.write_text(POD.format(i=0, cpu="200m"), encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_state([str(big), str(small)])
    assert _problems(info) == [(str(small), 1, "Pod default/pod-0", f"duplicate Pod 'default/pod-0' (first at {big}:21)")]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files ``load_manifests`` reads, in order."""
    names: list[str] = []
    read = manifests.read_documents

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        names.append(path.name)
        return read(path, *args, **kwargs)
    monkeypatch.setattr(manifests, "read_documents", counted)
    return names


def test_a_file_read_with_every_line_is_not_read_again(tmp_path: Path, reads: list[str]) -> None:
    # JSON, and YAML outside the native subset, keep every line the first time: no second read.
    bad_json = tmp_path / "cluster.json"
    bad_json.write_text('{"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "x"}}}',
                        encoding="utf-8")
    outside = tmp_path / "outside.yaml"
    outside.write_text(NODE.format(i=0).replace("'4'", "x") + "kind: Node\nmetadata:\n  name: y\n"
                       "spec:\n  unschedulable: yes\n", encoding="utf-8")  # "yes": YAML 1.1 reads a boolean
    for path in (bad_json, outside):
        with pytest.raises(RulesetError):
            load_manifests([path])
    assert reads == ["cluster.json", "outside.yaml"]


def test_a_problem_elsewhere_does_not_read_the_stream_again(tmp_path: Path, reads: list[str]) -> None:
    # A missing path beside a stream read without lines: its problem needs no line of that stream.
    big = _write(tmp_path, 3, ["100m"], "big.yaml")
    with pytest.raises(RulesetError) as info:
        load_manifests([big, tmp_path / "missing.yaml"])
    assert reads == ["big.yaml", "missing.yaml"]  # once each
    assert [(p.file, p.code) for p in info.value.problems] == [(str(tmp_path / "missing.yaml"), "io-error")]
