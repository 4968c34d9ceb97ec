"""The server's lifecycle: `initialize` → `initialized` (roots found, registrations made) → `shutdown`/`exit` or a
signal, and the gates that make every other handler wait for the roots.

SIGTERM, SIGHUP and SIGINT end the server the way `shutdown` + `exit` do: running verifies are cancelled and their
process groups torn down before the process leaves (the default action would leave them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.server.client import ClientOptions
from freshpass.server.watcher import Watcher
from freshpass.server.wire import uri_to_path
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

logger = logging.getLogger(__name__)

REGISTRATION_TIMEOUT = 5.0  # seconds a client may take to accept registrations before we stop waiting
SIGNAL_SHUTDOWN_TIMEOUT = 15.0  # seconds a signalled server spends tearing runs down before it leaves anyway


class Lifecycle:
    def __init__(self, server: FreshpassServer) -> None:
        self.server = server
        self.shut_down = False
        self._signalled = False
        self._ready: asyncio.Event | None = None
        self._folders_settled = asyncio.Event()
        self._folders_settled.set()

    # ---- gates ---------------------------------------------------------------------------------------------------

    async def wait_ready(self) -> None:
        """Handlers wait until `initialized` has found the roots, and until a workspace-folder change is applied: a
        didOpen or a request racing them must not find its file rootless."""
        if self._ready is None:
            self._ready = asyncio.Event()
        await self._ready.wait()
        await self._folders_settled.wait()

    def _set_ready(self) -> None:
        if self._ready is None:
            self._ready = asyncio.Event()
        self._ready.set()

    @contextlib.contextmanager
    def changing_folders(self) -> Iterator[None]:
        """Closed before the first suspension, so messages that arrived after a folder change wait for its roots."""
        self._folders_settled.clear()
        try:
            yield
        finally:
            self._folders_settled.set()

    # ---- start ---------------------------------------------------------------------------------------------------

    async def initialize(self, params: types.InitializeParams) -> None:
        server = self.server
        server.loop = asyncio.get_running_loop()
        self._install_signal_handlers()
        server.client = ClientOptions.read(params, server.log)
        server.configuration.apply(server.client.settings, "initializationOptions")
        server.watcher = Watcher(
            server.roots.on_watcher_change, lambda message: server.log(types.MessageType.Warning, message)
        )
        await server.fan_out("on_initialize", params)

    async def initialized(self) -> None:
        server = self.server
        try:
            if await server.pull_configuration():
                await server.fan_out("on_settings_changed")
            await server.fan_out("on_initialized")
            await server.backend.open()
            for folder in self._initial_folders():
                await server.roots.add_folder(folder)
            await self._register_dynamic_capabilities()
        finally:
            self._set_ready()
        if not server.roots:
            server.log(types.MessageType.Info, "freshpass: no workspace folder is a project; nothing to watch")

    def _initial_folders(self) -> list[Path]:
        workspace = self.server.workspace
        folders: list[Path] = []
        for folder in workspace.folders.values():
            path = uri_to_path(folder.uri)
            if path is not None:
                folders.append(path)
        if not folders and workspace.root_uri:
            path = uri_to_path(workspace.root_uri)
            if path is not None:
                folders.append(path)
        return folders

    async def _register_dynamic_capabilities(self) -> None:
        """Editors' own file events (VS Code) and configuration pushes, for clients that take registrations.

        The editor's watcher sees changes made in the editor and by its extensions; the server's own watcher covers
        everything else, so clients without dynamic registration (Neovim 0.11) lose nothing.
        """
        server = self.server
        registrations: list[types.Registration] = []
        if server.capability("workspace.did_change_watched_files.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id="freshpass-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                    ),
                )
            )
        if server.capability("workspace.did_change_configuration.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id="freshpass-configuration",
                    method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                    register_options=types.DidChangeConfigurationRegistrationOptions(section="freshpass"),
                )
            )
        if not registrations:
            return
        try:
            await asyncio.wait_for(
                server.client_register_capability_async(types.RegistrationParams(registrations=registrations)),
                REGISTRATION_TIMEOUT,
            )
        except Exception as exc:
            server.log(types.MessageType.Info, f"freshpass: the client refused registrations: {exc}")

    # ---- end -----------------------------------------------------------------------------------------------------

    def _install_signal_handlers(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, self._on_signal, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread (tests), or no signals
                return

    def _on_signal(self, signum: int) -> None:
        if self._signalled:
            return
        self._signalled = True
        logger.warning("freshpass: signal %d: stopping", signum)
        self.server.background(self._leave(signum))

    async def _leave(self, signum: int) -> None:
        try:
            await asyncio.wait_for(self.shutdown_all(), SIGNAL_SHUTDOWN_TIMEOUT)
        except BaseException:
            logger.exception("shutting down after signal %d", signum)
        finally:
            logging.shutdown()
            os._exit(128 + signum)

    async def shutdown_all(self) -> None:
        if self.shut_down:
            return
        self.shut_down = True
        server = self.server
        await server.fan_out("on_shutdown")
        for root in server.roots.values():
            server.tracker.cancel(root)
        server.cancel_background()
        if server.watcher is not None:
            await asyncio.to_thread(server.watcher.stop)
        await server.backend.close()

    def cancel_pending_requests(self) -> None:
        """Cancel in-flight requests before pygls does.

        pygls 2.1.1's shutdown cancels them while iterating `_request_futures`, and each cancellation's callback
        removes its entry from that very dict ("dictionary changed size during iteration", an error answer to
        `shutdown`). Cancelling them here, over a copy, leaves pygls nothing to cancel.
        """
        protocol = self.server.protocol
        current = protocol.msg_id
        this_task = asyncio.current_task()
        for msg_id, future in list(protocol._request_futures.items()):
            if msg_id != current and future is not this_task and not future.done():
                future.cancel()
