"""CMake with CTest: `CMakeLists.txt` that enables testing. The tests need a configured, built tree first: the
recipe configures `build/`, builds it, then `ctest --test-dir build` runs every test."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary, not_a_python_build_backend

CTEST = Runner(
    "ctest",
    "test",
    opts(
        "-R --tests-regex -E --exclude-regex -L --label-regex -LE --label-exclude -I --tests-information -C "
        "--build-config -j --parallel --timeout --repeat --preset -T -D -S -O --output-log --test-dir "
        "--tests-from-file --exclude-from-file --resource-spec-file --stop-time --test-load -FA -FS -FC"
    ),
    opts(
        "-R --tests-regex -E --exclude-regex -L --label-regex -LE --label-exclude -I --tests-information "
        "--rerun-failed --tests-from-file --exclude-from-file -FA -FS -FC -U --union"
    ),
    positionals="never",
    # -V is verbose, not a selection: `cd build && ctest -V` is the whole suite
    neutral=opts("-V --verbose -VV --extra-verbose -Q --quiet --output-on-failure -j --parallel --progress"),
)


# `cmake --build DIR`: builds every default target of a configured tree; `--target T` builds part of it.
CMAKE_BUILD = Runner(
    "cmake",
    "build",
    opts("--build --config -j --parallel --target -t --preset --resolve-package-references"),
    opts("--target -t"),
    positionals="never",
    whole_scope=frozenset(),
    neutral=opts("-j --parallel -v --verbose --config --clean-first"),
)


@tool("ctest")
def _ctest(tokens: tuple[str, ...]) -> Identification:
    return Identified(CTEST, 1, "test", "ctest")


@tool("cmake")
def _cmake(tokens: tuple[str, ...]) -> Identification:
    """`cmake --build DIR` (or `--build --preset NAME`) is the build; configuring (`cmake -S . -B build`),
    `--install` and `-P script` are not checks."""
    if tokens[1:2] == ("--build",) and len(tokens) > 2:
        return Identified(CMAKE_BUILD, 1, "build", "cmake --build")
    return None


ECOSYSTEM = Ecosystem(
    name="cmake",
    title="C/C++ (CMake, CTest)",
    manifests=("CMakeLists.txt",),
    root_markers=("CMakePresets.json",),
    packages=False,  # subdirectory CMakeLists.txt files are parts of the root's build
    applies=not_a_python_build_backend,
    conventions=(Convention("test", "ctest --test-dir build"), Convention("build", "cmake --build build")),
    recipe=("cmake -S . -B build", "cmake --build build"),
    build_dir="build",
    vocabulary=Vocabulary(
        runners=("ctest", "cmake"),
        narrowing=tuple(sorted(CTEST.narrowing_options)),
        test_dirs=(),
    ),
    summary=_summaries.ctest,
    docs="https://cmake.org/cmake/help/latest/manual/ctest.1.html",
)
