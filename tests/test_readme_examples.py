"""README.md tells the truth: every command line of its ```sh / ```console / ```bash blocks
runs, and every TOML profile it shows validates.

The rules, which README.md's markers (HTML comments right before a block) rely on:

* **Blocks.** A fenced block (indented fences included) of language ``sh``, ``console`` or
  ``bash`` is a command block; ``$ `` prompts are dropped, ``#`` comment lines and comments
  at line ends ignored. Other languages are not run, except ``toml`` (below) and a block
  marked ``<!-- readme-test: file NAME -->``, whose text is written to NAME in the working
  folder of every command block, as a reader saves it.
* **Where commands run.** The command blocks under one heading run once, their lines in
  order as a reader following that section pastes them, in a fresh temporary folder holding ``tests/readme_fixtures/`` (the files
  the README names: ``my-profile.toml``, ``kube-scheduler-config.yaml``, ``profiles/``,
  ``web.toml``, ``teams/``), ``cluster.yaml`` (a copy of the bundled demo cluster) and
  the marked files. ``-o FILE`` outputs land there.
* **Which lines run.** A line starting ``ruleset`` or ``.venv/bin/ruleset`` runs in-process
  through ``ruleset.cli.main`` (shlex-split), stdout and stderr captured; a trailing
  ``> FILE`` writes its stdout to FILE. Every other line, and any other shell syntax (pipes,
  ``&&``, ``||``, ``;``, ``<``), must be in :data:`SKIPPED` with the reason it is not run, or
  in :data:`STAND_INS` (a ruleset line run with extra arguments that stand in for a skipped
  step), so a new command line fails here until it is classified. The blocks marked
  ``ci:main-command`` and ``ci:test-command`` are skipped: ``.ci/run`` runs them in a fresh
  virtual environment.
* **Exit codes.** 0, unless the block is marked ``<!-- readme-test: exit N -->`` (every
  ruleset line) or ``<!-- readme-test: exit N1 N2 … -->`` (one per ruleset line, in order).
  No line may print a traceback.
* **Output.** A line with ``--output json`` / ``-o json`` prints one JSON document with
  ``"schemaVersion": 1``. An ``import``/``export`` that succeeds wrote its ``-o`` target. A
  ```text block that follows a command block (nothing but blank lines between) shows the
  output of the block's last command: its lines must be exactly what that command prints,
  stdout then stderr, trailing spaces ignored; a last line ``…`` means the output goes on,
  and only the lines above it must be the first lines printed. Other ```text blocks are
  illustrations and are not checked. ``score`` and ``schedule`` text is not compared (its
  layout is free to change); :func:`test_the_quick_start_pod_fits_and_shows_plugin_scores`
  checks through JSON that the quick start shows plugin scores.
* **TOML.** A ```toml block holding a ``name`` is a complete profile: ``ruleset validate``
  must find no error and no warning in it. Marked ``<!-- readme-test: demo -->``, it is also
  scheduled on the demo cluster, where it may leave unschedulable only pods the bundled
  ``default`` profile leaves unschedulable too. Other TOML blocks are in
  :data:`TOML_FRAGMENTS` by their first line: skipped with a reason, or validated after a
  header that makes them a profile.

Test ids are README line numbers (``L42``).
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ruleset.bundled import demo_cluster
from ruleset.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README_PATH = ROOT / "README.md"
FIXTURES = Path(__file__).resolve().parent / "readme_fixtures"

COMMAND_LANGUAGES = frozenset({"sh", "console", "bash"})
RULESET = frozenset({"ruleset", ".venv/bin/ruleset"})
#: Shell syntax an in-process run cannot honour (a trailing ``> FILE`` is honoured).
SHELL_OPERATORS = frozenset({"|", "||", "&&", ";", "&", "<", ">>", "(", ")", ";;", "<<"})
CI_MARKERS = {"ci:main-command": "README's main command: .ci/run runs it in a fresh venv",
              "ci:test-command": "README's test command: .ci/run runs it in a fresh venv"}

#: Command lines that are not run, by their words (comments and extra spaces dropped), and why.
SKIPPED: dict[str, str] = {
    "dask scheduler --port 8786":
        "starts a Dask scheduler; tests/sweep/test_sweep_engines.py runs the dask engine on a LocalCluster",
    "dask worker tcp://HOST:8786 --nworkers 2 --nthreads 1":
        "starts Dask workers; tests/sweep/test_sweep_engines.py runs the dask engine on a LocalCluster",
    "ruleset sweep --sweep sweep.toml --engine dask --scheduler tcp://HOST:8786 --out sweep-out":
        "needs a running Dask cluster; tests/sweep/test_sweep_engines.py runs this path on a LocalCluster",
    "python bench/run.py --scale small":
        "the benchmark suite takes half a minute of two cores; tests/bench/test_reference_path.py runs every "
        "workload at a tiny size",
    "python bench/run.py --scale full":
        "the benchmark suite at upstream's sizes takes about 1.5 minutes",
    "python bench/run.py --scale full --repeat 3":
        "the benchmark suite at upstream's sizes, best of 3, takes about 3 minutes; README's table is its output",
    "kubectl get nodes,pods,services,replicasets,statefulsets,pdb,priorityclasses,pvc,pv,storageclass,csinode,"
    "csidriver,csistoragecapacity -A -o yaml > cluster.yaml":
        "needs a live cluster; cluster.yaml is a copy of the bundled demo cluster instead",
    "pip install -e ./gpu-packing[test]":
        "installs into the running environment; tests/cli/test_new_plugin_command.py installs a "
        "scaffolded package into a venv of its own",
    "pytest gpu-packing":
        "the scaffold's own tests: tests/cli/test_new_plugin_command.py runs them after installing it",
}

#: ruleset lines run with extra arguments standing in for a skipped line before them, and why.
STAND_INS: dict[str, tuple[tuple[str, ...], str]] = {
    "ruleset plugins GpuPacking": (
        ("--plugin", "gpu-packing/src/gpu_packing/__init__.py"),
        "the skipped `pip install -e` would have installed the scaffold: load its module with --plugin",
    ),
}

#: TOML blocks that are no complete profile, by their first line: ("skip", why) or ("wrap", header).
TOML_FRAGMENTS: dict[str, tuple[str, str]] = {
    'profiles = ["default-1.20", "cluster-autoscaler"]': ("skip", "a sweep file, not a profile"),
    "# checks.test.toml: what we mean the default profile to do on our cluster":
        ("skip", "a ruleset test file, not a profile: the `ruleset test` line below runs it"),
    "# the package's pyproject.toml": ("skip", "a plugin package's pyproject.toml, not a profile"),
    "# .taplo.toml": ("skip", "Taplo's configuration, not a profile"),
    "[[rules]]": ("wrap", 'name = "readme-rules"\nextends = "default"\n\n'),
}

#: Commands whose ``-o`` names a file or folder they write (elsewhere ``-o`` is a format).
WRITES_OUTPUT = frozenset({"import", "export"})
MARKER = re.compile(r"^\s*<!--\s*(?P<body>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced block of README.md: its language, fence line (1-based), text lines and markers."""

    lang: str
    line: int
    end: int
    text: tuple[str, ...]
    markers: tuple[str, ...]
    section: int  # the line of the heading the block is under

    def directives(self) -> dict[str, list[str]]:
        """The ``readme-test:`` markers, as {directive: arguments}."""
        out = {}
        for marker in self.markers:
            if marker.startswith("readme-test:"):
                word, *args = marker.removeprefix("readme-test:").split()
                out[word] = args
        return out


