"""Ecosystems with a handful of recognised commands: .NET, Swift, Elixir, Haskell, Scala, Clojure, OCaml, Zig,
Dart and Flutter, Elm, CMake's ctest, terraform."""

from __future__ import annotations

from .base import Identification, Identified, formatter, has, tool, writes
from .generic import GENERIC_TEST, LINT_PATHS, TYPECHECK_PATHS


@tool("dotnet", "swift", "mix", "stack", "cabal", "sbt", "lein", "dune", "zig", "flutter", "dart", "elm-test")
def _misc(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = args[0] if args else ""
    if head == "dotnet":
        if sub == "format":
            if has(args, "--verify-no-changes"):
                return Identified(LINT_PATHS, 2, "lint", "dotnet format --verify-no-changes")
            return writes("`dotnet format` rewrites files")
        if sub == "test":
            return Identified(GENERIC_TEST, 2, "test", "dotnet test")
        return Identified(GENERIC_TEST, 2, "build", "dotnet build") if sub == "build" else None
    if head == "mix":
        if sub == "format":
            return formatter("mix format", args[1:], check=("--check-formatted",), head=2)
        if sub == "credo":
            return Identified(LINT_PATHS, 2, "lint", "mix credo")
        if sub == "dialyzer":
            return Identified(TYPECHECK_PATHS, 2, "typecheck", "mix dialyzer")
    if head == "dart" and sub == "format":
        return formatter("dart format", args[1:], check=("--set-exit-if-changed",), head=2)
    if head in ("dart", "flutter") and sub == "analyze":
        return Identified(LINT_PATHS, 2, "lint", f"{head} analyze")
    if head == "zig" and sub == "build" and len(args) > 1 and args[1] == "test":
        return Identified(GENERIC_TEST, 3, "test", "zig build test")
    if head == "sbt" and any(a.split()[:1] in (["testOnly"], ["testQuick"]) for a in args):
        return Identified(GENERIC_TEST, 1, "test", "sbt testOnly")  # the selection itself narrows below
    if sub in ("test", "tests") or head == "elm-test":
        return Identified(GENERIC_TEST, 1 if head == "elm-test" else 2, "test", f"{head} {sub}".strip())
    if sub == "build":
        return Identified(GENERIC_TEST, 2, "build", f"{head} build")
    return None


@tool("ctest")
def _ctest(tokens: tuple[str, ...]) -> Identification:
    return Identified(GENERIC_TEST, 1, "test", "ctest")


@tool("terraform", "tofu")
def _terraform(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "fmt":
        return formatter(f"{tokens[0]} fmt", tokens[2:], check=("-check", "--check"), head=2)
    if sub in ("apply", "destroy", "import"):
        return writes(f"`{tokens[0]} {sub}` changes real infrastructure")
    return Identified(LINT_PATHS, 2, "lint", f"{tokens[0]} validate") if sub == "validate" else None
