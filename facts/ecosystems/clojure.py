"""Clojure with Leiningen: `project.clj`; `lein test` runs every namespace under `test/`."""

from __future__ import annotations

import re
import shlex

from freshpass.facts.signals.base import Candidate, Collector, Package
from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary, present_manifest, read_conventions

LEIN_TEST = Runner("lein", "test", opts("with-profile"), frozenset(), positionals="always")  # namespaces, :only


@tool("lein")
def _lein(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if args[:1] == ("test",):
        return Identified(LEIN_TEST, 2, "test", "lein test")
    if args[:1] == ("with-profile",) and args[2:3] == ("test",):
        return Identified(LEIN_TEST, 4, "test", "lein test")
    return None


# -- aliases: the project's own entry points (`lein test-all`), declared in project.clj ------------------------------

_TOKEN = re.compile(r'"((?:[^"\\]|\\.){0,200})"|([\[\]{}()])|;[^\n]*|[^\s,\[\]{}()";]+')
_MAX_ALIASES = 100


def lein_aliases(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """`:aliases {"test-all" ["with-profile" "default:+1.10" "test"]}` → [("test-all", ("lein with-profile
    default:+1.10 test",))]; `["do" "clean," "test"]` and `["do" ["clean"] ["test"]]` are several commands. An
    alias whose value is not a vector of strings (a symbol, a function) is left out."""
    start = text.find(":aliases")
    if start < 0:
        return []
    tokens = _TOKEN.finditer(text, start + len(":aliases"))
    found: list[tuple[str, tuple[str, ...]]] = []
    depth = 0
    key: str | None = None
    value: list[object] | None = None
    stack: list[list[object]] = []
    for token in tokens:
        string, bracket, word = token.group(1), token.group(2), token.group(0)
        if word.startswith(";"):
            continue
        if bracket in ("{", "[", "("):
            depth += 1
            if depth == 1 and bracket != "{":
                return found  # `:aliases` followed by something other than a map
            if depth >= 2:
                stack.append([])
            continue
        if bracket in ("}", "]", ")"):
            depth -= 1
            if depth <= 0:
                return found
            done = stack.pop() if stack else []
            if stack:
                stack[-1].append(done)
            elif key is not None:
                value = done
            if depth == 1 and key is not None and value is not None:
                commands = _alias_commands(value)
                if commands:
                    found.append((key, commands))
                key, value = None, None
                if len(found) >= _MAX_ALIASES:
                    return found
            continue
        if depth == 0:
            return found
        if stack:
            stack[-1].append(string if string is not None else word)
        elif key is None:
            key = string if string is not None else None
        else:
            key = None  # a value that is not a vector
    return found


def _alias_commands(value: list[object]) -> tuple[str, ...]:
    if not value or not all(isinstance(v, (str, list)) for v in value):
        return ()
    if value[0] == "do":
        steps: list[list[str]] = []
        current: list[str] = []
        for item in value[1:]:
            if isinstance(item, list):
                if not all(isinstance(i, str) for i in item):
                    return ()
                steps.append([str(i) for i in item])
                continue
            word = str(item)
            current.append(word.rstrip(","))
            if word.endswith(","):
                steps.append(current)
                current = []
        if current:
            steps.append(current)
    elif all(isinstance(v, str) for v in value):
        steps = [[str(v) for v in value]]
    else:
        return ()
    return tuple("lein " + " ".join(shlex.quote(w) for w in step) for step in steps if step)


def _read(c: Collector, package: Package) -> None:
    manifest = present_manifest(c, ECOSYSTEM, package.cwd)
    if manifest is None:
        return
    read_conventions(c, package, ECOSYSTEM, manifest)
    for name, body in lein_aliases(c.read_text(manifest) or ""):
        command, source = f"lein {name}", f"{manifest}#aliases.{name}"
        c.entry(command, package.cwd, source, body, name)
        c.add(Candidate(command, package.cwd, source, "local", name=name, body=body))


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
    read=_read,
    docs="https://codeberg.org/leiningen/leiningen/src/branch/main/doc/TUTORIAL.md#tests",
)
