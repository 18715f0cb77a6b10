"""The commands whose JSON output is pinned byte for byte (issue 9: refactors change no output).

Each case is an id and the ``ruleset`` argv, run in-process from the repository root. The
inputs are the bundled demo cluster, the bundled profiles, the valid profile corpus and the
demo's ten pending pods (copied to ``tests/golden/pods/`` so ``score --pod`` can name them).

The bundled v1.20 profiles (``default-1.20``, ``cluster-autoscaler``, ``legacy-policy``) keep
their v1.20 answers; ``default`` and ``cluster-autoscaler-1.35`` are the newest release's
(issue 13), pinned beside them.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
PODS = sorted(p.relative_to(ROOT).as_posix() for p in (GOLDEN / "pods").glob("*.yaml"))

BUNDLED = ("default-1.20", "cluster-autoscaler", "legacy-policy", "default", "cluster-autoscaler-1.35")
CORPUS_PROFILES = (
    "tests/profile/corpus/valid/everything.toml",
    "tests/profile/corpus/valid/custom-queue-sort-and-binder.toml",
    "tests/profile/corpus/valid/chain-child.toml",
    "tests/profile/corpus/valid/standalone-minimal.toml",
)


def _slug(text: str) -> str:
    # A bundled name is its own slug ("default-1.20" has no suffix to strip).
    return Path(text).stem if "/" in text else text


def cases() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for profile in BUNDLED + CORPUS_PROFILES:
        name = _slug(profile)
        out.append((f"schedule-{name}", ["schedule", "-p", profile, "-o", "json"]))
        out.append((f"score-{name}", ["score", "-p", profile, "-o", "json"]))
    out.append(("schedule-default-1.20-seed-7", ["schedule", "-p", "default-1.20", "--seed", "7", "-o", "json"]))
    for pod in PODS:
        for profile in ("default-1.20", "legacy-policy", "tests/profile/corpus/valid/everything.toml"):
            out.append((f"score-{_slug(profile)}-{_slug(pod)}", ["score", "-p", profile, "--pod", pod, "-o", "json"]))
    out.append(("validate-corpus", ["validate", "tests/profile/corpus", "-o", "json"]))
    out.append(("validate-bundled", ["validate", "profiles", "-o", "json"]))
    return out
