"""The one record an ecosystem declares (`Ecosystem`), and the generic reader of its conventions.

An ecosystem module (`rust.py`, `dotnet.py` …) declares ONE `Ecosystem`: the files that mark and describe a project
of it, its lockfiles and the package manager each names, the wrappers that run a command in its environment
(`uv run`, `bundle exec`), its conventional full command per kind — or, where a build directory is needed first, a
recipe (`cmake -S . -B build`, `cmake --build build`, then `ctest --test-dir build`) — its runner vocabulary (what
narrows a run, which flags watch or rewrite files, where tests live) and its output summary parser. Detection,
classification, recipes and roots read these records through `registry`; nothing else keeps a copy.

Ecosystems whose manifests need reading to say the command (Cargo workspaces, Go modules, composer scripts) give a
`read` function of their own; the others are read by `read_conventions` from the record alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from freshpass.facts.model import Kind

if TYPE_CHECKING:
    from freshpass.facts.signals.base import Collector, Package
    from freshpass.facts.tools.summary import TestCounts


@dataclass(frozen=True)
class Convention:
    """One conventional command of a kind, spelled from the package directory.

    `when`: a file or directory (relative to the package) that must exist for the convention to hold — `t/` for
    Perl's `prove -l t`; a trailing `/` names a directory. `spellings`: other ways contributors type the same full
    run (`cargo test --all` for `cargo test --workspace`). `generated`: (generator, spelling) — the same run
    through the Makefile a generator writes (`make test` after `perl Makefile.PL`), a spelling only where that
    generator is and no Makefile of the project's own."""

    kind: Kind
    command: str
    spellings: tuple[str, ...] = ()
    when: str = ""
    generated: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Vocabulary:
    """How the ecosystem's runners read a command line, for people and for classification.

    `runners`: the first words that run its checks (`cargo`, `pytest`). `narrowing`: options, positional forms and
    environment variables that run part of the suite (`-k`, `--filter`, `PYTEST_ADDOPTS`). `watch`: flags that
    never finish. `writers`: flags or variables that rewrite files (`-u`, `INSTA_UPDATE`). `test_dirs`: where the
    runner looks when given no path; naming one of them is still the whole suite (`busted spec`)."""

    runners: tuple[str, ...] = ()
    narrowing: tuple[str, ...] = ()
    # (VARIABLE, the command whose options it carries): `PYTEST_ADDOPTS="-k slow"` narrows as `pytest -k slow` does
    narrowing_env: tuple[tuple[str, str], ...] = ()
    watch: tuple[str, ...] = ()
    writers: tuple[str, ...] = ()
    test_dirs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ecosystem:
    """Everything freshpass knows about one ecosystem (see the module docstring)."""

    name: str
    title: str
    # Files whose presence makes a directory a project of this ecosystem (exact names, then `*.cabal` globs read
    # from the package directory's listing). A manifest also marks a monorepo package and a root.
    manifests: tuple[str, ...] = ()
    manifest_globs: tuple[str, ...] = ()
    # Further files that make a directory a root without being a package of its own (`go.work`, `tox.ini`).
    root_markers: tuple[str, ...] = ()
    # Whether a manifest in a subdirectory is a package of a monorepo (Gradle modules, Autotools subdirs are not).
    packages: bool = True
    lockfiles: tuple[tuple[str, str], ...] = ()  # (lockfile, the package manager it names), first present wins
    package_manager: str = ""  # the manager when no lockfile says otherwise
    wrappers: tuple[str, ...] = ()  # prefixes that run a command in the project's environment
    conventions: tuple[Convention, ...] = ()
    # Steps that prepare a build directory before the conventional test runs (configure → build); the recipe's
    # build phase. Empty when the test command builds what it needs itself.
    recipe: tuple[str, ...] = ()
    build_dir: str = ""
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    summary: Callable[[str], TestCounts | None] | None = None
    read: Callable[[Collector, Package], None] | None = None  # replaces `read_conventions` when set
    # Whether a present manifest is this ecosystem's (a pubspec.yaml that depends on the Flutter SDK).
    applies: Callable[[Collector, str], bool] | None = None
    root_only: bool = False  # its reader looks at the whole repository once (Go modules, go.work)
    # Ecosystems this one supersedes when both are present (Flutter over Dart, Stack over Cabal).
    supersedes: tuple[str, ...] = ()
    docs: str = ""  # where its conventions are documented (for people; shown in docs/ecosystems.md)
    # For people, where `read` decides the command: the full test a plain project of it gets.
    full_test: str = ""

    def all_manifests(self) -> tuple[str, ...]:
        return self.manifests + self.manifest_globs


