"""Where the trust in shared receipts comes from (freshpass.ledger.anchors): the user's settings, else the project's
as the default branch has them committed — never the work tree, never a checked-out branch's own commits — read
without running anything the repository configures, bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from freshpass.facts.model import SharedTrust
from freshpass.ledger import anchors
from freshpass.ledger.anchors import (
    allowed_signers,
    committed_trust,
    default_branch,
    trust_anchors,
    user_config_file,
    user_trust,
)
from freshpass.ledger.git import GitError, Repository, find_repository

from tests.conftest import git

TRUSTING = '[project]\nname = "x"\n\n[tool.freshpass.shared]\ntrust = ["ci"]\n'
SIGNING = (
    '[tool.freshpass.shared]\ntrust = ["ci"]\nsigners = ["ci@acme"]\nallowed_signers = ".github/allowed_signers"\n'
)


def repository(root: Path) -> Repository:
    found = find_repository(root)
    assert found is not None
    return found


def commit(root: Path, files: dict[str, str], message: str = "change") -> str:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A remote whose `main` trusts CI, and a clone of it (so `origin/HEAD` exists)."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    commit(seed, {"pyproject.toml": TRUSTING, "app.py": "x = 1\n"})
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(tmp_path / "remote.git"))
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "clone"))
    return (tmp_path / "clone").resolve()


# ---- the user's settings ------------------------------------------------------------------------------------------


def write_user_config(text: str | bytes) -> Path:
    where = user_config_file()
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_bytes(text.encode() if isinstance(text, str) else text)
    return where


def test_the_user_config_file_lives_in_xdg_config_home(tmp_path: Path) -> None:
    assert user_config_file({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "freshpass" / "config.toml"
    assert user_config_file({"XDG_CONFIG_HOME": "relative"}) == Path.home() / ".config" / "freshpass" / "config.toml"


def test_the_user_config_file_is_read_validated_and_bounded() -> None:
    assert user_trust() == (None, "")  # no file: nothing said, nothing wrong
    write_user_config('[shared]\ntrust = ["ci"]\nsigners = ["ci@acme"]\nallowed_signers = "~/keys/signers"\n')
    assert user_trust() == (SharedTrust(("ci",), ("ci@acme",), "~/keys/signers"), "")
    write_user_config("[other]\nx = 1\n")
    assert user_trust() == (None, "")
    for text, why in (
        ("[shared\n", "not valid TOML"),
        ('[shared]\ntrust = ["robot"]\n', "robot is not one of ci, person, agent"),
        ('[shared]\ntrust = ["ci"]\nsigners = ["x"]\n', "needs shared.allowed_signers"),
        ('shared = "ci"\n', "must be a table"),
        ('[shared]\nallowed_signers = "a\\nb"\n', "must be a file path"),
        (b"# " + b"x" * (70 << 10) + b"\n", "more than 65536"),
    ):
        where = write_user_config(text)
        found, problem = user_trust()
        assert found is None and why in problem and str(where) in problem, (text, problem)


def test_a_user_config_that_is_a_fifo_never_blocks() -> None:
    where = user_config_file()
    where.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(where)
    found, problem = user_trust()
    assert found is None and "not a regular file" in problem


# ---- the default branch -------------------------------------------------------------------------------------------


def test_the_default_branch_is_origin_head_then_the_remote_s_then_a_local_one_not_checked_out(project: Path) -> None:
    repo = repository(project)
    main = git(project, "rev-parse", "origin/main").strip()
    assert default_branch(repo) == anchors.DefaultBranch("origin/HEAD", main)
    git(project, "remote", "set-head", "origin", "--delete")
    assert default_branch(repo) == anchors.DefaultBranch("origin/main", main)
    git(project, "update-ref", "-d", "refs/remotes/origin/main")
    assert default_branch(repo) is None  # `main` is checked out: its commits are the ones being judged
    git(project, "checkout", "-q", "-b", "feature")
    feature = commit(project, {"app.py": "x = 2\n"})
    assert default_branch(repo) == anchors.DefaultBranch("main", main)
    git(project, "checkout", "-q", "--detach", feature)
    assert default_branch(repo) == anchors.DefaultBranch("main", main)


# ---- the project's committed settings -----------------------------------------------------------------------------


def test_the_committed_settings_count_and_the_work_tree_s_do_not(project: Path) -> None:
    repo = repository(project)
    assert trust_anchors(repo, ".") == anchors.Anchors(
        SharedTrust(("ci",)), "origin/HEAD", default_branch(repo), SharedTrust(("ci",))
    )
    # A branch that trusts agents too, committed but not merged: origin/HEAD still says CI only.
    git(project, "checkout", "-q", "-b", "feature")
    commit(project, {".freshpass.toml": 'shared = {trust = ["ci", "agent"]}\n'})
    (project / "pyproject.toml").write_text("[tool.freshpass.shared]\ntrust = []\n")  # and the work tree, neither
    assert trust_anchors(repo, ".").trust == SharedTrust(("ci",))


def test_freshpass_toml_wins_over_pyproject_and_a_package_reads_its_own(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, {"pyproject.toml": TRUSTING, ".freshpass.toml": 'shared = {trust = ["person"]}\n',
                  "pkg/pyproject.toml": '[tool.freshpass.shared]\ntrust = ["agent"]\n'})  # fmt: skip
    git(root, "checkout", "-q", "-b", "feature")
    branch = default_branch(repository(root))
    assert branch is not None and branch.name == "main"
    assert committed_trust(repository(root), branch, ".") == (SharedTrust(("person",)), ())
    assert committed_trust(repository(root), branch, "pkg") == (SharedTrust(("agent",)), ())


def merged_on_main(project: Path, files: dict[str, str]) -> None:
    """`files` committed on the remote's `main`, and fetched."""
    seed = project.parent / "seed"
    commit(seed, files)
    git(seed, "push", "-q", str(project.parent / "remote.git"), "main")
    git(project, "fetch", "-q")


