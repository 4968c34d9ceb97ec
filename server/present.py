"""Words the server shows: lens titles, diagnostic messages and the "why stale" hover.

Pure functions of the status JSON (design §4.5) and the time, so they are tested without a server. Every text names
the exact command to run; diagnostic messages also carry the number of changed files and the time of the latest
change, so an agent that drops repeated diagnostics by text still sees each new edit.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence

from freshpass.evidence.status import Status
from freshpass.ledger.store import Evidence

STALE_STATUSES = ("stale", "unverified")


def age(then: float | None, now: float | None = None) -> str:
    """`just now`, `42 s ago`, `3 min ago`, `2 h ago`, `5 d ago`."""
    if then is None:
        return "at an unknown time"
    seconds = max(0.0, (time.time() if now is None else now) - then)
    if seconds < 5:
        return "just now"
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} d ago"


def clock(then: float) -> str:
    """Local wall-clock time with seconds: distinguishes two edits in the same minute."""
    return dt.datetime.fromtimestamp(then).strftime("%H:%M:%S")


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def evidence_command(evidence: Evidence) -> str:
    return evidence.command or evidence.canonical_command or "?"


def evidence_result(evidence: Evidence) -> str:
    """`passed (full)`, `failed (targeted, exit 1: no tests ran)`."""
    details = [evidence.scope or "?"]
    if evidence.status != "passed":
        if evidence.exit_code is not None:
            details.append(f"exit {evidence.exit_code}")
        if evidence.reason:
            details[-1] += f": {evidence.reason}"
    return f"{evidence.status or '?'} ({', '.join(details)})"


def since_phrase(evidence: Evidence, now: float | None = None) -> str:
    """since `uv run pytest` passed (full) 3 min ago"""
    when = age(evidence.finished_at, now)
    return f"`{evidence_command(evidence)}` {evidence_result(evidence)} {when}"


def lens_title(status: Status, now: float | None = None, *, changed_count: int | None = None) -> str:
    """The status lens at the top of a file. `changed_count` overrides the status' own count (with no receipt, the
    server counts what changed since it started)."""
    state = status.status
    evidence = status.evidence
    changed = len(status.changed_paths) if changed_count is None else changed_count
    if evidence is None or state == "unverified":
        if changed:
            return f"⚠ unverified · {plural(changed, 'file')} changed · no receipt yet"
        return "⚠ unverified · no receipt yet"
    when = age(evidence.finished_at, now)
    command = evidence_command(evidence)
    if state == "stale":
        return f"⚠ unverified · {plural(changed, 'file')} changed · since {command} {evidence.status} {when}"
    if state == "failed":
        reason = evidence.reason or f"exit {evidence.exit_code}"
        return f"✗ failed · {reason} · {command} · {when}"
    if status.scope == "targeted" or evidence.scope == "targeted":
        return f"◐ targeted · {command} · {when}"
    return f"✓ full · {command} · {when}"


def run_lens_title(command: str) -> str:
    return f"▶ Run {command}"


def stale_message(
    path: str,
    status: Status,
    *,
    command: str | None,
    changed_count: int,
    latest_change: float | None,
    unsaved: bool = False,
    disk_stale: bool = True,
    now: float | None = None,
    change_number: int = 0,
) -> str:
    """The one consolidated diagnostic of a file: what is stale, since which evidence, what to run.

    `change_number` counts the content changes the server has seen in this root: with the time of the latest
    change it makes every new edit's message different, even two edits within one second.
    """
    evidence = status.evidence
    run = f"Run `{command}` to get fresh evidence." if command else "No verify command is declared for this root."
    latest = f", latest at {clock(latest_change)}" if latest_change is not None else ""
    if change_number:
        latest += f", change #{change_number}"
    parts: list[str] = []
    if disk_stale:
        if evidence is None:
            parts.append(
                f"`{path}` is not covered by any receipt: nothing has been verified in this root yet "
                f"({plural(changed_count, 'file')} changed{latest})."
            )
        else:
            parts.append(
                f"`{path}` changed since {since_phrase(evidence, now)} "
                f"({plural(changed_count, 'file')} changed since{latest})."
            )
    if unsaved:
        parts.append("Unsaved changes in this buffer are not covered by any receipt: save them first.")
    parts.append(run)
    return " ".join(parts)


def hover_markdown(
    path: str | None,
    status: Status,
    *,
    command: str | None,
    unsaved: bool = False,
    now: float | None = None,
    max_paths: int = 50,
    changed_paths: Sequence[str] | None = None,
) -> str:
    """Why this file is (or is not) covered: the receipt compared against and exactly what changed since."""
    state = status.status
    evidence = status.evidence
    changed: Sequence[str] = status.changed_paths if changed_paths is None else changed_paths
    lines = [f"**freshpass** · {lens_title(status, now, changed_count=len(changed))}", ""]
    if evidence is None:
        lines.append("No receipt exists for this root yet: no verify command has been recorded here.")
    else:
        when = f"{clock(evidence.finished_at)} ({age(evidence.finished_at, now)})"
        tests = evidence.tests
        rows = [
            ("receipt", f"#{evidence.id}"),
            ("command", f"`{evidence_command(evidence)}`"),
            ("kind", evidence.kind or "?"),
            ("scope", evidence.scope or "?"),
            ("result", evidence_result(evidence)),
            ("when", when),
            ("by", evidence.session or evidence.actor or "unknown"),
        ]
        if tests:
            rows.append(("tests", ", ".join(f"{value} {name}" for name, value in tests.items())))
        lines += ["| | |", "| --- | --- |", *(f"| {name} | {value} |" for name, value in rows), ""]
    if state == "stale" or (state == "unverified" and changed):
        lines.append(f"**Changed since** ({plural(len(changed), 'file')}):")
        lines += [f"- `{item}`" for item in changed[:max_paths]]
        if len(changed) > max_paths:
            lines.append(f"- … and {len(changed) - max_paths} more")
        lines.append("")
    elif state in ("passed", "failed"):
        lines.append("The receipt ran against exactly the content this root has now.")
        lines.append("")
    if path is not None and unsaved:
        lines.append(f"Unsaved changes in `{path}` are not covered: save them, then verify.")
        lines.append("")
    if command:
        lines.append(f"Run: `{command}`")
    return "\n".join(lines).rstrip() + "\n"
