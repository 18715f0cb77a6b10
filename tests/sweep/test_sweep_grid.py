"""The grid of ``ruleset sweep``: from flags, and from a TOML sweep file with every problem at its
line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleset.errors import RulesetError
from ruleset.sweep.grid import AS_IS, Grid, Scenario, grid_from_flags, load_sweep_file

FLAG_CASES = [
    ("nothing: default profile, demo, as-is",
     dict(profiles=None, clusters=None, pods=None, scales=None, versions=None),
     Grid(("default",), (), (Scenario(AS_IS),), (None,), 0)),
    ("pods and scale files are scenarios",
     dict(profiles=["a", "b"], clusters=["c1", "c2"], pods=["x/p.yaml"], scales=["deployment/ns/w=3,sts/ns/s=2"],
          versions=["1.20", "1.35"]),
     Grid(("a", "b"), ("c1", "c2"), (Scenario("p.yaml", pods=("x/p.yaml",)),
                                     Scenario("deployment/ns/w=3,sts/ns/s=2",
                                              scale=("deployment/ns/w=3", "sts/ns/s=2"))),
          ("1.20", "1.35"), 0)),
]


@pytest.mark.parametrize(("kwargs", "expected"), [c[1:] for c in FLAG_CASES], ids=[c[0] for c in FLAG_CASES])
def test_grid_from_flags(kwargs, expected):
    assert grid_from_flags(**kwargs) == expected


def test_grid_size():
    grid = grid_from_flags(["a", "b", "c"], ["s1", "s2"], ["p1", "p2"], None, None)
    assert grid.size == 12


FLAG_ERRORS = [
    ("bad scale", dict(scales=["web=3"]),
     ["--scale web=3: expected KIND/NAMESPACE/NAME=N (comma-separated to scale several together), got 'web=3'"]),
    ("bad version", dict(versions=["1.99"]),
     ["--kubernetes-version 1.99: Kubernetes 1.99 is not supported: ruleset models 1.20 to 1.35"]),
    ("twice", dict(profiles=["a", "a"], clusters=["c", "c"]),
     ["--profile a: profile 'a' is given twice", "--cluster c: snapshot 'c' is given twice"]),
]


@pytest.mark.parametrize(("kwargs", "expected"), [c[1:] for c in FLAG_ERRORS], ids=[c[0] for c in FLAG_ERRORS])
def test_flag_errors(kwargs, expected):
    arguments = dict(profiles=None, clusters=None, pods=None, scales=None, versions=None) | kwargs
    with pytest.raises(RulesetError) as caught:
        grid_from_flags(**arguments)
    assert [str(p) for p in caught.value.problems] == expected


def test_sweep_file(tmp_path: Path):
    (tmp_path / "snap").mkdir()
    (tmp_path / "extra.yaml").write_text("")
    (tmp_path / "mine.toml").write_text("")
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('profiles = ["default", "mine.toml"]\nclusters = ["snap"]\nkubernetesVersions = ["1.20"]\n'
                     'seed = 7\n\n[[scenarios]]\nname = "as-is"\n\n[[scenarios]]\nname = "more"\n'
                     'pods = ["extra.yaml"]\nscale = ["deployment/shop/web=30"]\n')
    assert load_sweep_file(sweep) == Grid(
        profiles=("default", str(tmp_path / "mine.toml")), clusters=(str(tmp_path / "snap"),),
        scenarios=(Scenario("as-is"), Scenario("more", pods=(str(tmp_path / "extra.yaml"),),
                                               scale=("deployment/shop/web=30",))),
        versions=("1.20",), seed=7)


def test_sweep_file_defaults(tmp_path: Path):
    sweep = tmp_path / "s.toml"
    sweep.write_text('profiles = ["default"]\n')
    assert load_sweep_file(sweep) == Grid(("default",), (), (Scenario(AS_IS),), (None,), 0)


BAD_FILE = """\
profiles = ["default", 3]
clusters = ["missing.yaml"]
kubernetesVersions = ["1.99"]
seed = -1
colour = "red"

[[scenarios]]
name = "x"
scale = ["bad"]
extra = 1

[[scenarios]]
name = "x"
pods = ["nope.yaml"]

[[scenarios]]
pods = []
"""

FILE_ERRORS = [
    ("every problem located", BAD_FILE, [
        "{f}:5:1: colour: unknown key 'colour'; expected one of profiles, clusters, kubernetesVersions, seed, "
        "scenarios",
        "{f}:1:24: profiles.1: expected a non-empty string, got an integer",
        "{f}:2:13: clusters.0: no such file or folder: missing.yaml",
        "{f}:3:23: kubernetesVersions.0: Kubernetes 1.99 is not supported: ruleset models 1.20 to 1.35",
        "{f}:4:8: seed: expected an integer ≥ 0, got -1",
        "{f}:10:1: scenarios.0.extra: unknown key 'extra'; expected one of name, pods, scale",
        "{f}:9:10: scenarios.0.scale.0: expected KIND/NAMESPACE/NAME=N (e.g. deployment/default/web=40)",
        "{f}:13:8: scenarios.1.name: scenario 'x' is defined twice",
        "{f}:14:9: scenarios.1.pods.0: no such file or folder: nope.yaml",
        "{f}:16:3: scenarios.2: missing key 'name' (the scenario's name)",
    ]),
    ("syntax", "profiles = [\n", ["{f}:1:13: invalid TOML: Invalid value"]),
    ("no profiles", "seed = 1\n", ["{f}:1:1: profiles: missing key 'profiles' (a list of strings)"]),
    ("empty profiles", "profiles = []\n", ["{f}:1:12: profiles: expected a non-empty list of strings, got an array"]),
    ("scenarios not tables", 'profiles = ["default"]\nscenarios = 3\n',
     ["{f}:2:13: scenarios: expected one or more [[scenarios]] tables"]),
    ("profile twice", 'profiles = ["default", "default"]\n', ["{f}:1:24: profiles.1: profile 'default' is listed twice"]),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in FILE_ERRORS], ids=[c[0] for c in FILE_ERRORS])
def test_sweep_file_errors(tmp_path: Path, text: str, expected: list[str]):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(text)
    with pytest.raises(RulesetError) as caught:
        load_sweep_file(sweep)
    assert [str(p) for p in caught.value.problems] == [
        e.format(f=sweep) for e in expected]
