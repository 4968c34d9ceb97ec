"""Untrusted folders run nothing, git included: a git root has no content id there and its freshness is `unchecked`
(said, never an accusation); a root outside git is hashed in Python exactly as always."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from freshpass.evidence import trust
from freshpass.evidence.status import ContentRules, unchecked_status
from freshpass.ledger.content import NeedsGit, needs_git, snapshot
from freshpass.ledger.store import Evidence
from freshpass.server import present


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.freshpass]\nverify = ["pytest -q"]\n')
    (root / "src" / "lib.py").write_text("A = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root.resolve()


@pytest.fixture
def no_process(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every way freshpass starts a process fails the test (the calls are recorded, too)."""
    calls: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError(f"a process was started: {args!r}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    return calls


def receipt(status: str = "passed") -> Evidence:
    return Evidence(
        id=3, created_at=1e9, root="/r", command="pytest -q", canonical_command="pytest", kind="test", scope="full",
        status=status, content_id="git:" + "a" * 40, started_at=1e9, finished_at=1e9 + 1, duration=1.0,
    )  # fmt: skip


def test_a_git_root_gets_gits_id_without_processes_or_none_and_no_process_starts(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = snapshot(repo).content_id  # with git
    calls: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError(f"a process was started: {args!r}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    assert needs_git(repo) and needs_git(repo / "src")
    assert snapshot(repo, processes=False).content_id == expected
    (repo / ".gitattributes").write_text("*.bin filter=lfs\n")  # a filter only git (and git-lfs) would apply
    with pytest.raises(NeedsGit, match="only git can compute"):
        snapshot(repo, processes=False)
    with pytest.raises(NeedsGit):
        ContentRules().snapshot(repo / "src", processes=False)
    assert calls == []


def test_a_root_outside_git_gets_the_same_id_with_or_without_processes(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.py").write_text("A = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    assert not needs_git(root)
    assert snapshot(root, processes=False) == snapshot(root)
    assert snapshot(root, processes=False).content_id.startswith("files:")


def test_without_git_installed_a_git_root_is_hashed_as_files_either_way(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert not needs_git(repo)
    assert snapshot(repo, processes=False).content_id == snapshot(repo).content_id


def test_an_unchecked_status_accuses_nothing_and_shows_the_last_receipt_as_a_past_run() -> None:
    status = unchecked_status("/r", {"test": receipt("failed")}, ())
    assert (status.status, status.kinds, status.changed_paths, status.scope) == ("unchecked", {}, (), None)
    assert status.evidence is not None and status.evidence.status == "failed"
    assert status.uncovered_paths(failed=["a.py"], unverified=["b.py"]) == set()
    assert unchecked_status("/r", {}).evidence is None


def test_the_words_for_an_unchecked_root_say_why_and_how_to_trust() -> None:
    status = unchecked_status("/r", {"test": receipt()})
    lens = present.lens_title(status, changed_count=3)
    assert lens.startswith("○ not checked") and "⚠" not in lens and "changed" not in lens
    hover = present.hover_markdown("src/lib.py", status, command="pytest -q", changed_paths=["src/lib.py"])
    assert "runs nothing" in hover and "Trust the workspace" in hover and "pytest -q" in hover
    assert "Changed since" not in hover and "⚠" not in hover and "Run:" not in hover
    empty = present.hover_markdown(None, unchecked_status("/r", {}), command=None)
    assert "Latest receipt" not in empty and "not checked" in empty


async def test_the_mcp_tools_run_nothing_in_a_folder_absent_from_the_trust_list(repo: Path, no_process: list) -> None:
    from freshpass.mcp import tools

    found = await tools.status("", repo)
    assert found["status"] == "unverified"  # the content id computed in Python: checked, no receipt yet
    (repo / ".gitattributes").write_text("*.bin filter=lfs\n")
    found = await tools.status("", repo)
    assert (found["status"], found["kinds"], found["changed_paths"]) == ("unchecked", {}, [])
    decision = await tools.check_done("", repo)
    assert decision["verdict"] == "not_applicable" and "not a trusted folder" in decision["message"]
    assert no_process == []


async def test_the_mcp_tools_check_a_trusted_folder_with_git_as_before(repo: Path) -> None:
    from freshpass.mcp import tools

    trust.trust(repo)
    found = await tools.status("", repo)
    assert found["status"] == "unverified"  # no receipt yet: checked, and said so
    (repo / "src" / "lib.py").write_text("A = 2\n")  # an uncommitted change git sees: the agent must verify it
    decision = await tools.check_done("", repo)
    assert decision["verdict"] == "nudge" and decision["changedPaths"] == ["src/lib.py"], decision


def test_a_stale_status_whose_changed_files_are_unknown_says_the_content_changed_without_a_count() -> None:
    from freshpass.evidence.status import build_status

    status = build_status("/r", {}, {"test": receipt()}, ())  # stale, the receipt's tree not readable here
    assert present.lens_title(status).startswith("⚠ unverified · content changed since pytest -q passed")
    named = build_status("/r", {}, {"test": receipt()}, ["a.py"])
    assert present.lens_title(named).startswith("⚠ unverified · 1 file changed · since pytest -q passed")
