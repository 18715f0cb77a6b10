"""What starting a command costs: the modules ``--version``, ``--help`` and ``validate`` import.

``--version`` and ``--help`` are answered from :data:`ruleset.cli.COMMAND_TABLE` without
importing any command module; these tests check that the table says what the modules
register, that the parser built from it prints exactly what the full parser prints, and
what a process running each command has imported when it exits. ``validate`` imports no
numpy and no plugin implementation (it checks built-in plugins through their declarations,
:mod:`ruleset.plugins.table`), and an installed plugin package only when a profile names a
plugin no built-in has (the package whose entry point is named like it first).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ruleset import cli

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROFILE = ROOT / "profiles" / "default.toml"

#: Runs ``main(argv)`` with its output swallowed, then prints the modules imported, as JSON.
_WRAPPER = ("import contextlib, io, json, sys\nfrom ruleset.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            "    code = main(sys.argv[1:])\n"
            "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n")


def imported_by(*argv: str, autoload: bool = True, path: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """The exit code of ``ruleset ARGV`` run in a fresh interpreter (``path`` on its ``PYTHONPATH``),
    and every module imported."""
    env = {k: v for k, v in os.environ.items() if k not in ("RULESET_PLUGINS", "RULESET_DISABLE_PLUGIN_AUTOLOAD")}
    if not autoload:
        env["RULESET_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if path:
        env["PYTHONPATH"] = os.pathsep.join(path)
    result = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True, cwd=ROOT,
                            env=env, check=True)
    document = json.loads(result.stdout)
    return document["code"], document["modules"]


@pytest.mark.parametrize(("name", "module", "summary"), cli.COMMAND_TABLE, ids=[row[0] for row in cli.COMMAND_TABLE])
def test_each_module_registers_its_row_of_the_command_table(name: str, module: str, summary: str):
    subparsers = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(f"ruleset.cli.{module}").register(subparsers)
    assert [(action.dest, action.help) for action in subparsers._choices_actions] == [(name, summary)]


def test_the_command_table_names_every_command_module_once():
    modules = sorted(p.stem for p in (ROOT / "ruleset" / "cli").glob("*.py")
                     if "register" in vars(importlib.import_module(f"ruleset.cli.{p.stem}")))
    assert sorted(cli.COMMANDS) == modules
    assert len({name for name, _, _ in cli.COMMAND_TABLE}) == len(cli.COMMAND_TABLE)


def test_the_static_parser_prints_the_full_parsers_help():
    assert cli.build_parser(static=True).format_help() == cli.build_parser().format_help()


def _full_parser_answer(argv: list[str]) -> tuple[int, str, str]:
    """What the full parser (every command module registered) answers to ``argv``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        parser = cli.build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0), out.getvalue(), err.getvalue()
        assert not getattr(args, "func", None)
        parser.print_help(sys.stderr)
        return 2, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"], ["--he"], ["--version"], ["--vers"], ["bogus"],
                                  ["-x"], ["--bogus"], ["import_config"], ["new_plugin", "x"],
                                  ["--version", "--help"]],
                         ids=["nothing", "help", "h", "help-prefix", "version", "version-prefix", "unknown",
                              "unknown-option", "unknown-long-option", "module-name", "module-name-args", "version-help"])
def test_main_answers_as_the_full_parser_would(argv: list[str], capsys: pytest.CaptureFixture[str]):
    expected = _full_parser_answer(argv)
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert (code, out, err) == expected


def test_the_version_is_the_installed_metadatas():
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("ruleset")
    except PackageNotFoundError:
        installed = "unknown"
    assert cli.installed_version("unknown") == installed


@pytest.mark.parametrize("argv", [["--version"], ["--help"], [], ["bogus"]],
                         ids=["version", "help", "nothing", "unknown"])
def test_version_and_help_import_no_command_module(argv: list[str]):
    code, modules = imported_by(*argv)
    assert code == (0 if argv[:1] in (["--version"], ["--help"]) else 2)
    assert [m for m in modules if m.startswith("ruleset")] == ["ruleset", "ruleset.cli", "ruleset.lazy"]
    assert [m for m in ("numpy", "importlib.metadata", "pluggy") if m in modules] == []


