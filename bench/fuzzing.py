"""Mutation fuzzing of the ``ruleset`` command line: seeds, mutations, and one run's verdict.

Shared by the bounded property tests (``tests/test_fuzz_cli.py``, a few thousand inputs in
CI) and the long-running driver (``bench/fuzz_cli.py``). An input is a command (which
subcommand, which file kinds it reads) and the text of each file, made by mutating a real
seed: the bundled and corpus profiles, KubeSchedulerConfigurations and Policies from
tests/kubeconfig/fixtures, the demo cluster cut into small pieces, pods, and selectors.

A run passes when ``ruleset.cli.main`` returns 0, 1 or 2, prints no traceback and no
"internal error", and finishes within its time budget.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

#: Fragments worth splicing in: structure, numbers at the limits, text that breaks things.
TOKENS = [
    "[", "]", "{", "}", "[[", "]]", "&a ", "*a", "<<: *a", "---\n", "...\n", "- ", ": ", "= ", '"', "'",
    "'''", '"""', "\\", "\\u0000", "\\x1b", "\x00", "\x1b[2J", "\u202e", "\udcff", "\ufeff", "\r", "\n", "\t",
    "#", "1e999999999", "1e1000", "-1", "0", "9223372036854775807", "9223372036854775808", "2147483648",
    "1" * 5000,
    "NaN", "inf", "-0.0", "0x1F", "1_000", "true", "null", "~", "!!python/object:os.system", "!!binary aGk=",
    "Infinity", "1Ki", "1Ei", "1e18", "999Ei", "1m", "0.000001", "plugins", "name", "extends", "rules",
    "weight", "points", "args", "enabled = false", "kind: Pod", "kind: Node", "kind: List", "items:",
    "nodeName: ", "priority: ", "requests: {cpu: ", "../../../../etc/passwd", "/etc/passwd", "/dev/zero",
    "a" * 300, "ä", "€", "𝄞",
]  # fmt: skip


@dataclass(frozen=True)
class Seed:
    """A real input to start from: what it is, and its text."""

    kind: str  # profile | config | cluster | pod | selector
    name: str
    text: str


@dataclass
class Case:
    """One fuzz input: a command over files written into a fresh folder."""

    command: str
    files: dict[str, str] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    code: int | None
    seconds: float
    stderr: str
    problem: str | None  # None: the run passed

    @property
    def ok(self) -> bool:
        return self.problem is None


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


@cache
def seeds() -> tuple[Seed, ...]:
    out: list[Seed] = []
    corpus = ROOT / "tests/profile/corpus"
    for folder in (ROOT / "profiles", corpus / "valid", corpus / "invalid"):
        for path in sorted(folder.rglob("*.toml")):
            out.append(Seed("profile", path.name, _read(path)))
    for path in sorted((ROOT / "tests/kubeconfig/fixtures").glob("*.*")):
        if path.suffix in (".yaml", ".json"):
            out.append(Seed("config", path.name, _read(path)))
    demo = [d for d in yaml.safe_load_all(_read(ROOT / "clusters/demo.yaml")) if d]
    items = [i for d in demo for i in (d.get("items") or [d])]
    nodes = [i for i in items if i.get("kind") == "Node"]
    pods = [i for i in items if i.get("kind") == "Pod"]
    others = [i for i in items if i.get("kind") not in ("Node", "Pod")]
    rng = random.Random(0)
    for n in range(12):  # small clusters: a few nodes, pods and workloads each
        chosen = rng.sample(nodes, 3) + rng.sample(pods, 4) + rng.sample(others, 2)
        out.append(Seed("cluster", f"demo-{n}.yaml", yaml.safe_dump_all(chosen, sort_keys=False)))
        flow = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": chosen}, default_flow_style=True)
        out.append(Seed("cluster", f"demo-{n}.json", flow))
    for pod in pods[:10]:
        out.append(Seed("pod", f"{pod['metadata']['name']}.yaml", yaml.safe_dump(pod, sort_keys=False)))
    for text in ("app=web", "tier in (db,web),!canary || zone=a", "x notin (a,b)", "k8s.io/x>1", "", "a,b=c"):
        out.append(Seed("selector", "expr", text))
    return tuple(out)