@dataclass(frozen=True)
class Command:
    """One command line of a command block."""

    block: Block
    line: int
    words: tuple[str, ...]

    @property
    def key(self) -> str:
        return " ".join(self.words)

    def skip_reason(self) -> str | None:
        """Why this line is not run, or None when it runs."""
        for marker, reason in CI_MARKERS.items():
            if marker in self.block.markers:
                return reason
        return SKIPPED.get(self.key)

    def argv(self) -> tuple[list[str], str | None]:
        """The ruleset arguments and the file a trailing ``> FILE`` sends stdout to; raises
        AssertionError for a line nobody classified."""
        words = list(self.words)
        redirect = None
        if len(words) >= 2 and words[-2] == ">":
            redirect, words = words[-1], words[:-2]
        extra: tuple[str, ...] = ()
        if self.key in STAND_INS:
            extra = STAND_INS[self.key][0]
        unknown = [w for w in words if w in SHELL_OPERATORS or w.startswith((">", "<", "|", "&"))]
        if not words or words[0] not in RULESET or unknown:
            raise AssertionError(f"README.md:{self.line}: {self.key!r} is neither a ruleset command nor in "
                                 "SKIPPED: classify it")
        return [*words[1:], *extra], redirect


def parse_blocks(text: str) -> list[Block]:
    """Every fenced block of ``text``, with the HTML-comment markers right before it."""
    lines = text.splitlines()
    blocks = []
    i = section = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            if lines[i].startswith("#"):
                section = i + 1
            i += 1
            continue
        indent = len(fence["indent"])
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        markers = []
        j = i - 1
        while j >= 0 and (not lines[j].strip() or MARKER.match(lines[j])):
            if (found := MARKER.match(lines[j])) is not None:
                markers.append(found["body"])
            j -= 1
        body = tuple(_dedent(line, indent) for line in lines[i + 1:end])
        blocks.append(Block(fence["lang"], i + 1, end + 1, body, tuple(reversed(markers)), section))
        i = end + 1
    return blocks


