"""Sharing never runs the project's own content: a remote that resolves inside the work tree is refused.

A repository may commit a bare repository (`vendor/notes.git`) whose hooks run on every push it receives, and name it
as its remote (`url = vendor/notes.git`, an absolute path, `file://…`, a symlink out of the tree that points back
in). `freshpass share --push` and `--fetch` refuse it in one line and run none of its hooks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.adversarial.conftest import project
from tests.conftest import git, run_cli

HOOKS = ("pre-receive", "update", "post-receive", "post-update", "reference-transaction", "pre-upload-pack")


def _planted(root: Path, marker: Path) -> Path:
    bare = root / "vendor" / "notes.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for hook in HOOKS:
        script = bare / "hooks" / hook
        script.write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        script.chmod(0o755)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "vendor a repository")
    return bare


@pytest.mark.parametrize("spelling", ["relative", "absolute", "file-url", "symlink-outside", "own-git-dir"])
@pytest.mark.parametrize("action", ["--push", "--fetch"])
def test_a_remote_inside_the_work_tree_is_refused(tmp_path: Path, spelling: str, action: str) -> None:
    root = project(tmp_path / "demo")
    marker = tmp_path / "hooks-ran"
    bare = _planted(root, marker)
    (tmp_path / "outside").symlink_to(bare)
    url = {
        "relative": "vendor/notes.git",
        "absolute": str(bare),
        "file-url": f"file://{bare}",
        "symlink-outside": str(tmp_path / "outside"),
        "own-git-dir": str(root / ".git"),
    }[spelling]
    git(root, "remote", "add", "origin", url)
    recorded = run_cli("run", "--share", "--", "pytest -q -p no:cacheprovider", cwd=root)
    assert recorded.returncode == 0, recorded.stderr
    shared = run_cli("share", action, cwd=root)
    assert shared.returncode != 0
    assert "inside" in shared.stderr and "hooks" in shared.stderr, shared.stderr
    assert "Traceback" not in shared.stderr
    assert not marker.exists(), marker.read_text()


def test_a_remote_outside_the_work_tree_still_works(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(root, "remote", "add", "origin", str(remote))
    assert run_cli("run", "--share", "--", "pytest -q -p no:cacheprovider", cwd=root).returncode == 0
    pushed = run_cli("share", "--push", cwd=root)
    assert pushed.returncode == 0, pushed.stderr
