"""Roots and package roots (design §1)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from freshpass.facts.roots import MAX_MARKER_LEVELS, find_package_root, find_root


def _touch(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_git_root_wins_over_a_nearer_manifest(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    package = tmp_path / "packages" / "web"
    _touch(package / "package.json", "{}")
    source = _touch(package / "src" / "index.ts")
    assert find_root(source) == tmp_path
    assert find_root(package) == tmp_path


def test_real_git_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    deep = tmp_path / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h"
    deep.mkdir(parents=True)
    assert find_root(deep) == tmp_path  # git roots have no level limit


def test_git_file_as_in_worktrees_and_submodules(tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    _touch(worktree / ".git", "gitdir: /elsewhere/.git/worktrees/wt\n")
    assert find_root(worktree / "missing-file.py") == worktree


def test_nearest_manifest_when_there_is_no_git(tmp_path: Path) -> None:
    _touch(tmp_path / "proj" / "pyproject.toml", "[project]\nname='x'\n")
    _touch(tmp_path / "proj" / "sub" / "Cargo.toml", "[package]\n")
    assert find_root(tmp_path / "proj" / "pkg" / "mod.py") == tmp_path / "proj"
    assert find_root(tmp_path / "proj" / "sub" / "src") == tmp_path / "proj" / "sub"


def test_manifest_search_stops_after_six_levels(tmp_path: Path) -> None:
    _touch(tmp_path / "proj" / "Makefile", "all:\n")
    at_limit = tmp_path / "proj" / Path(*["d"] * MAX_MARKER_LEVELS)
    beyond = at_limit / "one-more"
    beyond.mkdir(parents=True)
    assert find_root(at_limit) == tmp_path / "proj"
    assert find_root(beyond) is None


def test_no_root(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    assert find_root(tmp_path / "notes") is None


def test_home_itself_is_never_a_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a dotfiles repository
    _touch(home / "package.json", "{}")
    monkeypatch.setenv("HOME", str(home))
    (home / "scratch").mkdir()
    assert find_root(home / "scratch") is None
    _touch(home / "project" / "go.mod", "module x\n")
    assert find_root(home / "project") == home / "project"


def test_temp_dir_itself_is_never_a_root_but_its_children_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_tmp = tmp_path / "tmp"
    _touch(fake_tmp / "package.json", "{}")
    monkeypatch.setattr(tempfile, "tempdir", str(fake_tmp))
    (fake_tmp / "loose").mkdir()
    assert find_root(fake_tmp / "loose") is None
    _touch(fake_tmp / "proj" / "pyproject.toml", "")
    assert find_root(fake_tmp / "proj") == fake_tmp / "proj"


def test_package_root_in_a_monorepo(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _touch(tmp_path / "package.json", "{}")
    web = tmp_path / "apps" / "web"
    _touch(web / "package.json", "{}")
    source = _touch(web / "src" / "app.tsx")
    assert find_package_root(source, tmp_path) == web
    assert find_package_root(tmp_path / "README.md", tmp_path) == tmp_path
    # A Makefile alone does not make a package.
    _touch(tmp_path / "docs" / "Makefile", "html:\n")
    assert find_package_root(tmp_path / "docs" / "index.rst", tmp_path) == tmp_path


def test_package_root_ignores_installed_dependencies(tmp_path: Path) -> None:
    web = tmp_path / "apps" / "web"
    _touch(web / "package.json", "{}")
    dependency = web / "node_modules" / "left-pad"
    _touch(dependency / "package.json", "{}")
    assert find_package_root(dependency / "index.js", tmp_path) == web


def test_package_root_outside_root_is_the_root(tmp_path: Path) -> None:
    assert find_package_root(Path("/"), tmp_path) == tmp_path.resolve()
