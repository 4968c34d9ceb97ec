"""Fenced code read by kind: a code sample is no claim; pasted runner output showing a passing run is.

An agent that pastes `===== 42 passed in 3.2s =====`, `ok  github.com/acme/api 0.4s` or `BUILD SUCCESS` says
the run happened and passed, and a receipt must back that as much as the sentence "all tests pass". Output that
shows any failure (a non-zero failed count, `FAIL`, `BUILD FAILURE`, `test result: FAILED`) claims nothing, and
neither does a block whose info string names a programming language (a sample, not a log).
"""

from __future__ import annotations

import re
from functools import cache

from freshpass.facts.model import Kind

# Info strings of code samples; output is fenced bare or as text/console/shell/log.
_SAMPLES = (
    "python py js javascript ts typescript tsx jsx rust rs go java kotlin kt c cpp c++ cs "
    "csharp ruby rb php swift scala json yaml yml toml ini xml html css sql diff patch dockerfile "
    "makefile lua elixir ex haskell hs dart groovy r perl zig nim ocaml"
)
_SAMPLE_INFO = frozenset(_SAMPLES.split())


@cache
def _patterns() -> tuple[tuple[tuple[re.Pattern[str], Kind], ...], tuple[re.Pattern[str], ...]]:
    passing: tuple[tuple[str, Kind], ...] = (
        (r"^=+ (?:[\w ,.]*?)\b\d+ passed\b[^=\n]*=+\s*$", "test"),  # pytest's summary line
        (r"^\d+ passed(?:, \d+ (?:skipped|deselected|xfailed|xpassed|warnings?))* in [\d.]+s\s*$", "test"),  # -q
        (r"^\s*tests:\s+(?:\d+ skipped, )?\d+ passed, \d+ total", "test"),  # jest
        (r"^\s*tests\s+\d+ passed(?: \| \d+ skipped)? \(\d+\)", "test"),  # vitest
        (r"^[^\n.]+\.{4,}(?:\(no files to check\))?passed\s*$", "check"),  # pre-commit's hooks
        (r"^\s*test result: ok\. \d+ passed", "test"),  # cargo test
        (r"^ok\s+\S+\s+(?:\(cached\)|[\d.]+s)", "test"),  # go test
        (r"^\s*ran \d+ tests? in [\d.]+s\s*\n+\s*ok\b", "test"),  # unittest
        (r"^\s*\d+ examples?, 0 failures", "test"),  # rspec
        (r"^\s*\d+ (?:tests?|doctests?)(?:, \d+ \w+)*, 0 failures", "test"),  # ExUnit
        (r"^ok \(\d+ tests?, \d+ assertions?\)", "test"),  # phpunit
        (r"^\s*passed!\s+-\s+failed:\s+0,\s+passed:\s+\d+", "test"),  # dotnet test
        (r"^\s*test run successful\.", "test"),  # dotnet test (vstest)
        (r"^\s*\d+ passing \(\d+(?:\.\d+)?m?s\)", "test"),  # mocha
        (r"^ok \| \d+ passed \| 0 failed", "test"),  # deno test
        (r"^\s*test suite '[^'\n]+' passed at", "test"),  # XCTest / swift test
        (r"^\d+:\d\d \+\d+(?: ~\d+)?: all tests passed!", "test"),  # dart test / flutter test
        (r"^\s*(?:\[info\] )?build success(?:ful)?\b", "build"),  # maven, gradle
        (r"^\s*success: no issues found in \d+", "typecheck"),  # mypy
        (r"^\s*0 errors, 0 warnings", "typecheck"),
        (r"^\s*all checks passed!", "lint"),  # ruff
        (r"^\s*finished `?(?:dev|release|test|bench)`? profile\b", "build"),  # cargo build / check / clippy
        (r"^\s*✓ built in [\d.]+m?s\s*$", "build"),  # vite
        (r"^\s*(?:build succeeded|la génération a réussi|der buildvorgang wurde erfolgreich)", "build"),  # msbuild
    )
    failing = (
        r"\b[1-9]\d* (?:failed|failures?|errors?)\b",
        r"\b[1-9]\d* failing\b",  # mocha
        r"\bfailed:\s+[1-9]",  # dotnet test
        r"^\d+:\d\d \+\d+(?: ~\d+)? -[1-9]",  # dart test: a failure count
        r"\bsome tests failed\b",
        r"^(?:--- )?fail\b",
        r"^\s*(?:\[info\] )?build fail(?:ure|ed)\b",
        r"test result: failed",
        r"^\s*failed\b",
        r"\.{4,}failed\s*$",  # a pre-commit hook
        r"\btraceback \(most recent call last\)",
        r"^\s*error[:\[]",
    )
    return (
        tuple((re.compile(pattern, re.MULTILINE), kind) for pattern, kind in passing),
        tuple(re.compile(pattern, re.MULTILINE) for pattern in failing),
    )


def passing_run(info: str, body: str) -> tuple[Kind, str] | None:
    """The kind of check a fenced block shows passing and the line that shows it, or None (a sample, a failing or
    unfamiliar output)."""
    language = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
    if language in _SAMPLE_INFO:
        return None
    text = body[-20_000:].lower()
    passing, failing = _patterns()
    if any(pattern.search(text) for pattern in failing):
        return None
    for pattern, kind in passing:
        found = pattern.search(text)
        if found:
            start = text.rfind("\n", 0, found.start()) + 1
            end = text.find("\n", found.start())
            return kind, body[-20_000:][start : end if end >= 0 else None].strip(" =\t")
    return None
