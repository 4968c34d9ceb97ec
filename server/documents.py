"""Documents: a URI resolved to its root, its first line and whether its buffer differs from the file on disk.

Non-`file:` URIs and files outside every root resolve to None: nothing of freshpass applies to them. Positions are
counted in the client's encoding (UTF-8 for Neovim, UTF-16 for VS Code).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from freshpass.facts.files import DOCUMENT_LIMIT, first_line, read_regular
from freshpass.server.state import DocumentRef, RootState
from freshpass.server.wire import uri_to_path
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer


class Documents:
    def __init__(self, server: FreshpassServer) -> None:
        self.server = server

    def get(self, uri: str) -> DocumentRef | None:
        """Resolve a URI: None for non-file URIs and files outside every root."""
        path = uri_to_path(uri)
        if path is None:
            return None
        located = self.server.roots.locate(path)
        if located is None:
            return None
        root, path = located
        relative = root.relative(path)
        if relative is None:
            return None
        ref = DocumentRef(uri=uri, path=path, root=root, relative=relative)
        text_document = self.server.workspace.text_documents.get(uri)
        if text_document is not None:
            ref.text = text_document.source
            ref.first_line = ref.text.split("\n", 1)[0].rstrip("\r")
            ref.unsaved = buffer_differs_from_disk(ref.text, path)
        else:
            ref.first_line = first_line_on_disk(path)
        return ref

    def open_in(self, root: RootState) -> list[DocumentRef]:
        refs = []
        for uri in list(self.server.workspace.text_documents):
            ref = self.get(uri)
            if ref is not None and ref.root is root:
                refs.append(ref)
        return refs

    def position_units(self, text: str) -> int:
        """The length of `text` in the client's position encoding (UTF-8 for Neovim, UTF-16 for VS Code)."""
        try:
            codec = self.server.workspace.position_codec
        except RuntimeError:
            return len(text)
        return int(codec.client_num_units(text))

    def line_zero_range(self, document: DocumentRef) -> types.Range:
        end = self.position_units(document.first_line)
        return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=end))


def buffer_differs_from_disk(text: str, path: Path) -> bool:
    try:
        data = read_regular(path, DOCUMENT_LIMIT)
    except OSError:
        return True  # a buffer whose file does not exist (yet), or is no regular file, is not covered by anything
    try:
        return data.decode("utf-8") != text
    except UnicodeDecodeError:
        return True


def first_line_on_disk(path: Path) -> str:
    try:
        line = first_line(path, 4096)  # never a FIFO or a device (`Makefile -> /dev/stdin`)
    except OSError:
        return ""
    return line.decode("utf-8", errors="replace").rstrip("\r\n")
