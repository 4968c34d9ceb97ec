"""The words the server shows: lens titles, diagnostic messages, the why-stale hover."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from freshpass.evidence.status import Status
from freshpass.ledger.shared import Provenance, SharedView, Signature, from_evidence
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


TWO_H_AGO = NOW - 7200
NOT_COUNTING = "shared receipts do not count here (shared.trust is off)"


def shared_view(*, counted: bool = False, signer: str | None = None, **changes: Any) -> SharedView:
    """A shared receipt CI recorded two hours ago (design §4.6), as a status lists it."""
    local = status(
        "passed", **{"finished_at": TWO_H_AGO, "started_at": TWO_H_AGO - 1, "command": "pytest -q", **changes}
    )
    assert local.evidence is not None
    receipt = from_evidence(
        local.evidence, root=".", provenance=Provenance("ci", "github-actions"), commit="", version="0.1.0",
        ignore=[], ignore_prose=True,
    )  # fmt: skip
    signature = Signature("good", signer) if signer else Signature("none")
    return SharedView(receipt, signature, counted, None if counted else NOT_COUNTING)


def standing_in(view: SharedView) -> Status:
    """The status of a root whose only fresh receipt is the counted shared one."""
    evidence = view.evidence("/r")
    return Status("/r", evidence.status, evidence.scope, {}, evidence, shared=(view,))


def test_shared_receipts_have_a_lens_of_their_own_until_one_is_the_status() -> None:
    shown = replace(status("unverified"), shared=(shared_view(),))
    assert present.shared_lens_title(shown, NOW) == "shared ✓ full · CI · 2 h ago · not counted"
    beaten = replace(status("failed"), shared=(shared_view(counted=True),))
    assert present.shared_lens_title(beaten, NOW) == "shared ✓ full · CI · 2 h ago · a local run wins"
    assert present.shared_lens_title(status("unverified"), NOW) is None
    counted = standing_in(shared_view(counted=True))
    assert present.shared_lens_title(counted, NOW) is None
    assert present.lens_title(counted, NOW) == "✓ full · CI · 2 h ago · pytest -q"
    hover = present.hover_markdown("src/app.py", counted, command="uv run pytest", now=NOW)
    assert "| receipt | shared |" in hover and "| by | ci (shared) |" in hover
    assert "- ✓ full · CI · 2 h ago `pytest -q` (github-actions) — counts" in hover
    not_counted = present.hover_markdown("src/app.py", shown, command="uv run pytest", now=NOW)
    assert f"- ✓ full · CI · 2 h ago `pytest -q` (github-actions) — does not count: {NOT_COUNTING}" in not_counted


def test_what_others_wrote_is_shown_in_the_hover_never_rendered() -> None:
    """A shared receipt's command and reason come from whoever could push the notes ref (design §4.6)."""
    hostile = "pytest `` x | ![pixel](https://evil.example/p.png)\n\n<img src=x> [run](command:freshpass.verify)"
    view = shared_view(
        counted=True, signer="ci@acme <script>", command=hostile, status="failed",
        reason="boom <b>*really*</b> | [x](https://evil.example)",
    )  # fmt: skip
    hover = present.hover_markdown("src/app.py", standing_in(view), command="uv run pytest", now=NOW)
    assert "\n\n<img" not in hover and "\\n\\n" in hover  # the line break is shown, not taken
    outside_code = "".join(re.split(r"`{3,}.*?`{3,}", hover))
    for raw in ("![pixel](", "<img", "[run](", "<b>", "*really*", "[x](", "<script>"):
        assert not re.search(r"(?<!\\)" + re.escape(raw), outside_code), raw  # only escaped, if at all
    span = "```pytest `` x | ![pixel](https://evil.example/p.png)\\n\\n<img src=x> [run](command:freshpass.verify)```"
    in_table = span.replace("|", "\\|")
    assert f"| command | {in_table} |" in hover and f"2 h ago {span} (" in hover
    reason = "boom \\<b\\>\\*really\\*\\</b\\> \\| \\[x\\](https://evil.example)"
    assert f"| result | failed (full, exit 0: {reason}) |" in hover
    rows = [line for line in hover.splitlines() if line.startswith("| command |")]
    assert len(rows) == 1 and rows[0].replace("\\|", "").count("|") == 3  # one table row of two cells
    assert "(github-actions, ci@acme \\<script\\>)" in hover
