"""A repository's own git configuration never executes anything.

A folder that arrives with its `.git/config` (an archive, a shared directory — what Restricted Mode is for) sets
`core.fsmonitor` and a `filter.x.clean` driver named in `.gitattributes`, each touching a marker file. The server
with `trusted: false` ran them on initialize and on every save (40 executions in one session); `status` and `log`
ran them too. freshpass now runs git against a private git directory (freshpass.ledger.git), so the marker never
appears — in the server (initialize, saves, agents' checkDone), and in the CLI (`status`, `log`, `run`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.adversarial.conftest import Session, finish, freshpass, project
from tests.conftest import git


def hostile_repository(path: Path, marker: Path, *, attributes: bool = True) -> Path:
    """A repository whose config runs programs; with `attributes`, `.gitattributes` names the filter for its files."""
    root = project(path)
    (root / "data.bin").write_text("payload\n")
    if attributes:
        (root / ".gitattributes").write_text("*.bin filter=x\n*.py filter=x\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "data")
    git(root, "config", "core.fsmonitor", f"touch {marker}-fsmonitor; false")
    git(root, "config", "filter.x.clean", f"touch {marker}-filter; cat")
    git(root, "config", "filter.x.smudge", "cat")
    return root


def ran(marker: Path) -> list[str]:
    return sorted(path.name for path in marker.parent.glob(f"{marker.name}-*"))


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "executed"


def test_the_configuration_does_run_programs_in_plain_git(tmp_path: Path, marker: Path) -> None:
    """The premise: this repository really does make git execute programs."""
    root = hostile_repository(tmp_path / "archive", marker)
    (root / "data.bin").write_text("changed\n")
    subprocess.run(["git", "-C", str(root), "status", "--porcelain"], check=True, capture_output=True)
    assert ran(marker) == ["executed-filter", "executed-fsmonitor"]


def test_status_log_and_run_execute_nothing(tmp_path: Path, marker: Path) -> None:
    root = hostile_repository(tmp_path / "archive", marker)
    code, _, stderr = finish(freshpass("run", "--", "python -m pytest -q -p no:cacheprovider", cwd=root), 60)
    assert code == 0, stderr
    (root / "data.bin").write_text("changed\n")
    (root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert 1\n")
    code, stdout, stderr = finish(freshpass("status", cwd=root), 60)
    assert code == 1 and b"stale" in stdout, stderr
    assert b"data.bin" in stdout and b"tests/test_ok.py" in stdout
    code, stdout, stderr = finish(freshpass("log", "--json", cwd=root), 60)
    assert code == 0, stderr
    assert ran(marker) == []


async def test_untrusted_server_executes_nothing_on_initialize_and_saves(
    lsp: Session, tmp_path: Path, marker: Path
) -> None:
    """Untrusted, the content id is git's tree id computed in Python: the saves flip the status with no process."""
    root = hostile_repository(tmp_path / "archive", marker, attributes=False)
    code, _, stderr = finish(freshpass("run", "--", "python -m pytest -q -p no:cacheprovider", cwd=root), 60)
    assert code == 0, stderr
    await lsp.initialize(root, options={"trusted": False})
    assert (await lsp.status(root))["status"] == "passed"
    source = root / "tests" / "test_ok.py"
    original = source.read_text()
    lsp.open(source)
    for round_ in range(5):  # every save is a content snapshot; each flips the status, so each is waited for
        for text, expected in ((original + f"# edit {round_}\n", "stale"), (original, "passed")):
            seen = len(lsp.status_changes)
            source.write_text(text)
            lsp.save(source)
            await lsp.until(
                lambda seen=seen, expected=expected: (
                    len(lsp.status_changes) > seen and lsp.status_changes[-1]["status"] == expected
                ),
                method="freshpass/statusChanged",
            )
    # Agents' checkDone reads git's view of uncommitted changes too.
    (root / "data.bin").write_text("changed by the agent\n")
    decision = await lsp.client.protocol.send_request_async("freshpass/checkDone", {"root": str(root)})
    assert decision is not None
    assert ran(marker) == []


async def test_untrusted_server_with_a_filter_named_in_the_attributes_checks_nothing_and_runs_nothing(
    lsp: Session, tmp_path: Path, marker: Path
) -> None:
    """A filter git would run decides the blobs, so no id computed without git can be exact: freshness is not checked
    (`unchecked`, accusing nothing), and still nothing runs."""
    root = hostile_repository(tmp_path / "archive", marker)
    code, _, stderr = finish(freshpass("run", "--", "python -m pytest -q -p no:cacheprovider", cwd=root), 60)
    assert code == 0, stderr
    await lsp.initialize(root, options={"trusted": False})
    assert (await lsp.status(root))["status"] == "unchecked"
    (root / "data.bin").write_text("changed by the agent\n")
    decision = await lsp.client.protocol.send_request_async("freshpass/checkDone", {"root": str(root)})
    assert decision is not None and decision.verdict != "verified"
    assert ran(marker) == []


async def test_checkdone_without_any_pass_executes_nothing(lsp: Session, tmp_path: Path, marker: Path) -> None:
    """With no qualifying pass ever, checkDone asks git for the uncommitted changes (`git status`)."""
    root = hostile_repository(tmp_path / "archive", marker)
    await lsp.initialize(root, options={"trusted": False})
    (root / "data.bin").write_text("changed by the agent\n")
    decision = await lsp.client.protocol.send_request_async("freshpass/checkDone", {"root": str(root)})
    assert decision is not None
    assert ran(marker) == []
