"""Claude Code 2.1.332 itself checks and installs the plugin in editor-clients/claude-code, as its docs tell a user
to: from this repository's marketplace (.claude-plugin/marketplace.json). What the plugin's hooks and MCP server then
do is tests/e2e/test_claude_code_plugin.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.e2e

PLUGIN = REPO / "editor-clients" / "claude-code"


def claude(claude_code: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    binary, env = claude_code
    return subprocess.run(
        [str(binary), *args],
        cwd=REPO,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def validated(claude_code: tuple[Path, dict[str, str]], path: Path) -> dict[str, Any]:
    done = claude(claude_code, "plugin", "validate", "--strict", "--json", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    report = dict(json.loads(done.stdout))
    assert report["success"] is True
    assert (report["manifest"]["errors"], report["manifest"]["warnings"]) == ([], [])
    return report


def test_claude_code_validates_and_installs_the_plugin(claude_code: tuple[Path, dict[str, str]]) -> None:
    report = validated(claude_code, PLUGIN)
    provides = report["provides"]
    assert [(h["event"], h.get("matcher"), h["command"]) for h in provides["hooks"]] == [
        ("PostToolUse", "Bash", "freshpass hook record"),
        ("PostToolUseFailure", "Bash", "freshpass hook record"),
        ("Stop", None, "freshpass hook claude-stop"),
        ("SubagentStop", None, "freshpass hook claude-stop"),
    ]
    assert [(s["name"], s["type"], s["target"], s["args"]) for s in provides["mcpServers"]] == [
        ("freshpass", "stdio", "freshpass", ["mcp"])
    ]
    assert provides["lspServers"] == []  # no claim on any file extension
    assert validated(claude_code, REPO)["manifest"]["type"] == "marketplace"

    added = claude(claude_code, "plugin", "marketplace", "add", str(REPO))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude(claude_code, "plugin", "install", "freshpass@freshpass")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    details = claude(claude_code, "plugin", "details", "freshpass@freshpass")
    assert details.returncode == 0, details.stdout + details.stderr
    inventory = details.stdout
    assert "Hooks (4)  PostToolUse, PostToolUseFailure, Stop, SubagentStop" in inventory
    assert "MCP servers (1)  freshpass" in inventory
    assert "LSP servers (0)" in inventory
