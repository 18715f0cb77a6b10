"""Issue 10: paths, writes, signals and output escaping never crash, hang, half-write or forge.

Each test is one of the issue's reproducers (numbered as there), run through
``ruleset.cli.main`` in a fresh folder: exit code, the exact one-line message on stderr,
no traceback, and what is left on disk.
"""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from xml.dom import minidom

import pytest

from ruleset.cli import main

IMPORT_TWO = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: alpha
- schedulerName: beta
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    started = time.perf_counter()
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert time.perf_counter() - started < 5.0
    assert "Traceback" not in err and "internal error" not in err
    return code, out, err


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------ 6. paths
@pytest.mark.parametrize(("argv", "expected"), [
    pytest.param(["validate", "a\0b.toml"], "error: a\\x00b.toml: no such file or directory\n", id="nul"),
    pytest.param(["validate", "x" * 300 + ".toml"], f"error: {'x' * 300}.toml: File name too long\n",
                 id="name-too-long"),
    pytest.param(["schedule", "--profile", "p\0.toml"], "error: p\\x00.toml: no such profile file, and no "
                 "bundled profile of that name (bundled: cluster-autoscaler, cluster-autoscaler-1.35, default, "
                 "default-1.20, legacy-policy)\n",
                 id="profile-nul"),
    pytest.param(["import", "c\0.yaml"], "error: c\\x00.yaml: no such file\n", id="import-nul"),
    pytest.param(["export", "default", "-o", "x\0.yaml"], "error: x\\x00.yaml: a path cannot contain a NUL byte\n",
                 id="export-nul"),
])
def test_impossible_paths_are_input_errors(capsys, argv, expected):
    assert run(capsys, *argv)[::2] == (2, expected)


def test_a_symlink_loop_is_no_such_file(capsys, in_tmp):
    os.symlink("loop1", "loop2")
    os.symlink("loop2", "loop1")
    assert run(capsys, "validate", "loop1")[::2] == (2, "error: loop1: no such file or directory\n")
    assert run(capsys, "import", "loop1")[::2] == (2, "error: loop1: no such file\n")


def test_a_fifo_in_a_validated_folder_is_skipped_with_a_note(capsys, in_tmp):
    (in_tmp / "d").mkdir()
    os.mkfifo(in_tmp / "d" / "a.toml")
    (in_tmp / "d" / "b.toml").write_text('name = "b"\nkubernetesVersion = "1.20"\n')
    assert run(capsys, "validate", "d") == (
        0, "1 file checked, 0 invalid, 0 errors, 0 warnings\n", "warning: d/a.toml: skipped: not a regular file\n")


# ------------------------------------------------------------------ 7. everyday output mistakes
def test_export_into_a_missing_folder(capsys):
    assert run(capsys, "export", "default", "-o", "missing/x.yaml")[::2] == (
        2, "error: missing/x.yaml: cannot write here: missing does not exist\n")
    assert not Path("missing").exists()


def test_export_onto_a_folder(capsys, in_tmp):
    (in_tmp / "d").mkdir()
    assert run(capsys, "export", "default", "-o", "d", "--force")[::2] == (
        2, "error: d: is a folder; name a file to write\n")
    assert os.listdir("d") == []


def test_import_into_a_file(capsys, in_tmp):
    Path("cfg.yaml").write_text(IMPORT_TWO)
    Path("f").write_text("keep")
    assert run(capsys, "import", "cfg.yaml", "-o", "f")[::2] == (
        2, "error: f: is not a folder; -o names the folder to write the profiles into\n")
    assert Path("f").read_text() == "keep"


def test_export_into_an_unwritable_folder(capsys, in_tmp, monkeypatch):
    # (As root every folder is writable, so the refusal the OS would give is simulated.)
    def refused(path, flags, mode=0o777):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "open", refused)
    code, _, err = run(capsys, "export", "default", "-o", "x.yaml")
    assert (code, err) == (2, "error: x.yaml: cannot write: Permission denied\n")
    assert os.listdir(in_tmp) == []


def test_a_full_disk_leaves_nothing_behind(capsys, in_tmp, monkeypatch):
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert run(capsys, "export", "default", "-o", "x.yaml")[::2] == (
        2, "error: x.yaml: cannot write: No space left on device\n")
    assert os.listdir(".") == []


