"""``ruleset import CONFIG``: KubeSchedulerConfiguration (any version) or legacy Policy → TOML profiles.

Exit codes: 0 written; 1 something in the configuration cannot be imported (a plugin
ruleset does not implement, an out-of-tree plugin, an invalid configuration), each named
with the reason and nothing written (``--allow-lossy`` drops the plugins and args ruleset
lacks, with a warning per item); 2 usage or input errors (unreadable file, no configuration
in it, unknown apiVersion, a ``--kubernetes-version`` that did not read the configuration,
an existing output file without ``--force``).

Each profile gets ``kubernetesVersion``: ``--kubernetes-version``, or the newest release that
read the configuration's apiVersion (v1beta1 1.22, v1beta2 1.27, v1beta3 1.28, v1 the newest
ruleset models, a Policy 1.22).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="turn a KubeSchedulerConfiguration or Policy into profiles",
        description="Read a KubeSchedulerConfiguration (kubescheduler.config.k8s.io v1alpha1 to v1, YAML or "
        "JSON, multi-document, inside a ConfigMap, or the schedulerConfig of a kube-scheduler-simulator "
        "export) or a legacy scheduler Policy, merge each profile with its version's defaults as "
        "kube-scheduler does, and write one TOML profile per schedulerName, which it keeps "
        "(default-scheduler when the configuration names none). Each profile runs as the newest "
        "Kubernetes release that read the configuration's apiVersion, unless --kubernetes-version names "
        "another that did.",
    )
    parser.add_argument("config", metavar="CONFIG", help="the configuration file (YAML or JSON)")
    parser.add_argument(
        "--output",
        "-o",
        metavar="DIR",
        help="write one <schedulerName>.toml per profile into DIR (default: stdout)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite existing files in DIR")
    parser.add_argument(
        "--kubernetes-version",
        metavar="MAJOR.MINOR",
        help="the release the profiles target (default: the newest that read the configuration's apiVersion; "
        "v1beta1 1.22, v1beta2 1.27, v1beta3 1.28, v1 the newest ruleset models)",
    )
    parser.add_argument(
        "--allow-lossy",
        action="store_true",
        help="drop plugins and args ruleset does not implement, with a warning per item",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ruleset.cli.output import write_files
    from ruleset.errors import Problem, RulesetError
    from ruleset.kubeconfig.importer import file_name, import_config, render
    from ruleset.kubeconfig.model import INVALID, LOSSY

    source = Path(args.config)
    if not source.is_file():
        raise RulesetError(Problem("no such file", file=str(source), code="io-error"))
    result = import_config(source, kubernetes_version=args.kubernetes_version)
    refused = [
        i for i in result.issues if i.severity == INVALID or (i.severity == LOSSY and not args.allow_lossy)
    ]
    if refused:
        for issue in refused:
            print(f"error: {issue}", file=sys.stderr)
        hint = "" if args.allow_lossy else " (--allow-lossy drops unsupported plugins and args)"
        print(f"error: {len(refused)} item(s) cannot be imported; nothing written{hint}", file=sys.stderr)
        return 1
    for issue in result.issues:
        if issue.severity == LOSSY:
            print(f"warning: dropped {issue}", file=sys.stderr)
    taken: set[str] = set()
    outputs = [(file_name(p.name, taken), render(p)) for p in result.profiles]
    if args.output:
        directory = Path(args.output)
        if directory.exists() and not directory.is_dir():
            raise RulesetError(Problem("is not a folder; -o names the folder to write the profiles into",
                                       file=str(directory), code="io-error"))
        created = [p for p in (directory, *directory.parents) if not p.exists()]
        directory.mkdir(parents=True, exist_ok=True)
        try:
            write_files([(directory / name, text) for name, text in outputs], force=args.force)
        except BaseException:
            for folder in created:  # nothing was written: leave no new folder behind either
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise
        for name, _ in outputs:
            print(f"wrote {directory / name}", file=sys.stderr)
        return 0
    for i, (name, text) in enumerate(outputs):
        if i:
            sys.stdout.write("\n")
        sys.stdout.write(f"# ---- {name} " + "-" * max(0, 70 - len(name)) + "\n")
        sys.stdout.write(text)
    return 0