def _dedent(line: str, indent: int) -> str:
    """``line`` without the fence's indentation (a line indented less loses what it has)."""
    return line[min(indent, len(line) - len(line.lstrip(" "))):]


def split_words(line: str) -> tuple[str, ...]:
    """A shell line's words, comments dropped, operators (``>``, ``|``, ``&&``…) as words of their own."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return tuple(lexer)


def commands(block: Block) -> list[Command]:
    """The command lines of a command block (``\\`` continuations joined, ``$`` prompts dropped)."""
    out = []
    pending, start = "", 0
    for offset, raw in enumerate(block.text):
        line = raw.strip()
        if block.lang == "console":
            if not line.startswith("$ "):
                continue  # console output
            line = line[2:]
        if not pending:
            start = block.line + 1 + offset
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        words = split_words(line)
        if words:
            out.append(Command(block, start, words))
    return out


README = README_PATH.read_text(encoding="utf-8")
BLOCKS = parse_blocks(README)
COMMAND_BLOCKS = [b for b in BLOCKS if b.lang in COMMAND_LANGUAGES]
COMMANDS = [c for b in COMMAND_BLOCKS for c in commands(b)]
TOML_BLOCKS = [b for b in BLOCKS if b.lang == "toml"]


def text_after(block: Block) -> Block | None:
    """The ```text block right after ``block`` (only blank lines between), if any."""
    lines = README.splitlines()
    for candidate in BLOCKS:
        if candidate.line > block.end:
            between = lines[block.end:candidate.line - 1]
            if candidate.lang == "text" and all(not line.strip() for line in between):
                return candidate
            return None
    return None


# ---- running commands in-process ------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one ruleset line did."""

    code: int
    out: str
    err: str
    workdir: Path


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    # A fixed width and no plugin modules from the caller's environment: the same answers everywhere.
    try:
        with mock.patch.dict(os.environ, {"COLUMNS": "120", "NO_COLOR": "1"}):
            os.environ.pop("RULESET_PLUGINS", None)
            yield
    finally:
        os.chdir(before)


def run_cli(argv: list[str], folder: Path) -> tuple[int, str, str]:
    """``ruleset ARGV`` in-process in ``folder``: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with _inside(folder), redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def workdir(base: Path) -> Path:
    """A fresh folder holding what the README's commands read."""
    shutil.copytree(FIXTURES, base)
    shutil.copyfile(demo_cluster(), base / "cluster.yaml")
    for block in BLOCKS:
        if "file" in block.directives():
            [name] = block.directives()["file"]
            (base / name).write_text("\n".join(block.text) + "\n", encoding="utf-8")
    return base


_RUNS: dict[int, dict[int, Outcome]] = {}


def run_section(block: Block, tmp_path_factory: pytest.TempPathFactory) -> dict[int, Outcome]:
    """Run the ruleset lines of the command blocks under ``block``'s heading once, in order, in
    one fresh folder: outcomes by line."""
    if block.section not in _RUNS:
        folder = workdir(tmp_path_factory.mktemp(f"readme-L{block.section}-") / "work")
        outcomes = {}
        for command in (c for c in COMMANDS if c.block.section == block.section):
            if command.skip_reason() is not None:
                continue
            argv, redirect = command.argv()
            code, out, err = run_cli(argv, folder)
            if redirect is not None:
                (folder / redirect).write_text(out, encoding="utf-8")
            outcomes[command.line] = Outcome(code, out, err, folder)
        _RUNS[block.section] = outcomes
    return _RUNS[block.section]


def expected_codes(block: Block) -> dict[int, int]:
    """The exit code each ruleset line of ``block`` must give, by line."""
    run = [c.line for c in commands(block) if c.skip_reason() is None]
    codes = [int(code) for code in block.directives().get("exit", ["0"])]
    if len(codes) == 1:
        codes *= len(run)
    assert len(codes) == len(run), (f"README.md:{block.line}: the exit marker gives {len(codes)} codes "
                                    f"for {len(run)} ruleset lines")
    return dict(zip(run, codes, strict=True))


def _option(argv: list[str], *names: str) -> str | None:
    for i, word in enumerate(argv[:-1]):
        if word in names:
            return argv[i + 1]
    return None


def check_shown_output(shown: Block, outcome: Outcome) -> None:
    """The ```text block's lines are what the command printed (stdout then stderr)."""
    printed = [line.rstrip() for line in (outcome.out + outcome.err).splitlines()]
    expected = [line.rstrip() for line in shown.text]
    if expected and expected[-1] in ("…", "..."):
        assert printed[:len(expected) - 1] == expected[:-1]
    else:
        assert printed == expected


