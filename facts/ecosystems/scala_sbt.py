"""Scala with sbt: `build.sbt`; `sbt test` runs every test of the build (`testOnly` and `testQuick` run part)."""

from __future__ import annotations

import re
import shlex

from freshpass.facts.signals.base import Candidate, Collector, Package
from freshpass.facts.tools.base import Identification, Identified, Runner, opts, publishes, tool, writes
from freshpass.facts.tools.generic import LINT_PATHS

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary, present_manifest, read_conventions

SBT = Runner("sbt", "test", opts("-J -D --client -java-home"), frozenset(), positionals="always")


@tool("sbt")
def _sbt(tokens: tuple[str, ...]) -> Identification:
    """sbt's arguments are commands run in order: `sbt clean test` is the whole suite; `sbt "testOnly *Spec"`,
    `sbt testQuick` and `sbt "project core" test` run part of it."""
    # sbt 1's slash syntax may be spaced (`"core / Test / testOnly X"`); `+task` runs it for every Scala version of
    # the build (the whole cross-build: still the full task); `++2.13.12` picks one version and reads as neutral.
    words = [re.sub(r"\s*/\s*", "/", t).split() for t in tokens[1:] if not t.startswith("-")]
    commands = [w[0].lstrip("+") for w in words if w and not w[0].startswith("++")]
    tasks = [c.rsplit("/", 1)[-1] for c in commands]
    if any(_FORMATS.match(t) for t in tasks) or any(
        t.startswith("scalafix") and "--check" not in w for t, w in zip(tasks, words, strict=False)
    ):
        return writes("an sbt formatter task (scalafmtAll, javafmtAll, headerCreate, scalafix) rewrites files")
    if any(t.startswith("publish") or t in ("release", "releaseEarly", "sonatypeBundleRelease") for t in tasks):
        return publishes("an sbt publish task publishes artefacts")
    if any(
        c.rsplit("/", 1)[-1] in ("testOnly", "testQuick") or c == "project" or c.endswith("/test") for c in commands
    ):
        return Identified(SBT, 1, "test", "sbt test")  # every command word is then read as narrowing
    if "test" in commands:
        return Identified(SBT, len(tokens), "test", "sbt test")
    if "compile" in commands:
        return Identified(SBT, len(tokens), "build", "sbt compile")
    if tasks and all(
        _CHECKS_STYLE.match(t) or (t.startswith("scalafix") and "--check" in w)
        for t, w in zip(tasks, words, strict=False)
    ):
        return Identified(LINT_PATHS, len(tokens), "lint", "sbt " + " ".join(tasks))
    return None


# The formatter plugins' tasks: `scalafmtCheckAll` checks, `scalafmtAll` rewrites (and so for javafmt, headers).
_FORMATS = re.compile(r"^(scalafmt(All|Sbt|Only)?|javafmt(All)?|headerCreate(All)?|scalastyleGenerateConfig)$")
_CHECKS_STYLE = re.compile(r"^(scalafmt\w*Check(All)?|javafmtCheck(All)?|headerCheck(All)?|scalastyle)$")

# `addCommandAlias("checkCodeStyle", "scalafmtCheckAll; +headerCheckAll")`: a name for a sequence of commands.
_ALIAS = re.compile(
    r'\baddCommandAlias\(\s*(?:name\s*=\s*)?"([A-Za-z][\w-]{0,80})"\s*,\s*(?:value\s*=\s*)?"([^"\\$]{1,400})"\s*\)'
)


def _read(c: Collector, package: Package) -> None:
    manifest = present_manifest(c, ECOSYSTEM, package.cwd)
    if manifest is None:
        return
    read_conventions(c, package, ECOSYSTEM, manifest)
    for match in _ALIAS.finditer(c.read_text(manifest) or ""):
        name = match.group(1)
        steps = [step.strip() for step in match.group(2).split(";") if step.strip()]
        if not steps:
            continue
        command, source = f"sbt {name}", f"{manifest}#addCommandAlias.{name}"
        body = ("sbt " + " ".join(shlex.quote(step) for step in steps),)
        c.entry(command, package.cwd, source, body, name)
        c.add(Candidate(command, package.cwd, source, "local", name=name, body=body))


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
    read=_read,
    docs="https://www.scala-sbt.org/1.x/docs/Testing.html",
)
