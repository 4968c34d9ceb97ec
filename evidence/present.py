"""How a receipt's age and result read, for every door: the CLI's status, log and share lines, the language
server's lenses, diagnostics and hovers. (The MCP tools answer JSON and show no label.)

Pure functions of a time or of an entry of the status JSON (design §4.5), so each door says the same words and they
are tested without a door. Two spellings of an age are kept, as the doors have always written them: `short` for an
editor's narrow lens (`42 s ago`, `3 min ago`), `long` for a terminal (`42 seconds ago`, `3 minutes ago`).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Literal

from freshpass.ledger.shared import label as shared_label

AgeStyle = Literal["short", "long"]

# Largest unit first: (seconds in it, its short word, its long word).
_UNITS = ((86_400, "d", "day"), (3_600, "h", "hour"), (60, "min", "minute"))


def plural(count: int, noun: str) -> str:
    """`1 file`, `3 files`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def age(then: float | str | None, now: float | None = None, *, style: AgeStyle = "short") -> str:
    """How long ago `then` was (an epoch time, or an ISO time of the JSON outputs): `just now` under five seconds,
    else in its largest whole unit — `42 s ago`, `3 min ago`, `2 h ago`, `5 d ago` (`short`), or `42 seconds ago`,
    `1 minute ago`, `2 hours ago`, `5 days ago` (`long`). No time at all reads `at an unknown time`."""
    if then is None:
        return "at an unknown time"
    if isinstance(then, str):
        then = datetime.fromisoformat(then.replace("Z", "+00:00")).timestamp()
    seconds = max(0.0, (time.time() if now is None else now) - then)
    if seconds < 5:
        return "just now"
    for size, short, long in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {short} ago" if style == "short" else f"{plural(count, long)} ago"
    return f"{int(seconds)} s ago" if style == "short" else f"{int(seconds)} seconds ago"


__all__ = ["AgeStyle", "age", "plural", "shared_label"]
