"""Elixir: `mix.exs`; `mix test` runs `test/` (ExUnit)."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, formatter, opts, tool, watches
from freshpass.facts.tools.generic import LINT_PATHS, TYPECHECK_PATHS

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

MIX_TEST = Runner(
    "mix",
    "test",
    opts("--only --exclude --include --seed --max-failures --formatter --partitions --max-cases --slowest --color"),
    opts("--only --exclude --failed --stale --partitions"),
    positionals="paths",  # `test/foo_test.exs:12`
    neutral=opts("--cover --trace --warnings-as-errors --seed --max-failures --slowest --color --no-color"),
    test_dirs=frozenset({"test"}),
)


@tool("mix")
def _mix(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "test":
        if "--listen-on-stdin" in args:
            return watches("`mix test --listen-on-stdin` waits for input: it never finishes by itself")
        return Identified(MIX_TEST, 2, "test", "mix test")
    if sub == "format":
        return formatter("mix format", args[1:], check=("--check-formatted",), head=2)
    if sub == "credo":
        return Identified(LINT_PATHS, 2, "lint", "mix credo")
    if sub == "dialyzer":
        return Identified(TYPECHECK_PATHS, 2, "typecheck", "mix dialyzer")
    return Identified(MIX_TEST, 2, "build", "mix compile") if sub == "compile" else None


ECOSYSTEM = Ecosystem(
    name="elixir",
    title="Elixir (mix)",
    manifests=("mix.exs",),
    lockfiles=(("mix.lock", "mix"),),
    package_manager="mix",
    conventions=(Convention("test", "mix test"), Convention("build", "mix compile --warnings-as-errors")),
    vocabulary=Vocabulary(
        runners=("mix",),
        narrowing=("a test file or file:line", "--only", "--exclude", "--failed", "--stale", "--partitions"),
        watch=("--listen-on-stdin",),
        writers=("mix format (without --check-formatted)",),
        test_dirs=("test",),
    ),
    summary=_summaries.exunit,
    docs="https://hexdocs.pm/mix/Mix.Tasks.Test.html",
)
