"""`freshpass facts [PATH] [--json]` (design §8): the verify commands the project at PATH declares.

PATH (default: the current directory) resolves to its root (design §1). When PATH belongs to no project (no git
root and no manifest within 6 levels up), the JSON has `"root": null` and empty lists, the human output says so,
and the exit status is still 0: "no project here" is an answer, not an error. A PATH that does not exist is a
usage error (exit 2).

`--set KIND COMMAND` makes COMMAND the check of KIND (freshpass.facts.choose): it is written to `.freshpass.toml`, or
to `[tool.freshpass]` when the project has a pyproject.toml, and every door runs it from then on. `--choose` asks:
it lists the candidates of `--kind` (test by default) with where each was declared and why it was chosen, numbered,
and reads a number (or another command) from the terminal; without a terminal it says so, writes nothing and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from freshpass.commands import UsageError

if TYPE_CHECKING:
    from freshpass.facts.model import ProjectFacts


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="a file or directory (default: .)")
    parser.add_argument("--json", action="store_true", help="machine output (design §8 shape)")
    parser.add_argument("--all", action="store_true", help="also list what was recognised but not proposed, and why")
    parser.add_argument(
        "--set",
        nargs=2,
        metavar=("KIND", "COMMAND"),
        help="make COMMAND the check of KIND (test, lint, typecheck, build, check), written to .freshpass.toml or "
        "[tool.freshpass] in pyproject.toml",
    )
    parser.add_argument(
        "--choose", action="store_true", help="list the candidates of --kind and ask which one is the check"
    )
    parser.add_argument("--kind", default="test", help="the kind --choose asks about (default: test)")
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

    if args.set and args.choose:
        raise UsageError("--set and --choose are two ways to choose: give one")
    terminal = _keep_terminal() if args.choose else None
    detach_stdin()  # a manifest that is a symlink to /dev/stdin must not wait for the user's typing

    path = Path(args.path).expanduser()
    if not path.exists():
        raise UsageError(f"{args.path}: no such file or directory")
    root = find_root(path)
    if root is None and (args.set or args.choose):
        raise UsageError(f"{args.path} is not inside a project (no .git and no manifest within 6 levels up)")
    if root is None:
        data: dict[str, Any] = {**ProjectFacts(root="").to_json(), "root": None}  # the §8 shape, empty
        if args.json:
            _print_json(data)
        else:
            print(f"{safe(path.resolve())}: not inside a project (no .git and no manifest within 6 levels up)")
        return 0
    if args.set or args.choose:
        return _choose(root, args, terminal)
    data = detect_facts(root).to_json()
    if args.json:
        _print_json(data)
    else:
        sys.stdout.write(render_human(data, show_all=args.all))
    return 0


def _keep_terminal() -> TextIO:
    """The terminal --choose reads its answer from (a copy of descriptor 0, which detection then detaches)."""
    if not os.isatty(0):
        raise UsageError(
            "--choose asks at a terminal, and standard input is not one; nothing was written. "
            'Use --set KIND "COMMAND" instead'
        )
    return os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace", closefd=True)


def _choose(root: Path, args: argparse.Namespace, terminal: TextIO | None) -> int:
    from freshpass.facts.choose import ChoiceError, choose
    from freshpass.facts.detect import detect_facts
    from freshpass.facts.model import KINDS
    from freshpass.runner.terminal import safe, say

    kind, command = args.set if args.set else (args.kind, None)
    if kind not in KINDS:
        raise UsageError(f"{kind!r} is not a kind; choose one of {', '.join(KINDS)}")
    cwd = "."
    if terminal is not None:
        with terminal:
            picked = _ask(detect_facts(root), kind, terminal)
        if picked is None:
            say("freshpass facts: no choice made; nothing was written")
            return 1
        command, cwd = picked
    assert command is not None
    try:
        choice = choose(root, kind, command, cwd)
    except ChoiceError as exc:
        say(f"freshpass facts: {exc}")
        return 1
    if args.json:
        _print_json({"root": str(root), **choice.to_json()})
        return 0
    where = f" (in {choice.cwd})" if choice.cwd != "." else ""
    replaced = f", replacing {' · '.join(choice.replaced)}" if choice.replaced else ""
    section = "[tool.freshpass] in pyproject.toml" if choice.file == "pyproject.toml" else choice.file
    print(safe(f"{choice.kind}: {choice.command}{where} — written to {section}{replaced}"))
    print(safe(f"Commit {choice.file} so your team and CI run the same check."))
    return 0


def _ask(facts: ProjectFacts, kind: str, terminal: TextIO) -> tuple[str, str] | None:
    """List the candidates, numbered, and read a number or a command; None when the person gives neither."""
    from freshpass.facts.choose import candidates
    from freshpass.runner.terminal import safe

    offered = candidates(facts, kind)
    question = "Which command runs this project's full tests?" if kind == "test" else f"Which command is the {kind}?"
    lines = [question]
    if kind in facts.ambiguous:
        lines.append("(detection found it a close call)")
    if offered:
        width = max(len(_one_line(c.command)) + (len(c.cwd) + 6 if c.cwd != "." else 0) for c in offered)
        for number, candidate in enumerate(offered, 1):
            where = f"  (in {candidate.cwd})" if candidate.cwd != "." else ""
            now = "  ← now" if candidate.primary else ""
            text = f"{_one_line(candidate.command)}{where}"
            lines.append(f"  {number:>2}. {text:<{width}}  {candidate.basis}: {candidate.source}{now}")
        prompt = f"Number (1-{len(offered)}) or another command, empty to cancel: "
    else:
        lines.append(f"  no {kind} check was found")
        prompt = "The command, empty to cancel: "
    sys.stdout.write("\n".join(safe(line) for line in lines) + "\n")
    while True:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        answer = terminal.readline()
        if not answer:  # end of input
            sys.stdout.write("\n")
            return None
        answer = answer.strip()
        if not answer:
            return None
        if answer.isdigit():
            index = int(answer)
            if 1 <= index <= len(offered):
                return offered[index - 1].command, offered[index - 1].cwd
            sys.stdout.write(f"{answer} is not one of the numbers listed\n")
            continue
        return answer, "."


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
        unsure = [
            p["kind"]
            for p in primaries
            if p["kind"] in data.get("ambiguous", ()) or p.get("basis") in ("convention", "ci")
        ]
        if unsure:
            lines.append(
                f"unconfirmed: {', '.join(unsure)} (convention, CI or a close call); "
                "`freshpass facts --choose [--kind KIND]` settles it"
            )
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
