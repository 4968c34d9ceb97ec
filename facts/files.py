"""Reading files a repository controls: regular files only, never more than a bound.

A repository (an archive, a shared directory, a clone) decides what sits at every path freshpass reads: a symlink
to `/dev/stdin` or `/dev/zero`, a FIFO, a socket, a device, or a regular file of gigabytes where a small config
file is expected. Opening a FIFO blocks until someone writes to it; reading `/dev/stdin` in the language server
steals its own JSON-RPC stream; `/dev/zero` never ends. Every read outside `facts/` of a file whose path a
repository (or an editor) chose goes through here: the file is opened without blocking (`O_NONBLOCK`), `fstat` of
the open descriptor (not of the path, which could be swapped between the check and the open) must say it is a
regular file, and no more than `limit` bytes are read.

Errors are `OSError`s with a readable `strerror`, so callers that already handle "cannot read" handle these too.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

SMALL_FILE_LIMIT = 1 << 20  # 1 MiB: ignore files, `.git` pointer files, `HEAD`, refs, config
DOCUMENT_LIMIT = 64 << 20  # 64 MiB: a source file an editor has open


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or directory (possibly through a symlink): not read."""


class FileTooLarge(OSError):
    """The file is larger than the caller's bound: not read."""


def _open_regular(path: str | os.PathLike[str], *, follow_symlinks: bool) -> tuple[int, os.stat_result]:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise NotRegularFile(errno.ELOOP, "is a symbolic link; not followed", os.fspath(path)) from None
        raise
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = describe_mode(info.st_mode)
        raise NotRegularFile(errno.EINVAL, f"is {kind}, not a regular file; not read", os.fspath(path))
    return fd, info


def describe_mode(mode: int) -> str:
    """`a FIFO`, `a socket`, `a device`, `a directory`: what a path that is not a regular file is."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def read_regular(path: str | os.PathLike[str], limit: int, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of `path` when it is a regular file of at most `limit` bytes; else `NotRegularFile`/`FileTooLarge`
    (or the `OSError` of opening it). With `follow_symlinks=False` a symlink is refused too."""
    fd, info = _open_regular(path, follow_symlinks=follow_symlinks)
    try:
        if info.st_size > limit:
            raise FileTooLarge(errno.EFBIG, f"is {info.st_size} bytes, more than {limit}; not read", os.fspath(path))
        chunks: list[bytes] = []
        remaining = limit + 1  # a file that grows while we read must still stop at the bound
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"grew past {limit} bytes while read; not read", os.fspath(path))
    return data


def read_regular_text(path: str | os.PathLike[str], limit: int = SMALL_FILE_LIMIT) -> str:
    """`read_regular` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_regular(path, limit).decode("utf-8", errors="replace")


def read_head(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most the first `limit` bytes of a regular file of any size (a `requirements.txt`, a `go.mod` read for a
    few names)."""
    fd, _ = _open_regular(path, follow_symlinks=True)
    try:
        return _read_up_to(fd, limit)
    finally:
        os.close(fd)


def _read_up_to(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_tail(path: str | os.PathLike[str], limit: int) -> tuple[bytes, bool]:
    """At most the last `limit` bytes of a regular file of any size, and whether that is all of it (an agent's
    transcript, whose end is what is read)."""
    fd, info = _open_regular(path, follow_symlinks=True)
    try:
        start = max(0, info.st_size - limit)
        if start:
            os.lseek(fd, start, os.SEEK_SET)
        data = _read_up_to(fd, limit)
    finally:
        os.close(fd)
    return data, start == 0


def first_line(path: str | os.PathLike[str], limit: int = 4096) -> bytes:
    """The first line (at most `limit` bytes, without its newline) of a regular file of any size."""
    fd, _ = _open_regular(path, follow_symlinks=True)
    try:
        data = os.read(fd, limit)
    finally:
        os.close(fd)
    return data.split(b"\n", 1)[0]


def copy_regular(source: str | os.PathLike[str], target: Path, limit: int) -> None:
    """Copy a regular file of at most `limit` bytes to `target` (created 0600), keeping its modification time (git's
    racy-clean checks of an index copy depend on it). Raises like `read_regular`; a missing source raises
    `FileNotFoundError`."""
    fd, info = _open_regular(source, follow_symlinks=True)
    try:
        if info.st_size > limit:
            raise FileTooLarge(errno.EFBIG, f"is {info.st_size} bytes, more than {limit}; not read", os.fspath(source))
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            copied = 0
            while chunk := os.read(fd, 1 << 20):
                copied += len(chunk)
                if copied > limit:
                    raise FileTooLarge(errno.EFBIG, f"grew past {limit} bytes while copied", os.fspath(source))
                view = memoryview(chunk)
                while view:
                    written = os.write(out, view)
                    view = view[written:]
        finally:
            os.close(out)
    finally:
        os.close(fd)
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))


def write_private(where: Path, text: str, *, prefix: str = ".tmp-") -> None:
    """Replace `where` with `text` atomically, as a private file (0600) in a private directory (0700, made when
    missing): a reader sees the old file or the new one, never a part. A failure leaves no temporary file."""
    import contextlib
    import tempfile

    where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=where.parent, prefix=prefix)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, where)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