@pytest.mark.parametrize("command", COMMANDS, ids=[f"L{c.line}" for c in COMMANDS])
def test_command_line(command: Command, tmp_path_factory: pytest.TempPathFactory) -> None:
    reason = command.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    argv, _ = command.argv()
    if command.key in STAND_INS:
        print(f"stand-in: {STAND_INS[command.key][1]}")
    outcome = run_section(command.block, tmp_path_factory)[command.line]
    assert "Traceback" not in outcome.err
    assert outcome.code == expected_codes(command.block)[command.line], outcome.err
    if _option(argv, "--output", "-o") == "json":
        assert json.loads(outcome.out)["schemaVersion"] == 1
    if argv[0] in WRITES_OUTPUT and outcome.code == 0 and (target := _option(argv, "-o", "--output")):
        assert (outcome.workdir / target).exists()
    runs = [c for c in commands(command.block) if c.skip_reason() is None]
    shown = text_after(command.block)
    if shown is not None and runs[-1].line == command.line:
        check_shown_output(shown, outcome)


def test_every_shown_output_follows_a_command_that_runs() -> None:
    # A ```text block after a command block whose last line is skipped would go unchecked.
    unchecked = [b.line for b in COMMAND_BLOCKS
                 if text_after(b) is not None and (not commands(b) or commands(b)[-1].skip_reason() is not None)]
    assert unchecked == []


