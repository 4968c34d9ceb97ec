"""Choosing the test command once, in a real VS Code (code-server): a project whose test check rests on CI alone
asks at the first ▶ Run "Which command runs this project's full tests?"; the pick writes `.freshpass.toml` and that
run, and the next, run the chosen command."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.unit.test_choose import WORKFLOW
from tests.vscode.harness import CodeServer, wait_until
from tests.vscode.workbench import SLOW, Workbench, new_workbench

pytestmark = [pytest.mark.e2e, pytest.mark.vscode]

CHOSEN = "python -m unittest discover -s tests"


@pytest.fixture
def workbench(browser: Any, code_server: CodeServer) -> Iterator[Workbench]:
    context, bench = new_workbench(browser, code_server)
    try:
        yield bench
    finally:
        context.close()


def ci_only_project(parent: Path, env: dict[str, str]) -> Path:
    """Two CI jobs run tests, nothing local declares them: the test check is a guess from CI."""
    project = parent / "ci-only"
    (project / ".github" / "workflows").mkdir(parents=True)
    (project / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (project / "tests").mkdir()
    (project / "tests" / "__init__.py").write_text("")
    (project / "tests" / "test_calc.py").write_text(
        "import unittest\n\nfrom calc import add\n\n\nclass Add(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n"
    )
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / ".gitignore").write_text("__pycache__/\n")
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "init"]):
        subprocess.run(argv, cwd=project, env=env, check=True, capture_output=True, timeout=30)
    return project


def receipts(code_server: CodeServer, project: Path) -> list[dict[str, Any]]:
    result = code_server.freshpass("log", "--json", str(project), cwd=project)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    return list(payload["receipts"] if isinstance(payload, dict) else payload)


@pytest.mark.timeout(420)
def test_the_first_run_asks_once_and_runs_the_chosen_command(
    workbench: Workbench, code_server: CodeServer, tmp_path: Path
) -> None:
    project = ci_only_project(tmp_path, code_server.env)
    workbench.open_folder(project, trust=True)
    workbench.open_file("calc.py")
    status = workbench.status_item()
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)

    workbench.lens("▶ Run python -m pytest -q tests").click()
    widget = workbench.page.locator(".quick-input-widget")
    expect(widget.locator(".quick-input-title")).to_have_text(
        "Which command runs this project's full tests?", timeout=SLOW
    )
    rows = widget.locator(".quick-input-list .monaco-list-row")
    expect(rows.filter(has_text="python -m pytest -q tests").first).to_contain_text("a CI step", timeout=SLOW)
    expect(rows.filter(has_text=".github/workflows/ci.yml#jobs.unittest.steps[0]")).to_have_count(1)
    workbench.screenshot("choose-test-command")
    rows.filter(has_text=CHOSEN).first.click()

    config = project / ".freshpass.toml"
    wait_until(config.exists, timeout=SLOW / 1000)
    assert f'command = "{CHOSEN}"' in config.read_text()
    expect(status).to_have_text("✓ full", timeout=SLOW)
    assert [(r["command"], r["scope"], r["status"]) for r in receipts(code_server, project)] == [
        (CHOSEN, "full", "passed")
    ]

    # Settled: the lens names the chosen command, and the next run neither asks nor runs anything else.
    (project / "calc.py").write_text("def add(a, b):\n    return a + b  # edited\n")
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)
    workbench.lens(f"▶ Run {CHOSEN}").click()
    expect(status).to_have_text("✓ full", timeout=SLOW)
    expect(widget).to_be_hidden()  # not asked again
    assert [r["command"] for r in receipts(code_server, project)] == [CHOSEN, CHOSEN]
