"""Issue 10, items 1-3 and the reading half of 5 and 6: bounded parsing of every input.

Each reproducer runs through ``ruleset.cli.main`` in a fresh folder: exit code, the exact
one-line located message on stderr, no traceback, and an answer within a second. Then the
properties: the iterative YAML builder gives exactly what PyYAML's recursive loader gave
(values, key lines, item lines) on generated YAML with anchors, aliases and merge keys;
the alias count is go-yaml v2's; the TOML and JSON depth scans measure exactly.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ruleset import reading, yaml_reading
from ruleset.cli import main
from ruleset.errors import RulesetError
from ruleset.profile.toml_writer import dumps as toml_dumps
from ruleset.reading import (
    CLUSTER,
    CONFIG,
    LimitError,
    Limits,
    LocatedDict,
    LocatedList,
    check_toml,
    load_json,
)
from ruleset.yaml_reading import allowed_alias_ratio, load_yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

#: The alias bomb of issue 10, item 3: 591 bytes standing for 10^9 pods.
BOMB = "\n".join(
    ["apiVersion: v1", "kind: List",
     "a0: &a0 {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: d}, spec: {containers: [{name: c}]}}"]
    + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    + ["items: *a9"]) + "\n"
BOMB_ERROR = ("document contains excessive aliasing: its aliases expand to 5,932 of the 5,985 nodes read so far, "
              "more than the 99% Kubernetes' YAML decoder (go-yaml v2) allows")
CONFIG_HEAD = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
               "profiles:\n- schedulerName: a\n")


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)``: exit code, stdout, stderr; within a second and without a traceback."""
    started = time.perf_counter()
    code = main(list(argv))
    elapsed = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert elapsed < 1.0, f"took {elapsed:.2f}s"
    assert "Traceback" not in err and "internal error" not in err
    return code, out, err


def refused(capsys, *argv: str) -> str:
    """The one error line of a command that must exit 2."""
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1, err
    return err


# ---------------------------------------------------------------------------------------
# 1 and 2: deep nesting, in clusters, --pod files, configurations, profiles, JSON


def test_200_levels_of_yaml_in_a_cluster_are_read(capsys):
    Path("c.yaml").write_text("kind: Node\nmetadata: {name: n}\nx: " + deep(200) + "\n")
    code, out, _ = run(capsys, "schedule", "--cluster", "c.yaml")
    assert code == 0 and out.startswith("profile default: 0 pending pods")


def test_100000_levels_of_yaml_in_a_cluster_are_refused(capsys):
    Path("c.yaml").write_text("kind: Node\nmetadata: {name: n}\nx: " + deep(100_000) + "\n")
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml:3:1003: nesting deeper than 1,000 levels (the limit for cluster manifests)\n")


def test_block_nesting_past_the_limit_is_refused(capsys):
    Path("c.yaml").write_text("".join(" " * i + f"k{i}:\n" for i in range(1100)))
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml:1000:1004: nesting deeper than 1,000 levels (the limit for cluster manifests)\n")


def test_200_levels_of_yaml_in_a_pod_file_are_read(capsys):
    Path("pod.yaml").write_text("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\nx: "
                                + deep(200) + "\n")
    code, out, _ = run(capsys, "score", "--pod", "pod.yaml")
    assert code == 0 and out.startswith("pod default/p  profile default")


def test_100000_levels_of_yaml_in_a_pod_file_are_refused(capsys):
    Path("pod.yaml").write_text("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\nx: "
                                + deep(100_000) + "\n")
    assert refused(capsys, "score", "--pod", "pod.yaml") == (
        "error: pod.yaml:4:1003: nesting deeper than 1,000 levels (the limit for cluster manifests)\n")


@pytest.mark.parametrize("levels", [200, 100_000])
def test_deep_yaml_in_a_configuration_is_refused(capsys, levels):
    # A configuration becomes a profile: the two share the 100-level limit.
    Path("k.yaml").write_text(CONFIG_HEAD + "x: " + deep(levels) + "\n")
    assert refused(capsys, "import", "k.yaml") == (
        "error: k.yaml:5:103: nesting deeper than 100 levels (the limit for scheduler configurations)\n")


def test_a_configuration_at_the_limit_is_imported(capsys):
    Path("k.yaml").write_text(CONFIG_HEAD + "x: " + deep(99) + "\n")
    code, out, _ = run(capsys, "import", "k.yaml")
    assert code == 0 and "# ---- a.toml" in out


def test_100000_levels_of_json_in_a_cluster_are_refused(capsys):
    Path("c.json").write_text('{"kind": "Node", "metadata": {"name": "n"}, "x": ' + deep(100_000) + "}\n")
    assert refused(capsys, "schedule", "--cluster", "c.json") == (
        "error: c.json:1:1049: nesting deeper than 1,000 levels (the limit for cluster manifests)\n")


