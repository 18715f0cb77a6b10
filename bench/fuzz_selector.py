"""Fuzz ``ruleset.selector.parse`` with seeded random and mutated-valid selector text.

Every input must either parse or raise SelectorError; anything else is a crash. Inputs
without ``||`` are also run through the transliteration of Kubernetes' v1.20 parser
(``tests/selector/k8s_reference.py``): acceptance and the error message must agree. Every
accepted selector must round-trip through its canonical text.

    python bench/fuzz_selector.py [--count 100000] [--seed 20] [--no-reference]

Exits 1 on any crash, disagreement or round-trip failure.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ruleset.selector import SelectorError, parse  # noqa: E402
from tests.selector.k8s_reference import reference_parse  # noqa: E402

FRAGMENTS = [
    "a", "b", "x", "zone", "app", "k8s.io/", "example.com/", "A_b-1.c", "in", "notin", "exists", "1", "-1",
    "0204", "9223372036854775808", "", " ", "  ", "\t", "\n", "\r", "=", "==", "!", "!=", ">", "<", "(", ")",
    ",", ",,", "||", "|", "\x00", "é", "€", "/", ".", "-", "_", "a" * 63, "a" * 64, "in (", "notin (", " in ",
    "()", "(,)", "=in", "\\", "'", '"', "\x7f", "\u2028",
]  # fmt: skip
ALPHABET = "ab=!(),<>| \t\n\x00-_./1in"
OPERATORS = ["=", "==", "!=", ">", "<", " in ", " notin ", "", "!"]


def random_name(rng: random.Random) -> str:
    alnum = "abcxyzABC0129"
    if rng.random() < 0.3:
        return rng.choice(alnum)
    middle = "".join(rng.choice(alnum + "-_.") for _ in range(rng.randint(0, 10)))
    return rng.choice(alnum) + middle + rng.choice(alnum)


def random_key(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(["in", "notin"])
    if roll < 0.25:
        labels = [rng.choice(["a", "k8s", "example", "x-1", "0"]) for _ in range(rng.randint(1, 3))]
        return ".".join(labels) + "/" + random_name(rng)
    return random_name(rng)


def random_value(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.1:
        return ""
    if roll < 0.15:
        return rng.choice(["in", "notin"])
    return random_name(rng)


def valid_requirement(rng: random.Random) -> str:
    key = random_key(rng)
    op = rng.choice(OPERATORS)
    if op == "":
        return key
    if op == "!":
        return "!" + key
    if op in (">", "<"):
        return f"{key}{op}{rng.randint(0, 10 ** rng.randint(1, 18))}"
    if op in (" in ", " notin "):
        # Distinct values: two empty items at the end, "(a,,)", are a syntax error upstream.
        values = dict.fromkeys(random_value(rng) for _ in range(rng.randint(1, 4)))
        return f"{key}{op}({','.join(values)})"
    return f"{key}{op}{random_value(rng)}"


def valid_selector(rng: random.Random) -> str:
    group_count = rng.choice([1, 1, 1, 2, 3])
    groups = [",".join(valid_requirement(rng) for _ in range(rng.randint(1, 4))) for _ in range(group_count)]
    separator = rng.choice([" || ", "||", " ||  "])
    text = separator.join(groups)
    return text.replace(",", rng.choice([",", ", ", " , "])) if rng.random() < 0.2 else text


def mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        pos = rng.randint(0, len(text))
        kind = rng.randrange(5)
        if kind == 0 and text:
            text = text[:pos] + text[pos + 1 :]
        elif kind == 1:
            text = text[:pos] + rng.choice(FRAGMENTS) + text[pos:]
        elif kind == 2 and text:
            text = text[:pos] + rng.choice(ALPHABET) + text[pos + 1 :]
        elif kind == 3 and len(text) > 2:
            a, b = sorted(rng.sample(range(len(text)), 2))
            text = text[:a] + text[b] + text[a + 1 : b] + text[a] + text[b + 1 :]
        else:
            a = rng.randint(0, len(text))
            text = text[:pos] + text[a : a + rng.randint(1, 6)] + text[pos:]
    return text


def generate(rng: random.Random) -> tuple[str, str]:
    roll = rng.random()
    if roll < 0.35:
        return "fragments", "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 14)))
    if roll < 0.45:
        size = rng.randint(0, 30)
        codes = [rng.choice([rng.randint(0, 127), rng.randint(0, 0x10FFFF)]) for _ in range(size)]
        return "random", "".join(map(chr, codes))
    if roll < 0.9:
        return "mutated", mutate(rng, valid_selector(rng))
    return "valid", valid_selector(rng)


def ours(text: str) -> tuple[str, object]:
    try:
        selector = parse(text)
    except SelectorError as exc:
        return "error", exc.reason
    return "ok", selector


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--no-reference", action="store_true", help="do not compare with upstream's parser")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    by_kind: Counter[tuple[str, str]] = Counter()
    compared = 0
    problems: list[str] = []
    started = time.perf_counter()
    for _ in range(args.count):
        kind, text = generate(rng)
        try:
            result, value = ours(text)
        except Exception:  # a crash: anything but SelectorError
            outcomes["crash"] += 1
            problems.append(f"crash on {text!r}:\n{traceback.format_exc()}")
            continue
        outcomes["accepted" if result == "ok" else "SelectorError"] += 1
        by_kind[kind, result] += 1
        if result == "ok" and parse(str(value)) != value:
            outcomes["round-trip failure"] += 1
            problems.append(f"round trip: {text!r} -> {value!s}")
        if not args.no_reference and "||" not in text:
            compared += 1
            expected = reference_parse(text)
            if result == "ok":
                (group,) = value.groups  # type: ignore[attr-defined]
                got = ("ok", sorted((r.key, r.operator, r.values) for r in group))
                expected = ("ok", sorted((k, op, tuple(sorted(set(v)))) for k, op, v in expected[1]))
            else:
                got = (result, value)
            if got != expected:
                outcomes["disagreement with upstream"] += 1
                problems.append(f"disagreement on {text!r}: ours {got}, upstream {expected}")
    elapsed = time.perf_counter() - started

    print(f"inputs: {args.count} (seed {args.seed}) in {elapsed:.1f} s")
    for name in ("accepted", "SelectorError", "crash", "round-trip failure", "disagreement with upstream"):
        print(f"  {name:28} {outcomes[name]}")
    print("by generator:")
    for kind in ("fragments", "random", "mutated", "valid"):
        print(f"  {kind:10} accepted {by_kind[kind, 'ok']:6}   rejected {by_kind[kind, 'error']:6}")
    if not args.no_reference:
        print(f"compared with upstream's parser (inputs without '||'): {compared}")
    for problem in problems[:10]:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
