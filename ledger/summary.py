"""Test counts from a run's output. The summary patterns belong to each tool (`freshpass.facts.tools`); the
ledger stores what they read. The counts' shape is in `freshpass.facts.model`, so that reading a receipt never
imports the tool vocabulary; parsing an output does."""

from __future__ import annotations

from freshpass.facts.model import TestCounts

__all__ = ["TestCounts", "parse_test_counts"]


def parse_test_counts(output: str) -> TestCounts | None:
    """The test counts stated in `output`, or None (`freshpass.facts.tools.summary.parse_test_counts`)."""
    from freshpass.facts.tools.summary import parse_test_counts as parse

    return parse(output)
