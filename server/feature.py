"""The feature-module pattern of the server.

The server registers exactly one handler per LSP method (server/app.py). Each handler resolves the document and its
root once, then fans out to every `Feature` in `server.features`, in order; a feature that raises is logged to the
client (window/logMessage) and skipped, the others still answer. A new capability is a new `Feature` subclass
added to the list in `create_server()` — it overrides the hooks it needs and may contribute workspace commands
(`commands()`) and custom requests (`requests()`), which the server registers once at creation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer
    from freshpass.server.state import DocumentRef, Refresh, RootState

Handler = Callable[..., Awaitable[Any]]


class Feature:
    """One slice of the server's behaviour. Every hook is optional; the defaults do nothing."""

    name = "feature"

    def __init__(self, server: FreshpassServer) -> None:
        self.server = server

    # ---- registrations (read once by the factory) ----------------------------------------------------------------

    def commands(self) -> dict[str, Handler]:
        """`workspace/executeCommand` ids → `async def handler(*arguments)`."""
        return {}

    def requests(self) -> dict[str, Handler]:
        """Custom request methods (e.g. `freshpass/status`) → `async def handler(params)`."""
        return {}

    # ---- lifecycle -----------------------------------------------------------------------------------------------

    async def on_initialize(self, params: types.InitializeParams) -> None:
        """Before the server's capabilities are computed: the place to add capability-dependent features."""

    async def on_initialized(self) -> None:
        """The client is ready for server → client requests (registrations, configuration)."""

    async def on_shutdown(self) -> None:
        """Stop background work; the ledger is closed after every feature's shutdown."""

    async def on_settings_changed(self) -> None: ...

    # ---- roots and documents -------------------------------------------------------------------------------------

    async def on_root_added(self, root: RootState) -> None: ...

    async def on_root_removed(self, root: RootState) -> None: ...

    async def on_root_refreshed(self, root: RootState, refresh: Refresh) -> None:
        """The root's content and status were recomputed (`refresh` says what changed)."""

    async def on_document_saved(self, document: DocumentRef) -> None:
        """didSave, before the root's refresh is requested: a chance to answer from memory first."""

    async def on_document_changed(self, document: DocumentRef) -> None:
        """Opened, edited or closed: its unsaved state may have changed without the root's content changing."""

    # ---- providers: results of every feature are concatenated ---------------------------------------------------

    def code_lenses(self, document: DocumentRef) -> list[types.CodeLens]:
        return []

    def code_actions(
        self, document: DocumentRef, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        return []

    def hover(self, document: DocumentRef, params: types.HoverParams) -> str | None:
        """Markdown to show; the server joins the parts and adapts them to the client's content formats."""
        return None
