"""Text freshpass prints for people: nothing in it can drive the terminal.

File names, command lines, reasons and paths come from repositories and commands freshpass does not control. A file
named `\\x1b]52;c;…\\x07` would write the clipboard when `freshpass status` lists it as changed; `\\x1b[2J` clears
the screen; `\\u202e` reorders what follows. So every string freshpass composes for a terminal goes through
`safe()`: C0 and C1 control characters (ESC, BEL, CSI, OSC, …), DEL, bidirectional overrides and isolates, and
lone surrogates (bytes of a file name that are not UTF-8) are shown as visible escapes (`\\x1b`, `\\u202e`,
`\\xff`), and a backslash stays a backslash. Newlines and tabs are kept only where a message is meant to span
lines (`multiline=True`).

The output of a command freshpass runs is not freshpass's text: `freshpass run` passes it through byte for byte,
as the shell would. JSON output is escaped by `json.dumps` (`ensure_ascii`), which writes every one of these
characters as `\\uXXXX`.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

# C0 controls except \t \n, DEL, C1 controls, bidi embeddings/overrides/isolates, line/paragraph separators,
# lone surrogates (U+DC80–U+DCFF carry undecodable bytes of file names).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_SINGLE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{code - 0xDC00:02x}"
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if char == "\r":
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def safe(text: object, *, multiline: bool = False) -> str:
    """`text` with every character that could control a terminal shown as a visible escape."""
    value = text if isinstance(text, str) else str(text)
    return (_UNSAFE if multiline else _UNSAFE_SINGLE_LINE).sub(_escape, value)


def say(message: object, *, stream: TextIO | None = None, multiline: bool = False) -> None:
    """Print one message of freshpass's own (already composed) to stderr, made safe."""
    target = sys.stderr if stream is None else stream
    try:
        target.write(safe(message, multiline=multiline) + "\n")
        target.flush()
    except (OSError, ValueError):
        pass
