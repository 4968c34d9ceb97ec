"""`freshpass hook`: the agents' done-check (design §7) adapted to their hooks, and their own runs recorded.

- `freshpass hook claude-stop` / `codex-stop` read Claude Code's or Codex's Stop (or SubagentStop) hook JSON on
  stdin and print `{"decision": "block", "reason": …}` while a nudge is due and the session's budget lasts, or
  while the agent's last message claims a pass no fresh receipt backs (the claim is quoted); otherwise they allow
  the stop (exit 0, nothing on stdout, or a `systemMessage` telling the person the change is unverified once the
  budget is spent).
- `freshpass hook cursor-stop` reads Cursor's `stop` hook JSON (one budget per conversation, only completed turns)
  and prints `{"followup_message": …}` while a nudge is due, else `{}`.
- `freshpass hook record` reads a post-tool hook payload (Claude Code's PostToolUse/PostToolUseFailure, Codex's
  PostToolUse, Cursor's afterShellExecution, or freshpass's own shape that the OpenCode plugin sends) and records
  the shell command it reports when it ran a recognised check, by the same classification as `freshpass run`.
- `freshpass hook pre` reads Claude Code's or Codex's PreToolUse payload for a shell call and keeps the content its
  project has at the start, keyed by the call's `tool_use_id`, for the PostToolUse record of the same call.
- `freshpass hook check [PATH]` exits 0 when verified or not applicable and 2 with the nudge on stderr, for a git
  pre-push hook or any script.

They share the decision and the ledger budget with the language server's `freshpass/checkDone` and the MCP server.
A hook must never wedge an agent: unreadable input, a path under no root and any failure of freshpass itself
allow, with one line on stderr saying why. The payload readers live in the evidence core (`freshpass.evidence.hooks`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.commands import UsageError
from freshpass.evidence import settings_defaults as defaults
from freshpass.facts.files import read_tail
from freshpass.facts.model import KINDS as KIND_CHOICES
from freshpass.fastentry import MAX_PAYLOAD, taken
from freshpass.runner.terminal import say

if TYPE_CHECKING:
    from freshpass.evidence.agents import Decision, DoneRules
    from freshpass.evidence.claims import Claim

EXIT_ALLOW = 0
EXIT_NUDGE = 2  # `hook check`: a nudge is due; the message is on stderr
SESSION_ENV = "FRESHPASS_SESSION"
DEFAULT_CHECK_SESSION = "hook-check"
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})  # Claude Code tools that change files
STOP_ADAPTERS = {"claude-stop": "claude-code", "codex-stop": "codex"}


def _add_rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--budget",
        type=int,
        default=defaults.NUDGE_BUDGET,
        metavar="N",
        help=f"nudges per session between two passes (setting nudge.budget; default {defaults.NUDGE_BUDGET}, "
        "0 never blocks)",
    )
    parser.add_argument(
        "--done-kind",
        dest="done_kinds",
        action="append",
        choices=KIND_CHOICES,
        metavar="KIND",
        help="a kind whose fresh pass counts as done; repeat for several "
        f"(setting done.kinds; default {' '.join(defaults.DONE_KINDS)})",
    )
    parser.add_argument(
        "--done-scope",
        choices=("full", "targeted"),
        default=defaults.DONE_SCOPE,
        help=f"the narrowest scope that counts as done (setting done.scope; default {defaults.DONE_SCOPE})",
    )


def add_parser(parser: argparse.ArgumentParser) -> None:
    adapters = parser.add_subparsers(dest="adapter", metavar="ADAPTER", parser_class=type(parser))
    for name, agent in STOP_ADAPTERS.items():
        title = "Claude Code" if agent == "claude-code" else "Codex"
        stop = adapters.add_parser(
            name,
            help=f"{title} Stop/SubagentStop hook: hook JSON on stdin, a block decision on stdout",
            description=f"Reads {title}'s Stop-hook JSON on stdin. While code changed without a fresh passing run, "
            "or the agent's last message claims a pass no fresh receipt backs, and the session's budget lasts, "
            'prints {"decision": "block", "reason": …}; otherwise allows.',
        )
        _add_rule_options(stop)
    cursor = adapters.add_parser(
        "cursor-stop",
        help="Cursor stop hook: hook JSON on stdin, a followup_message on stdout while a nudge is due",
        description="Reads Cursor's stop-hook JSON on stdin (one budget per conversation_id; only a completed "
        'turn is checked) and prints {"followup_message": …} while a nudge is due, else {}.',
    )
    _add_rule_options(cursor)
    record = adapters.add_parser(
        "record",
        help="post-tool hook: record the agent's own run of a check (hook JSON on stdin)",
        description="Reads a post-tool hook payload on stdin (Claude Code PostToolUse/PostToolUseFailure, Codex "
        "PostToolUse, Cursor afterShellExecution, or {command, exit_code, output, cwd, session_id, agent, "
        "duration_ms}) and records the shell command it reports when it ran a recognised check. Always exits 0.",
    )
    record.add_argument("--json", action="store_true", help="print what was recorded (or why not) as JSON")
    pre = adapters.add_parser(
        "pre",
        help="pre-tool hook: keep the content at the start of a shell call (hook JSON on stdin)",
        description="Reads Claude Code's or Codex's PreToolUse payload on stdin and, when the shell command may be "
        "a check, keeps the content its project has now under the call's tool_use_id, so the PostToolUse record "
        "binds the run to the content it started with. Prints nothing; always exits 0.",
    )
    pre.add_argument("--verbose", action="store_true", help="say on stderr what was kept (or why not)")
    check = adapters.add_parser(
        "check",
        help="exit 0 when verified or not applicable, 2 with the nudge on stderr",
        description="The done-check for any agent or script: exit 0 when verified or nothing needs verifying, "
        "2 with the nudge on stderr while one is due.",
    )
    check.add_argument("path", nargs="?", default=None, metavar="PATH", help="a path in the project (default: .)")
    check.add_argument("--json", action="store_true", help="print the checkDone response JSON on stdout")
    check.add_argument(
        "--session",
        default=None,
        metavar="ID",
        help=f"whose nudge budget to spend (default: ${SESSION_ENV}, else {DEFAULT_CHECK_SESSION!r})",
    )
    _add_rule_options(check)


def _rules(args: argparse.Namespace) -> DoneRules:
    from freshpass.evidence.agents import DoneRules

    if args.budget < 0:
        raise UsageError(f"--budget must be 0 or more, got {args.budget}")
    return DoneRules(budget=args.budget, kinds=tuple(args.done_kinds or defaults.DONE_KINDS), scope=args.done_scope)


async def _evaluate(
    path: Path, session: str, rules: DoneRules, edited: Sequence[str] = (), claims: Sequence[Claim] = ()
) -> Decision:
    from freshpass.evidence.agents import Decision, evaluate
    from freshpass.facts.roots import find_root
    from freshpass.ledger.store import Ledger

    root = find_root(path)
    if root is None:
        return Decision("not_applicable", f"freshpass: {path} is not inside a project root; nothing to verify.")
    ledger = await Ledger.open()
    for warning in ledger.warnings:  # e.g. a corrupt ledger was moved aside: say so once, then go on
        say(warning)
    try:
        return await evaluate(ledger, root, session=session, rules=rules, fallback_paths=edited, claims=claims)
    finally:
        await ledger.close()


def _warn(adapter: str, text: str) -> None:
    say(f"freshpass hook {adapter}: {text}")


def _decide_or_allow(
    adapter: str,
    path: Path,
    session: str,
    rules: DoneRules,
    edited: Sequence[str] = (),
    claims: Sequence[Claim] = (),
) -> Decision | None:
    """The decision, or None after one line on stderr when freshpass itself failed (the caller then allows)."""
    import asyncio

    from freshpass.ledger.store import LedgerError

    try:
        return asyncio.run(_evaluate(path, session, rules, edited, claims))
    except LedgerError as exc:
        _warn(adapter, f"{exc}; allowing")
    except Exception as exc:  # a hook must never wedge the agent it guards: report and allow
        _warn(adapter, f"could not check ({type(exc).__name__}: {exc}); allowing")
    return None


TRANSCRIPT_TAIL = 32 << 20  # bytes of a transcript read, from its end


def edited_in_transcript(transcript: Path) -> list[str]:
    """Files Claude's own edit tools wrote in this session, from its JSONL transcript (absolute paths).

    They count only when the root never had a qualifying pass: then git's uncommitted changes are all freshpass
    can see, and an agent that committed its edits would otherwise look as if it changed nothing. An unreadable or
    unfamiliar transcript gives no paths, never an error.
    """
    paths: dict[str, None] = {}
    try:
        # a regular file only (never a FIFO or a device a payload names), and only its newest TRANSCRIPT_TAIL bytes
        data, whole = read_tail(transcript, TRANSCRIPT_TAIL)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    for line in lines if whole else lines[1:]:  # a cut first line is not a whole entry
        if '"tool_use"' not in line:  # most lines are text; parse only tool calls
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            if block.get("name") not in EDIT_TOOLS or not isinstance(block.get("input"), dict):
                continue
            target = block["input"].get("file_path") or block["input"].get("notebook_path")
            if isinstance(target, str) and target:
                paths.setdefault(target, None)
    return list(paths)


def _read_payload() -> tuple[Any, str]:
    """The hook JSON on stdin (or what the fast path already read of it), or (None, why not)."""
    raw = taken()
    if raw is None:
        raw = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    if len(raw) > MAX_PAYLOAD:
        return None, f"stdin holds more than {MAX_PAYLOAD} bytes: not a hook payload"
    try:
        return json.loads(raw.decode("utf-8", errors="replace")), ""
    except (ValueError, RecursionError) as exc:
        return None, f"stdin is not hook JSON ({exc.__class__.__name__}: {exc})"


def _stop(args: argparse.Namespace) -> int:
    from freshpass.evidence.claims import find_claims
    from freshpass.evidence.claims.transcript import last_message
    from freshpass.evidence.hooks import Skip, stop_request

    adapter = args.adapter
    rules = _rules(args)
    payload, problem = _read_payload()
    request = stop_request(payload, agent=STOP_ADAPTERS[adapter]) if not problem else Skip(problem)
    if isinstance(request, Skip):
        _warn(adapter, f"{request.reason}; allowing")
        return EXIT_ALLOW
    edited = [path for transcript in request.transcripts for path in edited_in_transcript(transcript)]
    claims = find_claims(request.message or last_message(request.transcripts))
    decision = _decide_or_allow(adapter, request.cwd, request.session, rules, edited, claims)
    if decision is None:
        return EXIT_ALLOW
    if decision.verdict == "nudge":
        # Read on exit 0 by Claude Code and Codex alike: the stop is blocked and `reason` is the next instruction.
        print(json.dumps({"decision": "block", "reason": decision.message}))
    elif decision.verdict == "exhausted":
        # Not blocking again (stop_hook_active loops end here), but the person sees the change is unverified.
        print(json.dumps({"systemMessage": decision.message}))
    return EXIT_ALLOW


def _cursor_stop(args: argparse.Namespace) -> int:
    from freshpass.evidence.hooks import Skip, cursor_stop_request

    rules = _rules(args)
    payload, problem = _read_payload()
    request = cursor_stop_request(payload) if not problem else Skip(problem)
    decision = None
    if isinstance(request, Skip):
        _warn("cursor-stop", f"{request.reason}; allowing")
    else:
        from freshpass.evidence.claims import find_claims
        from freshpass.evidence.claims.transcript import last_message

        if not request.transcripts:
            _warn("cursor-stop", "the stop input has no transcript_path, so the agent's claims cannot be checked")
        claims = find_claims(last_message(request.transcripts))
        decision = _decide_or_allow("cursor-stop", request.cwd, request.session, rules, claims=claims)
    if decision is not None and decision.verdict == "nudge":
        # Cursor submits this as the next user message (its hook's `loop_limit` caps the follow-ups too).
        print(json.dumps({"followup_message": decision.message}))
    else:
        print("{}")
    return EXIT_ALLOW


def _record(args: argparse.Namespace) -> int:
    import asyncio

    from freshpass.evidence.hooks import Recorded, Skip, record_hook_run, reported_run
    from freshpass.ledger.store import LedgerError

    payload, problem = _read_payload()
    run = reported_run(payload) if not problem else Skip(problem)
    outcome: Recorded
    if isinstance(run, Skip):
        outcome = Recorded(reason=run.reason)
    else:
        try:
            outcome = asyncio.run(record_hook_run(run))
        except LedgerError as exc:
            outcome = Recorded(reason=f"the ledger cannot be used: {exc}")
        except Exception as exc:  # a hook must never wedge the agent it serves: report and go on
            outcome = Recorded(reason=f"could not record ({type(exc).__name__}: {exc})")
    if args.json:
        print(json.dumps({"recorded": bool(outcome.receipts), "reason": outcome.reason or None,
                          "receipts": list(outcome.receipts)}, indent=2))  # fmt: skip
    say(f"freshpass hook record: {outcome.summary()}")
    return EXIT_ALLOW


def _pre(args: argparse.Namespace) -> int:
    import asyncio

    from freshpass.evidence.hooks import Skip, keep_start, tool_call_start

    payload, problem = _read_payload()
    start = tool_call_start(payload) if not problem else Skip(problem)
    if isinstance(start, Skip):
        said = start.reason
    else:
        try:
            said = asyncio.run(keep_start(start))
        except Exception as exc:  # a hook must never wedge the agent it serves: report and go on
            said = f"could not keep the start ({type(exc).__name__}: {exc})"
    if args.verbose:
        say(f"freshpass hook pre: {said}")
    return EXIT_ALLOW


def _check(args: argparse.Namespace) -> int:
    rules = _rules(args)
    path = Path(args.path) if args.path else Path.cwd()
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    session = args.session or os.environ.get(SESSION_ENV) or DEFAULT_CHECK_SESSION
    decision = _decide_or_allow("check", path.resolve(), session, rules)
    if decision is None:
        return EXIT_ALLOW
    if args.json:
        print(json.dumps(decision.to_json(), indent=2))
    if decision.verdict in ("nudge", "exhausted"):
        say(decision.message, multiline=True)
    return EXIT_NUDGE if decision.verdict == "nudge" else EXIT_ALLOW


def _asyncio_without_tls() -> None:
    """Import asyncio without the `ssl` module: a hook speaks no TLS, and `ssl` is about a third of asyncio's import
    (≈10 ms of every Stop an agent makes). asyncio reads a missing `ssl` as "no TLS support" and works otherwise;
    `import ssl` elsewhere in the process still works (only asyncio's own reference is left out)."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return
    sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` raises ImportError while asyncio loads
    try:
        import asyncio  # noqa: F401
    finally:
        del sys.modules["ssl"]


def run(args: argparse.Namespace) -> int:
    _asyncio_without_tls()
    if args.adapter in STOP_ADAPTERS:
        return _stop(args)
    if args.adapter == "cursor-stop":
        return _cursor_stop(args)
    if args.adapter == "record":
        return _record(args)
    if args.adapter == "pre":
        return _pre(args)
    if args.adapter == "check":
        return _check(args)
    raise UsageError("choose an adapter: claude-stop, codex-stop, cursor-stop, pre, record or check")
