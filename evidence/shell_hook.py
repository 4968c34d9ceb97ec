"""Runs typed in any terminal (bash, zsh, fish) as receipts: the cache the shell hook decides by, and the recording.

The hook (`freshpass shell-init SHELL`) must cost next to nothing on a prompt whose command is no check, so the
decision is made in shell code against a **cache of first words**: per (package) root, the first words a run of
one of its checks can start with (`pytest`, `make`, `npm`, `python` for `python -m pytest`, the tools a check's
suites run). The cache is one small file per root under `$XDG_STATE_HOME/freshpass/shell/roots/`, its name the
root's path with `%` and `/` escaped (`%25`, `%2F`) so the shell finds it by walking up from `$PWD` with `test -f`
alone. It is written whenever freshpass computes a root's facts (every command-line door, the language server, the
recorder itself) and only for a folder the user trusts (`freshpass trust`, the MCP server's list): an untrusted
folder has no cache, so the hook never even starts freshpass there; and the recorder checks the list again.

A matching command is recorded in two background steps, both detached from the terminal: `start` (when the
command begins: the content of the roots it could count for) and `end` (at the next prompt: the exit status, the
content again, the receipt through the same classification and receipt builder as `freshpass run`). Output is not
seen: such receipts say so (`details.observed`) and carry no test counts.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.facts.files import write_private

if TYPE_CHECKING:
    from freshpass.facts.model import ProjectFacts

OBSERVED = "from the shell; output not seen"
MAX_NAME = 255  # a file name's limit on the usual file systems: deeper roots get no cache (and no hook)
MAX_WORDS = 64
MAX_START_BYTES = 1 << 16
START_WAIT = 30.0  # seconds the end step waits for the start step's content
RUN_FILE_AGE = 24 * 3600.0  # start files older than this are left-overs (a shell killed mid-command)
_WRAPPERS = frozenset({"uv", "poetry", "pdm", "pipenv", "hatch", "rye", "pixi", "npx", "pnpm", "yarn", "bunx"})
_PYTHONS = frozenset({"python", "python3"})


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_STATE_HOME/freshpass/shell` (XDG default `~/.local/state`); a relative variable is ignored."""
    env = os.environ if env is None else env
    state_home = env.get("XDG_STATE_HOME", "").strip()
    base = Path(state_home) if state_home and Path(state_home).is_absolute() else Path.home() / ".local" / "state"
    return base / "freshpass" / "shell"


def cache_name(root: str | os.PathLike[str]) -> str | None:
    """The cache file's name for `root`: its absolute path with `%` then `/` escaped; None when too long."""
    name = os.fspath(root).replace("%", "%25").replace("/", "%2F")
    return name if 0 < len(name.encode("utf-8", "surrogateescape")) <= MAX_NAME and "\n" not in name else None


