"""JavaScript and TypeScript tools: jest, vitest, mocha, node's and bun's and deno's test runners, eslint,
prettier, biome, tsc and its relatives, playwright and cypress, bundlers and dev servers."""

from __future__ import annotations

import re

from .base import (
    Identification,
    Identified,
    Runner,
    formatter,
    has,
    opts,
    prints,
    publishes,
    system,
    tool,
    watches,
    writes,
)
from .generic import GENERIC_TEST, LINT_PATHS, TASK_RUNNER, TYPECHECK_PATHS, by_name
from .summary import TestCounts

JEST = Runner(
    "jest",
    "test",
    opts(
        "-t --testNamePattern -c --config --testPathPattern --testPathPatterns "
        "--testPathIgnorePatterns --selectProjects --shard --maxWorkers -w --reporters "
        "--coverageReporters --changedSince --outputFile --rootDir --roots --env --testEnvironment "
        "--testTimeout --seed --filter --coverageDirectory --cacheDirectory"
    ),
    opts(
        "-t --testNamePattern --testPathPattern --testPathPatterns -o --onlyChanged --changedSince "
        "--findRelatedTests --selectProjects --shard --testPathIgnorePatterns --lastCommit "
        "--onlyFailures -f --filter"
    ),
    positionals="always",
    neutral=opts("--ci --coverage --silent --verbose -i --runInBand --maxWorkers -w --colors --passWithNoTests"),
)
VITEST = Runner(
    "vitest",
    "test",
    opts(
        "-t --testNamePattern --project --shard --dir -c --config -r --root --reporter --outputFile "
        "--environment --pool --exclude --mode --maxWorkers --minWorkers --testTimeout "
        "--sequence.seed"
    ),
    opts("-t --testNamePattern --project --shard --dir --changed --related --exclude --onlyChanged"),
    positionals="always",
    neutral=opts("--coverage --silent --reporter --passWithNoTests --no-watch --run"),
    leading_words=opts("run"),
)
MOCHA = Runner(
    "mocha",
    "test",
    opts(
        "-g --grep -f --fgrep -r --require -R --reporter -t --timeout -s --slow -u --ui --config "
        "--spec --extension --ignore --exclude --file -O --reporter-option --package -j --jobs"
    ),
    opts("-g --grep -f --fgrep --spec -i --invert --ignore --exclude"),
    positionals="always",
)
NODE_TEST = Runner(
    "node --test",
    "test",
    opts(
        "--test-name-pattern --test-skip-pattern --test-reporter --test-reporter-destination "
        "--test-concurrency --test-timeout --import --require -r --loader --experimental-loader "
        "--env-file --test-shard"
    ),
    opts("--test-name-pattern --test-skip-pattern --test-only --test-shard"),
    positionals="always",
)
BUN_TEST = Runner(
    "bun test",
    "test",
    opts("-t --test-name-pattern --timeout --preload --rerun-each --coverage-reporter"),
    opts("-t --test-name-pattern --only --bail"),
    positionals="always",
)
DENO_TEST = Runner("deno test", "test", opts("--filter --config -c --import-map"), opts("--filter"))
TSC = Runner("tsc", "typecheck", TYPECHECK_PATHS.value_options, frozenset())  # tsc -p names the project


