"""Reading YAML streams exactly as the API server's decoding (go-yaml v2 through
sigs.k8s.io/yaml) and PyYAML's YAML 1.1 rules agree on, within :mod:`ruleset.reading`'s limits,
with the line of every key and item kept for located problems.

Apart from :mod:`ruleset.reading` so that commands reading no YAML (``ruleset validate`` of a
TOML profile, run by pre-commit hooks) do not pay for importing PyYAML.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import GeneratorType
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from ruleset import native_yaml
from ruleset.errors import Problem, RulesetError
from ruleset.reading import (
    MAX_INT_DIGITS,
    MAX_KEY_TEXT,
    LimitError,
    Limits,
    LocatedDict,
    LocatedList,
    _depth_message,
    _digits_message,
    _size,
    _yaml_int_too_long,
)

__all__ = ["ALIAS_MIN_ALIASED", "ALIAS_MIN_DECODED", "allowed_alias_ratio", "load_yaml"]

#: go-yaml v2 (gopkg.in/yaml.v2 v2.4.0, decode.go), which the API server's YAML decoding
#: (sigs.k8s.io/yaml) runs on: between these decode counts the allowed share of aliased
#: decodes falls from 99% to 10%.
ALIAS_RATIO_RANGE_LOW = 400_000
ALIAS_RATIO_RANGE_HIGH = 4_000_000
ALIAS_RATIO_RANGE = float(ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW)
#: ... and a document is refused only past this many aliased decodes and this many decodes.
ALIAS_MIN_ALIASED = 100
ALIAS_MIN_DECODED = 1000


def allowed_alias_ratio(decode_count: int) -> float:
    """go-yaml v2's ``allowedAliasRatio``: the share of a document's decodes that may come
    from alias expansion, once it has been decoded ``decode_count`` times."""
    if decode_count <= ALIAS_RATIO_RANGE_LOW:
        # allow 99% to come from alias expansion for small-to-medium documents
        return 0.99
    if decode_count >= ALIAS_RATIO_RANGE_HIGH:
        # allow 10% to come from alias expansion for very large documents
        return 0.10
    # scale smoothly from 99% down to 10% over the range
    return 0.99 - 0.89 * (float(decode_count - ALIAS_RATIO_RANGE_LOW) / ALIAS_RATIO_RANGE)


_FAST_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_INT = _TAG + "int"
_FLOAT = _TAG + "float"
_MAP = _TAG + "map"
_SEQ = _TAG + "seq"
_SET = _TAG + "set"
_OMAP = _TAG + "omap"
_PAIRS = _TAG + "pairs"
_MERGE = _TAG + "merge"
_VALUE = _TAG + "value"
_SCALAR_TAGS = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "binary", "timestamp", "str"))
_CACHE_LIMIT = 100_000


class _Scalars(yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """The scalar half of ``yaml.SafeLoader``: its implicit resolver and its constructors."""

    def __init__(self) -> None:
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


_SCALARS = _Scalars()
_RESOLVE = _SCALARS.resolve


class _Undefined:
    """A scalar whose tag has no constructor (merge ``<<``, value ``=``): fine as a key."""

    __slots__ = ("tag",)

    def __init__(self, tag: str):
        self.tag = tag


def _construct_scalar(tag: str, value: str, style: str | None, mark: Any) -> Any:
    """A scalar with an explicit or resolved ``tag``, as SafeConstructor builds it."""
    if tag in (_MERGE, _VALUE):
        return _Undefined(tag)
    if tag == _INT and len(value) > 1000 and _yaml_int_too_long(value):
        raise _TooManyDigitsAt(mark)
    if tag in (_MAP, _SET):
        raise ConstructorError(None, None, "expected a mapping node, but found scalar", mark)
    if tag == _SEQ:
        raise ConstructorError(None, None, "expected a sequence node, but found scalar", mark)
    constructor = _SCALARS.yaml_constructors.get(tag) or _SCALARS.yaml_constructors[None]
    node = ScalarNode(tag, value, mark, mark, style)
    try:
        data = constructor(_SCALARS, node)
        if isinstance(data, GeneratorType):  # omap, pairs: raise on a scalar
            result = next(data)
            for _ in data:
                pass
            data = result
    except yaml.YAMLError:
        raise
    except Exception as exc:  # e.g. `!!int abc`, `2020-13-01`: PyYAML raises a bare ValueError
        shown = value if len(value) <= 40 else value[:37] + "..."
        name = "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag
        detail = f": {exc}" if isinstance(exc, ValueError) else ""
        raise ConstructorError(None, None, f"cannot read {shown!r} as {name}{detail}", mark) from None
    return data


def _merge_keeps_order() -> bool:
    """Whether this PyYAML's flatten_mapping merges in order, keeping the first of pairs whose
    key is the same object (6.0.2 on), or (before) merges a list's mappings last to first."""
    probe = yaml.load("{<<: [{p: 1}, {q: 2}]}", Loader=yaml.SafeLoader)
    return list(probe) == ["p", "q"]


