"""Admission: may a door run this command line for a client? Only when it is one approved check (design §3).

A door that runs a line a client sent (the MCP server's `run`, the language server's `freshpass.verify` with a
`command`) is not a shell. It runs a line only when the line is ONE simple command that is an approved check of the
project, or a narrowing of one (`pytest -q tests/test_x.py` for an approved `pytest`). The command may carry
literal `NAME=value` prefixes and run through the known environment wrappers (`uv run`, `poetry run`, `pdm run`,
`hatch run`, `npx`, `bundle exec`, …), because those choose which installation of the tool runs, not what runs.

Refused, always, whatever else the line holds: command lists and chains (`;`, `&&`, `||`, `&`, newlines), pipes,
subshells, `$(…)`, backticks and every other expansion (`$VAR` included: its value is not on the line), redirections
(`>`, `<`, `2>&1`), here-documents, a shell started with a script (`sh -c`, `bash -c`, `uv run bash -c`), and the
programs that run another command line of their own choosing (`env`, `eval`, `exec`, `xargs`, `sudo`, `nohup`,
`timeout`, `setsid`, `time`, …). A refusal names the approved commands, so the client knows what it may run.

`admit()` is pure: it reads the project's facts (and, through classification, at most a manifest's scripts), never
runs anything, and never raises. It uses the one shell model (`facts/shell.py`) and the one classifier.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from freshpass.facts.classify import Classification, classify
from freshpass.facts.model import ProjectFacts
from freshpass.facts.shell import ShellSyntaxError, SimpleCommand, Subshell, is_assignment, parse_line

__all__ = ["Admitted", "Refused", "admit", "approved_commands"]

# Programs that run a command line (or a script) they were handed: the line would not be what it says.
_RUNS_ANOTHER = frozenset(
    {
        "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "pwsh", "powershell", "cmd",
        "env", "eval", "exec", "source", ".", "command", "builtin", "xargs", "parallel", "watch", "script",
        "sudo", "doas", "su", "pkexec", "run0", "nohup", "setsid", "timeout", "nice", "ionice", "time", "stdbuf",
        "chroot", "unshare", "nsenter", "flock", "strace", "ltrace", "gdb", "unbuffer", "chronic", "noglob",
        "systemd-run", "firejail", "bwrap", "faketime", "catchsegv", "entr", "find",
    }
)  # fmt: skip
# Words after which the next word is the program a wrapper starts (`uv run X`, `npx X`, `bundle exec X`, `--`).
_STARTS_NEXT = frozenset({"run", "exec", "x", "dlx", "--"})
# Environment wrappers: they choose which installation of the tool runs (`uv run`, `python -m`, `npx`).
_WRAPPER_NAME = re.compile(
    r"uvx?|poetry|pdm|hatch|rye|pixi|pipenv|pipx|npx|pnpx|bunx|bundle|bundler|conda|mamba|micromamba|coverage|"
    r"(python|pypy)(\d+(\.\d+)?)?|py"
)
_SHELL_NAME = re.compile(r"(ba|z|da|k|mk|c|tc|fi)?sh(\d+(\.\d+)*)?|busybox")
_MAX_LINE = 4096
_SHOWN = 6


@dataclass(frozen=True)
class Admitted:
    """The line may run: it is this approved check (`classification`), as typed."""

    line: str
    classification: Classification


@dataclass(frozen=True)
class Refused:
    """The line must not run; `reason` is one sentence for the client, naming what it may run instead."""

    line: str
    reason: str


def approved_commands(facts: ProjectFacts | None) -> list[str]:
    """The project's approved checks as a client may run them (`pytest` (test), `ruff check .` (lint))."""
    if facts is None:
        return []
    shown: list[str] = []
    for command in facts.verify_commands:
        where = f" in {command.cwd}/" if command.cwd not in ("", ".") else ""
        entry = f"`{command.command}` ({command.kind}{where})"
        if entry not in shown:
            shown.append(entry)
    return shown


