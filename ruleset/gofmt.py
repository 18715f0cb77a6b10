"""Go's formatting and parsing rules, for results and messages that must match Kubernetes'.

Kubernetes builds its messages with ``fmt``: ``%q`` quotes a string the way
``strconv.Quote`` does, and ``len`` counts UTF-8 bytes, not characters; label values are
compared as integers with ``strconv.ParseInt``. No numpy here: selectors and the CLI
import this without the array machinery.
"""

from __future__ import annotations

_SIMPLE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def go_quote(text: str) -> str:
    """``strconv.Quote(text)`` (what ``fmt.Sprintf("%q", text)`` prints)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = ['"']
    for ch in text:
        escaped = _SIMPLE_ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
            continue
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            # A lone surrogate is invalid UTF-8 to Go: each of its bytes is quoted on its own.
            out.extend(f"\\x{byte:02x}" for byte in ch.encode("utf-8", "surrogatepass"))
        elif ch.isprintable():  # Python's printable set is Go's unicode.IsPrint (L, M, N, P, S and ' ')
            out.append(ch)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_len(text: str) -> int:
    """``len(text)`` in Go: the number of UTF-8 bytes."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits, within int64; else None."""
    if not text:
        return None
    body = text[1:] if text[0] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    if len(body.lstrip("0")) > 19:  # past int64 (and past what int() converts on Python 3.11+)
        return None
    value = int(text)
    if not -(2**63) <= value < 2**63:
        return None
    return value
