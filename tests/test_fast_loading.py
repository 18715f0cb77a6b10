"""Fast snapshot loading (issue 16) changes no result.

orjson, when installed, parses JSON: the same snapshot read through it and through ``json`` gives
the same cluster and the same located problems; what orjson reads differently (integers beyond
64 bits, ``NaN``, lone surrogates) goes the ``json`` way. The cyclic GC is paused while reading
and enabled again after, error or not. Quantities are parsed once per distinct string.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ruleset import reading
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests
from ruleset.manifests.reader import collect_documents
from ruleset.quantity import (
    QuantityError,
    coerce_quantity,
    milli_value_of,
    parse_quantity,
    scaled_value_of,
    value_of,
)

HAS_ORJSON = reading._orjson() is not None
needs_orjson = pytest.mark.skipif(not HAS_ORJSON, reason="orjson is not installed")


def _node(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}", "zone": i % 3}},
            "spec": {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]} if i == 2 else {},
            "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": 110, "ephemeral-storage": 1.5e9}}}


def _pod(i: int, cpu: Any = "250m", node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "app:1.0",
                                            "resources": {"requests": {"cpu": cpu, "memory": "512Mi"},
                                                          "limits": {"memory": "1Gi"}}}],
                            "priority": i % 3, "tolerations": [{"operator": "Exists"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i}", "namespace": "ns", "labels": {"app": f"app-{i % 4}", "n": i}},
            "spec": spec, "status": {"phase": "Running" if node else "Pending"}}


def _snapshot(pods: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": [_node(i) for i in range(4)] + pods}


GOOD = [_pod(i, node=f"node-{i % 4}" if i % 2 else None) for i in range(40)]
BROKEN = [*GOOD[:5], _pod(5, cpu="lots"), _pod(6, cpu=True), _pod(7, cpu="1e9999")]


@pytest.fixture(params=["orjson", "json"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test once with orjson (when installed) and once with the standard ``json``."""
    if request.param == "orjson" and not HAS_ORJSON:
        pytest.skip("orjson is not installed")
    monkeypatch.setattr(reading, "USE_ORJSON", request.param == "orjson")
    monkeypatch.setattr(reading, "ORJSON_MIN_BYTES", 0)  # these files are small
    return str(request.param)


def _summary(path: Path) -> Any:
    cluster = load_manifests([path])
    pods = [(p.key, p.requests, p.labels, p.node_name, p.priority, p.phase, p.containers, p.tolerations)
            for p in cluster.pods]
    nodes = [(n.name, n.labels, n.allocatable, n.allowed_pod_number, n.taints) for n in cluster.nodes]
    return pods, nodes, dict(cluster.kinds)


