"""Erlang with rebar3: `rebar.config`. rebar3's testing guide names two runners: `rebar3 eunit` (unit tests, the
one every generated project has) and `rebar3 ct` (Common Test suites, `test/*_SUITE.erl`). The convention is
`rebar3 eunit`; a project with Common Test suites documents `rebar3 ct` or `rebar3 do eunit, ct`."""

from __future__ import annotations

import dataclasses

from freshpass.facts.tools.base import Identification, Identified, Runner, formatter, opts, publishes, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

_SELECTORS = "--app --application --module --suite --test --file --dir --generator --group --case --spec"
REBAR3_TEST = Runner(
    "rebar3",
    "test",
    opts(f"{_SELECTORS} --cover_export_name --sname --name --setcookie --config --logdir --label --readable"),
    opts(_SELECTORS),
    positionals="never",
    neutral=opts("-c --cover -v --verbose --readable"),
)

# eunit and Common Test are two suites: a run of one is no run of the other (`make test` running `rebar3 ct`)
_BUNDLES = dataclasses.replace(REBAR3_TEST, name="rebar3 bundle")
_SUITES = {name: dataclasses.replace(REBAR3_TEST, name=f"rebar3 {name}") for name in ("eunit", "ct")}


@tool("rebar3")
def _rebar3(tokens: tuple[str, ...]) -> Identification:
    # `rebar3 as PROFILE[,PROFILE] TASK`: the profile (`test`, `release`, `prod`) chooses settings, not the task
    skip = 2 if tokens[1:2] == ("as",) and len(tokens) > 3 else 0
    args = tokens[1 + skip :]
    head = 2 + skip
    if args[:1] in (("eunit",), ("ct",)):
        return Identified(_SUITES[args[0]], head, "test", f"rebar3 {args[0]}")
    if args[:1] == ("do",) and any(a.strip(",") in ("eunit", "ct") for a in args[1:]):
        return Identified(REBAR3_TEST, len(tokens), "test", "rebar3 do")
    if args[:1] in (("dialyzer",), ("xref",)):
        return Identified(REBAR3_TEST, head, "typecheck" if args[0] == "dialyzer" else "lint", f"rebar3 {args[0]}")
    if args[:1] == ("fmt",):  # the erlfmt plugin
        return formatter("rebar3 fmt", args[1:], check=("--check", "-c"), write=("--write", "-w"), head=head)
    if args[:2] == ("hex", "publish") or args[:1] == ("publish",):
        return publishes("`rebar3 hex publish` publishes to hex.pm")
    if args[:1] == ("compile",):
        return Identified(REBAR3_TEST, head, "build", "rebar3 compile")
    # `escriptize`, `release` and `tar` build a bundle into _build (nothing is published): builds, but other ones
    # than compiling the project
    if args[:1] in (("escriptize",), ("release",), ("tar",)):
        return Identified(_BUNDLES, head, "build", f"rebar3 {args[0]}")
    return None


@tool("erlfmt")
def _erlfmt(tokens: tuple[str, ...]) -> Identification:
    return formatter("erlfmt", tokens[1:], check=("--check", "-c"), write=("--write", "-w"))


ECOSYSTEM = Ecosystem(
    name="erlang_rebar3",
    title="Erlang (rebar3)",
    manifests=("rebar.config",),
    lockfiles=(("rebar.lock", "rebar3"),),
    package_manager="rebar3",
    conventions=(
        Convention("test", "rebar3 eunit"),
        Convention("typecheck", "rebar3 dialyzer"),
        Convention("build", "rebar3 compile"),
    ),
    vocabulary=Vocabulary(
        runners=("rebar3",),
        narrowing=tuple(_SELECTORS.split()),
        test_dirs=("test",),
    ),
    summary=_summaries.erlang,
    docs="https://rebar3.org/docs/testing/eunit/",
)
