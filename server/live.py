"""Live status: notice receipts other processes record (a terminal's `freshpass run`, CI, another editor).

The ledger's `data_version()` changes whenever any process commits; it is answered from SQLite's memory without
I/O, so polling it every `POLL_INTERVAL` is cheap and bounds the delay to well under a second. When it moves,
every root's status is recomputed against the content the server already knows (the watcher keeps that current);
roots whose status changed send `freshpass/statusChanged` and update their diagnostics and lenses through the usual
refresh path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from freshpass.server.feature import Feature
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

logger = logging.getLogger(__name__)

POLL_INTERVAL = 0.3  # seconds


class LiveStatusFeature(Feature):
    name = "live-status"

    def __init__(self, server: FreshpassServer) -> None:
        super().__init__(server)
        self._task: asyncio.Task[None] | None = None
        self._version: int | None = None

    async def on_initialized(self) -> None:
        self._task = asyncio.ensure_future(self._poll())

    async def on_shutdown(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _poll(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(POLL_INTERVAL)  # a periodic poll: SQLite offers no cross-process change event
            try:
                version = await self.server.backend.data_version()
            except Exception as exc:  # keep polling: a transient failure must not end live status for good
                failures += 1
                if failures == 1:
                    self.server.log(types.MessageType.Warning, f"freshpass: watching the ledger failed: {exc!r}")
                continue
            failures = 0
            if version is None:
                continue
            if self._version is not None and version != self._version:
                for root in list(self.server.roots.values()):
                    if root.refreshed.is_set():
                        self.server.tracker.request_refresh(root, delay=0)
            self._version = version
