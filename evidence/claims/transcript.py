"""The agent's last message, read from the end of its JSONL transcript when the stop payload does not carry it.

Claude Code's Stop input has carried `last_assistant_message` only in recent versions; older ones give
`transcript_path` alone. Its transcript is one JSON object per line: `{"type": "assistant", "message": {"id": …,
"role": "assistant", "content": [{"type": "text", "text": …}, {"type": "tool_use", …}]}, "isSidechain": …}`
for the model's output — one line per content block, the blocks of one reply sharing `message.id` — and `{"type":
"user", "message": {"content": "…" | [{"type": "tool_result", …}]}}` for a prompt or a tool's result (docs/agents.md
cites the public descriptions of this shape). A transcript written as `{"role": "assistant", "content": …}` lines
is read too. The last message is the text blocks of the last assistant reply that has any, after the last prompt;
none when the turn ended in a tool call, when a prompt came after it, or when the file is not a regular file
(a FIFO, a device), cannot be read, or holds no such line in its last `MAX_TAIL` bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_TAIL = 2 * 1024 * 1024  # bytes read from the end of a transcript: the last reply is there
MAX_LINES = 2000  # lines parsed from that end, at most


def last_message(transcripts: tuple[Path, ...] | list[Path]) -> str | None:
    """The agent's last message from the transcripts a stop payload names: a subagent's own transcript (named
    last) before the session's."""
    for transcript in reversed(transcripts):
        message = last_assistant_message(transcript)
        if message:
            return message
    return None


def last_assistant_message(transcript: Path) -> str | None:
    """The text of the last assistant reply in `transcript`, or None."""
    from freshpass.facts.files import read_tail

    try:
        data, whole = read_tail(transcript, MAX_TAIL)
    except OSError:
        return None
    lines = data.decode("utf-8", errors="replace").split("\n")
    if not whole:
        lines = lines[1:]  # the first line read is cut
    reply_id: object = None
    texts: list[str] = []
    for line in reversed(lines[-MAX_LINES:]):
        entry = _entry(line)
        if entry is None:
            continue
        role, message = _role_and_message(entry)
        if role == "user":
            if _is_prompt(message):
                break  # a prompt after any reply: the turn since has no message of its own yet
            continue
        if role != "assistant" or entry.get("isSidechain") is True:
            continue
        text = _text(message)
        message_id = message.get("id") if isinstance(message, Mapping) else None
        if reply_id is None:
            if not text:
                if not texts:
                    return None  # the turn ended in a tool call: no final message
                continue
            reply_id = message_id if message_id is not None else object()
            texts.append(text)
        elif message_id is not None and message_id == reply_id:
            if text:
                texts.append(text)
        else:
            break
    return "\n\n".join(reversed(texts)) or None


def _entry(line: str) -> Mapping[str, Any] | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, Mapping) else None


def _role_and_message(entry: Mapping[str, Any]) -> tuple[object, Any]:
    message = entry.get("message")
    role = entry.get("type")
    if role not in ("user", "assistant"):
        role = entry.get("role") or (message.get("role") if isinstance(message, Mapping) else None)
    if not isinstance(message, Mapping):
        message = entry  # {"role": "assistant", "content": …}
    return role, message


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content.strip()
    blocks = content if isinstance(content, list) else []
    parts = [
        block["text"]
        for block in blocks
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "\n\n".join(part.strip() for part in parts if part.strip())


def _is_prompt(message: Any) -> bool:
    """A person's prompt, not a tool's result (which Claude Code records as a user line too)."""
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return bool(content.strip())
    blocks = content if isinstance(content, list) else []
    return any(isinstance(block, Mapping) and block.get("type") == "text" for block in blocks)
