"""Split a shell command line into lists, and-or chains, pipelines and simple commands (design §3.1).

This is a small POSIX/bash-subset parser written for classification, not execution. It exists instead of
`shlex` because classification needs what `shlex` throws away: whether `&&` was quoted (`echo "&&"` is a word),
newlines as command separators, and whether a digit is a redirection's file descriptor (`2>&1`) or an argument
(`2 >&1`). `bashlex` would give a full bash AST but is a large port whose failure modes on arbitrary text are
its own; a tokenizer we control is easier to prove total (see the hypothesis tests).

What it understands: quotes (`'…'`, `"…"`, `$'…'`), backslash escapes and line continuations, comments,
`$(…)`, `$((…))`, `${…}` and backticks (kept inside the word, marked as expanding), here-documents (their bodies
are skipped), redirections (`>`, `>>`, `<`, `2>&1`, `>&`, `&>`, `&>>`, `<<<`, …: never arguments), and the
control operators `&&`, `||`, `|`, `|&`, `;`, newline and `&`, and subshells `( … )`. Brace groups and compound
commands (`if`, `for`, `while`, `case`, functions) are reported as not analysable rather than guessed at.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

__all__ = [
    "AndOr",
    "ParsedLine",
    "Pipeline",
    "Redirect",
    "ShellSyntaxError",
    "SimpleCommand",
    "Statement",
    "Subshell",
    "Word",
    "parse_line",
    "simple_commands",
]


class ShellSyntaxError(ValueError):
    """The line cannot be split reliably (unbalanced quotes, a dangling operator, an unsupported construct)."""


@dataclass(frozen=True)
class Word:
    """One shell word after quote removal. `expands` is true when it holds an unquoted-or-double-quoted
    `$…` or backtick expansion, so its runtime value is unknown."""

    text: str
    expands: bool = False
    quoted: bool = False


@dataclass(frozen=True)
class Redirect:
    operator: str  # ">", ">>", "<", ">&", "<&", "&>", "&>>", "<<", "<<-", "<<<", "<>", ">|"
    target: str
    fd: str = ""  # the explicit file descriptor ("2" in "2>&1"), empty when implied


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...] = ()

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(w.text for w in self.words)

    def __str__(self) -> str:
        return " ".join(_display(w.text) for w in self.words)


@dataclass(frozen=True)
class Subshell:
    """`( list )`: runs in a child shell, so its `cd` and `set` do not outlive it; its status is its last one's."""

    body: ParsedLine
    redirects: tuple[Redirect, ...] = ()

    def __str__(self) -> str:
        return "( … )"


Command: TypeAlias = "SimpleCommand | Subshell"


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[Command, ...]
    operators: tuple[str, ...] = ()  # "|" or "|&" between commands
    negated: bool = False  # a leading "!"


@dataclass(frozen=True)
class AndOr:
    pipelines: tuple[Pipeline, ...]
    operators: tuple[str, ...] = ()  # "&&" or "||" between pipelines


@dataclass(frozen=True)
class Statement:
    """One entry of a list: an and-or chain ended by `;`, a newline, `&` (background) or the end of the line."""

    body: AndOr
    background: bool = False


@dataclass(frozen=True)
class ParsedLine:
    statements: tuple[Statement, ...] = field(default_factory=tuple)


def simple_commands(parsed: ParsedLine) -> Iterator[SimpleCommand]:
    """Every simple command of a line in order, including those inside subshells."""
    for statement in parsed.statements:
        for pipeline in statement.body.pipelines:
            for command in pipeline.commands:
                if isinstance(command, Subshell):
                    yield from simple_commands(command.body)
                else:
                    yield command


# --- tokenizer -------------------------------------------------------------------------------------------------