def test_every_classified_line_is_in_the_readme() -> None:
    # An entry whose README line changed or went away must be removed, not left behind.
    keys = {c.key for c in COMMANDS}
    first_lines = {next((line.strip() for line in b.text if line.strip()), "") for b in TOML_BLOCKS}
    assert sorted(set(SKIPPED) - keys) == []
    assert sorted(set(STAND_INS) - keys) == []
    assert sorted(set(TOML_FRAGMENTS) - first_lines) == []


def test_markers_are_known() -> None:
    known = {"exit", "file", "demo"}
    unknown = [(b.line, m) for b in BLOCKS for m in b.markers
               if m.startswith("readme-test:") and m.removeprefix("readme-test:").split()[0] not in known]
    assert unknown == []


def test_the_readme_has_the_command_blocks_these_tests_expect() -> None:
    # A parser that found nothing would pass every test above.
    assert len(COMMAND_BLOCKS) >= 8
    assert {m for b in COMMAND_BLOCKS for m in b.markers} >= {"ci:main-command", "ci:test-command"}
    assert len([c for c in COMMANDS if c.skip_reason() is None]) >= 10


# ---- the quick start ------------------------------------------------------------------------------


def test_the_quick_start_pod_fits_and_shows_plugin_scores(tmp_path: Path) -> None:
    quick_start = README.index("## Quick start")
    first_line = README.count("\n", 0, quick_start) + 1
    score = next(c for c in COMMANDS if c.line > first_line and c.skip_reason() is None and c.words[1] == "score")
    argv, _ = score.argv()
    code, out, err = run_cli([*argv, "--output", "json"], workdir(tmp_path / "work"))
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["selected"] is not None, report["message"]
    [selected] = [node for node in report["nodes"] if node["name"] == report["selected"]]
    # The bundled default is kube-scheduler 1.35's: NodeResourcesFit scores, NodePreferAvoidPods is gone,
    # and InterPodAffinity skips a pod with no affinity term at PreScore (1.28+).
    assert sorted(selected["scores"]) == [
        "ImageLocality", "NodeAffinity", "NodeResourcesBalancedAllocation", "NodeResourcesFit",
        "PodTopologySpread", "TaintToleration"]


# ---- TOML profiles --------------------------------------------------------------------------------


def _unschedulable(profile: str, folder: Path) -> set[str]:
    code, out, err = run_cli(["schedule", "--profile", profile, "--output", "json"], folder)
    assert (code, err) == (0, "")
    placements = json.loads(out)["placements"]
    assert placements, "the demo has pending pods"
    return {p["pod"] for p in placements if p["node"] is None}


def _profile_text(block: Block) -> str:
    """The profile a TOML block is (a fragment with its header); skips a block that is none."""
    text = "\n".join(block.text) + "\n"
    first = next((line.strip() for line in block.text if line.strip()), "")
    if first in TOML_FRAGMENTS:
        action, value = TOML_FRAGMENTS[first]
        if action == "skip":
            pytest.skip(value)
        return value + text
    document: dict[str, Any] = tomllib.loads(text)
    assert "name" in document, f"README.md:{block.line}: a TOML block that is no profile: add it to TOML_FRAGMENTS"
    return text


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=[f"L{b.line}" for b in TOML_BLOCKS])
def test_toml_profile(block: Block, tmp_path: Path) -> None:
    text = _profile_text(block)
    folder = workdir(tmp_path / "work")
    (folder / "readme-profile.toml").write_text(text, encoding="utf-8")
    code, out, err = run_cli(["validate", "readme-profile.toml", "--output", "json"], folder)
    assert json.loads(out)["files"][0]["problems"] == []
    assert (code, err) == (0, "")
    if "demo" in block.directives():
        assert _unschedulable("readme-profile.toml", folder) <= _unschedulable("default", folder)


def test_the_first_profile_example_is_scheduled_on_the_demo() -> None:
    profiles_section = README.index("## Profiles")
    first = next(b for b in TOML_BLOCKS if README.count("\n", 0, profiles_section) + 1 < b.line)
    assert "demo" in first.directives()
