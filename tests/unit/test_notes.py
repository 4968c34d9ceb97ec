"""Shared receipts moved through git (freshpass.ledger.notes, design §4.6), against real repositories and a local
bare remote: nothing is lost, nothing is forced, notes never change a content id, and nothing the repository
configures runs."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest
from freshpass.facts.model import SharedTrust
from freshpass.ledger import notes
from freshpass.ledger.content import commit_snapshot, snapshot
from freshpass.ledger.git import GitError, Repository, find_remote, find_repository
from freshpass.ledger.notes import NOTES_REF, add_receipts, fetch, push, read_shared, shared_for
from freshpass.ledger.shared import Provenance, SharedReceipt, from_evidence

from tests.conftest import git
from tests.unit.test_shared import evidence


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote holding one commit of a small project, and its `main`."""
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "app.py").write_text("def answer():\n    return 42\n")
    (seed / "README.md").write_text("# app\n")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "init")
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


def clone(remote: Path, name: str) -> Path:
    path = remote.parent / name
    git(remote.parent, "clone", "-q", str(remote), str(path))
    return path


def repository(root: Path) -> Repository:
    found = find_repository(root)
    assert found is not None
    return found


def receipt(root: Path, number: int, *, actor: str = "ci", content: str | None = None) -> SharedReceipt:
    return from_evidence(
        evidence(
            root=str(root),
            content_id=content or snapshot(root).content_id,
            started_at=1_767_261_000.0 + number,
            finished_at=1_767_261_010.0 + number,
            command=f"pytest -q  # run {number}",
        ),
        root=".",
        provenance=Provenance(actor),
        commit=git(root, "rev-parse", "HEAD").strip(),
        version="0.1.0",
        ignore=[],
        ignore_prose=True,
    )


def shared_commands(root: Path, trust: SharedTrust | None = None) -> list[str]:
    reading = shared_for(snapshot(root), trust or SharedTrust())
    return sorted(view.receipt.command for view in reading.views)


def test_added_receipts_read_back_once_whoever_shares_them_again(remote: Path) -> None:
    root = clone(remote, "ci")
    repo = repository(root)
    first = add_receipts(repo, [receipt(root, 1), receipt(root, 2)], summary="freshpass: 2 receipts from ci")
    assert first.added == 2 and git(root, "rev-parse", NOTES_REF).strip() == first.tip
    assert add_receipts(repo, [receipt(root, 1)], summary="again") == notes.Added(first.tip, 0)
    # The same run shared again with another provenance is the same run: not a second claim.
    assert add_receipts(repo, [receipt(root, 2, actor="person")], summary="again").added == 0
    assert shared_commands(root) == ["pytest -q  # run 1", "pytest -q  # run 2"]
    message = git(root, "log", "-1", "--format=%B", NOTES_REF)
    assert message.startswith("freshpass: 2 receipts from ci")  # the re-shares above added no commit
    assert message.count(f"{notes.TRAILER}: ") == 2 and message.startswith("freshpass: 2 receipts from ci")
    text = git(root, "notes", f"--ref={NOTES_REF}", "show", snapshot(root).content_id.removeprefix("git:"))
    assert text.splitlines() == sorted(text.splitlines()) and text.endswith("}\n")


def test_two_runs_that_start_and_finish_in_the_same_millisecond_are_both_kept(remote: Path) -> None:
    root = clone(remote, "ci")
    one, other = receipt(root, 1), receipt(root, 1)
    other = dataclasses.replace(other, command="pytest -q  # the other writer's run")
    assert (one.started_at, one.finished_at) == (other.started_at, other.finished_at)
    assert add_receipts(repository(root), [one], summary="one").added == 1
    assert add_receipts(repository(root), [other], summary="other").added == 1
    assert add_receipts(repository(root), [dataclasses.replace(one, actor="person")], summary="again").added == 0
    assert shared_commands(root) == ["pytest -q  # run 1", "pytest -q  # the other writer's run"]


