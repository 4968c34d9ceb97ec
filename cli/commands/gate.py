"""`freshpass gate [PATH]`: may this content be pushed? `freshpass gate --install`: ask that at every `git push`.

The gate judges the content being pushed, not the work tree: the content id of each pushed commit's tree
(`commit_snapshot`, as sharing computes it, nothing checked out). It lets the push through when, for every kind it
requires (`[tool.freshpass] gate = ["test"]`, else `--kinds`, else the `gate.kinds` setting's default), a fresh
passing full run of that content is on record: a local receipt, or a shared one the project trusts (design §4.6).
A flaky result (the same full check failed and passed on that content) counts only where the project lets it
(`flaky = "pass-counts"`). Otherwise it exits 1 with one line: what is missing and the command to run.

As git's `pre-push` hook it reads git's lines on stdin (`<local ref> <local sha> <remote ref> <remote sha>`); under
the pre-commit framework, which reads them itself, `$PRE_COMMIT_TO_REF` names the commit. Run by hand, it judges
`--rev` (default `HEAD`). With a terminal attached it offers to run the approved command, when the work tree has
exactly the pushed content (a run of anything else would not cover the push); without one it only reports.

Precision first: what the gate cannot judge (no git content, an unreadable ledger, no test check declared) lets
the push through with a line saying why, never a refusal it cannot back.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.commands import UsageError
from freshpass.runner.terminal import safe, say

if TYPE_CHECKING:
    from freshpass.evidence.status import Status
    from freshpass.facts.model import ProjectFacts
    from freshpass.ledger.git import Repository
    from freshpass.ledger.store import Evidence, Ledger

MAX_LINES = 1000  # pre-push lines read (one per ref pushed)
MAX_LINE = 4096
HOOK_MARKER = "# freshpass gate: installed by `freshpass gate --install`"
CHAINED_NAME = "pre-push.before-freshpass"
_OBJECT_ID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("remote", nargs="?", help=argparse.SUPPRESS)  # git passes the remote's name and URL
    parser.add_argument("url", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument("--path", default=".", help="a file or directory in the project (default: .)")
    parser.add_argument("--rev", help="judge this commit's content (default: what git pushes, else HEAD)")
    parser.add_argument(
        "--kinds",
        help="comma-separated kinds that need a fresh full pass (default: the project's gate, else test)",
    )
    parser.add_argument("--install", action="store_true", help="write a git pre-push hook that runs the gate")
    parser.add_argument("--no-offer", action="store_true", help="never offer to run the check, even on a terminal")
    parser.epilog = "Skip it once with `git push --no-verify`. See docs/gate.md (pre-commit, lefthook, husky)."


@dataclass(frozen=True)
class Pushed:
    """One commit a push would send: the ref it goes to, and its object id."""

    ref: str
    sha: str


def pushed_commits(lines: Iterable[str]) -> list[Pushed]:
    """The commits of git's pre-push lines (deletions and malformed lines dropped, each commit once, bounded)."""
    found: dict[str, Pushed] = {}
    for count, line in enumerate(lines):
        if count >= MAX_LINES:
            break
        parts = line[:MAX_LINE].split()
        if len(parts) != 4:
            continue
        local_ref, local_sha = parts[0], parts[1].lower()
        if not _OBJECT_ID.match(local_sha) or set(local_sha) == {"0"}:
            continue  # a deletion pushes no content
        found.setdefault(local_sha, Pushed(safe(local_ref), local_sha))
    return list(found.values())


def required_kinds(option: str | None, facts: ProjectFacts | None) -> tuple[str, ...]:
    from freshpass.evidence.settings_defaults import GATE_KINDS
    from freshpass.facts.model import KINDS

    if option:
        kinds = tuple(dict.fromkeys(kind.strip() for kind in option.split(",") if kind.strip()))
        unknown = [kind for kind in kinds if kind not in KINDS]
        if unknown or not kinds:
            raise UsageError(f"--kinds: {', '.join(unknown) or option!r} is not one of {', '.join(KINDS)}")
        return kinds
    if facts is not None and facts.gate:
        return facts.gate
    return tuple(GATE_KINDS)


def missing_kinds(status: Status, kinds: Sequence[str]) -> list[str]:
    """The kinds with no fresh passing full run counted for `status`'s content (a flaky one counts only where the
    project lets it)."""
    counted = status.counted_receipts()
    return [
        kind
        for kind in kinds
        if not (kind in counted and counted[kind].status == "passed" and counted[kind].scope == "full")
    ]


def run(args: argparse.Namespace) -> int:
    import asyncio

    from freshpass.commands.status import no_project_message, resolve_roots

    if args.install:
        return install(Path(args.path))
    pushes = _pushes(args)
    roots = resolve_roots(args.path)
    if roots is None:
        say(f"freshpass gate: {no_project_message(args.path)}; nothing to judge")
        return 0
    return asyncio.run(_gate(roots[1], pushes, args))


