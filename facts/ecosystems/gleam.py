"""Gleam: `gleam.toml`; `gleam test` runs `test/` (gleeunit by default)."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, formatter, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

GLEAM_TEST = Runner("gleam", "test", opts("-t --target --runtime"), frozenset(), positionals="always")


@tool("gleam")
def _gleam(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if args[:1] == ("test",):
        return Identified(GLEAM_TEST, 2, "test", "gleam test")  # arguments reach the test module: they narrow
    if args[:1] == ("format",):
        return formatter("gleam format", args[1:], check=("--check",), head=2)
    return Identified(GLEAM_TEST, 2, "build", "gleam build") if args[:1] == ("build",) else None


ECOSYSTEM = Ecosystem(
    name="gleam",
    title="Gleam",
    manifests=("gleam.toml",),
    lockfiles=(("manifest.toml", "gleam"),),
    package_manager="gleam",
    conventions=(Convention("test", "gleam test"), Convention("build", "gleam build")),
    vocabulary=Vocabulary(
        runners=("gleam",),
        narrowing=("arguments passed to the test module",),
        writers=("gleam format (without --check)",),
        test_dirs=("test",),
    ),
    summary=_summaries.exunit,
    docs="https://gleam.run/writing-gleam/",
)
