"""Selector syntax errors inside ``[[rules]]`` point at file:line:col of the offending character."""

import textwrap

from ruleset.cli import main
from ruleset.profile.loader import check_profile
from ruleset.profile.toml_positions import string_column as selector_error_column

UNCLOSED = "unable to parse requirement: found '', expected: ',' or ')'"


def write(tmp_path, text, name="p.toml", dedent=True):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text) if dedent else text, newline="")
    return path


def located(path):
    _, problems = check_profile(path)
    return [(p.line, p.column, p.path, p.code, p.message) for p in problems]


def test_unclosed_set_points_at_the_end_of_the_expression(tmp_path):
    path = write(tmp_path, """\
        name = "p"
        [[rules]]
        name = "tiers"
        require = "tier in (a, b"
        """)
    #          1234567890123456789012345
    # line 4:  require = "tier in (a, b"   -> the closing quote, just after the expression, is column 25
    assert located(path) == [(4, 25, "rules[0].require", "invalid-selector",
                              f"rule 'tiers': invalid selector: {UNCLOSED}")]
    _, [problem] = check_profile(path)
    assert str(problem) == f"{path}:4:25: rules[0].require: rule 'tiers': invalid selector: {UNCLOSED}"


def test_offending_token_in_the_middle(tmp_path):
    path = write(tmp_path, """\
        name = "p"

        [[rules]]
        name = "ok"
        prefer = "zone=a"

        [[rules]]
        name = "double-comma"
        prefer = "disktype=ssd,,zone=a"
        """)
    # prefer = "disktype=ssd,,zone=a": the quote is column 10, the second comma expression column 14.
    assert located(path) == [(9, 24, "rules[1].prefer", "invalid-selector", "rule 'double-comma': invalid "
                              "selector: found ',', expected: identifier after ','")]


def test_pods_and_a_value_error(tmp_path):
    path = write(tmp_path, """\
        name = "p"
        [[rules]]
        name = "r"
        pods = "app in (a b)"
        require = "zone=a$"
        """)
    problems = located(path)
    assert [p[:4] for p in problems] == [(4, 19, "rules[0].pods", "invalid-selector"),
                                         (5, 17, "rules[0].require", "invalid-selector")]
    prefix = "rule 'r': invalid selector: unable to parse requirement: "
    assert problems[0][4] == prefix + "found 'b', expected: ',' or ')'"
    assert problems[1][4].startswith(prefix + 'invalid label value: "a$": at key: "zone"')


def test_literal_strings_indentation_and_spacing(tmp_path):
    text = "name = \"p\"\n[[rules]]\n\tname = 'r'\n\trequire   =   'tier in (a, b) extra'\n"
    path = write(tmp_path, text, dedent=False)
    # tab = 1 column: require at 2, the quote at 16, "extra" at expression column 16 -> 16 + 16 = 32.
    assert located(path)[0][:3] == (4, 32, "rules[0].require")


def test_inline_tables_and_unicode_columns(tmp_path):
    path = write(tmp_path, """\
        name = "p"
        rules = [{ name = "ünïcødé", require = "a in (b" }]
        """)
    # Columns count code points: the quote of the require value is column 40, "a in (b" has 7 characters.
    assert located(path) == [(2, 48, "rules[0].require", "invalid-selector",
                              f"rule 'ünïcødé': invalid selector: {UNCLOSED}")]


def test_crlf_line_endings(tmp_path):
    text = 'name = "p"\r\n[[rules]]\r\nname = "r"\r\nrequire = "tier in (a, b"\r\n'
    path = write(tmp_path, text, dedent=False)
    assert located(path)[0][:3] == (4, 25, "rules[0].require")


def test_escapes_after_the_error_keep_the_exact_column(tmp_path):
    path = write(tmp_path, r"""
        name = "p"
        [[rules]]
        name = "r"
        require = "a b,c=\u0064"
        """)
    # The escape comes after the offending "b" (expression column 3): exact.
    assert located(path)[0][:3] == (5, 14, "rules[0].require")


def test_escapes_before_the_error_fall_back_to_the_value_start(tmp_path):
    path = write(tmp_path, r"""
        name = "p"
        [[rules]]
        name = "r"
        require = "c=\u0064,a b"
        """)
    assert located(path)[0][:3] == (5, 11, "rules[0].require")


def test_multi_line_strings_fall_back_to_the_value_start(tmp_path):
    path = write(tmp_path, '''\
        name = "p"
        [[rules]]
        name = "r"
        require = """
        tier in (a, b"""
        prefer = \'\'\'a b\'\'\'
        ''')
    assert [p[:3] for p in located(path)] == [(4, 11, "rules[0].require"), (6, 10, "rules[0].prefer")]


def test_index_is_the_rules_index_in_its_file(tmp_path):
    write(tmp_path, """\
        name = "base"
        [[rules]]
        name = "a"
        require = "a"
        [[rules]]
        name = "b"
        require = "b"
        """, name="base.toml")
    path = write(tmp_path, """\
        name = "child"
        extends = "base.toml"
        [[rules]]
        name = "c"
        require = "c in ("
        """)
    assert [(p.file, p.line, p.column, p.path) for p in check_profile(path)[1]] == [
        (str(path), 5, 18, "rules[0].require")]


def test_score_command_reports_the_location_and_exits_2(tmp_path, capsys):
    path = write(tmp_path, """\
        name = "p"
        [[rules]]
        name = "tiers"
        require = "tier in (a, b"
        """)
    assert main(["score", "--profile", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: {path}:4:25: rules[0].require: rule 'tiers': invalid selector: {UNCLOSED}\n"


def test_selector_error_column_directly():
    text = 'require = "a in (b"\n'
    assert selector_error_column(text, 1, 11, "a in (b", 8) == 9  # quote is 1, expression starts at 2
    assert selector_error_column(text, 1, 11, "a in (b", 1) == 2
    assert selector_error_column("\ufeff" + text, 1, 11, "a in (b", 8) == 9  # a BOM takes no column
    assert selector_error_column(text, 7, 11, "a in (b", 8) == 1  # nonsense position: value start
    assert selector_error_column('x = """a"""\n', 1, 5, "a", 2) == 1
