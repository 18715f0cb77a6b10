"""Locate the data files shipped with ruleset: bundled profiles, grammars and the demo cluster.

A wheel built by hatchling force-includes the top-level ``profiles/``, ``grammar/`` and
``clusters/`` folders as ``ruleset/_data/<name>``. An editable install (or a plain source
checkout) imports ``ruleset`` from the source tree, where ``_data`` does not exist but the
folders sit beside the package. :func:`data_dir` is the one place that knows both layouts.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


class MissingDataError(FileNotFoundError):
    """A bundled data folder could not be found in either install layout."""


@cache
def data_dir(name: str) -> Path:
    """Return the folder holding bundled data ``name`` ("profiles", "grammar" or "clusters")."""
    candidates = (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise MissingDataError(f"bundled {name!r} folder not found (tried {tried}); "
                           "the installation is incomplete")


def bundled_profile(name: str) -> Path | None:
    """Return the path of bundled profile ``name`` (without ``.toml``), or None if there is none.

    ``name`` is looked up among the bundled names, never joined to a path first: whatever it
    holds (``..``, a NUL, 300 characters) it is simply no bundled name."""
    if name not in bundled_profile_names():
        return None
    return data_dir("profiles") / f"{name}.toml"


def bundled_profile_names() -> list[str]:
    """Names of every bundled profile, sorted."""
    return sorted(p.stem for p in data_dir("profiles").glob("*.toml"))


def grammar_file(name: str) -> Path:
    """Return the path of grammar ``name`` (e.g. ``selector.lark``)."""
    return data_dir("grammar") / name


def demo_cluster() -> Path:
    """The bundled demo cluster manifest used when no ``--cluster`` is given."""
    return data_dir("clusters") / "demo.yaml"
