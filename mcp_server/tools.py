"""The MCP server's tools (design §7.3): what an agent asks freshpass over MCP, answered from the evidence core.

Each tool is a plain async function with typed arguments and a `TypedDict` result, so the official SDK derives the
input schema and returns structured content; `serve.py` registers them. Problems an agent can act on (a path under
no project, a command that is no check) raise `ToolProblem` with one actionable sentence, which the SDK returns as
a tool error; nothing here raises for a failing check — a failure is a result.

`run` runs only what the agent asked for and only a check, and only in a folder the user trusts (`freshpass trust`):
the project's primary done command, or a command line that `facts.admission.admit` lets through — one simple
command that is an approved check or a narrowing of one, never a shell line (design §3). Every `path` stays inside
the server's project. It runs through the shared runner (one process group, torn down
on timeout or cancellation), and its receipt is bound to the content before the run, stale at record if the
content changed while it ran — exactly as `freshpass run`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from freshpass.evidence import settings_defaults as defaults

# pydantic (under the SDK) builds the output schema of a nested TypedDict only from typing_extensions' on Python < 3.12.
from typing_extensions import TypedDict

SESSION_ENV = "FRESHPASS_SESSION"
DEFAULT_TIMEOUT = 600.0  # seconds a `run` may take unless the agent asks for more
MAX_TIMEOUT = defaults.VERIFY_TIMEOUT  # the verify setting's default: the longest any one run may take
OUTPUT_TAIL = 4000  # characters of output a `run` returns
MAX_RECEIPTS = 100
VIA = {"via": "mcp run"}  # how a receipt came to be, in its details
UNCHECKED_CONTENT = "unchecked:"  # matched by no receipt: `heads` gives each kind's newest receipt, none fresh


class ToolProblem(Exception):
    """A request the tool cannot serve, with what to do instead (returned to the agent as a tool error)."""


class StatusResult(TypedDict):
    root: str
    status: str  # passed | failed | flaky | stale | unverified | unchecked (an untrusted folder: not checked)
    scope: str | None
    kinds: dict[str, Any]
    evidence: dict[str, Any] | None
    changed_paths: list[str]
    verify_commands: list[dict[str, Any]]


class ClaimResult(TypedDict):
    kind: str
    quote: str
    backed: bool


class CheckDoneResult(TypedDict):
    verdict: str  # verified | nudge | exhausted | not_applicable
    message: str
    synthetic: bool
    commands: list[dict[str, str]]
    nudgesLeft: int
    changedPaths: list[str]
    claims: list[ClaimResult]


class Counts(TypedDict):
    passed: int
    failed: int
    skipped: int


class RunResult(TypedDict):
    command: str
    cwd: str
    exit_code: int
    status: str  # passed | failed | not run (the program was not found) | not recorded
    recorded: bool
    reason: str | None
    timed_out: bool
    receipts: list[dict[str, Any]]
    tests: Counts | None
    output_tail: str


class ReceiptsResult(TypedDict):
    root: str
    receipts: list[dict[str, Any]]


def _plain(value: Any) -> Any:
    """`value` with every text valid UTF-8: a stored text that is not (a file name's bytes) is shown escaped, since
    JSON cannot carry it and a tool answer must never fail on one receipt."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if isinstance(value, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def session_of(given: str = "") -> str:
    """Whose budget and receipts: the tool's `session` argument, else `$FRESHPASS_SESSION` (set in the client's
    server config), else one per server process."""
    return given.strip() or os.environ.get(SESSION_ENV, "").strip() or f"mcp:{os.getpid()}"


def resolve(path: str, default_root: Path) -> tuple[Path, Path]:
    """(root, package root) holding `path` (relative paths are taken from `default_root`). `path` must stay inside
    `default_root` once symlinks are resolved: an absolute path to another project, `../other` or a symlink out of
    the project is refused, so a client can never point the tools at a project the user did not start them in."""
    from freshpass.facts.roots import find_package_root, find_root

    target = Path(path).expanduser() if path else default_root
    if not target.is_absolute():
        target = default_root / target
    if not target.exists():
        raise ToolProblem(f"{target} does not exist: pass `path` as a directory or file of the project")
    resolved, home = target.resolve(), default_root.resolve()
    if resolved != home and home not in resolved.parents:
        raise ToolProblem(
            f"{target} is outside this server's project {default_root}: `path` must name a file or directory inside "
            "it (start another server with `freshpass mcp --root DIR` for another project)"
        )
    root = find_root(resolved)
    if root is None:
        raise ToolProblem(f"{target} is not inside a project (no git repository or manifest above it)")
    return root, find_package_root(resolved, root)


async def _facts(root: Path) -> Any:
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.model import ProjectFacts

    try:
        return await detect_bounded(root)
    except Unavailable:
        return ProjectFacts(root=str(root))


async def status(path: str, default_root: Path) -> StatusResult:
    from freshpass.evidence.status import root_status
    from freshpass.ledger.store import Ledger

    _root, package = resolve(path, default_root)
    facts = await _facts(package)
    async with await Ledger.open(read_only=True) as ledger:
        if _runs_nothing(package):
            from freshpass.evidence.status import unchecked_status
            from freshpass.ledger.content import NeedsGit

            try:  # the content id computed in Python, if it can be exactly git's
                found = (await root_status(ledger, str(package), facts, processes=False)).to_json()
            except NeedsGit:
                _, newest = await ledger.heads(str(package), UNCHECKED_CONTENT)
                found = unchecked_status(str(package), newest, facts.verify_commands).to_json()
        else:
            found = (await root_status(ledger, str(package), facts, shared=_shared_options(package))).to_json()
    return StatusResult(**{key: found[key] for key in StatusResult.__annotations__})  # type: ignore[typeddict-item]


async def check_done(
    path: str, default_root: Path, *, session: str = "", changed_paths: Sequence[str] = (), message: str = ""
) -> CheckDoneResult:
    from freshpass.evidence.agents import DoneRules, evaluate
    from freshpass.evidence.claims import find_claims
    from freshpass.ledger.store import Ledger

    _root, package = resolve(path, default_root)
    if _runs_nothing(package):
        from freshpass.evidence.trust import untrusted_reason

        return CheckDoneResult(
            verdict="not_applicable",
            message=f"freshpass: {untrusted_reason(package)} Not even git runs there, so whether receipts cover the "
            "content cannot be checked. Say plainly how you verified the change, or that you did not.",
            synthetic=False,
            commands=[],
            nudgesLeft=0,
            changedPaths=[],
            claims=[],
        )
    async with await Ledger.open() as ledger:
        decision = await evaluate(
            ledger,
            package,
            session=session_of(session),
            rules=DoneRules(),
            changed_paths=list(changed_paths),
            claims=find_claims(message),
            shared=_shared_options(package),
        )
    answer = decision.to_json()
    return CheckDoneResult(**{key: answer[key] for key in CheckDoneResult.__annotations__})  # type: ignore[typeddict-item]


def _shared_options(package: Path) -> Any:
    """Shared receipts count only in a folder the user trusts (`freshpass trust`); elsewhere no trust anchor is read
    (no git runs for them) and they are shown, not counted — as in an untrusted editor workspace."""
    from freshpass.evidence.trust import is_trusted
    from freshpass.ledger.shared import SharedOptions

    return SharedOptions(workspace_trusted=is_trusted(package))


def _runs_nothing(package: Path) -> bool:
    """A folder the user has not trusted runs nothing, git included: a git root's content id (git's tree id) is then
    computed in Python when that can be exact (`freshpass.ledger.puretree`), else freshness is not checked
    (`unchecked_status`). Other roots are hashed without any process anyway."""
    from freshpass.evidence.trust import is_trusted
    from freshpass.ledger.content import needs_git

    return needs_git(package) and not is_trusted(package)


async def receipts(path: str, default_root: Path, *, limit: int = 10) -> ReceiptsResult:
    from freshpass.ledger.store import Ledger

    _root, package = resolve(path, default_root)
    async with await Ledger.open(read_only=True) as ledger:
        events = await ledger.events(str(package), max(1, min(limit, MAX_RECEIPTS)))
    return ReceiptsResult(root=_plain(str(package)), receipts=[_plain(event.to_json()) for event in events])


def _primary(facts: Any, package: Path) -> tuple[str, Path]:
    """The command `run` runs when none is given: the first approved command of a done kind (test first)."""
    rules_kinds = defaults.DONE_KINDS
    for kind in rules_kinds:
        for command in facts.verify_commands:
            if command.kind == kind:
                return command.command, Path(os.path.normpath(package / (command.cwd or ".")))
    raise ToolProblem(
        f"{package} declares no {'/'.join(rules_kinds)} command (see `freshpass facts`): pass `command`, or tell "
        "the user how you checked the change"
    )


async def run(
    path: str, default_root: Path, *, command: str = "", timeout: float = DEFAULT_TIMEOUT, session: str = ""
) -> RunResult:
    from freshpass.evidence.runs import Actor, plan_run, run_check
    from freshpass.facts.classify import classify
    from freshpass.runner.environment import FIX_IN_TERMINAL

    if not 0 < timeout <= MAX_TIMEOUT:
        raise ToolProblem(f"timeout must be more than 0 and at most {MAX_TIMEOUT:g} seconds, got {timeout:g}")
    _root, package = resolve(path, default_root)
    from freshpass.evidence.trust import is_trusted, untrusted_reason

    if not is_trusted(package):
        raise ToolProblem(untrusted_reason(package))
    facts = await _facts(package)
    if command.strip():
        from freshpass.facts.admission import Refused, admit

        admitted = admit(command, cwd=package, facts=facts)
        if isinstance(admitted, Refused):
            raise ToolProblem(
                f"{admitted.reason}; `run` runs only the project's checks, one simple command at a time — run "
                "anything else with your own shell tool"
            )
        line, cwd = admitted.line, package
    else:
        line, cwd = _primary(facts, package)
    plan = await plan_run(cwd)
    if plan.unreadable:
        raise ToolProblem(f"the project's declared checks could not be read ({plan.unreadable}); nothing was run")
    # Only a check runs here: the line is read (not run) first, and refused when it could never be evidence.
    admission = classify(line, cwd=str(cwd), root=plan.package_root, facts=plan.facts)
    if not admission.matches:
        raise ToolProblem(
            f"`{line}` is not a check freshpass can record ({admission.reason or 'not a recognised check'}); `run` "
            "runs only the project's checks — run anything else with your own shell tool"
        )
    plan.add_roots(admission.matches)
    notes: list[str] = []
    outcome = await run_check(
        line,
        cwd,
        actor=Actor("agent", session_of(session)),
        plan=plan,
        timeout=timeout,
        fix=FIX_IN_TERMINAL,
        say=notes.append,
        details=VIA,
    )
    assert outcome.result is not None
    result = outcome.result
    output = result.output.text()
    reason = outcome.reason or None
    if result.timed_out:
        reason = f"timed out after {timeout:g} s; its process group was stopped"
    elif result.error:
        reason = result.error
    first = outcome.headline.to_json() if outcome.headline is not None else None
    said = "".join(f"freshpass: {note}\n" for note in notes)
    return RunResult(
        command=line,
        cwd=str(cwd),
        exit_code=result.exit_code,
        status=first["status"] if first else ("not run" if outcome.not_run else "not recorded"),
        recorded=outcome.recorded,
        reason=reason if not outcome.recorded else None,
        timed_out=result.timed_out,
        receipts=[_plain(evidence.to_json()) for evidence in outcome.receipts],
        tests=first["tests"] if first else None,
        output_tail=(said + output)[-OUTPUT_TAIL:],
    )
