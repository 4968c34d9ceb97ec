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

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_OUTPUT = 1024 * 1024  # characters of a payload's output read (the ledger keeps a head and a tail anyway)
SHELL_TOOLS = frozenset({"Bash"})  # Claude Code's and Codex's shell tool, as their hook payloads name it
PAIRED_AGENTS = frozenset({"claude-code", "codex"})  # agents whose shell calls have a pre-tool hook too
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
    call: str | None = None  # the tool call's id (`tool_use_id`): what its pre-tool hook kept the start under

    @property
    def via(self) -> str:
        return f"{self.agent} {self.event}"

    @property
    def paired(self) -> bool:
        """Does this agent have a pre-tool hook for its shell calls (Claude Code, Codex)? Then a report whose start
        that hook never saw is unconfirmed."""
        return self.agent in PAIRED_AGENTS


@dataclass(frozen=True)
class ToolCallStart:
    """A shell tool call about to run, as a pre-tool hook reports it (Claude Code's and Codex's `PreToolUse`)."""

    agent: str
    command: str
    cwd: Path
    session: str
    call: str  # `tool_use_id`


def start_key(session: str, call: str) -> str:
    """The key a tool call's start is kept under: its session and its id."""
    return f"{session}\x1f{call}"


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


def _duration(value: Any, scale: float = 1000.0) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
        return None
    return float(value) / scale


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
    call = _text(payload.get("tool_use_id"))
    return ReportedRun(agent, event, command, cwd, exit_code, output, session, duration, arrived, call)


def tool_call_start(payload: Any) -> ToolCallStart | Skip:
    """The shell call a `PreToolUse` payload announces (`tool_name`, `tool_input.command`, `tool_use_id`, `cwd`,
    `session_id`), or why there is none to keep."""
    if not isinstance(payload, Mapping):
        return Skip(f"the payload is JSON {type(payload).__name__}, not an object")
    if payload.get("hook_event_name") != "PreToolUse":
        return Skip(f"not a pre-tool hook (hook_event_name {payload.get('hook_event_name')!r})")
    if payload.get("tool_name") not in SHELL_TOOLS:
        return Skip(f"not a shell tool call ({payload.get('tool_name')!r})")
    tool_input = payload.get("tool_input")
    command = _text(tool_input.get("command")) if isinstance(tool_input, Mapping) else None
    if command is None:
        return Skip("the payload has no tool_input.command")
    call = _text(payload.get("tool_use_id"))
    if call is None:
        return Skip('the payload has no "tool_use_id"')
    cwd = _cwd(payload)
    if isinstance(cwd, Skip):
        return cwd
    agent = "codex" if "turn_id" in payload else "claude-code"
    return ToolCallStart(agent, command, cwd, _text(payload.get("session_id")) or "agent", call)


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
    """What recording a reported run did: the receipts (JSON) it recorded, or why none."""

    receipts: tuple[dict[str, Any], ...] = ()
    reason: str = ""

    def summary(self) -> str:
        if not self.receipts:
            return f"nothing recorded: {self.reason}"
        return "; ".join(
            f"recorded {receipt['kind']} {receipt['status']} ({receipt['scope']}, {receipt['observed']}) as receipt "
            f"#{receipt['id']}"
            + (" — files changed while it ran, so it is already stale" if receipt.get("stale_at_record") else "")
            for receipt in self.receipts
        )


async def record_hook_run(run: ReportedRun) -> Recorded:
    """Record an agent's reported run through the run core, bound to the start its pre-tool hook kept (when it
    kept one)."""
    from freshpass.evidence.receipts import Actor
    from freshpass.evidence.runs import LedgerRecorder, Report, Start, record_reported

    async with LedgerRecorder() as recorder:
        start = None
        if run.call and run.paired:
            ledger = await recorder.opened()
            kept = await ledger.take_start(start_key(run.session, run.call)) if ledger is not None else None
            start = Start(*kept) if kept is not None else None
        report = Report(
            run.command, run.cwd, run.exit_code, run.output, Actor("agent", run.session), run.via, run.received_at,
            run.duration, start, paired=run.paired,
        )  # fmt: skip
        outcome = await record_reported(report, recorder=recorder)
    return Recorded(tuple(evidence.to_json() for evidence in outcome.receipts), outcome.reason)


async def keep_start(start: ToolCallStart) -> str:
    """Take the content the call's package root has now and keep it under the call's id; one line saying what
    was kept. Raises `LedgerError`."""
    from freshpass.evidence.runs import plan_run, read_contents
    from freshpass.ledger.store import Ledger

    plan = await plan_run(start.cwd)
    if plan.package_root is None:
        return f"{start.cwd} is not inside a project"
    contents, problems = (
        ({}, [plan.not_recordable]) if plan.not_recordable else await read_contents(plan.evidence_roots, plan.rules)
    )
    content = contents.get(str(plan.package_root))
    async with await Ledger.open() as ledger:
        if content is not None and content.manifest is not None:
            await ledger.save_manifest(plan.package_root, content.content_id, content.manifest)
        await ledger.remember_start(
            start_key(start.session, start.call), plan.package_root, content.content_id if content else None
        )
    if content is None:
        return f"kept the start of the call without its content ({'; '.join(p for p in problems if p)})"
    return f"kept the content of {plan.package_root} at the start of the call"
