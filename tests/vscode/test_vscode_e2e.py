"""The freshpass extension in a real VS Code (code-server 4.96.4) driven by headless Chromium.

One code-server and one Chromium serve the whole module (the machine has 2 cores); each test opens its own
fixture project in a fresh browser context, so each has its own extension host and language server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.vscode.harness import CodeServer, command_line, marked_processes, wait_until
from tests.vscode.workbench import SLOW, Workbench, make_project, new_workbench

pytestmark = [pytest.mark.e2e, pytest.mark.vscode]


@pytest.fixture
def workbench(browser: Any, code_server: CodeServer) -> Iterator[Workbench]:
    context, bench = new_workbench(browser, code_server)
    try:
        yield bench
    finally:
        context.close()


def receipts(code_server: CodeServer, project: Path) -> list[dict[str, Any]]:
    result = code_server.freshpass("log", "--json", str(project), cwd=project)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    return list(payload["receipts"] if isinstance(payload, dict) else payload)


def test_extension_starts_the_configured_server(workbench: Workbench, code_server: CodeServer, tmp_path: Path) -> None:
    project = make_project(tmp_path, "activation", code_server.env)
    workbench.open_folder(project, trust=True)
    workbench.open_file("calc.py")
    assert wait_until(code_server.language_servers, 30), code_server.extension_logs()
    expect(workbench.status_item()).to_have_text("⚠ unverified", timeout=SLOW)
    expect(workbench.lens(re.compile(r"^⚠ unverified · no receipt yet"))).to_be_visible(timeout=SLOW)
    expect(workbench.lens("▶ Run pytest -q")).to_be_visible()

    # freshpass.restart: this window's server is replaced (other windows' servers are left alone).
    before = set(code_server.language_servers())
    workbench.run_command("freshpass: Restart the language server")
    assert wait_until(lambda: set(code_server.language_servers()) - before, 30), code_server.extension_logs()
    assert wait_until(lambda: len(before - set(code_server.language_servers())) == 1, 30)
    expect(workbench.status_item()).to_have_text("⚠ unverified", timeout=SLOW)


@pytest.mark.timeout(420)
def test_statuses_follow_edits_lens_runs_targeted_runs_and_the_terminal(
    workbench: Workbench, code_server: CodeServer, tmp_path: Path
) -> None:
    project = make_project(tmp_path, "calc", code_server.env)
    workbench.open_folder(project, trust=True)
    workbench.open_file("calc.py")
    status = workbench.status_item()
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)

    # An edit saved from the editor: the file gets the stale diagnostic (squiggle and Problems entry).
    workbench.append_line_and_save("# edited in VS Code")
    expect(workbench.page.locator(".monaco-editor .squiggly-warning").first).to_be_visible(timeout=SLOW)
    expect(workbench.lens(re.compile(r"^⚠ unverified · "))).to_be_visible(timeout=SLOW)
    workbench.page.keyboard.press("Control+Shift+M")
    problem = workbench.page.locator(".markers-panel .monaco-list-row", has_text="pytest -q")
    expect(problem.first).to_be_visible(timeout=SLOW)
    expect(status).to_have_text("⚠ unverified")
    workbench.screenshot("unverified")
    workbench.run_command("View: Toggle Panel Visibility")

    # ▶ Run: the server runs the approved command; lens, status bar and diagnostics follow.
    workbench.lens("▶ Run pytest -q").click()
    expect(status).to_have_text("✓ full", timeout=SLOW)
    expect(workbench.lens(re.compile(r"^✓ full · pytest -q"))).to_be_visible(timeout=SLOW)
    expect(workbench.page.locator(".monaco-editor .squiggly-warning")).to_have_count(0, timeout=SLOW)
    # The status bar item's tooltip says what ran and what a click runs.
    status.hover()
    expect(workbench.page.get_by_text("Click to run pytest -q")).to_be_visible(timeout=SLOW)
    expect(workbench.page.get_by_text(re.compile(r"✓ full: pytest -q passed just now"))).to_be_visible()
    workbench.screenshot("full")
    workbench.page.mouse.move(700, 300)
    assert [(r["command"], r["scope"], r["status"]) for r in receipts(code_server, project)] == [
        ("pytest -q", "full", "passed")
    ]

    # freshpass.verifyTargeted on the test file after another edit: only a targeted pass covers the content.
    workbench.append_line_and_save("# edited again")
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)
    workbench.open_file("tests/test_calc.py")
    workbench.run_command("freshpass: Verify this file")
    expect(status).to_have_text("◐ targeted", timeout=SLOW)
    expect(workbench.lens(re.compile(r"^◐ targeted · "))).to_be_visible(timeout=SLOW)
    workbench.screenshot("targeted")

    # A failing test, run from the lens: ✗ failed, and the failure is reported with a way to its output.
    # The content is written through the file system, never typed: the editor's auto-indent would reshape it.
    test_file = project / "tests" / "test_calc.py"
    original_test = test_file.read_text()
    test_file.write_text(original_test.rstrip("\n") + "\n\n\ndef test_broken():\n    assert add(2, 2) == 5\n")
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)
    expect(workbench.page.locator(".monaco-editor .view-lines").first).to_contain_text("def test_broken", timeout=SLOW)
    workbench.lens("▶ Run pytest -q").click()
    expect(status).to_have_text("✗ failed", timeout=SLOW)
    expect(workbench.lens(re.compile(r"^✗ failed · "))).to_be_visible(timeout=SLOW)
    toast = workbench.notification("freshpass: pytest -q failed")
    expect(toast).to_be_visible(timeout=SLOW)
    workbench.screenshot("failed")
    expect(toast).not_to_contain_text(re.compile(r"exit \d+.*exit \d+"))  # the exit code said once
    toast.get_by_role("button", name="Show output").click()
    output = workbench.page.locator(".output-view .view-lines")
    expect(output).to_contain_text("1 failed", timeout=SLOW)
    workbench.run_command("View: Toggle Panel Visibility")
    # The failed run cleared nothing: the edited files keep their Problems entries, saying the last run failed.
    expect(workbench.page.locator(".monaco-editor .squiggly-warning").first).to_be_visible(timeout=SLOW)
    workbench.page.keyboard.press("Control+Shift+M")
    failed_problem = workbench.page.locator(".markers-panel .monaco-list-row", has_text="not covered by a passing run")
    expect(failed_problem.first).to_be_visible(timeout=SLOW)
    workbench.run_command("View: Toggle Panel Visibility")

    # Terminal evidence: the test file is put back outside the editor, then `pytest -q` typed in the integrated
    # terminal; shell integration reports it and the server records it like `freshpass run`.
    (project / "tests" / "test_calc.py").write_text(original_test)
    expect(status).not_to_have_text("✗ failed", timeout=SLOW)
    expect(status).not_to_have_text("✓ full")
    workbench.run_command("Terminal: Create New Terminal")
    terminal = workbench.page.locator(".terminal-wrapper.active .xterm")
    expect(terminal).to_be_visible(timeout=SLOW)
    # Shell integration marks the prompt once bash has started; typing before that would be lost.
    expect(workbench.page.locator(".terminal-wrapper.active .xterm-decoration-container").first).to_be_attached(
        timeout=SLOW
    )
    terminal.click()
    workbench.page.keyboard.type("pytest -q")
    workbench.page.keyboard.press("Enter")
    expect(status).to_have_text("✓ full", timeout=SLOW)
    expect(workbench.lens(re.compile(r"^✓ full · pytest -q"))).to_be_visible(timeout=SLOW)
    workbench.screenshot("terminal")
    newest = receipts(code_server, project)[0]
    assert (newest["command"], newest["scope"], newest["status"]) == ("pytest -q", "full", "passed")
    assert newest["session"].startswith("vscode-terminal:")

    # The status bar item runs verify for its root; the receipts command lists every run, newest first.
    workbench.open_file("calc.py")
    workbench.append_line_and_save("# and once more")
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)
    count = len(receipts(code_server, project))
    status.click()
    expect(status).to_have_text("✓ full", timeout=SLOW)
    assert len(receipts(code_server, project)) == count + 1
    workbench.run_command("freshpass: Show receipts")
    rows = workbench.page.locator(".quick-input-list .monaco-list-row")
    expect(rows).to_have_count(count + 1, timeout=SLOW)
    expect(rows.first).to_contain_text("✓ passed · full · test")
    expect(workbench.page.locator(".quick-input-list .monaco-list-row", has_text="✗ failed")).to_have_count(1)
    workbench.page.keyboard.press("Escape")


def test_testing_view_runs_the_approved_command_and_records_a_receipt(
    workbench: Workbench, code_server: CodeServer, tmp_path: Path
) -> None:
    """What VS Code's agent sees: the nudge as a Warning (Copilot's `get_errors` reads Errors and Warnings from the
    same diagnostics as the Problems panel), and the approved test command as a test in the Testing view, whose Run
    profile is also what its `runTests` tool runs."""
    project = make_project(tmp_path, "testing", code_server.env)
    workbench.open_folder(project, trust=True)
    workbench.open_file("calc.py")
    status = workbench.status_item()
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)

    workbench.append_line_and_save("# edited by an agent")
    workbench.page.keyboard.press("Control+Shift+M")
    problem = workbench.page.locator(".markers-panel .monaco-list-row", has_text="pytest -q").first
    expect(problem).to_be_visible(timeout=SLOW)
    expect(problem.locator(".codicon-warning")).to_have_count(1)
    workbench.run_command("View: Toggle Panel Visibility")

    workbench.run_command("View: Show Testing")
    test = workbench.page.locator(".test-explorer .monaco-list-row", has_text="pytest -q")
    expect(test).to_have_count(1, timeout=SLOW)
    expect(test).to_contain_text("testing")  # the root it belongs to
    assert receipts(code_server, project) == []

    workbench.run_command("Test: Run All Tests")
    expect(status).to_have_text("✓ full", timeout=SLOW)
    expect(test.locator(".codicon-testing-passed-icon")).to_be_visible(timeout=SLOW)
    expect(workbench.lens(re.compile(r"^✓ full · pytest -q"))).to_be_visible(timeout=SLOW)
    workbench.screenshot("testing")
    [receipt] = receipts(code_server, project)
    assert (receipt["command"], receipt["scope"], receipt["status"], receipt["actor"]) == (
        "pytest -q",
        "full",
        "passed",
        "editor",
    )

    # A failing test: the Testing view says failed, with the runner's own summary in the message.
    (project / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n"
    )
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)
    workbench.run_command("Test: Run All Tests")
    expect(status).to_have_text("✗ failed", timeout=SLOW)
    expect(test.locator(".codicon-testing-failed-icon")).to_be_visible(timeout=SLOW)
    assert [r["status"] for r in receipts(code_server, project)] == ["failed", "passed"]


def test_untrusted_workspace_shows_status_and_runs_nothing_until_trusted(
    workbench: Workbench, code_server: CodeServer, tmp_path: Path
) -> None:
    project = make_project(tmp_path, "untrusted", code_server.env)
    recorded = code_server.freshpass("run", "--", "pytest", "-q", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    assert len(receipts(code_server, project)) == 1

    workbench.open_folder(project, trust=False)
    workbench.open_file("calc.py")
    status = workbench.status_item()
    expect(status).to_have_text("✓ full", timeout=SLOW)

    workbench.lens("▶ Run pytest -q").click()
    toast = workbench.notification("this workspace is not trusted")
    expect(toast).to_be_visible(timeout=SLOW)
    workbench.screenshot("untrusted")
    workbench.run_command("Notifications: Clear All Notifications")
    expect(toast).to_have_count(0)
    status.click()
    expect(toast).to_be_visible(timeout=SLOW)
    # The refusal happens before the request is sent, so by now a run would already be recorded or running.
    assert len(receipts(code_server, project)) == 1
    assert not [pid for pid in marked_processes(code_server.marker) if runs_pytest(command_line(pid))]

    # Trusting the folder restarts the server as trusted, and the same lens now runs.
    workbench.run_command("Workspaces: Manage Workspace Trust")
    workbench.page.get_by_role("button", name="Trust", exact=True).first.click()
    expect(workbench.page.locator("#workbench\\.parts\\.statusbar", has_text="Restricted Mode")).to_have_count(0)
    expect(status).to_have_text("✓ full", timeout=SLOW)
    workbench.page.locator(".tabs-container .tab", has_text="calc.py").click()
    workbench.lens("▶ Run pytest -q").click()
    assert wait_until(lambda: len(receipts(code_server, project)) == 2, 60), code_server.extension_logs()


def test_a_server_command_that_does_not_exist_says_how_to_fix_it(
    workbench: Workbench, code_server: CodeServer, tmp_path: Path
) -> None:
    project = make_project(tmp_path, "misconfigured", code_server.env)
    (project / ".vscode").mkdir()
    (project / ".vscode" / "settings.json").write_text(
        json.dumps({"freshpass.server.command": ["/nonexistent/freshpass", "serve"]})
    )
    workbench.open_folder(project, trust=True)
    toast = workbench.notification('"/nonexistent/freshpass" does not exist or is not executable')
    expect(toast).to_be_visible(timeout=SLOW)
    expect(toast).to_contain_text('set "freshpass.server.command" to its full path')
    toast.get_by_role("button", name="Show logs").click()
    output = workbench.page.locator(".output-view .view-lines")
    expect(output).to_contain_text("/nonexistent/freshpass", timeout=SLOW)
    expect(workbench.status_item()).to_have_count(0)


def runs_pytest(argv: list[str]) -> bool:
    """A pytest run (`pytest …`, `python -m pytest …`, `bash -c 'pytest …'`), not any process whose paths merely
    contain "pytest" (every test's tmp dir is /tmp/pytest-of-…)."""
    words = [word for arg in argv[:3] for word in arg.split()]
    return any(Path(word).name in ("pytest", "py.test") for word in words)
