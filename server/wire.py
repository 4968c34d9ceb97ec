"""What arrives on the wire, made plain: custom params back into JSON, `file:` URIs into paths.

Pure functions, shared by every handler and feature of the server (and tested on their own)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

from pygls.uris import to_fs_path

LSP_REQUEST_FAILED = -32803


def plain(value: Any) -> Any:
    """Custom params arrive as namedtuples (pygls' `Object`) with tuples for lists: turn them back into JSON."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "__attrs_attrs__"):
        from lsprotocol.converters import get_converter

        return get_converter().unstructure(value)
    return value


def uri_to_path(uri: str) -> Path | None:
    """The file system path of a `file:` URI; None for every other scheme (untitled:, git:, vscode-notebook:…).

    On POSIX the percent-escapes are the path's bytes: a directory name that is not UTF-8 (`caf%E9`) maps back to
    exactly that directory (pygls would replace the byte with U+FFFD, a path that does not exist)."""
    if not uri.startswith("file:"):
        return None
    path: str | None
    try:
        parts = urlsplit(uri)
        if os.name == "posix" and parts.netloc in ("", "localhost"):
            path = os.fsdecode(unquote_to_bytes(parts.path))
        else:
            path = to_fs_path(uri)
    except ValueError:  # "file://[": not a URI anyone can open
        return None
    return Path(os.path.abspath(path)) if path else None
