"""The claim reader's units: a message that is plain paragraphs is read without markdown-it-py, and must come out
exactly as markdown-it-py reads it; anything with more structure goes to markdown-it-py."""

from __future__ import annotations

import pytest
from freshpass.evidence.claims.markdown import Unit, _markdown_units, _plain_units, units
from hypothesis import given, settings
from hypothesis import strategies as st

PLAIN = [
    "Done: all tests pass.",
    "All tests pass!\n\nLint is clean.",
    "Ran `pytest -q`: 3 passed.\nThe build works.",
    "  indented a little\n   still a paragraph  \n\n\n",
    "3.14 is not a list item, and 2) neither inline.",
    "Зелёный: все тесты прошли.\n所有测试都通过了。",
    "non\xa0breaking\n\xa0\nline",
]
STRUCTURED = [
    "- all tests pass",
    "1. tests pass",
    "2) tests pass",
    "# Summary\ntests pass",
    "> all tests pass",
    "| kind | result |\n| --- | --- |\n| test | pass |",
    "```\n3 passed\n```",
    "    3 passed (indented code)",
    "tests pass\n---",
    "tests pass\n===",
    "**all** tests pass",
    "snake_case tests pass",
    "[x] tests pass",
    "a <b>tag</b>",
    "AT&amp;T tests pass",
    "escaped \\* star",
    "tab\tseparated",
    "crlf\r\nline",
    "` spaced code `",
    "``double``",
    "odd ` backtick",
    "+ plus item",
    "~~~\nfence\n~~~",
]


@pytest.mark.parametrize("message", PLAIN)
def test_plain_messages_are_read_without_markdown_it_as_it_reads_them(message: str) -> None:
    plain = _plain_units(message)
    assert plain is not None
    assert plain == _markdown_units(message)
    assert units(message) == plain


@pytest.mark.parametrize("message", STRUCTURED)
def test_structure_goes_to_markdown_it(message: str) -> None:
    assert _plain_units(message) is None
    assert units(message) == _markdown_units(message)


def test_an_unticked_checklist_item_is_quoted_and_a_ticked_one_is_the_agents_own_words() -> None:
    assert units("- [ ] all tests pass") == [Unit("prose", ("[ ] all tests pass",), quoted=True)]
    assert units("- [x] all tests pass") == [Unit("prose", ("all tests pass",))]
    assert units("- [X] lint clean\n\n  ```\n  All checks passed!\n  ```") == [
        Unit("prose", ("lint clean",)),
        Unit("fence", ("All checks passed!\n",)),
    ]


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.sampled_from(list("ab 1.)-+=`!:*_#>|[]<&\\~\t\r\n\xa0\u2028\x0cé。")), max_size=40),
        st.text(alphabet=st.sampled_from(list("ab  1.)-+=`!:\n\n\xa0\u2028é。")), max_size=40),  # mostly plain
    )
)
def test_the_plain_path_never_disagrees_with_markdown_it(message: str) -> None:
    plain = _plain_units(message)
    if plain is not None:
        assert plain == _markdown_units(message)