def _refuse(line: str, why: str, facts: ProjectFacts | None) -> Refused:
    names = approved_commands(facts)
    if names:
        more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
        offer = f"the approved checks here are {', '.join(names[:_SHOWN])}{more} (a narrower run of one is fine)"
    else:
        offer = "this project declares no approved check (see `freshpass facts`)"
    return Refused(line, f"`{_short(line)}` is not run: {why}; {offer}")


def _short(line: str) -> str:
    flat = " ".join(line.split())
    return flat if len(flat) <= 120 else flat[:117] + "…"


def _structure(line: str) -> SimpleCommand | str:
    """The one simple command of `line`, or why the line is not one."""
    try:
        parsed = parse_line(line)
    except ShellSyntaxError as exc:
        return f"it cannot be split reliably ({exc})"
    if not parsed.statements:
        return "it runs nothing"
    if len(parsed.statements) > 1:
        return "it is a list of commands (`;`, `&` or a newline); run one check at a time"
    statement = parsed.statements[0]
    if statement.background:
        return "it runs in the background (`&`)"
    if len(statement.body.pipelines) > 1:
        operators = " ".join(dict.fromkeys(f"`{o}`" for o in statement.body.operators))
        return f"it chains commands ({operators}); run one check at a time"
    pipeline = statement.body.pipelines[0]
    if len(pipeline.commands) > 1:
        return "it pipes commands (`|`)"
    if pipeline.negated:
        return "`!` inverts its exit status"
    [command] = pipeline.commands
    if isinstance(command, Subshell):
        return "it runs a subshell (`( … )`)"
    if command.redirects:
        return "it redirects input or output (`>`, `<`, `2>&1`, here-documents)"
    for word in command.words:
        if word.expands:
            return f"`{_short(word.text)}` expands (`$(…)`, backticks, `$VAR`): what runs would not be on the line"
    return command


def _runs_another(command: SimpleCommand) -> str | None:
    """The word that starts a program running a command line of its own (`env`, `bash -c`), if any.

    Every word is looked at until the tool itself: the first recognised runner that is not an environment wrapper
    (`pytest` in `uv run --with x pytest -k env`), so a tool's own arguments are never mistaken for programs."""
    from freshpass.facts.tools.base import known_heads

    heads = known_heads()
    argv = command.argv
    start = next((i for i, word in enumerate(argv) if not is_assignment(word)), len(argv))
    for index in range(start, len(argv)):
        name = os.path.basename(argv[index])
        if name in _RUNS_ANOTHER or _SHELL_NAME.fullmatch(name):
            return argv[index]
        following = argv[index + 1] if index + 1 < len(argv) else ""
        if name in heads and not _WRAPPER_NAME.fullmatch(name) and following not in _STARTS_NEXT:
            return None  # the tool itself: what follows are its arguments
    return None


def admit(
    line: str, *, cwd: str | os.PathLike[str], facts: ProjectFacts | None, root: str | None = None
) -> Admitted | Refused:
    """May a door run `line` in `cwd` for a client? Pure and total: never runs anything, never raises."""
    text = line.strip()
    if not text:
        return _refuse(line, "it is empty", facts)
    if len(text) > _MAX_LINE or "\x00" in text:
        return _refuse(line, f"it is longer than {_MAX_LINE} characters or holds a NUL byte", facts)
    found = _structure(text)
    if isinstance(found, str):
        return _refuse(text, found, facts)
    other = _runs_another(found)
    if other is not None:
        return _refuse(text, f"`{_short(other)}` runs a command line of its own choosing", facts)
    try:
        outcome = classify(text, cwd=cwd, root=root or (facts.root if facts is not None else None), facts=facts)
    except Exception as exc:  # classification promises never to raise; admission must not either
        return _refuse(text, f"it could not be classified ({type(exc).__name__})", facts)
    if not outcome.matched:
        return _refuse(text, outcome.reason or "it is not a recognised check", facts)
    if not outcome.attributable:
        return _refuse(text, outcome.reason or "its exit status would not be the check's", facts)
    if not outcome.matches or not all(match.approved for match in outcome.matches):
        label = outcome.canonical_command or text
        return _refuse(text, f"`{_short(label)}` is not one of the project's approved checks", facts)
    return Admitted(text, outcome)
