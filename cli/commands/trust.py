"""`freshpass trust [PATH]`, `freshpass trust --revoke [PATH]`, `freshpass trust --list`: the user's trusted folders.

Doors that run checks for a client other than the person at the keyboard (the MCP server's `run`) run nothing in a
folder the user has not trusted (`freshpass.evidence.trust`). This command is how the user says so, once per
folder, like `direnv allow` or `mise trust`.
"""

from __future__ import annotations

import argparse

from freshpass.runner.terminal import safe, say


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="the folder (default: .); everything under it is trusted")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--revoke", action="store_true", help="take the folder's trust back")
    what.add_argument("--list", action="store_true", help="print the trusted folders, one a line")
    parser.epilog = "The list is yours, not the repository's: $XDG_STATE_HOME/freshpass/trusted.json (0600)."


def run(args: argparse.Namespace) -> int:
    from freshpass.evidence import trust

    if args.list:
        listed = trust.load()
        if listed.problem:
            say(f"freshpass trust: {safe(listed.problem)}")
            return 1
        for folder in listed.paths:
            print(safe(folder))
        return 0
    try:
        if args.revoke:
            target = trust.canonical(args.path)
            if trust.revoke(args.path):
                say(f"freshpass trust: {safe(target)} is no longer trusted")
                return 0
            above = trust.trusted_by(args.path)
            if above:
                say(
                    f"freshpass trust: {safe(target)} was not listed itself; it is trusted through {safe(above)} "
                    f"(revoke that with `freshpass trust --revoke {safe(above)}`)"
                )
                return 1
            say(f"freshpass trust: {safe(target)} was not trusted")
            return 0
        stored = trust.trust(args.path)
    except trust.TrustError as exc:
        say(f"freshpass trust: {safe(str(exc))}")
        return 1
    say(f"freshpass trust: {safe(stored)} is trusted: agents' tools may run its approved checks")
    _prime_shell_hook(stored)
    return 0


def _prime_shell_hook(folder: str) -> None:
    """Read the trusted folder's checks once, so the shell hook knows their first words from the next prompt."""
    import asyncio
    from pathlib import Path

    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.roots import find_root

    root = find_root(Path(folder))
    if root is None:
        return
    try:
        asyncio.run(detect_bounded(root, cached=False))  # writes the shell hook's cache for the trust given now
    except Unavailable:
        pass
