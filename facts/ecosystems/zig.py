"""Zig: `build.zig`; `zig build test` runs the build's `test` step (the convention `zig init` writes)."""

from __future__ import annotations

from freshpass.facts.tools.base import (
    Identification,
    Identified,
    Runner,
    formatter,
    opts,
    publishes,
    script_kind,
    tool,
    writes,
)

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

ZIG_BUILD_TEST = Runner(
    "zig",
    "test",
    opts("--summary -j --prefix -p --cache-dir --global-cache-dir --zig-lib-dir --build-file --test-filter"),
    opts("--test-filter -Dtest-filter -Dtest_filter -Dfilter"),
    positionals="always",  # further steps or a different step narrow or change the run
    neutral=opts("--summary --verbose --color"),
)
ZIG_TEST_FILE = Runner("zig", "test", opts("--test-filter -O -target"), opts("--test-filter"), positionals="always")


@tool("zig")
def _zig(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if args[:2] == ("build", "test"):
        return Identified(ZIG_BUILD_TEST, 3, "test", "zig build test")
    if args[:1] == ("test",):
        return Identified(ZIG_TEST_FILE, 2, "test", "zig test")  # one file's tests: its path narrows
    if args[:1] == ("fmt",):
        return formatter("zig fmt", args[1:], check=("--check",), head=2)
    step = args[1] if args[:1] == ("build",) and len(args) > 1 else ""
    said = script_kind(step) if step and not step.startswith("-") else None
    if said == "writes":
        return writes(f"`zig build {step}`: its step's name says it rewrites files")
    if said == "publishes":
        return publishes(f"`zig build {step}`: its step's name says it publishes")
    return Identified(ZIG_BUILD_TEST, 2, "build", "zig build") if args[:1] == ("build",) and len(args) == 1 else None


ECOSYSTEM = Ecosystem(
    name="zig",
    title="Zig",
    manifests=("build.zig",),
    root_markers=("build.zig.zon",),
    package_manager="zig",
    conventions=(Convention("test", "zig build test"), Convention("build", "zig build")),
    vocabulary=Vocabulary(
        runners=("zig",),
        narrowing=("-Dtest-filter=… (when the build declares it)", "--test-filter", "`zig test FILE`"),
        watch=("--watch",),
        writers=("zig fmt (without --check)",),
    ),
    summary=_summaries.zig,
    docs="https://ziglang.org/learn/build-system/#testing",
)
