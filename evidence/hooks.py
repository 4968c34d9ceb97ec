"""What agents' hooks tell freshpass (design §7.2, §7.3): payloads in, typed facts out, and the recording of runs
an agent made with its own shell tool.

Hook payloads are hostile input: anything may be missing, mistyped or huge. The readers here never raise on a
payload; what cannot be used becomes a `Skip` with a one-line reason, and the caller allows (a hook never wedges
an agent).

Shapes, as the agents document and send them (docs/agents.md cites the sources):

- **Claude Code** `PostToolUse` for a `Bash` call that succeeded: `tool_input.command`, `tool_response` with
  `stdout`, `stderr`, `interrupted`, `isImage` — no exit code: success is exit 0, except when Claude Code read a
  non-zero exit as benign (`returnCodeInterpretation`, e.g. `grep` finding nothing), which leaves it unknown.
  `PostToolUseFailure` for one that failed: `error` begins `Exit code N`, then stderr and stdout.
  `duration_ms` says how long it ran.
- **Codex** `PostToolUse` for `Bash`: `tool_input.command`, `tool_response` the output text — no exit status.
- **Cursor** `afterShellExecution`: `command`, `output`, `duration` — no exit status.
- **freshpass's own** (the OpenCode plugin, any harness): `command`, `exit_code` (null: it did not finish),
  `output`, `cwd`, `session_id`, `agent`, `duration_ms`.

Without an exit status, only a failure the output states (a runner's summary counting failed tests) is
unambiguous: a summary saying tests passed does not prove the run passed (a coverage threshold, a teardown error
or a later step can still fail it), so nothing is recorded then.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_OUTPUT = 1024 * 1024  # characters of a payload's output read (the ledger keeps a head and a tail anyway)
SHELL_TOOLS = frozenset({"Bash"})  # Claude Code's and Codex's shell tool, as their hook payloads name it
_EXIT_CODE = re.compile(r"\AExit code (-?\d+)\b")


@dataclass(frozen=True)
class Skip:
    """A payload that gives nothing to record or check, and why (one line)."""

    reason: str


@dataclass(frozen=True)
class ReportedRun:
    """A shell command an agent ran with its own tool, as its hook reported it."""

    agent: str  # "claude-code", "codex", "cursor", "opencode", or what a harness calls itself
    event: str  # the hook event that reported it
    command: str
    cwd: Path
    exit_code: int | None  # None: the payload carries no exit status
    output: str
    session: str
    duration: float | None = None  # seconds, when the payload says
    received_at: float = 0.0  # when the report arrived (epoch seconds)

    @property
    def via(self) -> str:
        return f"{self.agent} {self.event}"

    @property
    def started_at(self) -> float:
        return self.received_at - (self.duration or 0.0)


@dataclass(frozen=True)
class StopRequest:
    """An agent about to stop: where, whose budget, what it last said, and which transcripts hold its edits."""

    agent: str
    cwd: Path
    session: str
    message: str | None = None  # the agent's last message, where the payload carries it
    transcripts: tuple[Path, ...] = ()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


MAX_DURATION = 7 * 24 * 3600.0  # seconds: no check a hook reports ran for longer than a week


def _duration(value: Any, scale: float = 1000.0) -> float | None:
    """The payload's duration in seconds when it is a finite number between 0 and 7 days, else None (unsaid):
    `1e999` (JSON's infinity), NaN, a negative or absurd number never reaches the receipt's timestamps."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value) / scale
    except OverflowError:  # an int too large for a float
        return None
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_DURATION:
        return None
    return seconds


def _cwd(payload: Mapping[str, Any], fallback: str | None = None) -> Path | Skip:
    cwd = _text(payload.get("cwd")) or fallback
    if cwd is None:
        return Skip('the payload has no "cwd"')
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        return Skip(f"cwd {cwd!r} is not a directory")
    return path


def _joined(*parts: Any) -> str:
    return "\n".join(part for part in parts if isinstance(part, str) and part)[-MAX_OUTPUT:]


def reported_run(payload: Any, *, received_at: float | None = None) -> ReportedRun | Skip:
    """The shell run a post-tool hook payload reports, or why there is none to record."""
    if not isinstance(payload, Mapping):
        return Skip(f"the payload is JSON {type(payload).__name__}, not an object")
    arrived = time.time() if received_at is None else received_at
    event = payload.get("hook_event_name")
    if event in ("PostToolUse", "PostToolUseFailure"):
        return _post_tool_use(payload, str(event), arrived)
    if event == "afterShellExecution":
        return _cursor_shell(payload, arrived)
    if event is None and "command" in payload and "exit_code" in payload:
        return _own_shape(payload, arrived)
    return Skip(f"not a shell tool report (hook_event_name {event!r})")


def _post_tool_use(payload: Mapping[str, Any], event: str, arrived: float) -> ReportedRun | Skip:
    tool = payload.get("tool_name")
    if tool not in SHELL_TOOLS:
        return Skip(f"not a shell tool call ({tool!r})")
    tool_input = payload.get("tool_input")
    command = _text(tool_input.get("command")) if isinstance(tool_input, Mapping) else None
    if command is None:
        return Skip("the payload has no tool_input.command")
    cwd = _cwd(payload)
    if isinstance(cwd, Skip):
        return cwd
    session = _text(payload.get("session_id")) or "agent"
    duration = _duration(payload.get("duration_ms"))
    response = payload.get("tool_response")
    agent = "claude-code"
    exit_code: int | None
    if event == "PostToolUseFailure":
        if payload.get("is_interrupt") is True:
            return Skip("the command was interrupted")
        error = _text(payload.get("error")) or ""
        found = _EXIT_CODE.match(error)
        if found is None:
            return Skip("the failure carries no exit code (it did not run to an end)")
        exit_code, output = int(found.group(1)), error[found.end() :].lstrip("\n")[-MAX_OUTPUT:]
    elif isinstance(response, Mapping):
        if response.get("interrupted") is True:
            return Skip("the command was interrupted")
        if response.get("backgroundTaskId") is not None:
            return Skip("the command runs in the background: it has not finished")
        # Claude Code reports a non-zero exit it judged benign (grep's 1) as success, saying so in this field.
        exit_code = None if response.get("returnCodeInterpretation") else 0
        output = _joined(response.get("stdout"), response.get("stderr"))
    elif isinstance(response, str):  # Codex: the output text, and no exit status
        agent, exit_code, output = "codex", None, response[-MAX_OUTPUT:]
    else:
        return Skip("the payload has no tool_response")
    if "turn_id" in payload:
        agent = "codex"
    return ReportedRun(agent, event, command, cwd, exit_code, output, session, duration, arrived)


def _cursor_shell(payload: Mapping[str, Any], arrived: float) -> ReportedRun | Skip:
    command = _text(payload.get("command"))
    if command is None:
        return Skip('the payload has no "command"')
    roots = payload.get("workspace_roots")
    first_root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    cwd = _cwd(payload, first_root)
    if isinstance(cwd, Skip):
        return cwd
    conversation = _text(payload.get("conversation_id")) or "unknown"
    output = _text(payload.get("output")) or ""
    duration = _duration(payload.get("duration"))
    return ReportedRun(
        "cursor", "afterShellExecution", command, cwd, None, output[-MAX_OUTPUT:], f"cursor:{conversation}",
        duration, arrived,
    )  # fmt: skip


def _own_shape(payload: Mapping[str, Any], arrived: float) -> ReportedRun | Skip:
    command = _text(payload.get("command"))
    if command is None:
        return Skip('"command" must be a non-empty string')
    exit_code = payload.get("exit_code")
    if exit_code is None:
        return Skip("exit_code is null: the command did not run to an end (aborted or timed out)")
    if isinstance(exit_code, bool) or not isinstance(exit_code, int):
        return Skip('"exit_code" must be an integer or null')
    cwd = _cwd(payload)
    if isinstance(cwd, Skip):
        return cwd
    agent = _text(payload.get("agent")) or "harness"
    session = _text(payload.get("session_id")) or agent
    output = _text(payload.get("output")) or ""
    return ReportedRun(
        agent, "shell", command, cwd, exit_code, output[-MAX_OUTPUT:], session, _duration(payload.get("duration_ms")),
        arrived,
    )  # fmt: skip


def exit_status(run: ReportedRun) -> int | None:
    """The exit status a run's receipt is judged by: the reported one, else 1 when the output states failing tests,
    else None (nothing is recorded)."""
    if run.exit_code is not None:
        return run.exit_code
    from freshpass.facts.tools import parse_test_counts

    counts = parse_test_counts(run.output)
    return 1 if counts is not None and counts.failed > 0 else None


# ---- stop hooks ------------------------------------------------------------------------------------------------------


def stop_request(payload: Any, *, agent: str) -> StopRequest | Skip:
    """Claude Code's and Codex's Stop/SubagentStop input (`cwd`, `session_id`, `transcript_path`,
    `last_assistant_message`, and for a subagent `agent_transcript_path`)."""
    if not isinstance(payload, Mapping):
        return Skip(f"stdin is JSON {type(payload).__name__}, not a hook object")
    cwd = _cwd(payload)
    if isinstance(cwd, Skip):
        return cwd
    session = _text(payload.get("session_id")) or agent
    transcripts = tuple(
        Path(path)
        for path in (_text(payload.get("transcript_path")), _text(payload.get("agent_transcript_path")))
        if path is not None
    )
    return StopRequest(agent, cwd, session, _text(payload.get("last_assistant_message")), transcripts)


def cursor_stop_request(payload: Any) -> StopRequest | Skip:
    """Cursor's `stop` input: one budget per conversation (`conversation_id`); only a `completed` stop is checked
    (an aborted or failed turn is the person's business, not a claim of done)."""
    if not isinstance(payload, Mapping):
        return Skip(f"stdin is JSON {type(payload).__name__}, not a hook object")
    status = payload.get("status")
    if status != "completed":
        return Skip(f"the turn ended {status!r}, not completed: nothing to check")
    roots = payload.get("workspace_roots")
    first_root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    cwd = _cwd(payload, first_root)
    if isinstance(cwd, Skip):
        return cwd
    conversation = _text(payload.get("conversation_id")) or "unknown"
    return StopRequest("cursor", cwd, f"cursor:{conversation}")


# ---- recording a reported run ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """What `record_reported` did: the receipts (JSON) it recorded, or why none."""

    receipts: tuple[dict[str, Any], ...] = ()
    reason: str = ""

    def summary(self) -> str:
        if not self.receipts:
            return f"nothing recorded: {self.reason}"
        return "; ".join(
            f"recorded {receipt['kind']} {receipt['status']} ({receipt['scope']}) as receipt #{receipt['id']}"
            + (" — files changed while it ran, so it is already stale" if receipt.get("stale_at_record") else "")
            for receipt in self.receipts
        )


async def record_reported(run: ReportedRun) -> Recorded:
    """Record a reported run by the same classification as `freshpass run` (design §3, §7.2): nothing when it is
    not a recognised check, when its exit status is unknown and its output states no failure, or when its
    project cannot be read. Raises `LedgerError` when the ledger cannot be used."""
    from freshpass.evidence.receipts import Actor, Finished
    from freshpass.evidence.recording import changed_while_running, plan_run, read_contents, record_receipts
    from freshpass.facts.classify import classify
    from freshpass.ledger.store import Ledger

    plan = await plan_run(run.command, run.cwd)
    if plan.package_root is None:
        return Recorded(reason=f"{run.cwd} is not inside a project")
    if plan.unreadable:
        return Recorded(reason=f"the project's declared checks could not be read ({plan.unreadable})")
    exit_code = exit_status(run)
    if exit_code is None:
        return Recorded(reason="the report has no exit status, and its output states no failing test")
    outcome = classify(
        run.command, cwd=str(run.cwd), root=plan.package_root, facts=plan.facts, exit_code=exit_code,
        output=run.output,
    )  # fmt: skip
    if not outcome.matches:
        return Recorded(reason=outcome.reason or "not a recognised verify command")
    plan.evidence_roots.clear()
    plan.add_roots(outcome.matches)
    contents, problems = await read_contents(plan.evidence_roots, plan.rules)
    if not contents:
        return Recorded(reason="; ".join(problems) or "the project's content could not be read")
    changed = {}
    if run.duration is not None:
        for key, content in contents.items():
            changed[key] = await changed_while_running(Path(key), content, run.started_at, plan.rules)
    started = run.started_at if run.duration is not None else run.received_at
    finished = Finished(run.command, str(run.cwd), exit_code, run.output, 0, started, run.received_at)
    details = {"via": run.via, **({} if run.exit_code is not None else {"exit_status": "from the output"})}
    ledger = await Ledger.open()
    try:
        recorded = await record_receipts(
            ledger, plan, outcome, finished, Actor("agent", run.session), contents, contents, changed=changed,
            details=details,
        )  # fmt: skip
    finally:
        await ledger.close()
    return Recorded(tuple(evidence.to_json() for evidence in recorded), "" if recorded else "nothing to record")