def mutate(text: str, rng: random.Random, rounds: int | None = None) -> str:
    """``text`` after a few random edits: tokens spliced in, spans deleted, duplicated,
    nested or repeated, characters flipped."""
    rounds = rounds if rounds is not None else rng.choice((1, 1, 2, 3, 5))
    for _ in range(rounds):
        n = len(text)
        at = rng.randint(0, n)
        roll = rng.random()
        if roll < 0.30:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif roll < 0.45 and n:
            end = min(n, at + rng.randint(1, 40))
            text = text[:at] + text[end:]
        elif roll < 0.55 and n:
            end = min(n, at + rng.randint(1, 200))
            text = text[:at] + text[at:end] * rng.randint(2, 4) + text[end:]
        elif roll < 0.65:
            depth = rng.choice((10, 200, 600, 1500, 40000))
            opener, closer = rng.choice((("[", "]"), ("{", "}"), ("[[", "]]"), ("{a: ", "}"), ("- ", "")))
            text = text[:at] + opener * depth + closer * depth + text[at:]
        elif roll < 0.75 and n:
            i = rng.randrange(n)
            text = text[:i] + chr(rng.choice((0, 9, 10, 13, 27, 34, 39, 58, 91, 123, 0x85, 0x2028, 0xFEFF,
                                              rng.randint(32, 0x2FFF)))) + text[i + 1:]
        elif roll < 0.85:
            line_start = text.rfind("\n", 0, at) + 1
            text = text[:line_start] + " " * rng.randint(1, 8) + text[line_start:]
        elif roll < 0.92 and n:
            end = min(n, at + rng.randint(1, 80))
            text = text + "\n" + text[at:end]
        else:
            text = text[:at] + str(rng.choice((2**63, -(2**63) - 1, 2**31, 10**400, 0.1, -5))) + text[at:]
    return text


def make_case(rng: random.Random) -> Case:
    """A random command over mutated seeds."""
    pool = seeds()

    def pick(kind: str) -> Seed:
        return rng.choice([s for s in pool if s.kind == kind])

    command = rng.choice(("validate", "validate", "show", "export", "import", "import", "schedule", "score",
                          "score", "selector"))
    case = Case(command)
    if command in ("validate", "show", "export"):
        seed = pick("profile")
        case.files["p.toml"] = mutate(seed.text, rng)
        if rng.random() < 0.3:  # something for `extends` to find
            case.files["base.toml"] = mutate(pick("profile").text, rng, rounds=rng.choice((0, 1)))
        fmt = rng.choice(("text", "json", "github", "junit", "sarif"))
        both = ["base.toml"] if "base.toml" in case.files and rng.random() < 0.5 else []
        lossy = ["--allow-lossy"] if rng.random() < 0.5 else []
        case.argv = {"validate": ["validate", "p.toml", "-o", fmt, *both],
                     "show": ["show", "p.toml", "-o", rng.choice(("text", "json", "toml"))],
                     "export": ["export", "p.toml", "--api-version", rng.choice(("v1beta1", "v1")),
                                "-o", "out.yaml", *lossy]}[command]
    elif command == "import":
        seed = pick("config")
        name = "c" + Path(seed.name).suffix
        case.files[name] = mutate(seed.text, rng)
        case.argv = ["import", name, *(["-o", "out"] if rng.random() < 0.5 else []),
                     *(["--allow-lossy"] if rng.random() < 0.5 else [])]
    elif command in ("schedule", "score"):
        seed = pick("cluster")
        name = "c" + Path(seed.name).suffix
        case.files[name] = mutate(seed.text, rng)
        case.argv = [command, "--cluster", name, "-o", rng.choice(("text", "json"))]
        if rng.random() < 0.3:
            case.files["p.toml"] = mutate(pick("profile").text, rng, rounds=rng.choice((0, 1)))
            case.argv += ["--profile", "p.toml"]
        if command == "score" and rng.random() < 0.6:
            case.files["pod.yaml"] = mutate(pick("pod").text, rng)
            case.argv += ["--pod", "pod.yaml"]
    else:
        case.argv = ["selector", mutate(pick("selector").text, rng), "-o", rng.choice(("text", "json"))]
        if rng.random() < 0.5:
            case.argv += ["--labels", mutate("app=web,tier=db", rng)]
    return case


def run_case(case: Case, folder: Path, budget: float = 10.0,
             main: Callable[[list[str]], int] | None = None) -> Verdict:
    """Write the case's files into ``folder`` (emptied first) and run the command in it."""
    if main is None:
        from ruleset.cli import main as cli_main

        main = cli_main
    for child in folder.iterdir():
        if child.is_dir():
            for inner in sorted(child.rglob("*"), reverse=True):
                inner.unlink() if not inner.is_dir() else inner.rmdir()
            child.rmdir()
        else:
            child.unlink()
    for name, text in case.files.items():
        (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    started = time.perf_counter()
    code: int | None = None
    problem: str | None = None
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(case.argv)
    except BaseException as exc:  # what escapes main is the finding
        problem = f"raised {type(exc).__name__}: {exc}"[:300]
    finally:
        os.chdir(cwd)
    seconds = time.perf_counter() - started
    stderr = err.getvalue()
    if problem is None:
        if code not in (0, 1, 2):
            problem = f"exit code {code}"
        elif "Traceback" in stderr or "internal error" in stderr:
            problem = stderr.strip().splitlines()[-1][:300]
        elif seconds > budget:
            problem = f"took {seconds:.1f} s"
    return Verdict(code, seconds, stderr, problem)
