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

from freshpass.commands import UsageError


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="a file or directory (default: .)")
    parser.add_argument("--json", action="store_true", help="machine output (design §8 shape)")
    parser.add_argument("--all", action="store_true", help="also list what was recognised but not proposed, and why")
    parser.epilog = (
        "PATH resolves to its root: the git root, else the nearest ancestor (at most 6 levels up) with a manifest. "
        'Outside any project the answer is empty ("root": null) and the exit status is 0.'
    )


def run(args: argparse.Namespace) -> int:
    from freshpass.commands.status import detach_stdin
    from freshpass.facts.detect import detect_facts
    from freshpass.facts.model import ProjectFacts
    from freshpass.facts.roots import find_root
    from freshpass.runner.terminal import safe

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
        sys.stdout.write(render_human(data, show_all=args.all))
    return 0


def _print_json(data: dict[str, Any]) -> None:
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


def render_human(data: dict[str, Any], *, show_all: bool = False) -> str:
    """The check a click runs for each kind first, with its equivalents under it; then the project's other checks;
    then (with --all) what was set aside and why; then problems. Every line is made safe for a terminal
    (freshpass.runner.terminal): commands, paths and messages come from the repository."""
    lines = [f"root: {data['root']}"]
    if data["package_managers"]:
        lines.append(f"package managers: {', '.join(data['package_managers'])}")
    commands = data["verify_commands"]
    primaries: list[dict[str, Any]] = []
    for command in commands:
        if all(p["kind"] != command["kind"] for p in primaries):
            primaries.append(command)
    others = [c for c in commands if c not in primaries]
    if commands:
        width = max(len(_where(c)) for c in commands)
        lines.append("")
        for command in primaries:
            lines.extend(_check_lines(command, width))
        if others:
            lines.append("")
            lines.append("other checks:")
            for command in others:
                lines.extend(_check_lines(command, width))
    else:
        lines.append("no checks declared")
    aside = data.get("set_aside") or []
    if aside and show_all:
        lines.append("")
        lines.append("set aside:")
        for item in aside:
            where = f" (in {item['cwd']})" if item["cwd"] != "." else ""
            lines.append(f"  {_one_line(item['command'])}{where}")
            lines.append(f"      {item['why']}: {item['reason']}  [{item['source']}]")
    elif aside:
        lines.append("")
        lines.append(
            f"{len(aside)} recognised but not proposed (writers, watchers, CI-only, narrower): --all shows why"
        )
    if data["problems"]:
        lines.append("")
        lines.append("problems:")
        lines.extend(f"  {p['file']}: {p['message']}" for p in data["problems"])
    from freshpass.runner.terminal import safe

    return "\n".join(safe(line) for line in lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _where(command: dict[str, Any]) -> str:
    cwd = f"  (in {command['cwd']})" if command["cwd"] != "." else ""
    return _one_line(command["command"]) + cwd


def _check_lines(command: dict[str, Any], width: int) -> list[str]:
    lines = [f"{command['kind']:<10} {_where(command):<{width}}  {command['source']}"]
    equivalents = command.get("equivalents") or []
    if equivalents:
        lines.append(f"{'':<10}   same check: {' · '.join(_one_line(e) for e in equivalents)}")
    return lines
