"""The commands whose JSON output is pinned byte for byte (issue 9: refactors change no output).

Each case is an id and the ``ruleset`` argv, run in-process from the repository root. The
inputs are the bundled demo cluster, the bundled profiles, the valid profile corpus and the
demo's ten pending pods (copied to ``tests/golden/pods/`` so ``score --pod`` can name them).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
PODS = sorted(p.relative_to(ROOT).as_posix() for p in (GOLDEN / "pods").glob("*.yaml"))

BUNDLED = ("default", "cluster-autoscaler", "legacy-policy")
CORPUS_PROFILES = (
    "tests/profile/corpus/valid/everything.toml",
    "tests/profile/corpus/valid/custom-queue-sort-and-binder.toml",
    "tests/profile/corpus/valid/chain-child.toml",
    "tests/profile/corpus/valid/standalone-minimal.toml",
)


def _slug(text: str) -> str:
    return Path(text).stem


def cases() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for profile in BUNDLED + CORPUS_PROFILES:
        name = _slug(profile)
        out.append((f"schedule-{name}", ["schedule", "-p", profile, "-o", "json"]))
        out.append((f"score-{name}", ["score", "-p", profile, "-o", "json"]))
    out.append(("schedule-default-seed-7", ["schedule", "--seed", "7", "-o", "json"]))
    for pod in PODS:
        for profile in ("default", "legacy-policy", "tests/profile/corpus/valid/everything.toml"):
            out.append((f"score-{_slug(profile)}-{_slug(pod)}", ["score", "-p", profile, "--pod", pod, "-o", "json"]))
    out.append(("validate-corpus", ["validate", "tests/profile/corpus", "-o", "json"]))
    out.append(("validate-bundled", ["validate", "profiles", "-o", "json"]))
    return out
