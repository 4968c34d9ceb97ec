"""The claim reader: what an agent says passed, and what is not such a claim (markdown, clauses, polarity,
modality, pasted output)."""

from __future__ import annotations

import pytest
from freshpass.evidence.claims import MAX_QUOTE, find_claims
from freshpass.evidence.claims.lexicon import detect
from freshpass.evidence.claims.output import passing_run


def kinds(message: str) -> list[str]:
    return [claim.kind for claim in find_claims(message)]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("All tests pass.", ["test"]),
        ("Done! The test suite passes and lint is clean.", ["test", "lint"]),
        ("- ✅ pytest: 42 passed\n- ✅ ruff: no errors", ["test", "lint"]),
        ("mypy reports no errors.", ["typecheck"]),
        ("The build succeeds.", ["build"]),
        ("I verified the change end to end.", ["check"]),
        ("CI is green.", ["check"]),
        # a failure word elsewhere no longer cancels a claim
        ("pytest: 42 passed, 0 failed.", ["test"]),
        ("The failing test now passes.", ["test"]),
        ("Tests pass (3 skipped, they need a GPU).", ["test"]),
        ("Lint passes, but 2 tests in `test_api.py` still fail.", ["lint"]),
        # inline code is a subject
        ("`ruff check .` reports no issues and `pytest` passes.", ["test", "lint"]),
        ("Ran `make check`: OK.", ["check"]),
        # vocabulary
        ("I've tested this thoroughly and it works.", ["check"]),
        ("Done and tested.", ["check"]),
        ("It's green.", ["check"]),
        ("Tests ✔ Lint ✔ Types ✔", ["test", "lint", "typecheck"]),
        ("I ran `cargo test` and everything passes.", ["test"]),
        # whole words, with their boundaries
        ("All tests pass; nothing else changed.", ["test"]),
        ("The button tests pass.", ["test"]),
        # structure: table rows, lines, headings
        ("| Check | Result |\n| --- | --- |\n| pytest | ✅ 120 passed |\n| ruff | ✅ clean |", ["test", "lint"]),
        ("Build: ✅\nTests: ✅ (312 passed)\nLint: ✅", ["test", "lint", "build"]),
        ("## Verification\n\n- `pytest` — 18 passed\n- `ruff check` — clean", ["test", "lint"]),
        ("All tests pass, so this should be ready to merge.", ["test"]),
        # a check that ran lends its name to the success after it
        ("I ran the tests: no errors.", ["test"]),
        # an emoji ends a sentence another one follows: that one's instruction or condition is its own
        ("I pushed the commits. CI is green 🎉 Feel free to review whenever you like.", ["check"]),
        ("All tests pass ✅ If you want, I can also add a changelog entry.", ["test"]),
        # a status shown in the tool's own word
        ("The GitLab pipeline shows “passed” for the last commit.", ["check"]),
        (
            "I re-ran `ruff`, `mypy` and the unit tests afterwards, and everything checks out.",
            ["test", "lint", "typecheck"],
        ),
        ("312 of 312 tests pass.", ["test"]),
        ("Fixed 3 of 4 lint warnings; the tests pass.", ["test"]),
        ("All jobs are green, except `e2e-safari`, which timed out.", []),
    ],
)
def test_claims_are_found_with_their_kind(message: str, expected: list[str]) -> None:
    assert sorted(kinds(message)) == sorted(expected)


@pytest.mark.parametrize(
    "message",
    [
        "",
        "   ",
        # contractions, with ' and ’
        "No, the tests aren't passing.",
        "No, the tests aren’t passing.",
        "It doesn't work yet — the test still times out.",
        "The type check isn’t clean yet.",
        "None of the new tests pass yet.",
        # hedges, plans, conditions, questions
        "I expect the suite to be green after this.",
        "Hopefully this gets CI green.",
        "This should fix the flaky test.",
        "Next, I'll run the full suite.",
        "If the tests pass, this is ready.",
        "Once the migration lands, the tests will pass again.",
        "Do all tests pass?",
        "Tests pass? Not yet.",
        # instructions
        "1. Update the fixture\n2. Confirm all tests pass",
        "To finish, run `npm run e2e` and check that all specs pass.",
        "Please run `pytest -q` and let me know if anything fails.",
        # quoted material
        "- [ ] unit tests pass\n- [ ] docs updated",
        "> All tests pass\n\nThe PR says so; I could not reproduce it.",
        # someone else's or an older run
        "According to the last nightly build, the suite was green on Monday.",
        "The user said the tests passed on their laptop.",
        "Tests passed before my change; I haven't re-run them since.",
        # other senses of the words
        "JWTs are now verified against the issuer's keys.",
        "Tests that pass `None` as the timeout now get the default.",
        "I verified that the bug reproduces on main.",
        "Users can now pass a custom `Session` to the client.",
        "The pass-through mode forwards headers unchanged.",
        # failures and partial passes
        "I could not run the tests: the database is not available.",
        "2 tests fail in test_api.py; I have not fixed them yet.",
        "Most tests pass; two still fail.",
        "| Check | Result |\n| --- | --- |\n| pytest | ❌ 3 failed |",
        "I've implemented the feature, but I have not tested it.",
        # code: a sample, words inside inline code
        "Example:\n\n```python\ndef test_add():\n    assert add(1, 2) == 3  # passes\n```",
        "The output said `all tests passed` but I did not check it.",
        "I added a helper that formats dates.",
        # a check not run, or failed, lends its name to no success after it
        "I didn't run the tests, so no errors.",
        "The tests failed on CI, and no errors showed up in the logs.",
    ],
)
def test_no_claim(message: str) -> None:
    assert find_claims(message) == []


