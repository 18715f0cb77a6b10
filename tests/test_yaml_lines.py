"""The native path's two walks (``ruleset.native_yaml``) give the same documents and lines.

The quick walk (``_quick_walk``) writes down the signature of every row the native documents
stand for, in the layout PyYAML, go-yaml and ``kubectl`` write, and builds the located documents
when those are the text's rows (or, with ``located=False``, gives the native ones as they are);
the full walk (``_full_walk``, the row-by-row check the native path always had) decides
otherwise. Here: on every case, both walks over the same native documents give the same values
and the same line of every collection, key and item (or the quick walk declines); documents
read without lines equal to the located ones and holding no located collection; a corpus the
quick walk must take, with exact lines; one it must leave to the full walk, which takes it; one
both refuse; the loader end to end (problems located at exact lines through the quick walk);
and random documents in the quick walk's layout, read with and without lines.
Tests skip when fastyaml-rs is not installed (except under ``CI=true``, where they fail).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ruleset import native_yaml
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests
from ruleset.reading import CLUSTER, LocatedDict, LocatedList
from ruleset.yaml_reading import load_yaml
from tests.native_kit import NODE, use_native


@pytest.fixture(autouse=True)
def _native(monkeypatch: pytest.MonkeyPatch) -> None:
    use_native(monkeypatch)


def _shape(value: Any) -> Any:
    """A value with its type and, for collections, the line of it and of each key or item."""
    if isinstance(value, LocatedDict):
        return ("map", value.line, [(_shape(k), value.key_lines.get(k), _shape(v)) for k, v in value.items()],
                len(value.key_lines))
    if isinstance(value, LocatedList):
        return ("seq", value.line, list(zip(value.item_lines, (_shape(v) for v in value), strict=True)))
    assert not isinstance(value, (dict, list)), type(value)
    return (type(value).__name__, repr(value))


def _walks(text: str, base: int = 1) -> tuple[Any, Any]:
    """(quick walk, full walk) of ``text`` as one chunk starting at line ``base``: each the
    shapes of the documents, or None where that walk declines. The text must be one the native
    path hands to the walks."""
    walks = _try_walks(text, base)
    assert walks is not None, "the native path refuses the text before walking"
    return walks


def _try_walks(text: str, base: int = 1) -> tuple[Any, Any] | None:
    """:func:`_walks`, or None when the native path refuses the text before walking (as
    ``load_documents`` checks it)."""
    if native_yaml._REFUSED_CHARS.search(text) is not None:
        return None
    lines_text = native_yaml._set_aside_block_scalars(text)
    if lines_text is None:
        return None
    lines = lines_text.split("\n")
    read = native_yaml._read_lines(lines)
    if read is None or native_yaml._differs(read[1]):
        return None
    signatures = read[0]
    markers = signatures.count("---")
    first = signatures.index("---") if markers else len(signatures)
    marked = not any(signatures[:first])
    try:
        docs = list(native_yaml._native().safe_load_all(text, max_documents=100_000))
    except Exception:
        return None
    if len(docs) != markers + (not marked):
        return None
    quick = native_yaml._quick_walk(docs, signatures, base, marked, LocatedDict, LocatedList,
                                    native_yaml.MAX_DEPTH, {})
    full = native_yaml._full_walk(docs, lines, base, marked, LocatedDict, LocatedList, native_yaml.MAX_DEPTH)
    return (None if quick is None else [_shape(d) for d in quick],
            None if full is None else [_shape(d) for d in full])


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: default
  labels:
    app: web
spec:
  containers:
  - name: nginx
    image: registry.k8s.io/nginx:1.25.3
    ports:
    - containerPort: 80
    resources:
      requests:
        cpu: 100m
  nodeName: node-1
status:
  phase: Running
"""