def _pushes(args: argparse.Namespace) -> list[Pushed]:
    """What is being pushed: `--rev`, else pre-commit's `$PRE_COMMIT_TO_REF`, else git's stdin lines, else HEAD."""
    if args.rev:
        return [Pushed(safe(args.rev), args.rev)]
    to_ref = os.environ.get("PRE_COMMIT_TO_REF", "").strip()
    if to_ref:
        branch = os.environ.get("PRE_COMMIT_REMOTE_BRANCH", "").strip() or to_ref
        return [Pushed(safe(branch), to_ref)] if set(to_ref) != {"0"} else []
    if args.remote is not None and not sys.stdin.isatty():
        return pushed_commits(_bounded_lines(sys.stdin))
    return [Pushed("HEAD", "HEAD")]


def _bounded_lines(stream: object) -> Iterable[str]:
    readline = getattr(stream, "readline", None)
    if readline is None:
        return
    for _ in range(MAX_LINES):
        try:
            line = readline(MAX_LINE + 1)
        except (OSError, ValueError):
            return
        if not line:
            return
        yield line


async def _gate(root: Path, pushes: Sequence[Pushed], args: argparse.Namespace) -> int:
    from freshpass.commands.status import read_facts

    if not pushes:
        return 0  # only deletions: no content leaves
    facts = await read_facts(root, "gate")
    kinds = required_kinds(args.kinds, facts)
    commands: dict[str, str] = {c.kind: c.command for c in reversed(facts.verify_commands)} if facts else {}
    if facts is not None and not any(kind in commands for kind in kinds):
        say(f"freshpass gate: {safe(root)} declares no {'/'.join(kinds)} check; nothing to require")
        return 0
    refused = 0
    for push in pushes:
        verdict = await judge(root, push, kinds, facts, commands)
        if verdict is None:
            continue
        line, command, content_id = verdict
        if not args.no_offer and _offer(root, command, content_id, facts):
            verdict = await judge(root, push, kinds, facts, commands)
            if verdict is None:
                continue
            line = verdict[0]
        say(line)
        refused += 1
    return 1 if refused else 0


async def judge(
    root: Path,
    push: Pushed,
    kinds: Sequence[str],
    facts: ProjectFacts | None,
    commands: dict[str, str],
) -> tuple[str, str | None, str] | None:
    """None when `push`'s content may go; else (the one line to print, the command to run, its content id)."""
    import asyncio

    from freshpass.evidence.status import ContentRules, build_status, with_shared_receipts
    from freshpass.ledger.content import ContentError, commit_snapshot
    from freshpass.ledger.shared import SharedOptions
    from freshpass.ledger.store import Ledger, LedgerError

    rules = ContentRules.of(facts)
    short = push.sha[:12] if _OBJECT_ID.match(push.sha) else push.sha
    try:
        content = await asyncio.to_thread(commit_snapshot, root, push.sha, rules.ignore, rules.ignore_prose)
    except ContentError as exc:
        say(f"freshpass gate: cannot name the content of {safe(short)} ({exc}); not judged")
        return None
    try:
        async with await Ledger.open(read_only=True) as ledger:
            fresh, newest = await ledger.heads(str(root), content.content_id)
            contradicting = await ledger.opposites(str(root), fresh) if fresh else {}
            covering = await _covering_passes(ledger, root, content.content_id, kinds, fresh)
    except LedgerError as exc:
        say(f"freshpass gate: {exc}; not judged")
        return None
    fresh = {**fresh, **{kind: receipt for kind, receipt in covering.items() if kind not in contradicting}}
    status = build_status(
        str(root), fresh, newest, (), (), contradicting, flaky_counts=facts is not None and facts.flaky == "pass-counts"
    )
    # The same anchors as every status: never the pushed commit's own trust settings (docs/security.md).
    status = await with_shared_receipts(status, content, SharedOptions())
    missing = missing_kinds(status, kinds)
    if not missing:
        return None
    kind = missing[0]
    command = commands.get(kind)
    state = status.kinds.get(kind)
    if state is not None and state.fresh and state.flaky is not None:
        why = f"is flaky (receipt #{state.flaky['passed'].id} passed, #{state.flaky['failed'].id} failed)"
    elif state is not None and state.fresh and state.status == "failed":
        why = "failed its last full run"
    else:
        why = f"has no fresh passing full {kind} run"
    fix = f"; run: freshpass run -- {safe(command)}" if command else ""
    others = f" (also missing: {', '.join(missing[1:])})" if len(missing) > 1 else ""
    return (
        f"freshpass gate: {push.ref} ({safe(short)}) {why}{others}{fix} (git push --no-verify skips this)",
        command,
        content.content_id,
    )


