"""The one place a run becomes receipts (design §4.2), for every door: `freshpass run`, `freshpass verify`, the
language server's verify and `freshpass/recordRun`, the agents' hooks and the MCP server.

A door knows what ran (`Finished`), who ran it (`Actor`), how `classify` reads the line, and for each root a match
belongs to, the content before and after. `receipts_for` turns that into ledger drafts — one per recognised check
on the line, per root — and `receipt` is the single constructor every draft goes through, so the fields a receipt
carries, how output and test counts are kept, and what a session or an actor is never drift between doors.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

if TYPE_CHECKING:  # imported where used: `freshpass run` of a command that is no check never needs them
    from freshpass.facts.classify import Classification, Match
    from freshpass.ledger.store import EvidenceDraft, Observed

ActorKind = Literal["terminal", "editor", "agent", "ci"]
ACTORS: tuple[ActorKind, ...] = ("terminal", "editor", "agent", "ci")
ACTOR_ENV = "FRESHPASS_ACTOR"  # who runs `freshpass run` (an agent's harness sets `agent`)
SESSION_ENV = "FRESHPASS_SESSION"  # the session a run belongs to (an agent's conversation, a CI job)


@dataclass(frozen=True)
class Actor:
    """Who ran a command, and in which session: nudge budgets and `checkDone` are per session."""

    kind: ActorKind
    session: str = ""


def actor_from_environment(environ: Mapping[str, str] | None = None) -> Actor:
    """The actor of a command-line door: `$FRESHPASS_ACTOR` when it names one, else `ci` under CI (`$CI`), else
    `terminal`; the session is `$FRESHPASS_SESSION`, else the shell that started freshpass (`terminal:<ppid>`)."""
    env = os.environ if environ is None else environ
    named = env.get(ACTOR_ENV, "").strip().lower()
    kind: ActorKind
    if named in ACTORS:
        kind = cast(ActorKind, named)
    elif env.get("CI", "").strip().lower() not in ("", "0", "false"):
        kind = "ci"
    else:
        kind = "terminal"
    session = env.get(SESSION_ENV, "").strip() or f"terminal:{os.getppid()}"
    return Actor(kind, session)


@dataclass(frozen=True)
class Finished:
    """A finished run as a door saw it: the line as typed, where, its exit code and what it printed."""

    line: str
    cwd: str
    exit_code: int | None
    output: str = ""
    omitted: int = 0  # characters of output the door did not keep
    started_at: float = 0.0
    finished_at: float = 0.0
    # What the door added to the environment the command ran in (`RunEnvironment.to_json()`, design §5): kept in
    # every receipt of the run as `details.environment`.
    environment: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Content:
    """The content a receipt is bound to: the root's id before the run, and whether it changed during it."""

    root: str
    content_id: str
    changed_during_run: bool = False
    manifest: Mapping[str, str] | None = field(default=None, compare=False)  # non-git roots: path → blob


def receipt(
    *,
    finished: Finished,
    actor: Actor,
    content: Content,
    canonical_command: str,
    kind: str,
    scope: str,
    status: str,
    approved: bool,
    reason: str | None = None,
    details: dict[str, Any] | None = None,
    count_tests: bool = False,
    observed: Observed = "watched",
) -> EvidenceDraft:
    from freshpass.facts.tools import parse_test_counts
    from freshpass.ledger.store import EvidenceDraft

    """The one constructor of a receipt draft. `count_tests`: read test counts from the output (a test run);
    `observed`: how freshpass knows of the run (`freshpass.ledger.store.OBSERVED`)."""
    draft = EvidenceDraft(
        root=content.root,
        command=finished.line,
        canonical_command=canonical_command,
        kind=kind,
        scope=scope,
        status=status,
        content_id=content.content_id,
        started_at=finished.started_at,
        finished_at=finished.finished_at,
        exit_code=finished.exit_code,
        reason=reason,
        approved=approved,
        cwd=finished.cwd,
        session=actor.session,
        actor=actor.kind,
        stale_at_record=content.changed_during_run,
        observed=observed,
        details={**(details or {}), **({"environment": dict(finished.environment)} if finished.environment else {})},
    )
    draft.set_output(finished.output, finished.omitted)
    if count_tests:
        counts = parse_test_counts(finished.output)
        if counts is not None:
            draft.tests_passed, draft.tests_failed, draft.tests_skipped = counts.passed, counts.failed, counts.skipped
    return draft


@dataclass(frozen=True)
class Draft:
    """A receipt to record and the content it is bound to (the ledger keeps a non-git root's manifest with it)."""

    draft: EvidenceDraft
    content: Content


def receipts_for(
    classification: Classification,
    finished: Finished,
    actor: Actor,
    content_of: Callable[[Match], Content | None],
    *,
    observed: Observed | Callable[[Match], Observed] = "watched",
) -> list[Draft]:
    """One draft per recognised check the line ran (`make lint && make test` proves both) and per root, none when
    the line is not evidence (no match, or its exit status does not belong to a match: design §3.2).
    `observed` is how freshpass knows of the run, for all its receipts or per match.

    `content_of(match)` is the content the match is bound to — the root it belongs to (its package in a monorepo)
    — or None when that content could not be read (nothing is recorded for it)."""
    if not classification.matched or not classification.attributable:
        return []
    status = classification.status or ("passed" if finished.exit_code == 0 else "failed")
    drafts: list[Draft] = []
    seen: set[tuple[str, str, str]] = set()
    for match in classification.matches:
        content = content_of(match)
        if content is None or (content.root, match.canonical_command, match.kind) in seen:
            continue
        seen.add((content.root, match.canonical_command, match.kind))
        drafts.append(
            Draft(
                receipt(
                    finished=finished,
                    actor=actor,
                    content=content,
                    canonical_command=match.canonical_command,
                    kind=match.kind,
                    scope=match.scope,
                    status=status,
                    approved=match.approved,
                    reason=classification.reason,
                    details={"source": match.source, "args": list(match.args)},
                    count_tests=match.kind == "test",
                    observed=observed(match) if callable(observed) else observed,
                ),
                content,
            )
        )
    return drafts
