"""``ruleset export PROFILE… --format kube-scheduler``: a KubeSchedulerConfiguration for profiles.

Exit codes: 0 written; 1 refused (items Kubernetes cannot express, each named with the
reason; ``--allow-lossy`` drops them with a warning instead; a third-party plugin is kept by
``--allow-third-party``, for a kube-scheduler built with it); 2 usage or input errors
(a profile that does not load, two profiles serving one ``schedulerName``, which
kube-scheduler refuses, an existing output file without ``--force``).

A profile is exported only in a version its release reads (v1beta1: 1.20-1.22; v1: 1.25 on);
anything else is refused whatever ``--allow-lossy`` says. Without ``--api-version`` the
version is the one the profiles' release reads.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruleset.cli.common import add_root_argument, root_of


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write profiles as a KubeSchedulerConfiguration",
        description="Write the profiles (extends resolved) as one KubeSchedulerConfiguration for "
        "kube-scheduler: plugins per extension point (the smallest difference from that version's defaults "
        "that "
        "reproduces the profile's order), weights, and pluginConfig args with Kubernetes field names. "
        "Each profile keeps its schedulerName (default-scheduler unless the profile sets one; two profiles "
        "serving one are refused, exit 2). Anything the version cannot express is refused "
        "(exit 1) unless --allow-lossy; so are third-party plugins, unless --allow-third-party.",
    )
    parser.add_argument("profiles", nargs="+", metavar="PROFILE", help="profile file or bundled profile name")
    parser.add_argument(
        "--format", choices=("kube-scheduler",), default="kube-scheduler", help="output format"
    )
    parser.add_argument(
        "--api-version",
        choices=("v1beta1", "v1"),
        default=None,
        help="kubescheduler.config.k8s.io version: v1beta1 (read by kube-scheduler 1.19-1.22: profiles "
        "with kubernetesVersion 1.20 to 1.22) or v1 (1.25 on: multiPoint, NodeResourcesFit scoringStrategy); "
        "default: the one the profiles' release reads",
    )
    parser.add_argument(
        "--allow-lossy", action="store_true", help="drop what cannot be expressed, with a warning per item"
    )
    parser.add_argument(
        "--allow-third-party",
        action="store_true",
        help="keep plugins of installed packages (enabled, weighted, with their args), for a kube-scheduler "
        "built with them, such as scheduler-plugins' image",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    parser.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ruleset.cli.output import refuse_existing, write_atomic
    from ruleset.errors import RulesetError
    from ruleset.kubeconfig.exporter import export_profiles
    from ruleset.kubeconfig.model import LOSSY, RefusedError
    from ruleset.profile.loader import check_scheduler_names, load_profile

    root = root_of(args)
    profiles = [load_profile(p, root=root) for p in args.profiles]
    duplicates = check_scheduler_names(profiles)
    if duplicates:
        raise RulesetError(duplicates)
    if args.output:
        refuse_existing([Path(args.output)], args.force)  # before any work
    api_version = args.api_version or ("v1" if profiles[0].target.at_least("1.25") else "v1beta1")
    try:
        exported = export_profiles(
            profiles, api_version, allow_lossy=args.allow_lossy, allow_third_party=args.allow_third_party
        )
    except RefusedError as exc:
        for issue in exc.issues:
            print(f"error: {issue}", file=sys.stderr)
        hint = " (--allow-lossy drops them)" if all(i.severity == LOSSY for i in exc.issues) else ""
        print(
            f"error: {len(exc.issues)} item(s) cannot be expressed in kubescheduler.config.k8s.io/"
            f"{api_version}; nothing written{hint}",
            file=sys.stderr,
        )
        return 1
    for issue in exported.issues:
        print(f"warning: dropped {issue}", file=sys.stderr)
    sources = ", ".join(p.files[0] if p.files else p.name for p in profiles)
    header = [f"Exported by `ruleset export --api-version {api_version}` from {sources}."]
    header.extend(exported.third_party_lines())
    if exported.issues:
        header.append(f"Lossy: {len(exported.issues)} item(s) left out (see the warnings).")
    text = exported.yaml(header)
    if args.output:
        write_atomic(Path(args.output), text, force=args.force)
    else:
        sys.stdout.write(text)
    return 0