@pytest.mark.parametrize("levels", [200, 999])
def test_json_up_to_the_limit_is_read(capsys, levels):
    # 999 is deeper than json.loads manages by itself from inside the command line's stack.
    Path("c.json").write_text('{"kind": "Node", "metadata": {"name": "n"}, "x": ' + deep(levels) + "}\n")
    code, out, _ = run(capsys, "schedule", "--cluster", "c.json")
    assert code == 0 and out.startswith("profile default: 0 pending pods")


@pytest.mark.parametrize("levels", [200, 100_000])
def test_deep_json_in_a_configuration_is_refused(capsys, levels):
    head = '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "x": '
    Path("k.json").write_text(head + deep(levels) + "}\n")
    # The top-level object is level 1: the 100th bracket is level 101.
    assert refused(capsys, "import", "k.json") == (
        f"error: k.json:1:{len(head) + 100}: nesting deeper than 100 levels (the limit for scheduler "
        "configurations)\n")


@pytest.mark.parametrize("value", [deep(500), deep(100_000), "{a = " * 400 + "1" + "}" * 400])
def test_deep_toml_in_a_profile_is_refused(capsys, value):
    Path("p.toml").write_text(f'name = "p"\n[plugins.NodeLabel]\nargs = {{ presentLabels = {value} }}\n')
    # [plugins.NodeLabel] is 2 levels, args' table the 3rd: the 98th bracket passes 100.
    column = 26 + 97 if value.startswith("[") else 26 + 97 * 5
    message = f"p.toml:3:{column}: nesting deeper than 100 levels (the limit for profiles)"
    assert refused(capsys, "schedule", "--profile", "p.toml") == f"error: {message}\n"
    code, out, _ = run(capsys, "validate", "p.toml")
    assert (code, out.splitlines()[0]) == (1, message.replace(": nesting", ": error: nesting") + " [toml-syntax]")


def test_dotted_keys_and_headers_count_as_nesting(capsys):
    Path("p.toml").write_text('name = "p"\n' + ".".join(["a"] * 100_000) + " = 1\n")
    assert refused(capsys, "schedule", "--profile", "p.toml") == (
        "error: p.toml:2:202: nesting deeper than 100 levels (the limit for profiles)\n")
    Path("q.toml").write_text('name = "q"\n[' + ".".join(["a"] * 101) + "]\n")
    assert refused(capsys, "schedule", "--profile", "q.toml") == (
        "error: q.toml:2:203: nesting deeper than 100 levels (the limit for profiles)\n")


# ---------------------------------------------------------------------------------------
# 3: the alias bomb, and aliases that nest


def test_the_alias_bomb_is_refused_by_schedule(capsys):
    Path("bomb.yaml").write_text(BOMB)
    assert len(BOMB) == 591
    assert refused(capsys, "schedule", "--cluster", "bomb.yaml") == f"error: bomb.yaml:6:14: {BOMB_ERROR}\n"


def test_the_alias_bomb_is_refused_by_import(capsys):
    Path("bomb.yaml").write_text(BOMB)
    assert refused(capsys, "import", "bomb.yaml") == f"error: bomb.yaml:6:14: {BOMB_ERROR}\n"


def test_an_alias_bomb_inside_a_config_map_is_refused(capsys):
    inner = BOMB.replace("apiVersion: v1\nkind: List\n", "")
    Path("cm.yaml").write_text("kind: ConfigMap\nmetadata: {name: s, namespace: kube-system}\ndata:\n"
                               "  config.yaml: |\n" + "".join(f"    {line}\n" for line in inner.splitlines()))
    assert refused(capsys, "import", "cm.yaml") == (
        "error: cm.yaml:4: ConfigMap kube-system/s, data key 'config.yaml': line 4, column 14: "
        f"{BOMB_ERROR.replace('5,985', '5,981')}\n")  # (without the two lines above a0)


def test_aliases_count_the_depth_they_stand_for(capsys):
    Path("c.yaml").write_text("a: &a " + deep(600) + "\nb: " + "[" * 500 + "*a" + "]" * 500 + "\n")
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml:2:504: nesting deeper than 1,000 levels (the limit for cluster manifests)\n")


def test_keys_of_keys_cannot_grow_their_text_without_bound(capsys):
    # Each level's key is the text of the one inside, quotes escaped again: 2^n characters.
    Path("c.yaml").write_text("{" * 40 + "}" * 40 + "\n")
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml:1:20: a mapping key that is a mapping or sequence longer than 1 MiB as text "
        "(the limit for such keys)\n")


