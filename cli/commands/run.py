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
from typing import TYPE_CHECKING, Any

from freshpass.commands import UsageError

if TYPE_CHECKING:
    import asyncio

    from freshpass.evidence.recording import RunPlan
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.classify import Classification
    from freshpass.ledger.content import ContentSnapshot
    from freshpass.ledger.store import Ledger, LedgerError
    from freshpass.runner.environment import RunEnvironment
    from freshpass.runner.process import ProcessResult


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


async def _plan_and_read(line: str, cwd: Path, interrupt: asyncio.Event) -> tuple[RunPlan, dict[str, ContentSnapshot]]:
    """Work out what the run can count for, and read those roots' content before it starts.

    Raises `Interrupted` when a signal arrives meanwhile. When the facts cannot be read (an exception, or longer
    than the deadline) the plan says why (`unreadable`) and nothing will be recorded.
    """
    from freshpass.evidence.detection import Unavailable, detect_bounded, in_thread
    from freshpass.evidence.recording import RunPlan
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.classify import classify
    from freshpass.facts.roots import find_package_root, find_root

    plan = RunPlan(cwd=cwd, root=find_root(cwd))
    if plan.root is None:
        return plan, {}
    plan.package_root = find_package_root(cwd, plan.root)
    # A recognised runner is known without the project's facts: start reading the content it would count for
    # while the facts are detected (git works on the other core). Classified as if it will succeed, because
    # only the roots matter here.
    guessed = classify(line, cwd=str(cwd), root=plan.package_root, exit_code=0)
    early: dict[str, asyncio.Future[ContentSnapshot]] = {}
    if guessed.matches:
        from freshpass.ledger.content import snapshot

        for match in guessed.matches:
            match_root = plan.root_of(match)
            if str(match_root) not in early:
                early[str(match_root)] = in_thread(snapshot, match_root, [], name="freshpass-content")

    try:
        plan.facts = await detect_bounded(plan.package_root, interrupt=interrupt)
    except Unavailable as exc:
        plan.unreadable = str(exc)
        for future in early.values():
            future.add_done_callback(_ignore_outcome)
        return plan, {}
    plan.add_roots(classify(line, cwd=str(cwd), root=plan.package_root, facts=plan.facts, exit_code=0).matches)
    default_rules = plan.rules == ContentRules()  # what the early reads used
    for key, future in early.items():
        if key not in plan.evidence_roots or not default_rules:
            future.add_done_callback(_ignore_outcome)
    if not plan.evidence_roots:
        return plan, {}
    usable = {key: future for key, future in early.items() if key in plan.evidence_roots and default_rules}
    before = await _snapshots(
        {key: path for key, path in plan.evidence_roots.items() if key not in usable},
        plan.rules,
        "before the run",
        interrupt,
    )
    for key, future in usable.items():
        taken = await _settle(future, plan.evidence_roots[key], "before the run", interrupt)
        if taken is not None:
            before[key] = taken
    return plan, before


def _ignore_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def _settle(
    future: asyncio.Future[ContentSnapshot], path: Path, when: str, interrupt: asyncio.Event | None = None
) -> ContentSnapshot | None:
    from freshpass.evidence.detection import Unavailable, wait_bounded
    from freshpass.ledger.content import ContentError

    try:
        return await wait_bounded(future, deadline=None, interrupt=interrupt, what=f"reading the content of {path}")
    except Unavailable as exc:
        cause = exc.__cause__
        reason = str(cause) if isinstance(cause, ContentError) else str(exc)
        _say(f"cannot read the content of {path} {when} ({reason}); this run is not recorded for it")
        return None


async def _snapshots(
    roots: dict[str, Path], rules: ContentRules, when: str, interrupt: asyncio.Event | None = None
) -> dict[str, ContentSnapshot]:
    if not roots:
        return {}
    from freshpass.evidence.detection import in_thread

    reading = {key: in_thread(rules.snapshot, path, name="freshpass-content") for key, path in roots.items()}
    taken = {key: await _settle(future, roots[key], when, interrupt) for key, future in reading.items()}
    return {key: value for key, value in taken.items() if value is not None}


