"""Every problem code ``ruleset validate`` can report, with its severity and what it means.

The SARIF reporter lists these as the tool's rules, and the README's table is checked
against this one by the tests. ``severity`` is the one the checks give the code.
"""

from __future__ import annotations

from typing import NamedTuple


class Code(NamedTuple):
    severity: str
    summary: str


CODES: dict[str, Code] = {
    # reading
    "io-error": Code("error", "The file cannot be read."),
    "toml-syntax": Code("error", "The file is not valid TOML (or not UTF-8)."),
    # the JSON Schema
    "unknown-key": Code("error", "A key the profile schema does not know."),
    "missing-key": Code("error", "A required key is missing."),
    "invalid-type": Code("error", "A value of the wrong type."),
    "invalid-value": Code("error", "A value outside the allowed set (e.g. an unknown extension point)."),
    "out-of-range": Code("error", "A number outside its allowed range."),
    "schema": Code("error", "Any other violation of the profile's JSON Schema."),
    "unknown-plugin": Code("error", "A plugin no installed package registers."),
    "unknown-arg": Code("error", "An args key the plugin does not take."),
    "weight-range": Code("error", "A score weight outside [1, 92233720368547758]."),
    # extends
    "extends-not-found": Code("error", "The profile named by extends is neither bundled nor a file."),
    "extends-cycle": Code("error", "The extends chain comes back to a file already in it."),
    "extends-invalid": Code("error", "A profile this one extends has errors (reported against that file)."),
    # semantics, as kube-scheduler checks its configuration
    "invalid-args": Code("error", "Plugin args a plugin's own validation rejects (Kubernetes' messages)."),
    "point-not-implemented": Code("error", "A plugin listed at an extension point it does not implement."),
    "weight-overflow": Code("error", "The Score weights add up past what an int64 total can hold."),
    "weight-without-score": Code("warning", "A weight on a plugin that does not score: it has no effect."),
    "deprecated-name": Code("warning", "A legacy plugin name; the plugin it stands for is used."),
    "duplicate-rule": Code("error", "Two rules with the same name in one file."),
    "invalid-selector": Code("error", "A rule's label selector does not parse."),
    "duplicate-profile-name": Code("error", "Two validated profiles with the same name."),
    # building the framework
    "no-queue-sort": Code("error", "No QueueSort plugin is enabled."),
    "multiple-queue-sort": Code("error", "More than one QueueSort plugin is enabled."),
    "no-bind-plugin": Code("error", "No Bind plugin is enabled."),
    "duplicate-plugin": Code("error", "The same plugin is configured twice."),
    "unknown-extension-point": Code("error", "An extension point name the framework does not know."),
    "plugin-init-failed": Code("error", "A plugin's constructor failed with these args."),
    "invalid-hook": Code("error", "A plugin's hook methods do not match the hook specifications."),
}


def severity_of(code: str, default: str = "error") -> str:
    entry = CODES.get(code)
    return entry.severity if entry else default


def summary_of(code: str) -> str:
    entry = CODES.get(code)
    return entry.summary if entry else code
