"""The evidence ledger: one SQLite file shared by every editor, terminal, agent and CI job (design §4.1–4.2).

One async API (aiosqlite) serves the CLI and the language server. Many processes write at once: WAL lets readers
go on while one writer appends, writes take the write lock up front (`BEGIN IMMEDIATE`) so two writers never
deadlock upgrading a read lock, and `busy_timeout` makes a writer wait its turn instead of failing. Every failure
a person can meet (unwritable state dir, a locked or corrupt file, a file from a newer freshpass) becomes a
`LedgerError` whose message says what to do; a corrupt file is moved aside, kept, and a new ledger started.

Readers need no write access: `Ledger.open(read_only=True)` (what `freshpass status` and `log` use) falls back to a
read-only connection when the file, its directory or its disk cannot be written (a read-only mount, a full disk).

Everything a receipt stores passes through `freshpass.ledger.redact` first (in `record`, so every door — the CLI,
the server, terminal evidence — is covered). Texts that are not valid UTF-8 (a path with undecodable bytes, kept by
Python as surrogate escapes) are stored as their original bytes (a BLOB) and read back unchanged, so such a root
records and looks up like any other. The file is private (0600); an existing file readable by others is tightened.

This module is the store: the SQLite schema, appending and querying receipts, the connection and its faults. The
ledger's policies — the file's permissions, the quarantine of a damaged file, retention, agents' nudges and
tool-call starts — are `freshpass.ledger.policy`; `Ledger` runs them, and its API holds both.

aiosqlite runs each connection on its own thread, which keeps the process alive until the connection is closed:
use `async with await Ledger.open() as ledger:` (or call `close()`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import json
import logging
import math
import os
import sqlite3
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, TypeVar

import aiosqlite
from freshpass.facts.model import KINDS
from freshpass.ledger import policy
from freshpass.ledger.common import LedgerError, db_text, py_text
from freshpass.ledger.paths import LEDGER_ENV, default_ledger_path
from freshpass.ledger.policy import RETENTION_ENV, STARTS_KEY_MAX, STARTS_MAX, STARTS_MAX_AGE, Retention
from freshpass.ledger.redact import redact, redact_json
from freshpass.ledger.schema import MIGRATIONS, SCHEMA_VERSION

log = logging.getLogger(__name__)

BUSY_TIMEOUT_ENV = "FRESHPASS_LEDGER_BUSY_TIMEOUT"  # seconds; how long a writer waits for a locked ledger
DEFAULT_BUSY_TIMEOUT = 10.0

# The stored output summary: enough to see what failed, small enough that 1,000 receipts per root stay cheap.
SUMMARY_HEAD_CHARS = 1_500
SUMMARY_TAIL_CHARS = 4_000

# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xFF)
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 10, 11, 13, 14, 26
# Failures of writing (a read-only file or mount, a full disk) after which a reader can still read.
_WRITE_FAILURES = (_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN)
_WRITE_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT)
LOW_SPACE = 1 << 20  # bytes free below which a write failure is reported as a full disk

T = TypeVar("T")


# How freshpass knows of a run, kept with every receipt: `watched` — freshpass ran it (its own process, its exit
# status, its output); `reported` — someone told freshpass after the fact (an agent's hook, an editor's terminal);
# `unconfirmed` — reported, and nothing in the report vouches for it (a test pass whose output states no test
# summary that agrees with its exit status, or a run an agent's pre-tool hook never saw). An unconfirmed receipt is
# shown, and never counts as a full run.
Observed = Literal["watched", "reported", "unconfirmed"]
OBSERVED: tuple[Observed, ...] = ("watched", "reported", "unconfirmed")


@dataclass
class EvidenceDraft:
    """What a finished run contributes to the ledger; `Ledger.record` turns it into `Evidence`."""

    root: str  # absolute path of the root (or package root) the evidence belongs to
    command: str  # the command line as the user typed it
    canonical_command: str
    kind: str  # test | lint | typecheck | build | check
    scope: str  # full | targeted
    status: str  # passed | failed
    content_id: str  # the root's content at the start of the run
    started_at: float  # epoch seconds
    finished_at: float
    exit_code: int | None = None
    reason: str | None = None
    approved: bool = False
    cwd: str = ""
    session: str = ""
    actor: str = ""
    output_head: str = ""
    output_tail: str = ""
    output_omitted: int = 0  # characters of output between head and tail that were not kept
    tests_passed: int | None = None
    tests_failed: int | None = None
    tests_skipped: int | None = None
    stale_at_record: bool = False  # the content changed while the command ran
    details: dict[str, Any] | None = None  # e.g. the phases of `freshpass verify`
    observed: Observed = "watched"  # how freshpass knows of the run (see `OBSERVED`)

    def set_output(self, text: str, omitted: int = 0) -> None:
        """Keep a bounded head and tail of `text` (which may already have `omitted` characters cut out).

        Secrets are redacted in the whole text before it is cut, so none is split across the cut."""
        text = redact(text)
        if len(text) <= SUMMARY_HEAD_CHARS + SUMMARY_TAIL_CHARS:
            self.output_head, self.output_tail, self.output_omitted = text, "", omitted
            return
        self.output_head = text[:SUMMARY_HEAD_CHARS]
        self.output_tail = text[-SUMMARY_TAIL_CHARS:]
        self.output_omitted = omitted + len(text) - SUMMARY_HEAD_CHARS - SUMMARY_TAIL_CHARS


@dataclass(frozen=True)
class Evidence:
    """One recorded run: a receipt. Append-only."""

    id: int
    created_at: float
    root: str
    command: str
    canonical_command: str
    kind: str
    scope: str
    status: str
    content_id: str
    started_at: float
    finished_at: float
    duration: float
    exit_code: int | None = None
    reason: str | None = None
    approved: bool = False
    cwd: str = ""
    session: str = ""
    actor: str = ""
    output_head: str = ""
    output_tail: str = ""
    output_omitted: int = 0
    tests_passed: int | None = None
    tests_failed: int | None = None
    tests_skipped: int | None = None
    stale_at_record: bool = False
    details: dict[str, Any] | None = None
    observed: Observed = "watched"

    @property
    def counted_scope(self) -> str:
        """The scope the receipt counts for: an unconfirmed one never counts as a full run."""
        return "targeted" if self.observed == "unconfirmed" else self.scope

    @property
    def tests(self) -> dict[str, int] | None:
        """Test counts the output reported, or None when it said nothing countable."""
        if self.tests_passed is None and self.tests_failed is None and self.tests_skipped is None:
            return None
        return {
            "passed": self.tests_passed or 0,
            "failed": self.tests_failed or 0,
            "skipped": self.tests_skipped or 0,
        }

    @property
    def output(self) -> str:
        if self.output_omitted:
            return f"{self.output_head}\n… [{self.output_omitted} characters omitted] …\n{self.output_tail}"
        return self.output_head + self.output_tail

    def status_json(self) -> dict[str, Any]:
        """The `evidence` object of the status JSON (design §4.5, stable)."""
        return {
            "id": self.id,
            "command": self.command,
            "canonical_command": self.canonical_command,
            "kind": self.kind,
            "scope": self.scope,
            "status": self.status,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "finished_at": iso_time(self.finished_at),
            "session": self.session,
            "tests": self.tests,
            "observed": self.observed,
        }

    def to_json(self) -> dict[str, Any]:
        """The full receipt (`freshpass log --json`, `freshpass run --json`, `freshpass.receipts`)."""
        data = self.status_json()
        data.update(
            {
                "root": self.root,
                "cwd": self.cwd,
                "approved": self.approved,
                "actor": self.actor,
                "created_at": iso_time(self.created_at),
                "started_at": iso_time(self.started_at),
                "duration": round(self.duration, 3),
                "content_id": self.content_id,
                "stale_at_record": self.stale_at_record,
                "output": {"head": self.output_head, "tail": self.output_tail, "omitted": self.output_omitted},
                "details": self.details,
            }
        )
        return data


EARLIEST = 946_684_800.0  # 2000-01-01: no receipt is older
LATEST = 7_258_118_400.0  # 2200-01-01: nor newer


def iso_time(epoch: Any) -> str:
    """UTC ISO 8601 with milliseconds and a `Z`, the time format of every JSON output. Total: a stored value that
    is no time (a row written by an older version, or by hand) reads `invalid` rather than raising."""
    try:
        return (
            datetime.fromtimestamp(float(epoch), timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        )
    except (TypeError, ValueError, OverflowError, OSError):
        return "invalid"


_EVIDENCE_FIELDS = tuple(f.name for f in fields(Evidence))
# What the ledger adds to a draft when it records it; every other field of `Evidence` is `EvidenceDraft`'s
# (tests/unit/test_receipts.py holds the two to that).
LEDGER_ASSIGNED = ("id", "created_at", "duration")
# The columns a record writes: every field of the receipt but the id SQLite assigns.
_DRAFT_COLUMNS = tuple(name for name in _EVIDENCE_FIELDS if name != "id")
_SELECT_EVIDENCE = f"SELECT {', '.join(_EVIDENCE_FIELDS)} FROM events"
_INSERT_EVIDENCE = f"INSERT INTO events ({', '.join(_DRAFT_COLUMNS)}) VALUES ({', '.join('?' for _ in _DRAFT_COLUMNS)})"


_TEXT_FIELDS = frozenset(
    {"session", "actor", "cwd", "root", "command", "canonical_command", "reason", "output_head", "output_tail"}
)


_TIME_FIELDS = ("created_at", "started_at", "finished_at", "duration")
_COUNT_FIELDS = ("exit_code", "tests_passed", "tests_failed", "tests_skipped")
_WORD_FIELDS = ("kind", "scope", "status", "content_id", "observed")


def _finite(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 0.0


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
        return value
    return None


def _evidence_from_row(row: Iterable[Any]) -> Evidence:
    """A stored row as a receipt. Total: a row this version did not write (an odd type, an infinite time, details
    that are not JSON) is read with the odd field neutralised, so `log`, `log --json` and `receipts` never fail."""
    values = dict(zip(_EVIDENCE_FIELDS, row, strict=True))
    for name in _TEXT_FIELDS:
        text = py_text(values[name])
        if text is None:
            values[name] = None if name == "reason" else ""
        else:
            values[name] = text if isinstance(text, str) else str(text)
    for name in _WORD_FIELDS:
        text = py_text(values[name])
        values[name] = text if isinstance(text, str) else str(text)
    for name in _TIME_FIELDS:
        values[name] = _finite(values[name])
    for name in _COUNT_FIELDS:
        values[name] = _count(values[name])
    values["id"] = _count(values["id"]) or 0
    values["output_omitted"] = max(0, _count(values["output_omitted"]) or 0)
    values["approved"] = values["approved"] == 1
    values["stale_at_record"] = values["stale_at_record"] == 1
    raw_details = py_text(values["details"])
    try:
        details = json.loads(raw_details) if isinstance(raw_details, str) and raw_details else None
    except (ValueError, RecursionError):
        details = {"unreadable": "the stored details are not JSON"}
    values["details"] = details if isinstance(details, dict) else None
    return Evidence(**values)


def _error_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)  # Python ≥ 3.11
    if code is not None:
        return int(code) & 0xFF
    text = str(exc).lower()  # Python 3.10: only the message tells
    for needle, value in (
        ("file is not a database", _SQLITE_NOTADB),
        ("malformed", _SQLITE_CORRUPT),
        ("database is locked", _SQLITE_BUSY),
        ("readonly", _SQLITE_READONLY),
        ("unable to open", _SQLITE_CANTOPEN),
        ("disk i/o error", _SQLITE_IOERR),
    ):
        if needle in text:
            return value
    return None


def _is_corruption(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.DatabaseError) and _error_code(exc) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


class _CorruptLedger(Exception):
    """Internal: the file is damaged; the caller moves it aside."""


class _WriteFailure(Exception):
    """Internal: the ledger cannot be written (read-only, full disk); a reader may still open it read-only."""

    def __init__(self, error: LedgerError) -> None:
        super().__init__(str(error))
        self.error = error


def _redacted(draft: EvidenceDraft) -> EvidenceDraft:
    """The draft as it may be stored: secrets redacted in every text a person could read back."""
    return dataclasses.replace(
        draft,
        command=redact(draft.command),
        canonical_command=redact(draft.canonical_command),
        reason=redact(draft.reason) if draft.reason else draft.reason,
        output_head=redact(draft.output_head),
        output_tail=redact(draft.output_tail),
        details=redact_json(draft.details) if draft.details is not None else None,
    )


class Ledger:
    """The evidence store. Open with `await Ledger.open()`; always close (it is an async context manager)."""

    def __init__(self, path: Path, busy_timeout: float, retention: Retention, *, read_only: bool = False) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.retention = retention
        self.read_only = read_only  # may read through a read-only connection when writing is impossible
        self.writable = True  # False once opened read-only: every write is refused with the reason
        self._why_read_only = ""
        # Things a person should hear about once (e.g. a corrupt ledger moved aside); the CLI prints them to stderr
        # and the server logs them.
        self.warnings: list[str] = []
        self._db: aiosqlite.Connection | None = None
        self._inode: int | None = None
        self._own_writes = 0
        self._lock = asyncio.Lock()  # one aiosqlite connection: keep our own transactions from interleaving

    # ---- opening, closing, faults -------------------------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        path: Path | None = None,
        *,
        busy_timeout: float | None = None,
        retention: Retention | None = None,
        read_only: bool = False,
    ) -> Ledger:
        """Open (creating it, its directory, and its schema as needed) the ledger at `path` or the default path.

        `read_only=True` is for callers that only read: when the ledger cannot be written (a read-only file or
        mount, a full disk), it is opened for reading instead (`writable` is then False and `warnings` says why)."""
        if busy_timeout is None:
            busy_timeout = _busy_timeout_from_env()
        ledger = cls(
            Path(path) if path is not None else default_ledger_path(),
            busy_timeout,
            retention or Retention.from_env(),
            read_only=read_only,
        )
        try:
            await ledger._open()
        except _WriteFailure as failure:
            if not read_only:
                raise failure.error from None
            await ledger._open_for_reading(failure.error)
        return ledger

    async def __aenter__(self) -> Ledger:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error, ValueError):
                await db.close()

    async def _open_for_reading(self, why: LedgerError) -> None:
        """A read-only connection (`mode=ro`; `immutable=1` when even the WAL index cannot be set up), or an empty
        in-memory ledger when the file does not exist and cannot be created."""
        self.writable = False
        self._why_read_only = str(why)
        if not self.path.exists():
            self._db = await aiosqlite.connect(":memory:", isolation_level=None)
            await self._migrate(self._db)
            self.warnings.append(f"freshpass: no receipts to show: {why}")
            return
        uri = self.path.absolute().as_uri()
        last: sqlite3.Error | None = None
        for query in ("mode=ro", "mode=ro&immutable=1"):
            try:
                self._db = await aiosqlite.connect(
                    f"{uri}?{query}", uri=True, timeout=self.busy_timeout, isolation_level=None
                )
                await self._check_readable(self._db)
            except sqlite3.Error as exc:
                last = exc
                await self.close()
                continue
            self.warnings.append(f"freshpass: the ledger is shown read-only, since it cannot be written: {why}")
            return
        assert last is not None
        raise self._translate(last, "read") from None

    async def _check_readable(self, db: aiosqlite.Connection) -> None:
        version = await self._user_version(db)
        if version > SCHEMA_VERSION:
            raise LedgerError(
                f"the ledger {self.path} was written by a newer freshpass (schema {version}, this one knows "
                f"{SCHEMA_VERSION}); upgrade freshpass, or set {LEDGER_ENV} to another file path"
            )
        if version < SCHEMA_VERSION:
            raise LedgerError(
                f"the ledger {self.path} needs an upgrade to this freshpass's schema, which needs write access: "
                f"{self._why_read_only}"
            )
        async with db.execute("SELECT id FROM events ORDER BY id DESC LIMIT 1") as cursor:
            await cursor.fetchone()

    async def _open(self) -> None:
        try:
            self._prepare_file()
            try:
                await self._connect_and_check()
            except _CorruptLedger as exc:
                await self.close()
                self._move_aside(str(exc))
                self._prepare_file()
                try:
                    await self._connect_and_check()
                except _CorruptLedger as again:
                    raise LedgerError(
                        f"the ledger {self.path} is unreadable even after starting a new one ({again}); "
                        f"set {LEDGER_ENV} to another file path"
                    ) from None
        except BaseException:
            await self.close()  # never leave aiosqlite's thread running behind an error
            raise

    def _prepare_file(self) -> None:
        """The file and its directory made private (`freshpass.ledger.policy.secure_file`), before SQLite opens it."""
        try:
            self._inode = policy.secure_file(self.path)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            error = LedgerError(
                self._space_message("create or open")
                or f"cannot create or open the ledger {self.path}: {reason}. Make that directory writable, or set "
                f"{LEDGER_ENV} to a writable file path"
            )
            if exc.errno in _WRITE_ERRNOS:
                raise _WriteFailure(error) from None
            raise error from None

    def _space_message(self, action: str) -> str | None:
        """The message for a full disk, when the ledger's file system has (almost) no space left."""
        try:
            info = os.statvfs(self.path.parent if self.path.parent.exists() else self.path.parent.parent)
        except OSError:
            return None
        free = info.f_bavail * info.f_frsize
        if free >= LOW_SPACE:
            return None
        return (
            f"cannot {action} the ledger {self.path}: the disk holding it is full ({free} bytes free). Free some "
            f"space there, or set {LEDGER_ENV} to a file on another disk"
        )

    async def _connect_and_check(self) -> None:
        try:
            # isolation_level=None: we issue BEGIN IMMEDIATE/COMMIT ourselves. `timeout` is SQLite's busy timeout.
            self._db = await aiosqlite.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            if _error_code(exc) in _WRITE_FAILURES:
                raise _WriteFailure(self._translate(exc, "open")) from None
            raise self._translate(exc, "open") from None
        db = self._db
        try:
            async with db.execute("PRAGMA journal_mode") as cursor:
                row = await cursor.fetchone()
            if row is None or str(row[0]).lower() != "wal":
                await db.execute("PRAGMA journal_mode = WAL")
            # NORMAL is durable across application crashes in WAL mode; only a power loss can drop the last commit.
            await db.execute("PRAGMA synchronous = NORMAL")
            await self._migrate(db)
            # Touch the tables the hot paths read, so a damaged file is found now rather than mid-command.
            async with db.execute("SELECT id FROM events ORDER BY id DESC LIMIT 1") as cursor:
                await cursor.fetchone()
            async with db.execute("SELECT count(*) FROM heads") as cursor:
                await cursor.fetchone()
        except sqlite3.Error as exc:
            if _is_corruption(exc):
                raise _CorruptLedger(str(exc)) from exc
            if _error_code(exc) in _WRITE_FAILURES:
                raise _WriteFailure(self._translate(exc, "open")) from None
            raise self._translate(exc, "open") from None

    async def _migrate(self, db: aiosqlite.Connection) -> None:
        version = await self._user_version(db)
        if version > SCHEMA_VERSION:
            raise LedgerError(
                f"the ledger {self.path} was written by a newer freshpass (schema {version}, this one knows "
                f"{SCHEMA_VERSION}); upgrade freshpass, or set {LEDGER_ENV} to another file path"
            )
        if version == SCHEMA_VERSION:
            return
        await db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            version = await self._user_version(db)
            for step in range(version, SCHEMA_VERSION):
                for statement in _split_statements(MIGRATIONS[step]):
                    await db.execute(statement)
            if version < SCHEMA_VERSION:
                await db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            await db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                await db.execute("ROLLBACK")
            raise

    @staticmethod
    async def _user_version(db: aiosqlite.Connection) -> int:
        async with db.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    def _move_aside(self, reason: str) -> None:
        """Keep a damaged ledger next to the new one (`freshpass.ledger.policy.quarantine`)."""
        message = policy.quarantine(self.path, self._inode, reason)
        if message is not None:
            self.warnings.append(message)
            log.info(message)  # callers show `warnings` once; a WARNING here would print it twice

    def _translate(self, exc: sqlite3.Error, action: str) -> LedgerError:
        code = _error_code(exc)
        if code in (_SQLITE_BUSY, _SQLITE_LOCKED):
            return LedgerError(
                f"the ledger {self.path} stayed locked by another process for {self.busy_timeout:g} s; "
                f"try again (or raise {BUSY_TIMEOUT_ENV}, in seconds)"
            )
        if code in (_SQLITE_FULL, _SQLITE_IOERR, _SQLITE_CANTOPEN):
            full = self._space_message(action)
            if full is not None:
                return LedgerError(full)
        if code == _SQLITE_FULL:
            return LedgerError(
                f"cannot {action} the ledger {self.path}: the disk or quota holding it is full ({exc}). Free some "
                f"space there, or set {LEDGER_ENV} to a file on another disk"
            )
        if code == _SQLITE_IOERR:
            return LedgerError(
                f"cannot {action} the ledger {self.path}: the file system reported an I/O error ({exc}). Check the "
                f"disk holding it (space, health, a network mount that went away), or set {LEDGER_ENV} to a file "
                "on another disk"
            )
        if code in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PERM):
            return LedgerError(
                f"cannot {action} the ledger {self.path}: {exc}. Make it and its directory writable, or set "
                f"{LEDGER_ENV} to a writable file path"
            )
        if code in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
            return LedgerError(f"the ledger {self.path} is corrupt ({exc}); it is moved aside on the next open")
        return LedgerError(f"cannot {action} the ledger {self.path}: {exc}")

    async def _run(self, action: str, operation: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        """Run one operation; a file damaged since we opened it is moved aside once and the operation retried."""
        for attempt in (1, 2):
            db = self._db
            if db is None:
                raise LedgerError(f"the ledger {self.path} is closed")
            try:
                async with self._lock:
                    return await operation(db)
            except sqlite3.Error as exc:
                if attempt == 1 and _is_corruption(exc):
                    await self.close()
                    self._move_aside(str(exc))
                    await self._open()
                    continue
                raise self._translate(exc, action) from None
        raise AssertionError("unreachable")

    async def _write(self, action: str, body: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        if not self.writable:
            raise LedgerError(f"cannot {action} the ledger {self.path}: it is open read-only ({self._why_read_only})")

        async def transaction(db: aiosqlite.Connection) -> T:
            await db.execute("BEGIN IMMEDIATE")
            try:
                result = await body(db)
                await db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    await db.execute("ROLLBACK")
                raise
            self._own_writes += 1
            return result

        return await self._run(action, transaction)

    # ---- the contract ---------------------------------------------------------------------------------------------

    async def record(self, draft: EvidenceDraft, *, manifest: Mapping[str, str] | None = None) -> Evidence:
        """Append one receipt, its secrets redacted (`freshpass.ledger.redact`). `manifest` (non-git roots) is kept
        so changed paths can be listed later."""
        _check_draft(draft)
        draft = _redacted(draft)
        created = time.time()
        duration = max(0.0, draft.finished_at - draft.started_at)
        values: dict[str, Any] = {name: getattr(draft, name) for name in _DRAFT_COLUMNS if hasattr(draft, name)}
        values.update(
            created_at=created,
            duration=duration,
            approved=int(draft.approved),
            stale_at_record=int(draft.stale_at_record),
            details=json.dumps(draft.details, sort_keys=True) if draft.details is not None else None,
        )
        params = tuple(
            db_text(values[name]) if isinstance(values[name], str) else values[name] for name in _DRAFT_COLUMNS
        )
        root_key = db_text(draft.root)

        async def body(db: aiosqlite.Connection) -> int:
            cursor = await db.execute(_INSERT_EVIDENCE, params)
            event_id = int(cursor.lastrowid or 0)
            await cursor.close()
            await db.execute(
                "INSERT INTO heads (root, kind, event_id) VALUES (?, ?, ?) "
                "ON CONFLICT (root, kind) DO UPDATE SET event_id = excluded.event_id",
                (root_key, draft.kind, event_id),
            )
            if manifest is not None:
                await db.execute(
                    "INSERT OR IGNORE INTO manifests (content_id, root, created_at, manifest) VALUES (?, ?, ?, ?)",
                    (draft.content_id, root_key, created, _pack_manifest(manifest)),
                )
            if self.retention.every > 0 and event_id % self.retention.every == 0:
                await self._apply_retention(db, root_key, created)
            return event_id

        event_id = await self._write("record evidence in", body)
        recorded = {name: getattr(draft, name) for name in _EVIDENCE_FIELDS if hasattr(draft, name)}
        return Evidence(id=event_id, created_at=created, duration=duration, **recorded)

    async def events(self, root: str | os.PathLike[str], limit: int = 50, *, kind: str | None = None) -> list[Evidence]:
        """Receipts of `root`, newest first."""
        root_key = db_text(os.fspath(root))
        limit = max(0, int(limit))

        async def query(db: aiosqlite.Connection) -> list[Evidence]:
            params: tuple[Any, ...]
            if kind is None:
                sql, params = f"{_SELECT_EVIDENCE} WHERE root = ? ORDER BY id DESC LIMIT ?", (root_key, limit)
            else:
                sql = f"{_SELECT_EVIDENCE} WHERE root = ? AND kind = ? ORDER BY id DESC LIMIT ?"
                params = (root_key, kind, limit)
            async with db.execute(sql, params) as cursor:
                return [_evidence_from_row(row) for row in await cursor.fetchall()]

        return await self._run("read", query)

    async def get(self, event_id: int) -> Evidence | None:
        async def query(db: aiosqlite.Connection) -> Evidence | None:
            async with db.execute(f"{_SELECT_EVIDENCE} WHERE id = ?", (int(event_id),)) as cursor:
                row = await cursor.fetchone()
            return _evidence_from_row(row) if row else None

        return await self._run("read", query)

    async def heads(
        self, root: str | os.PathLike[str], content_id: str
    ) -> tuple[dict[str, Evidence], dict[str, Evidence]]:
        """(fresh, newest) receipts per kind of `root`: fresh = newest that ran against `content_id` and was not
        already stale when recorded; newest = newest of that kind at all. Index lookups only (O(kinds · log n))."""
        root_key = db_text(os.fspath(root))

        async def query(db: aiosqlite.Connection) -> tuple[dict[str, Evidence], dict[str, Evidence]]:
            async with db.execute(
                "SELECT h.kind, h.event_id, (SELECT e.id FROM events AS e WHERE e.root = h.root "
                "AND e.content_id = ? AND e.kind = h.kind AND e.stale_at_record = 0 ORDER BY e.id DESC LIMIT 1) "
                "FROM heads AS h WHERE h.root = ?",
                (content_id, root_key),
            ) as cursor:
                pointers = list(await cursor.fetchall())
            wanted = {int(i) for _, newest, fresh in pointers for i in (newest, fresh) if i is not None}
            if not wanted:
                return {}, {}
            marks = ", ".join("?" for _ in wanted)
            async with db.execute(f"{_SELECT_EVIDENCE} WHERE id IN ({marks})", tuple(wanted)) as cursor:
                by_id = {row[0]: _evidence_from_row(row) for row in await cursor.fetchall()}
            fresh = {kind: by_id[f] for kind, _, f in pointers if f is not None and f in by_id}
            newest = {kind: by_id[n] for kind, n, _ in pointers if n in by_id}
            return fresh, newest

        return await self._run("read", query)

    async def opposites(self, root: str | os.PathLike[str], fresh: Mapping[str, Evidence]) -> dict[str, Evidence]:
        """Per kind, the newest receipt that contradicts `fresh[kind]`: the same full check (canonical command) on
        the same content, not stale when recorded, with the other outcome (a failure for a pass, a pass for a
        failure). Both together are a flaky result. Index lookups only (O(kinds · log n))."""
        root_key = db_text(os.fspath(root))
        wanted = {
            kind: receipt
            for kind, receipt in fresh.items()
            if receipt.scope == "full" and receipt.status in ("passed", "failed") and receipt.id is not None
        }
        if not wanted:
            return {}

        async def query(db: aiosqlite.Connection) -> dict[str, Evidence]:
            found: dict[str, Evidence] = {}
            for kind, receipt in wanted.items():
                other = "failed" if receipt.status == "passed" else "passed"
                async with db.execute(
                    f"{_SELECT_EVIDENCE} WHERE root = ? AND content_id = ? AND kind = ? AND stale_at_record = 0 "
                    "AND scope = 'full' AND status = ? AND canonical_command = ? AND id != ? ORDER BY id DESC LIMIT 1",
                    (root_key, receipt.content_id, kind, other, receipt.canonical_command, receipt.id),
                ) as cursor:
                    row = await cursor.fetchone()
                if row is not None:
                    found[kind] = _evidence_from_row(row)
            return found

        return await self._run("read", query)

    async def manifest(self, content_id: str) -> dict[str, str] | None:
        """The file manifest stored for a non-git content id, if any."""

        async def query(db: aiosqlite.Connection) -> dict[str, str] | None:
            async with db.execute("SELECT manifest FROM manifests WHERE content_id = ?", (content_id,)) as cursor:
                row = await cursor.fetchone()
            return _unpack_manifest(row[0]) if row else None

        return await self._run("read", query)

    async def save_manifest(self, root: str | os.PathLike[str], content_id: str, manifest: Mapping[str, str]) -> None:
        packed = _pack_manifest(manifest)

        async def body(db: aiosqlite.Connection) -> None:
            await db.execute(
                "INSERT OR IGNORE INTO manifests (content_id, root, created_at, manifest) VALUES (?, ?, ?, ?)",
                (content_id, db_text(os.fspath(root)), time.time(), packed),
            )

        await self._write("store a manifest in", body)

    async def data_version(self) -> int:
        """Changes whenever any process (this one included) committed a write since the last call.

        `PRAGMA data_version` is answered from memory, without I/O, but ignores this connection's own commits;
        adding our own write count covers those. Both only grow, so the sum changes exactly when either does.
        """

        async def query(db: aiosqlite.Connection) -> int:
            async with db.execute("PRAGMA data_version") as cursor:
                row = await cursor.fetchone()
            return (int(row[0]) if row else 0) + self._own_writes

        return await self._run("read", query)

    # ---- policies (freshpass.ledger.policy), run in the store's transactions -------------------------------------

    async def nudges_used(self, session: str, root: str | os.PathLike[str], baseline: int | None) -> int:
        """How many nudges `session` had for `root` since the pass `baseline` (the budget's bookkeeping)."""
        return await self._run("read", lambda db: policy.nudges_used(db, session, os.fspath(root), baseline))

    async def record_nudge(self, session: str, root: str | os.PathLike[str], baseline: int | None) -> None:
        await self._write("record a nudge in", lambda db: policy.record_nudge(db, session, os.fspath(root), baseline))

    async def remember_start(self, call: str, root: str | os.PathLike[str], content_id: str | None) -> None:
        """Keep the content `root` had when the tool call `call` started (None: seen, content unreadable). The
        table stays small: starts older than `STARTS_MAX_AGE` or beyond the newest `STARTS_MAX` are dropped."""
        now = time.time()
        root_path = os.fspath(root)
        await self._write(
            "remember a tool call's start in", lambda db: policy.remember_start(db, call, root_path, content_id, now)
        )

    async def take_start(self, call: str) -> tuple[float, str, str | None] | None:
        """(when, root, content id) of the start the pre-tool hook kept for `call`, removed; None when none."""
        return await self._write("take a tool call's start from", lambda db: policy.take_start(db, call))

    async def integrity_check(self) -> list[str]:
        """`PRAGMA integrity_check` rows (["ok"] when sound). Reads the whole file: for tests and diagnosis."""

        async def query(db: aiosqlite.Connection) -> list[str]:
            async with db.execute("PRAGMA integrity_check") as cursor:
                return [str(row[0]) for row in await cursor.fetchall()]

        return await self._run("check", query)

    async def apply_retention(self, root: str | os.PathLike[str] | None = None) -> None:
        """Run retention now (it also runs by itself every `Retention.every` inserts)."""

        async def body(db: aiosqlite.Connection) -> None:
            await self._apply_retention(db, db_text(os.fspath(root)) if root is not None else None, time.time())

        await self._write("prune", body)

    async def _apply_retention(self, db: aiosqlite.Connection, root: str | bytes | None, now: float) -> None:
        await policy.apply_retention(db, self.retention, root, now)


STATUSES = ("passed", "failed")
SCOPES = ("full", "targeted")


def _check_draft(draft: EvidenceDraft) -> None:
    """Reject drafts no reader could interpret; these are programming errors, not user errors."""
    problems = []
    if draft.kind not in KINDS:
        problems.append(f"kind {draft.kind!r} is not one of {', '.join(KINDS)}")
    if draft.status not in STATUSES:
        problems.append(f"status {draft.status!r} is not passed or failed")
    if draft.scope not in SCOPES:
        problems.append(f"scope {draft.scope!r} is not full or targeted")
    if not draft.root or not os.path.isabs(draft.root):
        problems.append(f"root {draft.root!r} is not an absolute path")
    if not draft.content_id:
        problems.append("content_id is empty")
    if draft.observed not in OBSERVED:
        problems.append(f"observed {draft.observed!r} is not one of {', '.join(OBSERVED)}")
    for name in ("started_at", "finished_at"):
        value = getattr(draft, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not EARLIEST <= value <= LATEST:
            problems.append(f"{name} {value!r} is not a time between 2000 and 2200 (epoch seconds)")
    if not problems and draft.finished_at < draft.started_at:
        problems.append("finished_at is before started_at")
    if problems:
        raise ValueError("invalid evidence: " + "; ".join(problems))


def _busy_timeout_from_env() -> float:
    raw = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_BUSY_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise LedgerError(f"{BUSY_TIMEOUT_ENV}={raw!r} is not a number of seconds") from None
    return max(0.0, value)


def _split_statements(script: str) -> list[str]:
    """Split a migration into statements (aiosqlite's executescript would COMMIT our transaction)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip() and not all(part.strip().startswith("--") for part in pending.strip().splitlines()):
        statements.append(pending.strip())
    return statements


def _pack_manifest(manifest: Mapping[str, str]) -> bytes:
    return zlib.compress(json.dumps(dict(manifest), sort_keys=True, separators=(",", ":")).encode(), 6)


def _unpack_manifest(blob: bytes) -> dict[str, str]:
    data = json.loads(zlib.decompress(blob))
    return {str(key): str(value) for key, value in data.items()}


__all__ = [
    "BUSY_TIMEOUT_ENV",
    "LEDGER_ENV",
    "RETENTION_ENV",
    "STARTS_KEY_MAX",
    "STARTS_MAX",
    "STARTS_MAX_AGE",
    "Evidence",
    "EvidenceDraft",
    "Ledger",
    "LedgerError",
    "Retention",
    "db_text",
    "default_ledger_path",
    "iso_time",
    "py_text",
]
