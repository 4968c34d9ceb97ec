"""Level 3: wrapper scripts the project keeps for running its checks (`scripts/run_tests.sh`, `script/test`, …).

The body is read: a script that rewrites files (`--fix`, `--write`, a formatter) or never exits is not a check.
"""

from __future__ import annotations

import itertools
import os
import re

from freshpass.facts.model import Kind

from .base import WRAPPER, Collector
from .shell import body_rejection, guess_kind, logical_lines, split_line, tool_tokens

# Directories that conventionally hold a project's scripts ("scripts to rule them all" uses script/).
SCRIPT_DIRS = ("scripts", "script", "bin", "tools", "ci")
_STEMS = (
    "run_tests",
    "run-tests",
    "runtests",
    "test",
    "tests",
    "check",
    "lint",
    "typecheck",
    "type-check",
    "ci",
    "cibuild",
    "build",
)
_EXTENSIONS = ("", ".sh", ".bash")
# At the root only unambiguous names: a bare `test` or `build` file there is rarely a wrapper script.
_ROOT_NAMES = ("run_tests.sh", "run-tests.sh", "test.sh", "tests.sh", "check.sh", "lint.sh", "ci.sh")
# Tests first, then the other kinds, in the order design §2 lists them.
_NAME_ORDER = {stem + ext: index for index, (stem, ext) in enumerate(itertools.product(_STEMS, _EXTENSIONS))}
_NAMES = set(_NAME_ORDER)


def _kind_for(stem: str) -> Kind | None:
    if stem in ("ci", "cibuild"):
        return "check"
    return guess_kind(stem)


def detect(c: Collector) -> None:
    for name in _ROOT_NAMES:
        if c.is_file(name):
            _read_script(c, name)
    for directory in SCRIPT_DIRS:
        try:
            found = [entry.name for entry in os.scandir(c.path(directory)) if entry.name in _NAMES]
            names = sorted(found, key=_NAME_ORDER.__getitem__)
        except OSError:
            continue
        for name in names:
            rel = f"{directory}/{name}"
            if c.is_file(rel):
                _read_script(c, rel)


def _read_script(c: Collector, rel: str) -> None:
    body = c.read_text(rel)
    if body is None:
        return
    lines = logical_lines(body)
    if body_rejection(lines) is not None:
        return
    stem = re.sub(r"\.(sh|bash)$", "", rel.rsplit("/", 1)[-1])
    kind = _kind_for(stem)
    if kind is None:
        return
    if c.is_executable(rel):
        command = f"./{rel}"
    else:
        first = body.splitlines()[0] if body else ""
        interpreter = "sh" if first.rstrip().endswith(("/sh", " sh")) else "bash"
        command = f"{interpreter} {rel}"
    c.add(command, kind, rel, WRAPPER)
    if kind == "test" and _runs_pytest_with_env(lines):
        c.pytest_routed_by = rel


def _runs_pytest_with_env(lines: list[str]) -> bool:
    """A wrapper that exports settings and runs pytest: bare `pytest` would miss those settings."""
    sets_env = False
    for line in lines:
        for tokens in split_line(line) or []:
            exported = tokens[0] == "export"
            assignments = tokens[1:] if exported else tokens
            count = 0
            while count < len(assignments) and _sets_variable(assignments[count]):
                count += 1
            # `export X=1` or `X=1 pytest` reach pytest; a plain `X=1` line only sets a shell variable.
            if exported or count < len(assignments):
                names = {token.split("=", 1)[0] for token in assignments[:count]}
                sets_env = sets_env or bool(names - {"PATH"})  # PATH only points at tools
            tool = tool_tokens(tokens)
            if tool and tool[0] in ("pytest", "py.test") and sets_env:
                return True
    return False


def _sets_variable(token: str) -> bool:
    name, equals, _value = token.partition("=")
    return bool(equals) and name.isidentifier()
