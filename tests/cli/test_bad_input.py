"""Every kind of bad input exits 2 with one located line per problem and no traceback."""

import pytest

from ruleset.cli import main

GOOD_PROFILE = 'name = "p"\n[plugins.NodeResourcesFit]\n'
GOOD_CLUSTER = "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', pods: '10'}}\n"
GOOD_POD = "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"

CASES = [
    # (id, profile, cluster, pod, expected stderr lines, with {dir} for the folder)
    ("malformed-toml", 'name = "p"\n[plugins.NodeLabel\n', GOOD_CLUSTER, GOOD_POD,
     ["error: {dir}/p.toml:2:19: invalid TOML: Expected ']' at the end of a table declaration"]),
    # libyaml's wording (PyYAML's wheels ship it); the pure-Python reader words it differently.
    ("malformed-yaml", GOOD_PROFILE, "kind: Node\nmetadata: {name: n1\n", GOOD_POD,
     ["error: {dir}/c.yaml:3:1: invalid YAML: while parsing a flow mapping, did not find expected ',' or '}'"]),
    ("unknown-plugin", 'name = "p"\n[plugins.NodeLabl]\n', GOOD_CLUSTER, GOOD_POD,
     ["error: {dir}/p.toml:2:10: plugins.NodeLabl: unknown plugin 'NodeLabl'; did you mean 'NodeLabel'?"]),
    ("unknown-arg", 'name = "p"\n[plugins.NodeLabel]\nargs = { presentLabel = ["a"] }\n', GOOD_CLUSTER, GOOD_POD,
     ["error: {dir}/p.toml:3:10: plugins.NodeLabel.args.presentLabel: unknown arg 'presentLabel' for plugin "
      "NodeLabel; did you mean 'presentLabels'?"]),
    ("wrong-type", 'name = "p"\n[plugins.NodeLabel]\nweight = "2"\n', GOOD_CLUSTER, GOOD_POD,
     ["error: {dir}/p.toml:3:10: plugins.NodeLabel.weight: expected an integer, got a string ('2')"]),
    ("extends-cycle", 'name = "p"\nextends = "p.toml"\n', GOOD_CLUSTER, GOOD_POD,
     ["error: {dir}/p.toml:2:11: extends: extends cycle: {dir}/p.toml -> {dir}/p.toml"]),
    ("bad-quantity", GOOD_PROFILE, "kind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: 2 cores}\n",
     GOOD_POD,
     ["error: {dir}/c.yaml:4: Node n1: status.allocatable.cpu: '2 cores': quantities must match the regular "
      "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("pod-missing-name", GOOD_PROFILE, GOOD_CLUSTER, "kind: Pod\nmetadata: {namespace: x}\nspec: {}\n",
     ["error: {dir}/pod.yaml:2: Pod: metadata.name: Required value"]),
    ("several-problems-one-line-each", 'name = "p"\n[plugins.A]\n[plugins.B]\n', GOOD_CLUSTER, GOOD_POD,
     ["error: {dir}/p.toml:2:10: plugins.A: unknown plugin 'A'",
      "error: {dir}/p.toml:3:10: plugins.B: unknown plugin 'B'"]),
]


@pytest.mark.parametrize(("profile", "cluster", "pod", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_exits_2_with_located_errors(tmp_path, capsys, profile, cluster, pod, expected):
    (tmp_path / "p.toml").write_text(profile)
    (tmp_path / "c.yaml").write_text(cluster)
    (tmp_path / "pod.yaml").write_text(pod)
    code = main(["score", "--profile", str(tmp_path / "p.toml"), "--cluster", str(tmp_path / "c.yaml"),
                 "--pod", str(tmp_path / "pod.yaml")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines() == [line.replace("{dir}", str(tmp_path)) for line in expected]
