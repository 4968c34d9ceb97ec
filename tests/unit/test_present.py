"""The one presenter of ages and labels (freshpass.evidence.present): the server's lenses and the CLI's lines."""

from __future__ import annotations

from freshpass.evidence.present import age, plural, shared_label
from freshpass.ledger.store import iso_time

NOW = 1_700_000_000.0


def test_an_age_reads_in_its_largest_whole_unit_short_for_an_editor_and_long_for_a_terminal() -> None:
    cases = [
        (0, "just now", "just now"),
        (4.9, "just now", "just now"),
        (5, "5 s ago", "5 seconds ago"),
        (59.9, "59 s ago", "59 seconds ago"),
        (60, "1 min ago", "1 minute ago"),
        (180, "3 min ago", "3 minutes ago"),
        (3600, "1 h ago", "1 hour ago"),
        (7200, "2 h ago", "2 hours ago"),
        (86400, "1 d ago", "1 day ago"),
        (5 * 86400, "5 d ago", "5 days ago"),
        (-30, "just now", "just now"),  # a clock that moved back: never a negative age
    ]
    for ago, short, long in cases:
        assert age(NOW - ago, NOW) == short, ago
        assert age(NOW - ago, NOW, style="long") == long, ago


def test_an_iso_time_of_the_json_outputs_reads_as_its_epoch_and_no_time_as_unknown() -> None:
    assert age(iso_time(NOW - 7200), NOW, style="long") == "2 hours ago"
    assert age(iso_time(NOW - 42), NOW) == "42 s ago"
    assert age(None, NOW) == "at an unknown time"


def test_plural_and_the_shared_label() -> None:
    assert (plural(1, "file"), plural(0, "file"), plural(3, "file")) == ("1 file", "0 files", "3 files")
    assert shared_label({"status": "passed", "scope": "full", "actor": "ci"}, "2 h ago") == "✓ full · CI · 2 h ago"
    assert shared_label({"status": "failed", "scope": "full", "actor": "agent"}, "now") == "✗ failed · agent · now"
