"""The fast path of the hooks an agent runs on every shell call (`freshpass hook record`, `freshpass hook pre`).

Most shell calls an agent makes are no check (`ls`, `cat`, `git status`): for those the hook answers after reading
its payload and looking at the command's words, before argparse, the vocabulary, asyncio or SQLite are imported.
The words are the vocabulary's (`freshpass.facts.quick`): a line the prefilter stops is never one the classifier
would recognise, so the answer is the same as the full path's. Anything else — a possible check, a payload
without a command, an option this path does not know — goes on to the full hook, which gets the payload already
read (`taken()`).
"""

from __future__ import annotations

import sys
from typing import Any

MAX_PAYLOAD = 32 * 1024 * 1024  # bytes of hook JSON read from stdin; more is not a hook payload
_FLAGS = {"record": frozenset({"--json"}), "pre": frozenset({"--verbose"})}
_payload: bytes | None = None


def taken() -> bytes | None:
    """The payload the fast path read from stdin (once), for the full hook to parse."""
    global _payload
    raw, _payload = _payload, None
    return raw


def _command(payload: Any) -> str | None:
    """The shell command a hook payload names (Claude Code's and Codex's `tool_input.command`, Cursor's and
    freshpass's own `command`), or None."""
    if not isinstance(payload, dict):
        return None
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, dict):
        if payload.get("tool_name") != "Bash":
            return None
        command = tool_input.get("command")
    else:
        command = payload.get("command")
    return command if isinstance(command, str) and command.strip() else None


def hook(adapter: str, options: list[str]) -> int | None:
    """Answer `freshpass hook ADAPTER` for a command that is no check; None to go on to the full hook."""
    if not set(options) <= _FLAGS[adapter]:
        return None
    global _payload
    _payload = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    if len(_payload) > MAX_PAYLOAD:
        return None
    import json

    try:
        command = _command(json.loads(_payload.decode("utf-8", errors="replace")))
    except (ValueError, RecursionError):
        return None
    from freshpass.facts.quick import could_be_check, not_a_check

    if command is None or could_be_check(command):
        return None
    _payload = None
    reason = not_a_check(command)
    if adapter == "record":
        if "--json" in options:
            print(json.dumps({"recorded": False, "reason": reason, "receipts": []}, indent=2))
        _say(f"freshpass hook record: nothing recorded: {reason}")
    elif "--verbose" in options:
        _say(f"freshpass hook pre: not a check, nothing kept: {reason}")
    return 0


def _say(text: str) -> None:
    try:
        print("".join(c if c.isprintable() else "?" for c in text), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