# ---------------------------------------------------------------------------------------
# 5: integers of more than 4,300 digits


@pytest.mark.parametrize(("name", "text", "where"), [
    ("c.yaml", "kind: Node\nmetadata: {name: n}\nstatus: {capacity: {x: " + "1" * 5000 + "}}\n", "3:24"),
    ("c.yaml", "kind: Node\nmetadata: {name: n}\nx: 0x" + "f" * 3600 + "\n", "3:4"),
    ("c.yaml", "kind: Node\nmetadata: {name: n}\nx: " + "1:" * 3000 + "1\n", "3:4"),
    ("c.json", '{"kind": "Node", "metadata": {"name": "n"}, "x": [1, -' + "1" * 5000 + "]}\n", "1:54"),
])
def test_integers_of_too_many_digits_in_a_cluster_are_refused(capsys, name, text, where):
    Path(name).write_text(text)
    assert refused(capsys, "schedule", "--cluster", name) == (
        f"error: {name}:{where}: an integer of more than 4,300 digits (the limit for integers)\n")


def test_integers_of_4300_digits_are_read():
    assert next(load_yaml("x: " + "9" * 4300, "f", CLUSTER))["x"] == int("9" * 4300)
    assert load_json("[" + "9" * 4300 + "]", "f", CLUSTER) == [int("9" * 4300)]
    # Long floats and strings are not integers.
    assert next(load_yaml("x: 1." + "1" * 5000 + "\ny: '" + "1" * 5000 + "'", "f", CLUSTER))["y"] == "1" * 5000


@pytest.mark.parametrize(("value", "column"), [("1" * 5000, 5), ("0x" + "f" * 3600, 5), ("[1, 2_" + "2" * 5000 + "]", 9)])
def test_integers_of_too_many_digits_in_a_profile_are_refused(capsys, value, column):
    Path("p.toml").write_text(f'name = "p"\nx = {value}\n')
    assert refused(capsys, "schedule", "--profile", "p.toml") == (
        f"error: p.toml:2:{column}: an integer of more than 4,300 digits (the limit for integers)\n")


def test_long_floats_and_strings_in_a_profile_are_no_integers():
    assert check_toml('x = 1.' + "1" * 5000 + "\ny = '" + "1" * 5000 + "'\nz = 1e" + "0" * 5000, "p.toml") is None


# ---------------------------------------------------------------------------------------
# 6: what a file is, and how large


def test_a_fifo_named_as_cluster_is_refused(capsys):
    os.mkfifo("c.yaml")
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml: cannot read: it is a FIFO (named pipe), not a regular file\n")


def test_a_fifo_named_as_pod_is_refused(capsys):
    os.mkfifo("pod.yaml")
    assert refused(capsys, "score", "--pod", "pod.yaml") == (
        "error: pod.yaml: cannot read: it is a FIFO (named pipe), not a regular file\n")


def test_a_fifo_named_for_validate_is_refused(capsys):
    os.mkfifo("p.toml")
    code, out, _ = run(capsys, "validate", "p.toml")
    assert (code, out.splitlines()[0]) == (
        2, "p.toml: error: cannot read: it is a FIFO (named pipe), not a regular file [io-error]")


def test_dev_zero_as_cluster_is_refused(capsys):
    assert refused(capsys, "schedule", "--cluster", "/dev/zero") == (
        "error: /dev/zero: cannot read: it is a character device, not a regular file\n")


def test_a_folder_without_manifests_as_cluster_is_refused(capsys):
    os.mkdir("d")
    assert refused(capsys, "schedule", "--cluster", "d") == (
        "error: d: no *.yaml, *.yml or *.json file in this folder\n")


def test_a_cluster_over_the_size_limit_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(CLUSTER, "max_bytes", 1024)
    Path("c.yaml").write_text("kind: Node\nmetadata: {name: n}\n" + "# padding\n" * 200)
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml: cannot read: larger than 1 KiB (the size limit for cluster manifests)\n")
    Path("c.yaml").write_text("kind: Node\nmetadata: {name: n}\n")
    assert run(capsys, "schedule", "--cluster", "c.yaml")[0] == 0


def test_a_profile_and_a_configuration_over_the_size_limit_are_refused(capsys, monkeypatch):
    monkeypatch.setattr(reading.PROFILE, "max_bytes", 100)
    monkeypatch.setattr(CONFIG, "max_bytes", 100)
    Path("p.toml").write_text('name = "p"\n' + "# padding\n" * 20)
    assert refused(capsys, "schedule", "--profile", "p.toml") == (
        "error: p.toml: cannot read: larger than 100 bytes (the size limit for profiles)\n")
    Path("k.yaml").write_text(CONFIG_HEAD + "# padding\n" * 20)
    assert refused(capsys, "import", "k.yaml") == (
        "error: k.yaml: cannot read: larger than 100 bytes (the size limit for scheduler configurations)\n")


