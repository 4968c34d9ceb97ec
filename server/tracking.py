"""Edit tracking: from "something changed" to a root's recomputed content and status.

Every source of change — didSave, didChange, didChangeWatchedFiles, the file watcher, a receipt from another
process — ends in `request_refresh(root, paths, delay)`. Requests for one root coalesce: a burst (a branch switch
touching thousands of files) becomes one content snapshot after it settles (`DEBOUNCE` after the last event, at most
`MAX_WAIT` after the first), and events that arrive while a refresh runs cause exactly one more. A save asks with no
delay, so the editor hears back at once. Freshness is content-based: a refresh whose content id and status equal the
previous ones changes nothing a client can see.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.evidence.status import Status
from freshpass.facts.model import ProjectFacts
from freshpass.ledger.content import NeedsGit
from freshpass.server.state import DocumentRef, Refresh, RootState, touches_facts
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

logger = logging.getLogger(__name__)

DEBOUNCE = 0.15  # seconds of quiet that end a burst
MAX_WAIT = 2.0  # a burst that never pauses still refreshes this often
# Many paths at once (a checkout, a rebase, a formatter over the tree): such tools pause briefly between phases, so
# wait for a longer quiet before publishing, or each file would be published once per phase.
BURST_PATHS = 100
BURST_DEBOUNCE = 0.4
# A snapshot taken while git rewrites the tree can fail ("unable to stat"): retry before saying anything.
SNAPSHOT_RETRY_DELAY = 0.3
SNAPSHOT_RETRIES = 3


def disk_stat(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


class Tracker:
    def __init__(self, server: FreshpassServer) -> None:
        self.server = server

    # ---- scheduling ----------------------------------------------------------------------------------------------

    def request_refresh(
        self, root: RootState, paths: set[str] | None = None, *, delay: float = DEBOUNCE, facts: bool = False
    ) -> None:
        plan = root.schedule
        if paths:
            plan.pending |= paths
            if any(touches_facts(root.facts, path) for path in paths):
                plan.pending_facts = True
        if facts:
            plan.pending_facts = True
        loop = asyncio.get_running_loop()
        now = loop.time()
        if delay > 0 and len(plan.pending) >= BURST_PATHS:
            delay = max(delay, BURST_DEBOUNCE)
        if delay <= 0:
            self._cancel_timer(root)
            self._start(root)
            return
        if plan.first_pending_at is None:
            plan.first_pending_at = now
        due = min(now + delay, plan.first_pending_at + MAX_WAIT)
        if plan.timer is not None:
            if abs(plan.timer.when() - due) < 0.01:
                return
            plan.timer.cancel()
        plan.timer = loop.call_at(due, self._start, root)

    def _cancel_timer(self, root: RootState) -> None:
        if root.schedule.timer is not None:
            root.schedule.timer.cancel()
            root.schedule.timer = None

    def _start(self, root: RootState) -> None:
        plan = root.schedule
        plan.timer = None
        plan.first_pending_at = None
        plan.requested = True
        if plan.worker is None or plan.worker.done():
            plan.worker = asyncio.ensure_future(self._work(root))

    async def _work(self, root: RootState) -> None:
        while root.schedule.requested:
            root.schedule.requested = False
            try:
                await self.refresh(root)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.exception("refresh of %s", root.path)
                self.server.log(types.MessageType.Error, f"freshpass: refreshing {root.path} failed: {exc!r}")
            finally:
                root.refreshed.set()  # providers waiting for a first answer get one, even a degraded one

    async def settle(self, root: RootState) -> None:
        """Wait until no refresh of `root` is scheduled or running (used before answering from memory)."""
        while root.schedule.worker is not None and not root.schedule.worker.done():
            await asyncio.shield(root.schedule.worker)

    async def refresh_now(self, root: RootState) -> None:
        """Refresh at once and return when the root's status reflects it."""
        self.request_refresh(root, delay=0)
        await self.settle(root)

    def cancel(self, root: RootState) -> None:
        self._cancel_timer(root)
        if root.schedule.worker is not None:
            root.schedule.worker.cancel()

    # ---- what others saw: the only writes to a root's state outside a refresh --------------------------------------

    def opened(self, document: DocumentRef) -> None:
        """didOpen: remember the file's size and mtime, so a later didChange can tell whether the disk moved."""
        stat = disk_stat(document.path)
        if stat is not None:
            document.root.disk_stat.setdefault(document.relative, stat)

    def disk_moved(self, document: DocumentRef) -> bool:
        """Has the file changed on disk since the root last looked at it (an agent's write before its didChange)?"""
        return disk_stat(document.path) != document.root.disk_stat.get(document.relative)

    def answered_early(self, root: RootState, relative: str, uncovered: set[str]) -> None:
        """A fast answer (server/fastpath.py) decided that `relative` changed and which files are uncovered now; the
        refresh that follows confirms the change without counting it twice."""
        root.touched.add(relative)
        root.change_count += 1
        root.answered_early += 1
        root.latest_change = time.time()
        root.early_uncovered = uncovered

    def late_facts(self, root: RootState, facts: ProjectFacts) -> None:
        root.facts = facts
        self.request_refresh(root, delay=0)

    @staticmethod
    def _set_status(root: RootState, status: Status) -> bool:
        changed = status != root.status or not root.status_known
        if changed:
            # A fresh failure covers what was uncovered with a failing run: those files stay uncovered until a pass.
            state = status.status
            root.failed_paths = (
                set()
                if state == "passed" or (state == "flaky" and status.flaky_counts)
                else root.stale_paths()
                if state in ("failed", "flaky")
                else root.failed_paths
            )
        root.status, root.status_known = status, True
        return changed

    # ---- the refresh ---------------------------------------------------------------------------------------------

    async def refresh(self, root: RootState, *, resnapshot: bool = True) -> Refresh:
        server = self.server
        backend = server.backend
        plan = root.schedule
        touched, plan.pending = frozenset(plan.pending), set()
        if root.facts is None or plan.pending_facts:
            wanted_again = plan.pending_facts
            plan.pending_facts = False
            facts = await backend.facts(root.path)
            if facts is not None:
                root.facts = facts
            else:  # detection is slow: go on without it; its result arrives through `Backend.on_late_facts`
                plan.pending_facts = wanted_again  # a change seen meanwhile is detected after the running one
                if root.facts is None:
                    root.facts = ProjectFacts(root=str(root.path))
        # An untrusted workspace starts no process: content ids are computed in Python, and a git root whose id only
        # git could compute has none (its freshness is not checked).
        processes = server.trusted
        content_changed = False
        if resnapshot or root.snapshot is None:
            last_try = plan.snapshot_failures >= SNAPSHOT_RETRIES
            try:
                snap = await backend.snapshot(root.path, root.facts, quiet=not last_try, processes=processes)
            except NeedsGit as exc:
                backend.say_once(types.MessageType.Info, f"freshpass: freshness is not checked: {exc}")
                return await self._refresh_unchecked(root, touched)
            if snap is None and not last_try:
                plan.snapshot_failures += 1
                plan.pending |= touched
                self.request_refresh(root, delay=SNAPSHOT_RETRY_DELAY)
                return Refresh(content_changed=False, status_changed=False, touched=frozenset())
            plan.snapshot_failures = 0
            if snap is not None:
                previous = root.snapshot
                content_changed = previous is None or previous.content_id != snap.content_id
                if root.baseline is None:
                    root.baseline = snap
                if previous is not None and content_changed:
                    if root.answered_early:  # a fast answer already counted this change
                        root.answered_early = 0
                    else:
                        root.latest_change = time.time()
                        root.change_count += 1
                root.snapshot = snap
        for path in touched:
            stat = disk_stat(root.path / path)
            if stat is None:
                root.disk_stat.pop(path, None)
            else:
                root.disk_stat[path] = stat
        # Every reported path is a candidate; only those whose content differs from the receipt get a diagnostic,
        # so a save that changed nothing shows nothing.
        root.touched |= touched
        status = await backend.status(
            root.path, root.facts, root.snapshot, server.shared_options(), processes=processes
        )
        if content_changed and not status.has_evidence and root.baseline is not None and root.snapshot is not None:
            root.session_changed = await backend.unverified_changes(
                root.path, root.baseline, root.snapshot, root.facts, processes=processes
            )
        status_changed = self._set_status(root, status)
        root.early_uncovered = None
        refresh = Refresh(content_changed=content_changed, status_changed=status_changed, touched=touched)
        root.refreshed.set()
        await server.fan_out("on_root_refreshed", root, refresh)
        if status_changed:
            server.protocol.notify("freshpass/statusChanged", status.to_json())
        return refresh

    async def _refresh_unchecked(self, root: RootState, touched: frozenset[str]) -> Refresh:
        """A git root in an untrusted workspace whose content id only git could compute (`NeedsGit`): no process
        runs, so there is none, and freshness is not checked (`unchecked_status`); nothing is uncovered, so no
        diagnostic accuses and no lens says stale."""
        server = self.server
        root.snapshot = root.baseline = None
        root.session_changed, root.failed_paths, root.early_uncovered = [], set(), None
        root.touched |= touched
        status = await server.backend.unchecked_status(root.path, root.facts)
        status_changed = self._set_status(root, status)
        refresh = Refresh(content_changed=False, status_changed=status_changed, touched=touched)
        root.refreshed.set()
        await server.fan_out("on_root_refreshed", root, refresh)
        if status_changed:
            server.protocol.notify("freshpass/statusChanged", status.to_json())
        return refresh
