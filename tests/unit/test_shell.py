"""The shell splitter behind classification (design §3.1)."""

from __future__ import annotations

import re

import pytest
from freshpass.facts.shell import ParsedLine, ShellSyntaxError, Subshell, join_words, parse_line, simple_commands
from hypothesis import given, settings
from hypothesis import strategies as st


def _shape(parsed: ParsedLine) -> list[list[list[list[str]]]]:
    """statements → pipelines → commands → argv, for compact expectations."""
    return [[[list(c.argv) for c in p.commands if not isinstance(c, Subshell)] for p in s.body.pipelines]
            for s in parsed.statements]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "shape"),
    [
        ("pytest -q", [[[["pytest", "-q"]]]]),
        ("  pytest -q \n\n", [[[["pytest", "-q"]]]]),
        ("a && b || c", [[[["a"]], [["b"]], [["c"]]]]),
        ("a | b |& c", [[[["a"], ["b"], ["c"]]]]),
        ("a; b\nc", [[[["a"]]], [[["b"]]], [[["c"]]]]),
        ("echo '&&' \"x | y\" a\\;b", [[[["echo", "&&", "x | y", "a;b"]]]]),
        ("pytest 'tests/test x.py'", [[[["pytest", "tests/test x.py"]]]]),
        ("pytest \\\n  -q", [[[["pytest", "-q"]]]]),
        ("pytest # a comment && not an operator", [[[["pytest"]]]]),
        ("echo a#b", [[[["echo", "a#b"]]]]),
        ('x="$(echo ")")" pytest', [[[['x=$(echo ")")', "pytest"]]]]),
        ("echo $'a\\'b'", [[[["echo", "a'b"]]]]),
        ("cat <<EOF\npytest && x\nEOF\nmake test", [[[["cat"]]], [[["make", "test"]]]]),
        ("a;", [[[["a"]]]]),
    ],
)
def test_splits_lines(line: str, shape: list[object]) -> None:
    assert _shape(parse_line(line)) == shape


@pytest.mark.parametrize(
    ("line", "redirects", "argv"),
    [
        ("pytest 2>&1", [(">&", "1", "2")], ["pytest"]),
        ("pytest 2 >&1", [(">&", "1", "")], ["pytest", "2"]),
        ("pytest &> log.txt", [("&>", "log.txt", "")], ["pytest"]),
        ("pytest >&2", [(">&", "2", "")], ["pytest"]),
        ("pytest >out 2>err <in", [(">", "out", ""), (">", "err", "2"), ("<", "in", "")], ["pytest"]),
        ("pytest >>log -q", [(">>", "log", "")], ["pytest", "-q"]),
        ("pytest '2'>x", [], None),
    ],
)
def test_redirections_are_not_arguments(
    line: str, redirects: list[tuple[str, str, str]], argv: list[str] | None
) -> None:
    command = parse_line(line).statements[0].body.pipelines[0].commands[0]
    if argv is None:  # a quoted digit is a word, not a file descriptor
        assert command.argv == ("pytest", "2")
        return
    assert [(r.operator, r.target, r.fd) for r in command.redirects] == redirects
    assert list(command.argv) == argv


def test_operators_and_background() -> None:
    parsed = parse_line("set -o pipefail; pytest | tee log && echo ok &")
    assert [s.background for s in parsed.statements] == [False, True]
    body = parsed.statements[1].body
    assert body.operators == ("&&",)
    assert body.pipelines[0].operators == ("|",)
    assert parse_line("! pytest").statements[0].body.pipelines[0].negated


def test_subshells_nest() -> None:
    parsed = parse_line("npm ci && (cd web && (pnpm test)) > log 2>&1; echo done")
    outer = parsed.statements[0].body.pipelines[1].commands[0]
    assert isinstance(outer, Subshell)
    assert [(r.operator, r.target) for r in outer.redirects] == [(">", "log"), (">&", "1")]
    inner = outer.body.statements[0].body
    assert inner.operators == ("&&",)
    assert isinstance(inner.pipelines[1].commands[0], Subshell)
    assert [c.argv for c in simple_commands(parsed)] == [
        ("npm", "ci"),
        ("cd", "web"),
        ("pnpm", "test"),
        ("echo", "done"),
    ]


def test_expansions_are_marked() -> None:
    words = parse_line('cd "$DIR" && pytest $(cat args) `x` plain').statements[0].body
    assert words.pipelines[0].commands[0].words[1].expands
    assert [w.expands for w in words.pipelines[1].commands[0].words] == [False, True, True, False]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("pytest 'unbalanced", "unbalanced single quote"),
        ('pytest "unbalanced', "unbalanced double quote"),
        ("pytest $(oops", "unbalanced"),
        ("pytest &&", "ends with '&&'"),
        ("pytest ||", "ends with '||'"),
        ("pytest |", "ends with '|'"),
        ("&& pytest", "missing"),
        ("pytest && && x", "missing"),
        ("pytest >", "has no target"),
        ("pytest \\", "lone backslash"),
        ("(cd app && pytest", "not closed"),
        ("cd app && pytest)", "unexpected ')'"),
        ("( )", "empty subshell"),
        ("(pytest) extra", "after a subshell"),
        ("if true; then pytest; fi", "compound"),
        ("{ pytest; }", "groups"),
        ("cat <<EOF\nno end", "not closed"),
    ],
)
def test_rejects_what_it_cannot_split(line: str, message: str) -> None:
    with pytest.raises(ShellSyntaxError, match=re.escape(message)):
        parse_line(line)


def test_join_words_round_trips() -> None:
    words = ["pytest", "tests/a b.py::t", "-k", "x and not y", "it's", ""]
    assert list(parse_line(join_words(words)).statements[0].body.pipelines[0].commands[0].argv) == words


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_never_raises_anything_but_shell_syntax_error_on_text(text: str) -> None:
    try:
        parse_line(text)
    except ShellSyntaxError:
        pass


_TOKENS = st.sampled_from(
    [
        "pytest", "-k", "x", "&&", "||", "|", "|&", ";", "&", "\n", "'", '"', "\\", "$(", ")", "(", "`", "2>&1",
        ">", "<", ">&", "&>", "<<", "EOF", "#", "cd", "app", "bash", "-c", "$'", "{", "}", "!", "if", "=", "${",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_TOKENS, max_size=14), st.sampled_from([" ", "", "\t"]))
def test_never_raises_anything_but_shell_syntax_error_on_token_soup(tokens: list[str], sep: str) -> None:
    try:
        parsed = parse_line(sep.join(tokens))
    except ShellSyntaxError:
        return
    _check_structure(parsed)


def _check_structure(parsed: ParsedLine) -> None:
    for statement in parsed.statements:
        for pipeline in statement.body.pipelines:
            assert len(pipeline.operators) == len(pipeline.commands) - 1
            for command in pipeline.commands:
                if isinstance(command, Subshell):
                    assert command.body.statements
                    _check_structure(command.body)
        assert len(statement.body.operators) == len(statement.body.pipelines) - 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=12), min_size=1, max_size=6))
def test_quoted_words_survive_any_content(words: list[str]) -> None:
    parsed = parse_line(join_words(words))
    if "\x00" in "".join(words):
        return
    assert [list(c.argv) for c in simple_commands(parsed)] == [words]
