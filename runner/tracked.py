"""Is a directory repository content? Read from git's index file, without running git.

A virtualenv or `node_modules/.bin` whose files are tracked by git came with the repository, not from this
machine's `python -m venv` or `npm install`: its `bin/ruff` is whatever the repository's author committed. The
runner must not put such a directory first on PATH, whether or not the folder is trusted, and finding out must
execute nothing: not even git, since an untrusted folder runs nothing at all (and the isolated git of
`ledger/git.py` belongs to a layer the runner does not import). So the index file itself is read: it lists every
tracked path, sorted, in a documented format (git's `Documentation/gitformat-index.txt`, versions 2, 3 and 4).

Bounded: an index larger than `INDEX_LIMIT`, or one this reader cannot parse, answers None ("cannot tell"), and
the caller says so. Entries are read only until the answer is known (the index is sorted by path).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from freshpass.facts.files import read_regular

INDEX_LIMIT = 128 << 20
_MAX_ENTRIES = 10_000_000


def _git_dir(root: Path) -> Path | None:
    """The `.git` directory for the work tree at or above `root` (a `.git` file's `gitdir:` followed)."""
    for directory in (root, *root.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            try:
                text = read_regular(dot_git, 4096).decode("utf-8", "replace").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:") :].strip())
                return target if target.is_absolute() else (directory / target)
            return None
    return None


def _entries(data: bytes, hash_size: int) -> list[bytes] | None:
    """Every tracked path of an index (None when it does not parse with this hash size)."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4) or count > _MAX_ENTRIES:
        return None
    paths: list[bytes] = []
    offset = 12
    previous = b""
    fixed = 40 + hash_size + 2  # stat data, object name, flags
    for _ in range(count):
        if offset + fixed > len(data):
            return None
        start = offset
        flags = struct.unpack(">H", data[offset + 40 + hash_size : offset + fixed])[0]
        offset += fixed
        if flags & 0x4000:  # extended flags (version 3 and later)
            if version < 3:
                return None
            offset += 2
        if version == 4:
            strip, shift = 0, 0
            while True:  # git's offset varint: 7 bits a byte, each continuation adding one
                if offset >= len(data):
                    return None
                byte = data[offset]
                offset += 1
                strip = (strip << 7) | (byte & 0x7F) if shift else byte & 0x7F
                if not byte & 0x80:
                    break
                strip += 1
                shift += 1
            end = data.find(b"\0", offset)
            if end < 0 or strip > len(previous):
                return None
            path = previous[: len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:
            end = data.find(b"\0", offset)
            if end < 0:
                return None
            path = data[offset:end]
            length = end - start + 1
            offset = start + ((length + 7) // 8) * 8  # NUL-padded to a multiple of eight bytes
        paths.append(path)
        previous = path
    return paths


def tracked_under(directory: Path, root: Path) -> bool | None:
    """Does git's index track any file under `directory` (inside the work tree at or above `root`)? None when
    there is no repository or its index cannot be read within bounds."""
    git_dir = _git_dir(root)
    if git_dir is None:
        return False
    top = git_dir.parent if git_dir.name == ".git" else None
    if top is None:
        return None  # a linked worktree's or submodule's git dir: its work tree is not beside it
    try:
        relative = os.path.relpath(directory, top)
    except ValueError:
        return None
    if relative.startswith(".."):
        return False
    prefix = relative.replace(os.sep, "/").encode("utf-8", "surrogateescape") + b"/"
    try:
        data = read_regular(git_dir / "index", INDEX_LIMIT)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    for hash_size in (20, 32):
        paths = _entries(data, hash_size)
        if paths is not None:
            return any(path.startswith(prefix) for path in paths)
    return None
