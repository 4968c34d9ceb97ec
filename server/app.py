"""The freshpass language server: a factory builds it; one handler per LSP method fans out to feature modules.

`create_server()` builds a new server (there is no import-time singleton: tests and `--tcp` get fresh state). The
server itself only holds its parts together, each with one job:

- `handlers` (server/handlers.py): the one handler per LSP method; it resolves the document and root once;
- `lifecycle` (server/lifecycle.py): initialize, initialized, shutdown, exit and signals;
- `client` / `configuration` (server/client.py): who the client is, and the settings from every source;
- `roots` (server/roots.py): workspace folders and packages, and which root holds a path;
- `documents` (server/documents.py): a URI resolved to its root, buffer versus disk;
- `tracker` (server/tracking.py): from an edit to a root's recomputed content and status (it owns `RootState`);
- `backend` (server/backend.py): the one ledger connection and facts detection;
- `features` (server/feature.py): everything a user sees — diagnostics, lenses and hovers, verify runs, live
  status, sharing and the agents' `freshpass/checkDone`.

Ground rules: a feature's failure is logged to the client (window/logMessage) and never shown as a popup; files
outside every root and non-`file:` URIs are ignored; the ledger is one connection owned by the server and closed on
shutdown/exit; nothing is ever printed (stdout is the protocol).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from freshpass import __version__
from freshpass.ledger.shared import SharedOptions
from freshpass.server.backend import Backend
from freshpass.server.client import ClientOptions, Configuration
from freshpass.server.documents import Documents
from freshpass.server.feature import Feature
from freshpass.server.handlers import register_handlers
from freshpass.server.lifecycle import Lifecycle
from freshpass.server.roots import Roots
from freshpass.server.settings import Settings
from freshpass.server.state import DocumentRef, RootState
from freshpass.server.tracking import Tracker
from freshpass.server.watcher import Watcher
from freshpass.server.wire import plain
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)

CLIENT_REFRESH_TIMEOUT = 30.0  # seconds a client may take to acknowledge a refresh request


class FreshpassServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("freshpass", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.client = ClientOptions()
        self.configuration = Configuration(self.log)
        self.lifecycle = Lifecycle(self)
        self.roots = Roots(self)
        self.documents = Documents(self)
        self.backend = Backend(self.log)
        self.backend.on_late_facts = self.roots.on_late_facts
        self.tracker = Tracker(self)
        self.features: list[Feature] = []
        self.watcher: Watcher | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        # Server → client refresh requests in flight, by method: [sending, asked again meanwhile].
        self._client_refreshes: dict[str, list[bool]] = {}
        self._background: set[asyncio.Future[Any]] = set()
        self.exit_code = 1  # LSP: exit without a prior shutdown request is an error exit

    def shutdown(self) -> None:
        """Stop the transport without joining pygls' worker threads: one of them is blocked reading stdin, which
        the client keeps open after `exit`, and joining it would keep the process alive until the client gives up."""
        pool, self._thread_pool = self._thread_pool, None
        super().shutdown()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    # ---- what features read --------------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self.configuration.settings

    @property
    def session_id(self) -> str:
        return self.client.session_id

    @property
    def is_agent(self) -> bool:
        return self.client.is_agent

    @property
    def trusted(self) -> bool:
        return self.client.trusted

    @property
    def python_interpreter(self) -> str | None:
        return self.client.python_interpreter

    @property
    def shut_down(self) -> bool:
        return self.lifecycle.shut_down

    def shared_options(self) -> SharedOptions:
        """How statuses treat shared receipts here: the `shared.*` settings, and never counted when untrusted."""
        return SharedOptions(self.settings.trust, workspace_trusted=self.trusted)

    def capability(self, dotted: str, default: Any = False) -> Any:
        from pygls.capabilities import get_capability

        try:
            return get_capability(self.client_capabilities, dotted, default)
        except Exception:
            return default

    async def wait_ready(self) -> None:
        await self.lifecycle.wait_ready()

    def find_root(self, *, root: Any = None, uri: Any = None) -> RootState | None:
        return self.roots.find(root=root, uri=uri)

    async def resolve_root(self, *, root: Any = None, uri: Any = None) -> RootState | None:
        return await self.roots.resolve(root=root, uri=uri)

    def root_for_path(self, path: Path) -> RootState | None:
        return self.roots.for_path(path)

    def root_for_uri(self, uri: str) -> RootState | None:
        return self.roots.for_uri(uri)

    def document(self, uri: str) -> DocumentRef | None:
        return self.documents.get(uri)

    def open_documents(self, root: RootState) -> list[DocumentRef]:
        return self.documents.open_in(root)

    def line_zero_range(self, document: DocumentRef) -> types.Range:
        return self.documents.line_zero_range(document)

    # ---- logging: the client's log, never a popup for something recoverable --------------------------------------

    def log(self, level: types.MessageType, message: str) -> None:
        logger.log(logging.WARNING if level <= types.MessageType.Warning else logging.INFO, "%s", message)
        try:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # no transport yet (unit tests) or the client is gone
            logger.debug("cannot send a log message", exc_info=True)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls would show a popup; a failing handler is a log line. A request's deliberate error (bad params, no
        # such root) already went back to the caller and is not an internal error.
        if isinstance(error, JsonRpcException) and error.code != JsonRpcInternalError.CODE:
            return
        if self.shut_down:  # late answers to requests cancelled by shutdown: nothing anyone can act on
            logger.debug("after shutdown: %s", error)
            return
        self.log(types.MessageType.Error, f"freshpass: internal error ({source.__name__}): {error}")

    # ---- feature fan-out -----------------------------------------------------------------------------------------

    async def fan_out(self, hook: str, *args: Any) -> None:
        for feature in self.features:
            try:
                await getattr(feature, hook)(*args)
            except Exception as exc:
                logger.exception("%s.%s", feature.name, hook)
                self.log(types.MessageType.Error, f"freshpass: {feature.name} failed in {hook}: {exc!r}")

    def collect(self, hook: str, *args: Any) -> list[Any]:
        """Every feature's answer to a provider hook, concatenated (a single non-list answer counts as one item)."""
        results: list[Any] = []
        for feature in self.features:
            try:
                answer = getattr(feature, hook)(*args)
                if isinstance(answer, list):
                    results.extend(answer)
                elif answer is not None:
                    results.append(answer)
            except Exception as exc:
                logger.exception("%s.%s", feature.name, hook)
                self.log(types.MessageType.Error, f"freshpass: {feature.name} failed in {hook}: {exc!r}")
        return results

    # ---- settings ------------------------------------------------------------------------------------------------

    async def pull_configuration(self) -> bool:
        ask = self.workspace_configuration_async if self.capability("workspace.configuration") else None
        return await self.configuration.pull(ask)

    async def settings_changed(self) -> None:
        await self.fan_out("on_settings_changed")
        for root in self.roots.values():
            self.tracker.request_refresh(root, delay=0, facts=True)

    # ---- background work and requests to the client --------------------------------------------------------------

    def background(self, work: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def cancel_background(self) -> None:
        for task in list(self._background):
            task.cancel()

    def ask_client_to_refresh(self, method: str, send: Callable[[], Awaitable[Any]]) -> None:
        """Send a server → client refresh request (`workspace/codeLens/refresh`, `workspace/diagnostic/refresh`)
        without waiting for the answer: a slow or silent client must never hold up the refresh pipeline that
        publishes everything else. At most one per method is in flight; asks meanwhile become one more send."""
        state = self._client_refreshes.setdefault(method, [False, False])
        if state[0]:
            state[1] = True
            return
        state[0] = True

        async def sending() -> None:
            try:
                while True:
                    state[1] = False
                    try:
                        await asyncio.wait_for(send(), timeout=CLIENT_REFRESH_TIMEOUT)
                    except Exception as exc:  # the client's problem, not a reason to stop serving
                        self.log(types.MessageType.Log, f"freshpass: {method} failed: {exc!r}")
                    if not state[1] or self.shut_down:
                        return
            finally:
                state[0] = False

        self.background(sending())

    async def refresh_code_lenses(self) -> None:
        if self.capability("workspace.code_lens.refresh_support"):
            self.ask_client_to_refresh(
                types.WORKSPACE_CODE_LENS_REFRESH, lambda: self.workspace_code_lens_refresh_async(None)
            )


def _register_features(server: FreshpassServer, feature_classes: Iterable[type[Feature]]) -> None:
    for feature_class in feature_classes:
        feature = feature_class(server)
        server.features.append(feature)
        for name, command in feature.commands().items():
            server.command(name)(_wrap_command(server, feature, name, command))
        for method, handler in feature.requests().items():
            server.feature(method)(_wrap_request(server, handler))


def _wrap_command(server: FreshpassServer, feature: Feature, name: str, command: Any) -> Any:
    async def run(*arguments: Any) -> Any:
        await server.wait_ready()
        return await command(*[plain(argument) for argument in arguments])

    run.__name__ = f"{feature.name}_{name.replace('.', '_')}"
    return run


def _wrap_request(server: FreshpassServer, handler: Any) -> Any:
    async def answer(params: Any) -> Any:
        await server.wait_ready()
        return await handler(plain(params))

    return answer


def default_feature_classes() -> list[type[Feature]]:
    from freshpass.server.agents import AgentsFeature
    from freshpass.server.diagnostics import DiagnosticsFeature
    from freshpass.server.lenses import LensFeature
    from freshpass.server.live import LiveStatusFeature
    from freshpass.server.sharing import SharingFeature
    from freshpass.server.verify import VerifyFeature

    return [DiagnosticsFeature, LensFeature, VerifyFeature, LiveStatusFeature, SharingFeature, AgentsFeature]


def create_server(feature_classes: Iterable[type[Feature]] | None = None) -> FreshpassServer:
    """A new server with every feature registered; start it with `start_io()` or `start_tcp()`."""
    server = FreshpassServer()
    register_handlers(server)
    _register_features(server, default_feature_classes() if feature_classes is None else feature_classes)
    return server
