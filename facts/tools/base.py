"""The shapes every tool record shares, and the registry that turns a command's tokens into the tool it runs.

A tool is described once, in the module of its ecosystem (`python.py`, `node.py`, `rust.py` …): how an invocation
of it is recognised (`identify`), how it reads its arguments (a `Runner`: options taking a value, options and
positionals that narrow the run, tokens that widen it to the whole project, option synonyms), what it does when it
is not a check (rewrites files, watches, publishes, installs, only prints), its output summary and its targeted
form for one file. Detection, classification, recipes and output parsing all read these same records.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from freshpass.facts.lazyre import LazyPattern, lazy
from freshpass.facts.model import KINDS, Kind


def opts(names: str) -> frozenset[str]:
    """A set of option names written as one whitespace-separated string (the tables stay readable)."""
    return frozenset(names.split())


def has(args: tuple[str, ...], *names: str) -> bool:
    """Does any token equal one of `names`, or spell it with an attached value (`--opt=v`)?"""
    return any(token == name or token.startswith(name + "=") for token in args for name in names)


@dataclass(frozen=True)
class Invocation:
    """One command after normalisation.

    `tokens` start with the tool (`pytest`, `go`, `npm` …); package scripts read `(pm, "run", name, *args)`.
    `cwd` is where it runs (after `cd`, `npm --prefix`, `make -C` …), None when unknowable (`cd $DIR`).
    `wrapper_args` are narrowing options consumed by a wrapper (`pnpm --filter web`), kept as `--filter=web`.
    """

    tokens: tuple[str, ...]
    cwd: Path | None
    wrapper_args: tuple[str, ...] = ()
    shell_script: str | None = None  # `bash -c SCRIPT`: the script, to be classified in its own right
    shell_pipefail: bool = False  # `bash -o pipefail -c SCRIPT`


@dataclass(frozen=True)
class Rejected:
    """A command that is never evidence, and why (`sudo pytest`, `python -c …`); `writes` when what it sets up
    makes the tool rewrite files (`UPDATE_SNAPSHOTS=1 cargo test`)."""

    reason: str
    writes: bool = False


Positionals = Literal["paths", "always", "packages", "never"]


@dataclass(frozen=True)
class Runner:
    """How a recognised runner reads its arguments.

    `positionals`: "paths" — a positional narrows when it names a test id, an existing path other than the
    root/cwd, or a source/test file; "always" — any positional narrows (jest path patterns, cargo test filters);
    "packages" — package patterns (anything but `./...` narrows); "never".
    `whole_scope`: tokens that widen a run to the whole project (`--workspace`, `./...`): a run of the same
    runner that lacks one the declared check has is narrower than the check.
    `synonyms`: option spellings that mean the same (`--session` → `-s`, `--all` → `--workspace`); both sides of
    a match are rewritten to the first spelling.
    `neutral`: options that change how a run reports, not what it runs (`-q`, `-v`): they never tell two
    checks apart.
    """

    name: str
    kind: Kind
    value_options: frozenset[str] = frozenset()
    narrowing_options: frozenset[str] = frozenset()
    positionals: Positionals = "paths"
    passthrough_narrows: bool = False  # `tox -- ARGS`: anything after `--` narrows
    test_binary_args: bool = False  # `cargo test -- ARGS`: filters and `--skip`/`--exact` narrow, flags do not
    opaque: bool = False  # a script or task whose options are unknown: `--name WORD` is read as option and value
    # A test script whose every argument is its own selection (`julia test/runtests.jl --list`, `… unit`).
    arguments_select: bool = False
    whole_scope: frozenset[str] = frozenset()
    synonyms: tuple[tuple[str, str], ...] = ()  # (spelling, canonical spelling)
    neutral: frozenset[str] = frozenset()
    leading_words: frozenset[str] = frozenset()  # a first positional that is a subcommand (`vitest run`)
    # The runner's default test directories: naming one is still the whole suite (`busted spec`, `prove -l t`).
    test_dirs: frozenset[str] = frozenset()
    # Options whose value is `KEY=VALUE` settings, and the keys that choose what runs (`-o python_functions=…`).
    setting_options: frozenset[str] = frozenset()
    narrowing_settings: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Identified:
    runner: Runner
    head: int  # how many leading tokens name the runner (`go test` = 2)
    kind: Kind
    label: str = ""  # for messages: "pytest", "npm run lint", "make test"
    covers: frozenset[Kind] = frozenset()  # the kinds an umbrella runs too (`gradle check` runs the tests)


Effect = Literal["writes", "watches", "publishes", "installs", "system", "prints"]


@dataclass(frozen=True)
class NotEvidence:
    """A recognised tool in a mode that never counts, what it does instead, and why.

    `effect`: "writes" (rewrites tracked files: formatters, fixers, lockfile updates, `git commit`), "publishes"
    (releases, uploads, pushes, tags), "watches" (never exits: watch mode, servers, opening a window), "installs"
    (prepares the project's own environment: `npm ci`, `uv sync`, a venv's pip — a check may do that first),
    "system" (installs software on the machine: `apt-get`, `npm i -g`, `cargo install`), "prints" (help, listing).
    """

    reason: str
    effect: Effect = "prints"

    @property
    def destructive(self) -> bool:
        """Would running it change the project or the world (never to be proposed as a check)?"""
        return self.effect in ("writes", "publishes")


def writes(reason: str) -> NotEvidence:
    return NotEvidence(reason, "writes")


def watches(reason: str) -> NotEvidence:
    return NotEvidence(reason, "watches")


def publishes(reason: str) -> NotEvidence:
    return NotEvidence(reason, "publishes")


def installs(reason: str) -> NotEvidence:
    return NotEvidence(reason, "installs")


def system(reason: str) -> NotEvidence:
    return NotEvidence(reason, "system")


def prints(reason: str) -> NotEvidence:
    return NotEvidence(reason, "prints")


Identification = Identified | NotEvidence | None
IdentifyFn = Callable[[tuple[str, ...]], Identification]

_BY_HEAD: dict[str, IdentifyFn] = {}
_FALLBACKS: list[IdentifyFn] = []
_LAST_RESORT: list[IdentifyFn] = []


def tool(*heads: str) -> Callable[[IdentifyFn], IdentifyFn]:
    """Register `fn` as the identification of invocations whose first token is one of `heads`."""

    def register(fn: IdentifyFn) -> IdentifyFn:
        for head in heads:
            if head in _BY_HEAD:
                raise ValueError(f"tool {head!r} is registered twice")
            _BY_HEAD[head] = fn
        return fn

    return register


def fallback(fn: IdentifyFn) -> IdentifyFn:
    """Register `fn` for invocations no head matched (paths to scripts, `manage.py`, …), tried in order."""
    _FALLBACKS.append(fn)
    return fn


def last_resort(fn: IdentifyFn) -> IdentifyFn:
    """Register `fn` to be tried after every fallback (a script named by its path, whatever it is)."""
    _LAST_RESORT.append(fn)
    return fn


# Tools whose help/version arguments are script or task names rather than a request for help.
_HELP_IS_A_NAME = opts("make npm pnpm yarn bun composer deno task just")


@functools.lru_cache(maxsize=8192)
def identify(tokens: tuple[str, ...]) -> Identification:
    """Which recognised runner a normalised invocation is, if any (records are immutable: answers are shared)."""
    if not tokens:
        return None
    head = tokens[0]
    args = tokens[1:]
    asks_help = has(args, "--help", "--version", "--usage") or args[:1] in (("-h",), ("-V",), ("help",), ("version",))
    if asks_help and head == "ctest" and "-V" in args and not has(args, "--help", "--version"):
        asks_help = False  # ctest's -V is verbose
    if asks_help and head not in _HELP_IS_A_NAME:
        return prints(f"`{head}` with help/version arguments only prints")
    found = _BY_HEAD.get(head)
    if found is not None:
        result = found(tokens)
    else:
        result = next((r for candidate in (*_FALLBACKS, *_LAST_RESORT) if (r := candidate(tokens)) is not None), None)
    rewriting = next((a for a in args if a.split("=", 1)[0] in REWRITES_EXPECTATIONS), None)
    if isinstance(result, Identified) and result.kind == "test" and rewriting is not None:
        return writes(f"`{result.label} {rewriting}` rewrites the expected outputs")
    return result


# Options that make any test runner rewrite its expected outputs instead of checking them (pest, jest, vitest,
# playwright, golden-file helpers); runners with their own writer options say so in their own module too.
REWRITES_EXPECTATIONS = opts(
    "--update-snapshots --update-snapshot --snapshot-update --update-goldens --update-golden --update-golden-files "
    "--bless --force-regen"
)


# The directories that hold a project's tests, by convention (`test/runner.rb` is a script of the suite).
TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "e2e", "integration_tests"})

_GENERIC_RUNNERS = frozenset({"lint", "typecheck", "test", "script", "task", "build", "bundle", "make", "nx", "turbo"})


def suite_of(found: Identified) -> str:
    """What a run is a run of: the runner's own suite for specific runners (`cargo test` and `cargo nextest run`
    both run cargo's tests; `gradle :app:check` and `gradle test` both drive one Gradle build), the tool itself
    for the shared runner records (flake8 and pylint are two checks)."""
    if found.runner.name in _GENERIC_RUNNERS:
        return found.label
    return f"{found.runner.name}:{found.kind}" if found.runner.name not in ("gradle", "mvn") else found.runner.name


def known_heads() -> frozenset[str]:
    return frozenset(_BY_HEAD)


def formatter(
    label: str, args: tuple[str, ...], *, check: tuple[str, ...], write: tuple[str, ...] = (), head: int = 1
) -> Identified | NotEvidence:
    """A formatter counts (as lint) only in check mode; otherwise it rewrites files (or just prints)."""
    from .generic import LINT_PATHS

    if write and has(args, *write):
        return writes(f"`{label} {write[0]}` rewrites files")
    if has(args, *check):
        return Identified(LINT_PATHS, head, "lint", f"{label} {check[0]}")
    if write and not has(args, *write):
        return prints(f"`{label}` without {' or '.join(check)} neither checks nor rewrites: it prints")
    return writes(f"`{label}` rewrites files; a formatter run counts only in check mode ({check[0]})")


# Environment variables test tools read as "rewrite the expected outputs" (insta, trybuild, expect-test, ruff's
# schema test, snapshot libraries): set to anything but a false value, the run rewrites files.
_UPDATING_VARIABLE = lazy(
    r"(^|_)(UPDATE|BLESS|OVERWRITE|REGEN|REGENERATE|ACCEPT|SNAPSHOT_UPDATE)(_|$)"
    r"|(^|_)(REBUILD|RECORD|REFRESH)_(SNAPSHOTS?|GOLDENS?|FIXTURES?|EXPECT\w*)$"
)
_FALSE_VALUES = frozenset({"", "0", "false", "no", "off", "never", "n"})


def updating_assignment(word: str) -> str | None:
    """`INSTA_UPDATE=always` → the assignment; None for anything that does not make a test rewrite its expectations."""
    name, eq, value = word.partition("=")
    if not eq or not name.replace("_", "").isalnum():
        return None
    if name == "TRYBUILD":
        return word if value.lower() == "overwrite" else None
    if _UPDATING_VARIABLE.search(name.upper()) and value.strip("'\"").lower() not in _FALSE_VALUES:
        return word
    return None


# --- names of scripts, targets, sessions and envs ----------------------------------------------------------------

# `dev` after a build verb is a profile (`build-dev`, `build:dev` build in debug mode), not a dev server.
_NEVER_FINISHES = lazy(
    r"(^|[:_-])(watch|(?<!build[:_-])(?<!compile[:_-])dev|serve|server|start|preview)($|[:_-])|(^|:)(ui|open)$"
)
_WRITER_NAME = lazy(
    r"(^|[:_-])(fix|format|fmt|prettier|prettify|autofix|write|lintfix|black|isort|update|upgrade|generate|gen|"
    r"regen|regenerate|codegen|bless|accept|snapshot-update|vendor|vendoring)($|[:_-])"
)
_FORMAT_CHECK = lazy(
    r"(^|[:_-])((fmt|format|formatting|prettier|black|isort|style)[:_-]?(check|verify|lint)|"
    r"(check|verify)[:_-]?(fmt|format|formatting|prettier|style))($|[:_-])"
)
_PUBLISHER_NAME = lazy(r"(^|[:_-])(release|publish|deploy|upload|bump|tag|version|changelog|prepare-release)($|[:_-])")
_SETUP_NAME = lazy(
    r"^(install|setup|deps|dependencies|venv|env|bootstrap|develop|init|help|sync|clean|distclean|lock|update|"
    r"upgrade|all-deps|dev-setup|pre-commit-install)$"
)
_NAME_KINDS: tuple[tuple[LazyPattern, Kind], ...] = (
    (lazy(r"(^|[:_-])(type-?check|typecheck|types|check-types|tsc|mypy|pyright|typing)($|[:_-])"), "typecheck"),
    (
        lazy(r"(^|[:_-])(tests?|unit|unittests?|spec|specs|e2e|integration|pytest|jest|vitest|coverage|cov)($|[:_-])"),
        "test",
    ),
    (lazy(r"(^|[:_-])(lint|linters?|eslint|ruff|flake8|pylint|style|clippy|vet)($|[:_-])"), "lint"),
    # `cibuild`: what the "scripts to rule them all" convention (`script/cibuild`) names everything CI runs
    (
        lazy(r"^(check|checks|ci|cibuild|verify|validate|precommit|pre-commit|qa|all-checks|check-all)($|[:_-])"),
        "check",
    ),
    (lazy(r"^(build|compile)($|[:_-])"), "build"),
)
_PYTHON_ENV = lazy(r"^(py|pypy)\d*(\.\d+)?([-_].*)?$")
# Any of the patterns above, tried in one pass first: most generated names say nothing.
_SAYS_SOMETHING = lazy(
    "|".join(
        f"(?:{p.pattern})"
        for p in (
            _NEVER_FINISHES,
            _FORMAT_CHECK,
            _WRITER_NAME,
            _PUBLISHER_NAME,
            _SETUP_NAME,
            _PYTHON_ENV,
            *(k[0] for k in _NAME_KINDS),
        )
    )
    + "|^test"
)


@functools.lru_cache(maxsize=8192)
def name_stem(name: str) -> str:
    """`scripts/run_tests.sh` → `tests`; `Test` → `test`: the part of a name that says what it does."""
    base = name.lower().rstrip("/").rsplit("/", 1)[-1]
    stem = _SCRIPT_SUFFIX.sub("", base) if "." in base else base
    stem = (_RUN_PREFIX.sub("", stem) or stem) if stem.startswith("run") else stem
    return "tests" if stem == "runtests" else stem


_SCRIPT_SUFFIX = lazy(r"\.(sh|bash|py|js|mjs|cjs|ts|rb|pl|ps1|cmd|bat)$")
_RUN_PREFIX = lazy(r"^run[_-]?")


@functools.lru_cache(maxsize=8192)
def script_kind(name: str) -> Kind | Literal["writes", "publishes", "watches", "setup"] | None:
    """What a script/target/task/env/session *name* says it does, for when its body cannot tell.

    A Kind; "writes" (`format`, `lint:fix`), "publishes" (`release`, `deploy`), "watches" (`dev`, `test:watch`),
    "setup" (`install`, `clean`); None when the name says nothing."""
    stem = name_stem(name)
    if not _SAYS_SOMETHING.search(stem) and not stem.endswith(("test", "_spec")):
        return None  # one pass over the name instead of every pattern in turn (generated names by the thousand)
    if _NEVER_FINISHES.search(stem):
        return "watches"
    if _FORMAT_CHECK.search(stem):
        return "lint"  # a formatter in check mode (`format:check`, `checkfmt`): it reports, it does not rewrite
    if _WRITER_NAME.search(stem):
        return "writes"
    if _PUBLISHER_NAME.search(stem):
        return "publishes"
    if _SETUP_NAME.match(stem):
        return "setup"
    for pattern, kind in _NAME_KINDS:
        if pattern.search(stem):
            return kind
    if stem.startswith("test") or stem.endswith("test") or stem.endswith("_spec") or _PYTHON_ENV.match(stem):
        return "test"
    return None


def names_kind(name: str, kind: Kind) -> bool:
    """Does any part of a name say `kind` (`test:lint` says lint as well as test)?"""
    stem = name_stem(name)
    return any(k == kind and pattern.search(stem) for pattern, k in _NAME_KINDS)


def name_kind(name: str) -> Kind | None:
    """The check kind a name says, or None (writers, watchers, setup and unknown names alike)."""
    said = script_kind(name)
    return cast(Kind, said) if said in KINDS else None
