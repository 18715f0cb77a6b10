"""Objects shared by the admission tests."""

from __future__ import annotations

import pytest

from ruleset.admission import LimitRange, RuntimeClass, decode_limit_range, decode_runtime_class
from ruleset.api.decode import DecodeContext


@pytest.fixture
def limit_range_defaults() -> LimitRange:
    ctx = DecodeContext(file="limits.yaml")
    lr = decode_limit_range(ctx, {
        "apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": "default"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}, "max": {"cpu": "2"}}]}})
    assert ctx.problems == []
    return lr


@pytest.fixture
def runtime_classes() -> list[RuntimeClass]:
    ctx = DecodeContext(file="classes.yaml")
    classes = [decode_runtime_class(ctx, {
        "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m"}},
        "scheduling": {"nodeSelector": {"sandbox": "kata"},
                       "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}})]
    assert ctx.problems == []
    return classes
