"""Perl: `Makefile.PL` (ExtUtils::MakeMaker), `Build.PL` or `cpanfile`, with tests in `t/`; `prove -l t` runs them
against `lib/` without building (`make test` after `perl Makefile.PL && make` runs the same files)."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

PROVE = Runner(
    "prove",
    "test",
    opts("-I -j --jobs -e --exec --state --rules --harness --formatter -P -M --source --ext -a --archive"),
    opts("--state -s --shuffle"),
    positionals="paths",
    neutral=opts("-l --lib -b --blib -r --recurse -v --verbose -q -Q --quiet --QUIET --timer --color -c -j --jobs"),
    test_dirs=frozenset({"t"}),
)


@tool("prove")
def _prove(tokens: tuple[str, ...]) -> Identification:
    return Identified(PROVE, 1, "test", "prove")


ECOSYSTEM = Ecosystem(
    name="perl",
    title="Perl (MakeMaker, Module::Build)",
    manifests=("Makefile.PL", "Build.PL", "cpanfile", "dist.ini"),
    lockfiles=(("cpanfile.snapshot", "carton"),),
    package_manager="cpanm",
    conventions=(
        Convention(
            "test",
            "prove -l t",
            when="t/",
            spellings=("prove -lr t", "prove -l"),
            generated=(("Makefile.PL", "make test"),),
        ),
    ),
    vocabulary=Vocabulary(
        runners=("prove", "make"),
        narrowing=("a test file (`t/basic.t`)", "--state=failed", "TEST_FILES=… (make test)"),
        test_dirs=("t",),
    ),
    summary=_summaries.prove,
    docs="https://perldoc.perl.org/prove",
)
