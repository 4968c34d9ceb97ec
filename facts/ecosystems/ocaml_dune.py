"""OCaml with dune: `dune-project`; `dune test` (an alias of `dune runtest`, `dune build @runtest`) runs every test."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool, watches, writes

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

DUNE_TEST = Runner(
    "dune",
    "test",
    opts("--profile --root -j --build-dir --display --action-stdout-on-success --action-stderr-on-success"),
    frozenset(),
    positionals="paths",  # a directory or test name
    neutral=opts("--force -f --display -j --no-buffer"),
)


@tool("dune")
def _dune(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if any(a in ("-w", "--watch") for a in args):
        return watches("`dune … --watch` never finishes: a watcher is not a check")
    if "--auto-promote" in args or args[:1] == ("promote",):
        return writes("`dune … --auto-promote` rewrites the expected outputs it checks against")
    if args[:1] in (("test",), ("runtest",)):
        return Identified(DUNE_TEST, 2, "test", "dune test")
    if args[:2] == ("build", "@runtest"):
        return Identified(DUNE_TEST, 3, "test", "dune test")
    if args[:1] == ("fmt",) or args[:2] == ("build", "@fmt"):
        return writes("`dune fmt` rewrites files") if args[:1] == ("fmt",) else None
    return Identified(DUNE_TEST, len(tokens), "build", "dune build") if args == ("build",) else None


ECOSYSTEM = Ecosystem(
    name="ocaml_dune",
    title="OCaml (dune)",
    manifests=("dune-project",),
    manifest_globs=("*.opam",),
    package_manager="opam",
    packages=False,
    conventions=(
        Convention("test", "dune test", spellings=("dune runtest", "dune build @runtest")),
        Convention("build", "dune build"),
    ),
    vocabulary=Vocabulary(
        runners=("dune",),
        narrowing=("a directory or test name",),
        watch=("-w", "--watch"),
        writers=("--auto-promote", "dune promote", "dune fmt"),
        test_dirs=("test",),
    ),
    summary=_summaries.alcotest,
    docs="https://dune.readthedocs.io/en/stable/reference/aliases/runtest.html",
)
