"""Diagnostics: one consolidated `freshpass` diagnostic on line 0 of each file no receipt covers.

Which files: every file of the root that was edited in this session (saved or changed through the editor, or
written by anyone else as the watcher saw) or is open now, **and** whose content differs from what the newest
receipt ran against (`changed_paths` of the status; with no receipt at all, what changed since the server first
looked at the root). An open buffer whose text differs from its file also gets one: its unsaved changes are not
covered by anything. Files nobody touched are left alone even when stale — a branch switch marks exactly the files
it rewrote, not the whole repository.

Delivery: clients that declare `workspace.diagnostics.refreshSupport` pull (`textDocument/diagnostic`, answered
from memory) and are told to re-pull after every change; all other clients get `textDocument/publishDiagnostics`.
Only one of the two is used per client so that no editor shows the same diagnostic twice. A publish happens only
when a file's diagnostic actually changes: a save that changes nothing sends nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.evidence.agents import run_line
from freshpass.evidence.status import UNCHECKED
from freshpass.facts.files import DOCUMENT_LIMIT, read_regular
from freshpass.server import present
from freshpass.server.fastpath import BlobLookup, git_blob_id, tree_of
from freshpass.server.feature import Feature
from freshpass.server.state import DocumentRef, Refresh, RootState
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

SOURCE = "freshpass"


class DiagnosticsFeature(Feature):
    name = "diagnostics"

    def __init__(self, server: FreshpassServer) -> None:
        super().__init__(server)
        self.pull = False
        self.current: dict[str, types.Diagnostic] = {}  # uri -> its one diagnostic
        self._lookups: dict[str, BlobLookup] = {}  # git toplevel -> its cat-file process

    async def on_initialize(self, params: types.InitializeParams) -> None:
        self.pull = bool(self.server.capability("workspace.diagnostics.refresh_support"))
        if self.pull:

            async def pull(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
                # pygls sets attributes on the handler it registers, which a bound method cannot take.
                return await self.pull_diagnostics(params)

            self.server.feature(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False),
            )(pull)

    # ---- computing -----------------------------------------------------------------------------------------------

    def diagnostic_for(self, document: DocumentRef, stale: set[str] | None = None) -> types.Diagnostic | None:
        root = document.root
        if root.status.status == UNCHECKED:
            return None  # freshness is not checked (an untrusted workspace's git root): nothing to accuse
        if self.server.settings.hides(document.relative):
            return None  # the editor hides it (`freshpass.ignore`, `ignoreProse`); content ids stay the project's
        stale = root.stale_paths() if stale is None else stale
        disk_stale = document.relative in stale and (document.relative in root.touched or document.text is not None)
        if not disk_stale and not document.unsaved:
            return None
        command = root.primary_command()
        to_run = command.command if command else None
        if command is not None and self.server.is_agent:
            # An agent's bare `pytest` leaves no receipt; through `freshpass run` it does, and checkDone sees it.
            to_run = run_line(command.command, command.cwd)
        message = present.stale_message(
            document.relative,
            root.status,
            command=to_run,
            changed_count=len(stale),
            # People read the same text until something they read changes (one publish per save); agents that
            # drop repeated texts need each edit to differ (design §7.1).
            change_number=root.change_count if self.server.is_agent else 0,
            unsaved=document.unsaved,
            disk_stale=disk_stale,
        )
        return types.Diagnostic(
            range=self.server.line_zero_range(document),
            message=message,
            severity=self.server.settings.severity_for(agent=self.server.is_agent),
            source=SOURCE,
            code=("failed" if root.status.status == "failed" else "stale") if disk_stale else "unsaved",
            data={"root": str(root.path), "command": command.command if command else None},
        )

    def _candidates(self, root: RootState) -> dict[str, DocumentRef]:
        documents = {document.uri: document for document in self.server.open_documents(root)}
        for relative in root.touched:
            uri = (root.path / relative).as_uri()
            if uri not in documents:
                document = self.server.document(uri)
                if document is not None and document.root is root:  # a package's file: the package says
                    documents[uri] = document
        return documents

    # ---- publishing ----------------------------------------------------------------------------------------------

    def _set(self, uri: str, diagnostic: types.Diagnostic | None) -> bool:
        previous = self.current.get(uri)
        if diagnostic is None:
            if previous is None:
                return False
            del self.current[uri]
        else:
            if previous is not None and (previous.message, previous.severity, previous.range) == (
                diagnostic.message,
                diagnostic.severity,
                diagnostic.range,
            ):
                return False
            self.current[uri] = diagnostic
        if not self.pull:
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[diagnostic] if diagnostic else [])
            )
        return True

    async def _tell_pull_clients(self, changed: bool) -> None:
        if changed and self.pull:
            self.server.ask_client_to_refresh(
                types.WORKSPACE_DIAGNOSTIC_REFRESH, lambda: self.server.workspace_diagnostic_refresh_async(None)
            )

    async def update_root(self, root: RootState) -> None:
        stale = root.stale_paths()
        wanted = {uri: self.diagnostic_for(document, stale) for uri, document in self._candidates(root).items()}
        changed = False
        for uri in [uri for uri in self.current if uri.startswith(root.uri_prefix) and uri not in wanted]:
            if self.server.root_for_uri(uri) is root:
                changed |= self._set(uri, None)
        for uri, diagnostic in wanted.items():
            changed |= self._set(uri, diagnostic)
        await self._tell_pull_clients(changed)

    async def on_root_refreshed(self, root: RootState, refresh: Refresh) -> None:
        # Newly reported paths matter even when the content id did not move: an earlier snapshot may already have
        # included their change before their events arrived.
        if refresh.content_changed or refresh.status_changed or refresh.touched:
            await self.update_root(root)

    async def on_document_changed(self, document: DocumentRef) -> None:
        await self._tell_pull_clients(self._set(document.uri, self.diagnostic_for(document)))

    async def on_settings_changed(self) -> None:
        for root in list(self.server.roots.values()):
            await self.update_root(root)

    async def on_root_removed(self, root: RootState) -> None:
        changed = False
        for uri in [uri for uri in self.current if uri.startswith(root.uri_prefix)]:
            if self.server.root_for_uri(uri) is None:
                changed |= self._set(uri, None)
        await self._tell_pull_clients(changed)

    # ---- the fast answer to a save (server/fastpath.py) ------------------------------------------------------------

    async def _reference_content_id(self, root: RootState) -> str | None:
        """The content stale-ness is measured against: the receipt's, or the server's first look without one."""
        if not root.status.has_evidence:
            return root.baseline.content_id if root.baseline is not None else None
        if root.status.status in ("passed", "failed", "flaky") and root.snapshot is not None:
            return root.snapshot.content_id  # fresh: the receipt ran against exactly the current content
        return root.status.evidence.content_id if root.status.evidence is not None else None

    async def on_document_saved(self, document: DocumentRef) -> None:
        root = document.root
        snap = root.snapshot
        if not self.server.trusted:
            return  # the fast answer asks git; an untrusted workspace runs nothing
        if snap is None or not snap.is_git or not snap.git_toplevel or (root.path / ".gitattributes").exists():
            return
        current_tree = tree_of(snap.content_id)
        reference_tree = tree_of(await self._reference_content_id(root))
        if current_tree is None or reference_tree is None:
            return
        try:
            blob = git_blob_id(read_regular(document.path, DOCUMENT_LIMIT))
        except OSError:  # gone, a FIFO or a device, or too big to hash here: the refresh decides
            return
        lookup = self._lookups.get(snap.git_toplevel)
        if lookup is None:
            lookup = self._lookups[snap.git_toplevel] = BlobLookup(Path(snap.git_toplevel))
        current = await lookup.blob(current_tree, document.relative)
        if current is None or current == blob:
            return  # unknown to the last snapshot (new, ignored) or unchanged: the refresh decides
        reference = current if reference_tree == current_tree else await lookup.blob(reference_tree, document.relative)
        stale = root.stale_paths()
        if reference == blob:
            stale.discard(document.relative)
        else:
            stale.add(document.relative)
        self.server.tracker.answered_early(root, document.relative, stale)
        await self._tell_pull_clients(self._set(document.uri, self.diagnostic_for(document, stale)))

    async def on_shutdown(self) -> None:
        for lookup in self._lookups.values():
            await lookup.shutdown()

    async def pull_diagnostics(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        """Answered from memory: the refresh that computed it already ran (or will ask the client to pull again)."""
        diagnostic = self.current.get(params.text_document.uri)
        return types.RelatedFullDocumentDiagnosticReport(items=[diagnostic] if diagnostic else [])
