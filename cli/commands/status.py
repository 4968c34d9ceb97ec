"""`freshpass status [PATH] [--json]` (design §4.5, §8): is the newest evidence fresh and passing?

Exit 0 only when the root's headline evidence is fresh and passed; 1 otherwise (stale, failed, unverified, or
the status could not be determined).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.commands import UsageError
from freshpass.runner.terminal import say

if TYPE_CHECKING:
    from freshpass.evidence.status import Status
    from freshpass.facts.model import ProjectFacts


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="a file or directory in the project (default: .)")
    parser.add_argument("--json", action="store_true", help="print the status JSON (design §4.5)")


def resolve_roots(path_text: str) -> tuple[Path, Path] | None:
    """(root, package root) holding PATH, or None when PATH belongs to no project; UsageError if it is missing."""
    from freshpass.facts.roots import find_package_root, find_root

    path = Path(path_text).expanduser()
    if not path.exists():
        raise UsageError(f"{path_text}: no such file or directory")
    root = find_root(path.resolve())
    if root is None:
        return None
    return root, find_package_root(path.resolve(), root)


def detach_stdin() -> None:
    """freshpass itself never reads the terminal: descriptor 0 becomes /dev/null, so a repository file that is a
    symlink to /dev/stdin reads as empty instead of waiting for the user's typing."""
    try:
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return
    try:
        os.dup2(null, 0)
    except OSError:
        pass
    finally:
        os.close(null)


def no_project_message(path_text: str) -> str:
    return f"{path_text} is not inside a project (no git repository or manifest found above it)"


def run(args: argparse.Namespace) -> int:
    import asyncio

    detach_stdin()
    roots = resolve_roots(args.path)
    if roots is None:
        say(f"freshpass status: {no_project_message(args.path)}")
        return 1
    return asyncio.run(_status(roots[1], json_output=bool(args.json)))


async def _status(root: Path, *, json_output: bool) -> int:
    import json

    from freshpass.evidence.status import root_status
    from freshpass.ledger.content import ContentError
    from freshpass.ledger.store import Ledger, LedgerError

    facts = await read_facts(root, "status")
    try:
        # Reading needs no write access: a read-only or full ledger is still shown.
        async with await Ledger.open(read_only=True) as ledger:
            for warning in ledger.warnings:
                say(warning)
            status = await root_status(ledger, str(root), facts)
    except (LedgerError, ContentError) as exc:
        say(f"freshpass status: {exc}")
        return 1
    if json_output:
        print(json.dumps(status.to_json(), indent=2))  # ensure_ascii: control characters become \u escapes
    else:
        print(describe_status(status, facts_read=facts is not None))
    return 0 if status.status == "passed" or (status.status == "flaky" and status.flaky_counts) else 1


def describe_flaky(status: Status) -> list[str]:
    """One line per flaky kind: both receipts, and whether the pass counts."""
    lines = []
    for kind, state in status.kinds.items():
        pair = state.flaky
        if pair is None:
            continue
        counted = 'the pass counts (flaky = "pass-counts")' if status.flaky_counts else "the pass does not count"
        lines.append(
            f"  flaky     {kind}: receipt #{pair['passed'].id} passed and receipt #{pair['failed'].id} failed on "
            f"this content; {counted}"
        )
    return lines


async def read_facts(root: Path, command: str) -> ProjectFacts | None:
    """The root's facts, or None (after one line on stderr) when they cannot be read in time."""
    from freshpass.evidence.detection import Unavailable, detect_bounded

    try:
        return await detect_bounded(root)
    except Unavailable as exc:
        say(f"freshpass {command}: {exc}; going on without the project's declared checks")
        return None


def age(finished_at: float | str, now: float | None = None) -> str:
    """'3 minutes ago' for an epoch time or an ISO time of the JSON outputs (`freshpass.evidence.present.age`)."""
    from freshpass.evidence.present import age as age_of

    return age_of(finished_at, now, style="long")


def _tests_text(tests: dict[str, int] | None) -> str:
    if not tests:
        return ""
    return f"; {tests['passed']} passed, {tests['failed']} failed, {tests['skipped']} skipped"


def describe_status(status: Status, max_paths: int = 10, *, facts_read: bool = True) -> str:
    """The human status block: status, scope, command, age, changed paths, what to run. Every text that came from
    a repository or a command (root, command lines, reasons, file names) is made safe for a terminal."""
    from freshpass.ledger.shared import shared_of
    from freshpass.runner.terminal import safe

    headline = status.status
    title = f"{headline} ({status.scope})" if status.scope else headline
    lines = [f"{title} — {safe(status.root)}"]
    evidence = status.evidence
    if evidence is not None:
        verdict = evidence.status if headline != "stale" else f"{evidence.status}, now stale"
        reason = f" ({safe(evidence.reason)})" if evidence.reason else ""
        receipt = "a shared receipt" if shared_of(evidence) is not None else f"receipt #{evidence.id}"
        lines.append(
            f"  {evidence.kind:<9} {safe(evidence.command)}  → {verdict}{reason}, exit {evidence.exit_code}, "
            f"{age(evidence.finished_at)} ({receipt}{_tests_text(evidence.tests)})"
        )
    lines += describe_flaky(status)
    for kind, entry in status.kinds.items():
        other = entry.evidence
        if other is evidence or (evidence is not None and other.id and other.id == evidence.id):
            continue  # the headline, said above (shared receipts have no ledger id: compared as themselves)
        scope = f" ({entry.scope})" if entry.scope else ""
        lines.append(f"  {kind:<9} {safe(other.command)}  → {entry.status}{scope}, {age(other.finished_at)}")
    if status.shared:
        from freshpass.commands.share import describe_shared

        lines += [describe_shared(view.to_json(), indent="  shared    ") for view in status.shared[:max_paths]]
    changed = status.changed_paths
    if changed:
        shown = ", ".join(safe(path) for path in changed[:max_paths])
        more = f" (+{len(changed) - max_paths} more)" if len(changed) > max_paths else ""
        lines.append(f"  changed   {shown}{more}")
    if headline != "passed":
        commands = [c.command for c in status.verify_commands if c.kind == "test"]
        if commands:
            lines.append(f"  run       freshpass run -- {safe(commands[0])}")
        elif status.verify_commands:
            lines.append("  no test check declared (`freshpass facts --all` shows what was found and why)")
        elif not facts_read:
            lines.append("  the project's checks could not be read (said above); `freshpass facts` shows why")
        elif evidence is None:
            lines.append("  no receipts yet, and the project declares no verify command")
    return "\n".join(lines)
