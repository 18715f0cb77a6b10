"""Ported from apimachinery ``pkg/util/validation/validation_test.go`` (TestIsQualifiedName,
TestIsValidLabelValue, TestIsDNS1123Subdomain), plus the exact messages Kubernetes prints."""

import pytest

from ruleset.gofmt import go_len, go_quote, parse_int64
from ruleset.selector.validation import (
    dns1123_subdomain_errors,
    label_value_errors,
    qualified_name_errors,
    regex_error,
)

NAME_REGEX_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_REGEX_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
    "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SUBDOMAIN_REGEX_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

# TestIsQualifiedName: successCases / errorCases
QUALIFIED_GOOD = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes",
    "now.with.dots/simple",
    "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num",
    "1234/5678",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a" * 63,
    "a" * 253 + "/" + "b" * 63,
]
QUALIFIED_BAD = [
    "nospecialchars%^=@",
    "cantendwithadash-",
    "-cantstartwithadash-",
    "only/one/slash",
    "Example.com/abc",
    "example_com/abc",
    "example.com/",
    "/simple",
    "a" * 64,
    "a" * 254 + "/abc",
]

# TestIsValidLabelValue
LABEL_VALUE_GOOD = ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", "a" * 63, ""]
LABEL_VALUE_BAD = [
    "nospecialchars%^=@",
    "Tama-nui-te-rā.is.Māori.sun",
    "\\backslashes\\are\\bad",
    "-starts-with-dash",
    "ends-with-dash-",
    ".starts.with.dot",
    "ends.with.dot.",
    "a" * 64,
]

# TestIsDNS1123Subdomain
SUBDOMAIN_GOOD = [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b",
    "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a",
    "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1",
    "0.a", "01.a", "012.a", "1a.a", "1-a.a", "1--a--b--2",
    "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1",
    "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55",
    "a" * 253,
]  # fmt: skip
SUBDOMAIN_BAD = [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A",
    "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
    ".", "a.", ".a", "a..b", "1.", ".1", "1..2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2",
    "A.a", "aB.a", "ab.A", "A1.a", "a1.A",
    "A.1", "aB.1", "A1.1", "1A.1",
    "0.A", "01.A", "012.A", "1A.a", "1a.A",
    "A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee",
    "a@b", "a,b", "a_b", "a;b",
    "a:b", "a%b", "a?b", "a$b",
    "a" * 254,
]  # fmt: skip


@pytest.mark.parametrize("name", QUALIFIED_GOOD)
def test_qualified_name_success(name):
    assert qualified_name_errors(name) == []


@pytest.mark.parametrize("name", QUALIFIED_BAD)
def test_qualified_name_error(name):
    assert qualified_name_errors(name) != []


@pytest.mark.parametrize("value", LABEL_VALUE_GOOD)
def test_label_value_success(value):
    assert label_value_errors(value) == []


@pytest.mark.parametrize("value", LABEL_VALUE_BAD)
def test_label_value_error(value):
    assert label_value_errors(value) != []


@pytest.mark.parametrize("value", SUBDOMAIN_GOOD)
def test_dns1123_subdomain_success(value):
    assert dns1123_subdomain_errors(value) == []


@pytest.mark.parametrize("value", SUBDOMAIN_BAD)
def test_dns1123_subdomain_error(value):
    assert dns1123_subdomain_errors(value) != []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # nodeaffinity_test.go TestNodeSelectorMatch pins this exact detail for "invalid key".
        ("invalid key", [NAME_REGEX_MSG]),
        ("cantendwithadash-", [NAME_REGEX_MSG]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
        ("a" * 64 + "-", ["name part must be no more than 63 characters", NAME_REGEX_MSG]),
        ("", ["name part must be non-empty", NAME_REGEX_MSG]),
        ("example.com/", ["name part must be non-empty", NAME_REGEX_MSG]),
        ("/simple", ["prefix part must be non-empty"]),
        ("Example.com/abc", ["prefix part " + SUBDOMAIN_REGEX_MSG]),
        ("a" * 254 + "/abc", ["prefix part must be no more than 253 characters"]),
        (
            "A" * 254 + "/-",
            [
                "prefix part must be no more than 253 characters",
                "prefix part " + SUBDOMAIN_REGEX_MSG,
                NAME_REGEX_MSG,
            ],
        ),
        (
            "only/one/slash",
            [
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
                "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
                "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ],
        ),
        # Go's $ does not match before a trailing newline.
        ("abc\n", [NAME_REGEX_MSG]),
        # 32 two-byte characters are 64 bytes for Go's len().
        ("é" * 32, ["name part must be no more than 63 characters", NAME_REGEX_MSG]),
    ],
)
def test_qualified_name_messages(name, expected):
    assert qualified_name_errors(name) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a" * 64, ["must be no more than 63 characters"]),
        ("-a", [VALUE_REGEX_MSG]),
        ("-" * 64, ["must be no more than 63 characters", VALUE_REGEX_MSG]),
        ("ā" * 32, ["must be no more than 63 characters", VALUE_REGEX_MSG]),
        ("ā" * 31, [VALUE_REGEX_MSG]),
        ("abc\n", [VALUE_REGEX_MSG]),
    ],
)
def test_label_value_messages(value, expected):
    assert label_value_errors(value) == expected


def test_dns1123_subdomain_messages():
    assert dns1123_subdomain_errors("a" * 254) == ["must be no more than 253 characters"]
    assert dns1123_subdomain_errors("A") == [SUBDOMAIN_REGEX_MSG]


def test_regex_error_formats_like_go():
    assert regex_error("bad", "x+") == "bad (regex used for validation is 'x+')"
    assert regex_error("bad", "x+", "x") == "bad (e.g. 'x', regex used for validation is 'x+')"
    assert (
        regex_error("bad", "x+", "x", "xx") == "bad (e.g. 'x',  or 'xx', regex used for validation is 'x+')"
    )


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("abc", '"abc"'),
        ("", '""'),
        ('a"b', '"a\\"b"'),
        ("a\\b", '"a\\\\b"'),
        ("tab\there", '"tab\\there"'),
        ("nl\n", '"nl\\n"'),
        ("\x00\x1b\x7f", '"\\x00\\x1b\\x7f"'),
        ("\u00a0", '"\\u00a0"'),
        ("Māori", '"Māori"'),
        ("\U000e0001", '"\\U000e0001"'),
        ("\ud800", '"\\xed\\xa0\\x80"'),
    ],
)
def test_go_quote(text, quoted):
    assert go_quote(text) == quoted


def test_go_len_counts_utf8_bytes():
    assert (go_len("abc"), go_len("é"), go_len("€"), go_len("\U0001f600")) == (3, 2, 3, 4)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("-12", -12),
        ("+7", 7),
        ("0204", 204),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("9223372036854775808", None),
        ("", None),
        ("-", None),
        ("1.5", None),
        (" 1", None),
        ("1_000", None),
        ("٣", None),  # a Unicode digit is not an ASCII digit
    ],
)
def test_parse_int64_is_go_parseint(text, value):
    assert parse_int64(text) == value