# ------------------------------------------------------------------ 8. import typos
@pytest.mark.parametrize(("strategy", "expected"), [
    pytest.param("type: LeastAllocated\n    resources: 1",
                 "NodeResourcesFit args.scoringStrategy.resources: expected a list, got an integer",
                 id="resources-not-a-list"),
    pytest.param("type: [x]", "NodeResourcesFit args.scoringStrategy.type: expected a string, got a list",
                 id="type-not-a-string"),
    pytest.param("type: RequestedToCapacityRatio\n    requestedToCapacityRatio: x",
                 "NodeResourcesFit args.scoringStrategy.requestedToCapacityRatio: expected a mapping, got a string",
                 id="ratio-not-a-mapping"),
])
def test_import_refuses_wrongly_typed_scoring_strategy_fields(capsys, strategy, expected):
    Path("c.yaml").write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: a
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
        """) + "        " + strategy.replace("\n    ", "\n        ") + "\n")
    assert run(capsys, "import", "c.yaml")[::2] == (1, (
        f"error: c.yaml: profiles[0]: {expected}\n"
        "error: 1 item(s) cannot be imported; nothing written (--allow-lossy drops unsupported plugins and args)\n"))


def test_import_refuses_policy_extenders_that_are_not_a_list(capsys):
    Path("p.yaml").write_text("kind: Policy\napiVersion: v1\nextenders: 1\n")
    assert run(capsys, "import", "p.yaml")[::2] == (1, (
        "error: p.yaml: extenders: expected a list of extenders, got an integer\n"
        "error: 1 item(s) cannot be imported; nothing written (--allow-lossy drops unsupported plugins and args)\n"))


# ------------------------------------------------------------------ 9. all or nothing
def test_a_multi_file_import_that_fails_half_way_changes_nothing(capsys, in_tmp, monkeypatch):
    Path("cfg.yaml").write_text(IMPORT_TWO)
    (in_tmp / "out").mkdir()
    Path("out/alpha.toml").write_text("old alpha")
    real_replace = os.replace
    calls = []

    def second_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(5, "Input/output error", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", second_fails)
    code, _, err = run(capsys, "import", "cfg.yaml", "-o", "out", "--force")
    assert (code, err) == (2, "error: out/beta.toml: cannot write: Input/output error\n")
    assert sorted(os.listdir("out")) == ["alpha.toml"]
    assert Path("out/alpha.toml").read_text() == "old alpha"


def test_a_new_folder_is_removed_again_when_nothing_could_be_written(capsys, monkeypatch):
    Path("cfg.yaml").write_text(IMPORT_TWO)

    def broken(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    assert run(capsys, "import", "cfg.yaml", "-o", "new/out")[0] == 2
    assert not Path("new").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_import_leaves_the_folder_as_it_was(in_tmp, signum):
    Path("cfg.yaml").write_text(IMPORT_TWO)
    (in_tmp / "out").mkdir()
    Path("out/alpha.toml").write_text("old alpha")
    # The signal arrives while the second file's temporary is being written.
    script = textwrap.dedent(f"""
        import os, signal, sys
        from ruleset.cli import main
        real, calls = os.fsync, []
        def fsync(fd):
            calls.append(fd)
            if len(calls) == 2:
                os.kill(os.getpid(), {int(signum)})
            return real(fd)
        os.fsync = fsync
        sys.exit(main(["import", "cfg.yaml", "-o", "out", "--force"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "RULESET_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == (130 if signum == signal.SIGINT else 143), done.stderr
    assert "Traceback" not in done.stderr
    assert os.listdir("out") == ["alpha.toml"]
    assert Path("out/alpha.toml").read_text() == "old alpha"


# ------------------------------------------------------------------ 10. modes
def test_new_files_get_the_umask_and_replaced_files_keep_their_mode(capsys):
    old = os.umask(0o022)
    try:
        assert run(capsys, "export", "default", "-o", "x.yaml")[0] == 0
        assert stat.S_IMODE(os.stat("x.yaml").st_mode) == 0o644
        os.chmod("x.yaml", 0o640)
        assert run(capsys, "export", "default", "-o", "x.yaml", "--force")[0] == 0
        assert stat.S_IMODE(os.stat("x.yaml").st_mode) == 0o640
        os.umask(0o077)
        assert run(capsys, "export", "default", "-o", "y.yaml")[0] == 0
        assert stat.S_IMODE(os.stat("y.yaml").st_mode) == 0o600
    finally:
        os.umask(old)
    assert sorted(os.listdir(".")) == ["x.yaml", "y.yaml"]


# ------------------------------------------------------------------ 11. nothing forged
FORGING = 'name = "p"\n[plugins."a\\nerror: forged \\u001b[31m"]\n'


def test_control_characters_are_escaped_in_text_and_error_lines(capsys):
    Path("p.toml").write_text(FORGING)
    code, out, _ = run(capsys, "validate", "p.toml")
    assert (code, out) == (1, (
        "p.toml:2:10: error: plugins.\"a\\nerror: forged \\x1b[31m\": unknown plugin "
        "'a\\nerror: forged \\x1b[31m' [unknown-plugin]\n"
        "1 file checked, 1 invalid, 1 error, 0 warnings\n"))
    code, _, err = run(capsys, "schedule", "--profile", "p.toml")
    assert (code, err) == (2, (
        "error: p.toml:2:10: plugins.\"a\\nerror: forged \\x1b[31m\": unknown plugin "
        "'a\\nerror: forged \\x1b[31m'\n"))


def test_github_annotations_cannot_be_forged(capsys):
    Path("p.toml").write_text(FORGING)
    _, out, _ = run(capsys, "validate", "-o", "github", "p.toml")
    first, summary = out.splitlines()
    assert first == ("::error file=p.toml,line=2,col=10,title=unknown-plugin::plugins.\"a%0Aerror: forged \\x1b[31m\": "
                     "unknown plugin 'a\\nerror: forged \\x1b[31m'")
    assert summary == "1 file checked, 1 invalid, 1 error, 0 warnings"


def test_junit_stays_valid_xml(capsys):
    Path("p.toml").write_text('name = "p"\n[plugins."a\\u0001"]\n')
    code, out, _ = run(capsys, "validate", "-o", "junit", "p.toml")
    assert code == 1
    failure = minidom.parseString(out).getElementsByTagName("failure")[0]
    assert failure.getAttribute("message") == "plugins.\"a\\x01\": unknown plugin 'a\\x01'"


PROBE = "kind: Pod\nmetadata: {name: probe, namespace: default}\nspec: {containers: [{name: c}]}\n"


# The pinned lines are the v1.20 default profile's (named, as the bundled "default" is now the
# newest release's).
@pytest.mark.parametrize(("argv", "expected"), [
    pytest.param(["score", "--profile", "default-1.20"], {
        0: "pod shop/payments-9f7c-p0  profile default-1.20",
        5: "   20  NodeResourcesFit   Insufficient cpu                                                   "
           "gp-a-0, gp-a-1, gp-a-2, ...",
    }, id="score-unschedulable"),
    pytest.param(["score", "--profile", "default-1.20", "--pod", "probe.yaml"], {
        0: "pod default/probe  profile default-1.20",
        11: "gp-c-4   100 (0)        0  100 (0)         0        98         0          97        100  1000495"
            "  <- selected",
        29: "  Spread      PodTopologySpread x2",
        36: "  TOTAL       the sum of weight x normalized score",
    }, id="score-selected"),
    pytest.param(["schedule", "--profile", "default-1.20"], {
        0: "profile default-1.20: 10 pending pods",
        4: "cpu              48.8%  ->   56.8%  96.5 / 170 cores",
        28: "shop/web-7d9f8c6b5-p0  ->  gp-c-4   1000483",
    }, id="schedule"),
])
def test_any_output_encoding_works(monkeypatch, argv, expected):
    """An ASCII stdout gets the ASCII forms of the marks (->, x, <-, ...), never backslash escapes."""
    monkeypatch.setenv("COLUMNS", "120")
    Path("probe.yaml").write_text(PROBE)
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(argv) == 0
    stream.flush()
    text = raw.getvalue().decode("ascii")
    lines = text.splitlines()
    assert {i: lines[i] for i in expected} == expected
    assert "\\u" not in text


def test_an_undecodable_argument_is_escaped_in_json(capsys):
    code, out, _ = run(capsys, "selector", "\udcff", "--output", "json")
    assert code == 1
    assert '"selector": "\\udcff"' in out
