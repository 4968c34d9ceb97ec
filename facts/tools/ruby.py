"""Ruby's tools: rake, rspec, rails, minitest runners, rubocop and standardrb, bundler and gem."""

from __future__ import annotations

import re

from .base import (
    Identification,
    Identified,
    Runner,
    fallback,
    has,
    installs,
    opts,
    publishes,
    tool,
    watches,
    writes,
)
from .generic import LINT_PATHS, TASK_RUNNER, TYPECHECK_PATHS, by_name

RSPEC = Runner(
    "rspec",
    "test",
    opts("-e --example -t --tag -r --require -f --format -o --out --seed -I --pattern --order -P --exclude-pattern"),
    opts("-e --example -t --tag --pattern -P --only-failures --next-failure -n --exclude-pattern -E --example-matches"),
)
RAKE = Runner("rake", "test", frozenset(), frozenset(), positionals="always", opaque=True)
# A minitest file run by ruby (`ruby -Itest test/routing_test.rb -n test_x`): what `Rake::TestTask` runs, a file at
# a time. The file is the program; `-n`/`-e` select tests within it.
MINITEST = Runner(
    "minitest",
    "test",
    opts("-n --name -e --exclude -s --seed"),
    opts("-n --name -e --exclude"),
    positionals="never",
)
_MINITEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.rb$")


@fallback
def _minitest_file(tokens: tuple[str, ...]) -> Identification:
    return Identified(MINITEST, 1, "test", "minitest") if _MINITEST_FILE.search(tokens[0]) else None


@tool("cucumber")
def _cucumber(tokens: tuple[str, ...]) -> Identification:
    from .generic import GENERIC_TEST

    return Identified(GENERIC_TEST, 1, "test", "cucumber")


@tool("rspec", "bin/rspec")
def _rspec(tokens: tuple[str, ...]) -> Identification:
    return Identified(RSPEC, 1, "test", "rspec")


@tool("rake", "bin/rake", "rails", "bin/rails")
def _rake(tokens: tuple[str, ...]) -> Identification:
    head = tokens[0].rsplit("/", 1)[-1]
    sub = next((t for t in tokens[1:] if not t.startswith("-") and "=" not in t), "")
    if head == "rails" and sub in ("server", "s", "console", "c"):
        return watches(f"`rails {sub}` runs until stopped")
    if sub in ("test", "spec", "test:all", "test:system", "spec:all", "test:units"):
        return Identified(RAKE, 2, "test", f"{head} {sub}")
    if not sub and head == "rake":
        return Identified(RAKE, 1, "check", "rake")  # the default task: detection reads what it is
    if sub in ("release", "build", "install") and head == "rake":
        return publishes("`rake release` publishes the gem") if sub == "release" else installs(f"`rake {sub}`")
    return by_name(TASK_RUNNER, 2, sub, f"{head} {sub}") if sub else None


@tool("rubocop", "standardrb", "standard-rb", "reek", "erb_lint", "haml-lint")
def _ruby_linters(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    fix = ("-a", "-A", "--autocorrect", "--auto-correct", "--autocorrect-all", "--auto-correct-all", "-x", "--fix")
    if has(args, *fix):
        return writes(f"`{head}` with {'/'.join(fix[:4])} rewrites files")
    if has(args, "--auto-gen-config", "--regenerate-todo"):
        return writes(f"`{head} --auto-gen-config` writes the to-do configuration (.rubocop_todo.yml)")
    return Identified(LINT_PATHS, 1, "lint", head)


@tool("steep", "srb", "sorbet", "rbs")
def _ruby_types(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if tokens[0] == "rbs" and sub != "validate":
        return None
    return Identified(TYPECHECK_PATHS, 2 if sub in ("check", "tc", "validate") else 1, "typecheck", tokens[0])


@tool("bundle", "bundler")
def _bundle(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub in ("update", "lock"):
        return writes(f"`bundle {sub}` rewrites Gemfile.lock")
    if sub in ("install", "", "config", "binstubs"):
        return installs(f"`bundle {sub}` installs gems")
    return None


NO_TESTS = (
    re.compile(r"^0 examples, 0 failures", re.MULTILINE),  # rspec
    re.compile(r"^0 runs, 0 assertions", re.MULTILINE),  # minitest
)
