"""Which workspace a path belongs to (design §1).

A root is the git root of a path (a `.git` directory, or a `.git` file as in worktrees and submodules), else the
nearest ancestor, at most `MAX_MARKER_LEVELS` levels up, holding a manifest marker. `$HOME` and the temp dir
themselves are never roots: a dotfiles repository in `$HOME` or a stray `package.json` in `/tmp` would otherwise
swallow every unrelated directory below them. Their children are ordinary candidates (tests live in the temp dir).

Only `stat` calls on known names: nothing here lists a directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from freshpass.facts.first_words import PACKAGE_MARKERS, ROOT_MARKERS

MAX_MARKER_LEVELS = 6

# Files whose presence makes a directory a project root when there is no git root, and files that make a directory
# below the root a package of a monorepo (a unit with its own dependencies): every ecosystem's manifests, from the
# ecosystem records (`registry.root_markers()`, `registry.package_manifests()`), as generated data: finding a root
# imports no ecosystem module. Task-runner files (Makefile, justfile) make a root but not a package: subdirectory
# Makefiles are rarely packages.
__all__ = ["PACKAGE_MARKERS", "ROOT_MARKERS", "find_package_root", "find_root"]

# Directories whose manifests belong to installed dependencies, never to the project's own packages.
_DEPENDENCY_DIRS = frozenset({"node_modules", ".venv", "venv", "vendor", "site-packages", ".tox", ".nox", "target"})


def _excluded_roots() -> set[Path]:
    import tempfile  # here: `freshpass run` of a line that is no check needs nothing else of it

    excluded: set[Path] = set()
    for candidate in (os.environ.get("HOME"), tempfile.gettempdir()):
        if candidate:
            try:
                excluded.add(Path(candidate).resolve())
            except OSError:
                continue
    return excluded


def _start_dir(path: Path) -> Path:
    resolved = Path(os.path.abspath(path)).resolve()
    return resolved if resolved.is_dir() or not resolved.exists() else resolved.parent


def _has_any(directory: Path, names: tuple[str, ...]) -> bool:
    return any(os.path.lexists(directory / name) for name in names)


def find_root(path: Path) -> Path | None:
    """The root of `path` (a file or directory), or None when it belongs to no project."""
    start = _start_dir(path)
    excluded = _excluded_roots()
    chain = [start, *start.parents]
    for directory in chain:
        if directory in excluded:
            continue
        if os.path.lexists(directory / ".git"):
            return directory
    for directory in chain[: MAX_MARKER_LEVELS + 1]:
        if directory in excluded:
            continue
        if _has_any(directory, ROOT_MARKERS):
            return directory
    return None


def find_package_root(path: Path, root: Path) -> Path:
    """The monorepo package holding `path`: the nearest directory below `root` with its own manifest, else `root`."""
    root = Path(os.path.abspath(root)).resolve()
    start = _start_dir(path)
    try:
        relative = start.relative_to(root)
    except ValueError:
        return root
    for index, part in enumerate(relative.parts):
        if part in _DEPENDENCY_DIRS:
            # A manifest inside node_modules/ or .venv/ is a dependency's: start above it.
            start = root.joinpath(*relative.parts[:index])
            break
    directory = start
    while directory != root:
        if _has_any(directory, PACKAGE_MARKERS):
            return directory
        directory = directory.parent
    return root
