"""The loader's built-in JSON Schema validator gives exactly jsonschema's errors, in the same order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import tomllib
from ruleset.profile.schema import SimpleValidator, profile_schema, profile_validator

SCHEMA = profile_schema(load_registry())
CORPUS = Path(__file__).resolve().parents[1] / "profile" / "corpus"


def errors(validator, document):
    return [(e.validator, e.validator_value, e.instance, tuple(e.absolute_path), e.message)
            for e in validator.iter_errors(document)]


def same(document):
    ours = errors(SimpleValidator(SCHEMA), document)
    theirs = errors(Draft202012Validator(SCHEMA), document)
    assert ours == theirs


def test_the_built_in_plugins_use_the_fast_validator():
    assert SimpleValidator.supports(SCHEMA)
    assert isinstance(profile_validator(load_registry()), SimpleValidator)


def test_unsupported_keywords_fall_back_to_jsonschema():
    assert not SimpleValidator.supports({"type": "object", "properties": {"a": {"pattern": "x"}}})
    assert not SimpleValidator.supports({"oneOf": [{"type": "string"}]})
    assert not SimpleValidator.supports({"$ref": "#/$defs/x"})
    assert not SimpleValidator.supports({"type": "decimal"})


def corpus_documents():
    for path in sorted(CORPUS.rglob("*.toml")):
        try:
            yield pytest.param(tomllib.loads(path.read_text(encoding="utf-8-sig")), id=path.name)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue


@pytest.mark.parametrize("document", list(corpus_documents()))
def test_same_errors_on_the_corpus(document):
    same(document)


NAMES = ["name", "description", "extends", "percentageOfNodesToScore", "plugins", "rules", "weight", "points",
         "args", "enabled", "presentLabels", "absentLabels", "shape", "utilization", "score", "resources",
         "require", "prefer", "pods", *sorted(SCHEMA["properties"]["plugins"]["properties"])[:8], "bogus"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.sampled_from([0.5, 1.0, -1.0, 2.0]),
                    st.sampled_from(["", "filter", "score", "bind", "x", "ssd", "zone"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(NAMES), inner, max_size=5)), max_leaves=25)
plugin_tables = st.dictionaries(st.sampled_from(["weight", "points", "args", "enabled", "wieght"]), values,
                                max_size=4)
documents = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.text(max_size=3), values),
    "percentageOfNodesToScore": st.one_of(st.integers(-10, 110), values),
    "plugins": st.dictionaries(st.sampled_from(NAMES[19:]), st.one_of(plugin_tables, values), max_size=4),
    "rules": st.lists(st.dictionaries(st.sampled_from(NAMES), values, max_size=5), max_size=3),
    "extends": values,
    "bogus": values,
})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_same_errors_on_random_documents(document):
    same(document)


@given(st.lists(st.one_of(st.booleans(), st.integers(-2, 2), st.floats(-2, 2, allow_nan=False),
                          st.sampled_from(["a", "b"])), max_size=5))
def test_same_type_enum_and_uniqueness_rules(items):
    schema = {"type": "array", "uniqueItems": True,
              "items": {"type": ["integer", "string"], "enum": [0, 1, "a", True], "minimum": 0}}
    assert errors(SimpleValidator(schema), items) == errors(Draft202012Validator(schema), items)


def test_messages_match_for_the_generic_branch():
    schema = {"anyOf": [{"type": "string"}, {"type": "integer", "exclusiveMaximum": 3}], "minLength": 2}
    for instance in (5, "a", 2, None, [1]):
        assert errors(SimpleValidator(schema), instance) == errors(Draft202012Validator(schema), instance)
