"""The ledger's policies, apart from its store (`freshpass.ledger.store`: the SQLite schema, appending and querying
receipts, the connection and its faults):

- permissions: the state directory is private (0700), the file and its -wal and -shm companions 0600, and an
  existing file readable by others is tightened (`secure_file`);
- quarantine: a damaged ledger is moved aside and kept, never deleted (`quarantine`);
- retention: how much history is kept (`Retention`, the machine's policy from the environment) and the pruning
  it does (`apply_retention`); the newest receipt of each (root, kind) is never deleted;
- nudges: each agent session's nudge bookkeeping (`nudges_used`, `record_nudge`), and the content an agent's tool
  call started on, kept by its pre-tool hook for its report (`remember_start`, `take_start`).

Each is a function of a path or of an open connection inside the store's transaction; `Ledger` runs them, so its
public API is the same as when it held them itself.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
from freshpass.ledger.common import LedgerError, db_text, py_text
from freshpass.ledger.paths import LEDGER_ENV

RETENTION_ENV = (
    ("FRESHPASS_RETENTION_DAYS", "max_age_days", float),
    ("FRESHPASS_RETENTION_PER_ROOT", "per_root", int),
    ("FRESHPASS_RETENTION_MAX_EVENTS", "global_cap", int),
)

STARTS_MAX_AGE = 24 * 3600.0  # seconds a tool call's start is kept for its report
STARTS_MAX = 1_000  # starts kept at most (the newest)
STARTS_KEY_MAX = 512  # characters of a tool call's key


# ---- permissions ----------------------------------------------------------------------------------------------


def secure_file(path: Path) -> int:
    """Create the state dir (0700) and the file (0600) ourselves: SQLite would use the umask's mode. A file that
    exists with a looser mode (an older freshpass, a copy) is tightened, with its -wal and -shm companions.
    Returns the file's inode (`quarantine` moves aside only the file it saw); raises OSError."""
    parent = path.parent
    if not parent.is_dir():
        parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        info = os.fstat(fd)
        if info.st_mode & 0o077 and info.st_uid == os.geteuid():
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        with contextlib.suppress(OSError):
            mode = os.stat(companion).st_mode
            if mode & 0o077:
                os.chmod(companion, 0o600)
    return info.st_ino


# ---- quarantine -----------------------------------------------------------------------------------------------


def quarantine(path: Path, inode: int | None, reason: str) -> str | None:
    """Keep a damaged ledger next to the new one; never delete evidence a person may want to recover. `inode` is
    the file this process opened: another process may already have moved it aside and started a new one, which is
    left alone. Returns what to tell a person once (None when nothing was moved); raises LedgerError when the file
    cannot be moved."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}-{os.getpid()}")
    try:
        current = os.stat(path).st_ino
    except FileNotFoundError:
        current = None
    if current is None or current != inode:
        return None
    try:
        os.replace(path, target)
    except OSError as exc:
        raise LedgerError(
            f"the ledger {path} is corrupt ({reason}) and cannot be moved aside ({exc.strerror}); "
            f"move it away yourself, or set {LEDGER_ENV} to another file path"
        ) from None
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            os.replace(companion, target.with_name(target.name + suffix))
    return (
        f"freshpass: the ledger {path} was corrupt ({reason}); it was kept as {target} "
        "and a new, empty ledger was started"
    )


# ---- retention ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Retention:
    """How much history is kept (design §4.2). The newest event of each (root, kind) is never deleted."""

    max_age_days: float = 30.0
    per_root: int = 1_000
    global_cap: int = 100_000
    every: int = 100  # run retention after every N-th insert (by event id), never on the read path

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Retention:
        """The policy from `FRESHPASS_RETENTION_DAYS`, `…_PER_ROOT`, `…_MAX_EVENTS`: the ledger is shared by every
        editor, terminal and agent, so its policy belongs to the machine, not to one client's settings."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, attribute, convert in RETENTION_ENV:
            raw = environ.get(name, "").strip()
            if not raw:
                continue
            try:
                value = convert(raw)
            except ValueError:
                value = None
            if value is None or value <= 0:
                raise LedgerError(f"{name}={raw!r} must be a positive {'number' if convert is float else 'integer'}")
            values[attribute] = value
        return cls(**values)