def test_discovery_and_the_plugin_api_import_no_numpy():
    code = ("import sys, ruleset.pluginmanager, ruleset.framework.plugin\n"
            "print(sorted(m for m in sys.modules if m in ('numpy', 'importlib.metadata') or m.startswith('ruleset.plugins')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "['ruleset.plugins', 'ruleset.plugins.table']\n"


def test_validate_imports_only_its_own_command_module():
    code, modules = imported_by("validate", str(DEFAULT_PROFILE))
    assert code == 0
    commands = {f"ruleset.cli.{module}" for module in cli.COMMANDS}
    assert [m for m in modules if m in commands] == ["ruleset.cli.validate"]


def test_validate_without_autoload_reads_no_installed_metadata():
    code, modules = imported_by("validate", str(DEFAULT_PROFILE), autoload=False)
    assert code == 0
    assert "importlib.metadata" not in modules


def test_validate_imports_no_numpy():
    code, modules = imported_by("validate", str(DEFAULT_PROFILE))
    assert code == 0
    assert "numpy" not in modules


#: The ``ruleset.plugins`` modules ``validate profiles/default.toml`` imports: the table, and the args
#: modules of the plugins the profile names that take args (package ``__init__`` modules import nothing).
DEFAULT_PROFILE_PLUGIN_MODULES = [
    "ruleset.plugins", "ruleset.plugins.default_preemption_args", "ruleset.plugins.interpodaffinity",
    "ruleset.plugins.interpodaffinity.args", "ruleset.plugins.node_affinity_args",
    "ruleset.plugins.node_affinity_terms", "ruleset.plugins.noderesources", "ruleset.plugins.noderesources.args",
    "ruleset.plugins.noderesources.resource_args", "ruleset.plugins.noderesources.strategy",
    "ruleset.plugins.podtopologyspread", "ruleset.plugins.podtopologyspread.args", "ruleset.plugins.rules",
    "ruleset.plugins.rules.args", "ruleset.plugins.table", "ruleset.plugins.volumebinding",
    "ruleset.plugins.volumebinding.args",
]


def test_validate_imports_no_plugin_implementation():
    code, modules = imported_by("validate", str(DEFAULT_PROFILE))
    assert code == 0
    assert [m for m in modules if m.startswith("ruleset.plugins")] == DEFAULT_PROFILE_PLUGIN_MODULES
    assert [m for m in ("ruleset.framework.runtime", "ruleset.snapshot", "lark") if m in modules] == []


_PLUGIN_MODULE = """\
import ruleset


class {name}(ruleset.Plugin):
    \"\"\"A test plugin.\"\"\"

    name = "{name}"

    @ruleset.hookimpl
    def ruleset_filter(self):
        return None


@ruleset.hookimpl
def ruleset_register_plugins(register):
    register({name})
"""


@pytest.fixture
def installed_packages(tmp_path: Path) -> tuple[str, ...]:
    """A folder holding two installed plugin packages: entry point ``gpu-packing`` (module
    ``gpu_packing_plugin``, plugin GpuPacking) and ``other`` (``other_plugin``, plugin Spread2)."""
    site = tmp_path / "site"
    site.mkdir()
    for dist, ep, module, plugin in (("gpu_packing", "gpu-packing", "gpu_packing_plugin", "GpuPacking"),
                                     ("other", "other", "other_plugin", "Spread2")):
        _dist(site, dist, f"[ruleset]\n{ep} = {module}\n")
        (site / f"{module}.py").write_text(_PLUGIN_MODULE.format(name=plugin))
    return (str(site),)


def _profile_naming(tmp_path: Path, plugin: str | None) -> str:
    path = tmp_path / f"{plugin or 'builtins'}.toml"
    body = 'name = "p"\nkubernetesVersion = "1.35"\n[plugins.PrioritySort]\n[plugins.DefaultBinder]\n'
    path.write_text(body + (f"[plugins.{plugin}]\n" if plugin else ""))
    return str(path)


#: Profile naming -> (exit code, which of the two packages' modules validate imports).
_ENTRY_POINT_CASES = {
    None: (0, []),
    "GpuPacking": (0, ["gpu_packing_plugin"]),  # its entry point's name is the plugin's
    "Spread2": (0, ["gpu_packing_plugin", "other_plugin"]),  # no entry point named so: all of them
    "Unknown": (1, ["gpu_packing_plugin", "other_plugin"]),
}


@pytest.mark.parametrize("plugin", list(_ENTRY_POINT_CASES), ids=[str(p) for p in _ENTRY_POINT_CASES])
def test_validate_loads_an_entry_point_only_for_a_plugin_no_built_in_has(plugin: str | None, tmp_path: Path,
                                                                         installed_packages: tuple[str, ...]):
    code, modules = imported_by("validate", _profile_naming(tmp_path, plugin), path=installed_packages)
    assert (code, [m for m in ("gpu_packing_plugin", "other_plugin") if m in modules]) == _ENTRY_POINT_CASES[plugin]
    # A package loaded is checked as every command checks it (its schema hook against every plugin,
    # built-ins included): then the built-in plugins are imported.
    assert ("numpy" in modules) == (plugin is not None)


def test_plugins_still_lists_every_installed_package(installed_packages: tuple[str, ...]):
    code, modules = imported_by("plugins", path=installed_packages)
    assert (code, [m for m in ("gpu_packing_plugin", "other_plugin") if m in modules]) == (
        0, ["gpu_packing_plugin", "other_plugin"])


# ------------------------------------------------------------------ entry points without importlib.metadata
_PKG = "Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"


def _dist(folder: Path, name: str, entry_points: str | None, suffix: str = ".dist-info") -> None:
    info = folder / f"{name}-1.0{suffix}"
    info.mkdir(parents=True)
    (info / ("METADATA" if suffix == ".dist-info" else "PKG-INFO")).write_text(_PKG.format(name=name))
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


def _layout(kind: str, root: Path) -> list[str]:
    """A sys.path holding one kind of installation; returns the path."""
    site = root / "site"
    site.mkdir()
    if kind == "no-dists":
        pass
    elif kind == "group-declared":
        _dist(site, "gpu", "[ruleset]\ngpu = gpu_plugin\n")
    elif kind == "group-indented":
        _dist(site, "gpu", "[console_scripts]\nx = y:z\n\n  [ruleset]  \ngpu = gpu_plugin\n")
    elif kind == "group-double-brackets":
        _dist(site, "gpu", "[[ruleset]]\ngpu = gpu_plugin\n")
    elif kind == "group-after-vertical-tab":
        _dist(site, "gpu", "x = y\x0b[ruleset]\ngpu = gpu_plugin\n")
    elif kind == "other-groups":
        _dist(site, "tool", "[console_scripts]\ntool = tool:main\n[ruleset.extra]\nx = y\n")
        _dist(site, "plain", None)
    elif kind == "egg-info-folder":
        _dist(site, "old", "[ruleset]\nold = old_plugin\n", suffix=".egg-info")
    elif kind == "egg-info-file":
        (site / "old-1.0.egg-info").write_text(_PKG.format(name="old"))
    elif kind == "egg-on-path":
        egg = root / "thing-1.0.egg"
        (egg / "EGG-INFO").mkdir(parents=True)
        (egg / "EGG-INFO" / "PKG-INFO").write_text(_PKG.format(name="thing"))
        (egg / "EGG-INFO" / "entry_points.txt").write_text("[ruleset]\nthing = thing\n")
        return [str(site), str(egg)]
    elif kind == "zip-on-path":
        import zipfile

        with zipfile.ZipFile(root / "bundle.zip", "w") as bundle:
            bundle.writestr("z-1.0.dist-info/METADATA", _PKG.format(name="z"))
            bundle.writestr("z-1.0.dist-info/entry_points.txt", "[ruleset]\nz = z\n")
        return [str(site), str(root / "bundle.zip")]
    elif kind == "missing-entry":
        return [str(root / "absent"), str(site)]
    return [str(site)]


#: Layout -> (no distribution declares the group, as the shortcut says; importlib.metadata's count).
_LAYOUTS = {
    "no-dists": (True, 0),
    "group-declared": (False, 1),
    "group-indented": (False, 1),
    "group-double-brackets": (False, 1),
    "group-after-vertical-tab": (False, 1),
    "other-groups": (True, 0),
    "egg-info-folder": (False, 1),
    "egg-info-file": (True, 0),
    "egg-on-path": (False, 1),
    "zip-on-path": (False, 1),
    "missing-entry": (True, 0),
}


@pytest.fixture
def standard_finders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the interpreter's own distribution finder, as in a fresh ``ruleset`` process: a test
    run may have imported a library (dask, through the importlib_metadata backport) that adds
    its own finder and takes ``find_distributions`` off the standard one."""
    import importlib.metadata
    from importlib.machinery import PathFinder

    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path
                                           if not hasattr(f, "find_distributions") or f is PathFinder])
    if not hasattr(PathFinder, "find_distributions"):
        monkeypatch.setattr(PathFinder, "find_distributions",
                            importlib.metadata.MetadataPathFinder.find_distributions, raising=False)


@pytest.mark.usefixtures("standard_finders")
@pytest.mark.parametrize("kind", list(_LAYOUTS), ids=list(_LAYOUTS))
def test_entry_points_are_skipped_only_when_none_is_declared(kind: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    from importlib.metadata import entry_points

    from ruleset import pluginmanager

    monkeypatch.setattr(sys, "path", _layout(kind, tmp_path))
    skipped, count = _LAYOUTS[kind]
    assert len(entry_points(group="ruleset")) == count
    assert pluginmanager._no_distribution_declares("ruleset") is skipped
    assert len(pluginmanager.entry_points(group="ruleset")) == count


@pytest.mark.usefixtures("standard_finders")
def test_another_distribution_finder_means_asking_importlib(monkeypatch: pytest.MonkeyPatch):
    from ruleset import pluginmanager

    class Finder:
        @staticmethod
        def find_distributions(*args: object, **kwargs: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "path", [])
    assert pluginmanager._no_distribution_declares("ruleset") is True
    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert pluginmanager._no_distribution_declares("ruleset") is False
