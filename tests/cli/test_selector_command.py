"""``ruleset selector EXPR [--labels k=v,...] [--output text|json]``."""

import json

import pytest

from ruleset.cli import main
from ruleset.cli.selector import parse_labels
from ruleset.errors import RulesetError


def run(capsys, *argv):
    code = main(["selector", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_prints_canonical_form(capsys):
    assert run(capsys, "tier in (web,db), !canary || zone=a") == (
        0,
        "!canary,tier in (db,web) || zone=a\n",
        "",
    )


def test_text_empty_selector(capsys):
    assert run(capsys, "") == (0, "(empty selector: matches everything)\n", "")


def test_text_matching_labels(capsys):
    assert run(capsys, "tier in (web,db)", "--labels", "tier=db,zone=a") == (
        0,
        "tier in (db,web)\nmatches\n",
        "",
    )


def test_text_labels_that_do_not_match(capsys):
    assert run(capsys, "tier in (web,db)", "--labels", "tier=cache") == (
        1,
        "tier in (db,web)\ndoes not match\n",
        "",
    )


def test_text_empty_label_set(capsys):
    assert run(capsys, "!canary", "--labels", "") == (0, "!canary\nmatches\n", "")


def test_text_invalid_selector(capsys):
    code, out, err = run(capsys, "x in (a b)", "--labels", "x=a")
    assert (code, err) == (1, "")
    assert out == (
        "invalid selector at column 9: unable to parse requirement: found 'b', expected: ',' or ')'\n"
        "  x in (a b)\n"
        "          ^\n"
    )


def test_json_valid(capsys):
    code, out, err = run(capsys, "b>1,a || !c", "--labels", "a=x,b=2", "--output", "json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "schemaVersion": 1,
        "selector": "b>1,a || !c",
        "canonical": "a,b>1 || !c",
        "valid": True,
        "matches": True,
        "groups": [
            [
                {"key": "a", "operator": "exists", "values": []},
                {"key": "b", "operator": "gt", "values": ["1"]},
            ],
            [{"key": "c", "operator": "!", "values": []}],
        ],
    }


def test_json_without_labels_has_null_matches(capsys):
    code, out, _ = run(capsys, "x notin (b,a,a)", "--output", "json")
    document = json.loads(out)
    assert (code, document["matches"], document["canonical"]) == (0, None, "x notin (a,b)")
    assert document["groups"] == [[{"key": "x", "operator": "notin", "values": ["a", "b"]}]]


def test_json_not_matching(capsys):
    code, out, _ = run(capsys, "a=b", "--labels", "a=c", "--output", "json")
    assert (code, json.loads(out)["matches"]) == (1, False)


def test_json_invalid(capsys):
    code, out, err = run(capsys, "--output", "json", "--", "-bad")
    assert (code, err) == (1, "")
    document = json.loads(out)
    assert document == {
        "schemaVersion": 1,
        "selector": "-bad",
        "valid": False,
        "error": {"message": document["error"]["message"], "column": 1},
    }
    assert document["error"]["message"].startswith('unable to parse requirement: invalid label key "-bad": ')


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ("a", "error: <input>: --labels: expected key=value, got 'a'\n"),
        ("a=1,=2", "error: <input>: --labels: expected key=value, got '=2'\n"),
        ("a=1,a=2", "error: <input>: --labels: key 'a' given twice\n"),
    ],
)
def test_malformed_labels_exit_2(capsys, labels, message):
    assert run(capsys, "a", "--labels", labels) == (2, "", message)


def test_parse_labels():
    assert parse_labels("a=1, b = 2 ,c=,d=x=y") == {"a": "1", "b ": " 2", "c": "", "d": "x=y"}
    assert parse_labels("  ") == {}
    with pytest.raises(RulesetError):
        parse_labels("a=1,,b=2")


def test_bad_output_choice_is_a_usage_error(capsys):
    code, _, err = run(capsys, "a", "--output", "yaml")
    assert code == 2
    assert "invalid choice: 'yaml'" in err
