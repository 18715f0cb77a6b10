"""The resource scorers' fast paths (:mod:`ruleset.plugins.noderesources.scoring`) give the
same integers as their general, masked forms.

When every node has every scored resource (no allocatable is 0) the scorers skip their per-node
masks; the reader skips zeroing the requested column. Each fast form is checked here against the
general one (forced by making ``_every_node_has_all`` answer False) on random arrays with zeros,
over-commit, negative and huge values, and on the shapes the plugins use (1, 2, 3 resources).
Not an upstream table: ruleset's own optimisation, proved against its own reference.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from ruleset.api.pod import Pod
from ruleset.plugins.noderesources import scoring

INT64_MAX = np.iinfo(np.int64).max


def _general(monkeypatch: pytest.MonkeyPatch, function: Any, *args: Any) -> np.ndarray:
    with monkeypatch.context() as patch:
        patch.setattr(scoring, "_every_node_has_all", lambda columns: False)
        result: np.ndarray = function(*args)
        return result


def _columns(rng: np.random.Generator, shape: str, n: int, k: int) -> scoring.Columns:
    out = []
    for _ in range(k):
        if shape == "small":
            allocatable = rng.integers(1, 5000, n)
            requested = rng.integers(0, 6000, n)  # over-commit on some nodes
        elif shape == "huge":
            allocatable = rng.integers(1, INT64_MAX, n, dtype=np.int64)
            requested = rng.integers(0, INT64_MAX, n, dtype=np.int64)
        elif shape == "equal":
            allocatable = rng.integers(1, 100, n)
            requested = allocatable.copy()
        elif shape == "negative":
            allocatable = rng.integers(-1000, 1000, n)
            allocatable[allocatable == 0] = 7
            requested = rng.integers(-1000, 2000, n)
        else:  # "zeros": requested 0 everywhere, allocatable of 1
            allocatable = np.ones(n, dtype=np.int64)
            requested = np.zeros(n, dtype=np.int64)
        out.append((requested.astype(np.int64), allocatable.astype(np.int64)))
    return out


CASES = [(shape, n, k, seed) for shape in ("small", "huge", "equal", "negative", "zeros")
         for n, k in ((0, 2), (1, 1), (7, 2), (500, 2), (64, 3), (33, 4)) for seed in (1, 2)]
IDS = [f"{shape}-n{n}-k{k}-s{seed}" for shape, n, k, seed in CASES]


@pytest.mark.parametrize(("shape", "n", "k", "seed"), CASES, ids=IDS)
def test_fast_forms_match_general(monkeypatch: pytest.MonkeyPatch, shape: str, n: int, k: int,
                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    columns = _columns(rng, shape, n, k)
    weights = [int(w) for w in rng.integers(1, 101, k)]
    assert scoring._every_node_has_all(columns)
    for function, args in ((scoring.least_allocated, (columns, weights)),
                           (scoring.most_allocated, (columns, weights)),
                           (scoring.balanced_std_dev, (columns,))):
        fast = function(*args)
        general = _general(monkeypatch, function, *args)
        assert fast.dtype == general.dtype == np.int64
        np.testing.assert_array_equal(fast, general, err_msg=function.__name__)


@pytest.mark.parametrize("weights", [[0, 0], [0, 3], [-1, 1], [2, -5]], ids=["zero", "one-zero", "sum-0", "negative"])
def test_weight_sums_as_general(monkeypatch: pytest.MonkeyPatch, weights: list[int]) -> None:
    columns = _columns(np.random.default_rng(9), "small", 50, 2)
    for function in (scoring.least_allocated, scoring.most_allocated):
        np.testing.assert_array_equal(function(columns, weights), _general(monkeypatch, function, columns, weights))


def test_a_node_without_a_resource_takes_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    columns = [(np.array([5, 10, 0]), np.array([10, 0, 4])), (np.array([1, 2, 3]), np.array([4, 4, 4]))]
    assert not scoring._every_node_has_all(columns)
    assert scoring.balanced_std_dev(columns).tolist() == [87, 100, 62]
    assert scoring.least_allocated(columns, [1, 1]).tolist() == [62, 50, 62]
    assert scoring.most_allocated(columns, [1, 1]).tolist() == [37, 50, 37]


def test_known_values() -> None:
    """Hand-computed: cpu 1000/4000 and memory 2/8 balanced; 3000/4000 against 1/8."""
    columns = [(np.array([1000, 3000]), np.array([4000, 4000])), (np.array([2, 1]), np.array([8, 8]))]
    assert scoring.balanced_std_dev(columns).tolist() == [100, 68]
    assert scoring.least_allocated(columns, [1, 1]).tolist() == [75, 56]
    assert scoring.most_allocated(columns, [1, 1]).tolist() == [25, 43]


class _Snapshot:
    """What ``ResourceReader.read`` reads of a snapshot."""

    def __init__(self, allocatable: dict[str, np.ndarray], requested: dict[str, np.ndarray]):
        self._allocatable = allocatable
        self._requested = requested
        self.non_zero_cpu = requested["cpu"] + 100
        self.non_zero_memory = requested["memory"] + 200

    def allocatable(self, name: str) -> np.ndarray:
        return self._allocatable.get(name, np.zeros(4, dtype=np.int64))

    def requested(self, name: str) -> np.ndarray:
        return self._requested.get(name, np.zeros(4, dtype=np.int64))

    num_nodes = 4

    def derive(self, key: str, build: Any) -> Any:
        return build(self)


@pytest.mark.parametrize(("memory", "expected_memory"), [
    ([8, 8, 8, 8], [13, 15, 17, 19]), ([8, 0, 8, 0], [13, 0, 17, 0])], ids=["every-node", "some-without"])
def test_reader_zeroes_requested_only_where_allocatable_is_0(memory: list[int], expected_memory: list[int]) -> None:
    snapshot = _Snapshot({"cpu": np.array([4000] * 4), "memory": np.array(memory)},
                         {"cpu": np.array([0, 1, 2, 3]), "memory": np.array([0, 2, 4, 6])})
    nodes = SimpleNamespace(snapshot=snapshot, indices=np.array([0, 1, 2, 3]))
    reader = scoring.ResourceReader(("cpu", "memory", "example.com/gpu"), True, True)
    columns = reader.read([10, 13, 0], nodes)  # type: ignore[arg-type]
    assert [c[0].tolist() for c in columns] == [[10, 11, 12, 13], expected_memory, [0, 0, 0, 0]]


def test_pod_requests_cached_per_reader_and_accounting(monkeypatch: pytest.MonkeyPatch) -> None:
    pod = Pod.__new__(Pod)
    pod.__dict__.update(accounting="a")
    calls: list[str] = []
    reader = scoring.ResourceReader(("cpu", "memory"), True, True)
    other = scoring.ResourceReader(("cpu",), True, True)

    def counting(pod: Pod, resource: str, *, non_zero: bool, overhead_milli: bool) -> int:
        calls.append(resource)
        return len(calls)

    monkeypatch.setattr(scoring, "pod_scoring_request", counting)
    first = reader.pod_requests(pod)
    first.append(99)  # the caller's list is its own
    assert reader.pod_requests(pod) == [1, 2]
    assert other.pod_requests(pod) == [3]
    pod.__dict__["accounting"] = "b"  # apply_target replaced it: computed again
    assert reader.pod_requests(pod) == [4, 5]
    assert calls == ["cpu", "memory", "cpu", "cpu", "memory"]


@pytest.mark.parametrize("shape", ["small", "huge", "negative", "equal"])
@pytest.mark.parametrize("weights", [[1], [1, 1], [1, 3], [2, 2, 4], [1, 1, 1]], ids=str)
def test_power_of_two_weight_sums_shift_as_floor_division(monkeypatch: pytest.MonkeyPatch, shape: str,
                                                          weights: list[int]) -> None:
    columns = _columns(np.random.default_rng(len(weights)), shape, 200, len(weights))
    for function in (scoring.least_allocated, scoring.most_allocated):
        np.testing.assert_array_equal(function(columns, weights), _general(monkeypatch, function, columns, weights))


def test_negative_sums_floor_when_shifted() -> None:
    """A negative weighted sum (negative allocatable) floors when halved, as ``//`` does."""
    # least: cpu (-3 - -10) * 100 // -3 = -234; memory 1 of 9: 800 // 9 = 88 -> -146 // 2 = -73;
    # memory 2 of 9: 700 // 9 = 77 -> -157 // 2 = -79 (the floor of -78.5, not -78)
    columns = [(np.array([-10, -10]), np.array([-3, -3])), (np.array([1, 2]), np.array([9, 9]))]
    assert scoring.least_allocated(columns, [1, 1]).tolist() == [-73, -79]
