"""Text for terminals cannot drive them (freshpass.runner.terminal)."""

from __future__ import annotations

import os

from freshpass.runner.terminal import safe
from hypothesis import given
from hypothesis import strategies as st


def test_escape_sequences_become_visible() -> None:
    assert safe("\x1b]52;c;aGk=\x07") == "\\x1b]52;c;aGk=\\x07"
    assert safe("\x1b[2J\x1b[H") == "\\x1b[2J\\x1b[H"
    assert safe("\x9b31m") == "\\x9b31m"  # C1 CSI
    assert safe("a\u202eb") == "a\\u202eb"
    assert safe("tab\there\nnext\r") == "tab\\there\\nnext\\r"
    assert safe("tab\there\nnext", multiline=True) == "tab\there\nnext"


def test_undecodable_file_name_bytes_show_as_bytes() -> None:
    name = os.fsdecode(b"caf\xe9.py")
    assert safe(name) == "caf\\xe9.py"
    assert safe("café ✓ → ok") == "café ✓ → ok"


@given(st.text())
def test_nothing_unsafe_survives(text: str) -> None:
    shown = safe(text)
    assert not any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in shown)
    assert not any(0xD800 <= ord(char) <= 0xDFFF for char in shown)
    shown.encode("utf-8")  # always printable to a UTF-8 terminal
