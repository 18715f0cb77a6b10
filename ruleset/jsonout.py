"""The JSON documents ruleset writes: versioned, ``schemaVersion`` first; and the installed version."""

from __future__ import annotations

import json
from typing import Any

#: Every JSON document the tool writes carries this version; bump it on incompatible change.
SCHEMA_VERSION = 1


def dump_json(document: dict[str, Any]) -> str:
    """Serialise a JSON document with ``schemaVersion`` first."""
    return json.dumps({"schemaVersion": SCHEMA_VERSION, **document}, indent=2, ensure_ascii=False)


def package_version(fallback: str) -> str:
    """The installed ``ruleset`` distribution's version; ``fallback`` when not installed (a bare checkout)."""
    try:
        from importlib.metadata import version  # slow to import: only when asked

        return version("ruleset")
    except Exception:
        return fallback
