"""`freshpass run [--json] -- COMMAND…` (design §5, §8): run a command line exactly as your shell would, and keep
the receipt.

The command runs through the user's shell in its own process group with stdin inherited and output streamed live;
freshpass exits with the command's exit code. Ctrl-C, SIGTERM and SIGHUP are forwarded to the whole group. The
run is then classified (design §3) with its exit code and output; every attributable match becomes evidence bound
to the content its root had when the run started (recorded already stale if that content changed meanwhile).

Output streams: without `--json` the command's stdout and stderr pass through unchanged and freshpass adds one
line on stderr. With `--json`, stdout carries only the receipt JSON (after the command ends), so the command's
own stdout is sent to stderr.

Start-up cost matters here (it is added to every command): the content machinery and SQLite are loaded only when
the line can count as evidence, the ledger is opened while the command runs, and the content after the run is
read while the output is classified.

Reading the repository never stands between the user and the command: facts detection and content snapshots run
in daemon threads with a deadline (`freshpass.evidence.detection`), Ctrl-C and SIGTERM are heard while they run,
and when they fail or overrun the command still runs — freshpass then records nothing and says why in one line.
freshpass itself never reads the terminal: the command gets the original stdin, freshpass's own descriptor 0 is
`/dev/null` (a repository's `Makefile -> /dev/stdin` reads as empty instead of eating the user's typing).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from freshpass.commands import UsageError


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "The command runs through your shell in the current directory with your terminal; freshpass exits with its "
        "exit code. Without --json its output is passed through untouched and freshpass adds one line on stderr. "
        "With --json the command's output goes to stderr and stdout carries only {exit_code, recorded, reason, "
        "receipts, status}. Receipts belong to $FRESHPASS_SESSION (default terminal:<parent pid>)."
    )
    parser.add_argument(
        "--json", action="store_true", help="print the receipt JSON on stdout (the command's output goes to stderr)"
    )
    parser.add_argument(
        "--share",
        action="store_true",
        help="also attach the new receipts to git (refs/notes/freshpass; see freshpass share)",
    )
    parser.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND…",
        help="one argument is a whole command line; several are joined with shell quoting",
    )


def command_line(words: list[str]) -> str:
    """The command line to run: one word is a full command line, several are quoted and joined."""
    if words and words[0] == "--":
        words = words[1:]
    if not words or not any(word.strip() for word in words):
        raise UsageError("give the command to run after --, e.g. freshpass run -- pytest -q")
    return words[0] if len(words) == 1 else shlex.join(words)


def run(args: argparse.Namespace) -> int:
    import asyncio

    line = command_line(list(args.command))
    try:
        os.getcwd()
    except OSError:
        raise UsageError("the current directory no longer exists; cd somewhere that does") from None
    command_stdin = _keep_stdin_for_the_command()
    try:
        return asyncio.run(_run(line, json_output=bool(args.json), command_stdin=command_stdin, share=bool(args.share)))
    finally:
        if command_stdin is not None:
            os.close(command_stdin)


def _keep_stdin_for_the_command() -> int | None:
    """A private copy of our stdin for the command; our own descriptor 0 becomes /dev/null, so nothing freshpass
    reads (a manifest that is a symlink to /dev/stdin) can consume what the user types for the command."""
    try:
        kept = os.dup(0)
    except OSError:
        return None  # no stdin at all: the command inherits that
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        pass
    return kept


def _say(message: str) -> None:
    from freshpass.runner.terminal import safe

    try:
        print(f"freshpass: {safe(message)}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


async def _run(line: str, *, json_output: bool, command_stdin: int | None = None, share: bool = False) -> int:
    import asyncio
    import signal

    from freshpass.evidence.detection import Interrupted
    from freshpass.evidence.runs import LedgerRecorder, actor_from_environment, run_check
    from freshpass.runner.environment import FIX_IN_TERMINAL
    from freshpass.runner.jobcontrol import Terminal

    loop = asyncio.get_running_loop()
    process_group: list[int] = []
    interrupted: list[int] = []
    interrupt = asyncio.Event()

    def forward(sig: int) -> None:
        # The command runs in its own process group, so the terminal's Ctrl-C reaches only us: pass it on.
        if process_group:
            try:
                os.killpg(process_group[0], sig)
            except (ProcessLookupError, PermissionError):
                pass
        else:
            interrupted.append(sig)
            interrupt.set()

    forwarded = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in forwarded:
        loop.add_signal_handler(sig, forward, sig)

    # The command's bytes pass through unchanged; with --json its stdout goes to our stderr.
    echo_to = (sys.stderr, sys.stderr) if json_output else (sys.stdout, sys.stderr)
    terminal = Terminal.of(command_stdin)

    def started(pgid: int) -> None:
        process_group.append(pgid)
        if terminal is not None:
            terminal.hand_to(pgid)
        # A signal that arrived between the spawn and this call (the loop ran its handler first) is owed to the
        # command: without this, an early Ctrl-C would be lost and we would wait for the command forever.
        for sig in interrupted:
            forward(sig)

    recorder = LedgerRecorder(_say)
    statuses: list[dict[str, Any]] = []
    try:
        try:
            outcome = await run_check(
                line,
                Path(os.getcwd()),
                actor=actor_from_environment(),
                recorder=recorder,
                fix=FIX_IN_TERMINAL,
                say=_say,
                interrupt=interrupt,
                on_start=started,
                echo=True,
                echo_to=echo_to,
                stdin_fd=command_stdin,
                inherit_stdin=command_stdin is None,
            )
        except Interrupted:
            return 128 + interrupted[0]
        finally:
            if terminal is not None:
                terminal.take_back()
            for sig in forwarded:
                loop.remove_signal_handler(sig)
        if json_output and outcome.receipts:
            statuses = await _statuses(recorder, outcome)
    finally:
        await recorder.close()
    receipts = [evidence.to_json() for evidence in outcome.receipts]
    assert outcome.result is not None
    if not receipts:
        _say(f"nothing recorded: {outcome.reason}")
    elif not json_output:
        for receipt in receipts:
            _say(_receipt_line(receipt))
    if share and receipts:
        from freshpass.commands.share import share_recorded

        for said in await share_recorded([receipt["id"] for receipt in receipts]):
            _say(said)
    if json_output:
        import json

        payload = {
            "exit_code": outcome.result.exit_code,
            "recorded": bool(receipts),
            "reason": None if receipts else outcome.reason,
            "receipts": receipts,
            "status": statuses[0] if statuses else None,
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        sys.stdout.flush()
    return outcome.result.exit_code


async def _statuses(recorder: Any, outcome: Any) -> list[dict[str, Any]]:
    """The status of each root the run recorded for, after it (for `--json`)."""
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.evidence.status import root_status
    from freshpass.ledger.store import LedgerError

    ledger = await recorder.opened()
    statuses: list[dict[str, Any]] = []
    seen: set[str] = set()
    for evidence in outcome.receipts:
        end = outcome.after.get(evidence.root)
        if ledger is None or end is None or evidence.root in seen:
            continue
        seen.add(evidence.root)
        facts = outcome.plan.facts
        if evidence.root != str(outcome.plan.package_root):
            try:
                facts = await detect_bounded(Path(evidence.root))
            except Unavailable:
                facts = None
        try:
            statuses.append((await root_status(ledger, evidence.root, facts, end)).to_json())
        except LedgerError as exc:
            _say(f"the ledger cannot be used: {exc}")
    return statuses


def _receipt_line(receipt: dict[str, Any]) -> str:
    tests = receipt.get("tests")
    counted = ""
    if tests:
        counted = f", {tests['passed']} passed, {tests['failed']} failed, {tests['skipped']} skipped"
    approved = "approved" if receipt.get("approved") else "not a declared verify command"
    stale = " — files changed while it ran, so it is already stale" if receipt.get("stale_at_record") else ""
    return (
        f"recorded {receipt['kind']} {receipt['status']} ({receipt['scope']}, {approved}{counted}) "
        f"as receipt #{receipt['id']}{stale}"
    )