async def _open_ledger() -> Ledger | LedgerError:
    from freshpass.ledger.store import Ledger, LedgerError

    try:
        return await Ledger.open()
    except LedgerError as exc:
        return exc


async def _run(line: str, *, json_output: bool, command_stdin: int | None = None, share: bool = False) -> int:
    import asyncio
    import json
    import signal

    from freshpass.evidence.detection import Interrupted
    from freshpass.runner.process import binary_stream, run_shell

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
    stdout, stderr = binary_stream(sys.stdout), binary_stream(sys.stderr)
    echo_to = (stderr, stderr) if json_output else (stdout, stderr)

    ledger_opening: asyncio.Task[Ledger | LedgerError] | None = None
    try:
        try:
            plan, before = await _plan_and_read(line, Path(os.getcwd()), interrupt)
        except Interrupted:
            return 128 + interrupted[0]
        if plan.unreadable:
            _say(f"{plan.unreadable}; running the command without recording it")
        if before:
            ledger_opening = asyncio.create_task(_open_ledger())  # opens while the command runs
        if interrupted:
            return 128 + interrupted[0]
        environment = _environment(plan)
        terminal = _Terminal.of(command_stdin)

        def started(pgid: int) -> None:
            process_group.append(pgid)
            if terminal is not None:
                terminal.hand_to(pgid)
            # A signal that arrived between the spawn and this call (the loop ran its handler first) is owed to
            # the command: without this, an early Ctrl-C would be lost and we would wait for the command forever.
            for sig in interrupted:
                forward(sig)

        try:
            result = await run_shell(
                line,
                plan.cwd,
                env=environment.apply(os.environ),
                echo=True,
                echo_to=echo_to,
                stdin_fd=command_stdin,
                inherit_stdin=command_stdin is None,
                on_start=started,
                timeout=None,
            )
        finally:
            if terminal is not None:
                terminal.take_back()
        for sig in forwarded:
            loop.remove_signal_handler(sig)
        if result.error:
            _say(result.error)
        for note in result.notes():
            _say(note)
        not_found = None
        if result.exit_code == 127 and not result.aborted:
            from freshpass.runner.environment import FIX_IN_TERMINAL, missing_program, not_found_message

            not_found = missing_program(line, result.output.text(), environment.path, plan.cwd)
            _say(not_found_message(not_found, environment, FIX_IN_TERMINAL))
        ran_in = environment.to_json(not_found=not_found)
        receipts, statuses, not_recorded = await _classify_and_record(
            line, plan, result, before, ledger_opening, with_status=json_output, environment=ran_in
        )
    finally:
        for sig in forwarded:
            loop.remove_signal_handler(sig)
        if ledger_opening is not None:
            opened = await ledger_opening
            if not isinstance(opened, Exception):
                await opened.close()

    if not receipts:
        _say(f"nothing recorded: {not_recorded}")
    elif not json_output:
        for receipt in receipts:
            _say(_receipt_line(receipt))
    if share and receipts:
        from freshpass.commands.share import share_recorded

        for said in await share_recorded([receipt["id"] for receipt in receipts]):
            _say(said)
    if json_output:
        payload = {
            "exit_code": result.exit_code,
            "recorded": bool(receipts),
            "reason": None if receipts else not_recorded,
            "receipts": receipts,
            "status": statuses[0] if statuses else None,
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        sys.stdout.flush()
    return result.exit_code


def _environment(plan: RunPlan) -> RunEnvironment:
    """The project's environment when this terminal is not inside it (design §5), said in one line on stderr."""
    from freshpass.runner.environment import RunEnvironment, run_environment

    if plan.root is None:
        return RunEnvironment(base_path=os.environ.get("PATH", ""))
    environment = run_environment(plan.cwd, plan.root, os.environ)
    summary = environment.summary()
    if summary:
        _say(summary)
    for note in environment.notes:
        _say(note)
    return environment


class _Terminal:
    """Job control as a shell does it: the command's process group owns the terminal while it runs.

    Otherwise a command that reads the terminal (a debugger prompt, an interactive test) would be stopped by
    SIGTTIN, and Ctrl-C would reach only freshpass. With the terminal handed over, Ctrl-C goes straight to the
    command's group, exactly as without freshpass.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.handed = False

    @classmethod
    def of(cls, fd: int | None) -> _Terminal | None:
        """The terminal on `fd` (the command's stdin), when we are its foreground job."""
        if fd is None:
            return None
        try:
            if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
                return None  # no terminal, or we are not its foreground job ourselves
        except (OSError, ValueError, AttributeError):
            return None
        return cls(fd)

    def _set_foreground(self, pgid: int) -> None:
        import signal

        # A background group calling tcsetpgrp gets SIGTTOU; ignoring it is how shells take the terminal back.
        previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(self.fd, pgid)
        finally:
            signal.signal(signal.SIGTTOU, previous)

    def hand_to(self, pgid: int) -> None:
        import signal

        try:
            self._set_foreground(pgid)
        except OSError:
            return
        self.handed = True
        # It may have touched the terminal before it owned it, and been stopped for that: wake it.
        try:
            os.killpg(pgid, signal.SIGCONT)
        except OSError:
            pass

    def take_back(self) -> None:
        if self.handed:
            try:
                self._set_foreground(os.getpgrp())
            except OSError:
                pass
            self.handed = False


async def _classify_and_record(
    line: str,
    plan: RunPlan,
    result: ProcessResult,
    before: dict[str, ContentSnapshot],
    ledger_opening: Any,
    *,
    with_status: bool,
    environment: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """(receipts, statuses, why nothing was recorded); `environment` is what the run's environment added."""
    import asyncio

    from freshpass.facts.classify import classify

    if plan.package_root is None:
        return [], [], f"{plan.cwd} is not inside a project (no git repository or manifest found above it)"
    if plan.unreadable:
        return [], [], f"the project's declared checks could not be read ({plan.unreadable})"
    after_reading = None
    if before:  # read the content after the run while the output is being classified
        after_reading = asyncio.create_task(_snapshots(dict(plan.evidence_roots), plan.rules, "after the run"))
    output = result.output.text()
    outcome = classify(
        line, cwd=str(plan.cwd), root=plan.package_root, facts=plan.facts, exit_code=result.exit_code, output=output
    )
    after = await after_reading if after_reading is not None else {}
    if not outcome.matches:
        return [], [], outcome.reason or "not a recognised verify command"
    if ledger_opening is None or not before:
        return [], [], "its content could not be read before the run"
    opened = await ledger_opening
    if isinstance(opened, Exception):
        return [], [], f"the ledger cannot be used: {opened}"
    for warning in opened.warnings:
        _say(warning.removeprefix("freshpass: "))
    return await _record(
        opened, line, plan, outcome, result, before, after, output, with_status=with_status, environment=environment
    )


async def _record(
    ledger: Ledger,
    line: str,
    plan: RunPlan,
    outcome: Classification,
    result: ProcessResult,
    before: dict[str, ContentSnapshot],
    after: dict[str, ContentSnapshot],
    output: str,
    *,
    with_status: bool,
    environment: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.evidence.receipts import Finished, actor_from_environment
    from freshpass.evidence.recording import record_receipts
    from freshpass.evidence.status import root_status
    from freshpass.ledger.store import LedgerError

    finished = Finished(
        line,
        str(plan.cwd),
        result.exit_code,
        output,
        result.output.omitted,
        result.started_at,
        result.finished_at,
        environment,
    )
    receipts: list[dict[str, Any]] = []
    statuses: list[dict[str, Any]] = []
    try:
        recorded = await record_receipts(ledger, plan, outcome, finished, actor_from_environment(), before, after)
        for evidence in recorded:
            receipts.append(evidence.to_json())
            end = after.get(evidence.root)
            if with_status and end is not None and all(existing["root"] != evidence.root for existing in statuses):
                facts = plan.facts
                if evidence.root != str(plan.package_root):
                    try:
                        facts = await detect_bounded(Path(evidence.root))
                    except Unavailable:
                        facts = None
                statuses.append((await root_status(ledger, evidence.root, facts, end)).to_json())
    except LedgerError as exc:
        return receipts, statuses, f"the ledger cannot be used: {exc}"
    return receipts, statuses, "" if receipts else "its content could not be read before the run"


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
