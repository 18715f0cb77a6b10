"""Loading profiles: extends, merging, and every problem located at file:line:col."""

import textwrap

import pytest

from ruleset.errors import RulesetError
from ruleset.profile.loader import check_profile, load_profile


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def problems_of(path):
    _, problems = check_profile(path)
    return [(p.line, p.column, p.code, p.path, p.message) for p in problems]


def test_plugins_keep_file_order_weights_points_and_args(tmp_path):
    path = write(tmp_path, "web.toml", """\
        name = "web"
        percentageOfNodesToScore = 100
        [plugins.NodeLabel]
        weight = 2
        points = ["filter", "score"]
        args = { presentLabels = ["zone"], presentLabelsPreference = ["ssd"] }
        [plugins.NodeResourcesFit]
        """)
    profile = load_profile(path)
    assert profile.name == "web"
    assert profile.percentage_of_nodes_to_score == 100
    assert [(c.name, c.weight, c.points) for c in profile.plugins] == [
        ("NodeLabel", 2, ("filter", "score")), ("NodeResourcesFit", 1, None)]
    assert profile.plugins[0].args == {"presentLabels": ["zone"], "presentLabelsPreference": ["ssd"]}
    assert (profile.plugins[0].origin.line, profile.plugins[0].origin.column) == (3, 10)


def test_extends_a_bundled_profile_overrides_in_place_disables_and_appends(tmp_path):
    path = write(tmp_path, "child.toml", """\
        name = "child"
        extends = "default-1.20"
        [plugins.NodeResourcesLeastAllocated]
        enabled = false
        [plugins.NodeResourcesBalancedAllocation]
        weight = 3
        [plugins.NodeLabel]
        args = { presentLabelsPreference = ["ssd"] }
        """)
    profile = load_profile(path)
    names = [c.name for c in profile.plugins]
    assert "NodeResourcesLeastAllocated" not in names
    assert names[-1] == "NodeLabel"
    assert profile.plugin("NodeResourcesBalancedAllocation").weight == 3
    assert names.index("NodeResourcesBalancedAllocation") < names.index("NodeLabel")
    assert profile.disabled == {"NodeResourcesLeastAllocated"}
    assert profile.files[0] == str(path)
    assert profile.files[1].endswith("default-1.20.toml")


def test_extends_a_relative_path_and_args_replace_inherited_args(tmp_path):
    write(tmp_path, "base.toml", """\
        name = "base"
        [plugins.NodeLabel]
        args = { presentLabels = ["a"], absentLabels = ["b"] }
        """)
    path = write(tmp_path, "child.toml", """\
        name = "child"
        extends = "base.toml"
        [plugins.NodeLabel]
        args = { presentLabels = ["c"] }
        """)
    assert load_profile(path).plugin("NodeLabel").args == {"presentLabels": ["c"]}


def test_extends_cycle(tmp_path):
    write(tmp_path, "a.toml", 'name = "a"\nextends = "b.toml"\n')
    b = write(tmp_path, "b.toml", 'name = "b"\nextends = "a.toml"\n')
    [(line, column, code, path, message)] = problems_of(b)
    assert (line, column, code, path) == (2, 11, "extends-cycle", "extends")
    assert message.startswith("extends cycle: ") and message.endswith("b.toml")


def test_extends_not_found(tmp_path):
    path = write(tmp_path, "a.toml", 'name = "a"\nextends = "nope"\n')
    assert problems_of(path) == [(2, 11, "extends-not-found", "extends",
                                  "cannot find profile 'nope' to extend (neither a bundled profile nor a file next "
                                  "to this one)")]


def test_unknown_plugin_with_suggestion(tmp_path):
    path = write(tmp_path, "a.toml", 'name = "a"\n\n[plugins.NodeLabl]\nweight = 2\n')
    assert problems_of(path) == [(3, 10, "unknown-plugin", "plugins.NodeLabl",
                                  "unknown plugin 'NodeLabl'; did you mean 'NodeLabel'?")]


def test_unknown_arg_wrong_type_and_out_of_range(tmp_path):
    path = write(tmp_path, "a.toml", """\
        name = "a"
        percentageOfNodesToScore = 101
        [plugins.NodeLabel]
        weight = "2"
        args = { presentLabel = ["x"] }
        [plugins.NodeName]
        args = { foo = 1 }
        """)
    assert problems_of(path) == [
        (2, 28, "out-of-range", "percentageOfNodesToScore", "101 is out of range: must be <= 100"),
        (4, 10, "invalid-type", "plugins.NodeLabel.weight", "expected an integer, got a string ('2')"),
        (5, 10, "unknown-arg", "plugins.NodeLabel.args.presentLabel",
         "unknown arg 'presentLabel' for plugin NodeLabel; did you mean 'presentLabels'?"),
        (7, 10, "unknown-arg", "plugins.NodeName.args.foo", "unknown arg 'foo' for plugin NodeName (plugin NodeName "
                                                             "takes no args)"),
    ]


def test_unknown_top_level_key_and_missing_name(tmp_path):
    path = write(tmp_path, "a.toml", 'nmae = "a"\n')
    assert problems_of(path) == [
        (1, 1, "unknown-key", "nmae", "unknown key 'nmae'; did you mean 'name'?"),
        (1, 1, "missing-key", None, "missing required key 'name'"),
    ]


def test_plugin_args_semantic_error_points_at_the_args(tmp_path):
    path = write(tmp_path, "a.toml", """\
        name = "a"
        [plugins.NodeLabel]
        args = { presentLabels = ["foo"], absentLabels = ["foo"] }
        """)
    assert problems_of(path) == [
        (3, 51, "invalid-args", "plugins.NodeLabel.args.absentLabels[0]",
         'detecting at least one label (e.g., "foo") that exist in both the present([foo]) and absent([foo]) '
         "label list"),
    ]


def test_toml_syntax_error(tmp_path):
    path = write(tmp_path, "a.toml", 'name = "a"\n[plugins.NodeLabel\n')
    [(line, column, code, _, message)] = problems_of(path)
    assert (line, column, code) == (2, 19, "toml-syntax")
    assert message.startswith("invalid TOML: ")


def test_load_profile_raises_every_error(tmp_path):
    path = write(tmp_path, "a.toml", '[plugins.X]\n[plugins.Y]\n')
    with pytest.raises(RulesetError) as info:
        load_profile(path)
    assert [p.code for p in info.value.problems] == ["missing-key", "unknown-plugin", "unknown-plugin"]


def test_bundled_profile_by_name():
    assert load_profile("default").name == "default"
