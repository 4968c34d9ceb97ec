"""One handler per LSP method. Each resolves the document and its root once, then fans out to the features.

The handlers own no state: roots are `server.roots`', documents `server.documents`', edits go to the tracker, and
every behaviour a user sees is a `Feature`'s (server/feature.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from freshpass.server.state import RootState
from freshpass.server.tracking import DEBOUNCE
from freshpass.server.wire import LSP_REQUEST_FAILED, plain, uri_to_path
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

logger = logging.getLogger(__name__)


def register_handlers(server: FreshpassServer) -> None:
    @server.feature(types.INITIALIZE)
    async def on_initialize(ls: FreshpassServer, params: types.InitializeParams) -> None:
        await ls.lifecycle.initialize(params)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: FreshpassServer, params: types.InitializedParams) -> None:
        try:
            await ls.lifecycle.initialized()
        except Exception as exc:
            logger.exception("initialized")
            ls.log(types.MessageType.Error, f"freshpass: startup failed: {exc!r}")

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: FreshpassServer, params: None) -> None:
        ls.exit_code = 0
        await ls.lifecycle.shutdown_all()
        ls.lifecycle.cancel_pending_requests()

    @server.feature(types.EXIT)
    async def on_exit(ls: FreshpassServer, params: None) -> None:
        await ls.lifecycle.shutdown_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def on_folders(ls: FreshpassServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        await ls.wait_ready()
        with ls.lifecycle.changing_folders():
            try:
                for folder in params.event.removed:
                    path = uri_to_path(folder.uri)
                    if path is not None:
                        await ls.roots.remove_folder(path)
                for folder in params.event.added:
                    path = uri_to_path(folder.uri)
                    if path is not None:
                        await ls.roots.add_folder(path)
            except Exception as exc:
                logger.exception("didChangeWorkspaceFolders")
                ls.log(types.MessageType.Error, f"freshpass: workspace folder change failed: {exc!r}")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: FreshpassServer, params: types.DidChangeConfigurationParams) -> None:
        await ls.wait_ready()
        try:
            changed = False
            settings = plain(params.settings)
            if isinstance(settings, Mapping) and isinstance(settings.get("freshpass"), Mapping):
                changed = ls.configuration.apply(settings["freshpass"], "didChangeConfiguration")
            # Clients that use the pull model send an empty payload and expect us to ask.
            changed = await ls.pull_configuration() or changed
            if changed:
                await ls.settings_changed()
        except Exception as exc:
            logger.exception("didChangeConfiguration")
            ls.log(types.MessageType.Error, f"freshpass: reading settings failed: {exc!r}")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def on_open(ls: FreshpassServer, params: types.DidOpenTextDocumentParams) -> None:
        await ls.wait_ready()
        await ls.roots.enter(params.text_document.uri)
        document = ls.document(params.text_document.uri)
        if document is None:
            return
        ls.tracker.opened(document)
        await ls.fan_out("on_document_changed", document)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def on_change(ls: FreshpassServer, params: types.DidChangeTextDocumentParams) -> None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None:
            return
        # Agents write the file and then send didChange without didSave: if the disk moved, the content did.
        if ls.tracker.disk_moved(document):
            for root, relative in ls.roots.holding(document.path):
                ls.tracker.request_refresh(root, {relative}, delay=DEBOUNCE)
        await ls.fan_out("on_document_changed", document)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def on_save(ls: FreshpassServer, params: types.DidSaveTextDocumentParams) -> None:
        await ls.wait_ready()
        await ls.roots.enter(params.text_document.uri)
        document = ls.document(params.text_document.uri)
        if document is None:
            return
        await ls.fan_out("on_document_saved", document)
        for root, relative in ls.roots.holding(document.path):
            ls.tracker.request_refresh(root, {relative}, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def on_close(ls: FreshpassServer, params: types.DidCloseTextDocumentParams) -> None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is not None:
            await ls.fan_out("on_document_changed", document)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def on_watched(ls: FreshpassServer, params: types.DidChangeWatchedFilesParams) -> None:
        await ls.wait_ready()
        for root, paths in _relative_paths(ls, (change.uri for change in params.changes)):
            ls.tracker.request_refresh(root, paths, delay=DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def on_code_lens(ls: FreshpassServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None or not ls.settings.code_lens_enabled:
            return None
        await settled(ls, document.root)
        return ls.collect("code_lenses", document)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]),
    )
    async def on_code_action(
        ls: FreshpassServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command] | None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None:
            return None
        await settled(ls, document.root)
        return ls.collect("code_actions", document, params) or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: FreshpassServer, params: types.HoverParams) -> types.Hover | None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None:
            return None
        await settled(ls, document.root)
        parts = [part for part in ls.collect("hover", document, params) if part]
        if not parts:
            return None
        text = "\n\n".join(parts)
        formats = ls.capability("text_document.hover.content_format", []) or []
        kind = types.MarkupKind.Markdown if types.MarkupKind.Markdown in formats else types.MarkupKind.PlainText
        return types.Hover(contents=types.MarkupContent(kind=kind, value=text), range=ls.line_zero_range(document))

    @server.feature("freshpass/status")
    async def on_status(ls: FreshpassServer, params: Any) -> dict[str, Any]:
        await ls.wait_ready()
        args = plain(params) or {}
        if not isinstance(args, Mapping):
            raise JsonRpcInvalidParams("freshpass/status expects {uri} or {root}")
        root = await ls.resolve_root(root=args.get("root"), uri=args.get("uri"))
        if root is None:
            raise JsonRpcException(message="no freshpass root holds that uri/root", code=LSP_REQUEST_FAILED)
        await settled(ls, root)
        return root.status.to_json()


def _relative_paths(server: FreshpassServer, uris: Iterable[str]) -> list[tuple[RootState, set[str]]]:
    by_root: dict[int, tuple[RootState, set[str]]] = {}
    for uri in uris:
        path = uri_to_path(uri)
        for root, relative in [] if path is None else server.roots.holding(path):
            by_root.setdefault(id(root), (root, set()))[1].add(relative)
    return list(by_root.values())


async def settled(ls: FreshpassServer, root: RootState) -> None:
    """Lenses, actions, hovers and status requests describe the root's status: a root never refreshed waits for its
    first answer, and a refresh already running finishes (tens of ms) instead of answering from before the edit that
    triggered it."""
    if not root.refreshed.is_set():
        await root.refreshed.wait()
    await ls.tracker.settle(root)
