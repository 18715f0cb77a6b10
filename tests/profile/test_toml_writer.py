"""The TOML writer: what it writes parses back with tomllib to the same data, laid out like a profile."""

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleset.profile.toml_writer import dumps, format_key, format_string

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROFILE = {
    "name": "web",
    "description": 'a "quoted" \\ description\nover two lines\t',
    "percentageOfNodesToScore": 50,
    "plugins": {
        "PrioritySort": {},
        "NodeLabel": {"weight": 2, "points": ["filter", "score"], "args": {"presentLabels": ["zone"]}},
        "PodTopologySpread": {
            "weight": 2,
            "args": {
                "defaultConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "ScheduleAnyway",
                    },
                    {
                        "maxSkew": 3,
                        "topologyKey": "kubernetes.io/hostname",
                        "whenUnsatisfiable": "ScheduleAnyway",
                    },
                ],
                "defaultingType": "List",
            },
        },
        "NodeResourcesLeastAllocated": {"enabled": False},
    },
    "rules": [
        {"name": "gpu", "pods": "app=ml", "require": "gpu=true"},
        {"name": "ssd", "prefer": "disk=ssd"},
    ],
}


def test_profile_round_trips_and_reads_like_a_hand_written_one():
    text = dumps(PROFILE, header=["made by a test"])
    assert tomllib.loads(text) == PROFILE
    assert text.startswith('# made by a test\n\nname = "web"\n')
    assert "\n[plugins.PrioritySort]\n\n[plugins.NodeLabel]\nweight = 2\n" in text
    assert 'args = { presentLabels = ["zone"] }' in text  # short args stay inline
    assert (
        "\n[plugins.PodTopologySpread.args]\ndefaultConstraints = [\n  { maxSkew = 1," in text
    )  # long ones don't
    assert "[plugins]" not in text  # a table of tables needs no header of its own
    assert text.count("[[rules]]") == 2


def test_plugin_order_survives():
    names = [f"P{i}" for i in range(30)][::-1]
    data = {"name": "x", "plugins": {n: {} for n in names}}
    assert list(tomllib.loads(dumps(data))["plugins"]) == names


@pytest.mark.parametrize(
    ("key", "written"),
    [("weight", "weight"), ("a.b", '"a.b"'), ("", '""'), ("ü", '"ü"'), ("zone\n", '"zone\\n"')],
)
def test_keys(key, written):
    assert format_key(key) == written


def test_strings_escape_control_characters():
    assert format_string("a\x01\x7fb") == '"a\\u0001\\u007Fb"'


def test_none_and_non_string_keys_are_errors():
    with pytest.raises(TypeError, match="no null"):
        dumps({"a": None})
    with pytest.raises(TypeError, match="keys are strings"):
        dumps({1: "a"})


def test_floats():
    data = {"a": 1.0, "b": 2 / 3, "c": float("inf"), "d": -1e-20, "e": 1e300}
    assert tomllib.loads(dumps(data)) == data


_scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
)
_keys = st.text(max_size=8)
_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, _values, max_size=6))
def test_any_data_round_trips(data):
    assert tomllib.loads(dumps(data)) == data


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_keys, st.dictionaries(_keys, _values, max_size=4), max_size=5), st.integers(20, 140))
def test_any_width_round_trips(data, width):
    assert tomllib.loads(dumps({"plugins": data}, width=width)) == {"plugins": data}
