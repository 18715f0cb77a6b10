"""The optional native YAML parser (fastyaml-rs) in tests: a test that needs it is skipped where
it is not installed, except under ``CI=true`` (CI installs it, so its absence is a failure)."""

from __future__ import annotations

import os

import pytest

from ruleset import native_yaml

#: A node as kubectl and PyYAML write it, 10 lines with its ``---`` (``.format(i=...)`` names it).
NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: node-{i}
status:
  allocatable:
    cpu: '4'
    memory: 32Gi
    pods: '110'
---
"""


def require_native() -> None:
    """Skip (or, under ``CI=true``, fail) when fastyaml-rs is not installed."""
    if native_yaml._native() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("fastyaml-rs is not installed (pip install 'ruleset[fast]'), and CI=true")
        pytest.skip("fastyaml-rs is not installed")


def use_native(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`require_native`, then let it read streams of any size (test inputs are small)."""
    require_native()
    monkeypatch.setattr(native_yaml, "USE_NATIVE", True)
    monkeypatch.setattr(native_yaml, "MIN_BYTES", 0)
