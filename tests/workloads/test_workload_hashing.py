"""Hashes, names and copies behind workload expansion (:mod:`ruleset.workloads.hashing`,
:mod:`ruleset.workloads.copying`, ``pods_prefix``).

FNV vectors are the reference ones of the FNV authors (as Go's ``hash/fnv`` tests use);
``SafeEncodeString`` maps digits as ``apimachinery/pkg/util/rand`` (v1.20) does.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ruleset.reading import LocatedDict, LocatedList
from ruleset.workloads import (
    canonical_json,
    compute_hash,
    located_copy,
    pods_prefix,
    revision_hash,
    stand_in_uid,
)
from ruleset.workloads.hashing import controller_revision_name, fnv32, fnv32a, safe_encode_string
from tests.workloads.kit import yaml_doc


@pytest.mark.parametrize(("data", "fnv1", "fnv1a"), [
    (b"", 0x811C9DC5, 0x811C9DC5),
    (b"a", 0x050C5D7E, 0xE40C292C),
    (b"foobar", 0x31F0B262, 0xBF9CF968),
], ids=["empty", "a", "foobar"])
def test_fnv32(data: bytes, fnv1: int, fnv1a: int) -> None:
    assert (fnv32(data), fnv32a(data)) == (fnv1, fnv1a)


@pytest.mark.parametrize(("text", "encoded"), [
    ("0123456789", "456789bcdf"),  # '0' is 48, 48 % 27 = 21: alphanums[21] is '4'
    ("", ""),
    ("abc", "vwx"),  # 97 % 27 = 16
], ids=["digits", "empty", "letters"])
def test_safe_encode_string(text: str, encoded: str) -> None:
    assert safe_encode_string(text) == encoded


def test_compute_hash_is_pinned_and_depends_on_the_collision_count() -> None:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    assert compute_hash(template) == "5776f98846"
    assert compute_hash(template, 1) == "7fdf679775"
    assert compute_hash(template, 0) != compute_hash(template)
    # Key order, and null or empty fields, do not change the object, so not the hash either.
    reordered = {"spec": {"containers": [{"image": "nginx", "name": "c", "ports": []}], "volumes": None},
                 "metadata": {"labels": {"app": "web"}, "annotations": {}}}
    assert compute_hash(reordered) == compute_hash(template)


def test_revision_hash_is_pinned() -> None:
    template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c"}]}}
    assert revision_hash(template) == "57498d56c4"
    assert revision_hash(template, 1) != revision_hash(template)


@pytest.mark.parametrize(("prefix", "hash_", "name"), [
    ("web", "abc", "web-abc"),
    ("x" * 230, "h", "x" * 223 + "-h"),
], ids=["short", "cut-to-223"])
def test_controller_revision_name(prefix: str, hash_: str, name: str) -> None:
    assert controller_revision_name(prefix, hash_) == name


@pytest.mark.parametrize(("value", "text"), [
    ({"b": 1, "a": [True, None, 1.5], "c": {}, "d": [], "e": None}, '{"a":[true,null,1.5],"b":1}'),
    ({1: "x", "é": "ü"}, '{"1":"x","é":"ü"}'),
    ([], "[]"),
    ({"t": datetime(2021, 1, 2, tzinfo=timezone.utc)}, '{"t":"2021-01-02 00:00:00+00:00"}'),
    ({"s": 'q"\n'}, '{"s":"q\\"\\n"}'),
], ids=["sorted-empties-dropped", "key-text", "empty-list", "timestamp", "escapes"])
def test_canonical_json(value: object, text: str) -> None:
    assert canonical_json(value) == text


def test_canonical_json_and_copy_go_deeper_than_the_recursion_limit() -> None:
    deep: object = "leaf"
    for _ in range(5000):
        deep = {"a": [deep]}
    assert canonical_json(deep) == '{"a":[' * 5000 + '"leaf"' + "]}" * 5000
    assert canonical_json(located_copy(deep)) == canonical_json(deep)


def test_located_copy_keeps_line_maps_and_shares_nothing_mutable() -> None:
    raw = yaml_doc("a:\n  b:\n  - x: 1\n  - y\nc: 2\n")
    copy = located_copy(raw)
    assert copy == raw
    assert isinstance(copy, LocatedDict) and isinstance(copy["a"]["b"], LocatedList)
    assert (copy.line, copy.key_lines) == (raw.line, raw.key_lines) == (1, {"a": 1, "c": 5})
    assert copy["a"]["b"].item_lines == [3, 4]
    assert copy["a"] is not raw["a"] and copy["a"]["b"][0] is not raw["a"]["b"][0]
    copy["a"]["b"][0]["x"] = 2
    copy.key_lines["z"] = 9
    assert raw["a"]["b"][0]["x"] == 1 and "z" not in raw.key_lines


@pytest.mark.parametrize(("name", "prefix"), [
    ("web", "web-"),
    ("a", "a-"),
    # maskTrailingDash replaces the dash AND the character before it ("name[:len(name)-2] + "a""),
    # so a 253-byte name still takes a dash; a 254-byte one does not.
    ("x" * 253, "x" * 253 + "-"),
    ("x" * 254, "x" * 254),
    ("Web", "Web"),  # not a DNS subdomain either way: the name alone
], ids=["short", "one-letter", "fits", "too-long", "upper-case"])
def test_pods_prefix(name: str, prefix: str) -> None:
    assert pods_prefix(name) == prefix


def test_stand_in_uid_is_stable_and_distinct() -> None:
    assert stand_in_uid("Deployment", "default", "web") == stand_in_uid("Deployment", "default", "web")
    assert stand_in_uid("Deployment", "default", "web") != stand_in_uid("ReplicaSet", "default", "web")
    assert stand_in_uid("Job", "default", "web") == "f7b17851-09dd-52e8-b15d-cc6d8167b256"