_MERGE_IN_ORDER = _merge_keeps_order()


class _Node:
    """What the builder keeps of a node that may be looked at again: through an alias (an
    anchored node), as the value of a merge key (``<<``), or as an item of a sequence that
    is merged or tagged ``!!omap`` / ``!!pairs``."""

    __slots__ = ("first_pair", "flat", "height", "items", "kind", "mark", "obj", "open", "pairs", "size",
                 "token")

    def __init__(self, kind: str, mark: Any):
        self.kind = kind  # "scalar", "sequence" or "mapping" (PyYAML's node ids)
        self.mark = mark
        self.obj: Any = None
        self.open = True  # still being built: an alias to it now would be recursive
        self.size = 1  # nodes go-yaml decodes for it (an alias to it costs one more)
        self.height = 0  # levels of mappings and sequences it holds (0 for a scalar)
        self.token: Any = None  # a scalar's text object: flatten_mapping compares keys by identity
        self.flat: list[Any] | None = None  # a mapping's pairs after merging: (token, key, value, line)
        self.items: list[_Node | None] | None = None  # a sequence's items (None: a plain scalar)
        self.pairs = 0  # a mapping's number of pairs as written, merge keys included
        self.first_pair: Any = None  # a mapping's first pair as written: (key, value, key mark)


class _Frame:
    """A mapping or sequence being built."""

    __slots__ = ("first_pair", "has_key", "height", "is_map", "items", "key", "key_line", "key_token",
                 "mark", "merge_ids", "merge_key", "merge_seq", "merged", "node", "obj", "own", "pairs",
                 "start", "tag", "unhashable")

    def __init__(self, is_map: bool, obj: Any, tag: str | None, mark: Any, start: int):
        self.is_map = is_map
        self.obj = obj
        self.tag = tag  # None for the default tag
        self.mark = mark
        self.start = start  # the decode count before this node
        self.height = 1
        self.node: _Node | None = None  # when it may be looked at again
        self.items: list[_Node | None] | None = None  # a sequence's items, when they may be looked at again
        self.merge_seq = False  # a sequence that is the value of a merge key
        # A mapping:
        self.has_key = False  # the key of the next value has been read
        self.key: Any = None
        self.key_line = 0
        self.key_token: Any = None
        self.merge_key = False  # the pending key is a merge key (<<)
        self.merged: list[Any] | None = None  # pairs merged in, in flatten_mapping's order
        self.merge_ids: set[int] | None = None
        self.own: list[Any] | None = None  # its own pairs, when it may be merged elsewhere
        self.pairs = 0
        self.first_pair: Any = None
        self.unhashable: Any = None  # mark of the first unhashable key


class _TooManyDigitsAt(Exception):
    """An integer scalar of too many digits (made a located LimitError by the builder)."""

    def __init__(self, mark: Any):
        super().__init__()
        self.mark = mark


