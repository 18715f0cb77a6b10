"""Fixtures of the sweep tests: a generated four-node snapshot, two scenarios' pods files, and the
local plugin modules of :mod:`tests.sweep.sweep_inputs` loaded through RULESET_PLUGINS."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ruleset.manifests.builders import pod_manifest
from tests.sweep.sweep_inputs import BOOM, KILLER, small_cluster, write_manifests


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    """``small`` (a snapshot), ``pods_a`` and ``pods_b`` (scenarios), in ``tmp_path/in``."""
    folder = tmp_path / "in"
    folder.mkdir()
    return {
        "small": small_cluster(folder / "small.json"),
        "pods_a": write_manifests(folder / "pods-a.json", [pod_manifest(f"a-{i}", cpu="500m", memory="512Mi")
                                                           for i in range(3)]),
        "pods_b": write_manifests(folder / "pods-b.json", [pod_manifest(f"b-{i}", cpu="1", memory="1Gi")
                                                           for i in range(5)]),
    }


@pytest.fixture
def plugin_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The Boom and Killer plugins loaded through RULESET_PLUGINS; yields their folder."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "boom.py").write_text(BOOM, encoding="utf-8")
    (folder / "killer.py").write_text(KILLER, encoding="utf-8")
    monkeypatch.setenv("RULESET_PLUGINS", os.pathsep.join([str(folder / "boom.py"), str(folder / "killer.py")]))
    yield folder


