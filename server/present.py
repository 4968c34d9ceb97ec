"""Words the server shows: lens titles, diagnostic messages and the "why stale" hover.

Pure functions of the status JSON (design §4.5) and the time, so they are tested without a server. Every text names
the exact command to run. A diagnostic's text holds nothing that moves with the clock (no time, no age, no counter
for people), so a save that changes nothing a person reads publishes nothing; the time of the latest change and the
receipt's age are in the hover. Agents' diagnostics carry a change number (design §7.1): an agent that drops
repeated diagnostics by text still sees each new edit.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from freshpass.evidence.present import age, plural, shared_label
from freshpass.evidence.status import UNCHECKED, Status
from freshpass.ledger.shared import SharedView, shared_of
from freshpass.ledger.store import Evidence
from freshpass.runner.terminal import safe

STALE_STATUSES = ("stale", "unverified")


def clock(then: float) -> str:
    """Local wall-clock time with seconds: distinguishes two edits in the same minute."""
    return dt.datetime.fromtimestamp(then).strftime("%H:%M:%S")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def markdown_text(text: object) -> str:
    """`text` as literal Markdown on one line: control characters and line breaks shown as escapes, and what could
    start emphasis, a link, an image, HTML or a table cell escaped. For what others wrote (a shared receipt's
    reason, a signer's name): it is shown, never rendered."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", safe(text))


def code_span(text: object, *, in_table: bool = False) -> str:
    """`text` as one Markdown code span whatever it holds (a command, a file name): on one line, fenced by more
    backticks than any run of them inside, so it cannot end the span; `|` escaped in a table cell."""
    value = safe(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value[:1] == "`" or value[-1:] == "`" else ""
    span = f"{fence}{pad}{value}{pad}{fence}"
    return span.replace("|", "\\|") if in_table else span


def evidence_command(evidence: Evidence) -> str:
    return evidence.command or evidence.canonical_command or "?"


def reason_of(evidence: Evidence) -> str | None:
    """The receipt's reason without its exit code, which is shown beside it: receipts recorded before the reasons
    dropped it say `command not found (exit 127)`, and `freshpass verify`'s said `exit code 1`."""
    reason = evidence.reason
    if not reason:
        return None
    code = evidence.exit_code
    if code is not None:
        if reason == f"exit code {code}":
            return None
        reason = reason.removesuffix(f" (exit {code})")
    return reason


def evidence_result(evidence: Evidence) -> str:
    """`passed (full)`, `failed (targeted, exit 1: no tests ran)`, `passed (full, unconfirmed)`."""
    details = [evidence.scope or "?"]
    if evidence.observed != "watched":
        details.append(evidence.observed)  # reported by an agent or a terminal; unconfirmed never counts as full
    if evidence.status != "passed":
        if evidence.exit_code is not None:
            details.append(f"exit {evidence.exit_code}")
        reason = reason_of(evidence)
        if reason:
            details[-1] += f": {reason}"
    return f"{evidence.status or '?'} ({', '.join(details)})"


def lens_title(status: Status, now: float | None = None, *, changed_count: int | None = None) -> str:
    """The status lens at the top of a file. `changed_count` overrides the status' own count (with no receipt, the
    server counts what changed since it started)."""
    state = status.status
    evidence = status.evidence
    changed = len(status.changed_paths) if changed_count is None else changed_count
    if state == UNCHECKED:
        return UNCHECKED_LENS
    if evidence is None or state == "unverified":
        if changed:
            return f"⚠ unverified · {plural(changed, 'file')} changed · no receipt yet"
        return "⚠ unverified · no receipt yet"
    when = age(evidence.finished_at, now)
    command = evidence_command(evidence)
    shared = shared_of(evidence)
    if shared is not None and state != "stale":  # a counted shared receipt (design §4.6): who ran it
        return f"{shared_label(shared.status_json(), when)} · {command}"
    if state == "stale":
        if not changed:  # the receipt's tree could not be read (an untrusted workspace reads no packed object)
            return f"⚠ unverified · content changed since {command} {evidence.status} {when}"
        return f"⚠ unverified · {plural(changed, 'file')} changed · since {command} {evidence.status} {when}"
    if state == "failed":
        reason = reason_of(evidence) or f"exit {evidence.exit_code}"
        return f"✗ failed · {reason} · {command} · {when}"
    if state == "flaky":
        pair = status.kinds[evidence.kind].flaky if evidence.kind in status.kinds else None
        both = f"#{pair['passed'].id} passed, #{pair['failed'].id} failed" if pair else "passed and failed"
        counted = "pass counts" if status.flaky_counts else "not verified"
        return f"≈ flaky · {both} on this content · {command} · {counted}"
    if status.scope == "targeted" or evidence.scope == "targeted":
        return f"◐ targeted · {command} · {when}"
    return f"✓ full · {command} · {when}"


UNCHECKED_LENS = "○ not checked · Restricted Mode runs nothing, not even git"
UNCHECKED_EXPLANATION = (
    "This workspace is not trusted (Restricted Mode), and freshpass runs nothing in it, not even git. It computes "
    "git's content id itself where it can be sure of it, but not for this root (the server log says why: an "
    "attribute that rewrites content, an index it does not read, …), so it cannot tell whether any receipt covers "
    "the files as they are now: freshness is **not checked**, and nothing is called stale or unverified. Trust the "
    "workspace (in VS Code: Manage Workspace Trust) to check it."
)


def shared_lens_title(status: Status, now: float | None = None) -> str | None:
    """The lens of a shared receipt of this content that the status does not stand on (design §4.6):
    `shared ✓ full · CI · 2 h ago · not counted`. None when there is none, or when the status lens shows it."""
    if not status.shared or shared_of(status.evidence) is not None:
        return None
    view = next((view for view in status.shared if view.receipt.kind == "test"), status.shared[0])
    standing = "a local run wins" if view.counted else "not counted"
    return f"shared {_shared_label(view, now)} · {standing}"


def _shared_label(view: SharedView, now: float | None) -> str:
    return shared_label(view.to_json(), age(view.receipt.finished_epoch, now))


def shared_lines(status: Status, now: float | None = None, limit: int = 5) -> list[str]:
    """Markdown list items for the shared receipts of this content: what, who, when, whether it counts and why."""
    lines = []
    for view in status.shared[:limit]:
        where = ", ".join(markdown_text(part) for part in (view.receipt.provider, view.signature.signer) if part)
        counted = "counts" if view.counted else f"does not count: {markdown_text(view.why)}"
        lines.append(
            f"- {_shared_label(view, now)} {code_span(view.receipt.command or view.receipt.canonical_command)}"
            + (f" ({where})" if where else "")
            + f" — {counted}"
        )
    return lines


def run_lens_title(command: str) -> str:
    return f"▶ Run {command}"


def stale_message(
    path: str,
    status: Status,
    *,
    command: str | None,
    changed_count: int,
    unsaved: bool = False,
    disk_stale: bool = True,
    change_number: int = 0,
) -> str:
    """The one consolidated diagnostic of a file: what is stale, since which evidence, what to run. With a fresh
    failing receipt, the file is one the last run did not clear: it says that the last run failed.

    `change_number` (agents only) counts the content changes the server has seen in this root, which makes every
    new edit's message different.
    """
    evidence = status.evidence
    run = f"Run `{command}` to get fresh evidence." if command else "No verify command is declared for this root."
    counted = f", change #{change_number}" if change_number else ""
    parts: list[str] = []
    if disk_stale:
        if evidence is None:
            parts.append(
                f"`{path}` is not covered by any receipt: nothing has been verified in this root yet "
                f"({plural(changed_count, 'file')} changed{counted})."
            )
        elif status.status == "failed":
            number = f" (change #{change_number})" if change_number else ""
            parts.append(
                f"`{path}` is not covered by a passing run: the last run, `{evidence_command(evidence)}`, "
                f"{evidence_result(evidence)}{number}."
            )
        else:
            parts.append(
                f"`{path}` changed since `{evidence_command(evidence)}` {evidence_result(evidence)} "
                f"({plural(changed_count, 'file')} changed since{counted})."
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
    latest_change: float | None = None,
    change_number: int = 0,
) -> str:
    """Why this file is (or is not) covered: the receipt compared against and exactly what changed since, and when
    the latest change was seen (`change_number`: content changes seen since the server started)."""
    state = status.status
    evidence = status.evidence
    changed: Sequence[str] = status.changed_paths if changed_paths is None else changed_paths
    lines = [f"**freshpass** · {markdown_text(lens_title(status, now, changed_count=len(changed)))}", ""]
    if state == UNCHECKED:
        lines += [UNCHECKED_EXPLANATION, ""]
        if evidence is not None:
            lines.append(
                f"Latest receipt (whether it covers this content is not known): {code_span(evidence_command(evidence))}"
                f" {markdown_text(evidence_result(evidence))}, {age(evidence.finished_at, now)}."
            )
        return "\n".join(lines).rstrip() + "\n"
    if evidence is None:
        lines.append("No receipt exists for this root yet: no verify command has been recorded here.")
    else:
        when = f"{clock(evidence.finished_at)} ({age(evidence.finished_at, now)})"
        tests = evidence.tests
        shared = shared_of(evidence)
        by = f"{evidence.actor} (shared)" if shared is not None else evidence.session or evidence.actor or "unknown"
        rows = [
            ("receipt", "shared" if shared is not None else f"#{evidence.id}"),
            ("command", code_span(evidence_command(evidence), in_table=True)),
            ("kind", markdown_text(evidence.kind or "?")),
            ("scope", markdown_text(evidence.scope or "?")),
            ("observed", markdown_text(evidence.observed)),
            ("result", markdown_text(evidence_result(evidence))),
            ("when", when),
            ("by", markdown_text(by)),
        ]
        if tests:
            rows.append(("tests", ", ".join(f"{value} {name}" for name, value in tests.items())))
        lines += ["| | |", "| --- | --- |", *(f"| {name} | {value} |" for name, value in rows), ""]
    if state == "stale" or (state == "unverified" and changed):
        lines.append(f"**Changed since** ({plural(len(changed), 'file')}):")
        lines += [f"- {code_span(item)}" for item in changed[:max_paths]]
        if len(changed) > max_paths:
            lines.append(f"- … and {len(changed) - max_paths} more")
        lines.append("")
    elif state in ("passed", "failed", "flaky"):
        lines.append("The receipt ran against exactly the content this root has now.")
        lines.append("")
    if latest_change is not None:
        counted = f" · change #{change_number} since freshpass started watching" if change_number else ""
        lines.append(f"Latest change: {clock(latest_change)} ({age(latest_change, now)}){counted}")
        lines.append("")
    shared_list = shared_lines(status, now)
    if shared_list:
        lines += ["**Shared receipts** of this content (`refs/notes/freshpass`):", *shared_list, ""]
    if path is not None and unsaved:
        lines.append(f"Unsaved changes in {code_span(path)} are not covered: save them, then verify.")
        lines.append("")
    if command:
        lines.append(f"Run: {code_span(command)}")
    return "\n".join(lines).rstrip() + "\n"
