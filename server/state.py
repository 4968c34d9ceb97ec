"""What the server knows about each root and document, in memory.

Everything an editor asks for (diagnostics pulled, code lenses, hovers) is answered from here at once; the
expensive work (a content snapshot, the ledger's status) happens in refreshes triggered by edits and receipts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from freshpass.evidence.status import Status
from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.facts.roots import ROOT_MARKERS
from freshpass.ledger.content import ContentSnapshot


def touches_facts(facts: ProjectFacts | None, relative_path: str) -> bool:
    """Could a change to `relative_path` change the root's facts? Yes for anything detection looked at (present or
    not) or a file in a directory whose entries it read, and for a manifest marker anywhere (a new package)."""
    if facts is None or facts.reads(relative_path):
        return True
    return relative_path.rsplit("/", 1)[-1] in ROOT_MARKERS


@dataclass
class Refresh:
    """What one refresh of a root found."""

    content_changed: bool  # the content id differs from the previous refresh (or this is the first)
    status_changed: bool  # the status JSON differs
    touched: frozenset[str]  # paths reported changed since the previous refresh


@dataclass
class Schedule:
    """When a root's next refresh runs (server/tracking.py's scheduling, and nothing else, reads and writes it)."""

    pending: set[str] = field(default_factory=set)  # paths reported changed since the last refresh began
    pending_facts: bool = False  # the facts must be detected again
    requested: bool = False  # one more refresh is wanted after the running one
    first_pending_at: float | None = None  # loop time of the first event of the current burst
    timer: asyncio.TimerHandle | None = None
    worker: asyncio.Task[None] | None = None
    snapshot_failures: int = 0  # consecutive failed snapshots (retried before anyone hears about it)


@dataclass
class RootState:
    """One root as the server knows it. `Roots` (server/roots.py) creates it; after that the `Tracker`
    (server/tracking.py) is the one writer of every field: features and handlers read, and ask the tracker."""

    path: Path
    # A monorepo package (design §6): the workspace root it lies in. Receipts recorded in the package (a terminal's
    # `freshpass run` in backend/) belong to it, so its files show its status; None for a workspace root.
    parent: RootState | None = field(default=None, repr=False)
    facts: ProjectFacts | None = None
    snapshot: ContentSnapshot | None = None
    baseline: ContentSnapshot | None = None  # the content when this server first looked: "changed this session"
    status: Status = field(init=False)  # the latest refresh's; unverified until the first one
    status_known: bool = False  # a refresh has set the status (the first one is always announced)
    session_changed: list[str] = field(default_factory=list)  # baseline → now, used when there is no receipt
    touched: set[str] = field(default_factory=set)  # paths the client or the watcher reported edited
    latest_change: float | None = None  # wall-clock time the content id last changed
    change_count: int = 0  # content changes seen since the server started
    answered_early: int = 0  # content changes already counted by a fast answer (server/fastpath.py)
    # A fast answer's uncovered files (the status's rule applied to the one saved file), until the authoritative
    # refresh replaces it: lenses and hovers must say the same as the diagnostic that was just published.
    early_uncovered: set[str] | None = None
    # Files that were uncovered when a run failed and that no pass has covered since: a failure does not cover them.
    failed_paths: set[str] = field(default_factory=set)
    disk_stat: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (size, mtime_ns) at last look
    schedule: Schedule = field(default_factory=Schedule, repr=False)
    refreshed: asyncio.Event = field(default_factory=asyncio.Event)  # set after the first refresh

    @property
    def uri_prefix(self) -> str:
        return self.path.as_uri().rstrip("/") + "/"

    def relative(self, path: Path) -> str | None:
        try:
            rel = path.relative_to(self.path)
        except ValueError:
            return None
        return None if str(rel) == "." else rel.as_posix()

    def __post_init__(self) -> None:
        self.status = Status(str(self.path))

    def stale_paths(self) -> set[str]:
        """Files whose current content no passing receipt covers (`Status.uncovered_paths`)."""
        if self.early_uncovered is not None:
            return set(self.early_uncovered)
        return self.status.uncovered_paths(failed=self.failed_paths, unverified=self.session_changed)

    def verify_commands(self) -> list[VerifyCommand]:
        return list(self.facts.verify_commands) if self.facts else []

    def primary_command(self, kind: str = "test") -> VerifyCommand | None:
        """The approved command a person should run for `kind`: the first of that kind. None when the project
        declares none: another kind's check never stands in (a lint is not the tests)."""
        return next((command for command in self.verify_commands() if command.kind == kind), None)


@dataclass
class DocumentRef:
    """An open (or just edited) document resolved to its root."""

    uri: str
    path: Path
    root: RootState
    relative: str
    text: str | None = None  # the buffer, when the client has it open
    first_line: str = ""
    unsaved: bool = False  # the buffer differs from the file on disk
