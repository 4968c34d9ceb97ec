"""Output summary parsers of the runners the ecosystems below use, each from the runner's documented summary lines.

Each returns None when its summary is absent: a run whose output states nothing countable has no counts."""

from __future__ import annotations

import re

from freshpass.facts.lazyre import lazy
from freshpass.facts.tools.summary import TestCounts

_DOTNET = lazy(r"^\s*(Passed|Failed)!\s+-\s+Failed:\s+(\d+),\s+Passed:\s+(\d+),\s+Skipped:\s+(\d+),", re.M)
_DOTNET_MTP = lazy(r"^Test summary: total: (\d+), failed: (\d+), succeeded: (\d+), skipped: (\d+)", re.M)


def dotnet(text: str) -> TestCounts | None:
    """`Passed!  - Failed: 0, Passed: 5, Skipped: 0, Total: 5 …` once per test project (summed), or the newer
    `Test summary: total: 5, failed: 0, succeeded: 5, skipped: 0, …`."""
    rows = _DOTNET.findall(text)
    if rows:
        return TestCounts(sum(int(r[2]) for r in rows), sum(int(r[1]) for r in rows), sum(int(r[3]) for r in rows))
    mtp = _DOTNET_MTP.findall(text)
    if mtp:
        _total, failed, passed, skipped = map(int, mtp[-1])
        return TestCounts(passed, failed, skipped)
    return None