def test_a_file_that_grows_while_read_is_still_bounded(monkeypatch, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("x" * 10)
    real_fstat = os.fstat

    def shrunk(fd):  # the size announced before the file grew
        st = real_fstat(fd)
        return os.stat_result((*st[:6], 5, *st[7:]))

    monkeypatch.setattr(os, "fstat", shrunk)
    assert reading.read_file(path, Limits("t", 20, 10)) == b"x" * 10
    with pytest.raises(LimitError):
        reading.read_file(path, Limits("t", 8, 10))


def test_non_utf8_in_a_cluster_is_located(capsys):
    Path("c.yaml").write_bytes(b"kind: Node\nmetadata: {name: \xff}\n")
    assert refused(capsys, "schedule", "--cluster", "c.yaml") == (
        "error: c.yaml:2:18: not UTF-8 text: invalid start byte\n")


def test_line_ends_are_read_as_before(tmp_path):
    from ruleset.manifests import read_documents

    path = tmp_path / "c.yaml"
    path.write_bytes(b"a: |\r\n  x\r\n  y\r\nb: 'p\rq'\r\n")
    assert [doc for _, doc in read_documents(path)] == [{"a": "x\ny\n", "b": "p q"}]


# ---------------------------------------------------------------------------------------
# go-yaml v2's alias rule, ported


def test_the_alias_ratio_is_go_yamls():
    # decode.go: 99% up to 400,000 decodes, 10% from 4,000,000, linear in between.
    assert allowed_alias_ratio(1) == allowed_alias_ratio(400_000) == 0.99
    assert allowed_alias_ratio(4_000_000) == allowed_alias_ratio(10**9) == 0.10
    assert allowed_alias_ratio(2_200_000) == 0.99 - 0.89 * 0.5
    assert (yaml_reading.ALIAS_MIN_ALIASED, yaml_reading.ALIAS_MIN_DECODED) == (100, 1000)


def go_yaml_refuses(text: str) -> bool:
    """go-yaml v2's decoder (decode.go, ``unmarshal``), simulated by walking each document with
    its aliases expanded: every node it decodes counts (an alias, then its anchor's node
    again, all of it "aliased"), but not a merge key or a merge key's list itself; the
    check is made at each node."""
    for document in _go_trees(text):
        decoded, aliased = 1, 0  # the document node
        stack = [(document, False)]
        while stack:
            (kind, children), inside = stack.pop()
            if kind != "merge-list":
                decoded += 1
                aliased += inside
                if aliased > 100 and decoded > 1000 and aliased / decoded > allowed_alias_ratio(decoded):
                    return True
            if kind == "alias":
                stack.append((children, True))
            else:
                stack.extend((child, inside) for child in reversed(children))
    return False


class _GoFrame:
    def __init__(self, kind: str, anchor: str | None):
        self.kind, self.anchor, self.children = kind, anchor, []
        self.expect_key, self.merge = True, False


def _go_trees(text: str):
    """Each document as go-yaml's parser builds it: nodes (kind, children); an alias is
    ("alias", its anchor's node); a merge key is left out, its list is a "merge-list"."""
    anchors: dict[str, tuple] = {}
    stack: list[_GoFrame] = []

    def add(node: tuple, event) -> None:
        parent = stack[-1]
        if parent.kind == "map" and parent.expect_key:
            parent.expect_key = False
            if isinstance(event, yaml.ScalarEvent) and event.value == "<<" and event.implicit[0]:
                parent.merge = True
                return
        elif parent.kind == "map":
            parent.expect_key, parent.merge = True, False
        parent.children.append(node)

    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.DocumentStartEvent):
            anchors, stack = {}, [_GoFrame("doc", None)]
        elif isinstance(event, yaml.DocumentEndEvent):
            yield stack[0].children[0]
        elif isinstance(event, yaml.ScalarEvent):
            node = ("scalar", [])
            if event.anchor:
                anchors[event.anchor] = node
            add(node, event)
        elif isinstance(event, yaml.AliasEvent):
            add(("alias", anchors[event.anchor]), event)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            parent = stack[-1]
            kind = "map" if isinstance(event, yaml.MappingStartEvent) else "seq"
            if kind == "seq" and parent.kind == "map" and parent.merge:
                kind = "merge-list"
            stack.append(_GoFrame(kind, event.anchor))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            frame = stack.pop()
            node = (frame.kind, frame.children)
            if frame.anchor:
                anchors[frame.anchor] = node
            add(node, event)


