"""The claim matcher: what an agent says passed, and what is not such a claim."""

from __future__ import annotations

import pytest
from freshpass.evidence.claims import MAX_QUOTE, find_claims


@pytest.mark.parametrize(
    ("message", "kinds"),
    [
        ("All tests pass.", ["test"]),
        ("Done! The test suite passes and lint is clean.", ["test", "lint"]),
        ("- ✅ pytest: 42 passed\n- ✅ ruff: no errors", ["test", "lint"]),
        ("mypy reports no errors.", ["typecheck"]),
        ("The build succeeds.", ["build"]),
        ("I verified the change end to end.", ["check"]),
        ("CI is green.", ["check"]),
        ("Alle Tests bestanden.", ["test"]),
        ("Tous les tests passent.", ["test"]),
        ("Todas las pruebas pasan.", ["test"]),
        ("Todos os testes passaram.", ["test"]),
        ("Tutti i test passano.", ["test"]),
        ("Все тесты проходят.", ["test"]),
        ("所有测试通过。", ["test"]),
        ("テストは全て通過しました。", ["test"]),
    ],
)
def test_claims_are_found_with_their_kind(message: str, kinds: list[str]) -> None:
    assert [c.kind for c in find_claims(message)] == kinds


@pytest.mark.parametrize(
    "message",
    [
        "",
        "I could not run the tests: the database is not available.",
        "2 tests fail in test_api.py; I have not fixed them yet.",
        "The tests are failing on main as well.",
        "You should run the tests before merging.",
        "To verify, run `make test`.",
        "If the tests pass, this is ready.",
        "Do all tests pass?",
        "Next, I will run the tests.",
        "Tests were skipped because Docker is missing.",
        "Die Tests sind nicht bestanden.",
        "Los tests fallan.",
        "测试未通过。",
        "テストが通りません。",
        "I added a helper that formats dates.",
        "Here is the log:\n```\n===== 12 passed in 0.3s =====\nAll tests pass\n```",
        "The output said `all tests passed` but I did not check it.",
    ],
)
def test_blockers_plans_questions_and_code_are_not_claims(message: str) -> None:
    assert find_claims(message) == []


def test_one_claim_per_kind_the_first_quoted() -> None:
    claims = find_claims("All tests pass.\nI re-ran them: tests pass again.")
    assert [(c.kind, c.quote) for c in claims] == [("test", "All tests pass.")]


def test_quotes_are_one_printable_line_and_bounded() -> None:
    long = "All tests pass " + "and more " * 40 + "."
    quote = find_claims(long)[0].quote
    assert len(quote) <= MAX_QUOTE and quote.endswith("…")
    assert find_claims("All tests\x07 pass\x1b.")[0].quote == "All tests pass."
