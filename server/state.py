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
class RootState:
    path: Path
    # A monorepo package (design §6): the workspace root it lies in. Receipts recorded in the package (a terminal's
    # `freshpass run` in backend/) belong to it, so its files show its status; None for a workspace root.
    parent: RootState | None = field(default=None, repr=False)
    package_of: dict[Path, Path] = field(default_factory=dict, repr=False)  # directory -> its package (workspace)
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
    # What a fast answer decided is stale, until the authoritative refresh replaces it: lenses and hovers must say
    # the same as the diagnostic that was just published.
    early_stale: set[str] | None = None
    # Files that were stale when a run failed and that no pass has covered since: a failing run does not clear them.
    failed_paths: set[str] = field(default_factory=set)
    snapshot_failures: int = 0  # consecutive failed snapshots (retried before anyone hears about it)
    disk_stat: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (size, mtime_ns) at last look
    # refresh scheduling (server/tracking.py)
    pending: set[str] = field(default_factory=set)
    pending_facts: bool = False
    requested: bool = False
    first_pending_at: float | None = None
    timer: asyncio.TimerHandle | None = None
    worker: asyncio.Task[None] | None = None
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

    @property
    def has_evidence(self) -> bool:
        return self.status.has_evidence

    @property
    def state(self) -> str:
        return self.status.status

    def stale_paths(self) -> set[str]:
        """Files whose current content no passing receipt covers."""
        if self.early_stale is not None:
            return set(self.early_stale)
        if self.state == "stale":
            return set(self.status.changed_paths) | self.failed_paths
        if self.state == "unverified" and not self.has_evidence:
            return set(self.session_changed)
        if self.state == "failed" or (self.state == "flaky" and not self.status.flaky_counts):
            return set(self.failed_paths)
        return set()

    def verify_commands(self) -> list[VerifyCommand]:
        return list(self.facts.verify_commands) if self.facts else []

    def primary_command(self, kind: str = "test") -> VerifyCommand | None:
        """The approved command a person should run for `kind`: the first of that kind. None when the project
        declares none: another kind's check never stands in (a lint is not the tests)."""
        return next((command for command in self.verify_commands() if command.kind == kind), None)

    def set_status(self, status: Status) -> bool:
        changed = status != self.status or not self.status_known
        if changed:
            # A fresh failure covers what was stale with a failing run: those files stay uncovered until a pass.
            state = status.status
            self.failed_paths = (
                set()
                if state == "passed" or (state == "flaky" and status.flaky_counts)
                else self.stale_paths()
                if state in ("failed", "flaky")
                else self.failed_paths
            )
        self.status, self.status_known = status, True
        return changed


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
