"""Read a behavioural test file (:mod:`ruleset.behaviour.model`): every problem located at file:line:col.

The TOML is read as profiles are (:func:`ruleset.profile.loader.read_profile_file`: limits,
syntax errors, key positions); then each key is checked here, each problem at the key or
value that caused it, or at the character inside a selector. A file with problems is not run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ruleset.behaviour.model import KINDS, Expectation, TestFile, Where
from ruleset.errors import Problem, format_path
from ruleset.manifests.builders import node_manifest, pod_manifest
from ruleset.profile.loader import ProfileFile, display_path, read_profile_file, resolve_extends, type_name
from ruleset.profile.toml_positions import locate, string_column
from ruleset.selector import SelectorError, parse
from ruleset.validate.checks import expand_arguments

#: A folder argument finds the test files named so (recursively, hidden folders skipped).
SUFFIX = ".test.toml"

KeyPath = tuple[str | int, ...]
_TOP = {"profile", "cluster", "nodes", "pods", "seed", "expect"}
_NODE = {"name", "cpu", "memory", "pods", "labels", "taints", "resources", "unschedulable"}
_POD = {"name", "namespace", "cpu", "memory", "resources", "labels", "priority", "tolerations",
        "node-selector"}
#: The keys each kind of expectation takes besides its own (and ``name``).
_EXPECT = {"lands-on": {"pod"}, "unschedulable": {"pod", "reason"}, "at-most": {"pods", "per-node"},
           "spread": {"max-stddev", "max-range"}, "same-as": set()}
_REQUIRED = {"lands-on": ("pod",), "unschedulable": ("pod",), "at-most": ("pods",), "spread": (),
             "same-as": ()}
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def expand_test_paths(arguments: Iterable[str]) -> tuple[list[Path], list[Problem]]:
    """Files (any name), folders (their ``*.test.toml`` files, recursively) and globs, each file
    once; and one ``io-error`` problem per argument that names no test file (``validate``'s
    rules, with test files' suffix)."""
    return expand_arguments(arguments, suffix=SUFFIX)


def load_test_file(path: Path) -> tuple[TestFile | None, list[Problem]]:
    """The test file at ``path``, or None and every problem found in it."""
    pf = read_profile_file(Path(display_path(path)))
    if not pf.parsed:
        return None, pf.problems
    reader = _Reader(pf)
    test = reader.read()
    return (None, pf.problems) if pf.problems else (test, [])


class _Reader:
    """Checks one parsed file, appending located problems to the file's."""

    def __init__(self, pf: ProfileFile):
        self.pf = pf
        self.base = Path(pf.path).parent

    def fail(self, path: KeyPath, message: str, code: str = "invalid-value", value: bool = True) -> None:
        self.pf.problem(path, message, code, value=value)

    def read(self) -> TestFile:
        data = self.pf.data
        test = TestFile(path=self.pf.path)
        self.unknown_keys((), data, _TOP)
        if "profile" in data:
            test.profile = self.profile(("profile",), data["profile"]) or test.profile
        test.cluster = self.paths(("cluster",), data.get("cluster", []))
        for i, table in enumerate(self.tables(("nodes",), data.get("nodes", []))):
            node = self.node(("nodes", i), table)
            if node is not None:
                test.nodes.append((("nodes", i), node))
        pods = data.get("pods", [])
        if not isinstance(pods, list):
            self.fail(("pods",), "expected an array of file paths or of pod tables")
            pods = []
        for i, item in enumerate(pods):
            if isinstance(item, str):
                test.pod_files.extend(self.paths(("pods",), [item], start=i))
            elif isinstance(item, dict):
                pod = self.pod(("pods", i), item)
                if pod is not None:
                    test.pods.append((("pods", i), pod))
            else:
                self.fail(("pods", i), f"expected a file path or a pod table, got {_type(item)}")
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            self.fail(("seed",), "expected a non-negative integer")
        else:
            test.seed = seed
        expects = self.tables(("expect",), data.get("expect", []))
        if data.get("expect", []) == []:
            self.fail((), "no [[expect]] table: a test file states at least one expectation",
                      "no-expectation")
        for i, table in enumerate(expects):
            expectation = self.expectation(i, table)
            if expectation is not None:
                test.expectations.append(expectation)
        for key in ("nodes", "pods"):
            for i in range(len(data.get(key, [])) if isinstance(data.get(key), list) else 0):
                place = locate(self.pf.positions, (key, i), value=True)
                if place is not None:
                    test.places[(key, i)] = place
        return test

    # -- pieces --------------------------------------------------------------------------------

    def unknown_keys(self, path: KeyPath, table: dict[str, Any], known: set[str]) -> None:
        for key in table:
            if key not in known:
                self.fail((*path, key), f"unknown key (expected one of: {', '.join(sorted(known))})",
                          "unknown-key", value=False)

    def tables(self, path: KeyPath, value: Any) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.fail(path, f"expected an array of tables ([[{format_path(path)}]])")
            return []
        return value

    def string(self, path: KeyPath, value: Any) -> str | None:
        if isinstance(value, str) and value:
            return value
        if value is None:  # the key is absent: at the table that lacks it
            self.fail(path, "missing (a non-empty string is required)", "missing-key")
            return None
        self.fail(path, f"expected a non-empty string, got {_type(value)}")
        return None

    def profile(self, path: KeyPath, value: Any) -> str | None:
        """A profile as a path relative to this file or a bundled name, resolved to a path."""
        text = self.string(path, value)
        if text is None:
            return None
        found = resolve_extends(text, self.base)
        if found is None:
            self.fail(path, "no such profile file (relative to this file), and no bundled profile of "
                            "that name", "io-error")
            return None
        return display_path(found)

    def paths(self, path: KeyPath, value: Any, start: int = 0) -> list[str]:
        if isinstance(value, str) or not isinstance(value, list):
            self.fail(path, "expected an array of file or folder paths")
            return []
        out = []
        for i, item in enumerate(value, start=start):
            text = self.string((*path, i), item)
            if text is None:
                continue
            full = self.base / text
            if not full.exists():
                self.fail((*path, i), "no such file or folder (relative to this file)", "io-error")
                continue
            out.append(str(full))
        return out

    def labels(self, path: KeyPath, value: Any) -> dict[str, str]:
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            self.fail(path, "expected a table of strings")
            return {}
        return dict(value)

    def quantity(self, path: KeyPath, value: Any) -> str | int | None:
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        self.fail(path, f"expected a quantity (a string such as \"500m\", or an integer), got {_type(value)}")
        return None

    def node(self, path: KeyPath, table: dict[str, Any]) -> dict[str, Any] | None:
        self.unknown_keys(path, table, _NODE)
        before = len(self.pf.problems)
        name = self.string((*path, "name"), table.get("name"))
        args: dict[str, Any] = {}
        for key in ("cpu", "memory"):
            if key in table:
                args[key] = self.quantity((*path, key), table[key])
        if "pods" in table:
            pods = table["pods"]
            if not isinstance(pods, int) or isinstance(pods, bool):
                self.fail((*path, "pods"), f"expected an integer, got {_type(pods)}")
            args["pods"] = pods
        args["labels"] = self.labels((*path, "labels"), table.get("labels", {}))
        args["resources"] = self.resources((*path, "resources"), table.get("resources", {}))
        taints = table.get("taints", [])
        if not isinstance(taints, list):
            self.fail((*path, "taints"), "expected an array of KEY[=VALUE]:EFFECT strings")
            taints = []
        args["taints"] = [t for i, text in enumerate(taints)
                          if (t := self.taint((*path, "taints", i), text, effect_required=True)) is not None]
        unschedulable = table.get("unschedulable", False)
        if not isinstance(unschedulable, bool):
            self.fail((*path, "unschedulable"), f"expected a boolean, got {_type(unschedulable)}")
        args["unschedulable"] = unschedulable is True
        if name is None or len(self.pf.problems) > before:
            return None
        return node_manifest(name, **args)

    def pod(self, path: KeyPath, table: dict[str, Any]) -> dict[str, Any] | None:
        self.unknown_keys(path, table, _POD)
        before = len(self.pf.problems)
        name = self.string((*path, "name"), table.get("name"))
        args: dict[str, Any] = {}
        if "namespace" in table:
            args["namespace"] = self.string((*path, "namespace"), table["namespace"])
        for key in ("cpu", "memory"):
            if key in table:
                args[key] = self.quantity((*path, key), table[key])
        args["resources"] = self.resources((*path, "resources"), table.get("resources", {}))
        args["labels"] = self.labels((*path, "labels"), table.get("labels", {}))
        if "node-selector" in table:
            args["nodeSelector"] = self.labels((*path, "node-selector"), table["node-selector"])
        if "priority" in table:
            priority = table["priority"]
            if not isinstance(priority, int) or isinstance(priority, bool):
                self.fail((*path, "priority"), f"expected an integer, got {_type(priority)}")
            args["priority"] = priority
        tolerations = table.get("tolerations", [])
        if not isinstance(tolerations, list):
            self.fail((*path, "tolerations"), "expected an array of KEY[=VALUE][:EFFECT] strings")
            tolerations = []
        args["tolerations"] = [t for i, text in enumerate(tolerations)
                               if (t := self.taint((*path, "tolerations", i), text, False)) is not None]
        if name is None or len(self.pf.problems) > before:
            return None
        return pod_manifest(name, **args)

    def resources(self, path: KeyPath, value: Any) -> dict[str, str | int]:
        if not isinstance(value, dict):
            self.fail(path, "expected a table of quantities")
            return {}
        out = {}
        for key, item in value.items():
            quantity = self.quantity((*path, key), item)
            if quantity is not None:
                out[key] = quantity
        return out

    def taint(self, path: KeyPath, text: Any, effect_required: bool) -> dict[str, str] | None:
        """``KEY[=VALUE]:EFFECT`` as a taint, or ``KEY[=VALUE][:EFFECT]`` as a toleration (no
        value: operator Exists)."""
        shape = "KEY[=VALUE]:EFFECT" if effect_required else "KEY[=VALUE][:EFFECT]"
        if not isinstance(text, str):
            self.fail(path, f"expected a {shape} string, got {_type(text)}")
            return None
        body, colon, effect = text.rpartition(":") if ":" in text else (text, "", "")
        key, equals, value = body.partition("=")
        if not key or (effect_required and not colon) or (colon and effect not in _EFFECTS):
            self.fail(path, f"expected {shape} with EFFECT one of {', '.join(_EFFECTS)}")
            return None
        out = {"key": key}
        if effect_required:
            out["value"] = value
        else:
            out.update({"operator": "Equal", "value": value} if equals else {"operator": "Exists"})
        if effect:
            out["effect"] = effect
        return out

    def selector(self, path: KeyPath, value: Any) -> tuple[Any, str]:
        text = self.string(path, value)
        if text is None:
            return None, ""
        try:
            return parse(text), text
        except SelectorError as exc:
            where = locate(self.pf.positions, path, value=True)
            line, column = where if where is not None else (1, 1)
            if exc.column is not None:
                column += string_column(self.pf.text, line, column, text, exc.column) - 1
            self.pf.problems.append(Problem(f"invalid selector: {exc.reason}", file=str(self.pf.path),
                                            line=line, column=column, path=format_path(path),
                                            code="invalid-selector"))
            return None, text

    def expectation(self, index: int, table: dict[str, Any]) -> Expectation | None:
        path: KeyPath = ("expect", index)
        kinds = [k for k in KINDS if k in table]
        if len(kinds) != 1:
            what = "none" if not kinds else ", ".join(kinds)
            self.fail(path, f"an expectation has exactly one of: {', '.join(KINDS)} (found {what})",
                      "invalid-expectation")
            return None
        kind = kinds[0]
        self.unknown_keys(path, table, {kind, "name", *_EXPECT[kind]})
        for key in _REQUIRED[kind]:
            if key not in table:
                self.fail(path, f"{kind} needs {key!r}", "missing-key")
        before = len(self.pf.problems)
        line, column = locate(self.pf.positions, path, value=True) or (1, 1)
        fields: dict[str, Any] = {"kind": kind, "index": index,
                                  "where": Where(str(self.pf.path), line, column)}
        if "name" in table:
            fields["name"] = self.string((*path, "name"), table["name"])
        if "pod" in table:
            fields["pod"] = self.pod_key((*path, "pod"), table["pod"])
        value = table[kind]
        if kind == "lands-on":
            fields["selector"], fields["selector_text"] = self.selector((*path, kind), value)
        elif kind == "unschedulable":
            if value is not True:
                self.fail((*path, kind), "expected true (for a pod that must be placed, use lands-on)")
            if "reason" in table:
                fields["reason"] = self.string((*path, "reason"), table["reason"])
        elif kind == "at-most":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                self.fail((*path, kind), "expected a non-negative integer")
            else:
                fields["limit"] = value
            if "pods" in table:
                fields["selector"], fields["selector_text"] = self.selector((*path, "pods"), table["pods"])
            per_node = table.get("per-node", True)
            if not isinstance(per_node, bool):
                self.fail((*path, "per-node"), f"expected a boolean, got {_type(per_node)}")
            fields["per_node"] = per_node is not False
        elif kind == "spread":
            fields["resource"] = self.string((*path, kind), value) or ""
            if "max-stddev" not in table and "max-range" not in table:
                self.fail(path, "spread needs 'max-stddev' or 'max-range' (percentage points)", "missing-key")
            for key in ("max-stddev", "max-range"):
                if key not in table:
                    continue
                bound = table[key]
                if not isinstance(bound, (int, float)) or isinstance(bound, bool) or bound < 0:
                    self.fail((*path, key), "expected a non-negative number (percentage points)")
                else:
                    fields[key.replace("-", "_")] = float(bound)
        else:
            fields["profile"] = self.profile((*path, kind), value) or ""
            fields["profile_text"] = value
        if len(self.pf.problems) > before:
            return None
        return Expectation(**fields)

    def pod_key(self, path: KeyPath, value: Any) -> str | None:
        text = self.string(path, value)
        if text is None:
            return None
        namespace, slash, name = text.rpartition("/")
        if (slash and not namespace) or not name or "/" in namespace:
            self.fail(path, "expected NAMESPACE/NAME, or NAME (in namespace \"default\")")
            return None
        return text if slash else f"default/{text}"


def _type(value: Any) -> str:
    """The profile loader's word for a value's TOML type, an empty string named as such."""
    return "an empty string" if value == "" else type_name(value)