def _problems(path: Path) -> list[tuple[Any, ...]]:
    with pytest.raises(RulesetError) as info:
        load_manifests([path])
    return [(p.message, p.file, p.line, p.column, p.path, p.code) for p in info.value.problems]


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Run ``fn(path)`` through orjson and through ``json``; give both results."""
    if not HAS_ORJSON:
        pytest.skip("orjson is not installed")
    monkeypatch.setattr(reading, "ORJSON_MIN_BYTES", 0)

    def run(fn: Any, text: str) -> tuple[Any, Any]:
        path = tmp_path / "snapshot.json"
        path.write_text(text)
        results = []
        for use in (True, False):
            monkeypatch.setattr(reading, "USE_ORJSON", use)
            results.append(fn(path))
        return results[0], results[1]

    yield run


def test_same_cluster_with_and_without_orjson(both: Any) -> None:
    fast, standard = both(_summary, json.dumps(_snapshot(GOOD)))
    assert fast == standard
    pods, nodes, kinds = fast
    assert kinds == {"Node": 4, "Pod": 40}
    assert pods[1][:5] == ("ns/pod-1", {"cpu": 250, "memory": 512 * 2**20}, {"app": "app-1", "n": "1"},
                           "node-1", 1)
    assert nodes[0][2:4] == ({"cpu": 4000, "memory": 32 * 2**30, "ephemeral-storage": 1_500_000_000}, 110)


def test_same_problems_with_and_without_orjson(both: Any) -> None:
    fast, standard = both(_problems, json.dumps(_snapshot(BROKEN)))
    assert fast == standard
    assert [(message, line, code) for message, _, line, _, _, code in fast] == [
        ("'lots': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
         None, "invalid-object"),
        ("True: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
         None, "invalid-object"),
        ("'1e9999': out of range: Kubernetes reads cpu in int64 millicores (Quantity.MilliValue()), at most "
         "9223372036854775807m", None, "invalid-object"),
    ]


@pytest.mark.parametrize("text, message, line, column", [
    ('{"kind": "List", "items": [\n  {"kind": "Pod",}\n]}', "invalid JSON: Expecting property name enclosed in "
     "double quotes", 2, 18),
    ('{"kind": "List",\n "items": [NaN, \n  1 2]}', "invalid JSON: Expecting ',' delimiter", 3, 5),
    ('\n\n{"kind": "Pod"', "invalid JSON: Expecting ',' delimiter", 3, 15),
], ids=["trailing-comma", "nan-then-syntax", "unterminated"])
def test_syntax_errors_located_the_same(both: Any, text: str, message: str, line: int, column: int) -> None:
    fast, standard = both(_problems, text)
    assert fast == standard == [(message, fast[0][1], line, column, None, "syntax-error")]


@pytest.mark.parametrize("text", [
    "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
    "123456789012345678901234567890", '{"a": 100000000000000000000}', '"12345678901234567890"',
    "1e400", "-1e400", "NaN", "-Infinity", '"\\ud800"', '"\\udc00\\ud83d"', '"\\ud83d\\ude00"',
    '{"a": 1, "a": 2, "b": 3}', "-0", "-0.0", "0.1", "1E5", "2.5e-8", '"a\\u0000b"', "[1, [2, {}]]",
], ids=lambda text: text[:30])
def test_values_read_as_json_reads_them(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(reading, "ORJSON_MIN_BYTES", 0)
    expected = json.loads(text)
    got = reading.load_json(text, "x.json", reading.CLUSTER)
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float) and math.isnan(got)
        return
    assert (got, repr(got)) == (expected, repr(expected))


def test_small_json_is_not_parsed_by_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(data: bytes) -> Any:
        raise AssertionError("orjson used")

    monkeypatch.setattr(reading, "_orjson", lambda: type("M", (), {"loads": refuse}))
    assert reading.load_json('{"a": 1}', "x.json", reading.CLUSTER) == {"a": 1}


def test_gc_enabled_again_after_a_failing_load(tmp_path: Path, parser: str) -> None:
    path = tmp_path / "broken.json"
    for text in (json.dumps(_snapshot(BROKEN)), '{"kind": "Pod",', "[" * 2000 + "]" * 2000):
        path.write_text(text)
        assert gc.isenabled()
        with pytest.raises(RulesetError):
            load_manifests([path])
        assert gc.isenabled()


def test_gc_stays_disabled_if_it_was(tmp_path: Path, parser: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"kind": "Pod",')
    gc.disable()
    try:
        with pytest.raises(RulesetError):
            load_manifests([path])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_gc_paused_while_documents_are_read_and_decoded() -> None:
    seen = []

    def documents() -> Iterator[tuple[int, Any]]:
        seen.append(gc.isenabled())
        yield 0, _node(0)
        seen.append(gc.isenabled())

    cluster = collect_documents(documents(), "x.yaml", [])
    assert (seen, len(cluster.nodes), gc.isenabled()) == ([False, False], 1, True)


def test_paused_gc_nests_and_survives_errors() -> None:
    with pytest.raises(ValueError), reading.paused_gc():
        with reading.paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
        raise ValueError
    assert gc.isenabled()


@pytest.mark.parametrize("text, value", [
    ("100m", Fraction(1, 10)), ("2Gi", Fraction(2 * 2**30)), ("1.5", Fraction(3, 2)), ("0", Fraction(0)),
    ("1e3", Fraction(1000)), ("-250m", Fraction(-1, 4)), ("12345678901234567890123456789k", Fraction(
        12345678901234567890123456789000)),
], ids=lambda v: str(v))
def test_quantity_cache_returns_equal_values(text: str, value: Fraction) -> None:
    first, again = parse_quantity(text), parse_quantity(text)
    assert (first, again, type(again)) == (value, value, Fraction)


@pytest.mark.parametrize("text", ["lots", "1x", "", "1e9999"])
def test_quantity_errors_are_raised_every_time(text: str) -> None:
    for _ in range(2):
        with pytest.raises(QuantityError):
            parse_quantity(text)


@pytest.mark.parametrize("raw, value", [
    ("100m", Fraction(1, 10)), (" 100m ", Fraction(1, 10)), ("\t2Gi\n", Fraction(2 * 2**30)), (100, Fraction(100)),
    (0.5, Fraction(1, 2)), ("  " + "1" * 30 + "  ", Fraction(int("1" * 30))),
], ids=repr)
def test_coerce_quantity_cache_returns_equal_values(raw: Any, value: Fraction) -> None:
    assert (coerce_quantity(raw), coerce_quantity(raw)) == (value, value)


@pytest.mark.parametrize("raw", ["lots", " 1x ", "", "   ", True], ids=repr)
def test_coerce_quantity_errors_are_raised_every_time(raw: Any) -> None:
    for _ in range(2):
        with pytest.raises(QuantityError):
            coerce_quantity(raw)


def _reference_away_from_zero(value: Fraction) -> int:
    """The Fraction arithmetic these functions used before they went to integers."""
    return math.ceil(value) if value >= 0 else -math.ceil(-value)


_VALUES = [Fraction(0), Fraction(1, 4), Fraction(-1, 4), Fraction(1, 10**9), Fraction(-1, 10**9), Fraction(7),
           Fraction(-7), Fraction(1001, 1000), Fraction(-1001, 1000), Fraction(2**63 - 1), Fraction(-(2**63)),
           Fraction(3, 7), Fraction(-3, 7), Fraction(999_999_999, 10**9), Fraction(5, 2), Fraction(-5, 2), 3, -3]


@pytest.mark.parametrize("value", _VALUES, ids=str)
def test_integer_values_as_fraction_arithmetic_gives_them(value: Fraction) -> None:
    q = Fraction(value)
    assert value_of(value) == _reference_away_from_zero(q)
    assert milli_value_of(value) == _reference_away_from_zero(q * 1000)
    for scale in (-9, -3, 0, 3, 6):
        expected = _reference_away_from_zero(q * Fraction(10) ** -scale)
        assert scaled_value_of(value, scale) == expected, scale


def test_integer_values_on_many_fractions() -> None:
    import random
    rng = random.Random(16)
    for _ in range(5000):
        q = Fraction(rng.randint(-10**12, 10**12), rng.choice([1, 2, 3, 8, 10, 1000, 1024, 10**9, 7919]))
        assert (value_of(q), milli_value_of(q), scaled_value_of(q, 3), scaled_value_of(q, -6)) == (
            _reference_away_from_zero(q), _reference_away_from_zero(q * 1000),
            _reference_away_from_zero(q / 1000), _reference_away_from_zero(q * 10**6))
