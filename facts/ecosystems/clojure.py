"""Clojure with Leiningen: `project.clj`; `lein test` runs every namespace under `test/`."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

LEIN_TEST = Runner("lein", "test", opts("with-profile"), frozenset(), positionals="always")  # namespaces, :only


@tool("lein")
def _lein(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if args[:1] == ("test",):
        return Identified(LEIN_TEST, 2, "test", "lein test")
    if args[:1] == ("with-profile",) and args[2:3] == ("test",):
        return Identified(LEIN_TEST, 4, "test", "lein test")
    return None


ECOSYSTEM = Ecosystem(
    name="clojure",
    title="Clojure (Leiningen)",
    manifests=("project.clj",),
    package_manager="lein",
    conventions=(Convention("test", "lein test"),),
    vocabulary=Vocabulary(
        runners=("lein",),
        narrowing=("a namespace", ":only ns/test", "a selector (`:integration`)"),
        test_dirs=("test",),
    ),
    summary=_summaries.clojure,
    docs="https://codeberg.org/leiningen/leiningen/src/branch/main/doc/TUTORIAL.md#tests",
)