def refused_by_builder(text: str) -> bool:
    try:
        for _ in load_yaml(text, "f", CLUSTER):
            pass
    except LimitError as exc:
        assert "excessive aliasing" in exc.problems[0].message
        return True
    return False


def test_the_bomb_is_refused_as_go_yaml_refuses_it():
    small = BOMB.split("\na4:")[0] + "\nitems: *a3\n"  # 10^3 pods: small enough to expand here
    assert go_yaml_refuses(small) and refused_by_builder(small) and refused_by_builder(BOMB)


@st.composite
def aliasing_documents(draw) -> str:
    """Documents of a few anchors, each a list of scalars and aliases to earlier ones, and a
    body of aliases: sizes around go-yaml's thresholds (100 aliased, 1,000 decoded)."""
    lines = []
    for i in range(draw(st.integers(1, 5))):
        items = ["x"] * draw(st.integers(0, 40))
        items += [f"*a{draw(st.integers(0, i - 1))}" for _ in range(draw(st.integers(0, 12)) if i else 0)]
        items = draw(st.permutations(items))
        lines.append(f"a{i}: &a{i} [" + ", ".join(items) + "]")
        if draw(st.booleans()):
            lines.append(f"m{i}: &m{i} {{k{i}: *a{i}, v: [y, y, y]}}")
            lines.append(f"n{i}: {{<<: *m{i}, w: *a{i}}}")
    anchors = len([line for line in lines if line.startswith("a")])
    body = [f"*a{draw(st.integers(0, anchors - 1))}" for _ in range(draw(st.integers(0, 60)))]
    lines.append("body: [" + ", ".join(body) + "]")
    lines.append("tail: [" + ", ".join(["z"] * draw(st.integers(0, 2000))) + "]")
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aliasing_documents())
def test_aliases_are_refused_exactly_when_go_yaml_refuses_them(text):
    assert refused_by_builder(text) == go_yaml_refuses(text)


# ---------------------------------------------------------------------------------------
# The iterative builder gives what PyYAML's recursive loader gave


class OldLocatingLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The manifest reader's loader before issue 10 (recursive; kept here as the reference)."""


def _old_mapping(loader, node):
    loader.flatten_mapping(node)
    out = LocatedDict()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            key = str(key)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = key_node.start_mark.line + 1
    return out


def _old_sequence(loader, node):
    out = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


OldLocatingLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _old_mapping)
OldLocatingLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _old_sequence)


