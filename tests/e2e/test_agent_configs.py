"""The hook files of docs/agents.md, read verbatim and run the way each agent runs its hooks.

- **Codex** (codex-rs/hooks/src/engine/command_runner.rs): a command hook runs as `$SHELL -lc COMMAND` in the
  session's directory, the input JSON on stdin; for Stop, stdout JSON is the decision (its output schema allows
  `continue`, `decision`, `reason`, `stopReason`, `suppressOutput`, `systemMessage`; a block needs a reason). A
  login shell reads the user's profile, so `freshpass` must be on the PATH the profile sets, as a user's is.
- **Cursor** (closed source; the shapes come from third-party references, docs/agents.md says which): a hook command
  runs through the shell in the project root with the input JSON on stdin; the `stop` hook's stdout JSON may carry
  `followup_message`, and `loop_limit` caps how many follow-ups it sends.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_calc_project, run_cli
from tests.e2e.test_agent_hooks import bash, break_the_code, change_the_code, codex_reports, receipts
from tests.snippets import json_snippet

pytestmark = pytest.mark.e2e

VENV_BIN = str(Path(sys.executable).parent)
CODEX_STOP_OUTPUT = {"continue", "decision", "reason", "stopReason", "suppressOutput", "systemMessage"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_calc_project(tmp_path / "project")


def user_home(tmp_path: Path) -> dict[str, str]:
    """A user whose login profile puts freshpass on PATH (Debian's /etc/profile resets PATH for login shells)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".profile").write_text(f'export PATH="{VENV_BIN}:$PATH"\n')
    return {"HOME": str(home), "SHELL": "/bin/bash"}


def matching(groups: list[dict[str, Any]], tool: str | None) -> list[dict[str, Any]]:
    found = []
    for group in groups:
        matcher = group.get("matcher")
        if tool is None or matcher in (None, "", "*") or re.fullmatch(matcher, tool):
            found.extend(group["hooks"])
    return found


def codex_hook(repo: Path, home: dict[str, str], event: str, payload: dict[str, Any], tool: str | None = None) -> str:
    """Run the snippet's command hooks for `event` as Codex does; returns their stdout."""
    hooks = matching(json_snippet("codex-hooks.json")["hooks"][event], tool)
    assert [hook["type"] for hook in hooks] == ["command"]
    env = {**os.environ, **home}
    done = subprocess.run(
        [env["SHELL"], "-lc", hooks[0]["command"]],
        cwd=repo,
        env=env,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=hooks[0]["timeout"],
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def codex_stop(repo: Path, home: dict[str, str], message: str) -> str:
    payload = {"session_id": "0199a7c2-codex-thread", "turn_id": "turn-4", "transcript_path": None, "cwd": str(repo),
               "hook_event_name": "Stop", "model": "gpt-5-codex", "permission_mode": "default",
               "stop_hook_active": False, "last_assistant_message": message}  # fmt: skip
    return codex_hook(repo, home, "Stop", payload)


def test_codex_hooks_snippet_runs_as_codex_runs_it(repo: Path, tmp_path: Path) -> None:
    home = user_home(tmp_path)
    change_the_code(repo)
    decision = json.loads(codex_stop(repo, home, "Done: all tests pass."))
    assert set(decision) <= CODEX_STOP_OUTPUT and decision["decision"] == "block" and decision["reason"].strip()
    assert "You wrote “Done: all tests pass.”, but no fresh passing full test run backs it." in decision["reason"]
    assert "`freshpass run -- pytest`" in decision["reason"]

    # Codex's PostToolUse for its shell tool: the output only, so a run is recorded when it states failing tests.
    break_the_code(repo)
    payload = codex_reports(repo, "pytest -q", pre=lambda call: codex_hook(repo, home, "PreToolUse", call, tool="Bash"))
    assert codex_hook(repo, home, "PostToolUse", payload, tool="Bash") == ""
    assert [(r["status"], r["details"]["via"]) for r in receipts(repo)] == [("failed", "codex PostToolUse")]
    assert matching(json_snippet("codex-hooks.json")["hooks"]["PostToolUse"], "apply_patch") == []

    # The agent runs the check through freshpass; the next stop goes through silently.
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    tool_path = {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert run_cli("run", "--", "pytest", cwd=repo, env=tool_path).returncode == 0
    assert codex_stop(repo, home, "All tests pass.") == ""


def cursor_hook(repo: Path, event: str, payload: dict[str, Any]) -> tuple[dict[str, Any], str]:
    [hook] = json_snippet("cursor-hooks.json")["hooks"][event]
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["/bin/sh", "-c", hook["command"]],
        cwd=repo,
        env=env,
        input=json.dumps({**payload, "hook_event_name": event}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return hook, done.stdout


def test_cursor_hooks_snippet_runs_as_cursor_runs_it(repo: Path) -> None:
    assert json_snippet("cursor-hooks.json")["version"] == 1
    common = {"conversation_id": "conv-7", "generation_id": "gen-1", "workspace_roots": [str(repo)]}
    change_the_code(repo)

    # Cursor sends follow-ups while the hook answers one, at most `loop_limit` of them; freshpass's budget is 2.
    hook, first = cursor_hook(repo, "stop", {**common, "status": "completed", "loop_count": 0})
    assert "`freshpass run -- pytest`" in json.loads(first)["followup_message"]
    answers = [first]
    for loop_count in range(1, hook["loop_limit"] + 1):
        answers.append(cursor_hook(repo, "stop", {**common, "status": "completed", "loop_count": loop_count})[1])
    assert ["followup_message" in json.loads(answer) for answer in answers] == [True, True, False]

    # afterShellExecution carries no exit code: a run whose output states failing tests is recorded as failed.
    break_the_code(repo)
    _code, stdout, _stderr, duration = bash(repo, "pytest -q")
    shell = {**common, "command": "pytest -q", "cwd": str(repo), "output": stdout, "duration": duration}
    cursor_hook(repo, "afterShellExecution", shell)
    assert [(r["status"], r["session"]) for r in receipts(repo)] == [("failed", "cursor:conv-7")]
