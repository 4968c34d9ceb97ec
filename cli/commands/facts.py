"""`freshpass facts [PATH] [--json]` (design §8): the verify commands the project at PATH declares.

PATH (default: the current directory) resolves to its root (design §1). When PATH belongs to no project (no git
root and no manifest within 6 levels up), the JSON has `"root": null` and empty lists, the human output says so,
and the exit status is still 0: "no project here" is an answer, not an error. A PATH that does not exist is a
usage error (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from freshpass.main import UsageError


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="a file or directory (default: .)")
    parser.add_argument("--json", action="store_true", help="machine output (design §8 shape)")
    parser.epilog = (
        "PATH resolves to its root: the git root, else the nearest ancestor (at most 6 levels up) with a manifest. "
        'Outside any project the answer is empty ("root": null) and the exit status is 0.'
    )


def run(args: argparse.Namespace) -> int:
    from freshpass.commands.status import detach_stdin
    from freshpass.facts.detect import detect_facts
    from freshpass.facts.model import ProjectFacts
    from freshpass.facts.roots import find_root
    from freshpass.terminal import safe

    detach_stdin()  # a manifest that is a symlink to /dev/stdin must not wait for the user's typing

    path = Path(args.path).expanduser()
    if not path.exists():
        raise UsageError(f"{args.path}: no such file or directory")
    root = find_root(path)
    if root is None:
        data: dict[str, Any] = {**ProjectFacts(root="").to_json(), "root": None}  # the §8 shape, empty
        if args.json:
            _print_json(data)
        else:
            print(f"{safe(path.resolve())}: not inside a project (no .git and no manifest within 6 levels up)")
        return 0
    data = detect_facts(root).to_json()
    if args.json:
        _print_json(data)
    else:
        sys.stdout.write(render_human(data))
    return 0


def _print_json(data: dict[str, Any]) -> None:
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


def render_human(data: dict[str, Any]) -> str:
    """A compact table: command, kind, cwd, source; then package managers, problems. Everything read from the
    repository is made safe for a terminal (freshpass.terminal)."""
    from freshpass.terminal import safe

    lines = [f"root: {safe(data['root'])}"]
    if data["package_managers"]:
        lines.append(f"package managers: {safe(', '.join(data['package_managers']))}")
    commands = data["verify_commands"]
    if commands:
        headers = ("COMMAND", "KIND", "CWD", "SOURCE")
        rows = [(safe(c["command"]), safe(c["kind"]), safe(c["cwd"]), safe(c["source"])) for c in commands]
        widths = [max(len(str(row[i])) for row in (headers, *rows)) for i in range(3)]
        lines.append("")
        for row in (headers, *rows):
            lines.append("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
    else:
        lines.append("no verify commands declared")
    if data["problems"]:
        lines.append("")
        lines.append("problems:")
        lines.extend(f"  {safe(p['file'])}: {safe(p['message'])}" for p in data["problems"])
    return "\n".join(lines) + "\n"
