"""Every number and path that arrives is bounded, and a receipt is written exactly when the hook says so.

A hook payload's `duration_ms` of `1e999` (JSON's infinity), NaN, a negative or absurd number never reaches the
receipt's times; what the hook prints agrees with what the ledger holds. A ledger row this version did not write
(an infinite time, a text where a number goes, details that are not JSON) never makes `log`, `log --json` or the
MCP `receipts` tool fail. A transcript path that is a FIFO or a device neither hangs `claude-stop` nor kills it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from freshpass.ledger.paths import default_ledger_path
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.adversarial.conftest import project
from tests.conftest import run_cli


def _record(root: Path, extra: dict[str, Any] | str) -> tuple[dict[str, Any], str]:
    payload = {"command": "pytest -q", "exit_code": 0, "output": "1 passed in 0.01s", "cwd": str(root)}
    text = json.dumps(payload)[:-1] + ", " + extra if isinstance(extra, str) else json.dumps({**payload, **extra})
    result = run_cli("hook", "record", "--json", input=text)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout), result.stderr


def _rows() -> int:
    path = default_ledger_path()
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


@pytest.mark.parametrize(
    "duration",
    ['"duration_ms": 1e999}', '"duration_ms": -1e999}', '"duration_ms": NaN}', '"duration_ms": 1e15}',
     '"duration_ms": -5}', '"duration_ms": 123456789012345678901234567890}', '"duration_ms": "soon"}'],
)  # fmt: skip
def test_a_hostile_duration_never_reaches_the_receipt(tmp_path: Path, duration: str) -> None:
    root = project(tmp_path / "demo")
    outcome, _ = _record(root, duration)
    recorded = outcome.get("receipts") or []
    assert _rows() == len(recorded), outcome  # written exactly when the hook says so
    for receipt in recorded:
        assert 0 <= receipt["duration"] <= 7 * 24 * 3600
    log = run_cli("log", "--json", cwd=root)
    assert log.returncode == 0 and "Traceback" not in log.stderr, log.stderr
    assert len(json.loads(log.stdout)["receipts"]) == len(recorded)


def test_a_week_long_duration_is_kept(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    outcome, _ = _record(root, {"duration_ms": 3_600_000})
    [receipt] = outcome["receipts"]
    assert receipt["duration"] == pytest.approx(3600, abs=5)


ODD_ROWS = {
    "started_at": "1e999",
    "finished_at": "'yesterday'",
    "created_at": "-1e999",
    "duration": "1e999",
    "details": "'{not json'",
    "tests_passed": "'many'",
    "exit_code": "99999999999999999999.5",
    "output_omitted": "-7",
    "status": "42",
    "command": "x'ff00fe'",
}


def _insert_odd_rows(root: Path) -> None:
    """Rows no version of freshpass writes: an older or newer version's, or a hand-edited ledger."""
    with sqlite3.connect(default_ledger_path()) as db:
        row = db.execute("SELECT * FROM events ORDER BY id DESC LIMIT 1").fetchone()
        columns = [c[1] for c in db.execute("PRAGMA table_info(events)")]
        for column, literal in ODD_ROWS.items():
            values = dict(zip(columns, row, strict=True))
            values.pop("id")
            names = ", ".join(values)
            marks = ", ".join(literal if name == column else "?" for name in values)
            db.execute(
                f"INSERT INTO events ({names}) VALUES ({marks})",
                [value for name, value in values.items() if name != column],
            )


async def test_odd_stored_rows_never_make_log_or_receipts_fail(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    outcome, _ = _record(root, {"duration_ms": 100})
    assert outcome["receipts"]
    _insert_odd_rows(root)
    for args in (("log",), ("log", "--json"), ("status",), ("status", "--json")):
        result = run_cli(*args, cwd=root)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        assert result.returncode in (0, 1), (args, result.stderr)
    listed = json.loads(run_cli("log", "--json", "--limit", "50", cwd=root).stdout)
    assert len(listed["receipts"]) == 1 + len(ODD_ROWS)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "freshpass", "mcp", "--root", str(root)], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        answer = await client.call_tool("receipts", {"limit": 50})
        assert not answer.is_error, answer.content
        assert answer.structured_content is not None
        assert len(answer.structured_content["receipts"]) == 1 + len(ODD_ROWS)


@pytest.mark.parametrize("kind", ["fifo", "/dev/urandom", "/dev/zero", "directory", "missing"])
def test_claude_stop_with_a_transcript_that_is_no_regular_file(tmp_path: Path, kind: str) -> None:
    root = project(tmp_path / "demo")
    transcript = tmp_path / "transcript.jsonl"
    if kind == "fifo":
        os.mkfifo(transcript)
    elif kind == "directory":
        transcript.mkdir()
    elif kind.startswith("/dev/"):
        transcript.symlink_to(kind)
    payload = {
        "hook_event_name": "Stop",
        "session_id": "s1",
        "cwd": str(root),
        "transcript_path": str(transcript),
        "agent_transcript_path": kind if kind.startswith("/dev/") else None,
        "stop_hook_active": False,
    }
    result = run_cli("hook", "claude-stop", input=json.dumps(payload), timeout=30)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