#: Written as PyYAML, go-yaml and kubectl write: the quick walk takes each.
QUICK = {
    "pod": POD,
    "pods": POD + "---\n" + POD.replace("web-0", "web-1"),
    "marked-first": "---\n" + POD,
    "comment-then-marker": "# c\n---\na: 1\n",
    "marker-comments": "--- # first\na: 1\n--- # second\nb: 2\n",
    "empty-documents": "---\n---\na: 1\n---\n",
    "blank-and-comment-lines": "\n# top\na: 1\n\nb:\n  # inside\n  c: 2\n\n  d:\n  - 1\n\n  - 2\n# end\n",
    "trailing-comments": "a: 1  # one\nb:  # a map\n  c: x # two\n",
    "root-sequence": "- a\n- b: 1\n  c: 2\n- []\n- {}\n- null\n- 7\n",
    "empty-collections": "a: []\nb: {}\nc:\n- {}\n- []\nd:\n  e: {}\n",
    "nulls": "a: null\nb: ~\nc: Null\nd: NULL\ne:\n- ~\n",
    "scalars": "i: 7\nn: -7\nf: 0.5\nt: true\nF: False\ns: 'it''s'\nd: \"q\"\nu: héllo\n",
    "int-keys": "80: http\n-1: minus\nm:\n  443: https\n",
    "nested-sequences-of-maps": "a:\n- b:\n  - c: 1\n    d:\n    - e: 2\n  f: 3\n- g: 4\n",
    "deep": "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 30)) + "  " * 30 + "v: 1\n",
}

#: The full walk takes each; the quick walk declines (another layout, or a row it does not write).
FULL_ONLY = {
    "indented-sequence": "a:\n  - 1\n  - 2\n",
    "four-spaces": "a:\n    b: 1\n",
    "item-three-spaces": "a:\n-   b: 1\n    c: 2\n",
    "quoted-key": "'a': 1\n",
    "double-quoted-key": '"a": 1\n',
    "block-scalar": "a: |\n  x\n  y\nb: 1\n",
    "nested-sequence": "- - x\n  - y\n",
    "null-without-text": "a:\nb: 1\n",
    "null-item-comment": "- null # none\n",
}

#: Neither walk takes these (the PyYAML path reads them).
NEITHER = {
    "duplicate-key": "a: 1\nb: 2\na: 3\n",
    "duplicate-nested-key": "m:\n  k: 1\n  k: 2\n",
    "multi-line-plain": "a: one\n  two\n",
    "key-spaces": "a : 1\n",
    "root-empty-map": "{}\n",
    "root-scalar": "just text\n",
}


@pytest.mark.parametrize("text", QUICK.values(), ids=QUICK.keys())
def test_quick_walk_takes_and_equals_full_walk(text: str) -> None:
    quick, full = _walks(text)
    assert quick is not None
    assert quick == full


@pytest.mark.parametrize("text", FULL_ONLY.values(), ids=FULL_ONLY.keys())
def test_full_walk_takes_what_quick_walk_declines(text: str) -> None:
    quick, full = _walks(text)
    assert (quick, full is not None) == (None, True)


@pytest.mark.parametrize("text", NEITHER.values(), ids=NEITHER.keys())
def test_neither_walk_takes(text: str) -> None:
    assert _walks(text) == (None, None)


