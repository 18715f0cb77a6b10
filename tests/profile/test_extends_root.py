"""Issue 10, item 12: ``extends`` stays inside the project, and no profile value imports code.

A profile from an untrusted pull request must not make CI read a file outside the checkout
(``/etc/passwd``, ``../../secrets.toml``) nor print what a file that is no profile holds,
and no plugin name may make ruleset import a module. Each test would see the read or the
import: reads are recorded at :func:`ruleset.reading.read_file`, the one function every
profile read goes through, and the would-be plugin module writes a marker when imported.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import ruleset.reading
from ruleset.cli import main

OUTSIDE_SECRET = "s3cr3t-outside"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """``tmp_path/proj`` as the working directory, a valid profile beside it (outside), whose
    args carry a secret that must never be printed."""
    (tmp_path / "outside.toml").write_text(
        f'name = "outside"\ndescription = "{OUTSIDE_SECRET}"\nkubernetesVersion = "1.20"\n')
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return proj


@pytest.fixture
def reads(monkeypatch):
    """Every path :func:`ruleset.reading.read_file` is asked to read, resolved."""
    seen: list[Path] = []
    real = ruleset.reading.read_file

    def spy(path, *args, **kwargs):
        seen.append(Path(path).resolve())
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ruleset.reading, "read_file", spy)
    monkeypatch.setattr("ruleset.profile.loader.read_file", spy)
    return seen


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(("extends", "message"), [
    pytest.param("/etc/passwd", "an absolute path is refused: name a bundled profile or a path relative to "
                 "this file", id="absolute"),
    pytest.param("/proc/self/environ", "an absolute path is refused: name a bundled profile or a path "
                 "relative to this file", id="proc-environ"),
    pytest.param("~/outside.toml", "an absolute path is refused: name a bundled profile or a path relative "
                 "to this file", id="home"),
    pytest.param("../outside.toml", "'../outside.toml' leads out of the project folder {root} (--root widens "
                 "it)", id="dotdot"),
    pytest.param("sub/../../outside.toml", "'sub/../../outside.toml' leads out of the project folder {root} "
                 "(--root widens it)", id="dotdot-inside"),
    pytest.param("../outside", "'../outside' leads out of the project folder {root} (--root widens it)",
                 id="dotdot-without-suffix"),
])
def test_extends_out_of_the_project_is_refused_unread(capsys, project, reads, extends, message):
    write(project / "p.toml", f'name = "p"\nextends = "{extends}"\n')
    code, out, err = run(capsys, "validate", "p.toml")
    expected = message.format(root=project.resolve())
    assert (code, out) == (1, f"p.toml:2:11: error: extends: {expected} [extends-outside-root]\n"
                              "1 file checked, 1 invalid, 1 error, 0 warnings\n")
    assert reads == [project.resolve() / "p.toml"]
    assert OUTSIDE_SECRET not in out + err


def test_schedule_refuses_it_too_with_exit_2(capsys, project, reads):
    write(project / "p.toml", 'name = "p"\nextends = "../outside.toml"\n')
    assert run(capsys, "schedule", "--profile", "p.toml") == (
        2, "", f"error: p.toml:2:11: extends: '../outside.toml' leads out of the project folder "
               f"{project.resolve()} (--root widens it)\n")
    assert project.parent.resolve() / "outside.toml" not in reads


def test_a_symbolic_link_out_of_the_project_is_refused(capsys, project, reads):
    os.symlink(project.parent / "outside.toml", project / "link.toml")
    write(project / "p.toml", 'name = "p"\nextends = "link.toml"\n')
    code, out, _ = run(capsys, "validate", "p.toml")
    assert code == 1
    assert "[extends-outside-root]" in out and OUTSIDE_SECRET not in out
    assert reads == [project.resolve() / "p.toml"]


def test_root_widens_the_project(capsys, project, reads):
    write(project / "p.toml", 'name = "p"\nextends = "../outside.toml"\n')
    assert run(capsys, "validate", "--root", "..", "p.toml") == (
        0, "1 file checked, 0 invalid, 0 errors, 0 warnings\n", "")
    assert project.parent.resolve() / "outside.toml" in reads
    code, out, _ = run(capsys, "show", "--root", "..", "p.toml", "-o", "json")
    assert code == 0 and '"name": "p"' in out


@pytest.mark.parametrize("command", ["schedule", "score"])
def test_root_is_taken_by_the_run_commands(capsys, project, command):
    write(project / "p.toml", 'name = "p"\nextends = "../outside.toml"\n')
    assert run(capsys, command, "--root", "..", "--profile", "p.toml", "-o", "json")[0] == 0


def test_root_is_taken_by_export(capsys, project):
    write(project / "p.toml", 'name = "p"\nextends = "../outside.toml"\n')
    assert run(capsys, "export", "p.toml")[0] == 2
    assert run(capsys, "export", "--root", "..", "p.toml")[0] == 0


def test_inside_the_project_relative_paths_work(capsys, project):
    (project / "base").mkdir()
    write(project / "base" / "b.toml", 'name = "b"\nextends = "default"\n')
    write(project / "p.toml", 'name = "p"\nextends = "base/b.toml"\n')
    write(project / "base" / "c.toml", 'name = "c"\nextends = "../p"\n')
    assert run(capsys, "validate", "p.toml", "base/c.toml") == (
        0, "2 files checked, 0 invalid, 0 errors, 0 warnings\n", "")


def test_bundled_names_work_from_anywhere(capsys, project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(elsewhere / "p.toml", 'name = "p"\nextends = "cluster-autoscaler"\n')
    assert run(capsys, "validate", str(elsewhere / "p.toml"))[0] == 0
    assert run(capsys, "show", "legacy-policy", "-o", "json")[0] == 0


def test_a_profile_outside_the_working_directory_is_its_own_root(capsys, project, tmp_path):
    # The folder of the named profile is the project then: its siblings may be extended,
    # its parent's files may not.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(elsewhere / "base.toml", 'name = "base"\n')
    write(elsewhere / "ok.toml", 'name = "ok"\nextends = "base.toml"\n')
    write(elsewhere / "bad.toml", 'name = "bad"\nextends = "../outside.toml"\n')
    assert run(capsys, "validate", str(elsewhere / "ok.toml"))[0] == 0
    code, out, _ = run(capsys, "validate", str(elsewhere / "bad.toml"))
    assert code == 1 and f"leads out of the project folder {elsewhere.resolve()}" in out


@pytest.mark.parametrize(("text", "shown"), [
    pytest.param(f'token = "{OUTSIDE_SECRET}"\n', "", id="no-name"),
    pytest.param(f'name = 3\ntoken = "{OUTSIDE_SECRET}"\n', "", id="name-not-a-string"),
    pytest.param(f'name = "x"\n[aws]\nkey = "{OUTSIDE_SECRET}"\n', "", id="foreign-keys"),
])
def test_a_file_that_is_no_profile_is_refused_without_its_content(capsys, project, text, shown):
    write(project / "secrets.toml", text)
    write(project / "p.toml", 'name = "p"\nextends = "secrets.toml"\n')
    code, out, err = run(capsys, "validate", "-o", "json", "p.toml")
    assert code == 1
    assert OUTSIDE_SECRET not in out + err
    assert "it is not a ruleset profile" in out and '"code": "extends-invalid"' in out
    code, out, err = run(capsys, "schedule", "--profile", "p.toml")
    assert code == 2 and OUTSIDE_SECRET not in out + err
    assert err == ("error: p.toml:2:11: extends: cannot extend 'secrets.toml': it is not a ruleset profile (a "
                   "profile has a name, and no keys but description, extends, featureGates, kubernetesVersion, name, "
                   "percentageOfNodesToScore, plugins, rules, schedulerName)\n")


@pytest.mark.parametrize("extends", [
    pytest.param("x" * 300, id="name-too-long"),
    pytest.param("a\\u0000b", id="nul"),
    pytest.param("loop1", id="symlink-loop"),
])
def test_impossible_extends_paths_are_not_found(capsys, project, extends):
    os.symlink("loop2", project / "loop1")
    os.symlink("loop1", project / "loop2")
    write(project / "p.toml", f'name = "p"\nextends = "{extends}"\n')
    code, out, _ = run(capsys, "validate", "p.toml")
    assert code == 1
    assert out.startswith("p.toml:2:11: error: extends: cannot find profile ") and "[extends-not-found]" in out


@pytest.mark.parametrize(("argv", "reason"), [
    pytest.param(["validate", "--root", "nowhere", "p.toml"], "No such file or directory", id="missing"),
    pytest.param(["schedule", "--root", "p.toml"], "not a folder", id="a-file"),
    pytest.param(["show", "--root", "a\0b", "default"], "not a valid path", id="nul"),
])
def test_a_root_that_is_no_folder_is_an_input_error(capsys, project, argv, reason):
    write(project / "p.toml", 'name = "p"\n')
    code, out, err = run(capsys, *argv)
    root = argv[argv.index("--root") + 1].replace("\0", "\\x00")
    assert (code, out, err) == (2, "", f"error: {root}: --root: {reason}\n")


@pytest.mark.parametrize("name", ["evilmod", "evilmod.Plugin", "evilmod:Plugin", "os.system"])
def test_a_plugin_name_never_imports_a_module(capsys, project, monkeypatch, name):
    marker = project / "imported"
    (project / "evilmod.py").write_text(f"open({str(marker)!r}, 'w').close()\nclass Plugin: pass\n")
    monkeypatch.syspath_prepend(str(project))
    write(project / "p.toml", f'name = "p"\n[plugins."{name}"]\n')
    code, out, _ = run(capsys, "validate", "p.toml")
    assert code == 1
    key = name if name.isidentifier() else f'"{name}"'
    assert out.startswith(f"p.toml:2:10: error: plugins.{key}: unknown plugin '{name}'")
    assert not marker.exists() and "evilmod" not in sys.modules