def shape(value, seen=None):
    """Everything observable: types, values, order, lines, and which containers are shared."""
    seen = {} if seen is None else seen
    if isinstance(value, (dict, list)):
        if id(value) in seen:
            return ("shared", seen[id(value)])
        seen[id(value)] = len(seen)
    if isinstance(value, dict):
        return ("map", type(value).__name__, getattr(value, "line", None),
                [(shape(k, seen), shape(v, seen), getattr(value, "key_lines", {}).get(k)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", type(value).__name__, getattr(value, "line", None), [shape(v, seen) for v in value],
                getattr(value, "item_lines", None))
    if isinstance(value, (tuple, set)):
        return (type(value).__name__, sorted(repr(shape(v, seen)) for v in value)
                if isinstance(value, set) else [shape(v, seen) for v in value])
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def old_outcome(text: str, loader=OldLocatingLoader, plain: bool = False):
    try:
        return ("documents", [shape(d) for d in yaml.load_all(text, Loader=loader)])
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or str(exc)
        if exc.context:
            message = f"{exc.context}, {message}"
        return ("error", f"invalid YAML: {message}", mark.line + 1 if mark else None,
                mark.column + 1 if mark else None)
    except yaml.YAMLError as exc:
        return ("error", f"invalid YAML: {exc}", None, None)


def new_outcome(text: str, **options):
    try:
        return ("documents", [shape(d) for d in load_yaml(text, "f", CLUSTER, **options)])
    except RulesetError as exc:
        [problem] = exc.problems
        return ("error", problem.message, problem.line, problem.column)


SCALARS = ["a", "abc", "1", "-7", "0x1F", "0o17", "017", "1_000", "1:30", "1.5", "-1.5e3", ".inf", "-.Inf", ".NaN",
           "yes", "No", "off", "true", "~", "null", "''", '""', "'q r'", '"d\\tq"', "2001-12-14",
           "2001-12-14t21:59:43.10-05:00", "2002-12-14 21:59:43.1", "=", "!!str 1", "!!int '7'", "!!float 2",
           "!!binary aGk=", "!!bool yes", "!!null ''", "! a", "12345678901234567890", "0b101", "+12", "x y"]


@st.composite
def yaml_documents(draw) -> str:
    """YAML streams of block and flow collections, every kind of scalar, anchors, aliases to
    earlier anchors and merge keys (in all their forms), rendered as text."""
    anchors: list[tuple[str, str]] = []  # (name, kind) of the anchors defined so far
    counter = [0]

    def anchor(kind: str) -> str:
        if draw(st.integers(0, 3)) != 0:
            return ""
        counter[0] += 1
        return f"&x{counter[0]} "

    def remember(prefix: str, kind: str) -> None:
        if prefix:
            anchors.append((prefix[1:-1], kind))

    def alias(kind: str | None = None) -> str | None:
        choices = [name for name, k in anchors if kind is None or k == kind]
        return f"*{draw(st.sampled_from(choices))}" if choices else None

    def flow(depth: int) -> str:
        choice = draw(st.integers(0, 9 if depth < 3 else 4))
        if choice <= 3:
            prefix = anchor("scalar")
            text = prefix + draw(st.sampled_from(SCALARS))
            remember(prefix, "scalar")
            return text
        if choice == 4:
            return alias() or "a"
        if choice <= 6:
            prefix = anchor("sequence")
            text = prefix + "[" + ", ".join(flow(depth + 1) for _ in range(draw(st.integers(0, 3)))) + "]"
            remember(prefix, "sequence")
            return text
        prefix = anchor("mapping")
        pairs = []
        for _ in range(draw(st.integers(0, 3))):
            merge = draw(st.integers(0, 5))
            if merge == 0 and (source := alias("mapping")):
                pairs.append(f"<<: {source}")
            elif merge == 1:
                items = [alias("mapping") or "{m: 1}" for _ in range(draw(st.integers(1, 3)))]
                pairs.append("<<: [" + ", ".join(items) + "]")
            elif merge == 2:
                pairs.append("<<: " + flow(depth + 1))
            else:
                key = draw(st.sampled_from(["k", "name", "1", "x y", "k", "'k'", "[a, b]", "{c: d}", "=", "true"]))
                if key.startswith(("[", "{")):
                    key = "? " + key  # a complex key in a flow mapping
                pairs.append(f"{key}: {flow(depth + 1)}")
        text = prefix + "{" + ", ".join(pairs) + "}"
        remember(prefix, "mapping")
        return text

    def block(depth: int, indent: int) -> list[str]:
        pad = " " * indent
        if depth >= 3 or draw(st.integers(0, 2)) == 0:
            return [pad + flow(depth)]
        if draw(st.booleans()):
            prefix = anchor("sequence")
            lines = [pad + prefix.strip()] if prefix else []
            for _ in range(draw(st.integers(1, 3))):
                child = block(depth + 1, indent + 2)
                lines.append(pad + "- " + child[0].strip())
                lines.extend(child[1:])
            remember(prefix, "sequence")
            return lines
        prefix = anchor("mapping")
        lines = [pad + prefix.strip()] if prefix else []
        for _ in range(draw(st.integers(1, 4))):
            if draw(st.integers(0, 4)) == 0 and (source := alias("mapping")):
                lines.append(f"{pad}<<: {source}")
                continue
            key = draw(st.sampled_from(["a", "b", "name", "2", "c d", "a"]))
            child = block(depth + 1, indent + 2)
            if len(child) == 1:
                lines.append(f"{pad}{key}: {child[0].strip()}")
            else:
                lines.append(f"{pad}{key}:")
                lines.extend(child)
        remember(prefix, "mapping")
        return lines

    documents = []
    for _ in range(draw(st.integers(1, 3))):
        anchors.clear()
        documents.append("\n".join(block(0, 0)))
    return "\n---\n".join(documents) + "\n"


def construction_errors(text: str) -> list[tuple]:
    """Every construction error the builder noted in the document that failed."""
    builder = yaml_reading._Builder("f", CLUSTER, True)
    try:
        for _ in builder.run(text, yaml_reading._FAST_LOADER):
            pass
    except yaml.YAMLError:
        pass
    problems = [yaml_reading._yaml_problem(exc, "f") for _, exc in builder.errors]
    return [("error", p.message, p.line, p.column) for p in problems]


#: Whether this PyYAML drops a later merged pair whose key is the same string object (6.0.2 on).
_PYYAML_DROPS = list(yaml.safe_load("{<<: [{p: 1}, {q: 2}]}")) == ["p", "q"]


def merges_a_duplicate_key(text: str) -> bool:
    """Whether a mapping merged with ``<<`` holds one key twice.

    PyYAML from 6.0.2 keeps the first of merged pairs whose key *string object* is the same
    (``id(key_node.value)``), which for one-character keys (cached by CPython) drops the
    later pair unconstructed, and for longer ones keeps both. The builder constructs every
    pair as it reads it, so an error inside such a dropped value is still reported. Such
    documents (a key twice among the sources merged into one mapping, within one source or
    across two ``<<`` keys) are left out of the comparisons.
    """
    documents = []
    try:
        for document in yaml.compose_all(text, Loader=yaml.SafeLoader):
            documents.append(document)
    except yaml.YAMLError:
        pass  # the documents before a later one's syntax error are constructed first: they count
    stack = [d for d in documents if d is not None]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            # The keys of every source merged into this mapping, across its `<<` keys (a
            # mapping may have several: their pairs are concatenated, so repeats count too).
            keys: list[str] = []
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
                    for source in sources:
                        if isinstance(source, yaml.MappingNode):
                            keys += [k.value for k, _ in source.value if isinstance(k, yaml.ScalarNode)]
            if len(keys) != len(set(keys)):
                return True
            for key, value in node.value:
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return False


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_documents())
def test_the_builder_gives_what_the_recursive_loader_gave(text):
    assume(not merges_a_duplicate_key(text))
    expected, got = old_outcome(text), new_outcome(text)
    if got != expected and expected[0] == got[0] == "error":
        # Of several construction errors in a document, PyYAML reports the first it meets
        # constructing depth first, after reordering merged pairs; the builder reports the
        # first by the position of the node raising it. It must have found PyYAML's too.
        assert expected in construction_errors(text), text
        return
    assert got == expected, text


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_documents())
def test_plain_mode_gives_what_safe_load_all_gave(text):
    assume(not merges_a_duplicate_key(text))
    expected = old_outcome(text, loader=yaml.SafeLoader)
    if expected[0] == "error":
        assert new_outcome(text, located=False, loader=yaml.SafeLoader)[0] == "error"
    else:
        assert new_outcome(text, located=False, loader=yaml.SafeLoader) == expected, text


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("{<<: &x2 {<<: [{m: 1}], k: a, k: {<<: a}}}\n", True, id="one-char-duplicate"),
    pytest.param("{<<: {kk: a, kk: {<<: a}}}\n", True, id="longer-duplicate"),
    pytest.param("{<<: [{a: 1}, {b: 2}], a: 3, a: 4}\n", False, id="duplicate-outside-the-source"),
    pytest.param("- &s {k: 1, k: 2}\n- {<<: *s}\n", True, id="through-an-alias"),
])
def test_the_excluded_documents_are_those_with_a_merged_duplicate_key(text, expected):
    assert merges_a_duplicate_key(text) is expected


