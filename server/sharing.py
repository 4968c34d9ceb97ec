"""Shared receipts in the language server (design §4.6): fetched when the user turned it on, watched as they move.

- **Fetching**: with `shared.fetch` on, the shared receipts are fetched from `shared.remote` when a workspace folder
  opens and when the setting is turned on — in a trusted workspace only, off the event loop, one fetch per
  repository at a time. A failure is said once in the log; the status goes on with what is there.
- **Watching**: `refs/notes/freshpass` moves when a terminal runs `git fetch` (with the fetch refspec of
  docs/sharing.md) or `freshpass share`, and the server's own file watcher never looks inside `.git`. Its files
  (the loose ref and `packed-refs`) are polled by their stat data, which costs no git process; when they change,
  the roots of that repository are refreshed, and their statuses list what arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.ledger.git import GitError, Repository, find_remote, find_repository
from freshpass.ledger.notes import NOTES_REF, fetch
from freshpass.server.feature import Feature
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer
    from freshpass.server.state import RootState

logger = logging.getLogger(__name__)

POLL_INTERVAL = 1.0  # seconds between two looks at the notes ref's files
Stamp = tuple[tuple[int, int, int] | None, ...]


def ref_stamp(repository: Repository) -> Stamp:
    """The stat data of the files the notes ref is read from: changes whenever the ref moves."""
    stamps: list[tuple[int, int, int] | None] = []
    for path in (repository.common_dir / NOTES_REF, repository.common_dir / "packed-refs"):
        try:
            info = os.stat(path)
        except OSError:
            stamps.append(None)
            continue
        stamps.append((info.st_mtime_ns, info.st_size, info.st_ino))
    return tuple(stamps)


class SharingFeature(Feature):
    name = "sharing"

    def __init__(self, server: FreshpassServer) -> None:
        super().__init__(server)
        self._task: asyncio.Task[None] | None = None
        self._repositories: dict[Path, Repository | None] = {}
        self._stamps: dict[Path, Stamp] = {}
        self._fetching: dict[Path, asyncio.Task[None]] = {}
        self._fetch_was_on = False

    def _repository(self, root: RootState) -> Repository | None:
        if root.path not in self._repositories:
            self._repositories[root.path] = find_repository(root.path)
        return self._repositories[root.path]

    # ---- lifecycle -----------------------------------------------------------------------------------------------

    async def on_initialized(self) -> None:
        self._fetch_was_on = self.server.settings.shared_fetch
        self._task = asyncio.ensure_future(self._poll())

    async def on_root_added(self, root: RootState) -> None:
        repository = await asyncio.to_thread(self._repository, root)
        if repository is not None:
            self._stamps[root.path] = await asyncio.to_thread(ref_stamp, repository)
            self._maybe_fetch(root)

    async def on_root_removed(self, root: RootState) -> None:
        self._repositories.pop(root.path, None)
        self._stamps.pop(root.path, None)

    async def on_settings_changed(self) -> None:
        turned_on = self.server.settings.shared_fetch and not self._fetch_was_on
        self._fetch_was_on = self.server.settings.shared_fetch
        if turned_on:
            for root in list(self.server.roots.values()):
                self._maybe_fetch(root)

    async def on_shutdown(self) -> None:
        tasks = [task for task in (self._task, *self._fetching.values()) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._task = None
        self._fetching.clear()

    # ---- fetching ------------------------------------------------------------------------------------------------

    def _maybe_fetch(self, root: RootState) -> None:
        """Fetch the root's shared receipts when the user turned it on and the workspace is trusted."""
        server = self.server
        repository = self._repositories.get(root.path)
        if not server.settings.shared_fetch or not server.trusted or repository is None:
            return
        running = self._fetching.get(repository.common_dir)
        if running is not None and not running.done():
            return
        self._fetching[repository.common_dir] = asyncio.ensure_future(self._fetch(repository))

    async def _fetch(self, repository: Repository) -> None:
        remote_name = self.server.settings.shared_remote
        try:
            remote = find_remote(repository, remote_name)
            moved = await asyncio.to_thread(fetch, repository, remote)
        except GitError as exc:
            self.server.backend.say_once(
                types.MessageType.Warning, f"freshpass: cannot fetch shared receipts from {remote_name}: {exc}"
            )
            return
        if moved.after != moved.before:
            self.server.log(types.MessageType.Info, f"freshpass: fetched shared receipts from {remote_name}")
            self._refresh_repository(repository)

    # ---- watching ------------------------------------------------------------------------------------------------

    def _refresh_repository(self, repository: Repository) -> None:
        for root in list(self.server.roots.values()):
            if self._repositories.get(root.path) == repository:
                self._stamps[root.path] = ref_stamp(repository)
                if root.refreshed.is_set():
                    self.server.tracker.request_refresh(root, delay=0)

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_INTERVAL)  # a periodic look: git offers no event when a ref moves
            try:
                moved = [
                    (root, repository)
                    for root in list(self.server.roots.values())
                    if (repository := self._repositories.get(root.path)) is not None
                    and ref_stamp(repository) != self._stamps.get(root.path)
                ]
            except Exception:  # keep watching: a transient failure must not end it for good
                logger.exception("watching %s", NOTES_REF)
                continue
            for root, repository in moved:
                self._stamps[root.path] = ref_stamp(repository)
                if root.refreshed.is_set():
                    self.server.tracker.request_refresh(root, delay=0)
