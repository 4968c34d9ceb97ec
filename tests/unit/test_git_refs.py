"""Refs and remotes of a repository, read and written by freshpass without running git on it (freshpass.ledger.git):
what git itself then reads back, and nothing the repository configures runs."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from freshpass.ledger.git import (
    GitError,
    IsolatedGit,
    RefMoved,
    find_remote,
    find_repository,
    resolve_ref,
    resolve_revision,
    update_ref,
)

from tests.conftest import git

REF = "refs/notes/freshpass"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("a = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "a.py").write_text("a = 2\n")
    git(root, "commit", "-qam", "two")
    return root


def _repository(root: Path):  # type: ignore[no-untyped-def]
    repository = find_repository(root)
    assert repository is not None
    return repository


def test_resolve_loose_packed_absent_and_symbolic(repo: Path) -> None:
    repository = _repository(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert resolve_ref(repository, "refs/heads/main") == head
    assert resolve_ref(repository, "refs/heads/nope") == ""
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    assert resolve_ref(repository, "refs/heads/alias") == head
    git(repo, "pack-refs", "--all")
    assert resolve_ref(repository, "refs/heads/main") == head
    for invalid in ("refs/../x", "HEAD", "refs/heads/main.lock", "refs/heads/"):
        assert resolve_ref(repository, invalid) is None


def test_update_ref_creates_compares_and_swaps(repo: Path) -> None:
    repository = _repository(repo)
    first, second = git(repo, "rev-parse", "HEAD~1", "HEAD").split()
    update_ref(repository, REF, first, "")
    assert git(repo, "rev-parse", REF).strip() == first
    with pytest.raises(RefMoved):
        update_ref(repository, REF, second, "")  # it exists now
    with pytest.raises(RefMoved):
        update_ref(repository, REF, second, second)  # it points elsewhere
    update_ref(repository, REF, second, first)
    assert git(repo, "rev-parse", REF).strip() == second
    git(repo, "pack-refs", "--all")  # only packed now: a loose ref written over it wins
    update_ref(repository, REF, first, second)
    assert git(repo, "rev-parse", REF).strip() == first
    assert not (repo / ".git" / f"{REF}.lock").exists()


def test_update_ref_refuses_a_held_lock_and_runs_no_hook(repo: Path, tmp_path: Path) -> None:
    repository = _repository(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    marker = tmp_path / "hook-ran"
    (hooks / "reference-transaction").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (hooks / "reference-transaction").chmod(0o755)
    lock = repo / ".git" / f"{REF}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    with pytest.raises(GitError, match="locked by another git process"):
        update_ref(repository, REF, head, "")
    lock.unlink()
    update_ref(repository, REF, head, "")
    assert not marker.exists()


def test_concurrent_writers_one_wins_the_others_see_it_moved(repo: Path) -> None:
    repository = _repository(repo)
    heads = git(repo, "rev-parse", "HEAD~1", "HEAD").split()
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def write(value: str) -> None:
        barrier.wait()
        try:
            update_ref(repository, REF, value, "")
            outcomes.append("won")
        except RefMoved:
            outcomes.append("moved")
        except GitError:
            outcomes.append("locked")

    threads = [threading.Thread(target=write, args=(heads[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("won") == 1 and len(outcomes) == 8


def test_private_refs_are_seeded_and_read_back(repo: Path) -> None:
    repository = _repository(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    with IsolatedGit(repository, index=False, refs={REF: head}) as private:
        assert private.ref(REF) == head
        assert private.ref("refs/notes/other") == ""
        assert private.test(["merge-base", "--is-ancestor", f"{head}~1", head])
        assert not private.test(["merge-base", "--is-ancestor", head, f"{head}~1"])
    assert resolve_ref(repository, REF) == ""  # the repository's own refs never moved


def test_remotes_read_as_data(repo: Path, tmp_path: Path) -> None:
    repository = _repository(repo)
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "config", "remote.origin.pushurl", "ssh://git@example.invalid/x.git")
    git(repo, "config", "remote.origin.uploadpack", "touch /tmp/never")
    git(repo, "config", "remote.quoted.url", 'https://example.invalid/has "quotes" # and a comment')
    remote = find_remote(repository, "origin")
    assert (remote.fetch_url, remote.push_url) == (str(bare), "ssh://git@example.invalid/x.git")
    as_git_wrote_it = 'https://example.invalid/has "quotes" # and a comment'
    assert find_remote(repository, "quoted").fetch_url == as_git_wrote_it
    assert find_remote(repository, str(bare)).fetch_url == str(bare)
    assert find_remote(repository, "https://example.invalid/x.git").push_url == "https://example.invalid/x.git"
    with pytest.raises(GitError, match="no remote named 'upstream'"):
        find_remote(repository, "upstream")
    git(repo, "config", "remote.evil.url", "ext::sh -c touch% /tmp/pwned")
    with pytest.raises(GitError, match="runs a command"):
        find_remote(repository, "evil")
    git(repo, "config", "remote.dash.url", "--upload-pack=touch /tmp/pwned")
    with pytest.raises(GitError, match="not one freshpass uses"):
        find_remote(repository, "dash")


def test_revisions(repo: Path) -> None:
    repository = _repository(repo)
    head, parent = git(repo, "rev-parse", "HEAD", "HEAD~1").split()
    git(repo, "tag", "v1", "HEAD~1")
    assert resolve_revision(repository, "HEAD") == head
    assert resolve_revision(repository, "main~1") == f"{head}~1"
    assert resolve_revision(repository, "v1") == parent
    assert resolve_revision(repository, "heads/main") == head
    assert resolve_revision(repository, head[:10]) == head[:10]
    for bad in ("nothing", "-x", "HEAD:path", "a b", "HEAD@{1}"):
        with pytest.raises(GitError):
            resolve_revision(repository, bad)
