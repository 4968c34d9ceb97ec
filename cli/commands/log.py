"""`freshpass log [PATH] [--limit N] [--json]` (design §8): the receipts of a root, newest first."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from freshpass.runner.terminal import safe, say

DEFAULT_LIMIT = 20


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--limit needs a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("--limit must be at least 1")
    return value


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="a file or directory in the project (default: .)")
    parser.add_argument("--limit", type=_positive, default=DEFAULT_LIMIT, help=f"how many (default {DEFAULT_LIMIT})")
    parser.add_argument("--json", action="store_true", help="print {root, receipts: [...]} JSON")


def run(args: argparse.Namespace) -> int:
    import asyncio

    from freshpass.commands.status import detach_stdin, no_project_message, resolve_roots

    detach_stdin()
    roots = resolve_roots(args.path)
    if roots is None:
        say(f"freshpass log: {no_project_message(args.path)}")
        return 1
    return asyncio.run(_log(roots[1], args.limit, json_output=bool(args.json)))


async def _log(root: Path, limit: int, *, json_output: bool) -> int:
    import asyncio
    import json

    from freshpass.commands.status import read_facts
    from freshpass.evidence.status import ContentRules
    from freshpass.ledger.content import ContentError
    from freshpass.ledger.store import Ledger, LedgerError

    facts = await read_facts(root, "log")
    try:
        current: str | None = (await asyncio.to_thread(ContentRules.of(facts).snapshot, root)).content_id
    except ContentError as exc:
        say(f"freshpass log: cannot tell which receipts are fresh: {exc}")
        current = None
    try:
        # Reading needs no write access: a read-only or full ledger is still shown.
        async with await Ledger.open(read_only=True) as ledger:
            for warning in ledger.warnings:
                say(warning)
            receipts = await ledger.events(str(root), limit)
    except LedgerError as exc:
        say(f"freshpass log: {exc}")
        return 1
    entries: list[dict[str, Any]] = []
    for evidence in receipts:
        entry = evidence.to_json()
        entry["fresh"] = current is not None and evidence.content_id == current and not evidence.stale_at_record
        entries.append(entry)
    if json_output:
        print(json.dumps({"root": str(root), "receipts": entries}, indent=2))
        return 0
    if not entries:
        print(f"no receipts for {safe(root)} yet — record one with: freshpass run -- <your test command>")
        return 0
    from freshpass.commands.status import age

    print(f"receipts for {safe(root)}, newest first:")
    for entry in entries:
        freshness = "fresh" if entry["fresh"] else "stale"
        tests = entry.get("tests")
        counted = f", {tests['passed']}/{tests['failed']}/{tests['skipped']} passed/failed/skipped" if tests else ""
        if entry.get("observed", "watched") != "watched":
            counted += f", {entry['observed']}"
        print(
            f"#{entry['id']:<6} {age(entry['finished_at']):<16} {entry['kind']:<9} {entry['status']:<6} "
            f"{entry['scope']:<8} {freshness:<5}  {safe(entry['command'])}  (exit {entry['exit_code']}{counted})"
        )
    return 0
