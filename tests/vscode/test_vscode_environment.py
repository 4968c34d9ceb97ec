"""The environment of a run in a real VS Code (design §5): a project whose pytest is only in its `.venv`, and a
code-server started without any virtualenv or pytest on its PATH (as from a desktop launcher, not an activated
shell). `▶ Run` must end `✓ full`.

This module has its own code-server (`bare_code_server`): the one the other tests share puts this repository's
virtualenv, and with it a pytest, on every PATH.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import make_project_venv
from tests.vscode.harness import CodeServer, wait_until
from tests.vscode.workbench import SLOW, Workbench, make_project, new_workbench

pytestmark = [pytest.mark.e2e, pytest.mark.vscode]


@pytest.fixture
def workbench(bare_browser: Any, bare_code_server: CodeServer) -> Iterator[Workbench]:
    context, bench = new_workbench(bare_browser, bare_code_server)
    try:
        yield bench
    finally:
        context.close()


def server_path(code_server: CodeServer) -> str:
    """PATH of the language server the extension started (what its verify runs inherit)."""
    [pid] = code_server.language_servers()
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return next(item[5:].decode() for item in environ if item.startswith(b"PATH="))


def test_run_lens_uses_the_projects_virtualenv(
    workbench: Workbench, bare_code_server: CodeServer, tmp_path: Path
) -> None:
    project = make_project(tmp_path, "venvcalc", bare_code_server.env)
    (project / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n.venv/\n")
    for argv in (["add", "-A"], ["commit", "-q", "-m", "ignore the virtualenv"]):
        subprocess.run(["git", *argv], cwd=project, env=bare_code_server.env, check=True, capture_output=True)
    make_project_venv(project)

    workbench.open_folder(project, trust=True)
    workbench.open_file("calc.py")
    assert wait_until(bare_code_server.language_servers, 30), bare_code_server.extension_logs()
    assert shutil.which("pytest", path=server_path(bare_code_server)) is None, "pytest must not be on the editor's PATH"
    status = workbench.status_item()
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)

    workbench.lens("▶ Run pytest -q").click()
    expect(status).to_have_text("✓ full", timeout=SLOW)
    expect(workbench.lens("✓ full · pytest -q")).to_be_visible(timeout=SLOW)
    workbench.screenshot("venv-full")

    log = bare_code_server.freshpass("log", "--json", str(project), cwd=project)
    [receipt] = json.loads(log.stdout)["receipts"]
    assert (receipt["status"], receipt["scope"]) == ("passed", "full")
    assert receipt["details"]["environment"]["path_prepended"] == [str(project / ".venv" / "bin")]
    # What was put first on PATH is in the run's output channel, before the command's own output.
    venv_bin = str(project / ".venv" / "bin")
    assert wait_until(lambda: f"put {venv_bin} first on PATH" in bare_code_server.extension_logs(lines=400), 30), (
        bare_code_server.extension_logs()
    )


def test_a_program_not_found_says_which_where_and_which_setting(
    workbench: Workbench, bare_code_server: CodeServer, tmp_path: Path
) -> None:
    """No virtualenv and no pytest anywhere: the program never starts (127), so nothing is recorded and the status
    stays as it was; the notification says which program was not found, where freshpass looked and which setting
    fixes it, with the exit code once."""
    project = make_project(tmp_path, "novenv", bare_code_server.env)

    workbench.open_folder(project, trust=True)
    workbench.open_file("calc.py")
    status = workbench.status_item()
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)
    workbench.append_line_and_save("# edited before the run")
    workbench.lens("▶ Run pytest -q").click()
    toast = workbench.notification("freshpass: pytest -q did not run (exit 127): `pytest` was not found")
    expect(toast).to_be_visible(timeout=SLOW)
    expect(toast).to_contain_text(str(project / ".venv"))  # where it looked
    expect(toast).to_contain_text("freshpass.verify.path")  # what fixes it
    expect(toast).not_to_contain_text(re.compile(r"exit 127.*exit 127"))
    expect(status).to_have_text("⚠ unverified", timeout=SLOW)  # a run that never started is no failure
    workbench.screenshot("not-found")
    # The edited file, which the run that never started could not cover, keeps its Problems entry.
    workbench.page.keyboard.press("Control+Shift+M")
    problem = workbench.page.locator(".markers-panel .monaco-list-row", has_text="not covered by any receipt")
    expect(problem.first).to_be_visible(timeout=SLOW)
