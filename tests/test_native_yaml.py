"""The native YAML path (``ruleset.native_yaml``, fastyaml-rs) reads every stream exactly as the
PyYAML path does: the same values and types, the same line of every key, item and collection,
the same documents, and -- through the PyYAML path, which reads whatever the native path
refuses -- the same errors at the same line and column.

Every case runs through both paths (``path`` fixture) and is compared with the PyYAML path's
reading; ``NATIVE`` cases must also be taken by the native path (so the comparison tests it),
``FALLBACK`` cases must be refused by it (each is something YAML 1.1 and the native parser's
YAML 1.2 read apart, or that the line walk cannot vouch for). Tests of the native path skip
when fastyaml-rs is not installed, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ruleset import native_yaml, reading
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests
from ruleset.reading import CLUSTER, LimitError, Limits, LocatedDict, LocatedList
from ruleset.yaml_reading import load_yaml
from tests.native_kit import require_native

HAS_NATIVE = native_yaml._native() is not None





@pytest.fixture(autouse=True)
def _small_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_yaml, "MIN_BYTES", 0)  # the cases are small


@pytest.fixture(params=["pyyaml", "native"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test once through the PyYAML path and once through the native one."""
    if request.param == "native":
        require_native()
    monkeypatch.setattr(native_yaml, "USE_NATIVE", request.param == "native")
    return str(request.param)


