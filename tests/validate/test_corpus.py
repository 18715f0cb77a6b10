"""The profile corpus: every invalid profile gives exactly its expected diagnostics; valid ones give none.

``tests/profile/corpus/invalid/<case>.toml`` sits next to ``<case>.expected.json``, the
``files`` part of ``ruleset validate --output json`` for that case, run from the
``invalid`` folder (so paths are relative to it): every problem's severity, code, line,
column, key path and message, for the case file and for any file it extends that has
problems. An optional ``"with"`` lists files validated before the case (for checks across
files). ``bases/`` holds files the cases extend.

The valid corpus is every bundled profile, every ``corpus/valid/*.toml``, and every
profile in README.md's ```toml blocks (extracted here, so the README cannot drift).

After a deliberate change of messages, ``python tests/validate/test_corpus.py --write``
rewrites the expected files; review the diff before committing it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from ruleset.profile.loader import tomllib
from ruleset.validate import validate_files
from ruleset.validate.formats.json import document

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "profile" / "corpus"
INVALID = CORPUS / "invalid"
CASES = sorted(INVALID.glob("*.toml"))


def expected_path(case: Path) -> Path:
    return case.with_name(case.stem + ".expected.json")


def diagnostics(case: Path) -> dict:
    """What ``ruleset validate -o json [with...] case`` reports, run from the ``invalid`` folder."""
    expected_file = expected_path(case)
    extra = json.loads(expected_file.read_text()).get("with", []) if expected_file.exists() else []
    paths = [Path(p) for p in extra] + [Path(case.name)]
    report = validate_files(paths)
    out = {"files": document(report)["files"]}
    if extra:
        out = {"with": extra, **out}
    return out


def test_the_corpus_is_large_and_every_case_has_expectations():
    assert len(CASES) >= 60
    missing = [c.name for c in CASES if not expected_path(c).exists()]
    assert missing == []
    orphans = [p.name for p in INVALID.glob("*.expected.json") if not p.with_name(
        p.name.replace(".expected.json", ".toml")).exists()]
    assert orphans == []


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_invalid_profile_gives_exactly_its_diagnostics(case, monkeypatch):
    monkeypatch.chdir(INVALID)
    expected = json.loads(expected_path(case).read_text(encoding="utf-8"))
    expected.setdefault("with", [])
    actual = diagnostics(case)
    actual.setdefault("with", [])
    assert actual == expected
    mine = next(f for f in actual["files"] if f["path"] == case.name)
    others = [f for f in actual["files"] if f["path"] not in (case.name, *actual["with"])]
    # Each case shows at least one problem, in itself or in a file it extends.
    assert mine["problems"] or any(f["problems"] for f in others)


# ----------------------------------------------------------------------------- valid corpus
def readme_profiles() -> list[tuple[str, str, bool]]:
    """Every ```toml block of README.md that is a profile (or a fragment of one, given a name), and
    whether it is a fragment."""
    from ruleset.pluginmanager import load_registry
    from ruleset.profile.schema import profile_schema

    keys = set(profile_schema(load_registry())["properties"])
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for number, match in enumerate(re.finditer(r"^```toml\n(.*?)^```", text, re.S | re.M), 1):
        block = match.group(1)
        try:
            data = tomllib.loads(block)
        except tomllib.TOMLDecodeError as exc:
            raise AssertionError(f"README.md toml block {number} is not valid TOML: {exc}") from None
        if not set(data) <= keys:
            continue  # not a profile: pyproject.toml, .taplo.toml...
        fragment = "name" not in data
        if fragment:
            block = f'name = "readme-example-{number}"\n' + block
        line = text[:match.start()].count("\n") + 2
        out.append((f"README.md:{line}", block, fragment))
    return out


README_PROFILES = readme_profiles()
VALID_FILES = sorted((ROOT / "profiles").glob("*.toml")) + sorted((CORPUS / "valid").glob("*.toml"))


def test_readme_has_profile_examples():
    assert len(README_PROFILES) >= 3


@pytest.mark.parametrize("path", VALID_FILES, ids=[f"{p.parent.name}/{p.name}" for p in VALID_FILES])
def test_valid_profile_has_no_errors(path):
    report = validate_files([path])
    assert [str(p) for f in report.files for p in f.problems if p.severity == "error"] == []
    assert report.exit_code == 0


@pytest.mark.parametrize("where,text,fragment", README_PROFILES, ids=[w for w, _, _ in README_PROFILES])
def test_readme_profile_is_valid(where, text, fragment, tmp_path):
    path = tmp_path / "example.toml"
    path.write_text(text, encoding="utf-8")
    report = validate_files([path], strict=True)
    # A fragment (a block without a name) shows a few keys of some profile: which release that
    # profile names is not its business, so only a whole profile must say it.
    allowed = {"implicit-kubernetes-version"} if fragment else set()
    assert [f"{where}: {p.line}:{p.column}: {p.message}" for f in report.files for p in f.problems
            if p.code not in allowed] == []


def write_expectations() -> None:
    import os

    os.chdir(INVALID)
    for case in CASES:
        expected_path(case).write_text(json.dumps(diagnostics(case), indent=2, ensure_ascii=False) + "\n",
                                       encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_expectations()
