"""The OpenCode plugin (editor-clients/opencode/freshpass.js) turns the agent's own shell runs into receipts.

The plugin file is loaded and called as OpenCode 1.18.33 loads a local plugin (opencode_plugin_host.mjs says how),
by Node here and by OpenCode's own runtime in tests/agents/test_opencode.py; the command really runs in a real
repository first, and its output and exit code reach the plugin as OpenCode's bash tool reports them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, make_calc_project
from tests.e2e.test_agent_hooks import bash, break_the_code, receipts

pytestmark = pytest.mark.e2e

PLUGIN = REPO / "editor-clients" / "opencode" / "freshpass.js"
HOST = Path(__file__).with_name("opencode_plugin_host.mjs")
VENV_BIN = str(Path(sys.executable).parent)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_calc_project(tmp_path / "project")


def opencode_bash(
    runtime: Sequence[str], repo: Path, command: str, *, aborted: bool = False, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """OpenCode's bash tool ran `command` in `repo` (`aborted`: the call was aborted or timed out, so its exit is
    null); the plugin's hooks see it."""
    code, stdout, stderr, _duration = bash(repo, command)
    call = {
        "directory": str(repo),
        "sessionID": "ses_4f2a9c",
        "callID": "call_1",
        "args": {"command": command, "description": "Run the tests"},
        "output": stdout + stderr,
        "exit": None if aborted else code,
    }
    done = subprocess.run(
        [*runtime, str(HOST), str(PLUGIN)],
        input=json.dumps(call),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def node() -> list[str]:
    program = shutil.which("node")
    if program is None:
        if os.environ.get("CI"):
            pytest.fail("needs Node.js (scripts/setup-editors requires it)")
        pytest.skip("needs Node.js")
    return [program]


def check_the_plugin_records_bash_runs_of_checks(
    runtime: Sequence[str], repo: Path, env: dict[str, str] | None = None
) -> None:
    # A passing `pytest -q`: a full receipt, the agent's own session and `via`.
    assert opencode_bash(runtime, repo, "pytest -q", env=env) == {"plugins": 1}
    [passed] = receipts(repo)
    assert (passed["command"], passed["status"], passed["scope"]) == ("pytest -q", "passed", "full")
    assert (passed["actor"], passed["session"]) == ("agent", "opencode:ses_4f2a9c")
    assert passed["details"]["via"] == "opencode shell"

    # Not a check: nothing.
    opencode_bash(runtime, repo, "ls -la", env=env)
    assert len(receipts(repo)) == 1

    # A failing run: failed, with its exit code.
    break_the_code(repo)
    opencode_bash(runtime, repo, "pytest -q", env=env)
    failed = receipts(repo)[0]
    assert (failed["status"], failed["exit_code"]) == ("failed", 1)

    # An aborted or timed-out call (exit null): nothing.
    opencode_bash(runtime, repo, "pytest -q", aborted=True, env=env)
    assert len(receipts(repo)) == 2


def test_the_plugin_records_bash_runs_of_checks(repo: Path) -> None:
    check_the_plugin_records_bash_runs_of_checks(node(), repo)


def test_without_freshpass_on_path_the_tool_call_still_succeeds(repo: Path) -> None:
    empty = repo.parent / "empty-bin"
    empty.mkdir()
    runtime = node()
    assert opencode_bash(runtime, repo, "pytest -q", env={"PATH": str(empty)}) == {"plugins": 1}
