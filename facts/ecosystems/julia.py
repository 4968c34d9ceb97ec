"""Julia: `Project.toml` with `test/runtests.jl`; `julia --project -e 'using Pkg; Pkg.test()'` runs it in the
project's environment (what Pkg's documentation gives and `]test` does)."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

_FULL = Runner("julia", "test", opts("-e --eval -t --threads --project -p --procs"), frozenset(), positionals="never")
_NARROWED = Runner("julia", "test", frozenset(), frozenset(), positionals="always")
# The arguments after test/runtests.jl are the script's own: options (`--list`, `--verbose`) as much as names.
_SCRIPT = Runner("julia", "test", frozenset(), frozenset(), positionals="always", arguments_select=True)


@tool("julia")
def _julia(tokens: tuple[str, ...]) -> Identification:
    code = next((tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t in ("-e", "--eval")), "")
    if "Pkg.test(" in code:
        if "test_args" in code:  # `Pkg.test(test_args=["subset"])`: the runtests.jl reads them as a selection
            return Identified(_NARROWED, len(tokens) - 1, "test", "Pkg.test")
        return Identified(_FULL, len(tokens), "test", "Pkg.test")
    if any(t.endswith("test/runtests.jl") for t in tokens[1:]):
        at = next(i for i, t in enumerate(tokens) if t.endswith("test/runtests.jl"))
        return Identified(_SCRIPT if at + 1 < len(tokens) else _FULL, at + 1, "test", "runtests.jl")
    return None


ECOSYSTEM = Ecosystem(
    name="julia",
    title="Julia (Pkg)",
    manifests=("Project.toml", "JuliaProject.toml"),
    lockfiles=(("Manifest.toml", "pkg"),),
    package_manager="pkg",
    conventions=(
        Convention(
            "test",
            "julia --project -e 'using Pkg; Pkg.test()'",
            when="test/runtests.jl",
            spellings=("julia --project=. -e 'using Pkg; Pkg.test()'",),
        ),
    ),
    vocabulary=Vocabulary(
        runners=("julia",),
        narrowing=("Pkg.test(test_args=[…])", "arguments after test/runtests.jl"),
        test_dirs=("test",),
    ),
    summary=_summaries.julia,
    docs="https://pkgdocs.julialang.org/v1/creating-packages/#Adding-tests-to-the-package",
)
