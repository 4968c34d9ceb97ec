"""The evidence store (design §4.1–4.2): records, queries, retention, nudges, change notices and faults."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from freshpass.ledger.schema import SCHEMA_VERSION
from freshpass.ledger.store import (
    SUMMARY_HEAD_CHARS,
    SUMMARY_TAIL_CHARS,
    EvidenceDraft,
    Ledger,
    LedgerError,
    Retention,
    default_ledger_path,
)


def draft(root: str = "/work/project", kind: str = "test", content_id: str = "git:aaa", **overrides) -> EvidenceDraft:
    now = time.time()
    values = {
        "root": root,
        "command": "pytest -q",
        "canonical_command": "pytest",
        "kind": kind,
        "scope": "full",
        "status": "passed",
        "content_id": content_id,
        "started_at": now - 2.0,
        "finished_at": now,
        "exit_code": 0,
        "approved": True,
        "session": "terminal:1",
    }
    values.update(overrides)
    return EvidenceDraft(**values)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def write_garbage(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(data)


@pytest.fixture
def ledger_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "ledger.db"


async def test_default_path_follows_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FRESHPASS_LEDGER", str(tmp_path / "custom.db"))
    assert default_ledger_path() == tmp_path / "custom.db"
    monkeypatch.delenv("FRESHPASS_LEDGER")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_ledger_path() == tmp_path / "xdg" / "freshpass" / "ledger.db"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")
    assert default_ledger_path() == Path.home() / ".local" / "state" / "freshpass" / "ledger.db"


async def test_open_creates_private_file_and_versioned_schema(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        assert ledger.warnings == []
    assert mode_of(ledger_path) == 0o600
    assert mode_of(ledger_path.parent) == 0o700
    with sqlite3.connect(ledger_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_record_round_trip_newest_first(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        first = await ledger.record(draft(tests_passed=3, tests_failed=0, tests_skipped=1, details={"phases": []}))
        second = await ledger.record(draft(kind="lint", status="failed", exit_code=1, reason=None))
        await ledger.record(draft(root="/elsewhere"))
        receipts = await ledger.events("/work/project", 10)
        assert [e.id for e in receipts] == [second.id, first.id]
        assert receipts[1] == first
        assert first.tests == {"passed": 3, "failed": 0, "skipped": 1}
        assert second.tests is None
        assert [e.id for e in await ledger.events("/work/project", 1)] == [second.id]
        assert [e.id for e in await ledger.events("/work/project", 10, kind="test")] == [first.id]
        assert await ledger.get(first.id) == first
        assert first.to_json()["details"] == {"phases": []}
        status_json = first.status_json()
        assert set(status_json) == {
            "id",
            "command",
            "canonical_command",
            "kind",
            "scope",
            "status",
            "exit_code",
            "reason",
            "finished_at",
            "session",
            "tests",
            "observed",
        }
        assert status_json["finished_at"].endswith("Z")


async def test_heads_pick_fresh_and_newest_per_kind(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        old_pass = await ledger.record(draft(content_id="git:old"))
        fresh_pass = await ledger.record(draft(content_id="git:now"))
        during_edit = await ledger.record(draft(content_id="git:now", stale_at_record=True))
        lint = await ledger.record(draft(kind="lint", content_id="git:old"))
        fresh, newest = await ledger.heads("/work/project", "git:now")
        assert {k: e.id for k, e in fresh.items()} == {"test": fresh_pass.id}
        assert {k: e.id for k, e in newest.items()} == {"test": during_edit.id, "lint": lint.id}
        fresh, _ = await ledger.heads("/work/project", "git:old")
        assert {k: e.id for k, e in fresh.items()} == {"test": old_pass.id, "lint": lint.id}
        assert await ledger.heads("/nowhere", "git:now") == ({}, {})


async def test_output_summary_is_bounded_head_and_tail() -> None:
    evidence = draft()
    text = "H" * SUMMARY_HEAD_CHARS + "M" * 10_000 + "T" * SUMMARY_TAIL_CHARS
    evidence.set_output(text, omitted=5)
    assert evidence.output_head == "H" * SUMMARY_HEAD_CHARS
    assert evidence.output_tail == "T" * SUMMARY_TAIL_CHARS
    assert evidence.output_omitted == 10_005
    short = draft()
    short.set_output("all good\n")
    assert (short.output_head, short.output_tail, short.output_omitted) == ("all good\n", "", 0)


async def test_data_version_changes_on_any_write(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as watcher, await Ledger.open(ledger_path) as writer:
        start = await watcher.data_version()
        assert await watcher.data_version() == start
        await writer.record(draft())
        after_other = await watcher.data_version()
        assert after_other != start
        await watcher.record_nudge("agent:1", "/work/project", None)
        assert await watcher.data_version() != after_other


async def test_nudge_budget_is_per_session_root_and_baseline(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        await ledger.record_nudge("agent:1", "/work/project", None)
        await ledger.record_nudge("agent:1", "/work/project", None)
        await ledger.record_nudge("agent:1", "/work/project", 7)
        await ledger.record_nudge("agent:2", "/work/project", None)
        assert await ledger.nudges_used("agent:1", "/work/project", None) == 2
        assert await ledger.nudges_used("agent:1", "/work/project", 7) == 1
        assert await ledger.nudges_used("agent:1", "/work/project", 8) == 0
        assert await ledger.nudges_used("agent:1", "/other", None) == 0


async def test_retention_caps_per_root_and_keeps_what_status_points_at(ledger_path: Path) -> None:
    policy = Retention(per_root=5, global_cap=1_000, every=1)
    async with await Ledger.open(ledger_path, retention=policy) as ledger:
        lint = await ledger.record(draft(kind="lint"))
        recorded = [await ledger.record(draft(content_id=f"git:{i}")) for i in range(12)]
        kept = [e.id for e in await ledger.events("/work/project", 100)]
        # The five newest, plus the newest lint receipt, which a status still points at.
        assert kept == [e.id for e in reversed(recorded[-5:])] + [lint.id]


async def test_retention_drops_old_events_and_applies_global_cap(ledger_path: Path) -> None:
    policy = Retention(max_age_days=30, per_root=100, global_cap=4, every=0)
    async with await Ledger.open(ledger_path, retention=policy) as ledger:
        ancient = await ledger.record(draft(root="/a"))
        await ledger.record(draft(root="/a"))
        for i in range(5):
            await ledger.record(draft(root="/b", content_id=f"git:{i}"))
    with sqlite3.connect(ledger_path) as db:
        db.execute("UPDATE events SET created_at = created_at - 31 * 86400 WHERE id = ?", (ancient.id,))
    async with await Ledger.open(ledger_path, retention=policy) as ledger:
        await ledger.apply_retention()
        assert [e.id for e in await ledger.events("/a", 10)] == [2]  # the newest of /a survives every rule
        assert len(await ledger.events("/b", 10)) == 4


async def test_retention_is_configured_by_the_environment(ledger_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRESHPASS_RETENTION_PER_ROOT", "3")
    monkeypatch.setenv("FRESHPASS_RETENTION_DAYS", "7.5")
    async with await Ledger.open(ledger_path) as ledger:
        assert (ledger.retention.per_root, ledger.retention.max_age_days) == (3, 7.5)
        for i in range(6):
            await ledger.record(draft(content_id=f"git:{i}"))
        await ledger.apply_retention()
        assert len(await ledger.events("/work/project", 100)) == 3


@pytest.mark.parametrize("value", ["0", "-4", "lots", "2.5"])
async def test_bad_retention_settings_name_the_variable(
    ledger_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("FRESHPASS_RETENTION_PER_ROOT", value)
    with pytest.raises(LedgerError, match=r"FRESHPASS_RETENTION_PER_ROOT=.*positive integer"):
        await Ledger.open(ledger_path)


async def test_newer_schema_is_refused_clearly(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path):
        pass
    with sqlite3.connect(ledger_path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(LedgerError, match=r"newer freshpass.*FRESHPASS_LEDGER"):
        await Ledger.open(ledger_path)


async def test_corrupt_file_is_moved_aside_and_kept(ledger_path: Path) -> None:
    garbage = b"this is not a database, it is a shopping list\n" * 200
    write_garbage(ledger_path, garbage)
    async with await Ledger.open(ledger_path) as ledger:
        assert len(ledger.warnings) == 1
        assert "corrupt" in ledger.warnings[0] and str(ledger_path) in ledger.warnings[0]
        evidence = await ledger.record(draft())
        assert [e.id for e in await ledger.events("/work/project")] == [evidence.id]
    kept = list(ledger_path.parent.glob("ledger.db.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == garbage
    assert kept[0].name in ledger.warnings[0]
    async with await Ledger.open(ledger_path) as reopened:
        assert reopened.warnings == []


async def test_unwritable_location_names_path_and_env(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the state dir should be")
    target = blocker / "freshpass" / "ledger.db"
    with pytest.raises(LedgerError) as caught:
        await Ledger.open(target)
    assert str(target) in str(caught.value) and "FRESHPASS_LEDGER" in str(caught.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
async def test_read_only_state_dir_names_path_and_env(tmp_path: Path) -> None:
    state = tmp_path / "readonly"
    state.mkdir()
    state.chmod(0o500)
    try:
        with pytest.raises(LedgerError) as caught:
            await Ledger.open(state / "ledger.db")
    finally:
        state.chmod(0o700)
    assert str(state / "ledger.db") in str(caught.value) and "FRESHPASS_LEDGER" in str(caught.value)


async def test_locked_ledger_waits_then_fails_clearly(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path):
        pass
    holder = sqlite3.connect(ledger_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        async with await Ledger.open(ledger_path, busy_timeout=0.2) as ledger:
            started = time.monotonic()
            with pytest.raises(LedgerError, match="locked by another process") as caught:
                await ledger.record(draft())
            assert time.monotonic() - started >= 0.15  # it waited for the lock before giving up
            assert str(ledger_path) in str(caught.value)
            holder.execute("ROLLBACK")
            await ledger.record(draft())  # once the lock is gone it works again
    finally:
        holder.close()


_WRITER = """
import asyncio, sys, time
from pathlib import Path
from freshpass.ledger.store import EvidenceDraft, Ledger

