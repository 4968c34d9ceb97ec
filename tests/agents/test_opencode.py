"""OpenCode 1.18.33 itself, with the set-up of docs/agents.md verbatim.

`opencode debug lsp diagnostics FILE` is OpenCode's own path from a file to what its model is shown: it reads the
project's opencode.json, starts the configured language servers for the file's extension with their
`initialization`, touches the file (didChangeWatchedFiles, didOpen) and waits for their diagnostics, as its read and
edit tools do. The model is then shown the Error ones (severity 1). The plugin is loaded by OpenCode's own Bun
runtime (the binary acts as `bun` when BUN_BE_BUN=1) the way OpenCode loads a local plugin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, make_calc_project, run_cli
from tests.e2e.test_opencode_plugin import check_the_plugin_records_bash_runs_of_checks
from tests.snippets import snippet

pytestmark = pytest.mark.e2e

VENV_BIN = str(Path(sys.executable).parent)
TOOL_PATH = {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The calc project with the documented opencode.json committed, as a team would share it."""
    repo = make_calc_project(tmp_path / "project")
    (repo / "opencode.json").write_text(snippet("opencode.json") + "\n")
    git(repo, "add", "opencode.json")
    git(repo, "commit", "-qm", "opencode")
    return repo


def diagnostics(opencode: tuple[Path, dict[str, str]], repo: Path, relative: str) -> list[dict[str, Any]]:
    """What OpenCode collects for `relative` from every language server it started for it."""
    binary, env = opencode
    done = subprocess.run(
        [str(binary), "debug", "lsp", "diagnostics", relative],
        cwd=repo,
        env={**os.environ, **TOOL_PATH, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    collected = json.loads(done.stdout)
    return list(collected.get(str(repo / relative), []))


def shown_to_the_model(found: list[dict[str, Any]]) -> list[str]:
    """OpenCode shows the model only Error diagnostics (severity 1), as `ERROR [line:col] message`."""
    return [
        f"ERROR [{d['range']['start']['line'] + 1}:{d['range']['start']['character'] + 1}] {d['message']}"
        for d in found
        if d.get("severity", 1) == 1
    ]


def test_opencode_shows_its_model_the_nudge_with_the_documented_config(
    opencode: tuple[Path, dict[str, str]], repo: Path
) -> None:
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")  # what its edit tool writes
    [nudge] = shown_to_the_model(diagnostics(opencode, repo, "src/calc.py"))
    assert nudge.startswith("ERROR [1:1] `src/calc.py` is not covered by any receipt")
    assert "Run `freshpass run -- pytest`" in nudge

    assert run_cli("run", "--", "pytest", cwd=repo, env=TOOL_PATH).returncode == 0
    assert shown_to_the_model(diagnostics(opencode, repo, "src/calc.py")) == []


def test_opencode_loads_the_plugin_and_its_bash_runs_become_receipts(
    opencode: tuple[Path, dict[str, str]], repo: Path
) -> None:
    binary, env = opencode
    check_the_plugin_records_bash_runs_of_checks([str(binary)], repo, env={**env, "BUN_BE_BUN": "1"})