def test_notes_never_change_a_content_id(remote: Path) -> None:
    root = clone(remote, "ci")
    before, from_commit = snapshot(root).content_id, commit_snapshot(root).content_id
    add_receipts(repository(root), [receipt(root, 1)], summary="s")
    assert snapshot(root).content_id == before and commit_snapshot(root).content_id == from_commit
    assert git(root, "status", "--porcelain") == ""


def test_a_note_for_other_content_is_never_read_and_a_copied_line_is_skipped(remote: Path) -> None:
    root = clone(remote, "ci")
    repo = repository(root)
    elsewhere = "git:" + "1" * 40
    add_receipts(repo, [receipt(root, 1, content=elsewhere)], summary="s")
    assert shared_commands(root) == []
    current = snapshot(root).content_id.removeprefix("git:")
    copied = receipt(root, 2, content=elsewhere).line  # a valid line, pasted onto this content's note
    git(root, "notes", f"--ref={NOTES_REF}", "add", "-f", "-m", copied, current)
    reading = shared_for(snapshot(root), SharedTrust())
    assert reading.views == [] and reading.skipped == ["it names other content (copied from another note)"]


def test_a_huge_note_is_not_read(remote: Path) -> None:
    root = clone(remote, "ci")
    current = snapshot(root).content_id.removeprefix("git:")
    big = root.parent / "big.txt"
    big.write_text(receipt(root, 1).line + "\n" + "x" * (1 << 20))
    git(root, "notes", f"--ref={NOTES_REF}", "add", "-f", "-F", str(big), current)
    reading = shared_for(snapshot(root), SharedTrust())
    assert reading.views == [] and "was not read" in reading.skipped[0]


def test_push_then_fetch_on_identical_content(remote: Path) -> None:
    ci, laptop = clone(remote, "ci"), clone(remote, "laptop")
    add_receipts(repository(ci), [receipt(ci, 1)], summary="s")
    pushed = push(repository(ci), find_remote(repository(ci), "origin"))
    assert pushed.pushed and not pushed.merged
    assert shared_commands(laptop) == []
    fetched = fetch(repository(laptop), find_remote(repository(laptop), "origin"))
    assert fetched.after == pushed.after and not fetched.merged
    assert shared_commands(laptop) == ["pytest -q  # run 1"]
    again = fetch(repository(laptop), find_remote(repository(laptop), "origin"))
    assert again.after == again.before  # up to date


def test_diverged_refs_are_merged_never_forced(remote: Path) -> None:
    a, b = clone(remote, "a"), clone(remote, "b")
    add_receipts(repository(a), [receipt(a, 1)], summary="a")
    push(repository(a), find_remote(repository(a), "origin"))
    add_receipts(repository(b), [receipt(b, 2)], summary="b")  # b never saw a's receipt
    pushed = push(repository(b), find_remote(repository(b), "origin"))
    assert pushed.pushed and pushed.merged
    assert shared_commands(b) == ["pytest -q  # run 1", "pytest -q  # run 2"]
    add_receipts(repository(a), [receipt(a, 3)], summary="a again")  # a diverged again, locally
    fetched = fetch(repository(a), find_remote(repository(a), "origin"))
    assert fetched.merged
    assert shared_commands(a) == ["pytest -q  # run 1", "pytest -q  # run 2", "pytest -q  # run 3"]
    parents = git(b, "rev-list", "--parents", "-1", NOTES_REF).split()
    assert len(parents) == 3  # the merge keeps both histories, and with them every signed commit