async def main(path, worker, count, go):
    async with await Ledger.open(Path(path)) as ledger:
        while not Path(go).exists():  # start all writers together: the point is contention
            await asyncio.sleep(0.005)
        for i in range(count):
            now = time.time()
            await ledger.record(EvidenceDraft(
                root=f"/root/{worker}", command="pytest", canonical_command="pytest", kind="test", scope="full",
                status="passed", content_id=f"git:{i}", started_at=now, finished_at=now, session=f"w{worker}"))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
"""


def test_four_processes_writing_at_once_lose_nothing(ledger_path: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(ledger_path), str(worker), "200", str(go)])
        for worker in range(4)
    ]
    # The writers race on creating the file and its schema, then on appending: the go file releases their
    # appends together as soon as each has opened the ledger.
    go.touch()
    codes = [writer.wait(timeout=120) for writer in writers]
    assert codes == [0, 0, 0, 0]
    with sqlite3.connect(ledger_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        per_worker = dict(db.execute("SELECT session, count(*) FROM events GROUP BY session").fetchall())
        assert per_worker == {"w0": 200, "w1": 200, "w2": 200, "w3": 200}
        assert db.execute("SELECT count(DISTINCT id) FROM events").fetchone()[0] == 800


async def test_invalid_drafts_are_refused(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        with pytest.raises(ValueError, match=r"status 'ok'.*scope 'wide'"):
            await ledger.record(draft(status="ok", scope="wide"))
        with pytest.raises(ValueError, match="not an absolute path"):
            await ledger.record(draft(root="relative/root"))
        assert await ledger.events("/work/project") == []


def loosen(ledger_path: Path) -> Path:
    """Make the ledger and a -wal companion world-readable, as an older freshpass or a copy might leave them."""
    ledger_path.chmod(0o644)
    wal = ledger_path.with_name(ledger_path.name + "-wal")
    wal.write_bytes(b"")
    wal.chmod(0o644)
    return wal


async def test_an_existing_loose_ledger_is_tightened_to_0600(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        await ledger.record(draft())
    wal = loosen(ledger_path)
    async with await Ledger.open(ledger_path) as ledger:
        assert len(await ledger.events("/work/project")) == 1
    assert mode_of(ledger_path) == 0o600
    if wal.exists():
        assert mode_of(wal) == 0o600


async def test_texts_that_are_not_utf8_round_trip(ledger_path: Path) -> None:
    root = os.fsdecode(b"/work/caf\xe9")  # a directory name in Latin-1: surrogate escapes in Python
    command = os.fsdecode(b"pytest tests/t\xff.py")
    async with await Ledger.open(ledger_path) as ledger:
        recorded = await ledger.record(draft(root=root, command=command, cwd=root), manifest={"a\udcff": "1"})
        assert recorded.root == root
        [back] = await ledger.events(root)
        assert back.root == root and back.command == command and back.cwd == root
        fresh, newest = await ledger.heads(root, "git:aaa")
        assert fresh["test"].id == recorded.id and newest["test"].id == recorded.id
        assert await ledger.events("/work/caf\u00e9") == []  # the UTF-8 spelling is another directory
        assert await ledger.manifest("git:aaa") == {"a\udcff": "1"}
        await ledger.record_nudge("s", root, None)
        assert await ledger.nudges_used("s", root, None) == 1
        await ledger.apply_retention()


async def test_record_redacts_every_stored_text(ledger_path: Path) -> None:
    token = "ghp_" + "x1" * 18
    secret_draft = draft(
        command=f"GITHUB_TOKEN={token} pytest -q",
        canonical_command=f"pytest --token {token}",
        reason=f"failed with {token}",
        details={"verify": {"commands": [{"output_tail": f"Authorization: Bearer {token}"}]}},
    )
    # Across the head/tail cut (1,500 characters): redacted before it is cut, so no part of it survives.
    secret_draft.set_output("a" * 1480 + f" password={token} " + "b" * 5000)
    async with await Ledger.open(ledger_path) as ledger:
        returned = await ledger.record(secret_draft)
        [stored] = await ledger.events("/work/project")
    for evidence in (returned, stored):
        dumped = str(evidence.to_json())
        assert token not in dumped
        assert evidence.command == "GITHUB_TOKEN=[REDACTED:github-token] pytest -q"
        assert " password=[REDACTED" in evidence.output_head  # the redaction was cut, not the secret
    raw = sqlite3.connect(ledger_path).execute("SELECT * FROM events").fetchall()
    assert token not in repr(raw)


async def test_a_ledger_that_cannot_be_written_is_read(ledger_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        await ledger.record(draft())
    from freshpass.ledger import store

    def read_only_mount(self: Ledger) -> None:
        raise store._WriteFailure(LedgerError(f"cannot create or open the ledger {self.path}: Read-only file system"))

    monkeypatch.setattr(Ledger, "_prepare_file", read_only_mount)
    with pytest.raises(LedgerError, match="Read-only file system"):
        await Ledger.open(ledger_path)  # a writer is told
    async with await Ledger.open(ledger_path, read_only=True) as ledger:  # a reader reads
        assert not ledger.writable
        assert any("read-only" in warning for warning in ledger.warnings)
        assert len(await ledger.events("/work/project")) == 1
        with pytest.raises(LedgerError, match="open read-only"):
            await ledger.record(draft())
    async with await Ledger.open(ledger_path.with_name("missing.db"), read_only=True) as ledger:
        assert await ledger.events("/work/project") == []  # nothing there, nothing created
    assert not ledger_path.with_name("missing.db").exists()


async def test_a_full_disk_is_named_as_such(ledger_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = Ledger(ledger_path, 1.0, Retention())
    full = os.statvfs_result((4096, 4096, 100, 0, 0, 100, 0, 0, 0, 255))
    monkeypatch.setattr(os, "statvfs", lambda path: full)
    error = ledger._translate(sqlite3.OperationalError("disk I/O error"), "record evidence in")
    assert "the disk holding it is full (0 bytes free)" in str(error)
    assert "writable" not in str(error)
    monkeypatch.setattr(
        os, "statvfs", lambda path: os.statvfs_result((4096, 4096, 10**6, 10**6, 10**6, 0, 0, 0, 0, 255))
    )
    error = ledger._translate(sqlite3.OperationalError("disk I/O error"), "record evidence in")
    assert "I/O error" in str(error) and "writable" not in str(error)


async def test_a_tool_calls_start_is_taken_once_and_the_table_stays_bounded(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        await ledger.remember_start("s\x1ftoolu_1", "/work/project", "git:abc")
        await ledger.remember_start("s\x1ftoolu_2", "/work/project", None)
        taken = await ledger.take_start("s\x1ftoolu_1")
        assert taken is not None and taken[1:] == ("/work/project", "git:abc")
        assert await ledger.take_start("s\x1ftoolu_1") is None  # taken: a replayed report finds no start
        assert (await ledger.take_start("s\x1ftoolu_2"))[1:] == ("/work/project", None)  # type: ignore[index]


async def test_observed_is_kept_and_checked(ledger_path: Path) -> None:
    async with await Ledger.open(ledger_path) as ledger:
        kept = await ledger.record(draft(observed="unconfirmed"))
        assert (kept.observed, kept.counted_scope, kept.scope) == ("unconfirmed", "targeted", "full")
        assert (await ledger.get(kept.id)).observed == "unconfirmed"  # type: ignore[union-attr]
        with pytest.raises(ValueError, match="observed"):
            await ledger.record(draft(observed="made up"))