@tool("jest")
def _jest(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if has(args, "--watch", "--watchAll"):
        return watches("jest --watch never finishes: a watcher is not a check")
    if has(args, "--listTests", "--showConfig", "--clearCache"):
        return prints("jest with --listTests/--showConfig/--clearCache runs no tests")
    if has(args, "-u", "--updateSnapshot", "--ci=false"):
        return writes("jest -u rewrites snapshot files")
    return Identified(JEST, 1, "test", "jest")


@tool("vitest")
def _vitest(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub in ("watch", "dev") or has(args, "--watch", "-w"):
        return watches("vitest in watch mode never finishes: a watcher is not a check")
    if sub in ("bench", "list", "init"):
        return prints(f"`vitest {sub}` runs no tests")
    if has(args, "-u", "--update"):
        return writes("vitest -u rewrites snapshot files")
    if sub == "related":
        return Identified(VITEST, 1, "test", "vitest")  # `related FILES`: the files narrow
    return Identified(VITEST, 2 if sub == "run" else 1, "test", "vitest")


@tool("mocha")
def _mocha(tokens: tuple[str, ...]) -> Identification:
    if has(tokens[1:], "--watch", "-w"):
        return watches("mocha --watch never finishes: a watcher is not a check")
    return Identified(MOCHA, 1, "test", "mocha")


@tool("node")
def _node(tokens: tuple[str, ...]) -> Identification:
    if "--test" not in tokens:
        return None
    if has(tokens[1:], "--watch"):
        return watches("node --test --watch never finishes: a watcher is not a check")
    return Identified(NODE_TEST, 1, "test", "node --test")


def bun_test(tokens: tuple[str, ...]) -> Identification:
    if has(tokens[2:], "--watch"):
        return watches("bun test --watch never finishes: a watcher is not a check")
    return Identified(BUN_TEST, 2, "test", "bun test")


def bun_build(tokens: tuple[str, ...]) -> Identification:
    if has(tokens[2:], "--watch"):
        return watches("bun build --watch never finishes: a watcher is not a check")
    return Identified(_BUNDLE, 2, "build", "bun build")


@tool("deno")
def _deno(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "task" and len(tokens) > 2:
        return by_name(TASK_RUNNER, 3, tokens[2], f"deno task {tokens[2]}")
    if sub == "test":
        return Identified(DENO_TEST, 2, "test", "deno test")
    if sub == "lint":
        if has(args, "--fix"):
            return writes("deno lint --fix rewrites files")
        if has(args, "--watch"):
            return watches("deno lint --watch never finishes")
        return Identified(LINT_PATHS, 2, "lint", "deno lint")
    if sub == "check":
        return Identified(TYPECHECK_PATHS, 2, "typecheck", "deno check")
    if sub == "fmt":
        return formatter("deno fmt", args[1:], check=("--check",), head=2)
    if sub == "publish":
        return (
            prints("`deno publish --dry-run` only prints")
            if has(args, "--dry-run")
            else publishes("`deno publish` publishes a release")
        )
    if sub in ("serve",) or (sub == "run" and has(args, "--watch")):
        return watches(f"`deno {sub}` never finishes")
    return None


@tool("eslint", "stylelint", "oxlint", "xo", "standard", "tslint", "ts-standard", "lint-staged")
def _js_linters(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    if head == "lint-staged":
        return writes("lint-staged runs on staged files and may rewrite them")
    if has(args, "--fix") and not has(args, "--fix-dry-run"):
        return writes(f"`{head} --fix` rewrites files; a fixer run is never evidence")
    return Identified(LINT_PATHS, 1, "lint", head)


@tool("prettier")
def _prettier(tokens: tuple[str, ...]) -> Identification:
    return formatter("prettier", tokens[1:], check=("--check", "-c", "--list-different", "-l"), write=("--write", "-w"))


@tool("biome", "@biomejs/biome")
def _biome(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if has(args, "--write", "--apply", "--apply-unsafe", "--fix", "--unsafe"):
        return writes(f"`biome {sub}` with --write/--fix rewrites files")
    if sub in ("check", "lint", "ci", "format"):
        return Identified(LINT_PATHS, 2, "lint", f"biome {sub}")
    return None


@tool("tsc", "vue-tsc", "svelte-check", "tsgo", "tsd", "attw")
def _tsc(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    if has(args, "--watch", "-w"):
        return watches(f"{head} --watch never finishes: a watcher is not a check")
    if head in ("svelte-check", "tsd", "attw") or has(args, "--noEmit"):
        return Identified(TSC, 1, "typecheck", f"{head} --noEmit" if head != "svelte-check" else head)
    return Identified(TSC, 1, "build", head)


@tool("flow")
def _flow(tokens: tuple[str, ...]) -> Identification:
    return Identified(TYPECHECK_PATHS, 2 if tokens[1:2] == ("check",) else 1, "typecheck", "flow")


@tool("playwright", "cypress")
def _browser_tests(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub in ("test", "run"):
        if has(tokens, "--ui", "--headed") and tokens[0] == "playwright" and has(tokens, "--ui"):
            return watches("playwright --ui never finishes")
        return Identified(GENERIC_TEST, 2, "test", f"{tokens[0]} {sub}")
    if sub in ("open", "show-report", "codegen"):
        return watches(f"`{tokens[0]} {sub}` opens an interactive window")
    if sub == "install":
        return system(f"`{tokens[0]} install` downloads and installs browsers")
    return None


@tool("ava", "tap", "jasmine", "karma", "uvu", "tape", "c8", "nyc", "borp", "cucumber-js")
def _other_js_tests(tokens: tuple[str, ...]) -> Identification:
    head = tokens[0]
    if head in ("c8", "nyc"):
        return None  # coverage wrappers: normalise peels them off
    if has(tokens[1:], "--watch", "-w") and head in ("ava", "tap", "karma"):
        return watches(f"{head} --watch never finishes: a watcher is not a check")
    if head == "borp":
        return Identified(NODE_TEST, 1, "test", head)  # node's own test runner, TypeScript-aware
    sub = tokens[1] if len(tokens) > 1 else ""
    return Identified(GENERIC_TEST, 2 if sub == "start" else 1, "test", head)


_DEV_SERVERS = opts(
    "vite next nuxt astro remix svelte-kit gatsby ng parcel webpack webpack-dev-server rollup esbuild nodemon "
    "http-server live-server serve browser-sync react-scripts vue-cli-service storybook start-storybook "
    "wrangler tsup"
)


@tool(*sorted(_DEV_SERVERS))
def _bundlers(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = next((t for t in args if not t.startswith("-")), "")
    if head in ("nodemon", "http-server", "live-server", "serve", "browser-sync", "webpack-dev-server"):
        return watches(f"`{head}` serves until stopped: a server is not a check")
    if has(args, "--watch", "-w", "--serve") or sub in ("dev", "serve", "watch", "start", "develop", "preview"):
        label = f"{head} {sub}".strip()
        return watches(f"`{label}` never finishes: a dev server or watcher is not a check")
    if head == "vite" and not sub:
        return watches("bare `vite` starts the dev server")
    if head == "parcel" and sub != "build":
        return watches("parcel serves unless told to build")
    if head in ("react-scripts", "vue-cli-service") and sub == "test":
        return Identified(JEST, 2, "test", f"{head} test")
    if head == "storybook" or head == "start-storybook":
        return Identified(_BUNDLE, 2, "build", "storybook build") if sub == "build" else watches("storybook serves")
    if head == "wrangler":
        return publishes("`wrangler deploy` publishes") if sub in ("deploy", "publish") else None
    if sub == "build" or head in ("webpack", "rollup", "esbuild", "tsup"):
        return Identified(_BUNDLE, 2 if sub == "build" else 1, "build", f"{head} build" if sub == "build" else head)
    return None


_BUNDLE = Runner("bundle", "build", frozenset(), frozenset(), positionals="never", opaque=True)


# -- output summaries ------------------------------------------------------------------------------------------------

_JEST_SUMMARY = re.compile(r"^Tests:\s+(.*?\d+ total)\s*$", re.MULTILINE)
_VITEST_SUMMARY = re.compile(r"^\s*Tests\s+(.*?)\s*\((\d+)\)\s*$", re.MULTILINE)
_COUNT_WORD = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")
_MOCHA_SUMMARY = re.compile(r"^\s+(\d+) (passing|failing|pending)\b", re.MULTILINE)
NO_TESTS = (
    re.compile(r"\bNo tests found\b"),  # jest (also with --passWithNoTests)
    re.compile(r"\bNo test files found\b"),  # vitest
    re.compile(r"^# tests 0\s*$", re.MULTILINE),  # node --test
    re.compile(r"\bRan 0 tests across\b"),  # bun test
    re.compile(r"^\s*0 passing\b", re.MULTILINE),  # mocha
)


def _words(summary: str) -> dict[str, int]:
    return {word: int(number) for number, word in _COUNT_WORD.findall(summary)}


def jest_counts(text: str) -> TestCounts | None:
    results = _JEST_SUMMARY.findall(text)
    if not results:
        return None
    parts = _words(results[-1])
    return TestCounts(parts.get("passed", 0), parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))


def vitest_counts(text: str) -> TestCounts | None:
    results = _VITEST_SUMMARY.findall(text)
    if not results:
        return None
    parts = _words(results[-1][0])
    if not parts:
        return None
    return TestCounts(parts.get("passed", 0), parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))


def mocha_counts(text: str) -> TestCounts | None:
    parts = {word: int(number) for number, word in _MOCHA_SUMMARY.findall(text)}
    if "passing" not in parts and "failing" not in parts:
        return None
    return TestCounts(parts.get("passing", 0), parts.get("failing", 0), parts.get("pending", 0))
