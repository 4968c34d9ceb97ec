"""Haskell with Cabal: a `.cabal` file or `cabal.project`; `cabal test all` (every test suite of the project)."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

HASKELL_TEST = Runner(
    "haskell",
    "test",
    opts(
        "--test-options --test-option --ta --test-arguments --test-show-details -j --jobs --builddir "
        "--project-file --flag --flags -f --ghc-options --stack-yaml --match -m -p --pattern"
    ),
    opts("--test-options --test-option --ta --test-arguments --match -m -p --pattern"),
    positionals="always",  # a target: `cabal test mypkg:test:unit`, `stack test mypkg:unit`
    whole_scope=opts("all"),
    neutral=opts("--test-show-details -j --jobs -v --verbose --fast --enable-tests"),
)


@tool("cabal", "stack")
def _haskell(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if sub == "test" or (head == "cabal" and sub in ("v2-test", "new-test")):
        return Identified(HASKELL_TEST, 2, "test", f"{head} test")
    if head == "stack" and sub == "build" and "--test" in tokens:
        return Identified(HASKELL_TEST, len(tokens), "test", "stack build --test")
    return Identified(HASKELL_TEST, 2, "build", f"{head} build") if sub == "build" else None


ECOSYSTEM = Ecosystem(
    name="haskell_cabal",
    title="Haskell (Cabal)",
    manifests=("cabal.project",),
    manifest_globs=("*.cabal",),
    lockfiles=(("cabal.project.freeze", "cabal"),),
    package_manager="cabal",
    conventions=(
        # `all`: every package of the project. A bare `cabal test` runs only the package in the current directory,
        # which in a multi-package `cabal.project` (the library at the root, its tests in a package beside it) is
        # not the suite; in a one-package project both are the same run.
        Convention("test", "cabal test all", spellings=("cabal test",)),
        Convention("build", "cabal build all", spellings=("cabal build",)),
    ),
    vocabulary=Vocabulary(
        runners=("cabal",),
        narrowing=("a target (`pkg:test:unit`)", "--test-options / --test-option (a tasty -p or hspec -m filter)"),
        test_dirs=("test",),
    ),
    summary=_summaries.haskell,
    supersedes=(),
    docs="https://cabal.readthedocs.io/en/stable/cabal-commands.html#cabal-test",
)