def cache_path(root: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Path | None:
    name = cache_name(root)
    return state_dir(env) / "roots" / name if name is not None else None


def first_words(facts: ProjectFacts) -> list[str]:
    """The words a run of one of the root's checks can start with, in first-seen order."""
    words: dict[str, None] = {}
    for command in facts.verify_commands:
        for spelling in (*command.spellings, *command.suites):
            for word in _leading_words(spelling):
                if len(words) < MAX_WORDS:
                    words.setdefault(word, None)
    return list(words)


def _leading_words(spelling: str) -> Iterable[str]:
    try:
        parts = shlex.split(spelling)
    except ValueError:
        return []
    while parts and (("=" in parts[0] and not parts[0].startswith("=")) or parts[0] == "env"):
        parts = parts[1:]  # VAR=value and `env` prefixes: the person types the command after them too
    if not parts:
        return []
    first = os.path.basename(parts[0])
    found = [first] if _plain(first) else []
    if first in _PYTHONS and len(parts) > 2 and parts[1] == "-m":
        found.append(parts[2])  # `python -m pytest` is also typed `pytest`
    if first in _WRAPPERS and len(parts) > 2 and parts[1] in ("run", "exec", "dlx"):
        found.append(os.path.basename(parts[2]))
    elif first in _WRAPPERS and len(parts) > 1 and first in ("npx", "bunx"):
        found.append(os.path.basename(parts[1]))
    return [word for word in found if _plain(word)]


def _plain(word: str) -> bool:
    return bool(word) and len(word) <= 64 and all(ch.isalnum() or ch in "._+-" for ch in word)


def write_cache(root: str | os.PathLike[str], facts: ProjectFacts, env: Mapping[str, str] | None = None) -> None:
    """Write (or remove) `root`'s first-word cache: written only for a trusted folder with checks. Never raises."""
    with contextlib.suppress(OSError, ValueError):
        _write_cache(Path(root), facts, env)


def _write_cache(root: Path, facts: ProjectFacts, env: Mapping[str, str] | None) -> None:
    from freshpass.evidence.trust import is_trusted

    where = cache_path(os.path.realpath(root), env)
    if where is None:
        return
    words = first_words(facts) if is_trusted(root, env) else []
    text = (" " + " ".join(words) + " \n") if words else ""
    try:
        current = where.read_text(encoding="utf-8") if where.is_file() else None
    except (OSError, UnicodeDecodeError):
        current = None
    if not text:
        if current is not None:
            where.unlink(missing_ok=True)
        return
    if current == text:
        return
    write_private(where, text, prefix=".words-")


# ---- recording -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShellRun:
    """A command typed at a prompt, as the hook saw it."""

    shell: str  # bash | zsh | fish
    run_id: str  # unique per shell and command (the shell's pid and a counter)
    line: str
    cwd: Path
    exit_code: int | None = None
    started_at: float = 0.0
    finished_at: float = 0.0


def _runs_dir(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / "runs"


def _run_file(run_id: str) -> Path:
    safe_id = "".join(ch for ch in run_id if ch.isalnum() or ch in "-_.")[:100] or "run"
    return _runs_dir() / f"{safe_id}.json"


async def record_start(run: ShellRun) -> str:
    """The `start` step: the content of the root the line runs in, kept for the `end` step. Returns what a
    `--verbose` hook prints."""
    from freshpass.evidence.runs import plan_run, read_contents
    from freshpass.evidence.trust import is_trusted

    if not is_trusted(run.cwd):
        _save_start(run, {"skip": True})  # the end step need not wait
        return f"{run.cwd} is not trusted: not recorded (freshpass trust)"
    plan = await plan_run(run.cwd)
    if plan.package_root is None or plan.facts is None:
        _save_start(run, {"skip": True})
        return plan.not_recordable or f"{run.cwd} is not inside a project"
    write_cache(plan.package_root, plan.facts)
    contents, _problems = await read_contents(plan.evidence_roots, plan.rules)
    root = str(plan.package_root)
    snap = contents.get(root)
    _save_start(run, {"root": root, "content_id": snap.content_id if snap else None,
                      "started_at": run.started_at or time.time()})  # fmt: skip
    return f"watching {run.line!r} against {root}"


def _save_start(run: ShellRun, data: dict[str, Any]) -> None:
    write_private(_run_file(run.run_id), json.dumps(data), prefix=".start-")


async def _wait_start(run: ShellRun, deadline: float) -> dict[str, Any] | None:
    """The start step's record (it runs concurrently with the command; a fast command can end first)."""
    import asyncio

    from freshpass.facts.files import read_regular

    where = _run_file(run.run_id)
    while True:
        try:
            data = json.loads(read_regular(where, MAX_START_BYTES).decode("utf-8"))
        except FileNotFoundError:
            data = None
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if isinstance(data, dict):
            with contextlib.suppress(OSError):
                where.unlink()
            return data
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(0.05)  # polling a file the start step writes, with a deadline


async def record_end(run: ShellRun, *, wait: float = START_WAIT) -> str:
    """The `end` step: the run core records the finished line as a reported run bound to the content the start
    step saw (`record_reported`). Returns what a `--verbose` hook prints."""
    from freshpass.evidence.receipts import Actor
    from freshpass.evidence.runs import Report, Start, record_reported
    from freshpass.evidence.trust import is_trusted

    _sweep()
    started = await _wait_start(run, time.monotonic() + wait)
    if started is None:
        return "the command's start was not recorded: nothing to record"
    if started.get("skip"):
        return "not a check of this project: nothing recorded"
    if not is_trusted(run.cwd):
        return f"{run.cwd} is not trusted: not recorded (freshpass trust)"
    if run.exit_code is None:
        return "no exit status: nothing to record"
    at = started.get("started_at")
    began = float(at) if isinstance(at, (int, float)) else run.started_at
    root, content_id = started.get("root"), started.get("content_id")
    start = Start(began, root, content_id if isinstance(content_id, str) else None) if isinstance(root, str) else None
    finished_at = run.finished_at or time.time()
    report = Report(
        run.line, run.cwd, run.exit_code, "", Actor("terminal", f"shell:{run.shell}:{run.run_id.split('-')[0]}"),
        f"shell {run.shell} ({OBSERVED})", finished_at, duration=max(0.0, finished_at - began), start=start,
        paired=True,
    )  # fmt: skip
    outcome = await record_reported(report)
    if not outcome.receipts:
        return outcome.reason or "nothing to record"
    return "; ".join(f"recorded {e.kind} {e.status} ({e.scope}) as receipt #{e.id}" for e in outcome.receipts)


def _sweep() -> None:
    """Remove start files a killed shell left behind."""
    with contextlib.suppress(OSError):
        now = time.time()
        for entry in os.scandir(_runs_dir()):
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > RUN_FILE_AGE:
                    os.unlink(entry.path)
