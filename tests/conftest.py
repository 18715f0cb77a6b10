"""Test configuration: hermetic plugin discovery (no third-party entry points), and the
preemption tests run twice: on the bulk what-if paths and on the reference path."""

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("RULESET_DISABLE_PLUGIN_AUTOLOAD", "1")

if os.environ.get("RULESET_TEST_WITHOUT_NATIVE") == "1":
    # As if the optional parsers were not installed (.ci/run runs the loading tests so).
    import sys

    sys.modules["orjson"] = None  # type: ignore[assignment]
    sys.modules["fast_yaml"] = None  # type: ignore[assignment]

#: Test modules whose every case runs on both what-if paths (:mod:`ruleset.framework.dependence`):
#: the ported upstream preemption tables, the nominated-pods cases, and the end-to-end runs.
BOTH_PATHS = ("test_default_preemption", "test_preemption_end_to_end", "test_nominated")


@pytest.fixture(autouse=True)
def what_if_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Under ``"reference"`` every what-if runs node by node, as upstream's code does."""
    from ruleset.framework.dependence import reference_path

    path = getattr(request, "param", "default")
    with reference_path(path == "reference"):
        yield path


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    name = metafunc.module.__name__.rsplit(".", 1)[-1]
    if name.startswith(BOTH_PATHS) and "what_if_path" in metafunc.fixturenames:
        metafunc.parametrize("what_if_path", ["bulk", "reference"], indirect=True)
