"""`freshpass classify` (design §8): explain what a command line would count as. Runs nothing.

    freshpass classify [--cwd DIR] [--exit-code N] [--output-file F] [--json] -- 'COMMAND LINE'

The root is found from `--cwd` (default: the current directory) and the project's facts are detected there, so
the answer is the one `freshpass run` and the language server would record. Exit status: 0 whenever the line
could be explained (matched or not); 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from freshpass.commands import UsageError


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", metavar="DIR", help="where the line runs (default: the current directory)")
    parser.add_argument("--exit-code", metavar="N", type=int, help="the exit code it returned (omit: status null)")
    parser.add_argument(
        "--output-file", metavar="F", help="its output, to detect runs that executed no tests ('-': stdin)"
    )
    parser.add_argument("--json", action="store_true", help="machine output (design §8 shape)")
    parser.add_argument(
        "line",
        nargs=argparse.REMAINDER,
        metavar="-- 'COMMAND LINE'",
        help="the line as typed, quoted as one argument (several words are re-quoted and joined)",
    )


def _command_line(words: list[str]) -> str:
    if words[:1] == ["--"]:
        words = words[1:]
    if not words:
        raise UsageError("give the command line to classify after --, e.g. freshpass classify -- 'pytest -q'")
    # One argument is the line as typed; several are words the calling shell already split, so re-quote them.
    return words[0] if len(words) == 1 else shlex.join(words)


def _read_output(name: str | None) -> str | None:
    if name is None:
        return None
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read --output-file {name}: {exc.strerror or exc}") from exc


def _facts_for(cwd: Path) -> tuple[Path | None, Any]:
    """The (package) root and its facts, found the way `freshpass run` finds them (imported lazily)."""
    try:
        from freshpass.facts.roots import find_package_root, find_root
    except ImportError:
        return None, None
    root = find_root(cwd)
    if root is None:
        return None, None
    package_root = find_package_root(cwd, root)
    import asyncio

    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.runner.terminal import say

    try:
        return package_root, asyncio.run(detect_bounded(package_root))
    except Unavailable as exc:  # classify as if the project declared nothing, and say so
        say(f"freshpass classify: {exc}; classifying without the project's declared checks")
        return package_root, None


def run(args: argparse.Namespace) -> int:
    from freshpass.facts.classify import classify

    line = _command_line(list(args.line))
    cwd = Path(args.cwd or ".").expanduser().resolve()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd}: not a directory")
    output = _read_output(args.output_file)
    from freshpass.commands.status import detach_stdin

    detach_stdin()  # after --output-file - was read: detection must never read the terminal
    root, facts = _facts_for(cwd)
    result = classify(line, cwd=cwd, root=root, facts=facts, exit_code=args.exit_code, output=output)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    print(_human(line, result, root, args.exit_code))
    return 0


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _human(line: str, result: Any, root: Path | None, exit_code: int | None) -> str:
    rows: list[tuple[str, str]] = [("line", line)]
    if root is not None:
        rows.append(("root", str(root)))
    if not result.matched:
        rows.append(("matched", "no"))
        rows.append(("why", result.reason or "not a recognised check"))
        return _table(rows)
    headline = result.headline
    rows.append(("matched", "yes" if result.approved else f"yes, a recognised runner ({headline.runner})"))
    rows.append(("canonical", result.canonical_command))
    approved = _yes_no(result.approved)
    if result.approved and headline.source:
        approved += f" ({headline.source})"
    elif not result.approved:
        approved += " (not one of the project's verify commands: never full scope)"
    rows.append(("approved", approved))
    rows.append(("kind", str(result.kind)))
    scope = str(result.scope)
    narrowing = [n for n in headline.narrowed_by if not n.startswith("not one of")]
    if narrowing:
        scope += f" ({', '.join(narrowing)})"
    rows.append(("scope", scope))
    rows.append(("cwd", headline.cwd if headline.cwd is not None else "unknown"))
    rows.append(("attributable", _yes_no(result.attributable)))
    if result.status is not None:
        rows.append(("status", f"{result.status} (exit {exit_code})"))
    elif not result.attributable:
        rows.append(("status", "not recorded: the exit status is not the check's"))
    else:
        rows.append(("status", "unknown until it runs (give --exit-code N)"))
    if result.reason:
        rows.append(("reason", result.reason))
    for note in result.notes:
        rows.append(("not evidence", note))
    if len(result.matches) > 1:
        rows.append(("matches", "; ".join(f"{m.canonical_command} [{m.kind}, {m.scope}]" for m in result.matches)))
    return _table(rows)


def _table(rows: list[tuple[str, str]]) -> str:
    from freshpass.runner.terminal import safe

    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key:<{width}}  {safe(value)}" for key, value in rows)
