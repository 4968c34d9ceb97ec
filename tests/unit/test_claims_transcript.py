"""The agent's last message read from the tail of its JSONL transcript (Claude Code's shape, and role/content
lines), bounded and from regular files only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from freshpass.evidence.claims import transcript as reader
from freshpass.evidence.claims.transcript import last_assistant_message, last_message


def line(kind: str, content: Any, message_id: str | None = None, **extra: Any) -> str:
    message: dict[str, Any] = {"role": kind, "content": content}
    if message_id is not None:
        message["id"] = message_id
    return json.dumps({"type": kind, "message": message, **extra})


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def write(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_last_reply_is_its_text_blocks_joined(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.jsonl",
        line("user", "Fix it."),
        line("assistant", [text("Let me run the tests.")], "m1"),
        line("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest"}}], "m1"),
        line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "3 passed"}]),
        line("assistant", [{"type": "thinking", "thinking": "…"}], "m2"),
        line("assistant", [text("Fixed.")], "m2"),
        line("assistant", [text("All tests pass.")], "m2"),
        json.dumps({"type": "system", "content": "Stop hook ran"}),
    )
    assert last_assistant_message(path) == "Fixed.\n\nAll tests pass."


def test_no_message_when_the_turn_ended_in_a_tool_call_or_a_prompt_came_after(tmp_path: Path) -> None:
    tool_last = write(
        tmp_path / "a.jsonl",
        line("assistant", [text("All tests pass.")], "m1"),
        line("user", "Now add docs."),
        line("assistant", [{"type": "tool_use", "id": "t", "name": "Edit", "input": {}}], "m2"),
    )
    assert last_assistant_message(tool_last) is None
    prompt_last = write(tmp_path / "b.jsonl", line("assistant", [text("All tests pass.")], "m1"), line("user", "ok?"))
    assert last_assistant_message(prompt_last) is None


def test_sidechains_are_skipped_and_role_lines_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.jsonl",
        line("assistant", [text("Main: done.")], "m1"),
        line("assistant", [text("Subagent: all tests pass.")], "m9", isSidechain=True),
    )
    assert last_assistant_message(path) == "Main: done."
    roles = write(tmp_path / "r.jsonl", json.dumps({"role": "assistant", "content": "Lint is clean."}))
    assert last_assistant_message(roles) == "Lint is clean."


def test_a_subagent_transcript_comes_first(tmp_path: Path) -> None:
    session = write(tmp_path / "s.jsonl", line("assistant", [text("Session reply.")], "m1"))
    agent = write(tmp_path / "a.jsonl", line("assistant", [text("Agent reply.")], "m2"))
    assert last_message((session, agent)) == "Agent reply."
    assert last_message((session, tmp_path / "missing.jsonl")) == "Session reply."
    assert last_message(()) is None


def test_only_the_tail_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_TAIL", 4096)
    path = write(
        tmp_path / "t.jsonl",
        line("assistant", [text("x" * 10_000)], "m0"),
        *(json.dumps({"type": "progress", "n": n}) for n in range(50)),
        line("assistant", [text("All tests pass.")], "m1"),
    )
    assert last_assistant_message(path) == "All tests pass."


def test_garbage_and_what_is_no_regular_file_give_none(tmp_path: Path) -> None:
    garbage = tmp_path / "g.jsonl"
    garbage.write_bytes(b"\xff\xfe{not json\n[1, 2]\n" + b"{" * 100_000 + b"\n")
    assert last_assistant_message(garbage) is None
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert last_assistant_message(fifo) is None  # opened without blocking, refused
    assert last_assistant_message(Path("/dev/zero")) is None
    assert last_assistant_message(Path("/dev/urandom")) is None
    assert last_assistant_message(tmp_path) is None
    assert last_assistant_message(tmp_path / "missing") is None