def _text_bound(value: Any, stop: int) -> int:
    """An upper bound of ``len(str(value))`` for the containers and scalars YAML builds
    (counting no further than just past ``stop``), without making the text."""
    total = 0
    pending = [value]
    while pending and total <= stop:
        item = pending.pop()
        if isinstance(item, str):
            plain = item.isascii() and item.isprintable() and "\\" not in item and "'" not in item
            total += len(item) + 2 if plain else 10 * len(item) + 2
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 11 + 2 * len(item)  # "frozenset(" ... ")"
            pending.extend(item)
        elif isinstance(item, bytes):
            total += 4 * len(item) + 3
        elif isinstance(item, int) and not isinstance(item, bool):
            total += MAX_INT_DIGITS + 2 if abs(item) >= 10**18 else 20
        else:  # None, bool, float, date, datetime (its repr names the timezone)
            total += 120
    return total


def _undefined(tag: str, mark: Any) -> ConstructorError:
    """SafeConstructor.construct_undefined's error."""
    return ConstructorError(None, None, f"could not determine a constructor for the tag {tag!r}", mark)


def _yaml_problem(exc: yaml.YAMLError, file: str | None) -> Problem:
    """A PyYAML error as a located problem, worded as PyYAML words it."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or str(exc)
        if exc.context:
            message = f"{exc.context}, {message}"
        return Problem(f"invalid YAML: {message}", file=file, line=mark.line + 1 if mark else None,
                       column=mark.column + 1 if mark else None, code="syntax-error")
    return Problem(f"invalid YAML: {exc}", file=file, code="syntax-error")


def load_yaml(text: str, file: str | None, limits: Limits, *, located: bool = True,
              loader: type | None = None, on_plain: Callable[[], None] | None = None) -> Iterator[Any]:
    """The documents of the YAML stream ``text``, one at a time, as ``yaml.load_all`` with
    ``yaml.SafeLoader`` semantics gives them, built iteratively and within ``limits``.

    With ``located`` (the default), mappings are :class:`LocatedDict` and sequences
    :class:`LocatedList` (an unhashable key becomes its ``str``), as the manifest reader
    has always built them; otherwise plain ``dict`` and ``list`` (an unhashable key is an
    error), exactly as ``yaml.safe_load_all``. ``loader`` is the parser (default: libyaml's
    when PyYAML has it).

    Raises :class:`RulesetError` for syntax and construction errors (PyYAML's messages and
    marks) and :class:`LimitError` for a limit (at once, where it is met). Like PyYAML, which
    composes a whole document before constructing it, a syntax error anywhere in a document
    wins over a construction error in it; of several construction errors, the one whose node
    starts first is reported (PyYAML constructs depth first, so an enclosing mapping's merge
    error comes before its children's; it constructs merged pairs before a mapping's own,
    which can make it report another of them). What crashed PyYAML's constructors (``!!int
    abc``, ``2020-13-01``, ``!!map`` on a scalar) is a located construction error here.

    A large located stream may be read by the native parser instead (:mod:`ruleset.native_yaml`,
    when installed), only where that gives exactly these documents and lines. With
    ``on_plain``, its documents may come as the parser's plain ``dict`` and ``list``, equal to
    the located ones but without lines (building those is most of the native path's walk);
    ``on_plain`` is called before the first, so that a caller with a problem to report can
    read the stream again, located.
    """
    if located and loader is None and len(text) >= native_yaml.MIN_BYTES and native_yaml.available():
        # A large stream in the subset the native parser reads exactly as this path does (else
        # None, and this path reads it, limits and error positions included): see native_yaml.
        documents = native_yaml.load_documents(text, LocatedDict, LocatedList, limits.max_depth,
                                               located=on_plain is None)
        if documents is not None:
            if on_plain is not None:
                on_plain()
            for index in range(len(documents)):
                document, documents[index] = documents[index], None  # the caller decides what stays
                yield document
            return
    try:
        yield from _Builder(file, limits, located).run(text, loader or _FAST_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if exc.problem == "exceeded maximum nesting depth" and mark is not None:
            # libyaml's own nesting limit (1,000 flow or block levels), reached while it
            # scans ahead of the events that would have reached ours. Below 1,000 levels,
            # PyYAML's own parser (which has no such limit) finds where ours was passed.
            if limits.max_depth < 1000 and loader is not yaml.SafeLoader:
                try:
                    for _ in _Builder(file, limits, located).run(text, yaml.SafeLoader):
                        pass
                except LimitError as limit:
                    raise limit from None
                except yaml.YAMLError:
                    pass
            raise LimitError(Problem(_depth_message(limits), file=file, line=mark.line + 1,
                                     column=mark.column + 1, code="syntax-error")) from None
        raise RulesetError(_yaml_problem(exc, file)) from None
    except yaml.YAMLError as exc:
        raise RulesetError(_yaml_problem(exc, file)) from None


def _looked_at_as_node(top: _Frame | None) -> bool:
    """Whether the next value in ``top`` is checked as a node (a merge key's value, an item
    of a merge list or of an ``!!omap`` / ``!!pairs``) before, or instead of, being
    constructed: a scalar that cannot be constructed is then refused as that check says."""
    if top is None:
        return False
    if top.is_map:
        return top.merge_key
    return top.merge_seq or top.tag in (_OMAP, _PAIRS)


def _excessive(aliased: int, decoded: int) -> bool:
    """go-yaml v2's test, made at each node it decodes (decode.go, ``unmarshal``)."""
    return (aliased > ALIAS_MIN_ALIASED and decoded > ALIAS_MIN_DECODED
            and aliased / decoded > allowed_alias_ratio(decoded))


class _Builder:
    """Builds the documents of a YAML event stream with an explicit stack."""

    def __init__(self, file: str | None, limits: Limits, located: bool):
        self.file = file
        self.limits = limits
        self.located = located
        # Construction errors of the current document, each with the offset of the node whose
        # construction raises it: PyYAML constructs a document depth first (a mapping's merge
        # keys before its pairs), so the first of them in that order is the one it reports.
        self.errors: list[tuple[int, ConstructorError]] = []

    def error(self, exc: ConstructorError, owner: Any) -> None:
        """Note a construction error; building goes on (a placeholder in its place), so that a
        syntax error later in the document, or an earlier construction error, still wins."""
        self.errors.append((owner.index, exc))

    def limit(self, message: str, mark: Any) -> LimitError:
        return LimitError(Problem(message, file=self.file, line=mark.line + 1, column=mark.column + 1,
                                  code="syntax-error"))

    def run(self, text: str, loader_class: type) -> Iterator[Any]:
        loader = loader_class(text)
        try:
            yield from self._documents(loader.get_event)
        finally:
            loader.dispose()

    def _documents(self, get_event: Callable[[], Any]) -> Iterator[Any]:
        located = self.located
        max_depth = self.limits.max_depth
        dict_type: Callable[[], Any] = LocatedDict if located else dict
        list_type: Callable[[], Any] = LocatedList if located else list
        resolve = _RESOLVE
        cache: dict[str, Any] = {}
        anchors: dict[str, _Node] = {}
        stack: list[_Frame] = []
        root: Any = None
        # go-yaml's decodeCount and aliasCount for this document: each node it decodes (an
        # alias costs one plus the size of its anchor's node), and those decoded through aliases.
        decoded = aliased = 0

        def too_aliased(mark: Any) -> LimitError:
            return self.limit(
                f"document contains excessive aliasing: its aliases expand to {aliased:,} of the "
                f"{decoded:,} nodes read so far, more than the {allowed_alias_ratio(decoded):.0%} "
                "Kubernetes' YAML decoder (go-yaml v2) allows", mark)

        while True:
            event = get_event()
            cls = event.__class__
            top = stack[-1] if stack else None
            try:
                if cls is ScalarEvent:
                    value = event.value
                    tag = event.tag
                    mark = event.start_mark
                    try:
                        if tag is None or tag == "!":
                            if event.implicit[0]:
                                data = cache.get(value, cache)
                                if data is cache:
                                    tag = resolve(ScalarNode, value, event.implicit)
                                    data = value if tag == _STR else \
                                        _construct_scalar(tag, value, event.style, mark)
                                    if tag != _FLOAT and len(value) <= 64:  # (NaN is not equal to itself)
                                        if len(cache) >= _CACHE_LIMIT:
                                            cache.clear()
                                        cache[value] = data
                            else:
                                data = value
                        elif tag == _STR:
                            data = value
                        else:
                            data = _construct_scalar(tag, value, event.style, mark)
                    except ConstructorError as exc:
                        self.error(exc, mark)
                        data = None
                    node = None
                    if event.anchor is not None or (top is not None and top.items is not None):
                        node = _Node("scalar", mark)
                        node.obj = data
                        node.token = value
                        node.open = False
                        if event.anchor is not None:
                            self._anchor(anchors, event.anchor, node)
                    if data.__class__ is _Undefined and not _looked_at_as_node(top):
                        if top is None or not top.is_map or top.has_key:
                            self.error(_undefined(data.tag, mark), mark)
                            data = None
                        elif data.tag == _MERGE:  # a merge key: go-yaml does not decode it either
                            top.pairs += 1
                            if top.first_pair is None:
                                top.first_pair = (data, None, mark)
                            top.has_key = top.merge_key = True
                            continue
                        else:
                            data = "="  # flatten_mapping makes a "=" key the string "="
                            if node is not None:
                                node.obj = data
                    decoded += 1
                    if aliased > ALIAS_MIN_ALIASED and _excessive(aliased, decoded):
                        raise too_aliased(mark)
                    if top is None:
                        root = data
                    elif top.is_map:
                        self._add_to_map(top, data, mark, value, node)
                    else:
                        self._add_to_seq(top, data, mark, node)
                elif cls is MappingStartEvent or cls is SequenceStartEvent:
                    is_map = cls is MappingStartEvent
                    mark = event.start_mark
                    if len(stack) >= max_depth:
                        raise self.limit(_depth_message(self.limits), mark)
                    tag = event.tag
                    if tag is None or tag == "!" or tag == (_MAP if is_map else _SEQ):
                        tag = None
                    frame = _Frame(is_map, dict_type() if is_map else list_type(), tag, mark, decoded)
                    if located:
                        frame.obj.line = mark.line + 1
                    merge_value = top is not None and top.is_map and top.has_key and top.merge_key
                    if merge_value or event.anchor is not None or (top is not None and top.items is not None):
                        frame.node = _Node("mapping" if is_map else "sequence", mark)
                        frame.node.token = frame.node
                        if event.anchor is not None:
                            self._anchor(anchors, event.anchor, frame.node)
                        if is_map:
                            frame.own = []
                        else:
                            frame.items = []
                    if not is_map and tag in (_OMAP, _PAIRS):
                        frame.items = []
                    if merge_value and not is_map:
                        frame.merge_seq = True  # go-yaml decodes its items, not itself
                    else:
                        decoded += 1
                        if aliased > ALIAS_MIN_ALIASED and _excessive(aliased, decoded):
                            raise too_aliased(mark)
                    stack.append(frame)
                elif cls is MappingEndEvent or cls is SequenceEndEvent:
                    frame = stack.pop()
                    data = self._finish(frame)
                    node = frame.node
                    if node is not None:
                        node.obj = data
                        node.open = False
                        node.size = decoded - frame.start
                        node.height = frame.height
                        node.items = frame.items
                        node.pairs = frame.pairs
                        node.first_pair = frame.first_pair
                        if frame.is_map:
                            node.flat = (frame.merged or []) + (frame.own or [])
                    if not stack:
                        root = data
                    else:
                        parent = stack[-1]
                        if frame.height >= parent.height:
                            parent.height = frame.height + 1
                        if parent.is_map:
                            self._add_to_map(parent, data, frame.mark, node or frame, node)
                        else:
                            self._add_to_seq(parent, data, frame.mark, node)
                elif cls is AliasEvent:
                    mark = event.start_mark
                    node = anchors.get(event.anchor)
                    if node is None:
                        raise ComposerError(None, None, "found undefined alias", mark)
                    if len(stack) + node.height > max_depth:
                        raise self.limit(_depth_message(self.limits), mark)
                    decoded += 1
                    if aliased > ALIAS_MIN_ALIASED and _excessive(aliased, decoded):
                        raise too_aliased(mark)
                    decoded += node.size
                    aliased += node.size
                    if _excessive(aliased, decoded):
                        raise too_aliased(mark)
                    data = node.obj
                    if node.open:
                        self.error(ConstructorError(None, None, "found unconstructable recursive node",
                                                    node.mark), mark)
                        data = None
                    elif data.__class__ is _Undefined and (top is None or not top.is_map or top.has_key) \
                            and not _looked_at_as_node(top):
                        self.error(_undefined(data.tag, node.mark), mark)
                        data = None
                    if top is None:
                        root = data
                    else:
                        if node.height >= top.height:
                            top.height = node.height + 1
                        # PyYAML's alias is the anchored node itself: its lines are the anchor's.
                        if top.is_map:
                            self._add_to_map(top, data, node.mark, node.token, node)
                        else:
                            self._add_to_seq(top, data, node.mark, node)
                elif cls is DocumentStartEvent:
                    anchors = {}
                    decoded, aliased = 1, 0  # go-yaml decodes the document node too
                    root = None
                elif cls is DocumentEndEvent:
                    if self.errors:
                        raise min(self.errors, key=lambda error: error[0])[1]
                    anchors = {}
                    yield root
                    root = None
                elif cls is StreamEndEvent:
                    return
            except _TooManyDigitsAt as exc:
                raise self.limit(_digits_message(), exc.mark) from None

    @staticmethod
    def _anchor(anchors: dict[str, _Node], anchor: str, node: _Node) -> None:
        if anchor in anchors:
            raise ComposerError("found duplicate anchor; first occurrence", anchors[anchor].mark,
                                "second occurrence", node.mark)
        anchors[anchor] = node

    def _add_to_seq(self, frame: _Frame, data: Any, mark: Any, node: _Node | None) -> None:
        frame.obj.append(data)
        if self.located:
            frame.obj.item_lines.append(mark.line + 1)
        if frame.items is not None:
            frame.items.append(node)

    def _add_to_map(self, frame: _Frame, data: Any, mark: Any, token: Any, node: _Node | None) -> None:
        """A key, or the value of the pending key; ``token`` is the key's identity, as
        flatten_mapping sees it (a scalar's text object, else its node)."""
        if not frame.has_key:
            key = data
            frame.pairs += 1
            if frame.first_pair is None:
                frame.first_pair = (key, None, mark)
            if key.__class__ is _Undefined:  # an alias to a merge-tagged or "=" scalar
                if key.tag == _MERGE:
                    frame.has_key = frame.merge_key = True
                    return
                key = "="
                if node is not None:
                    node.obj = key
            try:
                hash(key)
            except TypeError:
                if frame.unhashable is None:
                    frame.unhashable = mark
                if not self.located:
                    self.error(ConstructorError("while constructing a mapping", frame.mark,
                                                "found unhashable key", mark), mark)
                key = self._key_text(key, mark)
            frame.key = key
            frame.key_line = mark.line + 1
            frame.key_token = token
            frame.has_key = True
            return
        frame.has_key = False
        if frame.pairs == 1:
            frame.first_pair = (frame.first_pair[0], data, frame.first_pair[2])
        if frame.merge_key:
            frame.merge_key = False
            self._merge(frame, node, mark)
            return
        key = frame.key
        obj = frame.obj
        obj[key] = data
        if self.located:
            obj.key_lines[key] = frame.key_line
        if frame.own is not None:
            frame.own.append((frame.key_token, key, data, frame.key_line))

    def _key_text(self, key: Any, mark: Any) -> str:
        """``str(key)`` for a mapping or sequence used as a key, within
        :data:`MAX_KEY_TEXT` characters: such keys nested in such keys double their text at
        every level (quotes and backslashes are escaped again), so the length is bounded
        before the text is made."""
        bound = _text_bound(key, 10 * MAX_KEY_TEXT)
        if bound > MAX_KEY_TEXT:
            text = str(key) if bound <= 10 * MAX_KEY_TEXT else None
            if text is None or len(text) > MAX_KEY_TEXT:
                raise self.limit("a mapping key that is a mapping or sequence longer than "
                                 f"{_size(MAX_KEY_TEXT)} as text (the limit for such keys)", mark)
            return text
        return str(key)

    def _merge(self, frame: _Frame, node: _Node | None, mark: Any) -> None:
        """The value of a merge key: a mapping, or a sequence of mappings (flatten_mapping)."""
        kind = node.kind if node is not None else "scalar"
        if kind == "mapping":
            groups = [node.flat or []]  # type: ignore[union-attr]
        elif kind == "sequence":
            groups = []
            for item in node.items or ():  # type: ignore[union-attr]
                if item is None or item.kind != "mapping":
                    item_kind, item_mark = (item.kind, item.mark) if item is not None else ("scalar", mark)
                    self.error(ConstructorError("while constructing a mapping", frame.mark,
                                                f"expected a mapping for merging, but found {item_kind}",
                                                item_mark), frame.mark)
                    return
                groups.append(item.flat or [])
            if not _MERGE_IN_ORDER:
                groups.reverse()  # before PyYAML 6.0.2: the first mapping of a list wins
        else:
            problem = f"expected a mapping or list of mappings for merging, but found {kind}"
            self.error(ConstructorError("while constructing a mapping", frame.mark, problem,
                                        node.mark if node is not None else mark), frame.mark)
            return
        merged = frame.merged if frame.merged is not None else []
        frame.merged = merged
        if _MERGE_IN_ORDER:  # 6.0.2 on: a key (the same object) merged twice keeps its first value
            seen = frame.merge_ids if frame.merge_ids is not None else set()
            frame.merge_ids = seen
            for group in groups:
                for pair in group:
                    if id(pair[0]) not in seen:
                        seen.add(id(pair[0]))
                        merged.append(pair)
        else:
            for group in groups:
                merged.extend(group)

    def _finish(self, frame: _Frame) -> Any:
        """The value of a finished mapping or sequence, as its tag's constructor builds it."""
        try:
            return self._construct(frame)
        except ConstructorError as exc:
            self.error(exc, frame.mark)
            return frame.obj

    def _construct(self, frame: _Frame) -> Any:
        obj = frame.obj
        tag = frame.tag
        if frame.is_map:
            if frame.merged:  # the merged pairs come first, then its own (which win)
                own = obj
                if self.located:
                    obj = LocatedDict()
                    obj.line = own.line
                    lines = obj.key_lines
                    for _, key, value, line in frame.merged:
                        obj[key] = value
                        lines[key] = line
                    for key, value in own.items():
                        obj[key] = value
                        lines[key] = own.key_lines[key]
                else:
                    obj = {}
                    for _, key, value, _ in frame.merged:
                        obj[key] = value
                    obj.update(own)
                frame.obj = obj
            if tag is None:
                return obj
            if tag == _SET:
                if frame.unhashable is not None:
                    raise ConstructorError("while constructing a mapping", frame.mark, "found unhashable key",
                                           frame.unhashable)
                return set(obj)
            if tag in (_OMAP, _PAIRS):
                raise ConstructorError(f"while constructing {'an ordered map' if tag == _OMAP else 'pairs'}",
                                       frame.mark, "expected a sequence, but found mapping", frame.mark)
            if tag == _SEQ:
                raise ConstructorError(None, None, "expected a sequence node, but found mapping", frame.mark)
            if tag in _SCALAR_TAGS:
                raise ConstructorError(None, None, "expected a scalar node, but found mapping", frame.mark)
            raise _undefined(tag, frame.mark)
        if tag is None:
            return obj
        if tag in (_OMAP, _PAIRS):
            what = "an ordered map" if tag == _OMAP else "pairs"
            out = []
            for item in frame.items or ():
                kind = item.kind if item is not None else "scalar"
                if item is None or kind != "mapping":
                    raise ConstructorError(f"while constructing {what}", frame.mark,
                                           f"expected a mapping of length 1, but found {kind}",
                                           item.mark if item is not None else frame.mark)
                if item.pairs != 1:
                    raise ConstructorError(f"while constructing {what}", frame.mark,
                                           f"expected a single mapping item, but found {item.pairs} items",
                                           item.mark)
                key, value, key_mark = item.first_pair
                if key.__class__ is _Undefined:
                    raise _undefined(key.tag, key_mark)
                out.append((key, value))
            return out
        if tag in (_MAP, _SET):
            raise ConstructorError(None, None, "expected a mapping node, but found sequence", frame.mark)
        if tag in _SCALAR_TAGS:
            raise ConstructorError(None, None, "expected a scalar node, but found sequence", frame.mark)
        raise _undefined(tag, frame.mark)
