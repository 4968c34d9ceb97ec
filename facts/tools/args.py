"""A runner's arguments: which tokens are positionals, and which narrow a run below the whole project (§3.6)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from freshpass.facts.shell import is_assignment

from .base import Identified, Runner, opts

_opts = opts

_SOURCE_SUFFIXES = _opts(
    ".py .pyi .js .jsx .mjs .cjs .ts .tsx .mts .cts .vue .svelte .go .rs .rb .java .kt .kts "
    ".scala .php .cs .fs .swift .ex .exs .erl .c .cc .cpp .h .hpp .m .lua .sh .feature .robot "
    ".hurl .dart .zig"
)
# Make/task variables that pick what runs: TEST=, TESTS=, TESTARGS=, FILE=, PKG=, RUN=, K= …
_SELECTING_VARIABLE = re.compile(
    r"(^|_)(TESTS?|TESTARGS|TESTFLAGS|TEST_ARGS|TEST_FLAGS|FILES?|PKGS?|PACKAGES?|RUN|K|FILTER|PATTERN|ONLY|SPEC|"
    r"SUITE|ARGS|PYTEST_ARGS|PYTEST_ADDOPTS|WHAT|TARGETS?|CASE|CASES|MODULES?|T)$"
)


def positional_indexes(tokens: tuple[str, ...], runner: Runner | None, start: int = 0) -> list[int]:
    """Indexes of the positional tokens in tokens[start:] (option values and `VAR=x` assignments are not)."""
    value_options = runner.value_options if runner else frozenset()
    out: list[int] = []
    i = start
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            out.extend(range(i + 1, len(tokens)))
            break
        if token.startswith("-") and token != "-":
            if token in value_options:
                i += 2
                continue
            i += 1
            continue
        if not is_assignment(token):
            out.append(i)
        i += 1
    return out


def _looks_like_path(token: str) -> bool:
    return "/" in token or PurePosixPath(token).suffix.lower() in _SOURCE_SUFFIXES


def arg_names_path(token: str, cwd: Path | None, root: Path | None) -> bool:
    """Does a positional name something narrower than the whole project (design §3.6)?

    `::` test ids, existing paths other than the root and the cwd, and source/test file names narrow;
    `.` does not; a plain word that is not a path (an env name, a goal) does not either."""
    if "::" in token:
        return True
    stripped = token.rstrip("/") or token
    if stripped in (".", "./", ""):
        return False
    if cwd is not None and "$" not in token and "*" not in token:
        try:
            path = Path(os.path.normpath(cwd / os.path.expanduser(stripped)))
            if path.exists():
                return path != cwd and (root is None or path != root)
        except (OSError, ValueError):
            return _looks_like_path(token)
    return _looks_like_path(token)


@dataclass
class Narrowing:
    """Why a run is narrower than the whole project (empty: it is not)."""

    reasons: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.reasons)


_EVERY_FILE = re.compile(r"^(?:\./)?\*\*/\*(\.[\w+-]+)?$")
_HERE_FILES = re.compile(r"^(?:\./)?\*(\.[\w+-]+)$")


def narrowing_of(
    args: tuple[str, ...],
    identified: Identified | None,
    cwd: Path | None,
    root: Path | None,
) -> Narrowing:
    """Which of `args` (the tokens after the runner, or an approved command's trailing args) narrow the run."""
    runner = identified.runner if identified else None
    found = Narrowing()
    if runner is not None and runner.arguments_select and args:
        found.reasons.append(f"arguments {' '.join(args)}")
        return found
    narrowing_options = runner.narrowing_options if runner else frozenset()
    value_options = runner.value_options if runner else frozenset()
    i = 0
    after_separator: tuple[str, ...] = ()
    first_positional = True
    # `./**/*.zig` (every file of a type, from here down) is the whole tree, and so is `./*.zig` beside it
    every = {glob.group(1) for token in args if (glob := _EVERY_FILE.match(token))}
    while i < len(args):
        token = args[i]
        if token == "--":
            after_separator = args[i + 1 :]
            break
        if token.startswith("-") and token != "-":
            name = token.split("=", 1)[0]
            attached = _attached_short(token, narrowing_options | value_options)
            if name in narrowing_options or attached in narrowing_options or _narrowing_define(token, runner):
                found.reasons.append(f"option {token}")
            elif runner is not None and _narrowing_setting(args, i, runner):
                found.reasons.append(f"setting {' '.join(args[i : i + 2])}")
            takes_value = name in value_options and "=" not in token and len(token) == len(name)
            # An unknown program's `--option value`: the value is not a selection (`--max-warnings 0`).
            guessed = (runner is None or runner.opaque) and token.startswith("--") and "=" not in token
            if takes_value or (guessed and i + 1 < len(args) and not args[i + 1].startswith("-")):
                i += 2
                continue
            i += 1
            continue
        if is_assignment(token):
            if _SELECTING_VARIABLE.search(token.split("=", 1)[0].upper()):
                found.reasons.append(f"variable {token}")
            i += 1
            continue
        if first_positional and runner is not None and token in runner.leading_words:
            first_positional = False
            i += 1
            continue  # `vitest run`: a subcommand, not a filter
        first_positional = False
        here = _HERE_FILES.match(token)
        if _EVERY_FILE.match(token) or (here and here.group(1) in every):
            i += 1
            continue
        if _positional_narrows(token, runner, cwd, root):
            found.reasons.append(f"argument {token}")
        i += 1
    if after_separator:
        if runner is not None and runner.passthrough_narrows:
            # `tox -e py -- ARGS`, `nox -s tests -- ARGS`: the arguments reach the env's test runner (pytest, most
            # often): its selections narrow, its reporting flags (`-n auto`, `-x`) do not.
            from .python import PYTEST

            inner = narrowing_of(after_separator, Identified(PYTEST, 0, "test"), cwd, root)
            found.reasons.extend(f"after --: {r}" for r in inner.reasons)
        elif runner is not None and runner.test_binary_args:
            found.reasons.extend(_test_binary_narrowing(after_separator))
        else:
            for token in after_separator:
                if not token.startswith("-") and _positional_narrows(token, runner, cwd, root):
                    found.reasons.append(f"argument {token}")
    return found


def _narrowing_setting(args: tuple[str, ...], i: int, runner: Runner) -> bool:
    """`-o python_functions=test_ok`, `--override-ini=python_files=x.py`, `-oaddopts=-k x`: a setting that chooses
    what is collected narrows the run."""
    if not runner.narrowing_settings:
        return False
    token = args[i]
    name, eq, attached = token.partition("=")
    if name in runner.setting_options:
        value = attached if eq else (args[i + 1] if i + 1 < len(args) else "")
    else:
        short = next(
            (o for o in runner.setting_options if len(o) == 2 and token.startswith(o) and len(token) > 2), None
        )
        if short is None:
            return False
        value = token[2:]
    return value.split("=", 1)[0].strip() in runner.narrowing_settings


def _attached_short(token: str, options: frozenset[str]) -> str | None:
    """`-kslow` → `-k` when `-k` is a known option taking a value."""
    if len(token) > 2 and token[0] == "-" and token[1] != "-":
        return token[:2] if token[:2] in options else None
    return None


def _narrowing_define(token: str, runner: Runner | None) -> bool:
    if runner is None or not token.startswith("-D"):
        return False
    name = token.split("=", 1)[0]
    return name in runner.narrowing_options


def _positional_narrows(token: str, runner: Runner | None, cwd: Path | None, root: Path | None) -> bool:
    mode = runner.positionals if runner else "paths"
    if mode == "never":
        return False
    if runner is not None and token.rstrip("/") in runner.test_dirs:
        return False  # the runner's own default directory: `busted spec`, `prove -l t`, `mix test test`
    if mode == "always":
        return token not in (".", "./")
    if mode == "packages":
        return token not in ("./...", "...", "all", "//...", "//:all", "//...:all")
    return arg_names_path(token, cwd, root)


def _test_binary_narrowing(args: tuple[str, ...]) -> list[str]:
    reasons: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token in ("--skip", "--exact", "--ignored"):
            reasons.append(f"test-binary option {token}")
            i += 2 if token == "--skip" else 1
            continue
        if token in ("--test-threads", "--format", "--color", "-Z", "--logfile", "--report-time"):
            i += 2
            continue
        if not token.startswith("-"):
            reasons.append(f"test filter {token}")
        i += 1
    return reasons