async def apply_retention(db: aiosqlite.Connection, policy: Retention, root: str | bytes | None, now: float) -> None:
    """Prune under `policy` in the open transaction of `db`: receipts older than its age, beyond its count per
    root (only `root`'s after an insert; every root's when None) and beyond its global cap, but never the newest of
    a (root, kind); old nudges; manifests no receipt names."""
    protected = "id NOT IN (SELECT event_id FROM heads)"
    cutoff = now - policy.max_age_days * 86_400
    await db.execute(f"DELETE FROM events WHERE created_at < ? AND {protected}", (cutoff,))
    await db.execute("DELETE FROM nudges WHERE created_at < ?", (cutoff,))
    if policy.per_root > 0:
        if root is not None:  # after an insert: only that root can have grown
            roots = [root]
        else:  # an explicit `apply_retention()`: every root
            async with db.execute("SELECT DISTINCT root FROM events") as cursor:
                roots = [found[0] for found in await cursor.fetchall()]
        for each in roots:
            async with db.execute(
                "SELECT id FROM events WHERE root = ? ORDER BY id DESC LIMIT 1 OFFSET ?", (each, policy.per_root)
            ) as cursor:
                row = await cursor.fetchone()
            if row is not None:
                await db.execute(f"DELETE FROM events WHERE root = ? AND id <= ? AND {protected}", (each, row[0]))
    if policy.global_cap > 0:
        async with db.execute("SELECT max(id) FROM events") as cursor:
            row = await cursor.fetchone()
        newest = int(row[0]) if row and row[0] is not None else 0
        # Ids only grow, so everything at or below newest - cap is outside the newest `cap` events.
        if newest > policy.global_cap:
            await db.execute(f"DELETE FROM events WHERE id <= ? AND {protected}", (newest - policy.global_cap,))
    await db.execute(
        "DELETE FROM manifests WHERE created_at < ? AND content_id NOT IN (SELECT content_id FROM events)",
        (cutoff,),
    )


# ---- nudges and tool-call starts -------------------------------------------------------------------------------


async def nudges_used(db: aiosqlite.Connection, session: str, root: str, baseline: int | None) -> int:
    """How many nudges `session` had for `root` since the pass `baseline` (None: since no pass)."""
    async with db.execute(
        "SELECT count(*) FROM nudges WHERE session = ? AND root = ? AND baseline IS ?",
        (db_text(session), db_text(root), baseline),
    ) as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def record_nudge(db: aiosqlite.Connection, session: str, root: str, baseline: int | None) -> None:
    await db.execute(
        "INSERT INTO nudges (created_at, session, root, baseline) VALUES (?, ?, ?, ?)",
        (time.time(), db_text(session), db_text(root), baseline),
    )


async def remember_start(db: aiosqlite.Connection, call: str, root: str, content_id: str | None, now: float) -> None:
    """Keep the content `root` had when the tool call `call` started; starts older than `STARTS_MAX_AGE` or beyond
    the newest `STARTS_MAX` are dropped, so the table stays small."""
    await db.execute(
        "INSERT OR REPLACE INTO starts (call, created_at, root, content_id) VALUES (?, ?, ?, ?)",
        (db_text(call[:STARTS_KEY_MAX]), now, db_text(root), content_id),
    )
    await db.execute("DELETE FROM starts WHERE created_at < ?", (now - STARTS_MAX_AGE,))
    await db.execute(
        "DELETE FROM starts WHERE call NOT IN (SELECT call FROM starts ORDER BY created_at DESC LIMIT ?)",
        (STARTS_MAX,),
    )


async def take_start(db: aiosqlite.Connection, call: str) -> tuple[float, str, str | None] | None:
    """(when, root, content id) of the start kept for `call`, removed; None when none."""
    key = db_text(call[:STARTS_KEY_MAX])
    async with db.execute("SELECT created_at, root, content_id FROM starts WHERE call = ?", (key,)) as cursor:
        row = await cursor.fetchone()
    if row is None:
        return None
    await db.execute("DELETE FROM starts WHERE call = ?", (key,))
    content_id = py_text(row[2])
    return float(row[0]), str(py_text(row[1])), content_id if isinstance(content_id, str) else None


__all__ = [
    "RETENTION_ENV",
    "STARTS_KEY_MAX",
    "STARTS_MAX",
    "STARTS_MAX_AGE",
    "Retention",
    "apply_retention",
    "nudges_used",
    "quarantine",
    "record_nudge",
    "remember_start",
    "secure_file",
    "take_start",
]
