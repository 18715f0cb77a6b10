"""Kubernetes name and label-value rules with their exact messages.

A port of ``k8s.io/apimachinery/pkg/util/validation`` (v1.20): ``IsQualifiedName``,
``IsValidLabelValue`` and ``IsDNS1123Subdomain``. Each returns the list of problems,
empty when the value is valid, in the order and wording Kubernetes uses. Lengths are
counted in UTF-8 bytes, as Go does.
"""

from __future__ import annotations

import re

from ruleset.gofmt import go_len

_QNAME_CHAR_FMT = "[A-Za-z0-9]"
_QNAME_EXT_CHAR_FMT = "[-A-Za-z0-9_.]"
#: The regex of a qualified name's name part (and, made optional, of a label value).
QUALIFIED_NAME_FMT = "(" + _QNAME_CHAR_FMT + _QNAME_EXT_CHAR_FMT + "*)?" + _QNAME_CHAR_FMT
QUALIFIED_NAME_MAX_LENGTH = 63
_QUALIFIED_NAME_ERR_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_MAX_LENGTH = 63
_LABEL_VALUE_ERR_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1123_SUBDOMAIN_ERR_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)

# Go anchors with ^...$, which (unlike Python's $) never matches before a trailing newline.
_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)


def max_len_error(length: int) -> str:
    """``validation.MaxLenError``."""
    return f"must be no more than {length} characters"


def empty_error() -> str:
    """``validation.EmptyError``."""
    return "must be non-empty"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``validation.RegexError``: note the two spaces before each ``or`` it produces."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    msg += " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += f"'{example}', "
    return msg + f"regex used for validation is '{fmt}')"


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``: lower-case RFC 1123 subdomain of at most 253 bytes."""
    errs = []
    if go_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def qualified_name_errors(name: str) -> list[str]:
    """``IsQualifiedName``: ``[prefix/]name``, the syntax of label keys (and other names).

    The prefix must be a DNS-1123 subdomain; the name at most 63 bytes of alphanumerics,
    ``-``, ``_`` and ``.``, starting and ending with an alphanumeric.
    """
    errs: list[str] = []
    parts = name.split("/")
    if len(parts) == 1:
        local = parts[0]
    elif len(parts) == 2:
        prefix, local = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + msg for msg in dns1123_subdomain_errors(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(_QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not local:
        errs.append("name part " + empty_error())
    elif go_len(local) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _QUALIFIED_NAME_RE.fullmatch(local):
        errs.append(
            "name part "
            + regex_error(_QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """``IsValidLabelValue``: empty, or at most 63 bytes shaped like a qualified name's name part."""
    errs = []
    if go_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs
