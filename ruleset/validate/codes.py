"""Every problem code ``ruleset validate`` can report, with its severity and what it means.

The SARIF reporter lists these as the tool's rules, and the README's table is checked
against this one by the tests. ``severity`` is the one the checks give the code.
"""

from __future__ import annotations

from typing import NamedTuple


class ProblemCode(NamedTuple):
    """What a problem code means (not to be confused with :class:`ruleset.Code`, a Status code)."""

    severity: str
    summary: str


CODES: dict[str, ProblemCode] = {
    # reading
    "io-error": ProblemCode("error", "The file cannot be read."),
    "toml-syntax": ProblemCode("error", "The file is not valid TOML (or not UTF-8)."),
    # the JSON Schema
    "unknown-key": ProblemCode("error", "A key the profile schema does not know."),
    "missing-key": ProblemCode("error", "A required key is missing."),
    "invalid-type": ProblemCode("error", "A value of the wrong type."),
    "invalid-value": ProblemCode("error",
                                 "A value outside the allowed set (e.g. an unknown extension point)."),
    "out-of-range": ProblemCode("error", "A number outside its allowed range."),
    "schema": ProblemCode("error", "Any other violation of the profile's JSON Schema."),
    "unknown-plugin": ProblemCode("error", "A plugin no installed package registers."),
    "plugin-unavailable": ProblemCode("error", "A plugin a package registers that cannot be used: its name "
                                      "clashes, its args schema is invalid or its API version differs."),
    "unknown-arg": ProblemCode("error", "An args key the plugin does not take."),
    "weight-range": ProblemCode("error", "A score weight outside [1, 92233720368547758]."),
    # extends
    "extends-not-found": ProblemCode("error", "The profile named by extends is neither bundled nor a file."),
    "extends-cycle": ProblemCode("error", "The extends chain comes back to a file already in it."),
    "extends-invalid": ProblemCode("error", "A profile this one extends has errors (reported against that "
                                   "file), or the file is no profile at all (nothing of it is shown)."),
    "extends-outside-root": ProblemCode("error", "extends names an absolute path, or one leading out of the "
                                        "project folder (the working directory, or --root)."),
    # semantics, as kube-scheduler checks its configuration
    "invalid-args": ProblemCode("error",
                                "Plugin args a plugin's own validation rejects (Kubernetes' messages)."),
    "plugin-not-in-release": ProblemCode("error", "A plugin the profile's kubernetesVersion does not have "
                                         "(not yet, or no longer: the message names its replacement)."),
    "arg-not-in-release": ProblemCode("error", "A plugin arg the profile's kubernetesVersion does not have."),
    "implicit-kubernetes-version": ProblemCode("warning", "The profile names no kubernetesVersion, so it "
                                               "runs as Kubernetes 1.20; say which release it predicts."),
    "point-not-implemented": ProblemCode("error",
                                         "A plugin listed at an extension point it does not implement."),
    "weight-overflow": ProblemCode("error", "The Score weights add up past what an int64 total can hold."),
    "weight-without-score": ProblemCode("warning",
                                        "A weight on a plugin that does not score: it has no effect."),
    "deprecated-name": ProblemCode("warning", "A legacy plugin name; the plugin it stands for is used."),
    "duplicate-rule": ProblemCode("error", "Two rules with the same name in one file."),
    "invalid-selector": ProblemCode("error", "A rule's label selector does not parse."),
    "duplicate-profile-name": ProblemCode("error", "Two validated profiles with the same name."),
    "duplicate-scheduler-name": ProblemCode("error", "Two profiles of one scheduler (export, schedule, "
                                            "validate --one-scheduler) serve the same schedulerName."),
    # building the framework
    "no-queue-sort": ProblemCode("error", "No QueueSort plugin is enabled."),
    "multiple-queue-sort": ProblemCode("error", "More than one QueueSort plugin is enabled."),
    "no-bind-plugin": ProblemCode("error", "No Bind plugin is enabled."),
    "duplicate-plugin": ProblemCode("error", "The same plugin is configured twice."),
    "unknown-extension-point": ProblemCode("error", "An extension point name the framework does not know."),
    "plugin-init-failed": ProblemCode("error", "A plugin's constructor failed with these args."),
    "invalid-hook": ProblemCode("error", "A plugin's hook methods do not match the hook specifications."),
}


def severity_of(code: str, default: str = "error") -> str:
    entry = CODES.get(code)
    return entry.severity if entry else default


def summary_of(code: str) -> str:
    entry = CODES.get(code)
    return entry.summary if entry else code
