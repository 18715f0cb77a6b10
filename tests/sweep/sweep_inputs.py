"""Inputs of the sweep tests (see conftest.py for the fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

from ruleset.manifests.builders import node_manifest, pod_manifest

#: A plugin whose constructor raises when the snapshot holds a node named "boom".
BOOM = """\
from ruleset import Plugin, hookimpl


class Boom(Plugin):
    name = "Boom"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        if handle is not None and handle.snapshot is not None and "boom" in handle.snapshot.node_names:
            raise RuntimeError("boom: this snapshot breaks me")

    @hookimpl
    def ruleset_filter(self, state, pod, nodes):
        return None


@hookimpl
def ruleset_register_plugins(register):
    register(Boom)
"""

#: A plugin that kills its worker process the first time it is built on a snapshot holding a node
#: named "kill-me" (a marker file beside the module remembers it did).
KILLER = """\
import os
import signal
import time
from pathlib import Path

from ruleset import Plugin, hookimpl

MARKER = Path(__file__).with_name("killed")


class Killer(Plugin):
    name = "Killer"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        if handle is not None and handle.snapshot is not None and "kill-me" in handle.snapshot.node_names:
            if not MARKER.exists():
                MARKER.write_text(str(os.getpid()))
                time.sleep(0.3)  # let a sibling task finish first
                os.kill(os.getpid(), signal.SIGKILL)

    @hookimpl
    def ruleset_filter(self, state, pod, nodes):
        return None


@hookimpl
def ruleset_register_plugins(register):
    register(Killer)
"""


def write_manifests(path: Path, items: list[dict]) -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1), encoding="utf-8")
    return path


def small_cluster(path: Path, names: tuple[str, ...] = ("n1", "n2", "n3", "n4")) -> Path:
    """Four nodes in two zones, one pod running and two pending."""
    nodes = [node_manifest(name, cpu="4", memory="8Gi",
                           labels={"topology.kubernetes.io/zone": "z-a" if i % 2 == 0 else "z-b"})
             for i, name in enumerate(names)]
    pods = [pod_manifest("running", cpu="1", memory="1Gi", node_name=names[0]),
            pod_manifest("pending-1", cpu="2", memory="2Gi"), pod_manifest("pending-2", cpu="500m", memory="1Gi")]
    return write_manifests(path, [*nodes, *pods])


def profile_with(path: Path, plugin: str) -> Path:
    """A profile extending the bundled default-1.20 with ``plugin`` enabled."""
    path.write_text(f'name = "{plugin.lower()}"\nextends = "default-1.20"\n\n[plugins.{plugin}]\n', encoding="utf-8")
    return path
