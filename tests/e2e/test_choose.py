"""Choosing the test check once, over the protocol: `freshpass/candidates` says whether to ask and lists what to
choose from, `freshpass.choose` writes the choice, and the next ▶ Run (`freshpass.verify`) runs the chosen command."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.conftest import Session, git
from tests.unit.test_choose import ci_only_project

pytestmark = pytest.mark.e2e

CHOSEN = "python -m unittest discover -s tests"


def project_resting_on_ci(tmp_path: Path) -> Path:
    project = ci_only_project(tmp_path / "project")
    (project / "tests" / "test_a.py").write_text(
        "import unittest\n\n\nclass A(unittest.TestCase):\n    def test_a(self):\n        pass\n"
    )
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "tests, CI")
    return project


async def candidates(lsp: Session, project: Path, kind: str = "test") -> dict:
    from tests.e2e.conftest import as_json

    result = await lsp.client.protocol.send_request_async("freshpass/candidates", {"root": str(project), "kind": kind})
    return as_json(result)


async def test_the_chosen_command_is_written_and_the_next_run_runs_it(lsp: Session, tmp_path: Path) -> None:
    project = project_resting_on_ci(tmp_path)
    await lsp.initialize(project)
    asked = await candidates(lsp, project)
    assert asked["needs_choice"] is True
    assert [(c["command"], c["basis"], c["primary"]) for c in asked["candidates"]] == [
        ("python -m pytest -q tests", "ci", True),
        (CHOSEN, "ci", False),
    ]
    assert asked["candidates"][1]["source"] == ".github/workflows/ci.yml#jobs.unittest.steps[0]"

    answer = await lsp.execute("freshpass.choose", {"root": str(project), "kind": "test", "command": CHOSEN})
    assert answer["choice"]["file"] == ".freshpass.toml" and answer["choice"]["command"] == CHOSEN
    first = answer["status"]["verify_commands"][0]
    assert (first["command"], first["basis"]) == (CHOSEN, "configured")
    assert (project / ".freshpass.toml").read_text().count(CHOSEN) == 1
    assert (await candidates(lsp, project))["needs_choice"] is False  # asked once: now it is configured

    # ▶ Run and the status item send {root} (or the lens's command): the chosen check runs.
    ran = await lsp.execute("freshpass.verify", {"root": str(project), "kind": "test"})
    assert ran["evidence"]["command"] == CHOSEN and ran["evidence"]["status"] == "passed"
    assert ran["status"]["kinds"]["test"]["evidence"]["command"] == CHOSEN


async def test_a_choice_that_is_not_one_simple_command_is_refused_and_changes_nothing(
    lsp: Session, tmp_path: Path
) -> None:
    project = project_resting_on_ci(tmp_path)
    await lsp.initialize(project)
    with pytest.raises(JsonRpcException, match="is not one simple command"):
        await lsp.execute("freshpass.choose", {"root": str(project), "kind": "test", "command": "pytest; rm -rf /"})
    assert not (project / ".freshpass.toml").exists()
    with pytest.raises(JsonRpcException, match="kind must be one of"):
        await lsp.execute("freshpass.choose", {"root": str(project), "kind": "tests", "command": "pytest"})
    status = await lsp.status(project)
    assert status["verify_commands"][0]["basis"] == "ci"
    assert not [m for m in lsp.client.log_messages if m.type == types.MessageType.Error]
