"""``ruleset versions [RELEASE]``: the Kubernetes releases ruleset models, and for one of them
every behaviour that differs from 1.20 — the switches the code declares, so the list cannot
drift from what runs."""

from __future__ import annotations

import argparse
from typing import Any

from ruleset.errors import Problem, RulesetError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "versions", help="list the Kubernetes releases ruleset models, or what one changes since 1.20",
        description="Without RELEASE, the supported releases and how many switches each turns on; with "
                    "RELEASE (e.g. 1.34), every switch that differs from 1.20 there, with its upstream "
                    "reference, and the release's feature gates.")
    parser.add_argument("release", nargs="?", metavar="RELEASE", help="a release, MAJOR.MINOR (e.g. 1.34)")
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(func=run)


def _switches() -> list[Any]:
    # Switches are declared by the modules whose behaviour they change, when imported: the
    # default plugin sets, the framework runtime, the built-in plugins and admission.
    import ruleset.admission.default_storage_class
    import ruleset.framework.defaults
    import ruleset.framework.runtime  # noqa: F401
    from ruleset.kversion import switches
    from ruleset.plugins import BUILTIN_PLUGINS  # noqa: F401 - importing the plugins declares theirs

    return switches()


def versions_json(release: str | None) -> dict[str, Any]:
    """The document ``versions`` prints (without ``schemaVersion``)."""
    from ruleset.kversion import OLDEST, SUPPORTED, Target, gates_known_at, supported

    declared = _switches()
    if release is None:
        return {"releases": [{"version": str(v), "switches": sum(1 for s in declared if Target(v).has(s))}
                             for v in SUPPORTED], "oldest": str(OLDEST), "newest": str(SUPPORTED[-1])}
    try:
        version = supported(release)
    except ValueError as exc:
        raise RulesetError(Problem(str(exc), file=release, code="invalid-value")) from None
    target = Target(version)
    return {
        "version": str(version),
        "switches": [{"key": s.key, "since": str(s.since), "summary": s.summary, "reference": s.reference,
                      "gate": s.gate} for s in declared if target.has(s)],
        "gatedOff": [{"key": s.key, "since": str(s.since), "gate": s.gate} for s in declared
                     if s.gate is not None and target.at_least(s.since) and not target.has(s)],
        "featureGates": {name: {"default": default, "stage": stage}
                         for name, (default, stage) in sorted(gates_known_at(version).items())},
    }


def run(args: argparse.Namespace) -> int:
    from ruleset.cli.output import print_json
    from ruleset.errors import printable

    document = versions_json(args.release)
    if args.output == "json":
        print_json(document)
        return 0
    if args.release is None:
        lines = [f"Kubernetes releases ruleset models: {document['oldest']} to {document['newest']} "
                 "(a profile's kubernetesVersion; absent: 1.20)", "", "RELEASE  SWITCHES SINCE 1.20"]
        lines += [f"{r['version']:<7}  {r['switches']}" for r in document["releases"]]
        lines += ["", "ruleset versions RELEASE lists them."]
    else:
        count = len(document["switches"])
        lines = [f"Kubernetes {document['version']}: {count} behaviour(s) differ from 1.20", ""]
        for s in document["switches"]:
            gate = f" [gate {s['gate']}]" if s["gate"] else ""
            lines += [f"{s['since']:<5} {s['key']}{gate}", f"      {s['summary']}", f"      {s['reference']}"]
        for s in document["gatedOff"]:
            lines.append(f"off   {s['key']}: feature gate {s['gate']} is off by default in "
                         f"{document['version']}")
        gates = document["featureGates"]
        if gates:
            lines += ["", "feature gates (default, stage):"]
            lines += [f"  {name} = {str(g['default']).lower()} ({g['stage']})" for name, g in gates.items()]
    print("\n".join(printable(line) for line in lines))
    return 0
