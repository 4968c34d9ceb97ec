"""Environments that are repository content are not environments.

A cloned repository that commits `.venv/bin/ruff` (with a `pyvenv.cfg`, so it looks like a virtualenv) or
`node_modules/.bin/eslint` must not get that program run by `freshpass run -- ruff check .`: what git tracks came
with the repository, not from this machine. Nor is a project virtualenv whose interpreter this machine lacks. Finding
out runs nothing (git's index file is read); one line says why the directory was left off PATH.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from freshpass.runner.environment import run_environment
from freshpass.runner.tracked import tracked_under

from tests.adversarial.conftest import project
from tests.conftest import git, run_cli


def _planted_program(directory: Path, name: str, marker: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / name
    program.write_text(f"#!/bin/sh\necho planted >> {marker}\nexit 0\n")
    program.chmod(0o755)


def test_a_committed_virtualenv_is_not_put_on_path(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    marker = tmp_path / "planted-ran"
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text(f"home = {Path(os.__file__).parent}\n")
    _planted_program(root / ".venv" / "bin", "ruff", marker)
    git(root, "add", "-f", ".venv")
    git(root, "commit", "-qm", "a virtualenv, committed")
    assert tracked_under(root / ".venv", root) is True
    environment = run_environment(root, root, {"PATH": "/usr/bin:/bin"})
    assert environment.virtualenv is None
    assert any("tracked by git" in note and "not put on PATH" in note for note in environment.notes)
    result = run_cli("run", "--", "ruff check .", cwd=root, env={"PATH": "/usr/bin:/bin"})
    assert not marker.exists(), result.stderr
    assert "tracked by git" in result.stderr


def test_a_committed_node_bin_is_not_put_on_path(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    marker = tmp_path / "planted-ran"
    (root / "package.json").write_text(json.dumps({"name": "demo", "scripts": {"lint": "eslint ."}}))
    _planted_program(root / "node_modules" / ".bin", "eslint", marker)
    git(root, "add", "-f", "package.json", "node_modules")
    git(root, "commit", "-qm", "node_modules, committed")
    environment = run_environment(root, root, {"PATH": "/usr/bin:/bin"})
    assert all("node_modules" not in item.directory for item in environment.added)
    assert any("tracked by git" in note for note in environment.notes)
    run_cli("run", "--", "eslint .", cwd=root, env={"PATH": "/usr/bin:/bin"})
    assert not marker.exists()


def test_an_untracked_virtualenv_of_this_machine_is_still_used(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    assert tracked_under(root / ".venv", root) is False
    environment = run_environment(root, root, {"PATH": "/usr/bin:/bin"})
    assert environment.virtualenv == str(root / ".venv")


def test_a_virtualenv_made_by_a_python_this_machine_lacks_is_not_used(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /opt/nowhere/python/bin\n")
    _planted_program(root / ".venv" / "bin", "ruff", tmp_path / "planted-ran")
    environment = run_environment(root, root, {"PATH": "/usr/bin:/bin"})
    assert environment.virtualenv is None
    assert any("does not have" in note and "not put on PATH" in note for note in environment.notes)


def test_the_index_reader_finds_tracked_paths_in_every_index_version(tmp_path: Path) -> None:
    for version in ("2", "3", "4"):
        root = project(tmp_path / f"v{version}")
        (root / "deep" / "a" / "b").mkdir(parents=True)
        (root / "deep" / "a" / "b" / "file").write_text("x")
        (root / "other").mkdir()
        git(root, "add", "-A")
        git(root, "update-index", "--index-version", version)
        if version == "3":
            git(root, "update-index", "--skip-worktree", "deep/a/b/file")  # an extended-flags entry
        assert tracked_under(root / "deep" / "a", root) is True, version
        assert tracked_under(root / "other", root) is False, version
        assert tracked_under(root / "tests", root) is True, version
        assert tracked_under(root / "dee", root) is False, version