def _plain_shape(value: Any) -> Any:
    """:func:`_shape` of a value read without lines: no collection in it may be located."""
    if isinstance(value, dict):
        assert type(value) is dict, type(value)
        return ("map", [(_plain_shape(k), _plain_shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        assert type(value) is list, type(value)
        return ("seq", [_plain_shape(v) for v in value])
    return (type(value).__name__, repr(value))


def _unlocated(shape: Any) -> Any:
    """A located :func:`_shape` with its lines left out, as :func:`_plain_shape` gives it."""
    if shape[0] == "map":
        return ("map", [(_unlocated(k), _unlocated(v)) for k, _, v in shape[2]])
    if shape[0] == "seq":
        return ("seq", [_unlocated(v) for _, v in shape[2]])
    return shape


@pytest.mark.parametrize("text", [*QUICK.values(), *FULL_ONLY.values()], ids=[*QUICK, *FULL_ONLY])
def test_documents_without_lines_are_the_located_ones(text: str) -> None:
    # What the quick walk vouches for comes as the parser's plain collections; what only the full
    # walk takes comes located all the same.
    located = native_yaml.load_documents(text, LocatedDict, LocatedList)
    plain = native_yaml.load_documents(text, LocatedDict, LocatedList, located=False)
    assert located is not None and plain is not None
    if text in QUICK.values():
        assert [_plain_shape(d) for d in plain] == [_unlocated(_shape(d)) for d in located]
    else:
        assert [_shape(d) for d in plain] == [_shape(d) for d in located]


def test_a_stream_read_without_lines_says_so_first() -> None:
    calls: list[int] = []
    documents = load_yaml(POD + "---\n" + POD, "f.yaml", CLUSTER, on_plain=lambda: calls.append(len(calls)))
    first = next(documents)
    assert calls == [0] and type(first) is dict and first["spec"]["nodeName"] == "node-1"
    assert type(next(documents)["spec"]["containers"]) is list
    assert next(documents, None) is None and calls == [0]
    # The PyYAML path (a text outside the native subset) locates, and does not call it.
    (located,) = load_yaml("a: yes\n", "f.yaml", CLUSTER, on_plain=lambda: calls.append(len(calls)))
    assert isinstance(located, LocatedDict) and located.key_lines == {"a": 1} and calls == [0]


def test_lines_of_a_pod_are_exact() -> None:
    quick, _ = _walks(POD, base=11)
    (pod,) = quick
    assert pod == (
        "map", 11, [
            (("str", "'apiVersion'"), 11, ("str", "'v1'")),
            (("str", "'kind'"), 12, ("str", "'Pod'")),
            (("str", "'metadata'"), 13, ("map", 14, [
                (("str", "'name'"), 14, ("str", "'web-0'")),
                (("str", "'namespace'"), 15, ("str", "'default'")),
                (("str", "'labels'"), 16, ("map", 17, [(("str", "'app'"), 17, ("str", "'web'"))], 1)),
            ], 3)),
            (("str", "'spec'"), 18, ("map", 19, [
                (("str", "'containers'"), 19, ("seq", 20, [(20, ("map", 20, [
                    (("str", "'name'"), 20, ("str", "'nginx'")),
                    (("str", "'image'"), 21, ("str", "'registry.k8s.io/nginx:1.25.3'")),
                    (("str", "'ports'"), 22, ("seq", 23, [
                        (23, ("map", 23, [(("str", "'containerPort'"), 23, ("int", "80"))], 1)),
                    ])),
                    (("str", "'resources'"), 24, ("map", 25, [
                        (("str", "'requests'"), 25, ("map", 26, [(("str", "'cpu'"), 26, ("str", "'100m'"))], 1)),
                    ], 1)),
                ], 4))])),
                (("str", "'nodeName'"), 27, ("str", "'node-1'")),
            ], 2)),
            (("str", "'status'"), 28, ("map", 29, [(("str", "'phase'"), 29, ("str", "'Running'"))], 1)),
        ], 5)


def test_lines_with_blank_rows_and_empty_collections_are_exact() -> None:
    quick, _ = _walks("# top\n\na: []\n\nb:\n  # c\n  c: {}\n  d:\n\n  - {}\n  - x\n")
    assert quick == [(
        "map", 3, [
            (("str", "'a'"), 3, ("seq", 3, [])),
            (("str", "'b'"), 5, ("map", 7, [
                (("str", "'c'"), 7, ("map", 7, [], 0)),
                (("str", "'d'"), 8, ("seq", 10, [(10, ("map", 10, [], 0)), (11, ("str", "'x'"))])),
            ], 2)),
        ], 2)]


def _corpus() -> dict[str, str]:
    """Every case of tests/test_native_yaml.py the native path takes, and the repository's YAML."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("native_cases", Path(__file__).with_name("test_native_yaml.py"))
    assert spec is not None and spec.loader is not None
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    out = {f"native-{name}": text for name, text in cases.NATIVE.items()}
    for file in cases.REPO_YAML:
        out[f"repo-{file.relative_to(cases.ROOT)}"] = file.read_text(encoding="utf-8")
    return out


def test_every_corpus_text_walks_alike() -> None:
    taken: dict[str, bool] = {}
    for name, text in _corpus().items():
        walks = _try_walks(text)
        if walks is None:
            continue
        quick, full = walks
        taken[name] = quick is not None
        if quick is not None:
            assert quick == full, name
    # Pins which of test_native_yaml's cases the quick walk takes (the others: quoted keys, block
    # scalars, "-   x", indented sequences, "- - x", "a:" for null); the repository's files change.
    assert sorted(name for name, quick in taken.items() if quick and name.startswith("native-")) == [
        "native-blank-lines", "native-comment-then-marker", "native-empty-documents", "native-empty-stream",
        "native-list", "native-marker-with-comment"]
    assert sorted(name for name, quick in taken.items() if not quick and name.startswith("native-")) == [
        "native-deployment", "native-indentless", "native-node-and-pods", "native-root-sequence", "native-scalars"]
    assert sum(quick for name, quick in taken.items() if name.startswith("repo-")) >= 5


def _canonical_document(rng: random.Random) -> str:
    """A random document in the quick walk's layout (values the native path reads alike)."""
    scalars = ["a", "web", "0", "7", "-7", "0.5", "true", "False", "null", "~", "100m", "'q'", '"d"', "[]", "{}",
               "http://h:80/p", "a b", "x # c"]
    keys = ["a", "b", "kind", "80", "-1", "a b", "x.y/z"]
    lines: list[str] = []

    def mapping(pre: str, first: str, depth: int) -> None:
        used: set[str] = set()
        for index in range(rng.randint(1, 3)):
            key = rng.choice([k for k in keys if k not in used] or ["zz"])
            used.add(key)
            start = first if index == 0 else pre
            kind = rng.random()
            if kind < 0.55 or depth > 3:
                lines.append(f"{start}{key}: {rng.choice(scalars)}")
            elif kind < 0.75:
                lines.append(f"{start}{key}:")
                mapping(pre + "  ", pre + "  ", depth + 1)
            else:
                lines.append(f"{start}{key}:")
                for _ in range(rng.randint(1, 3)):
                    if rng.random() < 0.4:
                        lines.append(f"{pre}- {rng.choice(scalars)}")
                    else:
                        mapping(pre + "  ", pre + "- ", depth + 1)
            if rng.random() < 0.1:
                lines.append("" if rng.random() < 0.5 else f"{pre}# note")
    mapping("", "", 0)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(20))
def test_random_canonical_documents_walk_alike_and_read_as_pyyaml(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    for _ in range(20):
        text = "---\n".join(_canonical_document(rng) for _ in range(rng.randint(1, 3)))
        quick, full = _walks(text)
        assert quick is not None, text
        assert quick == full, text
        native = [_shape(d) for d in load_yaml(text, "f.yaml", CLUSTER)]
        monkeypatch.setattr(native_yaml, "USE_NATIVE", False)
        pyyaml = [_shape(d) for d in load_yaml(text, "f.yaml", CLUSTER)]
        monkeypatch.setattr(native_yaml, "USE_NATIVE", True)
        assert native == pyyaml == quick, text
        plain = [_plain_shape(d) for d in load_yaml(text, "f.yaml", CLUSTER, on_plain=lambda: None)]
        assert plain == [_unlocated(shape) for shape in quick], text


BAD_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers:
  - name: c
    image: i
    resources:
      requests:
        cpu: lots
  nodeName: node-1
"""


def test_problems_through_the_quick_walk_are_at_exact_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 30 nodes (10 lines each), then a pod whose cpu is no quantity, at line 30 * 10 + 11 = 311.
    path = tmp_path / "cluster.yaml"
    path.write_text("".join(NODE.format(i=i) for i in range(30)) + BAD_POD, encoding="utf-8")

    def refuse(*args: Any) -> None:
        raise AssertionError("the full walk was used")
    monkeypatch.setattr(native_yaml, "_full_walk", refuse)
    monkeypatch.setattr(native_yaml, "CHUNK_CHARS", 200)  # several chunks: lines carried across them
    with pytest.raises(RulesetError) as info:
        load_manifests([path])
    found = [(p.file, p.line, p.path) for p in info.value.problems]
    monkeypatch.setattr(native_yaml, "USE_NATIVE", False)
    with pytest.raises(RulesetError) as expected:
        load_manifests([path])
    assert found == [(p.file, p.line, p.path) for p in expected.value.problems]
    assert [line for _, line, _ in found] == [311]
