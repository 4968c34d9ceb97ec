"""What the ledger's store (`freshpass.ledger.store`) and its policies (`freshpass.ledger.policy`) share: the error a
person reads, and how a text is kept in a column. Both are re-exported by `freshpass.ledger.store`."""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    """The ledger cannot be used; the message says why and what a person can do about it."""


def db_text(value: str) -> str | bytes:
    """How a text is stored: as is when it is valid UTF-8, else as its original bytes (see the module docstring)."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        pass
    try:
        return value.encode("utf-8", "surrogateescape")  # a file name's undecodable bytes, exactly
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace")  # lone surrogates of no file name: nothing exact to keep


def py_text(value: Any) -> Any:
    """A stored text back as Python text (BLOBs were texts that are not valid UTF-8)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return value
