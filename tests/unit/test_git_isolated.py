"""Git without the repository's configuration (freshpass.ledger.git): nothing a repository configures runs, and
content ids stay exactly the trees git itself computes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from freshpass.ledger.content import ContentError, changed_paths, snapshot
from freshpass.ledger.git import IsolatedGit, find_repository, resolve_head

from tests.conftest import git


def _repo(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.py").write_text("A = 1\n")
    (root / "data.bin").write_text("payload\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def plain_git_tree(root: Path) -> str:
    """What `git add --all && git write-tree` gives in a throwaway index (the way freshpass worked before)."""
    index = root.parent / f"{root.name}.plain-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "-C", str(root), "add", "--all"], check=True, env=env, capture_output=True)
    tree = subprocess.run(["git", "-C", str(root), "write-tree"], check=True, env=env, capture_output=True, text=True)
    index.unlink()
    return tree.stdout.strip()


def hostile_config(root: Path, marker: Path) -> None:
    """A `.git/config` that runs a program on `git add`/`git status` (fsmonitor) and on every `*.bin` file (clean
    filter), each touching `marker`."""
    (root / ".gitattributes").write_text("*.bin filter=x\n")
    git(root, "config", "core.fsmonitor", f"touch {marker}.fsmonitor; false")
    git(root, "config", "filter.x.clean", f"touch {marker}.filter; cat")
    git(root, "config", "filter.x.smudge", "cat")
    git(root, "config", "core.hooksPath", str(root / "hooks"))


def markers(marker: Path) -> list[str]:
    return sorted(path.name for path in marker.parent.glob(f"{marker.name}.*"))


def test_no_fsmonitor_and_no_clean_filter_ever_run(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    marker = tmp_path / "ran"
    hostile_config(root, marker)
    # Sanity: plain git does run both (otherwise this test would prove nothing).
    plain_git_tree(root)
    assert markers(marker) == ["ran.filter", "ran.fsmonitor"]
    for found in marker.parent.glob("ran.*"):
        found.unlink()

    first = snapshot(root)
    (root / "data.bin").write_text("changed\n")
    (root / "src" / "lib.py").write_text("A = 2\n")
    second = snapshot(root)
    assert changed_paths(root, first.content_id, second) == ["data.bin", "src/lib.py"]
    assert markers(marker) == []


def test_ids_equal_the_tree_plain_git_writes(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / "untracked.py").write_text("B = 1\n")
    (root / "src" / "lib.py").write_text("A = 3\n")
    os.symlink("src/lib.py", root / "alias.py")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / ".gitignore").write_text("*.log\n")
    (root / "noise.log").write_text("x")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("local-only/\n")
    (root / "local-only").mkdir()
    (root / "local-only" / "x.py").write_text("")
    assert snapshot(root, ignore_prose=False).content_id == "git:" + plain_git_tree(root)


def test_repository_settings_that_change_hashing_are_kept(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    git(root, "config", "core.filemode", "false")
    (root / "src" / "lib.py").chmod(0o755)  # with filemode off git keeps the recorded mode
    git(root, "config", "core.autocrlf", "input")
    (root / "crlf.py").write_bytes(b"a = 1\r\n")
    assert snapshot(root).content_id == "git:" + plain_git_tree(root)


def test_sha256_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    try:
        git(root, "init", "-q", "--object-format=sha256")
    except subprocess.CalledProcessError:
        pytest.skip("this git cannot create sha256 repositories")
    (root / "a.py").write_text("x = 1\n")
    current = snapshot(root)
    assert len(current.content_id) == len("git:") + 64
    assert current.content_id == "git:" + plain_git_tree(root)


def test_linked_worktree_and_its_head(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    other = tmp_path / "other"
    git(root, "worktree", "add", "-q", "-b", "side", str(other))
    repository = find_repository(other)
    assert repository is not None and repository.common_dir == root / ".git"
    assert resolve_head(repository) == git(root, "rev-parse", "HEAD").strip()
    (other / "src" / "lib.py").write_text("A = 9\n")
    assert snapshot(other).content_id == "git:" + plain_git_tree(other)


def test_head_of_packed_unborn_and_detached(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "pack-refs", "--all")
    repository = find_repository(root)
    assert repository is not None
    assert resolve_head(repository) == head
    git(root, "checkout", "-q", "--detach")
    assert resolve_head(repository) == head
    git(root, "checkout", "-q", "--orphan", "fresh")
    assert resolve_head(repository) == ""


def test_an_index_that_is_a_device_is_not_read(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    expected = snapshot(root).content_id
    (root / ".git" / "index").unlink()
    os.symlink("/dev/stdin", root / ".git" / "index")
    assert snapshot(root).content_id == expected  # an empty index: everything hashed once, same tree


def test_alternates_that_are_a_fifo_are_refused_not_waited_on(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / ".git" / "objects" / "info").mkdir(exist_ok=True)
    os.mkfifo(root / ".git" / "objects" / "info" / "alternates")
    with pytest.raises(ContentError, match="FIFO"):
        snapshot(root)


def test_the_private_directory_is_removed(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    repository = find_repository(root)
    assert repository is not None
    with IsolatedGit(repository) as isolated:
        private = isolated.path
        assert private is not None and (private / "index").is_file()
        assert isolated.run(["rev-parse", "--is-inside-work-tree"]).strip() == b"true"
    assert not private.exists()


def test_uncommitted_paths_runs_no_repository_program(tmp_path: Path) -> None:
    import asyncio

    from freshpass.evidence.agents import uncommitted_paths

    root = _repo(tmp_path / "repo")
    marker = tmp_path / "ran"
    hostile_config(root, marker)
    (root / "data.bin").write_text("changed\n")
    (root / "src" / "new.py").write_text("")
    assert sorted(asyncio.run(uncommitted_paths(root)) or []) == [".gitattributes", "data.bin", "src/new.py"]
    assert sorted(asyncio.run(uncommitted_paths(root / "src")) or []) == ["new.py"]
    assert markers(marker) == []
    assert git(root, "status", "--porcelain", "--untracked-files=no").strip() == "M data.bin"  # index untouched
