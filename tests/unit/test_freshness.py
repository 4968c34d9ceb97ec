"""Freshness rules of design §4.3–4.5 on real git repositories (and a non-git root), through the ledger API."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest
from freshpass.evidence.agents import decide
from freshpass.evidence.status import build_status, root_status
from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.ledger.content import snapshot
from freshpass.ledger.store import EvidenceDraft, Ledger


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("def answer():\n    return 42\n")
    (root / "test_app.py").write_text("from app import answer\n\ndef test_answer():\n    assert answer() == 42\n")
    (root / "README.md").write_text("# demo\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def facts_for(root: Path) -> ProjectFacts:
    return ProjectFacts(root=str(root), verify_commands=[VerifyCommand("pytest", "test", ".", "pyproject.toml")])


async def record_pass(ledger: Ledger, root: Path, kind: str = "test", **overrides: object) -> int:
    current = snapshot(root)
    now = time.time()
    values: dict[str, object] = {
        "root": str(root),
        "command": "pytest -q",
        "canonical_command": "pytest",
        "kind": kind,
        "scope": "full",
        "status": "passed",
        "content_id": current.content_id,
        "started_at": now - 1,
        "finished_at": now,
        "exit_code": 0,
        "approved": True,
    }
    values.update(overrides)
    evidence = await ledger.record(EvidenceDraft(**values), manifest=current.manifest)  # type: ignore[arg-type]
    return evidence.id


async def status_of(ledger: Ledger, root: Path) -> dict:
    return (await root_status(ledger, str(root), facts_for(root))).to_json()


async def test_no_evidence_is_unverified(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        status = await status_of(ledger, repo)
    assert status["status"] == "unverified"
    assert status["evidence"] is None and status["scope"] is None and status["kinds"] == {}
    assert status["verify_commands"] == [
        {
            "command": "pytest",
            "kind": "test",
            "cwd": ".",
            "source": "pyproject.toml",
            "origin": "local",
            "basis": "declared",
        }
    ]


async def test_edit_stales_revert_refreshes_identical_save_stays_fresh(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        evidence_id = await record_pass(ledger, repo)
        status = await status_of(ledger, repo)
        assert (status["status"], status["scope"], status["evidence"]["id"]) == ("passed", "full", evidence_id)
        assert status["changed_paths"] == []

        original = (repo / "app.py").read_text()
        (repo / "app.py").write_text(original)  # a save that changes nothing
        os.utime(repo / "app.py", (time.time() + 5, time.time() + 5))
        assert (await status_of(ledger, repo))["status"] == "passed"

        (repo / "app.py").write_text(original.replace("42", "43"))
        status = await status_of(ledger, repo)
        assert status["status"] == "stale" and status["scope"] is None
        assert status["changed_paths"] == ["app.py"]
        assert status["evidence"]["id"] == evidence_id
        assert status["kinds"]["test"]["status"] == "stale" and status["kinds"]["test"]["fresh"] is False

        (repo / "app.py").write_text(original)  # undo the edit
        status = await status_of(ledger, repo)
        assert status["status"] == "passed" and status["changed_paths"] == []


async def test_committing_exactly_the_tested_content_stays_fresh(repo: Path) -> None:
    (repo / "app.py").write_text("def answer():\n    return 6 * 7\n")
    (repo / "new_module.py").write_text("X = 1\n")
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "tested change")
        assert (await status_of(ledger, repo))["status"] == "passed"


async def test_branch_switch_stales(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "app.py").write_text("def answer():\n    return 0\n")
    git(repo, "commit", "-q", "-am", "feature")
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo)
        git(repo, "checkout", "-q", "main")
        status = await status_of(ledger, repo)
        assert status["status"] == "stale" and status["changed_paths"] == ["app.py"]
        git(repo, "checkout", "-q", "feature")
        assert (await status_of(ledger, repo))["status"] == "passed"


async def test_new_untracked_file_stales(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo)
        (repo / "helpers.py").write_text("Y = 2\n")
        status = await status_of(ledger, repo)
        assert status["status"] == "stale" and status["changed_paths"] == ["helpers.py"]


async def test_ignored_prose_and_ledger_changes_stay_fresh(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger_inside = repo / ".state" / "ledger.db"
    monkeypatch.setenv("FRESHPASS_LEDGER", str(ledger_inside))
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo)
        (repo / "debug.log").write_text("gitignored\n")
        (repo / "build").mkdir()
        (repo / "build" / "out.bin").write_bytes(b"\0\1")
        (repo / "README.md").write_text("# demo, now documented\n")  # tracked prose
        (repo / "docs").mkdir()
        (repo / "docs" / "guide.rst").write_text("Guide\n=====\n")  # untracked prose
        (repo / "LICENSE").write_text("MIT\n")
        (repo / "CHANGELOG").write_text("1.0\n")
        await record_pass(ledger, repo, kind="lint")  # the ledger file inside the repo just changed too
        assert (await status_of(ledger, repo))["status"] == "passed"

        (repo / "requirements.txt").write_text("requests\n")  # .txt, but a build input
        status = await status_of(ledger, repo)
        assert status["status"] == "stale" and status["changed_paths"] == ["requirements.txt"]


async def test_prose_counts_when_configured(repo: Path) -> None:
    before = snapshot(repo, ignore_prose=False)
    (repo / "README.md").write_text("# changed\n")
    after = snapshot(repo, ignore_prose=False)
    assert before.content_id != after.content_id
    assert snapshot(repo).content_id == snapshot(repo).content_id


async def test_ignore_globs_are_the_project_s(repo: Path) -> None:
    facts = facts_for(repo)
    facts.ignore = ["fixtures/generated/", "*.snap"]
    async with await Ledger.open() as ledger:
        current = snapshot(repo, ignore=facts.ignore)
        now = time.time()
        await ledger.record(
            EvidenceDraft(
                root=str(repo),
                command="pytest",
                canonical_command="pytest",
                kind="test",
                scope="full",
                status="passed",
                content_id=current.content_id,
                started_at=now,
                finished_at=now,
            )
        )
        (repo / "fixtures" / "generated").mkdir(parents=True)
        (repo / "fixtures" / "generated" / "data.json").write_text("{}")
        (repo / "ui.snap").write_text("snapshot")
        status = (await root_status(ledger, str(repo), facts)).to_json()
        assert status["status"] == "passed"
        (repo / "fixtures" / "real.json").write_text("{}")
        status = (await root_status(ledger, str(repo), facts)).to_json()
        assert status["status"] == "stale" and status["changed_paths"] == ["fixtures/real.json"]


async def test_evidence_recorded_stale_is_never_fresh(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo, stale_at_record=True)
        status = await status_of(ledger, repo)
        assert status["status"] == "stale"


async def test_headline_prefers_test_and_kinds_show_each_kind(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        test_id = await record_pass(ledger, repo, scope="targeted", approved=False)
        lint_id = await record_pass(ledger, repo, kind="lint", status="failed", exit_code=1)
        status = await status_of(ledger, repo)
        assert status["evidence"]["id"] == test_id
        assert (status["status"], status["scope"]) == ("passed", "targeted")
        assert status["kinds"]["lint"] == {
            "status": "failed",
            "scope": "full",
            "fresh": True,
            "evidence": status["kinds"]["lint"]["evidence"],
            "flaky": None,
        }
        assert status["kinds"]["lint"]["evidence"]["id"] == lint_id
        newer_fail = await record_pass(ledger, repo, status="failed", exit_code=1)
        status = await status_of(ledger, repo)
        assert (status["status"], status["evidence"]["id"]) == ("failed", newer_fail)


def test_build_status_without_test_kind_uses_newest_of_any_kind() -> None:
    assert build_status("/r", {}, {}).status == "unverified"


async def test_package_root_content_is_its_own_subtree(repo: Path) -> None:
    package = repo / "packages" / "web"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "web"}\n')
    (package / "index.js").write_text("module.exports = 1\n")
    async with await Ledger.open() as ledger:
        await record_pass(ledger, package)
        (repo / "app.py").write_text("changed outside the package\n")
        assert (await status_of(ledger, package))["status"] == "passed"
        (package / "index.js").write_text("module.exports = 2\n")
        status = await status_of(ledger, package)
        assert status["status"] == "stale" and status["changed_paths"] == ["index.js"]


async def test_user_index_is_never_touched(repo: Path) -> None:
    (repo / "app.py").write_text("dirty\n")
    (repo / "untracked.py").write_text("new\n")
    index = repo / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    snapshot(repo)
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert git(repo, "status", "--porcelain").splitlines() == [" M app.py", "?? untracked.py"]


async def test_repository_without_commits(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    empty = snapshot(root)
    (root / "main.go").write_text("package main\n")
    assert snapshot(root).content_id != empty.content_id


async def test_non_git_root(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'plain'\n")
    (root / "src" / "mod.py").write_text("A = 1\n")
    (root / "node_modules" / "dep").mkdir(parents=True)
    async with await Ledger.open() as ledger:
        await record_pass(ledger, root)
        (root / "node_modules" / "dep" / "index.js").write_text("ignored heavy dir\n")
        (root / "NOTES.md").write_text("prose\n")
        assert (await status_of(ledger, root))["status"] == "passed"
        (root / "src" / "mod.py").write_text("A = 2\n")
        (root / "src" / "extra.py").write_text("B = 1\n")
        status = await status_of(ledger, root)
        assert status["status"] == "stale"
        assert status["changed_paths"] == ["src/extra.py", "src/mod.py"]
        (root / "src" / "mod.py").write_text("A = 1\n")
        (root / "src" / "extra.py").unlink()
        assert (await status_of(ledger, root))["status"] == "passed"


async def test_a_project_that_counts_prose_says_so_in_its_own_config(repo: Path) -> None:
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.detect import detect_facts

    (repo / "pyproject.toml").write_text('[tool.freshpass]\nverify = ["pytest"]\nignore_prose = false\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "prose counts here")
    facts = detect_facts(repo)
    assert facts.ignore_prose is False and not facts.problems
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo)  # recorded with the default rules: prose left out
        rules = ContentRules.of(facts)
        assert rules.ignored().match_file("README.md") is False
        # Under the project's rules the same tree is other content, so the receipt above does not cover it ...
        assert (await root_status(ledger, str(repo), facts)).status == "stale"
        current = rules.snapshot(repo)
        evidence = EvidenceDraft(
            root=str(repo), command="pytest", canonical_command="pytest", kind="test", scope="full",
            status="passed", content_id=current.content_id, started_at=time.time(), finished_at=time.time(),
        )  # fmt: skip
        await ledger.record(evidence, manifest=current.manifest)
        assert (await root_status(ledger, str(repo), facts)).status == "passed"
        # ... and a change to prose makes it stale, named.
        (repo / "README.md").write_text("# demo, reworded\n")
        status = (await root_status(ledger, str(repo), facts)).to_json()
        assert status["status"] == "stale" and status["changed_paths"] == ["README.md"]


def test_ignore_prose_must_be_a_boolean(tmp_path: Path) -> None:
    from freshpass.facts.detect import detect_facts

    (tmp_path / ".freshpass.toml").write_text('verify = ["pytest"]\nignore_prose = "no"\n')
    facts = detect_facts(tmp_path)
    assert facts.ignore_prose is True
    assert any("ignore_prose must be true or false" in problem.message for problem in facts.problems)


async def test_a_fail_then_a_pass_of_the_same_full_check_on_the_same_content_is_flaky(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        failed_id = await record_pass(ledger, repo, status="failed", exit_code=1)
        passed_id = await record_pass(ledger, repo)
        status = await root_status(ledger, str(repo), facts_for(repo))
    written = status.to_json()
    assert (written["status"], written["flaky_counts"]) == ("flaky", False)
    pair = written["kinds"]["test"]["flaky"]
    assert (pair["passed"]["id"], pair["failed"]["id"]) == (passed_id, failed_id)
    # Not verified: the done-check counts the failure of the pair.
    assert status.counted_receipts()["test"].id == failed_id
    assert decide(status).verdict != "verified"


async def test_the_project_can_let_a_flaky_pass_count(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo, status="failed", exit_code=1)
        passed_id = await record_pass(ledger, repo)
        facts = replace(facts_for(repo), flaky="pass-counts")
        status = await root_status(ledger, str(repo), facts)
    assert (status.status, status.flaky_counts) == ("flaky", True)
    assert status.counted_receipts()["test"].id == passed_id
    assert decide(status).verdict == "verified"


async def test_a_targeted_failure_or_another_command_does_not_make_a_full_pass_flaky(repo: Path) -> None:
    async with await Ledger.open() as ledger:
        await record_pass(ledger, repo, status="failed", exit_code=1, scope="targeted")
        await record_pass(ledger, repo, status="failed", exit_code=1, canonical_command="tox")
        await record_pass(ledger, repo)
        status = await root_status(ledger, str(repo), facts_for(repo))
    assert status.status == "passed" and status.kinds["test"].flaky is None


def test_a_repository_without_shared_notes_reads_no_anchors_or_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from freshpass.evidence.status import Status, with_shared_receipts
    from freshpass.ledger import anchors, notes
    from freshpass.ledger.shared import SharedOptions

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    current = snapshot(repo)
    read: list[str] = []
    real_anchors, real_shared = anchors.anchors_for, notes.shared_for
    monkeypatch.setattr(anchors, "anchors_for", lambda *a: read.append("anchors") or real_anchors(*a))
    monkeypatch.setattr(notes, "shared_for", lambda *a: read.append("notes") or real_shared(*a))
    status = Status(str(repo))
    assert asyncio.run(with_shared_receipts(status, current, SharedOptions())).shared == ()
    assert read == []
    # once the ref exists, both are read
    (repo / ".git" / "refs" / "notes").mkdir(parents=True)
    (repo / ".git" / "refs" / "notes" / "freshpass").write_text("0" * 40 + "\n")
    asyncio.run(with_shared_receipts(status, current, SharedOptions()))
    assert read == ["anchors", "notes"]