def test_an_error_in_a_merged_duplicate_is_reported_where_pyyaml_drops_it():
    # The known divergence the property tests leave out, pinned: the builder reports it.
    text = "{<<: {k: a, k: {<<: a}}}\n"
    assert old_outcome(text, loader=yaml.SafeLoader)[0] == ("documents" if _PYYAML_DROPS else "error")
    assert new_outcome(text)[:2] == ("error", "invalid YAML: while constructing a mapping, expected a "
                                     "mapping or list of mappings for merging, but found scalar")


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: &x 2\n",  # duplicate anchor
    "a: *nope\n",  # undefined alias
    "a: &x [1, *x]\n",  # an anchor inside itself
    "a: =\n", "a: !foo 1\n", "a: {<<: 1}\n", "a: {<<: [1]}\n", "- &a x\n- {<<: *a}\n",
    "a: !!omap [1]\n", "a: !!omap [{a: 1, b: 2}]\n", "a: !!set {a, b}\n", "a: !!omap {a: 1}\n",
    "a: !!str [1]\n", "a: !!set [1]\n", "x: !!set {[1]: a}\n",
    "a: !!map {b: 1}\nb: !!seq [1]\nc: !!pairs [a: 1, a: 2]\nd: !!omap [a: 1, b: 2]\n",
    "a: [1, 2\n", "kind: Node\nmetadata: {name: n1\n", "- a\nb: c\n", "a: 1\n---\nb: [1\n",
    "a: !!str {x: 1}\nb: [1\n",  # the syntax error after a construction error wins
    "a: \x01\n", "\ufeffa: 1\n", "", "---\n", "--- 1\n--- [a]\n...\n",
])
def test_errors_and_corners_are_as_pyyaml_gave_them(text):
    assert new_outcome(text) == old_outcome(text)


