"""Code lenses, code actions and the "why stale" hover at the top of every file under a root.

Lenses: the status (`✓ full · …`, `◐ targeted · …`, `✗ failed · …`, `⚠ unverified · …`) and `▶ Run <command>`; both
route a click to the server's own `freshpass.*` commands so Neovim and VS Code behave alike. Clients that support
`workspace/codeLens/refresh` are asked to re-fetch whenever a root's status or content changes.
"""

from __future__ import annotations

import logging

from freshpass.server import present
from freshpass.server.diagnostics import SOURCE
from freshpass.server.feature import Feature
from freshpass.server.state import DocumentRef, Refresh, RootState
from lsprotocol import types

logger = logging.getLogger(__name__)

ACTION_KIND = f"{types.CodeActionKind.Source.value}.freshpass"


def targeted_command(root: RootState, document: DocumentRef) -> str | None:
    """The obvious narrower check for this file (pytest on a test file, the test matching a source file)."""
    if root.facts is None:
        return None
    from freshpass.facts.targeted import targeted_command_for

    try:
        return targeted_command_for(document.path, root.path, root.facts)
    except Exception:  # classification promises None for the unknown; never let a bug cost the user a menu
        logger.exception("targeted_command_for(%s)", document.path)
        return None


class LensFeature(Feature):
    name = "lenses"

    def _zero(self) -> types.Range:
        return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))

    # ---- code lenses ---------------------------------------------------------------------------------------------

    def code_lenses(self, document: DocumentRef) -> list[types.CodeLens]:
        root = document.root
        status_lens = types.CodeLens(
            range=self._zero(),
            command=types.Command(
                title=present.lens_title(root.status, changed_count=len(root.stale_paths())),
                command="freshpass.receipts",
                arguments=[{"root": str(root.path)}],
            ),
        )
        lenses = [status_lens]
        shared = present.shared_lens_title(root.status)
        if shared is not None:
            lenses.append(
                types.CodeLens(
                    range=self._zero(),
                    command=types.Command(
                        title=shared, command="freshpass.receipts", arguments=[{"root": str(root.path)}]
                    ),
                )
            )
        command = root.primary_command()
        if command is not None:
            lenses.append(
                types.CodeLens(
                    range=self._zero(),
                    command=types.Command(
                        title=present.run_lens_title(command.command),
                        command="freshpass.verify",
                        arguments=[{"root": str(root.path), "command": command.command}],
                    ),
                )
            )
        return lenses

    async def on_root_refreshed(self, root: RootState, refresh: Refresh) -> None:
        # The status lens also counts the files changed, which moves with content even when the status does not.
        if (refresh.status_changed or refresh.content_changed) and self.server.settings.code_lens_enabled:
            await self.server.refresh_code_lenses()

    async def on_settings_changed(self) -> None:
        await self.server.refresh_code_lenses()

    # ---- code actions --------------------------------------------------------------------------------------------

    def code_actions(
        self, document: DocumentRef, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        root = document.root
        ours = [d for d in params.context.diagnostics if d.source == SOURCE]
        actions: list[tuple[str, types.Command, list[types.Diagnostic]]] = []
        primary = root.primary_command()
        for command in root.verify_commands():
            is_primary = primary is not None and command.command == primary.command
            title = f"freshpass: run {command.kind} check `{command.command}`"
            actions.append(
                (
                    types.CodeActionKind.QuickFix.value if is_primary and ours else ACTION_KIND,
                    types.Command(
                        title=title,
                        command="freshpass.verify",
                        arguments=[{"root": str(root.path), "command": command.command}],
                    ),
                    ours if is_primary else [],
                )
            )
        targeted = targeted_command(root, document)
        if targeted:
            actions.append(
                (
                    ACTION_KIND,
                    types.Command(
                        title=f"freshpass: run the targeted check for this file `{targeted}`",
                        command="freshpass.verify",
                        arguments=[{"uri": document.uri, "targeted": True}],
                    ),
                    [],
                )
            )
        actions.append(
            (
                ACTION_KIND,
                types.Command(
                    title="freshpass: show receipts", command="freshpass.receipts", arguments=[{"root": str(root.path)}]
                ),
                [],
            )
        )
        only = [str(kind) for kind in (params.context.only or ())]
        if only:
            actions = [a for a in actions if any(a[0] == k or a[0].startswith(f"{k}.") for k in only)]
        if not self.server.capability("text_document.code_action.code_action_literal_support", None):
            return [command for _, command, _ in actions]
        return [
            types.CodeAction(title=command.title, kind=kind, command=command, diagnostics=diagnostics or None)
            for kind, command, diagnostics in actions
        ]

    # ---- hover ---------------------------------------------------------------------------------------------------

    def hover(self, document: DocumentRef, params: types.HoverParams) -> str | None:
        if params.position.line != 0:
            return None
        command = document.root.primary_command()
        return present.hover_markdown(
            document.relative,
            document.root.status,
            command=command.command if command else None,
            unsaved=document.unsaved,
            changed_paths=sorted(document.root.stale_paths()),
            latest_change=document.root.latest_change,
            change_number=document.root.change_count,
        )
