"""The extension-point table (``ruleset.framework.points``) against the hook specifications.

Not ported: the table is ruleset's form of kube-scheduler's ``getExtensionPoints``
(``framework/runtime/framework.go``), which upstream keeps consistent by compilation; here a
test does it.
"""

from __future__ import annotations

import subprocess
import sys

from ruleset import hookspecs
from ruleset.framework.points import EXTENSION_POINTS, HOOKS, IMPL_MARKER, POINT_KEYS, POINTS


def _spec_names(specs: type) -> list[str]:
    return [name for name in vars(specs) if name.startswith(f"{hookspecs.PROJECT}_")]


def test_the_hooks_named_in_the_table_are_exactly_the_extension_point_specs_in_cycle_order():
    assert list(HOOKS) == _spec_names(hookspecs.ExtensionPointSpecs)


def test_each_hook_belongs_to_one_point():
    assert len(HOOKS) == len(set(HOOKS))


def test_the_points_and_titles_are_kubernetes_names():
    assert POINT_KEYS == ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
                          "reserve", "permit", "preBind", "bind", "postBind")
    assert [p.title for p in EXTENSION_POINTS] == ["PreEnqueue", "QueueSort", "PreFilter", "Filter", "PostFilter",
                                                   "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind",
                                                   "PostBind"]


def test_only_filter_and_score_bring_points_along():
    assert {p.key: p.implied for p in EXTENSION_POINTS if p.implied} == {"filter": ("preFilter",),
                                                                        "score": ("preScore",)}
    assert all(implied in POINTS for p in EXTENSION_POINTS for implied in p.implied)


def test_the_implementation_marker_is_pluggys():
    assert f"{hookspecs.PROJECT}_impl" == IMPL_MARKER

    @hookspecs.hookimpl
    def ruleset_filter() -> None: ...

    assert hasattr(ruleset_filter, IMPL_MARKER)


def test_the_vocabulary_imports_neither_numpy_nor_pluggy():
    code = ("import sys, ruleset.framework.points; "
            "print(sorted(m for m in ('numpy', 'pluggy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
