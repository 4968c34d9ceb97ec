"""Test counts parsed from runners' own summary lines."""

from __future__ import annotations

import pytest
from freshpass.ledger.summary import TestCounts, parse_test_counts


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("....F.s\n==== 1 failed, 4 passed, 1 skipped, 2 warnings in 0.31s ====\n", TestCounts(4, 1, 1)),
        ("..\n2 passed in 0.01s\n", TestCounts(2, 0, 0)),
        ("= 3 passed, 1 xfailed, 1 xpassed, 2 errors in 1.20s (0:00:01) =\n", TestCounts(4, 2, 1)),
        ("\x1b[32m===== \x1b[32m\x1b[1m5 passed\x1b[0m\x1b[32m in 0.05s\x1b[0m =====\x1b[0m\n", TestCounts(5, 0, 0)),
        (
            "Test Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 2 skipped, 9 passed, 12 total\n",
            TestCounts(9, 1, 2),
        ),
        (
            " Test Files  1 failed | 3 passed (4)\n      Tests  2 failed | 10 passed | 1 skipped (13)\n",
            TestCounts(10, 2, 1),
        ),
        (
            "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    --- FAIL: TestB/sub (0.00s)\n"
            "--- SKIP: TestC (0.00s)\nFAIL\n",
            TestCounts(1, 1, 1),
        ),
        (
            "test result: ok. 5 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out\n"
            "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n",
            TestCounts(7, 1, 1),
        ),
        ("......\n----\nRan 6 tests in 0.002s\n\nFAILED (failures=1, errors=1, skipped=1)\n", TestCounts(3, 2, 1)),
        ("Ran 4 tests in 0.001s\n\nOK\n", TestCounts(4, 0, 0)),
        ("  12 passing (30ms)\n  1 pending\n  2 failing\n", TestCounts(12, 2, 1)),
    ],
)
def test_runner_summaries(output: str, expected: TestCounts) -> None:
    assert parse_test_counts(output) == expected


@pytest.mark.parametrize(
    "output",
    ["", "ok  \texample.com/pkg\t0.01s\n", "Compiling...\nFinished\n", "==== 3 deselected in 0.01s ====\n"],
)
def test_nothing_countable_is_none_not_zero(output: str) -> None:
    assert parse_test_counts(output) is None