def test_a_push_that_someone_beat_is_fetched_merged_and_tried_again(
    remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, theirs = clone(remote, "mine"), clone(remote, "theirs")
    add_receipts(repository(mine), [receipt(mine, 1)], summary="mine")
    add_receipts(repository(theirs), [receipt(theirs, 2)], summary="theirs")
    real_fetch_tip = notes._fetch_tip
    fetches: list[str] = []

    def fetch_then_someone_pushes(private, url):  # type: ignore[no-untyped-def]
        tip = real_fetch_tip(private, url)
        fetches.append(tip)
        if len(fetches) == 1:  # between our fetch and our push, another writer publishes
            push(repository(theirs), find_remote(repository(theirs), "origin"))
        return tip

    monkeypatch.setattr(notes, "_fetch_tip", fetch_then_someone_pushes)
    pauses: list[int] = []
    pushed = push(repository(mine), find_remote(repository(mine), "origin"), pause=pauses.append)
    assert pushed.pushed and pushed.attempts == 2 and pauses == [1]
    monkeypatch.undo()
    reader = clone(remote, "reader")
    fetch(repository(reader), find_remote(repository(reader), "origin"))
    assert shared_commands(reader) == ["pytest -q  # run 1", "pytest -q  # run 2"]


def test_nothing_the_repositories_configure_runs(remote: Path, tmp_path: Path) -> None:
    root = clone(remote, "ci")
    marker = tmp_path / "ran"
    hooks = root / ".git" / "hooks"
    for hook in ("reference-transaction", "pre-push", "post-rewrite", "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marker}-{hook}\n")
        (hooks / hook).chmod(0o755)
    git(root, "config", "core.fsmonitor", f"touch {marker}-fsmonitor; false")
    git(root, "config", "gpg.program", f"touch {marker}-gpg; false")
    git(root, "config", "remote.origin.uploadpack", f"touch {marker}-uploadpack; git-upload-pack")
    git(root, "config", "remote.origin.receivepack", f"touch {marker}-receivepack; git-receive-pack")
    git(root, "config", "core.sshCommand", f"touch {marker}-ssh; ssh")
    repo = repository(root)
    add_receipts(repo, [receipt(root, 1)], summary="s")
    push(repo, find_remote(repo, "origin"))
    fetch(repo, find_remote(repo, "origin"))
    shared_for(snapshot(root), SharedTrust(("ci",)))
    assert sorted(path.name for path in tmp_path.glob("ran-*")) == []


def test_remote_problems_are_explained(remote: Path, tmp_path: Path) -> None:
    root = clone(remote, "ci")
    repo = repository(root)
    add_receipts(repo, [receipt(root, 1)], summary="s")
    with pytest.raises(GitError, match="no remote named 'upstream'"):
        find_remote(repo, "upstream")
    gone = find_remote(repo, str(tmp_path))  # a directory that is no repository
    with pytest.raises(GitError, match="cannot fetch refs/notes/freshpass from"):
        push(repo, gone)


def test_read_shared_is_bounded_by_the_notes_tip(remote: Path) -> None:
    root = clone(remote, "ci")
    repo = repository(root)
    content = snapshot(root).content_id
    assert read_shared(repo, content, ".", SharedTrust()).views == []  # no ref at all: nothing run
    add_receipts(repo, [receipt(root, 1)], summary="s")
    assert len(read_shared(repo, content, ".", SharedTrust()).views) == 1
    add_receipts(repo, [receipt(root, 2)], summary="s")  # a new tip is a new read
    assert len(read_shared(repo, content, ".", SharedTrust()).views) == 2
    assert read_shared(repo, "files:" + "0" * 64, ".", SharedTrust()).views == []


def test_the_ref_is_plain_git_data(remote: Path) -> None:
    root = clone(remote, "ci")
    add_receipts(repository(root), [receipt(root, 1)], summary="s")
    fsck = subprocess.run(["git", "-C", str(root), "fsck", "--no-dangling"], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    git(root, "gc", "-q", "--prune=now")
    assert shared_commands(root) == ["pytest -q  # run 1"]  # gc keeps every note


def test_a_signing_key_is_a_file_never_its_text() -> None:
    assert notes.Signing("/keys/ci").config()["gpg.format"] == "openpgp"  # not a file here: a gpg key id
    assert notes.Signing("key::ssh-ed25519 AAAA").config()["gpg.format"] == "ssh"
    with pytest.raises(ValueError, match="text of a key"):
        notes.Signing("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...\n-----END OPENSSH PRIVATE KEY-----\n")


# ---- merging in bounded work --------------------------------------------------------------------------------------


def plant_notes(root: Path, notes_by_tree: dict[str, bytes]) -> None:
    """`notes_by_tree` added on top of the clone's notes ref in one commit (git's own `fast-import`, as anyone with
    push access could write them)."""
    parent = git(root, "rev-parse", "--verify", "--quiet", NOTES_REF).strip()
    stream = b"commit %s\ncommitter m <m@example.invalid> 1767261000 +0000\ndata 7\nplanted\n" % NOTES_REF.encode()
    if parent:
        stream += b"from %s\n" % parent.encode()
    for tree, text in notes_by_tree.items():
        stream += b"M 100644 inline %s\ndata %d\n%s\n" % (tree.encode(), len(text), text)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=stream, check=True)


def counted_git(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git commands every private git directory runs from now on."""
    ran: list[str] = []
    real = notes.IsolatedGit.call

    def call(self, args, **kwargs):  # type: ignore[no-untyped-def]
        ran.append(args[0])
        return real(self, args, **kwargs)

    monkeypatch.setattr(notes.IsolatedGit, "call", call)
    return ran


def diverged_fetch(remote: Path, name: str, planted: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A writer pushes its receipt and `planted` notes on other contents; a reader who shared one of its own fetches
    (a merge). The reader's clone and the git commands the fetch ran."""
    writer, reader = clone(remote, f"{name}-writer"), clone(remote, f"{name}-reader")
    add_receipts(repository(writer), [receipt(writer, 1)], summary="w")
    plant_notes(writer, {f"{number:040x}": receipt(writer, number).line.encode() + b"\n" for number in range(planted)})
    push(repository(writer), find_remote(repository(writer), "origin"))
    add_receipts(repository(reader), [receipt(reader, 2)], summary="r")
    ran = counted_git(monkeypatch)
    fetched = fetch(repository(reader), find_remote(repository(reader), "origin"))
    monkeypatch.undo()
    assert fetched.merged and fetched.skipped == ()
    return reader, ran


def test_a_merge_runs_as_many_git_processes_for_three_hundred_notes_as_for_three(
    remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    few_root, few = diverged_fetch(remote, "few", 3, monkeypatch)
    many_root, many = diverged_fetch(remote, "many", 300, monkeypatch)
    assert len(many) == len(few) and many.count("fast-import") == 1 and "notes" not in many
    listed = git(many_root, "notes", f"--ref={NOTES_REF}", "list").splitlines()
    assert len(listed) == 301  # every planted note, and the shared content's (fanned out past 255, as git does)
    assert git(many_root, "ls-tree", "--name-only", NOTES_REF).splitlines()[0] == "00"
    assert shared_commands(many_root) == shared_commands(few_root) == ["pytest -q  # run 1", "pytest -q  # run 2"]


def test_a_merge_leaves_a_huge_note_and_long_lines_out_and_says_so(remote: Path) -> None:
    writer, reader = clone(remote, "writer"), clone(remote, "reader")
    content = snapshot(writer).content_id.removeprefix("git:")
    other = "ab" * 20
    add_receipts(repository(writer), [receipt(writer, 1)], summary="w")
    plant_notes(writer, {content: receipt(writer, 1).line.encode() + b"\n" + b"x" * (2 << 20) + b"\n",
                         other: b"y" * (20 << 10) + b"\nshort line\n"})  # fmt: skip
    push(repository(writer), find_remote(repository(writer), "origin"))
    add_receipts(repository(reader), [receipt(reader, 2)], summary="r")
    plant_notes(reader, {other: b"mine\n"})
    fetched = fetch(repository(reader), find_remote(repository(reader), "origin"))
    assert fetched.merged
    assert fetched.skipped[0].startswith("1 note larger than 1 MiB not merged") and content[:12] in fetched.skipped[0]
    assert fetched.skipped[1] == "1 line longer than 16 KiB dropped from 1 note (no receipt is that long)"
    assert shared_commands(reader) == ["pytest -q  # run 2"]  # the huge note was never read: the reader's kept
    assert git(reader, "notes", f"--ref={NOTES_REF}", "show", other) == "mine\nshort line\n"
    parents = git(reader, "rev-list", "--parents", "-1", NOTES_REF).split()
    assert len(parents) == 3