_XCTEST = lazy(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures? \(\d+ unexpected\)", re.M)
_SWIFT_TESTING_PASSED = lazy(r"Test run with (\d+) tests?(?: in \d+ suites?)? passed after", re.M)


def swift(text: str) -> TestCounts | None:
    """XCTest's last `Executed 5 tests, with 1 test skipped and 0 failures (0 unexpected) in …`, else
    swift-testing's `Test run with 5 tests passed after …` (its failure line counts issues, not tests)."""
    rows = _XCTEST.findall(text)
    if rows:
        executed, skipped, failed = int(rows[-1][0]), int(rows[-1][1] or 0), int(rows[-1][2])
        return TestCounts(max(executed - skipped - failed, 0), failed, skipped)
    passed = _SWIFT_TESTING_PASSED.findall(text)
    return TestCounts(int(passed[-1]), 0, 0) if passed else None


_TASTY_OK = lazy(r"^All (\d+) tests passed", re.M)
_TASTY_FAIL = lazy(r"^(\d+) out of (\d+) tests failed", re.M)
_HSPEC = lazy(r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?", re.M)


def haskell(text: str) -> TestCounts | None:
    """tasty's `All 12 tests passed` / `3 out of 12 tests failed`, hspec's `12 examples, 0 failures, 1 pending`
    (summed over test suites)."""
    counts = [TestCounts(int(n), 0, 0) for n in _TASTY_OK.findall(text)]
    counts += [TestCounts(int(t) - int(f), int(f), 0) for f, t in _TASTY_FAIL.findall(text)]
    counts += [TestCounts(int(e) - int(f) - int(p or 0), int(f), int(p or 0)) for e, f, p in _HSPEC.findall(text)]
    return _sum(counts)


_CTEST = lazy(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)", re.M)
_CTEST_SKIPPED = lazy(r"^\s*\d+ - .+ \((Skipped|Disabled)\)\s*$", re.M)


def ctest(text: str) -> TestCounts | None:
    """`100% tests passed, 0 tests failed out of 5`, with the tests listed as `(Skipped)` under "did not run"."""
    rows = _CTEST.findall(text)
    if not rows:
        return None
    failed, total = int(rows[-1][0]), int(rows[-1][1])
    skipped = len(_CTEST_SKIPPED.findall(text))
    return TestCounts(max(total - failed - skipped, 0), failed, skipped)


_MESON = lazy(r"^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+(\d+)\s*$", re.M)


def meson(text: str) -> TestCounts | None:
    """meson test's closing table: `Ok: 5`, `Fail: 1`, `Skipped: 0`, `Timeout: 0` …"""
    rows = dict(_MESON.findall(text))
    if "Ok" not in rows:
        return None
    failed = int(rows.get("Fail", 0)) + int(rows.get("Timeout", 0)) + int(rows.get("Unexpected Pass", 0))
    return TestCounts(int(rows["Ok"]) + int(rows.get("Expected Fail", 0)), failed, int(rows.get("Skipped", 0)))


_AUTOMAKE = lazy(r"^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):\s+(\d+)\s*$", re.M)


def automake(text: str) -> TestCounts | None:
    """Automake's parallel harness: `# TOTAL: 5`, `# PASS: 4`, `# SKIP: 0`, `# XFAIL: 0`, `# FAIL: 1` …"""
    rows = dict(_AUTOMAKE.findall(text))
    if "TOTAL" not in rows:
        return None
    failed = int(rows.get("FAIL", 0)) + int(rows.get("XPASS", 0)) + int(rows.get("ERROR", 0))
    return TestCounts(int(rows.get("PASS", 0)) + int(rows.get("XFAIL", 0)), failed, int(rows.get("SKIP", 0)))


_PROVE = lazy(r"^Files=\d+, Tests=(\d+),", re.M)
_PROVE_FAILED = lazy(r"^Failed (\d+)/(\d+) subtests", re.M)


def prove(text: str) -> TestCounts | None:
    """TAP::Harness: `Files=3, Tests=42, …` and, when some failed, `Failed 2/42 subtests`."""
    rows = _PROVE.findall(text)
    if not rows:
        return None
    total = int(rows[-1])
    failed = sum(int(f) for f, _ in _PROVE_FAILED.findall(text))
    return TestCounts(max(total - failed, 0), failed, 0)


_EXUNIT = lazy(
    r"^(?:(\d+) doctests?, )?(?:(\d+) propert(?:y|ies), )?(\d+) tests?, (\d+) failures?"
    r"(?:, (\d+) (?:skipped|excluded))?",
    re.M,
)


def exunit(text: str) -> TestCounts | None:
    """ExUnit's `1 doctest, 5 tests, 1 failure, 2 skipped` (gleeunit prints the same `5 tests, 0 failures`)."""
    rows = _EXUNIT.findall(text)
    if not rows:
        return None
    doctests, properties, tests, failures, skipped = (int(x or 0) for x in rows[-1])
    total = doctests + properties + tests
    return TestCounts(max(total - int(failures) - skipped, 0), int(failures), skipped)


_EUNIT_ALL = lazy(r"^\s*All (\d+) tests passed\.", re.M)
_EUNIT_SOME = lazy(r"^\s*Failed: (\d+)\.\s+Skipped: (\d+)\.\s+Passed: (\d+)\.", re.M)
_CT_SOME = lazy(r"^\s*Failed (\d+) tests?\. Passed (\d+) tests?\.", re.M)


def erlang(text: str) -> TestCounts | None:
    """EUnit's `All 5 tests passed.` / `Failed: 1.  Skipped: 0.  Passed: 4.`, Common Test's `Failed 1 tests.
    Passed 4 tests.`"""
    some = _EUNIT_SOME.findall(text)
    if some:
        failed, skipped, passed = map(int, some[-1])
        return TestCounts(passed, failed, skipped)
    ct = _CT_SOME.findall(text)
    if ct:
        return TestCounts(int(ct[-1][1]), int(ct[-1][0]), 0)
    passed_all = _EUNIT_ALL.findall(text)
    return TestCounts(int(passed_all[-1]), 0, 0) if passed_all else None


_ZIG_SUMMARY = lazy(r"^Build Summary: .*?(\d+)/(\d+) tests passed(?:; (\d+) skipped)?(?:; (\d+) failed)?", re.M)
_ZIG_TEST_ALL = lazy(r"^All (\d+) tests passed\.", re.M)
_ZIG_TEST_SOME = lazy(r"^(\d+) passed; (\d+) skipped; (\d+) failed\.", re.M)


def zig(text: str) -> TestCounts | None:
    """`zig build test --summary all`: `Build Summary: 3/3 steps succeeded; 12/12 tests passed`; `zig test`:
    `All 5 tests passed.` / `3 passed; 1 skipped; 1 failed.`"""
    rows = _ZIG_SUMMARY.findall(text)
    if rows:
        passed, total, skipped, failed = (int(x or 0) for x in rows[-1])
        return TestCounts(passed, failed or max(total - passed - skipped, 0), skipped)
    some = _ZIG_TEST_SOME.findall(text)
    if some:
        passed, skipped, failed = map(int, some[-1])
        return TestCounts(passed, failed, skipped)
    passed_all = _ZIG_TEST_ALL.findall(text)
    return TestCounts(int(passed_all[-1]), 0, 0) if passed_all else None


_DART = lazy(r"^\d+:\d+ \+(\d+)(?: ~(\d+))?(?: -(\d+))?: (?:All tests passed!|Some tests failed\.)", re.M)


def dart(text: str) -> TestCounts | None:
    """The last line of dart's (and flutter's) compact reporter: `00:02 +40 ~1 -2: Some tests failed.`"""
    rows = _DART.findall(text)
    if not rows:
        return None
    passed, skipped, failed = (int(x or 0) for x in rows[-1])
    return TestCounts(passed, failed, skipped)


_SBT = lazy(r"^\[\w+\] (?:Passed|Failed): Total (\d+), Failed (\d+), Errors (\d+), Passed (\d+)"
                  r"(?:, Skipped (\d+))?", re.M)  # fmt: skip


def sbt(text: str) -> TestCounts | None:
    """sbt's `[info] Passed: Total 5, Failed 0, Errors 0, Passed 5` / `[error] Failed: Total 5, Failed 1, …`."""
    rows = _SBT.findall(text)
    if not rows:
        return None
    _total, failed, errors, passed, skipped = (int(x or 0) for x in rows[-1])
    return TestCounts(passed, failed + errors, skipped)


_CLOJURE = lazy(r"^Ran (\d+) tests containing \d+ assertions\.\s*\n(\d+) failures, (\d+) errors\.", re.M)


def clojure(text: str) -> TestCounts | None:
    """clojure.test's `Ran 5 tests containing 12 assertions.` / `0 failures, 0 errors.` Failures count assertions,
    not tests: counts are given only for a clean run."""
    rows = _CLOJURE.findall(text)
    if not rows:
        return None
    tests, failures, errors = map(int, rows[-1])
    return TestCounts(tests, 0, 0) if failures + errors == 0 else None


_ALCOTEST_OK = lazy(r"^Test Successful in [\d.]+s\. (\d+) tests? run\.", re.M)
_ALCOTEST_FAIL = lazy(r"^(\d+) failures?! in [\d.]+s\. (\d+) tests? run\.", re.M)


def alcotest(text: str) -> TestCounts | None:
    """Alcotest (dune's common test library): `Test Successful in 0.001s. 5 tests run.` / `1 failure! in …`."""
    ok = _ALCOTEST_OK.findall(text)
    fail = _ALCOTEST_FAIL.findall(text)
    counts = [TestCounts(int(n), 0, 0) for n in ok] + [TestCounts(int(t) - int(f), int(f), 0) for f, t in fail]
    return _sum(counts)


_BAZEL = lazy(r"^Executed \d+ out of (\d+) tests?: (?:(\d+) tests? pass)?(?:.*?(\d+) fails?)?", re.M)


def bazel(text: str) -> TestCounts | None:
    """`Executed 3 out of 3 tests: 3 tests pass.` / `…: 2 tests pass and 1 fails locally.` (test targets)."""
    rows = _BAZEL.findall(text)
    if not rows:
        return None
    _total, passed, failed = (int(x or 0) for x in rows[-1])
    return TestCounts(passed, failed, 0)


_JULIA_HEADER = lazy(r"^Test Summary:\s*\|(.*)$", re.M)


def julia(text: str) -> TestCounts | None:
    """Julia's Test table: `Test Summary: | Pass  Fail  Total  Time` then the row of the top test set."""
    headers = list(_JULIA_HEADER.finditer(text))
    if not headers:
        return None
    header = headers[-1]
    columns = header.group(1).split()
    row = text[header.end() :].lstrip("\n").split("\n", 1)[0]
    if "|" not in row:
        return None
    values = row.split("|", 1)[1].split()
    cells = dict(zip(columns, values, strict=False))

    def cell(name: str) -> int:
        value = cells.get(name, "0")
        return int(value) if value.isdigit() else 0

    return TestCounts(cell("Pass"), cell("Fail") + cell("Error"), cell("Broken"))


_TESTTHAT = lazy(r"\[ FAIL (\d+) \| WARN \d+ \| SKIP (\d+) \| PASS (\d+) \]")


def testthat(text: str) -> TestCounts | None:
    """testthat's `[ FAIL 1 | WARN 0 | SKIP 2 | PASS 10 ]` (expectations)."""
    rows = _TESTTHAT.findall(text)
    if not rows:
        return None
    failed, skipped, passed = map(int, rows[-1])
    return TestCounts(passed, failed, skipped)


def _sum(counts: list[TestCounts]) -> TestCounts | None:
    if not counts:
        return None
    return TestCounts(sum(c.passed for c in counts), sum(c.failed for c in counts), sum(c.skipped for c in counts))
