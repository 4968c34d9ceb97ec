"""Test counts from a runner's own summary lines (pytest, unittest, jest, vitest, mocha, go test -v, cargo test).

Only what the output states is counted; a run whose output says nothing countable has no counts (None), never
zeros. When several summaries appear (a `&&` chain, cargo's one per test binary) cargo's and go's are summed
and the last pytest/jest/vitest/unittest/mocha summary wins, because those runners print one final total.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

_PYTEST = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+)(?: in [\d.]+s)?(?: \([^)]*\))?\s*=*\s*$", re.MULTILINE)
_PYTEST_PART = re.compile(r"(\d+) ([a-z]+)")
_JEST = re.compile(r"^Tests:\s+(.*?\d+ total)\s*$", re.MULTILINE)
_VITEST = re.compile(r"^\s*Tests\s+(.*?)\s*\((\d+)\)\s*$", re.MULTILINE)
_COUNT_WORD = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")
_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", re.MULTILINE)
_GO = re.compile(r"^\s*--- (PASS|FAIL|SKIP): ", re.MULTILINE)
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in ", re.MULTILINE)
_UNITTEST_RESULT = re.compile(r"^(OK|FAILED)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
_MOCHA = re.compile(r"^\s+(\d+) (passing|failing|pending)\b", re.MULTILINE)


@dataclass(frozen=True)
class TestCounts:
    __test__ = False  # a result, not a pytest test class

    passed: int
    failed: int
    skipped: int


def parse_test_counts(output: str) -> TestCounts | None:
    """The test counts stated in `output`, or None when no known runner summary is present."""
    text = _ANSI.sub("", output).replace("\r\n", "\n")
    for parser in (_cargo, _go, _pytest, _jest, _vitest, _unittest, _mocha):
        counts = parser(text)
        if counts is not None:
            return counts
    return None


def _cargo(text: str) -> TestCounts | None:
    results = _CARGO.findall(text)
    if not results:
        return None
    return TestCounts(
        passed=sum(int(r[0]) for r in results),
        failed=sum(int(r[1]) for r in results),
        skipped=sum(int(r[2]) for r in results),
    )


def _go(text: str) -> TestCounts | None:
    verdicts = _GO.findall(text)
    if not verdicts:
        return None
    return TestCounts(verdicts.count("PASS"), verdicts.count("FAIL"), verdicts.count("SKIP"))


def _pytest(text: str) -> TestCounts | None:
    found: TestCounts | None = None
    for match in _PYTEST.finditer(text):
        parts = {word: int(number) for number, word in _PYTEST_PART.findall(match.group(1))}
        known = {"passed", "failed", "error", "errors", "skipped", "xfailed", "xpassed", "deselected", "warning"}
        if not parts or not set(parts) <= known | {"warnings", "rerun"}:
            continue
        if not {"passed", "failed", "error", "errors", "skipped", "xfailed", "xpassed"} & set(parts):
            continue  # "5 deselected" or "2 warnings" alone is not a result
        found = TestCounts(
            passed=parts.get("passed", 0) + parts.get("xpassed", 0),
            failed=parts.get("failed", 0) + parts.get("error", 0) + parts.get("errors", 0),
            skipped=parts.get("skipped", 0) + parts.get("xfailed", 0),
        )
    return found


def _words(summary: str) -> dict[str, int]:
    return {word: int(number) for number, word in _COUNT_WORD.findall(summary)}


def _jest(text: str) -> TestCounts | None:
    results = _JEST.findall(text)
    if not results:
        return None
    parts = _words(results[-1])
    return TestCounts(parts.get("passed", 0), parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))


def _vitest(text: str) -> TestCounts | None:
    results = _VITEST.findall(text)
    if not results:
        return None
    parts = _words(results[-1][0])
    if not parts:
        return None
    return TestCounts(parts.get("passed", 0), parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))


def _unittest(text: str) -> TestCounts | None:
    ran = _UNITTEST_RAN.findall(text)
    verdicts = _UNITTEST_RESULT.findall(text)
    if not ran or not verdicts:
        return None
    total = int(ran[-1])
    details = {key.strip(): int(value) for key, value in re.findall(r"(\w+)=(\d+)", verdicts[-1][1])}
    failed = details.get("failures", 0) + details.get("errors", 0) + details.get("unexpected_successes", 0)
    skipped = details.get("skipped", 0) + details.get("expected_failures", 0)
    return TestCounts(max(0, total - failed - skipped), failed, skipped)


def _mocha(text: str) -> TestCounts | None:
    parts = {word: int(number) for number, word in _MOCHA.findall(text)}
    if "passing" not in parts and "failing" not in parts:
        return None
    return TestCounts(parts.get("passing", 0), parts.get("failing", 0), parts.get("pending", 0))
