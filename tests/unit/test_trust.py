"""The user's trusted-folder list: resolved paths, ancestors cover descendants, bounded, private, never raises."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from freshpass.evidence import trust


def test_trust_covers_the_folder_and_below_and_revoke_takes_it_back(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    assert not trust.is_trusted(project)
    assert trust.trust(project) == str(project.resolve())
    assert trust.is_trusted(project) and trust.is_trusted(project / "sub") and trust.is_trusted(project / "new")
    assert not trust.is_trusted(tmp_path) and not trust.is_trusted(tmp_path / "project-other")
    where = trust.trust_file()
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700
    assert trust.revoke(project) and not trust.is_trusted(project)
    assert not trust.revoke(project)


def test_symlinks_are_judged_by_their_target(tmp_path: Path) -> None:
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    (project / "escape").symlink_to(other)
    (tmp_path / "alias").symlink_to(project)
    trust.trust(project)
    assert not trust.is_trusted(project / "escape")
    assert trust.is_trusted(tmp_path / "alias")
    assert not trust.is_trusted(project / ".." / "other")


@pytest.mark.parametrize(
    "content", [b"not json", b"[1, 2]", b'{"version": 2, "trusted": ["/"]}', b'{"trusted": "/"}', b"\xff\xfe"]
)
def test_a_malformed_list_trusts_nothing_and_says_why(tmp_path: Path, content: bytes) -> None:
    where = trust.trust_file()
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_bytes(content)
    listed = trust.load()
    assert listed.paths == () and listed.problem
    assert not trust.is_trusted(tmp_path)
    with pytest.raises(trust.TrustError):
        trust.trust(tmp_path)  # never overwrite what the user may want to repair


def test_a_fifo_or_huge_list_trusts_nothing_without_blocking(tmp_path: Path) -> None:
    where = trust.trust_file()
    where.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(where)
    assert trust.load().problem and not trust.is_trusted(tmp_path)
    where.unlink()
    where.write_text(json.dumps({"version": 1, "trusted": ["/"]}) + " " * trust.MAX_BYTES)
    assert trust.load().problem and not trust.is_trusted(tmp_path)


def test_entries_that_are_not_absolute_paths_are_ignored(tmp_path: Path) -> None:
    where = trust.trust_file()
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(json.dumps({"version": 1, "trusted": [".", 3, None, "relative", str(tmp_path)]}))
    assert trust.load().paths == (str(tmp_path),)


def test_trusting_a_file_or_a_missing_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    for target in (tmp_path / "f", tmp_path / "missing"):
        with pytest.raises(trust.TrustError, match="not a directory"):
            trust.trust(target)


def test_the_cli_trusts_lists_and_revokes(tmp_path: Path, cli) -> None:
    project = tmp_path / "p"
    project.mkdir()
    assert cli("trust", str(project)).returncode == 0
    listed = cli("trust", "--list")
    assert listed.stdout.splitlines() == [str(project.resolve())]
    assert cli("trust", "--revoke", str(project)).returncode == 0
    assert cli("trust", "--list").stdout == ""
