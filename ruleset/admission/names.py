"""``metadata.generateName``: the API server's ``names.SimpleNameGenerator``
(``staging/src/k8s.io/apiserver/pkg/storage/names/generate.go``, v1.20), made deterministic.

Upstream appends ``utilrand.String(5)`` (characters from ``bcdfghjklmnpqrstvwxz2456789``,
no vowels so no words) to the prefix cut to 58 bytes (63, a name's longest, less 5). Here
the characters come from a ``random.Random`` seeded from the run's seed, drawn in the order
pods are admitted, and a suffix is drawn again while the name is taken in the namespace
(upstream's create would fail with AlreadyExists and the controller retry with a new name).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

#: ``utilrand.alphanums``.
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
MAX_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH


class NameGenerator:
    """Generated names, deterministic for a seed, never one already taken."""

    def __init__(self, seed: int = 0, taken: Iterable[str] = ()) -> None:
        # A string seed is hashed with SHA-512 (not hash()), so it is stable across runs; the
        # prefix keeps this stream apart from any other the run seeds with the same number.
        self._rng = random.Random(f"ruleset.admission.names:{seed}")
        self.taken: set[str] = set(taken)

    def take(self, namespace: str, name: str) -> None:
        """Record ``namespace/name`` as taken."""
        self.taken.add(f"{namespace}/{name}")

    def generate(self, namespace: str, base: str) -> str:
        """``GenerateName(base)`` for a pod in ``namespace``; the name is not recorded as taken."""
        encoded = base.encode("utf-8")
        if len(encoded) > MAX_GENERATED_NAME_LENGTH:  # Go cuts bytes, not characters
            base = encoded[:MAX_GENERATED_NAME_LENGTH].decode("utf-8", errors="ignore")
        while True:
            name = base + "".join(self._rng.choice(ALPHABET) for _ in range(RANDOM_LENGTH))
            if f"{namespace}/{name}" not in self.taken:
                return name
