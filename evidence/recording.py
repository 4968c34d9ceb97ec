"""From a command line and where it ran to receipts in the ledger (design §4.2, §7.2): the planning and recording
every door that runs or hears of a run shares — `freshpass run`, the agents' `freshpass hook record` (a run an
agent's own shell tool made, reported after the fact) and the MCP server's `run` tool.

- `plan_run` works out what a line can count for before anything runs: the project's root and the package the
  directory belongs to, its declared checks (detected off the loop with a deadline), and the roots its matches
  would be recorded for.
- `read_contents` reads those roots' content ids (in daemon threads, each bounded like detection).
- `record_receipts` classifies nothing itself: given the classification of the finished run it builds the drafts
  through the one receipt builder (`freshpass.evidence.receipts`) and records them.

A reported run is bound to the content its root has when the report arrives: the run is over by then. When the
report says how long the run took, a code file written while it ran (judged by modification time, with a margin)
marks the receipt stale at record, as `freshpass run` does when the content changed under the command.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.evidence.receipts import Actor, Content, Finished, receipts_for

if TYPE_CHECKING:
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.classify import Classification, Match
    from freshpass.facts.model import ProjectFacts
    from freshpass.ledger.content import ContentSnapshot
    from freshpass.ledger.store import Evidence, Ledger

# A reported run's start is estimated from when the report arrived and how long the run took; files written up to
# this many seconds before that estimate count as written during the run (the report arrives a little after the
# run ended, so the estimate is late by that much; erring early only ever makes a receipt stale, never fresh).
REPORT_MARGIN = 1.0


@dataclass
class RunPlan:
    """What a command line can count for, worked out before it runs (or before its report is recorded)."""

    cwd: Path
    root: Path | None = None  # the git (or manifest) root
    package_root: Path | None = None  # the root the cwd's facts belong to
    facts: ProjectFacts | None = None
    evidence_roots: dict[str, Path] = field(default_factory=dict)  # roots a match would be recorded for
    unreadable: str | None = None  # why the project's facts could not be read (then nothing is recorded)

    @property
    def rules(self) -> ContentRules:
        """The project's content rules (`[tool.freshpass] ignore` and `ignore_prose`), as every door reads them."""
        from freshpass.evidence.status import ContentRules

        return ContentRules.of(self.facts)

    def root_of(self, match: Match) -> Path:
        """The (package) root a match's evidence belongs to: the package holding the directory it ran in."""
        from freshpass.facts.roots import find_package_root

        assert self.root is not None and self.package_root is not None
        if not match.cwd:
            return self.package_root
        directory = Path(os.path.normpath(self.package_root / match.cwd))  # absolute cwds stay absolute
        if directory in (self.package_root, self.cwd):
            return self.package_root
        return find_package_root(directory, self.root)

    def add_roots(self, matches: Iterable[Match]) -> None:
        for match in matches:
            match_root = self.root_of(match)
            self.evidence_roots[str(match_root)] = match_root


async def plan_run(line: str, cwd: Path, *, interrupt: asyncio.Event | None = None) -> RunPlan:
    """The plan for `line` run in `cwd`: roots, facts, and the roots its matches would be recorded for (as if it
    succeeds). A project whose facts cannot be read gets `unreadable` (nothing will be recorded); `Interrupted`
    propagates when `interrupt` is set meanwhile."""
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.classify import classify
    from freshpass.facts.roots import find_package_root, find_root

    plan = RunPlan(cwd=cwd, root=find_root(cwd))
    if plan.root is None:
        return plan
    plan.package_root = find_package_root(cwd, plan.root)
    try:
        plan.facts = await detect_bounded(plan.package_root, interrupt=interrupt)
    except Unavailable as exc:
        plan.unreadable = str(exc)
        return plan
    plan.add_roots(classify(line, cwd=str(cwd), root=plan.package_root, facts=plan.facts, exit_code=0).matches)
    return plan


async def read_contents(roots: Mapping[str, Path], rules: ContentRules) -> tuple[dict[str, ContentSnapshot], list[str]]:
    """Each root's content now under the project's rules (read in daemon threads), and one line for each root that
    could not be read."""
    from freshpass.evidence.detection import Unavailable, in_thread, wait_bounded
    from freshpass.ledger.content import ContentError

    reading = {key: in_thread(rules.snapshot, path, name="freshpass-content") for key, path in roots.items()}
    contents: dict[str, ContentSnapshot] = {}
    problems: list[str] = []
    for key, future in reading.items():
        try:
            contents[key] = await wait_bounded(future, deadline=None, what=f"reading the content of {key}")
        except Unavailable as exc:
            cause = exc.__cause__
            problems.append(f"cannot read the content of {key} ({cause if isinstance(cause, ContentError) else exc})")
    return contents, problems


def written_since(root: Path, since: float, paths: Iterable[str]) -> bool:
    """Whether any of `paths` (relative to `root`) was modified at or after `since` (epoch seconds)."""
    for relative in paths:
        try:
            if os.lstat(root / relative).st_mtime >= since:
                return True
        except OSError:
            continue
    return False


async def changed_while_running(root: Path, content: ContentSnapshot, started_at: float, rules: ContentRules) -> bool:
    """Whether a file that counts as content was written after `started_at` (less `REPORT_MARGIN`): for a reported
    run, the nearest freshpass can come to `freshpass run`'s before-and-after content ids. Git roots look at the
    files that differ from HEAD (an unmodified file was not written), other roots at every file of the content."""
    from freshpass.evidence.agents import code_paths, uncommitted_paths

    since = started_at - REPORT_MARGIN
    if content.is_git:
        candidates = code_paths(await uncommitted_paths(root) or [], rules.ignored())
    else:
        candidates = list(content.manifest or ())
    return await asyncio.to_thread(written_since, root, since, candidates)


async def record_receipts(
    ledger: Ledger,
    plan: RunPlan,
    outcome: Classification,
    finished: Finished,
    actor: Actor,
    before: Mapping[str, ContentSnapshot],
    after: Mapping[str, ContentSnapshot],
    *,
    changed: Mapping[str, bool] | None = None,
    details: Mapping[str, Any] | None = None,
) -> list[Evidence]:
    """Record the receipts of a finished, classified run; each is bound to its root's content `before` the run and
    is stale at record when `after` differs (or `changed` says so). Roots without a `before` are skipped (their
    content could not be read). `details` are added to each receipt's (for example how an agent reported it).
    Raises `LedgerError`."""

    def content_of(match: Any) -> Content | None:
        key = str(plan.root_of(match))
        start = before.get(key)
        if start is None:
            return None
        end = after.get(key)
        moved = end is None or end.content_id != start.content_id or bool((changed or {}).get(key))
        return Content(key, start.content_id, moved, start.manifest)

    recorded: list[Evidence] = []
    for pending in receipts_for(outcome, finished, actor, content_of):
        if details:
            pending.draft.details = {**(pending.draft.details or {}), **details}
        recorded.append(await ledger.record(pending.draft, manifest=pending.content.manifest))
    return recorded