def _shape(value: Any) -> Any:
    """A value with its type and, for collections, the line of it and of each key or item."""
    if isinstance(value, LocatedDict):
        return ("map", value.line, [(_shape(k), value.key_lines.get(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, LocatedList):
        return ("seq", value.line, list(zip(value.item_lines, (_shape(v) for v in value), strict=True)))
    assert not isinstance(value, (dict, list)), type(value)
    return (type(value).__name__, repr(value))


def _pyyaml(text: str, limits: Limits = CLUSTER) -> Any:
    saved = native_yaml.USE_NATIVE
    native_yaml.USE_NATIVE = False
    try:
        return [_shape(doc) for doc in load_yaml(text, "f.yaml", limits)]
    finally:
        native_yaml.USE_NATIVE = saved


def _read(text: str, limits: Limits = CLUSTER) -> Any:
    return [_shape(doc) for doc in load_yaml(text, "f.yaml", limits)]


def _problem(text: str, limits: Limits = CLUSTER) -> tuple[Any, ...]:
    with pytest.raises(RulesetError) as info:
        list(load_yaml(text, "f.yaml", limits))
    (problem,) = info.value.problems
    return (type(info.value).__name__, problem.message, problem.file, problem.line, problem.column, problem.code)


DEPLOYMENT = """\
# a comment before the first document
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web   # trailing comment
  namespace: default
  labels:
    app.kubernetes.io/name: web
    tier: "frontend"
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}
    note: 'it''s: quoted # not a comment'
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx:1.25.3
        args:
        - --port
        - "80"
        env: []
        ports:
        - containerPort: 80
          protocol: TCP
        resources:
          requests:
            cpu: 100m
            memory: 500Mi
          limits:
            cpu: 0.5
            memory: 1Gi
        readinessProbe:
          httpGet:
            path: /healthz
            port: 8080
      tolerations:
      - key: node.kubernetes.io/not-ready
        operator: Exists
        effect: NoExecute
        tolerationSeconds: 300
      nodeSelector: {}
"""

NODE_AND_PODS = """\
---
apiVersion: v1
kind: Node
metadata:
  name: node-0
  labels:
    kubernetes.io/hostname: node-0
    'quoted key': x
    "double": y
status:
  capacity:
    cpu: '4'
    memory: 32Gi
    pods: '110'
  conditions:
  - type: Ready
    status: 'True'
  - type: MemoryPressure
    status: "False"
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  priority: -10
  nodeName: node-0
  containers:
  -   name: a
      image: busybox
      command:
      - sh
      - -c
      - echo hello
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: zone
            operator: In
            values:
            - a
            - b
"""

LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: a
  spec:
    containers:
    - name: c
      image: i
- apiVersion: v1
  kind: Pod
  metadata: {name: b}
"""

SCALARS = """\
true_words: [x]
bools:
- true
- True
- TRUE
- false
- False
- FALSE
nulls:
- ~
- null
- Null
- NULL
not_bools:
- y
- Y
- n
- N
- 'yes'
- "no"
- 'on'
numbers:
- 0
- -0
- 7
- -7
- 123456789012345678
- 0.5
- -0.25
- 0.0
- -0.0
- 3.10
- 1.000000000000000000001
strings:
- 500Mi
- 100m
- 1Ei
- 4Gi
- '1e3'
- '0o17'
- '2020-01-02'
- a b  c
- "tab\\there, \\u00e9, \\x41, \\/"
- 'single '' quote'
- héllo wörld ✓ 🚀
- a:b
- http://x:80/y
- a#b
- -dash
- ':colon'
- '?q'
empty_value:
empty_string: ''
empty_double: ""
80: int key
-1: negative key
nested:
- - a
  - b
- - - c
- []
- {}
block:
  literal: |
    line 1
      indented

    last
  strip: |-
    no newline
  keep: |+
    kept

  folded: >
    folded
    text

    para
  folded_strip: >-
    a
    b
after: block
"""

EMPTY_DOCUMENTS = "---\n---\na: 1\n---\n"
ONLY_COMMENTS = "# nothing\n\n# here\n"
COMMENT_THEN_MARKER = "# c\n---\na: 1\n"
ROOT_SEQUENCE = "- a\n- b: 1\n  c: 2\n- - x\n"
INDENTLESS = "a:\n- 1\n- 2\nb:\n  - 3\n"

NATIVE = {
    "deployment": DEPLOYMENT,
    "node-and-pods": NODE_AND_PODS,
    "list": LIST.replace("metadata: {name: b}", "metadata:\n    name: b"),
    "scalars": SCALARS.replace("true_words: [x]\n", ""),
    "empty-documents": EMPTY_DOCUMENTS,
    "comment-then-marker": COMMENT_THEN_MARKER,
    "root-sequence": ROOT_SEQUENCE,
    "indentless": INDENTLESS,
    "empty-stream": "",
    "marker-with-comment": "--- # first\na: 1\n--- # second\nb: 2\n",
    "blank-lines": "\n\na: 1\n\n\nb:\n\n  c: 2\n\n",
}

FALLBACK = {
    # YAML 1.1 resolution (PyYAML, the API server) against the native parser's YAML 1.2
    "bool-yes": "a: yes\n", "bool-No": "a: No\n", "bool-on": "- on\n", "bool-OFF": "a: OFF\n",
    "bool-key": "yes: 1\n",
    "octal-0o": "a: 0o17\n", "octal-0": "a: 017\n", "octal-08": "a: 08\n", "hex": "a: 0x1F\n",
    "binary": "a: 0b101\n", "underscore": "a: 1_000\n", "plus": "a: +12\n",
    "sexagesimal": "a: 1:30\n", "sexagesimal-float": "a: 190:20:30.15\n",
    "exp-no-dot": "a: 1e3\n", "exp-with-dot": "a: 1.0e+3\n", "exp-no-sign": "a: 6.8e5\n",
    "leading-dot": "a: .5\n", "trailing-dot": "a: 1.\n", "inf": "a: .inf\n", "minus-inf": "a: -.Inf\n",
    "nan": "a: .NaN\n", "date": "a: 2020-01-02\n", "timestamp": "a: 2020-01-02T03:04:05Z\n",
    "timestamp-space": "a: 2001-12-14 21:59:43.10 -5\n", "value-key": "a: =\n",
    "big-int": "a: 123456789012345678901234567890\n", "int-19-digits": "a: 1234567890123456789\n",
    "float-key": "1.5: a\n", "bool-true-key": "true: a\n", "null-key": "~: a\n",
    # anchors, aliases, merges, tags
    "merge": "base: &b\n  x: 1\nchild:\n  <<: *b\n  y: 2\n",
    "alias": "a: &x v\nb: *x\n",
    "tag-str": "a: !!str 123\n", "tag-binary": "a: !!binary aGVsbG8=\n",
    "tag-timestamp": "a: !!timestamp 2020-01-02\n", "tag-float": "a: !!float 1\n",
    "local-tag": "a: !thing x\n",
    # what the line walk cannot vouch for
    "duplicate-key": "a: 1\nb: 2\na: 3\n", "duplicate-key-nested": "m:\n  k: 1\n  k: 2\n",
    "flow-sequence": "a: [1, 2]\n", "flow-mapping": "a: {b: 1}\n", "list-flow-item": LIST,
    "multi-line-plain": "a: one\n  two\n", "multi-line-quoted": "a: 'one\n  b: two'\n",
    "document-end": "a: 1\n...\n", "directive": "%YAML 1.1\n---\na: 1\n",
    "complex-key": "? a\n: 1\n", "tab": "a:\tb\n", "nel": "a: x\x85y\n", "bom": "\ufeffa: 1\n",
    "line-separator": "a: x\u2028y\n",
    "indent-indicator": "a: |2\n   x\n", "empty-block": "a: |\nb: 1\n", "root-scalar": "just text\n",
    "root-empty-list": "[]\n", "dash-alone": "-\n  a: 1\n", "key-spaces": "a : 1\n",
    "quoted-key-escape": '"a\\tb": 1\n', "trailing-comment-on-empty": "a: [] # none\n",
    "flow-key-list": "true_words: [x]\n", "null-item": "- a\n-\n- b\n",
    "only-comments": ONLY_COMMENTS,  # fastyaml-rs reads one empty document, PyYAML none
}

ERRORS = {
    "mapping-in-value": "a: b: c\n",
    "unterminated-quote": "a: 'open\n",
    "bad-indentation": "a:\n  b: 1\n c: 2\n",
    "sequence-then-key": "- a\nb: c\n",
    "undefined-alias": "a: *nope\n",
    "tab-indent": "a:\n\tb: 1\n",
    "bad-int-tag": "a: !!int abc\n",
    "duplicate-anchor": "a: &x 1\nb: &x 2\nc: 3\n",
    "late-error": "a: 1\n---\nb: 2\n---\nc: [\n",
    "digits": "a: " + "9" * 4400 + "\n",
    "alias-bomb": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                 + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                           for p, c in zip("abcdefg", "bcdefgh", strict=True)),
}


@pytest.mark.parametrize("text", NATIVE.values(), ids=NATIVE.keys())
def test_native_cases_read_as_pyyaml_reads_them(text: str, path: str) -> None:
    assert _read(text) == _pyyaml(text)


@pytest.mark.parametrize("text", NATIVE.values(), ids=NATIVE.keys())
def test_native_cases_are_taken_by_the_native_path(text: str) -> None:
    require_native()
    assert native_yaml.load_documents(text, LocatedDict, LocatedList) is not None


@pytest.mark.parametrize("text", FALLBACK.values(), ids=FALLBACK.keys())
def test_fallback_cases_read_as_pyyaml_reads_them(text: str, path: str) -> None:
    try:
        expected = _pyyaml(text)
    except RulesetError:
        expected = None
    if expected is None:
        assert _problem(text) == _problem_pyyaml(text)
    else:
        assert _read(text) == expected


@pytest.mark.parametrize("text", FALLBACK.values(), ids=FALLBACK.keys())
def test_fallback_cases_are_refused_by_the_native_path(text: str) -> None:
    require_native()
    assert native_yaml.load_documents(text, LocatedDict, LocatedList) is None


def _problem_pyyaml(text: str, limits: Limits = CLUSTER) -> tuple[Any, ...]:
    saved = native_yaml.USE_NATIVE
    native_yaml.USE_NATIVE = False
    try:
        return _problem(text, limits)
    finally:
        native_yaml.USE_NATIVE = saved


@pytest.mark.parametrize("text", ERRORS.values(), ids=ERRORS.keys())
def test_errors_have_the_same_message_and_position(text: str, path: str) -> None:
    assert _problem(text) == _problem_pyyaml(text)


def test_error_values_are_pyyaml_s() -> None:
    # The PyYAML path's own wording, pinned (not only compared), for two of the cases above.
    assert _problem_pyyaml(ERRORS["mapping-in-value"]) == (
        "RulesetError", "invalid YAML: mapping values are not allowed in this context", "f.yaml", 1, 5,
        "syntax-error")
    assert _problem_pyyaml(ERRORS["late-error"])[3:5] == (6, 1)


def test_depth_beyond_the_limit_is_the_pyyaml_path_s_error(path: str) -> None:
    limits = Limits("cluster manifests", CLUSTER.max_bytes, 3)
    deep = "a:\n  b:\n    c:\n      d: 1\n"
    assert _problem(deep, limits) == _problem_pyyaml(deep, limits)
    assert _problem(deep, limits)[:2] == ("LimitError", "nesting deeper than 3 levels (the limit for cluster manifests)")
    shallow = "a:\n  b:\n    c: 1\n"
    assert _read(shallow, limits) == _pyyaml(shallow, limits)


def test_depth_beyond_max_depth_goes_the_pyyaml_way(monkeypatch: pytest.MonkeyPatch) -> None:
    require_native()
    monkeypatch.setattr(native_yaml, "MAX_DEPTH", 2)
    assert native_yaml.load_documents("a:\n  b: 1\n", LocatedDict, LocatedList) is not None
    assert native_yaml.load_documents("a:\n  b:\n    c: 1\n", LocatedDict, LocatedList) is None
    assert native_yaml.load_documents("a:\n  b: []\n", LocatedDict, LocatedList) is None


def _stream(documents: int) -> str:
    return "".join(NODE_AND_PODS.replace("node-0", f"node-{i}") for i in range(documents))


@pytest.mark.parametrize("chunk", [1, 300, 2000, 10**9], ids=["every-marker", "300", "2000", "one-chunk"])
def test_chunks_keep_lines_and_documents(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    require_native()
    monkeypatch.setattr(native_yaml, "CHUNK_CHARS", chunk)
    text = DEPLOYMENT + "---\n" + _stream(7) + "---\n" + SCALARS.replace("true_words: [x]\n", "")
    documents = native_yaml.load_documents(text, LocatedDict, LocatedList)
    assert documents is not None
    assert [_shape(doc) for doc in documents] == _pyyaml(text)


@pytest.mark.parametrize(("markers", "size", "cuts"), [
    ([], 100, []),
    ([0, 10, 20], 30, []),
    ([0, 10, 20], 35, [2]),
    ([0, 40, 50, 90], 95, [1, 2, 3]),
], ids=["no-marker", "fits", "last", "two"])
def test_cuts(markers: list[int], size: int, cuts: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_yaml, "CHUNK_CHARS", 30)
    assert native_yaml._cuts(markers, size) == cuts


def test_small_streams_do_not_use_the_native_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_yaml, "MIN_BYTES", 1000)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the native path was used")

    monkeypatch.setattr(native_yaml, "load_documents", refuse)
    assert [_shape(doc) for doc in load_yaml("a: 1\n", "f.yaml", CLUSTER)] == _pyyaml("a: 1\n")


def test_located_false_and_explicit_loaders_do_not_use_the_native_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the native path was used")

    monkeypatch.setattr(native_yaml, "load_documents", refuse)
    assert list(load_yaml("a: 1\n", "f.yaml", CLUSTER, located=False)) == [{"a": 1}]
    import yaml
    assert list(load_yaml("a: 1\n", "f.yaml", CLUSTER, loader=yaml.SafeLoader)) == [{"a": 1}]


def test_without_the_native_module_the_pyyaml_path_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_yaml, "_native", lambda: None)
    assert not native_yaml.available()
    assert native_yaml.load_documents(DEPLOYMENT, LocatedDict, LocatedList) is None
    assert _read(DEPLOYMENT) == _pyyaml(DEPLOYMENT)


BROKEN_POD = """\
apiVersion: v1
kind: Node
metadata:
  name: n
status:
  allocatable:
    cpu: '4'
    pods: '110'
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: i
    resources:
      requests:
        cpu: lots
"""


def test_decoding_problems_are_located_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_native()
    file = tmp_path / "cluster.yaml"
    file.write_text(BROKEN_POD)
    seen = []
    for use in (True, False):
        monkeypatch.setattr(native_yaml, "USE_NATIVE", use)
        with pytest.raises(RulesetError) as info:
            load_manifests([file])
        seen.append([(p.message, p.line, p.column, p.path, p.code) for p in info.value.problems])
    assert seen[0] == seen[1]
    assert seen[0] and seen[0][0][1] == 20  # "cpu: lots", at its line


def test_a_cluster_loads_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_native()
    file = tmp_path / "cluster.yaml"
    file.write_text(BROKEN_POD.replace("cpu: lots", "cpu: 100m") + "---\n" + LIST.replace(
        "metadata: {name: b}", "metadata:\n    name: b"))
    seen = []
    for use in (True, False):
        monkeypatch.setattr(native_yaml, "USE_NATIVE", use)
        cluster = load_manifests([file])
        seen.append(([(p.key, p.requests, p.containers, p.node_name) for p in cluster.pods],
                     [(n.name, n.allocatable) for n in cluster.nodes], dict(cluster.kinds)))
    assert seen[0] == seen[1]
    assert len(seen[0][0]) == 3


def test_limit_error_class_is_kept(path: str) -> None:
    with pytest.raises(LimitError):
        list(load_yaml(ERRORS["digits"], "f.yaml", CLUSTER))


def test_reading_module_imports_no_yaml() -> None:
    """YAML lives in ruleset.yaml_reading: reading (TOML profiles, JSON) does not import PyYAML."""
    assert "yaml" not in vars(reading) and not hasattr(reading, "load_yaml")


ROOT = Path(__file__).resolve().parent.parent
REPO_YAML = sorted(p for pattern in ("*.yaml", "*.yml") for p in ROOT.rglob(pattern)
                   if not any(part.startswith(".") or part in ("node_modules", "build") for part in
                              p.relative_to(ROOT).parts[:-1]))


@pytest.mark.parametrize("file", REPO_YAML, ids=[str(p.relative_to(ROOT)) for p in REPO_YAML])
def test_every_yaml_file_of_the_repository_reads_alike(file: Path, path: str) -> None:
    text = file.read_text(encoding="utf-8")
    try:
        expected = _pyyaml(text)
    except RulesetError:
        assert _problem(text) == _problem_pyyaml(text)
        return
    assert _read(text) == expected


FUZZ_SCALARS = [
    "a", "web", "0", "7", "-7", "0.5", "1.5", "-0.0", "1e3", "1E3", "0x1F", "0o7", "017", "1_0", "1:30",
    "yes", "No", "on", "OFF", "y", "n", "true", "False", "null", "Null", "~", "=", "<<", ".inf", ".NaN",
    "2020-01-02", "100m", "500Mi", "1Ei", "a b", "a:b", "a#b", "a # c", "'q'", "'it''s'", '"d"', '"\\t"',
    "-", "- x", ":", ": x", "?", "? x", ",", "]", "}", "[]", "{}", "[a]", "{a: 1}", "&x a", "*x", "!!str 1",
    "%x", "@x", "`x", "|", ">-", "'open", '"open', "a: b", "-x", ":x", "?x", "http://h:80/p", "héllo",
    "9" * 19, "123456789012345678", "-", "''", '""', "TRUE", "nULL", "Yes", "+1", ".5", "1.", "0.",
]
FUZZ_KEYS = ["a", "b", "kind", "'q'", '"d"', "80", "-1", "yes", "true", "null", "1.5", "a b", "a:b", "<<",
             "? x", "-", "'a: b'", "x#y", ""]


#: Mostly what the native path takes, so that most documents test it (the others its refusals).
FUZZ_PLAIN_SCALARS = ["a", "web", "0", "7", "-7", "0.5", "-0.0", "y", "n", "true", "False", "null", "~", "100m",
                      "500Mi", "a b", "a:b", "a#b", "a # c", "'q'", "'it''s'", '"d"', '"\\t"', "[]", "{}", "''",
                      "http://h:80/p", "héllo", "123456789012345678", "-x", "|"]
FUZZ_PLAIN_KEYS = ["a", "b", "kind", "'q'", '"d"', "80", "-1", "a b", "a:b", "x#y"]


def _fuzz_document(rng: Any) -> str:
    lines: list[str] = []
    scalars, keys = (FUZZ_SCALARS, FUZZ_KEYS) if rng.random() < 0.3 else (FUZZ_PLAIN_SCALARS, FUZZ_PLAIN_KEYS)

    def block(indent: int, depth: int) -> None:
        for _ in range(rng.randint(1, 3)):
            kind = rng.random()
            pad = " " * indent
            if kind < 0.55 or depth > 2:
                value = rng.choice(scalars)
                lines.append(f"{pad}{rng.choice(keys)}: {value}".rstrip())
                if value == "|":
                    lines.append(f"{pad}  {rng.choice(scalars)}")
            elif kind < 0.75:
                lines.append(f"{pad}{rng.choice(keys)}:")
                block(indent + rng.choice([2, 4]), depth + 1)
            else:
                lines.append(f"{pad}{rng.choice(keys)}:")
                dash = pad + rng.choice(["", "  "])
                for _ in range(rng.randint(1, 3)):
                    if rng.random() < 0.5:
                        lines.append(f"{dash}- {rng.choice(scalars)}".rstrip())
                    else:
                        lines.append(f"{dash}- {rng.choice(keys)}: {rng.choice(scalars)}".rstrip())
                        if rng.random() < 0.5:
                            lines.append(f"{dash}  {rng.choice(keys)}: {rng.choice(scalars)}".rstrip())
    block(0, 0)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_random_documents_read_alike(seed: int, path: str) -> None:
    import random
    rng = random.Random(seed)
    for _ in range(25):
        text = "---\n".join(_fuzz_document(rng) for _ in range(rng.randint(1, 3)))
        try:
            expected = _pyyaml(text)
        except RulesetError:
            assert _problem(text) == _problem_pyyaml(text), text
            continue
        assert _read(text) == expected, text


def test_random_documents_mostly_take_the_native_path() -> None:
    # Pins how much of the fuzzing above tests the native path itself (the rest its refusals).
    require_native()
    import random
    taken = 0
    for seed in range(40):
        rng = random.Random(seed)
        for _ in range(25):
            text = "---\n".join(_fuzz_document(rng) for _ in range(rng.randint(1, 3)))
            taken += native_yaml.load_documents(text, LocatedDict, LocatedList) is not None
    assert taken == 350