def _glob_regex(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    if not globs:
        return None
    import fnmatch

    return re.compile("|".join(fnmatch.translate(g) for g in globs))


def present_manifest(c: Collector, eco: Ecosystem, cwd: str) -> str | None:
    """The first manifest of `eco` in package directory `cwd` (root-relative), or None."""
    from freshpass.facts.signals.base import under

    for name in eco.manifests:
        rel = under(cwd, name)
        if c.is_file(rel):
            return rel
    pattern = _glob_regex(eco.manifest_globs)
    if pattern is not None:
        for entry in sorted(c.listdir(cwd)):
            if pattern.match(entry) and c.is_file(under(cwd, entry)):
                return under(cwd, entry)
    return None


def holds(c: Collector, cwd: str, when: str) -> bool:
    from freshpass.facts.signals.base import under

    if not when:
        return True
    if when.endswith("/"):
        return c.is_dir(under(cwd, when.rstrip("/")))
    return c.is_file(under(cwd, when))


def read_conventions(c: Collector, package: Package, eco: Ecosystem, manifest: str) -> None:
    """Candidates for `eco`'s conventional commands in `package`, learned from `manifest`."""
    from freshpass.facts.signals.base import Candidate

    c.manifest(manifest)
    manager = next((m for lock, m in eco.lockfiles if holds(c, package.cwd, lock)), eco.package_manager)
    if manager:
        c.package_manager(manager)
    for convention in eco.conventions:
        if not holds(c, package.cwd, convention.when):
            continue
        c.add(
            Candidate(
                convention.command,
                package.cwd,
                manifest,
                "convention",
                kind=convention.kind,
                body=(convention.command,),
                spellings=(*convention.spellings, *_generated_spellings(c, package.cwd, convention)),
            )
        )


_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def _generated_spellings(c: Collector, cwd: str, convention: Convention) -> tuple[str, ...]:
    from freshpass.facts.signals.base import under

    if not convention.generated or any(c.exists(under(cwd, name)) for name in _MAKEFILES):
        return ()
    return tuple(
        spelling
        for generator, spelling in convention.generated
        if c.is_file(under(cwd, generator)) and not _writes_its_own_target(c.read_text(under(cwd, generator)), spelling)
    )


def _writes_its_own_target(text: str | None, spelling: str) -> bool:
    """A generator that writes a target of that name itself (a MakeMaker postamble's `test: test_classic …`, an
    overridden `MY::test`): the generated target runs what the project wrote, not the convention."""
    if text is None:
        return True
    target = spelling.split()[-1]
    return bool(re.search(rf"(?m)^\s*{re.escape(target)}\s*:(?!=)|\bMY::{re.escape(target)}\b", text))


def add_convention(
    c: Collector, command: str, kind: Kind, cwd: str, source: str, *, spellings: tuple[str, ...] = ()
) -> None:
    """One conventional command, learned by an ecosystem's own reader from `source`."""
    from freshpass.facts.signals.base import Candidate

    c.add(Candidate(command, cwd, source, "convention", kind=kind, body=(command,), spellings=spellings))


def not_a_python_build_backend(c: Collector, manifest: str) -> bool:
    """A meson.build or CMakeLists.txt next to a pyproject.toml whose build backend is meson-python or
    scikit-build is the Python package's build: the Python project's own checks run it, not ctest or meson test."""
    from freshpass.facts.signals.base import under

    cwd = manifest.rsplit("/", 1)[0] if "/" in manifest else "."
    pyproject = under(cwd, "pyproject.toml")
    if not c.is_file(pyproject):
        return True
    text = c.read_text(pyproject) or ""
    return not re.search(r"build-backend\s*=\s*[\"'](mesonpy|scikit_build_core[\w.]*|py_build_cmake)", text)
