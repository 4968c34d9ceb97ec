"""Test counts from a run's output. The summary patterns belong to each tool (`freshpass.facts.tools`); the
ledger stores what they read."""

from __future__ import annotations

from freshpass.facts.tools.summary import TestCounts, parse_test_counts

__all__ = ["TestCounts", "parse_test_counts"]
