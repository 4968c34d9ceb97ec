"""Tools with a handful of recognised commands that belong to no ecosystem record: Elm's test runner, terraform.
(The runners of .NET, Swift, Elixir, Haskell, Scala, Clojure, OCaml, Zig, Dart, Flutter and CTest live with their
ecosystems in `facts/ecosystems/`.)"""

from __future__ import annotations

from .base import Identification, Identified, formatter, tool, writes
from .generic import GENERIC_TEST, LINT_PATHS


@tool("elm-test")
def _elm_test(tokens: tuple[str, ...]) -> Identification:
    return Identified(GENERIC_TEST, 1, "test", "elm-test")


@tool("terraform", "tofu")
def _terraform(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "fmt":
        return formatter(f"{tokens[0]} fmt", tokens[2:], check=("-check", "--check"), head=2)
    if sub in ("apply", "destroy", "import"):
        return writes(f"`{tokens[0]} {sub}` changes real infrastructure")
    return Identified(LINT_PATHS, 2, "lint", f"{tokens[0]} validate") if sub == "validate" else None