@pytest.mark.parametrize(("text", "message"), [
    ("a: !!map foo\n", "invalid YAML: expected a mapping node, but found scalar"),
    ("a: !!seq {a: 1}\n", "invalid YAML: expected a sequence node, but found mapping"),
    ("a: 2020-13-01\n", "invalid YAML: cannot read '2020-13-01' as !!timestamp: month must be in 1..12"),
    ("a: !!int abc\n", "invalid YAML: cannot read 'abc' as !!int: invalid literal for int() with base 10: 'abc'"),
    ("a: !!bool abc\n", "invalid YAML: cannot read 'abc' as !!bool"),
])
def test_what_crashed_pyyaml_is_a_located_error(text, message):
    # PyYAML's constructors raise ValueError, KeyError... on these: a traceback before.
    assert new_outcome(text) == ("error", message, 1, 4)


# ---------------------------------------------------------------------------------------
# The TOML and JSON depth scans measure exactly


def data_depth(value) -> int:
    best, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            best = max(best, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return best


TRICKY_TEXT = st.text(alphabet="ab.[]{}'\"#=\\ ,\n\té", max_size=5)
TOML_DATA = st.recursive(
    st.one_of(st.integers(), TRICKY_TEXT, st.booleans(), st.floats(allow_nan=False)),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(TRICKY_TEXT.filter(bool), children,
                                                                               max_size=3)),
    max_leaves=30)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(TRICKY_TEXT.filter(bool), TOML_DATA, max_size=4), st.integers(1, 8))
def test_the_toml_scan_measures_depth_exactly(data, limit):
    text = toml_dumps(data)
    depth = data_depth(tomllib.loads(text))
    assert (check_toml(text, "p.toml", Limits("t", 1 << 20, limit)) is not None) == (depth > limit), text


@pytest.mark.parametrize("text", [
    "a = {b.c.d = [1, {e.f = 2}]}", "x.y.z = 1", "[[a]]\n[[a.b]]\n[a.b.c]\nd.e = [[1]]",
    "[a]\n[a.b]\n[[a.c]]\nk = \"[[[[\"\n", "s = '''[[[['''\nt = \"\"\"{{{\"\"\"", "a = [ # c [[[\n 1, [2, [3]] ]\n",
    "\"a.b\".c = 1\n['x.y'.\"z\"]\nq=1", "[[ \"a\\u0062\" ]]\n[ab.c]\nd = 1",
])
def test_the_toml_scan_knows_headers_dotted_keys_and_strings(text):
    depth = data_depth(tomllib.loads(text))
    for limit in range(8):
        assert (check_toml(text, "p.toml", Limits("t", 1 << 20, limit)) is not None) == (depth > limit)


JSON_DATA = st.recursive(
    st.one_of(st.integers(), st.text(alphabet='ab[]{}"\\\né\U0001f600', max_size=5), st.none()),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(alphabet='a[]{}"\\', max_size=3), children, max_size=3)),
    max_leaves=60)


@settings(max_examples=500, deadline=None)
@given(JSON_DATA, st.integers(0, 12), st.booleans())
def test_the_json_scan_measures_depth_exactly(data, limit, ascii_only):
    text = json.dumps(data, ensure_ascii=ascii_only)
    deeper = data_depth(data) + (1 if isinstance(data, (dict, list)) else 0) > limit
    assert reading._bracket_depth_exceeds(text.encode(), limit) == deeper, text
    if deeper:
        with pytest.raises(LimitError):
            load_json(text, "c.json", Limits("t", 1 << 20, limit))
    else:
        assert load_json(text, "c.json", Limits("t", 1 << 20, limit)) == data


@pytest.mark.parametrize(("shape_", "limit"), [
    ("[" * 5000 + "]" * 5000, 1000), ("[" * 1000 + "]" * 1000, 1000),
    ("[" * 70 + "[1]," * 3 + "[[[[]]]]" + "]" * 70, 74), ("[" * 70 + "[1]," * 3 + "[[[[]]]]" + "]" * 70, 73),
])
def test_the_json_scan_handles_deep_and_narrow_shapes(shape_, limit):
    depth = deepest = 0
    for char in shape_:
        depth += {"[": 1, "]": -1}.get(char, 0)
        deepest = max(deepest, depth)
    assert reading._bracket_depth_exceeds(shape_.encode(), limit) == (deepest > limit)


def test_reading_a_big_dump_stays_fast():
    """A 2,000-object kind: List in both formats reads well within a second."""
    items = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "labels": {"app": "a"}},
              "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}
             for i in range(2000)]
    document = {"apiVersion": "v1", "kind": "List", "items": items}
    text = yaml.safe_dump(document)
    started = time.perf_counter()
    [built] = load_yaml(text, "c.yaml", CLUSTER)
    assert built == document
    assert load_json(json.dumps(document), "c.json", CLUSTER) == document
    assert time.perf_counter() - started < 1.0
