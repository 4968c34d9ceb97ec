"""The Claude Code plugin in editor-clients/claude-code, run the way Claude Code runs it (docs/agents.md).

Claude Code 2.1.332 starts a plugin's hook command through the shell (`/bin/sh -c COMMAND`), in the project
directory, with `CLAUDE_PROJECT_DIR` and `CLAUDE_PLUGIN_ROOT` set and the hook's input JSON on stdin; a command
hook's stdout JSON is its decision. A plugin's `.mcp.json` server is started with its `command` and `args`. Here the
plugin's own files say what runs, for which event and tool; the payloads are Claude Code's (test_agent_hooks.py
builds them after a real shell run). That Claude Code itself accepts and installs the plugin is proved by
tests/agents/test_claude_code.py, with Claude Code.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import REPO, make_calc_project, run_cli
from tests.e2e.test_agent_hooks import break_the_code, change_the_code, claude_code_reports, edit, receipts
from tests.snippets import json_snippet

pytestmark = pytest.mark.e2e

PLUGIN = REPO / "editor-clients" / "claude-code"
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
VENV_BIN = str(Path(sys.executable).parent)
SESSION = "5c1e0d2a-claude-session"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_calc_project(tmp_path / "project")


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def hooks_for(event: str, tool: str | None = None) -> list[dict[str, Any]]:
    """The plugin's command hooks Claude Code runs for `event` (for a tool event: those whose matcher matches)."""
    found = []
    for group in load(PLUGIN / "hooks" / "hooks.json")["hooks"].get(event, []):
        matcher = group.get("matcher")
        if tool is not None and matcher not in (None, "", "*") and not re.fullmatch(matcher, tool):
            continue
        found.extend(hook for hook in group["hooks"] if hook["type"] == "command")
    return found


def run_hooks(event: str, payload: dict[str, Any], project: Path, tool: str | None = None) -> list[str]:
    """Run the plugin's hooks for one event as Claude Code does; returns each hook's stdout."""
    hooks = hooks_for(event, tool)
    assert hooks, f"the plugin has no {event} hook for {tool or 'any tool'}"
    env = {
        **os.environ,
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # freshpass on PATH, as the README asks
        "CLAUDE_PROJECT_DIR": str(project),
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
    }
    outputs = []
    for hook in hooks:
        done = subprocess.run(
            ["/bin/sh", "-c", hook["command"]],
            cwd=project,
            env=env,
            input=json.dumps({**payload, "hook_event_name": event}),
            capture_output=True,
            text=True,
            timeout=hook.get("timeout", 600),
        )
        assert done.returncode == 0, done.stderr  # exit 2 would block, any other code is a hook error
        outputs.append(done.stdout)
    return outputs


def stop(project: Path, message: str) -> list[str]:
    payload = {
        "session_id": SESSION,
        "transcript_path": str(project.parent / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": message,
    }
    return run_hooks("Stop", payload, project)


def bash_ran(project: Path, command: str) -> None:
    """Claude's Bash tool ran `command`; Claude Code then runs PostToolUse or PostToolUseFailure hooks for `Bash`."""

    def pre(started: dict[str, Any]) -> None:
        assert run_hooks(started.pop("hook_event_name"), started, project, tool="Bash") == [""]

    payload = claude_code_reports(project, command, pre=pre)
    run_hooks(payload.pop("hook_event_name"), payload, project, tool="Bash")


def test_the_plugin_is_hooks_and_mcp_and_claims_no_file_extension() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "freshpass" and re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    # Claude Code lets one language server handle an extension: the plugin must not bring one.
    assert not (PLUGIN / ".lsp.json").exists()
    assert "lspServers" not in manifest
    assert load(PLUGIN / ".mcp.json") == {"mcpServers": {"freshpass": {"command": "freshpass", "args": ["mcp"]}}}

    hooks = load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert set(hooks) == {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop"}
    assert [h["command"] for h in hooks_for("PreToolUse", "Bash")] == ["freshpass hook pre"]
    assert [h["command"] for h in hooks_for("PostToolUse", "Bash")] == ["freshpass hook record"]
    assert [h["command"] for h in hooks_for("PostToolUseFailure", "Bash")] == ["freshpass hook record"]
    assert hooks_for("PostToolUse", "Edit") == []  # only shell runs are reports of checks
    assert [h["command"] for h in hooks_for("Stop")] == ["freshpass hook claude-stop"]
    assert [h["command"] for h in hooks_for("SubagentStop")] == ["freshpass hook claude-stop"]

    # The marketplace at the repository's root offers this directory; the settings snippet of docs/agents.md is
    # the same hooks for people who do not install plugins.
    [entry] = load(MARKETPLACE)["plugins"]
    assert (entry["name"], (REPO / entry["source"]).resolve()) == ("freshpass", PLUGIN.resolve())
    assert json_snippet("claude-settings.json")["hooks"] == hooks


def test_the_plugins_hooks_record_claudes_own_runs_and_gate_its_stop(repo: Path) -> None:
    # Claude edited code and tries to stop: blocked, told what to run.
    change_the_code(repo)
    [blocked] = stop(repo, "Done.")
    decision = json.loads(blocked)
    assert decision["decision"] == "block"
    assert "`freshpass run -- pytest`" in decision["reason"]

    # It runs the tests its own way; they fail: PostToolUseFailure records a failed receipt.
    break_the_code(repo)
    bash_ran(repo, "pytest -q")
    assert [(r["command"], r["status"], r["actor"]) for r in receipts(repo)] == [("pytest -q", "failed", "agent")]
    assert json.loads(stop(repo, "All tests pass.")[0])["decision"] == "block"

    # It fixes the code and runs them again: PostToolUse records a full pass, and the stop goes through.
    edit(repo / "src" / "calc.py", "def add(a, b):\n    return a + b\n")
    bash_ran(repo, "pytest -q")
    newest = receipts(repo)[0]
    assert (newest["status"], newest["scope"], newest["session"]) == ("passed", "full", SESSION)
    assert newest["details"]["via"] == "claude-code PostToolUse"
    assert (newest["observed"], newest["details"]["content_bound"]) == ("reported", "start")  # the pair kept it
    assert stop(repo, "All tests pass.") == [""]
    status = run_cli("status", "--json", str(repo))
    assert json.loads(status.stdout)["status"] == "passed"


async def test_the_plugins_mcp_server_is_freshpass_mcp(repo: Path) -> None:
    [(name, server)] = load(PLUGIN / ".mcp.json")["mcpServers"].items()
    program = shutil.which(server["command"], path=VENV_BIN)
    assert program is not None
    params = StdioServerParameters(
        command=program, args=server["args"], cwd=repo, env={**os.environ, "CLAUDE_PROJECT_DIR": str(repo)}
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        init = await client.initialize()
        assert (name, init.server_info.name) == ("freshpass", "freshpass")
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools == {"status", "check_done", "run", "receipts"}
        answer = await client.call_tool("status", {})
        assert not answer.is_error and answer.structured_content is not None
        assert answer.structured_content["root"] == str(repo)
