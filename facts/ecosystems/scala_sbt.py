"""Scala with sbt: `build.sbt`; `sbt test` runs every test of the build (`testOnly` and `testQuick` run part)."""

from __future__ import annotations

import re

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

SBT = Runner("sbt", "test", opts("-J -D --client -java-home"), frozenset(), positionals="always")


@tool("sbt")
def _sbt(tokens: tuple[str, ...]) -> Identification:
    """sbt's arguments are commands run in order: `sbt clean test` is the whole suite; `sbt "testOnly *Spec"`,
    `sbt testQuick` and `sbt "project core" test` run part of it."""
    # sbt 1's slash syntax may be spaced (`"core / Test / testOnly X"`); `+task` runs it for every Scala version of
    # the build (the whole cross-build: still the full task); `++2.13.12` picks one version and reads as neutral.
    words = [re.sub(r"\s*/\s*", "/", t).split() for t in tokens[1:] if not t.startswith("-")]
    commands = [w[0].lstrip("+") for w in words if w and not w[0].startswith("++")]
    if any(
        c.rsplit("/", 1)[-1] in ("testOnly", "testQuick") or c == "project" or c.endswith("/test") for c in commands
    ):
        return Identified(SBT, 1, "test", "sbt test")  # every command word is then read as narrowing
    if "test" in commands:
        return Identified(SBT, len(tokens), "test", "sbt test")
    return Identified(SBT, len(tokens), "build", "sbt compile") if "compile" in commands else None


ECOSYSTEM = Ecosystem(
    name="scala_sbt",
    title="Scala (sbt)",
    manifests=("build.sbt",),
    package_manager="sbt",
    conventions=(Convention("test", "sbt test"), Convention("build", "sbt compile")),
    vocabulary=Vocabulary(
        runners=("sbt",),
        narrowing=("testOnly", "testQuick", "a subproject (`core/test`, `project core`)"),
        watch=("~test (triggered execution)",),
        test_dirs=("src/test",),
    ),
    summary=_summaries.sbt,
    docs="https://www.scala-sbt.org/1.x/docs/Testing.html",
)
