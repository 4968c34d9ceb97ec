"""Each ecosystem's output summary parser, on the summary shapes its runner documents (written for the test)."""

from __future__ import annotations

import pytest
from freshpass.facts.tools import TestCounts, parse_test_counts

CASES: dict[str, tuple[str, TestCounts | None]] = {
    "dotnet, one project passing": (
        "Starting test execution, please wait...\n"
        "Passed!  - Failed:     0, Passed:     5, Skipped:     1, Total:     6, Duration: 12 ms - D.Tests.dll\n",
        TestCounts(5, 0, 1),
    ),
    "dotnet, two projects summed": (
        "Failed!  - Failed:     1, Passed:     4, Skipped:     0, Total:     5, Duration: 1 s - A.Tests.dll (net8.0)\n"
        "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3, Duration: 9 ms - B.Tests.dll\n",
        TestCounts(7, 1, 0),
    ),
    "dotnet, testing platform summary": (
        "Test summary: total: 5, failed: 1, succeeded: 3, skipped: 1, duration: 1.2s\n",
        TestCounts(3, 1, 1),
    ),
    "swift, XCTest": (
        "Test Suite 'All tests' failed at 2024-01-01 10:00:00.000.\n"
        "\t Executed 6 tests, with 1 test skipped and 2 failures (0 unexpected) in 0.012 (0.013) seconds\n",
        TestCounts(3, 2, 1),
    ),
    "swift, swift-testing passing": (
        "✔ Test run with 4 tests in 2 suites passed after 0.003 seconds.\n",
        TestCounts(4, 0, 0),
    ),
    "swift, swift-testing failing counts issues, not tests": (
        "✘ Test run with 4 tests in 2 suites failed after 0.004 seconds with 1 issue.\n",
        None,
    ),
    "cabal/stack, tasty": ("All 12 tests passed (0.01s)\n", TestCounts(12, 0, 0)),
    "cabal/stack, tasty failing": ("3 out of 12 tests failed (0.02s)\n", TestCounts(9, 3, 0)),
    "cabal/stack, hspec": ("Finished in 0.0021 seconds\n10 examples, 1 failure, 2 pending\n", TestCounts(7, 1, 2)),
    "ctest passing": (
        "1/2 Test #1: a ...   Passed    0.01 sec\n\n100% tests passed, 0 tests failed out of 2\n",
        TestCounts(2, 0, 0),
    ),
    "ctest failing with a skipped test": (
        "67% tests passed, 1 tests failed out of 3\n\nThe following tests did not run:\n\t  3 - slow (Skipped)\n\n"
        "The following tests FAILED:\n\t  2 - parser (Failed)\n",
        TestCounts(1, 1, 1),
    ),
    "meson test": (
        "Ok:                 4\nExpected Fail:      0\nFail:               1\n"
        "Unexpected Pass:    0\nSkipped:            2\nTimeout:            0\n",
        TestCounts(4, 1, 2),
    ),
    "make check (Automake)": (
        "# TOTAL: 6\n# PASS:  4\n# SKIP:  1\n# XFAIL: 0\n# FAIL:  1\n# XPASS: 0\n# ERROR: 0\n",
        TestCounts(4, 1, 1),
    ),
    "prove passing": (
        "t/basic.t .. ok\nAll tests successful.\nFiles=3, Tests=42,  0 wallclock secs\nResult: PASS\n",
        TestCounts(42, 0, 0),
    ),
    "prove failing": (
        "Failed 2/10 subtests\n\nTest Summary Report\nFiles=1, Tests=10,  0 wallclock secs\nResult: FAIL\n",
        TestCounts(8, 2, 0),
    ),
    "mix test (ExUnit)": (
        "Finished in 0.05 seconds (0.02s async, 0.03s sync)\n1 doctest, 5 tests, 1 failure, 2 skipped\n",
        TestCounts(3, 1, 2),
    ),
    "mix test, properties": ("1 property, 4 tests, 0 failures\n", TestCounts(5, 0, 0)),
    "gleam test (gleeunit)": ("Finished in 0.023 seconds\n3 tests, 0 failures\n", TestCounts(3, 0, 0)),
    "rebar3 eunit passing": ("Finished in 0.010 seconds\n  All 5 tests passed.\n", TestCounts(5, 0, 0)),
    "rebar3 eunit failing": ("  Failed: 1.  Skipped: 0.  Passed: 4.\n", TestCounts(4, 1, 0)),
    "rebar3 ct": ("Failed 1 tests. Passed 6 tests.\n", TestCounts(6, 1, 0)),
    "zig build test --summary all": (
        "Build Summary: 3/3 steps succeeded; 12/12 tests passed\n",
        TestCounts(12, 0, 0),
    ),
    "zig build test failing": (
        "Build Summary: 2/3 steps succeeded; 1 failed; 10/12 tests passed; 1 skipped; 1 failed\n",
        TestCounts(10, 1, 1),
    ),
    "zig test": ("3 passed; 1 skipped; 1 failed.\n", TestCounts(3, 1, 1)),
    "dart test passing": ("00:01 +3: test/a_test.dart: ok\n00:02 +42: All tests passed!\n", TestCounts(42, 0, 0)),
    "dart/flutter test failing": ("00:02 +40 ~1 -2: Some tests failed.\n", TestCounts(40, 2, 1)),
    "sbt test": ("[info] Passed: Total 5, Failed 0, Errors 0, Passed 5\n", TestCounts(5, 0, 0)),
    "sbt test failing": ("[error] Failed: Total 6, Failed 1, Errors 1, Passed 3, Skipped 1\n", TestCounts(3, 2, 1)),
    "lein test passing": ("Ran 5 tests containing 12 assertions.\n0 failures, 0 errors.\n", TestCounts(5, 0, 0)),
    "lein test failing counts assertions, not tests": (
        "Ran 5 tests containing 12 assertions.\n2 failures, 0 errors.\n",
        None,
    ),
    "dune test (alcotest)": ("Test Successful in 0.001s. 5 tests run.\n", TestCounts(5, 0, 0)),
    "dune test (alcotest) failing": ("1 failure! in 0.002s. 5 tests run.\n", TestCounts(4, 1, 0)),
    "bazel test": ("Executed 3 out of 3 tests: 3 tests pass.\n", TestCounts(3, 0, 0)),
    "bazel test failing": ("Executed 3 out of 3 tests: 2 tests pass and 1 fails locally.\n", TestCounts(2, 1, 0)),
    "julia Pkg.test": (
        "Test Summary: | Pass  Fail  Total  Time\nDemo         |   10     1     11  0.5s\n",
        TestCounts(10, 1, 0),
    ),
    "julia Pkg.test with broken": (
        "Test Summary: | Pass  Broken  Total  Time\nDemo         |    4       1      5  0.1s\n",
        TestCounts(4, 0, 1),
    ),
    "R testthat": ("══ Results ══\n[ FAIL 1 | WARN 0 | SKIP 2 | PASS 10 ]\n", TestCounts(10, 1, 2)),
    "nothing countable": ("compiling...\ndone\n", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_summary(name: str) -> None:
    output, expected = CASES[name]
    assert parse_test_counts(output) == expected