async def _covering_passes(
    ledger: Ledger, root: Path, content_id: str, kinds: Sequence[str], fresh: Mapping[str, Evidence]
) -> dict[str, Evidence]:
    """A full pass of the content that a newer, narrower run hides from the kind's head (a targeted re-run)."""
    wanted = [kind for kind in kinds if kind in fresh and fresh[kind].scope != "full"]
    found: dict[str, Evidence] = {}
    if not wanted:
        return found
    for event in await ledger.events(str(root), 200):
        usable = event.scope == "full" and not event.stale_at_record and event.content_id == content_id
        if usable and event.kind in wanted and event.kind not in found:
            if event.status == "passed":
                found[event.kind] = event
            else:
                wanted.remove(event.kind)  # a newer full failure: not covered
    return found


def _offer(root: Path, command: str | None, content_id: str, facts: ProjectFacts | None) -> bool:
    """On a terminal: offer to run the approved check, when the work tree has exactly the pushed content. True when
    it ran (whatever it returned: the caller judges again). Blocks on the person's answer: nothing else runs."""
    if not command or os.environ.get("CI", "").lower() in ("1", "true") or not sys.stderr.isatty():
        return False
    try:
        tty = open("/dev/tty", "r+", encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
    except OSError:
        return False
    with tty:
        from freshpass.evidence.status import ContentRules
        from freshpass.ledger.content import ContentError

        try:
            here = ContentRules.of(facts).snapshot(root)
        except ContentError:
            return False
        if here.content_id != content_id:
            return False  # a run here would not cover what is pushed
        tty.write(f"freshpass gate: run `{safe(command)}` now? [y/N] ")
        tty.flush()
        answer = tty.readline(16).strip().lower()
        if answer not in ("y", "yes"):
            return False
        completed = subprocess.run(
            [sys.executable, "-m", "freshpass", "run", "--", command], cwd=root, stdin=tty, check=False
        )
        return completed.returncode is not None


# ---- installing -----------------------------------------------------------------------------------------------------


def hook_text(chained: str) -> str:
    """The pre-push hook: git's lines are kept, handed to a hook that was there before (its verdict first), then to
    the gate. `freshpass` from PATH, else the interpreter that installed it."""
    interpreter = shlex.quote(sys.executable)
    return f"""#!/bin/sh
{HOOK_MARKER}
# A pre-push hook that was here before is kept as {chained} and runs first.
input=$(cat)
here=$(dirname "$0")
if [ -x "$here/{chained}" ]; then
  printf '%s\\n' "$input" | "$here/{chained}" "$@" || exit $?
fi
if command -v freshpass >/dev/null 2>&1; then
  printf '%s\\n' "$input" | freshpass gate "$@"
else
  printf '%s\\n' "$input" | {interpreter} -m freshpass gate "$@"
fi
"""


def install(path: Path) -> int:
    from freshpass.ledger.git import config_value, find_repository

    start = path.resolve()
    repository = find_repository(start if start.is_dir() else start.parent)
    if repository is None:
        say(f"freshpass gate: {safe(path)} is not in a git repository; no hook to install")
        return 1
    hooks_path = config_value(repository, "core", "hooksPath") or _global_hooks_path()
    if hooks_path:
        say(
            f"freshpass gate: core.hooksPath is set ({safe(hooks_path)}); freshpass does not write hooks where "
            "git's configuration points. Add `freshpass gate \"$@\"` to that directory's pre-push hook yourself "
            "(docs/gate.md: husky, lefthook, pre-commit)"
        )
        return 1
    return _write_hook(repository)


def _global_hooks_path() -> str:
    """`core.hooksPath` of the user's own git configuration (never the repository's: it is read as data above)."""
    try:
        completed = subprocess.run(
            ["git", "config", "--global", "--get", "core.hooksPath"],
            cwd="/",
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return completed.stdout.strip() if completed.returncode == 0 else ""


def _write_hook(repository: Repository) -> int:
    hooks = repository.common_dir / "hooks"
    try:
        if hooks.is_symlink() or (hooks.exists() and not hooks.is_dir()):
            say(f"freshpass gate: {safe(hooks)} is not a plain directory; no hook written")
            return 1
        hooks.mkdir(mode=0o755, exist_ok=True)
        hook = hooks / "pre-push"
        chained = hooks / CHAINED_NAME
        said = ""
        if os.path.lexists(hook):
            if hook.is_symlink() or not hook.is_file():
                say(f"freshpass gate: {safe(hook)} is not a regular file; left alone, no hook written")
                return 1
            existing = hook.read_bytes()[:65536]
            if HOOK_MARKER.encode() not in existing:
                if os.path.lexists(chained):
                    say(f"freshpass gate: both {safe(hook)} and {safe(chained)} exist; left alone, no hook written")
                    return 1
                os.replace(hook, chained)
                said = f"; the pre-push hook that was there runs first (kept as {CHAINED_NAME})"
        temporary = hooks / ".pre-push.freshpass.tmp"
        temporary.write_text(hook_text(CHAINED_NAME), encoding="utf-8")
        temporary.chmod(0o755)
        os.replace(temporary, hook)
    except OSError as exc:
        say(f"freshpass gate: cannot write the hook in {safe(hooks)}: {exc.strerror or exc}")
        return 1
    say(f"freshpass gate: installed {safe(hook)}{said}")
    return 0