_CONTROL = ("&&", "||", "|&", ";;", "|", ";", "&")
_REDIRECT = ("&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<")
_COMPOUND_WORDS = frozenset(
    {"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "select", "function"}
)
_MAX_NESTING = 8
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "op", "redir", "newline"
    text: str
    word: Word | None = None
    fd: str = ""
    start: int = 0  # where a word begins and ends in the text (for quoting it back exactly as written)
    end: int = 0


class _Tokenizer:
    def __init__(self, text: str, *, lenient: bool = False) -> None:
        self.lenient = lenient  # scripts: `;;` of a case statement is an operator, not an error
        self.s = text
        self.i = 0
        self.tokens: list[_Token] = []
        self.pending_heredocs: list[tuple[str, bool]] = []  # (delimiter, strip leading tabs)
        # current word under construction
        self.buf: list[str] = []
        self.word_start = 0
        self.in_word = False
        self.expands = False
        self.quoted = False

    def run(self) -> list[_Token]:
        s = self.s
        n = len(s)
        while self.i < n:
            c = s[self.i]
            if c in " \t\r":
                self._end_word()
                self.i += 1
            elif c == "\n":
                self._end_word()
                self.tokens.append(_Token("newline", "\n"))
                self.i += 1
                self._skip_heredoc_bodies()
            elif c == "#" and not self.in_word:
                while self.i < n and s[self.i] != "\n":
                    self.i += 1
            elif c == "\\":
                if self.i + 1 >= n:
                    raise ShellSyntaxError("the line ends with a lone backslash")
                nxt = s[self.i + 1]
                if nxt != "\n":  # backslash-newline is a line continuation: it vanishes
                    self._add(nxt)
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unbalanced single quote")
                self._add(s[self.i + 1 : end], quoted=True)
                self.i = end + 1
            elif c == '"':
                self._double_quoted()
            elif c == "$":
                self._dollar()
            elif c == "`":
                end = self._backtick_end(self.i)
                self._add(s[self.i : end], expands=True)
                self.i = end
            elif c in "()":
                self._end_word()
                self.tokens.append(_Token("op", c))
                self.i += 1
            elif c in "<>" or (c == "&" and s.startswith(("&>",), self.i)):
                self._redirect()
            elif c in "|&;":
                self._end_word()
                op = next(o for o in _CONTROL if s.startswith(o, self.i))
                if op == ";;" and not self.lenient:
                    raise ShellSyntaxError("';;' only belongs in a case statement, which is not analysed")
                self.tokens.append(_Token("op", op))
                self.i += len(op)
            else:
                self._add(c)
                self.i += 1
        self._end_word()
        if self.pending_heredocs:
            raise ShellSyntaxError("a here-document has no body")
        return self.tokens

    # -- words --
    def _add(self, text: str, *, quoted: bool = False, expands: bool = False) -> None:
        if not self.in_word:
            self.word_start = self.i
        self.buf.append(text)
        self.in_word = True
        self.quoted = self.quoted or quoted
        self.expands = self.expands or expands

    def _end_word(self) -> None:
        if self.in_word:
            word = Word("".join(self.buf), expands=self.expands, quoted=self.quoted)
            self.tokens.append(_Token("word", word.text, word=word, start=self.word_start, end=self.i))
        self.buf = []
        self.in_word = False
        self.expands = False
        self.quoted = False

    def _double_quoted(self) -> None:
        s = self.s
        i = self.i + 1
        out: list[str] = []
        expands = False
        while True:
            if i >= len(s):
                raise ShellSyntaxError("unbalanced double quote")
            c = s[i]
            if c == '"':
                break
            if c == "\\" and i + 1 < len(s) and s[i + 1] in '$`"\\\n':
                if s[i + 1] != "\n":
                    out.append(s[i + 1])
                i += 2
            elif c == "$" and i + 1 < len(s) and s[i + 1] in "({":
                end = self._dollar_end(i)
                out.append(s[i:end])
                expands = True
                i = end
            elif c == "$" and i + 1 < len(s) and (s[i + 1].isalnum() or s[i + 1] in "_@*#?$!-"):
                out.append(c)
                expands = True
                i += 1
            elif c == "`":
                end = self._backtick_end(i)
                out.append(s[i:end])
                expands = True
                i = end
            else:
                out.append(c)
                i += 1
        self._add("".join(out), quoted=True, expands=expands)
        self.i = i + 1

    def _dollar(self) -> None:
        s = self.s
        i = self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "'":
            self._ansi_c_quoted()
        elif nxt == '"':  # $"…" (locale translation) reads as a double-quoted string
            self.i += 1
            self._double_quoted()
        elif nxt and nxt in "({":
            end = self._dollar_end(i)
            self._add(s[i:end], expands=True)
            self.i = end
        elif nxt and (nxt.isalnum() or nxt in "_@*#?$!-"):
            self._add("$", expands=True)
            self.i += 1
        else:
            self._add("$")
            self.i += 1

    def _ansi_c_quoted(self) -> None:
        s = self.s
        i = self.i + 2
        out: list[str] = []
        escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b"}
        while True:
            if i >= len(s):
                raise ShellSyntaxError("unbalanced $'…' quote")
            c = s[i]
            if c == "'":
                break
            if c == "\\" and i + 1 < len(s):
                out.append(escapes.get(s[i + 1], "\\" + s[i + 1]))
                i += 2
            else:
                out.append(c)
                i += 1
        self._add("".join(out), quoted=True)
        self.i = i + 1

    def _dollar_end(self, start: int) -> int:
        """End index (exclusive) of `$(…)`, `$((…))` or `${…}` starting at `start`, respecting nested quotes."""
        s = self.s
        opener = s[start + 1]
        closer = ")" if opener == "(" else "}"
        depth = 0
        i = start + 1
        while i < len(s):
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == "'" and opener == "(":
                end = s.find("'", i + 1)
                if end < 0:
                    break
                i = end + 1
                continue
            if c == '"':
                i = self._skip_double(i)
                continue
            if c == "`":
                i = self._backtick_end(i)
                continue
            if c == opener:
                depth += 1
            elif c == closer:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise ShellSyntaxError(f"unbalanced ${opener}…{closer}")

    def _skip_double(self, start: int) -> int:
        s = self.s
        i = start + 1
        while i < len(s):
            c = s[i]
            if c == "\\":
                i += 2
            elif c == '"':
                return i + 1
            elif c == "$" and i + 1 < len(s) and s[i + 1] in "({":
                i = self._dollar_end(i)
            elif c == "`":
                i = self._backtick_end(i)
            else:
                i += 1
        raise ShellSyntaxError("unbalanced double quote")

    def _backtick_end(self, start: int) -> int:
        s = self.s
        i = start + 1
        while i < len(s):
            if s[i] == "\\":
                i += 2
            elif s[i] == "`":
                return i + 1
            else:
                i += 1
        raise ShellSyntaxError("unbalanced backtick")

    # -- redirections --
    def _redirect(self) -> None:
        s = self.s
        fd = ""
        # "2>&1": a word made only of digits, touching the operator, is its file descriptor.
        if self.in_word and not self.quoted and not self.expands and "".join(self.buf).isdigit():
            fd = "".join(self.buf)
            self.buf = []
            self.in_word = False
        else:
            self._end_word()
        op = next(o for o in _REDIRECT if s.startswith(o, self.i))
        self.i += len(op)
        self.tokens.append(_Token("redir", op, fd=fd))
        if op in ("<<", "<<-"):
            self._remember_heredoc(strip_tabs=op == "<<-")

    def _remember_heredoc(self, *, strip_tabs: bool) -> None:
        s = self.s
        i = self.i
        while i < len(s) and s[i] in " \t":
            i += 1
        start = i
        while i < len(s) and s[i] not in " \t\n;&|<>()":
            i += 1
        raw = s[start:i]
        if not raw:
            raise ShellSyntaxError("a here-document needs a delimiter")
        delimiter = raw.replace("'", "").replace('"', "").replace("\\", "")
        self.pending_heredocs.append((delimiter, strip_tabs))

    def _skip_heredoc_bodies(self) -> None:
        s = self.s
        while self.pending_heredocs:
            delimiter, strip_tabs = self.pending_heredocs.pop(0)
            while True:
                if self.i >= len(s):
                    raise ShellSyntaxError(f"the here-document is not closed by {delimiter!r}")
                end = s.find("\n", self.i)
                line = s[self.i :] if end < 0 else s[self.i : end]
                self.i = len(s) if end < 0 else end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break


# --- parser ----------------------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def parse(self) -> ParsedLine:
        parsed = self._list(nested=False)
        tok = self.peek()
        if tok is not None:  # only a stray ")" stops a top-level list early
            raise ShellSyntaxError(f"unexpected {tok.text!r}")
        return parsed

    def _list(self, *, nested: bool) -> ParsedLine:
        statements: list[Statement] = []
        self._skip_newlines()
        while (tok := self.peek()) is not None and not (tok.kind == "op" and tok.text == ")"):
            body = self._and_or()
            tok = self.peek()
            background = False
            if tok is not None:
                if tok.kind == "op" and tok.text in (";", "&"):
                    background = tok.text == "&"
                    self.i += 1
                elif tok.kind == "newline":
                    self.i += 1
                elif not (nested and tok.kind == "op" and tok.text == ")"):
                    raise ShellSyntaxError(f"unexpected {tok.text!r}")
            statements.append(Statement(body, background))
            self._skip_newlines()
        return ParsedLine(tuple(statements))

    def _skip_newlines(self) -> None:
        while (tok := self.peek()) is not None and tok.kind == "newline":
            self.i += 1

    def _and_or(self) -> AndOr:
        pipelines = [self._pipeline()]
        ops: list[str] = []
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in ("&&", "||"):
            self.i += 1
            self._skip_newlines()
            if self.peek() is None:
                raise ShellSyntaxError(f"the line ends with {tok.text!r}: the command after it is missing")
            ops.append(tok.text)
            pipelines.append(self._pipeline())
        return AndOr(tuple(pipelines), tuple(ops))

    def _pipeline(self) -> Pipeline:
        negated = False
        tok = self.peek()
        if tok is not None and tok.kind == "word" and tok.text == "!" and tok.word and not tok.word.quoted:
            negated = True
            self.i += 1
        commands = [self._command()]
        ops: list[str] = []
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in ("|", "|&"):
            self.i += 1
            self._skip_newlines()
            if self.peek() is None:
                raise ShellSyntaxError(f"the line ends with {tok.text!r}: the command after it is missing")
            ops.append(tok.text)
            commands.append(self._command())
        return Pipeline(tuple(commands), tuple(ops), negated)

    def _command(self) -> Command:
        tok = self.peek()
        if tok is None or not (tok.kind == "op" and tok.text == "("):
            return self._simple()
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise ShellSyntaxError(f"subshells nested more than {_MAX_NESTING} deep are not analysed")
        self.i += 1
        body = self._list(nested=True)
        closing = self.peek()
        if closing is None or closing.text != ")":
            raise ShellSyntaxError("unbalanced ( : the subshell is not closed")
        if not body.statements:
            raise ShellSyntaxError("an empty subshell ( )")
        self.i += 1
        self.depth -= 1
        redirects: list[Redirect] = []
        while (tok := self.peek()) is not None and tok.kind in ("redir", "word"):
            if tok.kind == "word":
                raise ShellSyntaxError(f"unexpected word {tok.text!r} after a subshell")
            self.i += 1
            target = self.peek()
            if target is None or target.kind != "word":
                raise ShellSyntaxError(f"the redirection {tok.fd}{tok.text} has no target")
            self.i += 1
            redirects.append(Redirect(tok.text, target.text, tok.fd))
        return Subshell(body, tuple(redirects))

    def _simple(self) -> SimpleCommand:
        words: list[Word] = []
        redirects: list[Redirect] = []
        while (tok := self.peek()) is not None and tok.kind in ("word", "redir"):
            self.i += 1
            if tok.kind == "redir":
                target = self.peek()
                if target is None or target.kind != "word":
                    raise ShellSyntaxError(f"the redirection {tok.fd}{tok.text} has no target")
                self.i += 1
                redirects.append(Redirect(tok.text, target.text, tok.fd))
                continue
            assert tok.word is not None
            if not words and not tok.word.quoted and tok.text in _COMPOUND_WORDS:
                raise ShellSyntaxError(f"compound shell commands ({tok.text} …) are not analysed")
            if not words and not tok.word.quoted and tok.text in ("{", "}"):
                raise ShellSyntaxError("{ …; } groups are not analysed")
            words.append(tok.word)
        if not words and not redirects:
            tok = self.peek()
            where = f"before {tok.text!r}" if tok is not None and tok.kind != "newline" else "here"
            raise ShellSyntaxError(f"a command is missing {where}")
        return SimpleCommand(tuple(words), tuple(redirects))


def parse_line(line: str) -> ParsedLine:
    """Parse a command line as typed. Raises `ShellSyntaxError` (and nothing else) when it cannot be split."""
    text = line.strip()
    tokens = _Tokenizer(text).run()
    return _Parser(tokens).parse()


def _display(text: str) -> str:
    # Reserved words are quoted too, so the joined line reads back as the same words in any position.
    if text and _SAFE.fullmatch(text) and text not in _COMPOUND_WORDS:
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def join_words(words: tuple[str, ...] | list[str]) -> str:
    """Quote words for display so that pasting them into a shell gives the same words back."""
    return " ".join(_display(w) for w in words)


def is_assignment(word: str) -> bool:
    """`NAME=value` (a shell variable assignment when it prefixes a command)."""
    name, eq, _ = word.partition("=")
    return bool(eq) and _NAME.fullmatch(name) is not None


# --- scripts: what a script, recipe or CI step runs (detection) -------------------------------------------------


@dataclass(frozen=True)
class ScriptCommand:
    """One simple command of a script as detection reads it.

    `condition`: it is the condition of an `if`/`while`/`until` (its result steers the script, it is not a check
    of its own); `failure_ignored`: a `|| …` follows it (`pytest || true`), so its failure would not fail the
    script; `piped`: it is part of a pipeline; `background`: it runs with `&`.
    """

    words: tuple[Word, ...]
    condition: bool = False
    failure_ignored: bool = False
    piped: bool = False
    background: bool = False
    source: str = ""  # the command as written (quotes, `$(…)` and all), on one line
    writes_to: tuple[str, ...] = ()  # files its output is redirected into (`> types.txt`; never /dev/*, `>&2`)

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(w.text for w in self.words)

    @property
    def text(self) -> str:
        return self.source or join_words(self.argv)


_CONDITION_WORDS = frozenset({"if", "elif", "while", "until"})
_OPENING_WORDS = frozenset({"then", "else", "do", "{", "!", "}", "fi", "done", "esac"})


def script_commands(text: str) -> list[ScriptCommand]:
    """The simple commands a script runs, in order (see `_script_commands`)."""
    return list(_script_commands(text))


@functools.lru_cache(maxsize=4096)
def _script_commands(text: str) -> tuple[ScriptCommand, ...]:
    """The simple commands a script (or a recipe, a CI `run:` block, a package script) runs, in order.

    Unlike `parse_line` this never gives up on a whole script: compound commands are read through (`if make lint;
    then pytest; fi` gives `make lint` as a condition, then `pytest`), `for`/`case` headers and function
    definitions are skipped, and a line that cannot be tokenised (an unbalanced quote) is dropped on its own."""
    try:
        tokens = _Tokenizer(text, lenient=True).run()
        sources = [text] * len(tokens)
    except ShellSyntaxError:
        tokens, sources = [], []
        for line in text.splitlines():
            try:
                found = _Tokenizer(line, lenient=True).run()
            except ShellSyntaxError:
                found = []
            tokens.extend(found)
            sources.extend([line] * len(found))
            tokens.append(_Token("newline", "\n"))
            sources.append(line)
    return tuple(_read_script_tokens(tokens, sources))


def _written(spans: list[tuple[str, int, int]]) -> str:
    """The words of one command as written, on one line (continuations joined)."""
    if not spans:
        return ""
    text, start, _end = spans[0]
    if any(source is not text for source, _s, _e in spans):
        return ""
    written = text[start : spans[-1][2]]
    return " ".join(written.replace("\\\n", " ").split())


def _read_script_tokens(tokens: list[_Token], sources: list[str]) -> list[ScriptCommand]:
    commands: list[ScriptCommand] = []
    words: list[Word] = []
    spans: list[tuple[str, int, int]] = []
    condition = False  # the current command follows if/while/until
    skipping = False  # inside a `for … in …` / `case … in` header, up to its `;`, newline or `do`
    piped = False
    case_depth = 0

    outputs: list[str] = []

    def flush(op: str) -> None:
        nonlocal words, piped, spans, outputs
        if words and not skipping:
            commands.append(
                ScriptCommand(
                    tuple(words),
                    condition=condition,
                    failure_ignored=op == "||",
                    piped=piped or op in ("|", "|&"),
                    background=op == "&",
                    source=_written(spans),
                    writes_to=tuple(outputs),
                )
            )
        words = []
        spans = []
        outputs = []
        piped = op in ("|", "|&")

    redirect_target = False
    into_file = False  # the redirection sends output into its target (`>`, `>>`, `&>`, `>|`)
    for token, source in zip(tokens, sources, strict=True):
        if token.kind == "redir":
            redirect_target = True  # its target is not an argument
            into_file = token.text in (">", ">>", "&>", "&>>", ">|")
            continue
        if token.kind == "word" and redirect_target:
            redirect_target = False
            target = token.word.text if token.word is not None else token.text
            if into_file and not target.startswith(("/dev/", "&")) and target != "-":
                outputs.append(target)
            continue
        redirect_target = False
        if token.kind == "word" and token.word is not None:
            word = token.word
            if not words and not word.quoted:
                if word.text == "esac":
                    case_depth = max(0, case_depth - 1)
                    continue
                if word.text in _CONDITION_WORDS:
                    condition = True
                    continue
                if word.text == "then" or word.text == "do":
                    condition = False
                    skipping = False
                    continue
                if word.text in _OPENING_WORDS:
                    continue
                if word.text in ("for", "select"):
                    skipping = True
                    continue
                if word.text == "case":
                    skipping = True
                    case_depth += 1
                    continue
                if word.text == "function":
                    skipping = True
                    continue
            if skipping and case_depth and word.text == "in" and not word.quoted:
                skipping = False  # `case x in`: the branches follow; their patterns end in `)`
                words = []
                spans = []
                continue
            words.append(word)
            spans.append((source, token.start, token.end))
        elif token.kind == "op":
            if token.text in ("(", ")"):
                # a subshell, a function's `()`, or a case pattern's `)`: the words before `)` are a pattern
                if token.text == ")" and case_depth and words:
                    words, spans = [], []
                    continue
                if token.text == "(" and words:  # `name()` function definition
                    words, spans = [], []
                    skipping = False
                    continue
                flush("")
                continue
            if token.text == ";;":
                flush(";")
                continue
            flush(token.text)
            if token.text in (";", "&"):
                skipping = False
        elif token.kind == "newline":
            flush("")
            skipping = False
    flush("")
    # A `case` statement's esac closes it; conditions are already attributed command by command.
    return [c for c in commands if c.words]
