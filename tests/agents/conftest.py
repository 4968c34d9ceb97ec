"""The agents themselves, pinned releases installed by scripts/setup-agents into .cache/agents.

OpenCode (MIT) is installed by `scripts/test`, so CI fails when it is missing; Claude Code only when asked
(`FRESHPASS_WITH_CLAUDE_CODE=1`, its licence is Anthropic's), so its test skips without it. Each agent runs with a
private HOME and XDG directories, with updates, telemetry and downloads turned off: nothing reaches the network or
the developer's own configuration.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO

AGENTS = REPO / ".cache" / "agents"
OPENCODE = AGENTS / "opencode" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
CLAUDE_CODE = AGENTS / "claude-code" / "node_modules" / "@anthropic-ai" / "claude-code-linux-x64" / "claude"


def private_home(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


@pytest.fixture
def opencode(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The OpenCode binary and the environment it runs in."""
    if not OPENCODE.is_file():
        reason = "needs OpenCode 1.18.33: run scripts/setup-agents"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    env = {
        **private_home(tmp_path / "opencode-home"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",  # the built-in servers that `lsp` switches on are not fetched
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_CLAUDE_CODE": "1",  # it would read ~/.claude
    }
    return OPENCODE, env


@pytest.fixture
def claude_code(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The Claude Code binary and the environment it runs in."""
    if not CLAUDE_CODE.is_file():
        pytest.skip("needs Claude Code 2.1.332: FRESHPASS_WITH_CLAUDE_CODE=1 scripts/setup-agents")
    env = {
        **private_home(tmp_path / "claude-home"),
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    return CLAUDE_CODE, env
