"""Status query latency with 1,000,000 events in the ledger (target: p50 under 2 ms).

Builds a ledger of 1,000,000 events (a hot root holding 200,000 of them, 1,000 other roots sharing the rest,
several kinds and content ids), then times, through the async API the CLI and server use:
- `Ledger.heads` (the status query) for a fresh and for a stale content id,
- `root_status` with the content snapshot supplied (what the server does with its cached snapshot),
- `Ledger.record` (one append, WAL, with retention disabled so the table keeps its size).

    .venv/bin/python bench/bench_ledger.py [--events N] [--runs N] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ledger_report import TABLE_HEAD, row, write_section
from freshpass.evidence.status import root_status
from freshpass.ledger.content import ContentSnapshot, git_content_id
from freshpass.ledger.store import EvidenceDraft, Ledger, Retention

HOT_ROOT = "/home/dev/src/hot-project"
KINDS = ("test", "lint", "typecheck")


def fill(path: Path, total: int) -> None:
    """Bulk-insert `total` events with plain sqlite3 (the schema comes from Ledger.open)."""
    hot = total // 5
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    now = time.time()
    batch: list[tuple[object, ...]] = []
    db.execute("BEGIN")
    for i in range(total):
        root = HOT_ROOT if i < hot else f"/home/dev/src/project-{i % 1000}"
        kind = KINDS[i % len(KINDS)]
        content = git_content_id(f"{(i // 7) % 5000:040x}")
        stamp = now - (total - i) * 0.5
        fields = (stamp, stamp - 3, stamp, 3.0, "terminal:1", "terminal", root, root, "pytest -q", "pytest", 1)
        batch.append((*fields, kind, "full", "passed", 0, content, i % 97 == 0))
        if len(batch) == 20_000:
            insert(db, batch)
            batch.clear()
    insert(db, batch)
    db.execute(
        "INSERT OR REPLACE INTO heads (root, kind, event_id) SELECT root, kind, max(id) FROM events GROUP BY root, kind"
    )
    db.execute("COMMIT")
    db.execute("ANALYZE")
    db.close()


def insert(db: sqlite3.Connection, batch: list[tuple[object, ...]]) -> None:
    db.executemany(
        "INSERT INTO events (created_at, started_at, finished_at, duration, session, actor, cwd, root, command, "
        "canonical_command, approved, kind, scope, status, exit_code, content_id, stale_at_record) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        batch,
    )


async def timed(runs: int, call) -> list[float]:  # type: ignore[no-untyped-def]
    await call()  # warm: page cache, statement cache, worker thread
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return samples


async def measure(path: Path, runs: int) -> list[str]:
    async with await Ledger.open(path, retention=Retention(every=0)) as ledger:
        newest = (await ledger.events(HOT_ROOT, 1))[0]
        fresh_id = newest.content_id
        fresh = ContentSnapshot(root=HOT_ROOT, content_id=fresh_id)
        assert (await ledger.heads(HOT_ROOT, fresh_id))[0], "the benchmark's fresh content id must have evidence"
        results = [
            row(
                "`Ledger.heads` (status query), fresh",
                await timed(runs, lambda: ledger.heads(HOT_ROOT, fresh_id)),
                "p50 < 2 ms",
            ),
            row(
                "`Ledger.heads` (status query), no fresh evidence",
                await timed(runs, lambda: ledger.heads(HOT_ROOT, "git:" + "f" * 40)),
                "p50 < 2 ms",
            ),
            row(
                "`root_status` with a cached snapshot, fresh",
                await timed(runs, lambda: root_status(ledger, HOT_ROOT, None, fresh)),
                "p50 < 2 ms",
            ),
            row("`Ledger.events(root, 20)` (receipts)", await timed(runs, lambda: ledger.events(HOT_ROOT, 20)), "—"),
            row("`Ledger.data_version()`", await timed(runs, ledger.data_version), "—"),
        ]

        def record():  # type: ignore[no-untyped-def]
            now = time.time()
            return ledger.record(
                EvidenceDraft(
                    root=HOT_ROOT,
                    command="pytest",
                    canonical_command="pytest",
                    kind="test",
                    scope="full",
                    status="passed",
                    content_id=fresh_id,
                    started_at=now,
                    finished_at=now,
                )
            )

        results.append(row("`Ledger.record` (one append)", await timed(min(runs, 300), record), "—"))
        return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--write", action="store_true", help="update docs/bench-ledger.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-") as scratch:
        path = Path(scratch) / "ledger.db"
        asyncio.run(_create(path))
        started = time.perf_counter()
        fill(path, args.events)
        build_seconds = time.perf_counter() - started
        size_mb = os.path.getsize(path) / 1e6
        rows = asyncio.run(measure(path, args.runs))
    body = "\n".join(
        [
            f"## Status query with {args.events:,} events",
            "",
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.2f}; "
            f"ledger {size_mb:.0f} MB built in {build_seconds:.0f} s (hot root: {args.events // 5:,} events).",
            "",
            TABLE_HEAD,
            *rows,
        ]
    )
    print(body)
    if args.write:
        write_section("ledger", body)


async def _create(path: Path) -> None:
    async with await Ledger.open(path):
        pass


if __name__ == "__main__":
    main()
