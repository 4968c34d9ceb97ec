"""The ecosystems, looked up by manifest, marker or runner word: the one import the rest of facts needs.

Adding an ecosystem: write its module (one `ECOSYSTEM` record, its runners' `@tool` registrations and summary
parser), list it in `_MODULES` below, and add `tests/fixtures/ecosystems/<name>/` (its manifest and one test)."""

from __future__ import annotations

import functools
import importlib

from .base import Ecosystem

_MODULES = (
    "python", "node", "deno", "rust", "go", "jvm_gradle", "jvm_maven", "ruby", "php", "lua",
    "dotnet", "swift", "haskell_stack", "haskell_cabal", "zig", "flutter", "dart", "scala_sbt", "cmake", "meson",
    "autotools", "perl", "bazel", "clojure", "ocaml_dune", "erlang_rebar3", "gleam", "julia", "r", "elixir",
)  # fmt: skip


@functools.lru_cache(maxsize=1)
def ecosystems() -> tuple[Ecosystem, ...]:
    """Every ecosystem, in the order detection reads them (an ecosystem before the ones it supersedes)."""
    import freshpass.facts.tools  # noqa: F401  (the shared tool records the ecosystem modules build on)

    return tuple(importlib.import_module(f"{__package__}.{name}").ECOSYSTEM for name in _MODULES)


def get(name: str) -> Ecosystem:
    return next(e for e in ecosystems() if e.name == name)


@functools.lru_cache(maxsize=1)
def root_markers() -> tuple[str, ...]:
    """Exact file names that make a directory a project root (any ecosystem's manifest or root marker)."""
    names: list[str] = [".freshpass.toml"]
    for eco in ecosystems():
        names.extend(n for n in (*eco.manifests, *eco.root_markers) if n not in names)
    # task runners: a directory with its own Makefile or justfile is a project even without a manifest
    names.extend(("Makefile", "GNUmakefile", "justfile", "Justfile", "Taskfile.yml", "Taskfile.yaml"))
    return tuple(dict.fromkeys(names))


@functools.lru_cache(maxsize=1)
def package_manifests() -> tuple[str, ...]:
    """Exact file names that make a directory below the root a package of a monorepo."""
    names = [n for eco in ecosystems() if eco.packages for n in eco.manifests]
    return tuple(dict.fromkeys(names))


def by_manifest(name: str) -> tuple[Ecosystem, ...]:
    import fnmatch

    return tuple(
        e for e in ecosystems() if name in e.manifests or any(fnmatch.fnmatchcase(name, g) for g in e.manifest_globs)
    )


def by_runner(word: str) -> tuple[Ecosystem, ...]:
    return tuple(e for e in ecosystems() if word in e.vocabulary.runners)


def lockfiles(name: str) -> tuple[tuple[str, str], ...]:
    return get(name).lockfiles


@functools.lru_cache(maxsize=1)
def narrowing_env() -> dict[str, tuple[str, ...]]:
    """Environment variables that carry a runner's options (`PYTEST_ADDOPTS="-k slow"`), and that runner."""
    return {var: tuple(command.split()) for e in ecosystems() for var, command in e.vocabulary.narrowing_env}


def summaries() -> tuple[tuple[str, object], ...]:
    return tuple((e.name, e.summary) for e in ecosystems() if e.summary is not None)
