"""The kit's pytest plugin: the ``ruleset_kit`` fixture works in a plugin author's test file,
with the plugin loaded as the ``pytest11`` entry point loads it; the entry point is declared."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

AUTHOR_TESTS = '''
import numpy as np
import ruleset
from ruleset import hookimpl


class PreferSpotNodes(ruleset.Plugin):
    """Score 100 on spot nodes, 0 elsewhere."""

    name = "PreferSpotNodes"

    @hookimpl
    def ruleset_score(self, pod, nodes):
        return np.where(nodes.has_label("node.kubernetes.io/lifecycle"), 100, 0)


def test_scores(ruleset_kit):
    nodes = [ruleset_kit.node("spot", labels={"node.kubernetes.io/lifecycle": "spot"}), ruleset_kit.node("on-demand")]
    run = ruleset_kit.run_plugin(PreferSpotNodes, ruleset_kit.pod("p"), nodes)
    assert run.scores == {"spot": 100, "on-demand": 0}


def test_conforms(ruleset_kit):
    ruleset_kit.check_plugin(PreferSpotNodes)


def test_kit_is_the_module(ruleset_kit):
    import ruleset.testing
    assert ruleset_kit is ruleset.testing
'''


# The plugin module, loaded as the entry point would load it whether or not the entry point is
# installed here (an editable install may predate it; loaded twice, pytest would refuse it).
AS_THE_ENTRY_POINT = ("-p", "no:ruleset", "-p", "ruleset.testing.pytest_plugin")


def test_the_fixture_serves_a_plugin_authors_tests(pytester):
    pytester.makepyfile(test_spot=AUTHOR_TESTS)
    result = pytester.runpytest_subprocess(*AS_THE_ENTRY_POINT, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_without_the_plugin_the_fixture_is_unknown(pytester):
    pytester.makepyfile(test_spot=AUTHOR_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:ruleset", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=0, errors=3)
    result.stdout.fnmatch_lines(["*fixture 'ruleset_kit' not found*"])


def test_loading_the_plugin_imports_nothing_of_ruleset(pytester):
    pytester.makepyfile(test_imports='''
import sys

def test_nothing_imported():
    assert sorted(m for m in sys.modules if m.startswith("ruleset")) == [
        "ruleset", "ruleset.lazy", "ruleset.testing", "ruleset.testing.pytest_plugin"]
''')
    # The plugin loads in every pytest run beside ruleset: its package parents only, each lazy.
    result = pytester.runpytest_subprocess(*AS_THE_ENTRY_POINT, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_the_entry_point_is_declared():
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"ruleset": "ruleset.testing.pytest_plugin"}
