"""``ruleset new-plugin NAME [--dir D]``: the package it writes (names derived from NAME, the
entry point, files), the names and places it refuses (exit 2, one line, nothing written), that
it writes all or nothing, and that the package installs and its tests pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ruleset.cli import main, new_plugin

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FILES = ["README.md", "pyproject.toml", "src/{module}/__init__.py", "tests/test_{module}.py"]


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize(("name", "module", "plugin"), [
    pytest.param("demo", "demo", "Demo", id="plain"),
    pytest.param("gpu-packing", "gpu_packing", "GpuPacking", id="dashes"),
    pytest.param("ruleset-spot.nodes", "ruleset_spot_nodes", "SpotNodes", id="ruleset-prefix-and-dot"),
    pytest.param("Fair_share2", "fair_share2", "FairShare2", id="underscore-digits"),
])
def test_scaffolds_a_package_named_after_name(tmp_path, capsys, name, module, plugin):
    assert main(["new-plugin", name, "--dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    root = tmp_path / name
    expected = sorted(f.format(module=module) for f in FILES)
    assert _files(root) == expected
    assert err == ""
    assert out.splitlines() == [
        f"created {root}: plugin {plugin} in module {module}",
        *(f"  {root / f.format(module=module)}" for f in ["pyproject.toml", "README.md", "src/{module}/__init__.py",
                                                          "tests/test_{module}.py"]),
        f"next: pip install -e '{root}[test]' && pytest {root}"]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == name
    assert project["project"]["dependencies"] == ["ruleset>=0.1.0"]
    assert project["project"]["entry-points"] == {"ruleset": {name: module}}
    assert project["build-system"] == {"requires": ["hatchling>=1.18"], "build-backend": "hatchling.build"}
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [f"src/{module}"]
    code = (root / "src" / module / "__init__.py").read_text(encoding="utf-8")
    assert f'class {plugin}(ruleset.Plugin):\n' in code
    assert f'    name = "{plugin}"\n' in code
    assert "$" not in code + (root / "tests" / f"test_{module}.py").read_text(encoding="utf-8")
    assert oct(root.stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_plugin_module_works_and_conforms(tmp_path, monkeypatch):
    from ruleset.testing import check_plugin, node, pod, run_plugin

    assert main(["new-plugin", "gpu-packing", "--dir", str(tmp_path)]) == 0
    monkeypatch.syspath_prepend(str(tmp_path / "gpu-packing" / "src"))
    import gpu_packing

    check_plugin(gpu_packing.GpuPacking)
    run = run_plugin(gpu_packing.GpuPacking, pod("p"), [node("a", labels={"example.com/gpu-packing": "x"}),
                                                       node("b", labels={"example.com/gpu-packing": "off"}), node("c")])
    assert (run.feasible, run.scores) == (["a", "c"], {"a": 100, "c": 0})


@pytest.mark.parametrize(("name", "message"), [
    pytest.param("bad name", "error: bad name: invalid plugin package name: use letters, digits and single '-', '_' "
                             "or '.' between them, a letter first, at most 50 characters (e.g. gpu-packing)",
                 id="space"),
    pytest.param("1st", None, id="digit-first"),
    pytest.param("a--b", None, id="double-dash"),
    pytest.param("x" * 51, None, id="too-long"),
    pytest.param("-x", None, id="option-like"),
    pytest.param("class", "error: class: invalid plugin package name: its module name 'class' is taken (a keyword, "
                          "a standard or needed module)", id="keyword"),
    pytest.param("json", None, id="stdlib"),
    pytest.param("Ruleset", None, id="ruleset-itself"),
    pytest.param("node-name", "error: node-name: invalid plugin package name: its plugin name 'NodeName' is a "
                              "built-in plugin's; choose another name", id="builtin-plugin"),
])
def test_refuses_a_name_that_cannot_be_a_plugin_package(tmp_path, capsys, name, message):
    code = main(["new-plugin", "--dir", str(tmp_path), "--", name])
    out, err = capsys.readouterr()
    assert (code, out, list(tmp_path.iterdir())) == (2, "", [])
    [line] = err.splitlines()
    if message is not None:
        assert line == message
    assert line.startswith(f"error: {name}: invalid plugin package name: ")


@pytest.mark.parametrize("existing", ["folder", "file", "empty-folder"])
def test_never_writes_into_something_that_exists(tmp_path, capsys, existing):
    target = tmp_path / "demo"
    if existing == "file":
        target.write_text("mine")
    else:
        target.mkdir()
        if existing == "folder":
            (target / "keep.txt").write_text("mine")
    before = _files(tmp_path)
    assert main(["new-plugin", "demo", "--dir", str(tmp_path)]) == 2
    assert capsys.readouterr() == ("", f"error: {target}: already exists; new-plugin never writes into an "
                                       "existing folder\n")
    assert _files(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]


def test_a_missing_dir_is_an_input_error(tmp_path, capsys):
    assert main(["new-plugin", "demo", "--dir", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr() == ("", f"error: {tmp_path / 'nowhere' / 'demo'}: cannot create the package here: "
                                       f"{tmp_path / 'nowhere'} does not exist\n")


def test_writes_all_or_nothing(tmp_path, capsys, monkeypatch):
    from ruleset.cli import output

    real = output.write_files

    def fail_on_the_tests(outputs, force=False):
        real(outputs[:2], force)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output, "write_files", fail_on_the_tests)
    assert main(["new-plugin", "demo", "--dir", str(tmp_path)]) == 2
    assert capsys.readouterr()[1].startswith("error: ")
    assert list(tmp_path.iterdir()) == []


def test_every_template_is_package_data():
    # A wheel ships what is inside the package folder: the templates must be there, not beside it.
    folder = Path(new_plugin.__file__).resolve().parents[1] / "templates" / "plugin"
    assert sorted(p.name for p in folder.iterdir()) == sorted(t for t, _ in new_plugin.TEMPLATES)


def test_the_package_installs_and_its_tests_pass(tmp_path):
    """``ruleset new-plugin demo``, ``pip install ./demo``, ``pytest demo``: into a throwaway
    folder, never this environment (the entry point would leak into every later test)."""
    assert main(["new-plugin", "demo", "--dir", str(tmp_path)]) == 0
    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
               "--target", str(site), str(tmp_path / "demo")]
    try:
        import hatchling  # noqa: F401  (the build backend already here: no download needed)
    except ImportError:
        pass
    else:
        install.insert(4, "--no-build-isolation")
    done = subprocess.run(install, capture_output=True, text=True, timeout=50)
    if done.returncode != 0 and "hatchling" in done.stderr and ("connection" in done.stderr.lower()
                                                                or "No matching distribution" in done.stderr):
        pytest.skip(f"the build backend cannot be installed here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in site.iterdir()) == ["demo", "demo-0.1.0.dist-info"]
    env = {k: v for k, v in os.environ.items() if k != "RULESET_DISABLE_PLUGIN_AUTOLOAD"}
    env["PYTHONPATH"] = str(site)
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "demo"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=50)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert tests.stdout.strip().splitlines()[-1].startswith("4 passed")
