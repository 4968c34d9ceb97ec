"""The user's list of trusted folders: `freshpass trust`, in the style of `direnv allow` and `mise trust`.

A door that can run something on behalf of a client that is not the person at the keyboard (the MCP server, a shell
hook) runs nothing in a folder until the user has said, once, that the folder is theirs to run: `freshpass trust
[PATH]`. `freshpass trust --revoke [PATH]` takes it back, `freshpass trust --list` shows the list. Trusting a
folder trusts everything under it.

The list is the user's, never the repository's: it lives in `$XDG_STATE_HOME/freshpass/trusted.json` (XDG default
`~/.local/state`), next to the ledger, created 0600 in a 0700 directory, replaced atomically (a temporary file in
the same directory, fsynced, then `os.replace`) under an exclusive lock so two writers never lose each other's
entry. It is bounded: at most `MAX_ENTRIES` folders, each at most `MAX_PATH_BYTES`, the file at most `MAX_BYTES`;
an unreadable, oversized or malformed list trusts nothing (and says why), it never raises.

Paths are stored resolved (symlinks followed, `..` gone), so a symlink into a trusted folder is trusted exactly as
its target is, and a symlink *out of* one is judged by where it points. Reading the list executes nothing and runs
no git. Every door reads it through `is_trusted()`; nothing else parses the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from freshpass.facts.files import read_regular

FILE_NAME = "trusted.json"
MAX_ENTRIES = 1000
MAX_PATH_BYTES = 4096
MAX_BYTES = 1 << 20
VERSION = 1


class TrustError(Exception):
    """The list cannot be changed (unwritable, full, a path that is too long), with what to do."""


@dataclass(frozen=True)
class TrustList:
    """The folders the user trusts, resolved; `problem` says why the stored list was not usable (then empty)."""

    paths: tuple[str, ...] = ()
    problem: str = ""
    where: str = ""


def trust_file(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_STATE_HOME/freshpass/trusted.json` (XDG default `~/.local/state`)."""
    env = os.environ if env is None else env
    state_home = env.get("XDG_STATE_HOME", "").strip()
    # XDG: a relative path in the variable is invalid and must be ignored.
    base = Path(state_home) if state_home and Path(state_home).is_absolute() else Path.home() / ".local" / "state"
    return base / "freshpass" / FILE_NAME


def canonical(path: str | os.PathLike[str]) -> str:
    """The absolute, symlink-free form of `path` (as stored and as compared)."""
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def load(env: Mapping[str, str] | None = None) -> TrustList:
    """The stored list; empty (with `problem`) when it is missing, unreadable, oversized or malformed."""
    where = trust_file(env)
    try:
        data = read_regular(where, MAX_BYTES)
    except FileNotFoundError:
        return TrustList(where=str(where))
    except OSError as exc:
        return TrustList(problem=f"{where} {exc.strerror or exc}; no folder is trusted", where=str(where))
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return TrustList(problem=f"{where} is not valid JSON; no folder is trusted", where=str(where))
    entries = parsed.get("trusted") if isinstance(parsed, dict) else None
    if not isinstance(entries, list) or parsed.get("version") != VERSION:
        return TrustList(
            problem=f'{where} is not a freshpass trust list ({{"version": 1, "trusted": [...]}}); no folder is trusted',
            where=str(where),
        )
    paths: list[str] = []
    for entry in entries[:MAX_ENTRIES]:
        if isinstance(entry, str) and os.path.isabs(entry) and len(os.fsencode(entry)) <= MAX_PATH_BYTES:
            paths.append(os.path.normpath(entry))
    return TrustList(tuple(dict.fromkeys(paths)), where=str(where))


def _covers(folder: str, target: str) -> bool:
    return target == folder or target.startswith(folder.rstrip(os.sep) + os.sep)


def trusted_by(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> str | None:
    """The trusted folder that covers `path` (itself or an ancestor, after resolving symlinks), else None."""
    target = canonical(path)
    for folder in load(env).paths:
        if _covers(folder, target):
            return folder
    return None


def is_trusted(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> bool:
    """Has the user trusted `path` (or a folder above it) with `freshpass trust`? Reads only the user's list."""
    return trusted_by(path, env) is not None


def untrusted_reason(path: str | os.PathLike[str]) -> str:
    """The one sentence a door says when it refuses to run in an untrusted folder."""
    target = canonical(path)
    return (
        f"{target} is not a trusted folder, so nothing is run there; if it is yours, trust it once with "
        f"`freshpass trust {target}` (undo: `freshpass trust --revoke {target}`)"
    )


@contextlib.contextmanager
def _locked(where: Path) -> Iterator[None]:
    import fcntl

    where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(where.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _write(where: Path, paths: list[str]) -> None:
    payload = json.dumps({"version": VERSION, "trusted": paths}, indent=1).encode() + b"\n"
    if len(payload) > MAX_BYTES:
        raise TrustError(f"the trust list would exceed {MAX_BYTES} bytes; revoke folders you no longer use first")
    fd, temporary = tempfile.mkstemp(prefix=".trusted.", suffix=".tmp", dir=where.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, where)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _change(env: Mapping[str, str] | None, add: str | None, remove: str | None) -> TrustList:
    where = trust_file(env)
    try:
        with _locked(where):
            current = load(env)
            if current.problem and os.path.lexists(where):
                raise TrustError(f"{current.problem.rsplit(';', 1)[0]}: fix or remove it, then try again")
            paths = [path for path in current.paths if path != remove]
            if add is not None and add not in paths:
                if len(paths) >= MAX_ENTRIES:
                    raise TrustError(
                        f"{where} already lists {MAX_ENTRIES} folders; revoke some with `freshpass trust --revoke`"
                    )
                paths.append(add)
            _write(where, paths)
    except OSError as exc:
        raise TrustError(f"cannot update {where}: {exc.strerror or exc}") from None
    return TrustList(tuple(paths), where=str(where))


def trust(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> str:
    """Add `path` (resolved; it must be a directory) to the user's list; returns the stored path."""
    target = canonical(path)
    if not os.path.isdir(target):
        raise TrustError(f"{target} is not a directory: trust the project's folder")
    if len(os.fsencode(target)) > MAX_PATH_BYTES:
        raise TrustError(f"{target[:80]}… is longer than {MAX_PATH_BYTES} bytes")
    _change(env, add=target, remove=None)
    return target


def revoke(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> bool:
    """Remove `path` (resolved) from the list; False when it was not listed itself."""
    target = canonical(path)
    if target not in load(env).paths:
        return False
    _change(env, add=None, remove=target)
    return True
