"""Content ids (design §4.3–4.4): git machinery details and non-git manifests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from freshpass.ledger.content import (
    ContentError,
    ContentSnapshot,
    changed_paths,
    files_content_id,
    git_content_id,
    git_tree,
    is_files_content,
    is_git_content,
    snapshot,
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "src" / "lib.py").write_text("A = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def test_git_content_id_is_the_tree_git_would_commit(repo: Path) -> None:
    current = snapshot(repo)
    assert current.is_git and current.git_toplevel == str(repo)
    assert current.content_id == "git:" + git(repo, "rev-parse", "HEAD^{tree}").strip()


def test_negated_glob_keeps_a_file_counted(repo: Path) -> None:
    before = snapshot(repo, ignore=["generated/", "!generated/schema.json"])
    (repo / "generated").mkdir()
    (repo / "generated" / "cache.bin").write_bytes(b"\0")
    assert snapshot(repo, ignore=["generated/", "!generated/schema.json"]).content_id == before.content_id
    (repo / "generated" / "schema.json").write_text("{}")
    after = snapshot(repo, ignore=["generated/", "!generated/schema.json"])
    assert changed_paths(repo, before.content_id, after) == ["generated/schema.json"]


def test_worktree_with_git_file(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "worktree"
    git(repo, "worktree", "add", "-q", str(other))
    assert (other / ".git").is_file()
    assert snapshot(other).content_id == snapshot(repo).content_id
    (other / "src" / "lib.py").write_text("A = 2\n")
    assert snapshot(other).content_id != snapshot(repo).content_id


def test_unknown_old_tree_gives_no_paths_instead_of_failing(repo: Path) -> None:
    assert changed_paths(repo, "git:" + "0" * 40, snapshot(repo)) == []


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ContentError, match="not a directory"):
        snapshot(tmp_path / "gone")


def test_non_git_manifest_counts_mode_and_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    first = snapshot(root)
    assert isinstance(first, ContentSnapshot) and first.manifest is not None and set(first.manifest) == {"run.sh"}
    script.chmod(0o755)
    second = snapshot(root)
    assert changed_paths(root, first.content_id, second, old_manifest=first.manifest) == ["run.sh"]
    os.symlink("run.sh", root / "alias.sh")
    third = snapshot(root)
    assert changed_paths(root, second.content_id, third, old_manifest=second.manifest) == ["alias.sh"]


def test_non_git_root_honours_its_gitignore(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / ".gitignore").write_text("out/\n*.tmp\n")
    (root / "main.c").write_text("int main(void) { return 0; }\n")
    before = snapshot(root)
    (root / "out").mkdir()
    (root / "out" / "main.o").write_bytes(b"\x7fELF")
    (root / "scratch.tmp").write_text("x")
    assert snapshot(root).content_id == before.content_id


def test_non_git_root_never_opens_devices_fifos_or_what_symlinks_point_at(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not part of the root")
    (root / "Makefile").symlink_to("/dev/stdin")
    (root / "zero.dat").symlink_to("/dev/zero")
    (root / "elsewhere").symlink_to(outside)
    os.mkfifo(root / "pipe")  # nobody writes: opening it for reading would block forever
    (root / ".gitignore").symlink_to("/dev/stdin")  # the ignore file is read, but never from a device
    first = snapshot(root)
    assert first.manifest is not None
    assert set(first.manifest) == {"Makefile", "zero.dat", "elsewhere", ".gitignore"}  # links by their text
    assert all(digest.startswith("link:") for digest in first.manifest.values())
    (outside / "secret.txt").write_text("changed outside")
    assert snapshot(root).content_id == first.content_id  # what a link points at is not the root's content


def test_content_ids_are_read_and_spelled_by_one_parser() -> None:
    tree = "a" * 40
    assert git_content_id(tree) == f"git:{tree}" and git_tree(git_content_id(tree)) == tree
    assert is_git_content(git_content_id(tree)) and not is_files_content(git_content_id(tree))
    digest = "b" * 64
    assert files_content_id(digest) == f"files:{digest}"
    assert is_files_content(files_content_id(digest)) and git_tree(files_content_id(digest)) is None
    for other in ("", None, "gitx:abc", "files", "tree:abc"):
        assert git_tree(other) is None and not is_git_content(other) and not is_files_content(other)
    assert (
        ContentSnapshot("/r", git_content_id(tree)).is_git
        and not ContentSnapshot("/r", files_content_id(digest)).is_git
    )
