"""The words the server shows: lens titles, diagnostic messages, the why-stale hover."""

from __future__ import annotations

import datetime as dt
from typing import Any

from freshpass.evidence.status import Status
from freshpass.ledger.store import Evidence
from freshpass.server import present

NOW = dt.datetime(2026, 11, 29, 12, 0, 0, tzinfo=dt.timezone.utc).timestamp()
THREE_MIN_AGO = NOW - 180


def status(state: str, *, scope: str | None = "full", changed: list[str] | None = None, **evidence: Any) -> Status:
    values: dict[str, Any] = {
        "id": 7,
        "created_at": THREE_MIN_AGO,
        "root": "/r",
        "command": "uv run pytest",
        "canonical_command": "pytest",
        "kind": "test",
        "scope": scope,
        "status": "passed",
        "content_id": "git:" + "a" * 40,
        "started_at": THREE_MIN_AGO - 1,
        "finished_at": THREE_MIN_AGO,
        "duration": 1.0,
        "exit_code": 0,
        "session": "lsp:Neovim:1234",
        "tests_passed": 3,
        "tests_failed": 0,
        "tests_skipped": 1,
        **evidence,
    }
    receipt = None if state == "unverified" else Evidence(**values)
    return Status("/r", state, scope, {}, receipt, tuple(changed or ()))


def test_age_words() -> None:
    assert present.age(NOW - 2, NOW) == "just now"
    assert present.age(NOW - 42, NOW) == "42 s ago"
    assert present.age(NOW - 180, NOW) == "3 min ago"
    assert present.age(NOW - 7200, NOW) == "2 h ago"
    assert present.age(NOW - 5 * 86400, NOW) == "5 d ago"
    assert present.age(None, NOW) == "at an unknown time"


def test_lens_titles_for_each_status() -> None:
    assert present.lens_title(status("passed"), NOW) == "✓ full · uv run pytest · 3 min ago"
    assert present.lens_title(status("passed", scope="targeted"), NOW) == "◐ targeted · uv run pytest · 3 min ago"
    failed = status("failed", status="failed", exit_code=5, reason="no tests ran")
    assert present.lens_title(failed, NOW) == "✗ failed · no tests ran · uv run pytest · 3 min ago"
    assert present.lens_title(status("failed", status="failed", exit_code=1), NOW).startswith("✗ failed · exit 1 ·")
    stale = status("stale", changed=["a.py", "b.py"])
    assert present.lens_title(stale, NOW) == "⚠ unverified · 2 files changed · since uv run pytest passed 3 min ago"
    assert present.lens_title(status("unverified"), NOW) == "⚠ unverified · no receipt yet"
    assert present.lens_title(status("unverified"), NOW, changed_count=1) == (
        "⚠ unverified · 1 file changed · no receipt yet"
    )


def test_stale_message_names_the_receipt_the_count_the_time_and_the_command() -> None:
    latest = NOW - 10
    message = present.stale_message(
        "src/a.py",
        status("stale", changed=["src/a.py", "src/b.py"]),
        command="uv run pytest",
        changed_count=2,
        latest_change=latest,
        now=NOW,
    )
    assert message.startswith("`src/a.py` changed since `uv run pytest` passed (full) 3 min ago")
    assert f"(2 files changed since, latest at {present.clock(latest)})" in message
    assert message.endswith("Run `uv run pytest` to get fresh evidence.")


def test_stale_message_changes_with_each_new_edit() -> None:
    stale = status("stale", changed=["a.py"])

    def message(count: int, latest: float, number: int) -> str:
        return present.stale_message(
            "a.py", stale, command="make test", changed_count=count, latest_change=latest, change_number=number
        )

    # a later edit; another file; a second edit within the same second
    variants = {message(1, NOW - 60, 1), message(1, NOW - 5, 2), message(2, NOW - 5, 3), message(2, NOW - 5, 4)}
    assert len(variants) == 4


def test_stale_message_without_receipt_and_with_unsaved_changes() -> None:
    message = present.stale_message(
        "a.py", status("unverified"), command=None, changed_count=1, latest_change=None, unsaved=True
    )
    assert "not covered by any receipt: nothing has been verified in this root yet (1 file changed)" in message
    assert "Unsaved changes in this buffer are not covered" in message
    assert "No verify command is declared" in message
    only_unsaved = present.stale_message(
        "a.py",
        status("passed"),
        command="make test",
        changed_count=0,
        latest_change=None,
        unsaved=True,
        disk_stale=False,
    )
    assert only_unsaved.startswith("Unsaved changes")


def test_hover_shows_the_receipt_and_exactly_what_changed() -> None:
    text = present.hover_markdown(
        "src/a.py", status("stale", changed=["src/a.py", "src/b.py"]), command="uv run pytest", now=NOW
    )
    assert "| receipt | #7 |" in text
    assert "| command | `uv run pytest` |" in text
    assert "| result | passed (full) |" in text
    assert "| by | lsp:Neovim:1234 |" in text
    assert "3 passed, 0 failed, 1 skipped" in text
    assert "**Changed since** (2 files):\n- `src/a.py`\n- `src/b.py`" in text
    assert text.rstrip().endswith("Run: `uv run pytest`")


def test_hover_caps_long_change_lists() -> None:
    changed = [f"f{i}.py" for i in range(60)]
    text = present.hover_markdown(None, status("stale", changed=changed), command=None, now=NOW)
    assert "- … and 10 more" in text
    assert "`f49.py`" in text and "`f50.py`" not in text
