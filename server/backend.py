"""The server's one path to facts and the ledger: owned, degrading instead of crashing.

The language server keeps a single ledger connection for its lifetime (opened at `initialize`, closed on
`shutdown`/`exit`). Anything that can go wrong there — a locked or unwritable ledger, a damaged file the ledger moved
aside, a repository git cannot read — is said once in the client's log and the server goes on with what it has: an
editor must never lose its language server because the state dir is read-only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from freshpass.evidence.status import ContentRules, Status
from freshpass.facts.model import ProjectFacts
from freshpass.ledger.content import ContentError, ContentSnapshot, NeedsGit, changed_paths
from freshpass.ledger.shared import SharedOptions
from freshpass.ledger.store import EvidenceDraft, Ledger, LedgerError
from lsprotocol import types

logger = logging.getLogger(__name__)

LogFunction = Callable[[types.MessageType, str], None]
# What `heads` is asked to match when there is no content id: no receipt names it ("unchecked:" is no id's kind).
UNCHECKED_CONTENT = "unchecked:"
DETECT_WAIT = 5.0  # seconds a refresh waits for facts detection before going on without it


def load_facts(root: Path) -> ProjectFacts:
    """Facts of a root; detection never raises for a malformed project, but a bug must not take the server down."""
    from freshpass.evidence.detection import detect_facts_kept

    # The server follows changes itself, so it always detects; what it detects is kept for the hooks and the CLI.
    return detect_facts_kept(root, cached=False)


def unavailable_status(root: Path, facts: ProjectFacts | None) -> Status:
    """The status (design §4.5) when the ledger cannot be read: nothing is known to be verified."""
    return Status(str(root), verify_commands=tuple(facts.verify_commands) if facts else ())


class Backend:
    """Facts, content snapshots and the ledger, with every failure turned into one log line."""

    def __init__(self, log: LogFunction) -> None:
        self._log = log
        self.ledger: Ledger | None = None
        self._open_task: asyncio.Task[Ledger | None] | None = None
        self._said: set[str] = set()
        self._closed = False
        self._detecting: dict[Path, asyncio.Future[ProjectFacts]] = {}
        # Called (on the event loop) with facts that arrived after `facts()` stopped waiting for them.
        self.on_late_facts: Callable[[Path, ProjectFacts], None] | None = None

    def say_once(self, level: types.MessageType, message: str) -> None:
        if message not in self._said:
            self._said.add(message)
            self._log(level, message)

    # ---- the ledger ----------------------------------------------------------------------------------------------

    async def open(self) -> Ledger | None:
        """Open the ledger once (concurrent callers share the attempt); None when it cannot be used."""
        if self._closed:
            return None
        if self.ledger is not None:
            return self.ledger
        if self._open_task is None:
            self._open_task = asyncio.ensure_future(self._open())
        return await asyncio.shield(self._open_task)

    async def _open(self) -> Ledger | None:
        try:
            ledger = await Ledger.open()
        except LedgerError as exc:
            self.say_once(types.MessageType.Warning, f"freshpass: receipts are unavailable: {exc}")
            self._open_task = None  # try again on the next need: the user may fix permissions meanwhile
            return None
        for warning in ledger.warnings:
            self.say_once(types.MessageType.Warning, f"freshpass: {warning}")
        if self._closed:
            await ledger.close()
            return None
        self.ledger = ledger
        return ledger

    async def close(self) -> None:
        self._closed = True
        if self._open_task is not None and not self._open_task.done():
            try:
                await self._open_task
            except Exception:
                logger.debug("ledger open failed while closing", exc_info=True)
        ledger, self.ledger = self.ledger, None
        if ledger is not None:
            await ledger.close()

    def _ledger_failed(self, exc: LedgerError) -> None:
        self.say_once(types.MessageType.Warning, f"freshpass: the ledger is unavailable right now: {exc}")

    async def status(
        self,
        root: Path,
        facts: ProjectFacts | None,
        snap: ContentSnapshot | None,
        shared: SharedOptions | None = None,
        *,
        processes: bool = True,
    ) -> Status:
        from freshpass.evidence.status import root_status

        ledger = await self.open()
        if ledger is None or facts is None:
            return unavailable_status(root, facts)
        try:
            return await root_status(ledger, root, facts, snapshot=snap, shared=shared, processes=processes)
        except LedgerError as exc:
            self._ledger_failed(exc)
            return unavailable_status(root, facts)
        except ContentError as exc:  # only without a snapshot of our own: root_status then reads the tree itself
            self.say_once(types.MessageType.Warning, f"freshpass: cannot tell what {root} contains: {exc}")
            return unavailable_status(root, facts)

    async def unchecked_status(self, root: Path, facts: ProjectFacts | None) -> Status:
        """The status of a git root in an untrusted workspace (`unchecked_status`): the ledger is read for the newest
        receipt, which is shown as a past run; no content id, no process."""
        from freshpass.evidence.status import unchecked_status

        commands = tuple(facts.verify_commands) if facts else ()
        ledger = await self.open()
        if ledger is None:
            return unchecked_status(str(root), {}, commands)
        try:
            _, newest = await ledger.heads(root, UNCHECKED_CONTENT)
        except LedgerError as exc:
            self._ledger_failed(exc)
            newest = {}
        return unchecked_status(str(root), newest, commands)

    async def record(self, draft: EvidenceDraft, manifest: Mapping[str, str] | None) -> Any:
        """Record a receipt; None (and one log line) when the ledger refuses."""
        ledger = await self.open()
        if ledger is None:
            return None
        try:
            return await ledger.record(draft, manifest=manifest)
        except LedgerError as exc:
            self._ledger_failed(exc)
            return None

    async def receipts(self, root: Path, limit: int) -> list[Any]:
        ledger = await self.open()
        if ledger is None:
            return []
        try:
            return list(await ledger.events(root, limit))
        except LedgerError as exc:
            self._ledger_failed(exc)
            return []

    async def data_version(self) -> int | None:
        ledger = self.ledger  # polling must not keep retrying a broken open: `open()` is driven by refreshes
        if ledger is None:
            return None
        try:
            return await ledger.data_version()
        except LedgerError as exc:
            self._ledger_failed(exc)
            return None

    # ---- facts and content ---------------------------------------------------------------------------------------

    async def facts(self, root: Path) -> ProjectFacts | None:
        """The facts of `root`, detected in a daemon thread so the server answers whatever detection does.

        None when they are not known yet: a detection of this root is still running (at most one runs per root,
        so a repository that makes detection slow never piles up threads), or this one took longer than
        `DETECT_WAIT` — the caller goes on with what it has, and the result arrives later through `on_late_facts`.
        A detection that fails gives empty facts and one log line."""
        from freshpass.evidence.detection import Unavailable, in_thread, wait_bounded

        running = self._detecting.get(root)
        if running is not None and not running.done():
            return None
        future = in_thread(load_facts, root, name="freshpass-facts")
        self._detecting[root] = future
        what = f"reading the checks {root} declares"
        try:
            return await wait_bounded(future, deadline=DETECT_WAIT, what=what)
        except Unavailable as exc:
            if future.done():  # detection promises problems, not exceptions; keep serving if it breaks anyway
                logger.error("detect_facts(%s): %s", root, exc, exc_info=exc.__cause__)
                self.say_once(types.MessageType.Error, f"freshpass: {exc}")
                return ProjectFacts(root=str(root))
            self.say_once(
                types.MessageType.Warning, f"freshpass: {exc}; {root} is shown without them until it finishes"
            )
            future.add_done_callback(lambda done: self._deliver_late(root, done))
            return None

    def _deliver_late(self, root: Path, future: asyncio.Future[ProjectFacts]) -> None:
        if self._closed or future.cancelled():
            return
        if future.exception() is not None:
            self.say_once(types.MessageType.Error, f"freshpass: cannot read the checks {root} declares")
            facts = ProjectFacts(root=str(root))
        else:
            facts = future.result()
        if self.on_late_facts is not None:
            self.on_late_facts(root, facts)

    async def snapshot(
        self, root: Path, facts: ProjectFacts | None, *, quiet: bool = False, processes: bool = True
    ) -> ContentSnapshot | None:
        """The content of `root` now, under the project's own rules (never the editor's: every door must compute the
        same id); None when it cannot be read (said once, unless `quiet`: the caller retries). `processes=False` (an
        untrusted workspace): computed in Python; `NeedsGit` when only git could compute it."""
        rules = ContentRules.of(facts)
        try:
            return await asyncio.to_thread(lambda: rules.snapshot(root, processes=processes))
        except NeedsGit:
            raise
        except ContentError as exc:
            if not quiet:
                self.say_once(types.MessageType.Warning, f"freshpass: cannot tell what {root} contains: {exc}")
            return None

    async def runs_git(self, root: Path) -> bool:
        """Would `root`'s content id need git (`needs_git`)? Reads files only."""
        from freshpass.ledger.content import needs_git

        return await asyncio.to_thread(needs_git, root)

    async def changed_between(
        self, root: Path, old: ContentSnapshot, new: ContentSnapshot, *, processes: bool = True
    ) -> list[str]:
        if old.content_id == new.content_id:
            return []
        return await asyncio.to_thread(
            lambda: changed_paths(root, old.content_id, new, old_manifest=old.manifest, processes=processes)
        )

    async def unverified_changes(
        self,
        root: Path,
        first: ContentSnapshot,
        now: ContentSnapshot,
        facts: ProjectFacts | None,
        *,
        processes: bool = True,
    ) -> list[str]:
        """What a root with no receipt at all must verify (design §7.1): the changes since HEAD that count (prose and
        the project's ignored files never do) plus what changed since the server's first look. An edit that reached
        the disk before that first look is in the first, so it is never absorbed into the baseline. Without
        processes (an untrusted workspace) only the second: the changes since HEAD are git's to tell."""
        from freshpass.evidence.agents import code_paths, uncommitted_paths

        since_start = await self.changed_between(root, first, now, processes=processes)
        since_head = (await uncommitted_paths(root) or []) if processes else []
        return sorted({*since_start, *code_paths(since_head, ContentRules.of(facts).ignored())})
