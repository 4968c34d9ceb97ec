"""Elixir: `mix.exs`; `mix test` runs `test/` (ExUnit)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from freshpass.facts.signals.base import Candidate, Collector, Package
from freshpass.facts.tools.base import Identification, Identified, Runner, formatter, has, opts, tool, watches, writes
from freshpass.facts.tools.generic import LINT_PATHS, TYPECHECK_PATHS

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary, present_manifest, read_conventions

MIX_TEST = Runner(
    "mix",
    "test",
    opts("--only --exclude --include --seed --max-failures --formatter --partitions --max-cases --slowest --color"),
    opts("--only --exclude --failed --stale --partitions"),
    positionals="paths",  # `test/foo_test.exs:12`
    neutral=opts("--cover --trace --warnings-as-errors --seed --max-failures --slowest --color --no-color"),
    test_dirs=frozenset({"test"}),
)


MIX_CHECK = Runner(
    "mix check",
    "check",
    opts("--only --except --config --manifest"),
    opts("--only --except --retry"),
    positionals="never",
    neutral=opts("--no-parallel --parallel --no-exit-status"),
)


@tool("mix")
def _mix(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "test":
        if "--listen-on-stdin" in args:
            return watches("`mix test --listen-on-stdin` waits for input: it never finishes by itself")
        return Identified(MIX_TEST, 2, "test", "mix test")
    if sub == "format":
        return formatter("mix format", args[1:], check=("--check-formatted",), head=2)
    if sub == "deps.unlock":  # `--check-unused` fails on a lockfile entry nothing uses; without it, it unlocks
        if "--check-unused" in args:
            return Identified(LINT_PATHS, 2, "lint", "mix deps.unlock --check-unused")
        return writes("`mix deps.unlock` rewrites mix.lock")
    if sub == "credo":
        return Identified(LINT_PATHS, 2, "lint", "mix credo")
    if sub == "dialyzer":
        return Identified(TYPECHECK_PATHS, 2, "typecheck", "mix dialyzer")
    if sub == "check":
        # mix has no `check` task of its own: it is ex_check's, which runs every configured tool, tests included
        # (`--fix` lets the tools rewrite files; `--only`, `--except` and `--retry` run some of them)
        if has(args, "--fix"):
            return writes("`mix check --fix` lets the tools rewrite files")
        return Identified(MIX_CHECK, 2, "check", "mix check", frozenset({"test"}))
    return Identified(MIX_TEST, 2, "build", "mix compile") if sub == "compile" else None


# -- mix aliases: the project's own entry points (`mix test.ci`), declared in mix.exs ----------------------------------

_ALIASES = re.compile(r"\bdefp?\s+aliases\b[^\n]*?\bdo\b|\baliases:\s*(?=\[)")
_KEY = re.compile(r'\s*(?:"([^"\\#]{1,80})"|([a-z_][\w.!?]{0,80})):\s*')
_MAX_ALIASES = 200


def _unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, character) of `text` from `start`, leaving out what sits inside double-quoted strings."""
    quoted, escaped = False, False
    for index in range(start, len(text)):
        ch = text[index]
        if quoted:
            quoted = escaped or ch != '"'
            escaped = not escaped and ch == "\\"
            continue
        if ch == '"':
            quoted = True
            continue
        yield index, ch


def _balanced(text: str, start: int) -> int:
    """The index just after the `]` closing the `[` at `start` (strings skipped), or -1."""
    depth = 0
    for index, ch in _unquoted(text, start):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


def _top_level(items: str) -> list[str]:
    """`items` (the inside of a list) split at its top-level commas."""
    parts, depth, begin = [], 0, 0
    for index, ch in _unquoted(items):
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(items[begin:index].strip())
            begin = index + 1
    parts.append(items[begin:].strip())
    return [part for part in parts if part]


def _task(element: str) -> str:
    """A mix task an alias element names (`"credo --strict"`), or the element as written (a function, an
    interpolated string), which reads as no check."""
    literal = re.fullmatch(r'"((?:[^"\\#]|\\.)*)"', element.strip())
    return f"mix {literal.group(1)}" if literal else element.strip()


def mix_aliases(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The aliases a mix.exs declares: (name, the mix commands it runs, in order)."""
    found = _ALIASES.search(text)
    if found is None:
        return []
    start = text.find("[", found.end())
    end = _balanced(text, start) if start >= 0 else -1
    if end < 0:
        return []
    aliases: list[tuple[str, tuple[str, ...]]] = []
    for entry in _top_level(text[start + 1 : end - 1])[:_MAX_ALIASES]:
        key = _KEY.match(entry)
        if key is None:
            continue
        value = entry[key.end() :].strip()
        elements = _top_level(value[1:-1]) if value.startswith("[") and value.endswith("]") else [value]
        aliases.append((key.group(1) or key.group(2), tuple(_task(e) for e in elements if e)))
    return aliases


_EX_CHECK = re.compile(r"\{\s*:ex_check\s*,")


def _read(c: Collector, package: Package) -> None:
    manifest = present_manifest(c, ECOSYSTEM, package.cwd)
    if manifest is None:
        return
    read_conventions(c, package, ECOSYSTEM, manifest)
    text = c.read_text(manifest) or ""
    aliases = mix_aliases(text)
    if _EX_CHECK.search(text) and not any(name == "check" for name, _ in aliases):
        c.add(Candidate("mix check", package.cwd, manifest, "tool", kind="check", body=("mix check",)))
    for name, body in aliases:
        command, source = f"mix {name}", f"{manifest}#aliases.{name}"
        c.entry(command, package.cwd, source, body, name)
        c.add(Candidate(command, package.cwd, source, "local", name=name, body=body))


ECOSYSTEM = Ecosystem(
    name="elixir",
    title="Elixir (mix)",
    manifests=("mix.exs",),
    lockfiles=(("mix.lock", "mix"),),
    package_manager="mix",
    conventions=(Convention("test", "mix test"), Convention("build", "mix compile --warnings-as-errors")),
    vocabulary=Vocabulary(
        runners=("mix",),
        narrowing=("a test file or file:line", "--only", "--exclude", "--failed", "--stale", "--partitions"),
        watch=("--listen-on-stdin",),
        writers=("mix format (without --check-formatted)",),
        test_dirs=("test",),
    ),
    summary=_summaries.exunit,
    read=_read,
    docs="https://hexdocs.pm/mix/Mix.Tasks.Test.html",
)
