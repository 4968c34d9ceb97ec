"""Meson: `meson.build`; the recipe sets up `build/` (`meson setup build`), then `meson test -C build`."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary, not_a_python_build_backend

MESON_TEST = Runner(
    "meson",
    "test",
    opts("-C --suite --no-suite --num-processes --setup --wrapper --repeat --timeout-multiplier -t --test-args"),
    opts("--suite --no-suite --test-args"),
    positionals="always",  # test names
    neutral=opts("-v --verbose --print-errorlogs --no-rebuild -q --quiet --num-processes"),
)


@tool("meson")
def _meson(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "test":
        return Identified(MESON_TEST, 2, "test", "meson test")
    return Identified(MESON_TEST, len(tokens), "build", "meson compile") if sub == "compile" else None


ECOSYSTEM = Ecosystem(
    name="meson",
    title="C/C++ (Meson)",
    manifests=("meson.build",),
    packages=False,
    applies=not_a_python_build_backend,
    conventions=(Convention("test", "meson test -C build"), Convention("build", "meson compile -C build")),
    recipe=("meson setup build",),
    build_dir="build",
    vocabulary=Vocabulary(
        runners=("meson",),
        narrowing=("a test name", "--suite", "--no-suite", "--test-args"),
        watch=(),
    ),
    summary=_summaries.meson,
    docs="https://mesonbuild.com/Unit-tests.html",
)
