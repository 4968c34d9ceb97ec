"""R packages with testthat: `DESCRIPTION` and `tests/testthat/`. A maintainer runs the tests with
`devtools::test()` (testthat's and R Packages' documented loop: it loads the source package and runs every test
file); `R CMD check` is the slower full package check (it builds, installs, runs examples and vignettes too), so it
is the `check` kind — through `devtools::check()`, which builds the tarball `R CMD check` expects."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

_FULL = Runner("Rscript", "test", opts("-e"), frozenset(), positionals="never")
_NARROWED = Runner("Rscript", "test", frozenset(), frozenset(), positionals="always")
_NARROWING_CALLS = ("filter", "test_file(", "test_active_file(", "test_dir(")


@tool("Rscript")
def _rscript(tokens: tuple[str, ...]) -> Identification:
    code = " ".join(tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t in ("-e", "--expr"))
    if "check(" in code and ("devtools::" in code or "rcmdcheck::" in code):
        return Identified(_FULL, len(tokens), "check", "devtools::check")
    if "test(" in code or any(call in code for call in ("test_local(", "test_file(", "test_active_file(", "test_dir(")):
        if any(call in code for call in _NARROWING_CALLS):
            return Identified(_NARROWED, len(tokens) - 1, "test", "devtools::test")
        return Identified(_FULL, len(tokens), "test", "devtools::test")
    return None


@tool("R")
def _r(tokens: tuple[str, ...]) -> Identification:
    if tokens[1:3] == ("CMD", "check"):
        return Identified(_FULL, len(tokens), "check", "R CMD check")
    return None


ECOSYSTEM = Ecosystem(
    name="r",
    title="R (testthat)",
    manifests=("DESCRIPTION",),
    lockfiles=(("renv.lock", "renv"),),
    conventions=(
        Convention("test", "Rscript -e 'devtools::test()'", when="tests/testthat/"),
        Convention("check", "Rscript -e 'devtools::check()'"),
    ),
    vocabulary=Vocabulary(
        runners=("Rscript", "R"),
        narrowing=("devtools::test(filter = …)", "testthat::test_file(…)"),
        test_dirs=("tests/testthat",),
    ),
    summary=_summaries.testthat,
    docs="https://r-pkgs.org/testing-basics.html",
)
