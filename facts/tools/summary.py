"""A run's output summary, read through each runner's own summary lines (the patterns live with each tool).

`parse_test_counts` counts only what the output states: a run whose output says nothing countable has no counts
(None), never zeros. When several summaries appear (a `&&` chain, cargo's one per test binary) cargo's and go's are
summed and the last pytest/jest/vitest/unittest/mocha summary wins, because those runners print one final total.
`ran_no_tests` says whether the output states that nothing was executed (design §3.7).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from freshpass.facts.model import TestCounts

__all__ = ["TestCounts", "exit_means_no_tests", "parse_test_counts", "ran_no_tests"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_OUTPUT_WINDOW = 256 * 1024


_SHARED = ("rust", "go", "python", "node")  # parsed first, in the order below


def _parsers() -> tuple[Callable[[str], TestCounts | None], ...]:
    """The summary parsers of every ecosystem record: cargo's and go's, then pytest/jest/vitest/unittest/mocha
    (their order matters: a jest run prints no pytest line, but mocha's shape is loose), then the others."""
    from freshpass.facts.ecosystems.registry import ecosystems

    from . import go, node, python, rust

    others = tuple(e.summary for e in ecosystems() if e.summary is not None and e.name not in _SHARED)
    return (
        rust.cargo_counts,
        go.go_counts,
        python.pytest_counts,
        node.jest_counts,
        node.vitest_counts,
        python.unittest_counts,
        node.mocha_counts,
        *dict.fromkeys(others),  # Dart and Flutter, Cabal and Stack share one parser
    )


def parse_test_counts(output: str) -> TestCounts | None:
    """The test counts stated in `output`, or None when no known runner summary is present."""
    text = _ANSI.sub("", output).replace("\r\n", "\n")
    for parser in _parsers():
        counts = parser(text)
        if counts is not None:
            return counts
    return None


def ran_no_tests(output: str) -> bool:
    """Does this output say that no test was executed?"""
    from . import go, jvm, node, php, python, ruby, rust

    if len(output) > 2 * _OUTPUT_WINDOW:  # summaries sit at the end; the head holds collection errors
        output = output[:_OUTPUT_WINDOW] + "\n" + output[-_OUTPUT_WINDOW:]
    patterns = (*python.NO_TESTS, *node.NO_TESTS, *php.NO_TESTS, *ruby.NO_TESTS, *jvm.NO_TESTS)
    if any(p.search(output) for p in patterns):
        return True
    return rust.ran_no_tests(output) or go.ran_no_tests(output)


def exit_means_no_tests(exit_code: int, runners: set[str]) -> bool:
    """pytest and unittest exit 5 when they collected nothing."""
    from .python import EXIT_5_NO_TESTS

    return exit_code == 5 and bool(runners & EXIT_5_NO_TESTS)
