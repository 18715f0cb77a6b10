"""Shared fixtures for the KubeSchedulerConfiguration import/export tests."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def fixture():
    return lambda name: FIXTURES / name