def test_pasted_passing_output_is_a_claim_and_failing_output_is_not() -> None:
    assert kinds("Final run:\n\n```\n============ 42 passed in 3.21s ============\n```") == ["test"]
    assert kinds("```\nok  \tgithub.com/acme/api\t0.412s\nok  \tgithub.com/acme/db\t1.0s\n```") == ["test"]
    assert kinds("```\n[INFO] BUILD SUCCESS\n[INFO] Total time:  41.2 s\n```") == ["build"]
    assert kinds("```\n Tests:       2 failed, 94 passed, 96 total\n```") == []
    assert kinds("```\nok  \tgithub.com/acme/api\t0.4s\n--- FAIL: TestSync (0.01s)\nFAIL\n```") == []
    assert kinds("Before my change:\n\n```\n===== 12 passed in 0.3s =====\n```") == []  # an older run
    assert kinds("> ```\n> ===== 12 passed =====\n> ```") == []  # quoted


@pytest.mark.parametrize(
    ("info", "body", "expected"),
    [
        ("", "===== 3 passed, 1 skipped in 0.2s =====\n", ("test", "3 passed, 1 skipped in 0.2s")),
        ("console", "test result: ok. 12 passed; 0 failed\n", ("test", "test result: ok. 12 passed; 0 failed")),
        ("text", "Ran 4 tests in 0.010s\n\nOK\n", ("test", "Ran 4 tests in 0.010s")),
        ("", "Success: no issues found in 3\n", ("typecheck", "Success: no issues found in 3")),
        ("", "All checks passed!\n", ("lint", "All checks passed!")),
        ("", "........ [100%]\n48 passed, 2 skipped in 2.31s\n", ("test", "48 passed, 2 skipped in 2.31s")),
        ("", " Test Files  3 passed (3)\n      Tests  35 passed (35)\n", ("test", "Tests  35 passed (35)")),
        ("", "black...........Passed\nflake8..........Passed\n", ("check", "black...........Passed")),
        ("", "black....................Passed\nflake8...................Failed\n", None),
        ("", "    Checking app v0.3.1\n    Finished `dev` profile [unoptimized] target(s) in 2.87s\n",
         ("build", "Finished `dev` profile [unoptimized] target(s) in 2.87s")),
        ("", "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\n", ("build", "Build succeeded.")),
        ("", "La génération a réussi.\n    0 Avertissement(s)\n", ("build", "La génération a réussi.")),
        ("", "   Compiling app v0.1.0\nerror[E0308]: mismatched types\n", None),
        ("python", "print('===== 3 passed =====')\n", None),
        ("", "===== 1 failed, 3 passed in 0.2s =====\n", None),
        ("", "Traceback (most recent call last):\n  ...\n===== 3 passed =====\n", None),
    ],
)  # fmt: skip
def test_runner_output_by_kind(info: str, body: str, expected: tuple[str, str] | None) -> None:
    assert passing_run(info, body) == expected


def test_languages_are_told_apart() -> None:
    assert detect("Todos os testes passaram.") == "pt"
    assert detect("Todas las pruebas pasan.") == "es"
    assert detect("Alle Tests bestanden.") == "de"
    assert detect("Tous les tests passent.") == "fr"
    assert detect("Все тесты проходят.") == "ru"
    assert detect("所有测试通过。") == "zh"
    assert detect("テストは全て通過しました。") == "ja"
    assert detect("All tests pass.") == "en"


def test_one_claim_per_kind_the_first_quoted() -> None:
    claims = find_claims("All tests pass.\nI re-ran them: tests pass again.")
    assert [(c.kind, c.quote) for c in claims] == [("test", "All tests pass.")]


def test_quotes_are_one_printable_line_and_bounded() -> None:
    long = "All tests pass " + "and more " * 40 + "."
    quote = find_claims(long)[0].quote
    assert len(quote) <= MAX_QUOTE and quote.endswith("…")
    assert find_claims("All tests\x07 pass\x1b.")[0].quote == "All tests pass."


def test_hostile_messages_do_not_break_the_reader() -> None:
    assert find_claims("`" * 5000 + "All tests pass.") is not None
    assert find_claims("> " * 2000 + "All tests pass.") == []
    assert find_claims("[" * 10000) == []
    assert kinds("x " * 50_000 + "\n\nAll tests pass.") == ["test"]  # the end of a long message is read
