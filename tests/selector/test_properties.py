"""Property tests: canonical text round-trips, the parser fails only with SelectorError and agrees
with the transliteration of upstream's parser, and match_table agrees with matches."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleset.labels import LabelTable
from ruleset.selector import Requirement, Selector, SelectorError, parse
from tests.selector.k8s_reference import reference_parse

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALNUM = "abcXYZ019"
_alnum = st.sampled_from(ALNUM)
_inner = st.text(alphabet=ALNUM + "-_.", max_size=12)
# ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] and a DNS-1123 subdomain, built from characters
# rather than with from_regex, which is several times slower to draw from.
name_parts = _alnum | st.builds(lambda a, mid, b: a + mid + b, _alnum, _inner, _alnum)
_dns_label = st.sampled_from("az09") | st.builds(
    lambda a, mid, b: a + mid + b,
    st.sampled_from("az09"),
    st.text(alphabet="az09-", max_size=6),
    st.sampled_from("az09"),
)
prefixes = st.lists(_dns_label, min_size=1, max_size=3).map(".".join)
keys = st.one_of(
    name_parts,
    st.builds(lambda p, n: f"{p}/{n}", prefixes, name_parts),
    st.sampled_from(["in", "notin"]),
)
values = st.one_of(st.just(""), name_parts, st.sampled_from(["in", "notin"]))
integers = st.integers(min_value=0, max_value=2**63 - 1).map(str) | st.sampled_from(["0204", "007"])


@st.composite
def requirements(draw, key_strategy=keys, value_strategy=values):
    key = draw(key_strategy)
    op = draw(st.sampled_from(["in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt"]))
    if op in ("in", "notin"):
        vals = draw(st.lists(value_strategy, min_size=1, max_size=4))
    elif op in ("=", "==", "!="):
        vals = [draw(value_strategy)]
    elif op in ("gt", "lt"):
        vals = [draw(integers)]
    else:
        vals = []
    return Requirement(key, op, tuple(vals))


def selectors(requirement_strategy=None):
    if requirement_strategy is None:
        requirement_strategy = requirements()
    groups = st.lists(
        st.lists(requirement_strategy, min_size=1, max_size=4).map(tuple), min_size=1, max_size=3
    )
    return st.one_of(st.just(Selector.EVERYTHING), groups.map(lambda g: Selector(tuple(g))))


@FAST
@given(selectors())
def test_canonical_text_round_trips(selector):
    assert parse(str(selector)) == selector


FRAGMENTS = [
    "a", "x", "k8s.io/", "A_b-1.c", "in", "notin", "1", "-1", "0204", "", " ", "\t", "\n", "=", "==",
    "!", "!=", ">", "<", "(", ")", ",", "||", "|", "\x00", "é", "/", ".", "-", "_", "a" * 64, "in (",
    "notin (", "=in",
]  # fmt: skip
selectorish = st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join)


def _outcome(text):
    try:
        return parse(text)
    except SelectorError as exc:
        assert exc.text == text
        assert exc.column is not None and 1 <= exc.column <= len(text) + 1
        return exc


@FAST
@given(st.text(max_size=60))
def test_arbitrary_text_fails_only_with_selector_error(text):
    _outcome(text)


@settings(max_examples=800, deadline=None)
@given(selectorish)
def test_selectorish_text_agrees_with_upstream(text):
    result = _outcome(text)
    if "||" in text:
        return
    kind, reference = reference_parse(text)
    if isinstance(result, SelectorError):
        assert (kind, reference) == ("error", result.reason)
    else:
        assert kind == "ok"
        (group,) = result.groups
        ours = sorted((r.key, r.operator, r.values) for r in group)
        assert ours == sorted((k, op, tuple(sorted(set(vals)))) for k, op, vals in reference)


SMALL_KEYS = st.sampled_from(["a", "b", "c", "d"])
SMALL_VALUES = st.sampled_from(["", "x", "y", "1", "5", "10", "0204", "z9"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(SMALL_KEYS, SMALL_VALUES | st.sampled_from(["-3", "+2", "99999999999999999999"])),
        max_size=25,
    ),
    selectors(requirements(SMALL_KEYS, SMALL_VALUES)) | st.just(Selector.NOTHING),
)
def test_match_table_equals_matches(rows, selector):
    table = LabelTable(rows)
    assert selector.match_table(table).tolist() == [selector.matches(row) for row in rows]
