"""``ruleset new-plugin NAME``: scaffold a plugin package, ready to install and test.

The package (``D/NAME``) holds a pyproject.toml registering the plugin under the ``ruleset``
entry-point group, the plugin module (an args dataclass, a Filter and a Score hook), tests
written with the plugin test kit (:mod:`ruleset.testing`) and a README. The folder is written
whole or not at all (into a hidden temporary folder beside it, then renamed), and never over
anything that exists.
"""

from __future__ import annotations

import argparse
import keyword
import os
import re
import shutil
import string
import sys
import tempfile
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from ruleset.errors import Problem, RulesetError

#: A distribution name (PEP 508) that also makes a Python module name: a letter first.
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
MAX_NAME = 50
#: Module names a plugin package must not take: they would shadow what its tests import.
RESERVED_MODULES = frozenset({"ruleset", "test", "tests", "pytest", "numpy", "pluggy", "src"})
#: Template file -> where it goes in the package (``{module}`` filled in).
TEMPLATES = (
    ("pyproject.toml.tmpl", "pyproject.toml"),
    ("README.md.tmpl", "README.md"),
    ("plugin.py.tmpl", "src/{module}/__init__.py"),
    ("test_plugin.py.tmpl", "tests/test_{module}.py"),
)


@dataclass(frozen=True)
class Names:
    """What a package name becomes: the distribution, module and plugin (class) names."""

    name: str
    module: str
    plugin: str


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "new-plugin", help="scaffold a plugin package (pyproject, plugin module, tests, README)",
        description="Write a plugin package in DIR/NAME: a pyproject.toml registering the plugin with "
                    "ruleset, a module with an args dataclass and a Filter and a Score hook, tests using the "
                    "plugin test kit (ruleset.testing) and a README. Never overwrites an existing folder.")
    parser.add_argument("name", metavar="NAME", help="the distribution name, e.g. gpu-packing "
                                                     "(module gpu_packing, plugin GpuPacking)")
    parser.add_argument("--dir", metavar="DIR", default=".",
                        help="where to create the NAME folder (default: .)")
    parser.set_defaults(func=run)


def names_for(name: str) -> Names:
    """The module and plugin names of package ``name``; RulesetError when it cannot be one."""
    def refuse(why: str) -> RulesetError:
        return RulesetError(Problem(f"invalid plugin package name: {why}", file=name, code="invalid-name"))

    if not NAME_PATTERN.fullmatch(name) or len(name) > MAX_NAME:
        raise refuse(f"use letters, digits and single '-', '_' or '.' between them, a letter first, "
                     f"at most {MAX_NAME} characters (e.g. gpu-packing)")
    module = re.sub(r"[-.]", "_", name).lower()
    if keyword.iskeyword(module) or module in RESERVED_MODULES or module in sys.stdlib_module_names:
        raise refuse(f"its module name {module!r} is taken (a keyword, a standard or needed module)")
    stem = re.sub(r"^ruleset[-_.]", "", name, flags=re.IGNORECASE)
    plugin = "".join(part[0].upper() + part[1:] for part in re.split(r"[-_.]", stem))
    from ruleset.pluginmanager import load_registry

    builtins = load_registry(autoload=False)
    if builtins.get(plugin) is not None:
        raise refuse(f"its plugin name {plugin!r} is a built-in plugin's; choose another name")
    return Names(name, module, plugin)


def render(names: Names) -> list[tuple[str, str]]:
    """Each file of the package: (path inside it, text)."""
    from ruleset.jsonout import package_version

    version = package_version("")
    values = {"name": names.name, "module": names.module, "plugin": names.plugin,
              "label": f"example.com/{names.name.lower()}",
              "requirement": f"ruleset>={version}" if version else "ruleset"}
    folder = files("ruleset").joinpath("templates").joinpath("plugin")
    return [(target.format(module=names.module),
             string.Template(folder.joinpath(template).read_text(encoding="utf-8")).substitute(values))
            for template, target in TEMPLATES]


def scaffold(names: Names, parent: Path) -> list[Path]:
    """Write the package into ``parent/names.name``, whole or not at all; return its files."""
    from ruleset.cli.output import write_files

    target = parent / names.name
    if target.exists() or target.is_symlink():
        raise RulesetError(Problem("already exists; new-plugin never writes into an existing folder",
                                   file=str(target), code="exists"))
    if not parent.is_dir():
        what = "does not exist" if not parent.exists() else "is not a folder"
        raise RulesetError(Problem(f"cannot create the package here: {parent} {what}", file=str(target),
                                   code="io-error"))
    outputs = render(names)
    temporary = Path(tempfile.mkdtemp(prefix=f".{names.name}.", suffix=".new", dir=parent))
    try:
        for relative, _ in outputs:
            (temporary / relative).parent.mkdir(parents=True, exist_ok=True)
        write_files([(temporary / relative, text) for relative, text in outputs])
        _as_umask_allows(temporary)
        if target.exists() or target.is_symlink():  # created meanwhile: never replace it
            raise RulesetError(Problem("already exists; new-plugin never writes into an existing folder",
                                       file=str(target), code="exists"))
        os.rename(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return [target / relative for relative, _ in outputs]


def _as_umask_allows(folder: Path) -> None:
    """Give the folders the permissions a new folder gets (mkdtemp makes them private)."""
    mask = os.umask(0)
    os.umask(mask)
    for path in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
        path.chmod(0o777 & ~mask)


def run(args: argparse.Namespace) -> int:
    names = names_for(args.name)
    written = scaffold(names, Path(args.dir))
    target = Path(args.dir) / names.name
    print(f"created {target}: plugin {names.plugin} in module {names.module}")
    for path in written:
        print(f"  {path}")
    print(f"next: pip install -e '{target}[test]' && pytest {target}")
    return 0
