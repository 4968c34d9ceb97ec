"""Autotools: `configure.ac` (and `Makefile.am`); the recipe runs `autoreconf -fi` when `configure` is not shipped,
then `./configure` and `make`; `make check` runs the suite."""

from __future__ import annotations

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

ECOSYSTEM = Ecosystem(
    name="autotools",
    title="C/C++ (Autotools)",
    manifests=("configure.ac", "configure.in"),
    packages=False,
    conventions=(Convention("test", "make check"), Convention("build", "make")),
    recipe=("autoreconf -fi", "./configure", "make"),
    vocabulary=Vocabulary(
        runners=("make",),
        narrowing=("TESTS=…", "a subdirectory (`make -C sub check`)"),
        test_dirs=("tests",),
    ),
    summary=_summaries.automake,
    docs="https://www.gnu.org/software/automake/manual/html_node/Tests.html",
)