def test_committed_settings_that_are_huge_or_wrong_are_named_not_used(project: Path) -> None:
    merged_on_main(
        project, {"pyproject.toml": "# " + "x" * (1 << 20) + "\n", ".freshpass.toml": 'shared = {trust = "ci"}\n'}
    )
    found = trust_anchors(repository(project), ".")
    assert found.trust == SharedTrust() and found.source == ""
    assert any("pyproject.toml is not read" in problem and "more than" in problem for problem in found.problems)
    assert any("shared.trust must be an array of strings" in problem for problem in found.problems)


def test_the_user_s_settings_come_first(project: Path) -> None:
    repo = repository(project)
    assert trust_anchors(repo, ".", SharedTrust(("person",))).trust == SharedTrust(("person",))
    write_user_config('[shared]\ntrust = ["agent"]\n')
    assert trust_anchors(repo, ".").trust == SharedTrust(("agent",))  # the file, over the project
    assert trust_anchors(repo, ".").source == "your settings"
    assert trust_anchors(repo, ".", SharedTrust(("person",))).trust == SharedTrust(("person",))  # the editor's first
    write_user_config("[shared]\ntrust = []\n")  # trusting no one: the project's settings apply
    assert trust_anchors(repo, ".").trust == SharedTrust(("ci",))


# ---- the allowed-signers file -------------------------------------------------------------------------------------


def test_a_relative_allowed_signers_file_is_read_from_the_default_branch(project: Path) -> None:
    merged_on_main(project, {"pyproject.toml": SIGNING, ".github/allowed_signers": "ci@acme ssh-ed25519 AAAAmain\n"})
    repo = repository(project)
    trust = trust_anchors(repo, ".").trust
    assert allowed_signers(repo, ".", trust) == b"ci@acme ssh-ed25519 AAAAmain\n"
    git(project, "checkout", "-q", "-b", "feature")
    commit(project, {".github/allowed_signers": "ci@acme ssh-ed25519 AAAAmallory\n"})
    assert allowed_signers(repo, ".", trust) == b"ci@acme ssh-ed25519 AAAAmain\n"  # the branch's key: not read
    git(project, "remote", "set-head", "origin", "--delete")
    git(project, "update-ref", "-d", "refs/remotes/origin/main")
    git(project, "branch", "-q", "-D", "main")
    with pytest.raises(GitError, match="no default branch"):
        allowed_signers(repo, ".", trust)


def test_an_absolute_allowed_signers_file_is_the_user_s_and_never_one_inside_the_repository(
    project: Path, tmp_path: Path
) -> None:
    repo = repository(project)
    mine = tmp_path / "my_signers"
    mine.write_text("ci@acme ssh-ed25519 AAAAmine\n")
    assert allowed_signers(repo, ".", SharedTrust(("ci",), ("ci@acme",), str(mine))) == mine.read_bytes()
    (project / "signers").write_text("ci@acme ssh-ed25519 AAAAplanted\n")
    (tmp_path / "link").symlink_to(project / "signers")
    for inside in (project / "signers", tmp_path / "link", project / ".git" / "config"):
        with pytest.raises(GitError, match="inside the repository being judged"):
            allowed_signers(repo, ".", SharedTrust(("ci",), ("ci@acme",), str(inside)))
    with pytest.raises(GitError, match="outside the repository"):
        allowed_signers(repo, "pkg", SharedTrust(("ci",), ("ci@acme",), "../../x"))
    with pytest.raises(GitError, match="not in that commit"):
        allowed_signers(repo, ".", SharedTrust(("ci",), ("ci@acme",), "absent"))


def test_reading_the_anchors_runs_nothing_the_repository_configures(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    git(project, "config", "core.fsmonitor", f"touch {marker}-fsmonitor; false")
    git(project, "config", "core.pager", f"touch {marker}-pager; cat")
    git(project, "config", "include.path", str(tmp_path / "included"))
    (tmp_path / "included").write_text(f"[core]\n\tsshCommand = touch {marker}-ssh\n")
    hooks = project / ".git" / "hooks"
    (hooks / "reference-transaction").write_text(f"#!/bin/sh\ntouch {marker}-hook\n")
    (hooks / "reference-transaction").chmod(0o755)
    assert trust_anchors(repository(project), ".").trust == SharedTrust(("ci",))
    assert sorted(path.name for path in tmp_path.glob("ran-*")) == []
