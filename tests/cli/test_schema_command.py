"""``ruleset schema``: the profile JSON Schema, with every installed plugin's args schema."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from ruleset.cli import main
from ruleset.pluginmanager import load_registry


def test_prints_a_valid_draft_2020_12_schema_with_every_plugin(capsys):
    assert main(["schema"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    schema = json.loads(out)
    assert schema.pop("schemaVersion") == 1
    Draft202012Validator.check_schema(schema)
    plugins = schema["properties"]["plugins"]["properties"]
    registry = load_registry()
    assert set(registry.names()) | set(registry.aliases) == set(plugins)
    assert plugins["NodeLabel"]["properties"]["args"] == registry.args_schema("NodeLabel")
    assert "Deprecated alias of SelectorSpread" in plugins["ServiceSpreading"]["description"]


def test_the_schema_accepts_a_profile_and_rejects_a_typo(capsys):
    main(["schema"])
    validator = Draft202012Validator(json.loads(capsys.readouterr()[0]))
    good = {"name": "web", "plugins": {"NodeLabel": {"weight": 2, "args": {"presentLabels": ["zone"]}}}}
    assert list(validator.iter_errors(good)) == []
    bad = {"name": "web", "plugins": {"NodeLabel": {"args": {"presentLabel": ["zone"]}}}}
    assert [e.validator for e in validator.iter_errors(bad)] == ["additionalProperties"]
