"""`freshpass hook`: the agents' done-check (design §7) adapted to stop hooks and shell gates.

- `freshpass hook claude-stop` reads Claude Code's Stop (or SubagentStop) hook JSON on stdin and prints
  `{"decision": "block", "reason": …}` while a nudge is due and the session's budget lasts; otherwise it allows
  the stop (exit 0, nothing on stdout, or a `systemMessage` telling the person the change is unverified once the
  budget is spent).
- `freshpass hook check [PATH]` exits 0 when verified or not applicable and 2 with the nudge on stderr, for Cursor,
  Codex, a git pre-push hook or any script.

Both share the decision and the ledger budget with the language server's `freshpass/checkDone`. A hook must never
wedge an agent: unreadable input, a path under no root and any failure of freshpass itself allow, with one line on
stderr saying why.
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
from freshpass.runner.terminal import say

if TYPE_CHECKING:
    from freshpass.evidence.agents import Decision, DoneRules

EXIT_ALLOW = 0
EXIT_NUDGE = 2  # `hook check`: a nudge is due; the message is on stderr
SESSION_ENV = "FRESHPASS_SESSION"
DEFAULT_CHECK_SESSION = "hook-check"
KIND_CHOICES = ("test", "lint", "typecheck", "build", "check")
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})  # Claude Code tools that change files


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
    claude = adapters.add_parser(
        "claude-stop",
        help="Claude Code Stop/SubagentStop hook: hook JSON on stdin, a block decision on stdout",
        description="Reads Claude Code's Stop-hook JSON on stdin. While code changed without a fresh passing "
        'run and the session\'s budget lasts, prints {"decision": "block", "reason": …}; otherwise allows.',
    )
    _add_rule_options(claude)
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


async def _evaluate(path: Path, session: str, rules: DoneRules, edited: Sequence[str] = ()) -> Decision:
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
        return await evaluate(ledger, root, session=session, rules=rules, fallback_paths=edited)
    finally:
        await ledger.close()


def _warn(adapter: str, text: str) -> None:
    say(f"freshpass hook {adapter}: {text}")


def _decide_or_allow(
    adapter: str, path: Path, session: str, rules: DoneRules, edited: Sequence[str] = ()
) -> Decision | None:
    """The decision, or None after one line on stderr when freshpass itself failed (the caller then allows)."""
    import asyncio

    from freshpass.ledger.store import LedgerError

    try:
        return asyncio.run(_evaluate(path, session, rules, edited))
    except LedgerError as exc:
        _warn(adapter, f"{exc}; allowing")
    except Exception as exc:  # a hook must never wedge the agent it guards: report and allow
        _warn(adapter, f"could not check ({type(exc).__name__}: {exc}); allowing")
    return None


def edited_in_transcript(transcript: Path) -> list[str]:
    """Files Claude's own edit tools wrote in this session, from its JSONL transcript (absolute paths).

    They count only when the root never had a qualifying pass: then git's uncommitted changes are all freshpass
    can see, and an agent that committed its edits would otherwise look as if it changed nothing. An unreadable or
    unfamiliar transcript gives no paths, never an error.
    """
    paths: dict[str, None] = {}
    try:
        with open(transcript, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if '"tool_use"' not in line:  # most lines are text; parse only tool calls
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
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
    except OSError:
        return []
    return list(paths)


def _claude_stop(args: argparse.Namespace) -> int:
    rules = _rules(args)
    raw = sys.stdin.read()
    try:
        payload: Any = json.loads(raw)
    except ValueError as exc:
        _warn("claude-stop", f"stdin is not Claude Code hook JSON ({exc.__class__.__name__}: {exc}); allowing")
        return EXIT_ALLOW
    if not isinstance(payload, dict):
        _warn("claude-stop", f"stdin is JSON {type(payload).__name__}, not a hook object; allowing")
        return EXIT_ALLOW
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        _warn("claude-stop", 'hook JSON has no "cwd"; allowing')
        return EXIT_ALLOW
    if not Path(cwd).is_dir():
        _warn("claude-stop", f"cwd {cwd!r} is not a directory; allowing")
        return EXIT_ALLOW
    session_id = payload.get("session_id")
    session = session_id if isinstance(session_id, str) and session_id else "claude-code"
    transcript = payload.get("transcript_path")
    edited = edited_in_transcript(Path(transcript)) if isinstance(transcript, str) and transcript else []
    decision = _decide_or_allow("claude-stop", Path(cwd), session, rules, edited)
    if decision is None:
        return EXIT_ALLOW
    if decision.verdict == "nudge":
        # Claude Code reads this on exit 0: the stop is blocked and `reason` becomes Claude's next instruction.
        print(json.dumps({"decision": "block", "reason": decision.message}))
    elif decision.verdict == "exhausted":
        # Not blocking again (stop_hook_active loops end here), but the person sees the change is unverified.
        print(json.dumps({"systemMessage": decision.message}))
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


def run(args: argparse.Namespace) -> int:
    if args.adapter == "claude-stop":
        return _claude_stop(args)
    if args.adapter == "check":
        return _check(args)
    raise UsageError("choose an adapter: claude-stop or check")
