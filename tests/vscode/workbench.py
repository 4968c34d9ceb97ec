"""Playwright helpers for VS Code's workbench. The selectors are VS Code 1.96.4's DOM (code-server 4.96.4 is
pinned); a version bump may rename them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.vscode.harness import SCREENSHOTS, CodeServer

SLOW = 60_000  # first workbench load, extension activation, server start: well under this on 2 busy cores


def make_project(parent: Path, name: str, env: dict[str, str], *, test_body: str = "assert add(1, 2) == 3") -> Path:
    """A git project that declares its check in [tool.freshpass]: one module and one passing test."""
    project = parent / name
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        "[project]\n"
        f'name = "{name}"\n'
        'version = "0.0.0"\n\n'
        "[tool.freshpass]\n"
        'verify = [{ command = "pytest -q", kind = "test" }]\n\n'
        "[tool.pytest.ini_options]\n"
        'pythonpath = ["."]\n'
        'testpaths = ["tests"]\n'
    )
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "tests" / "test_calc.py").write_text(f"from calc import add\n\n\ndef test_add():\n    {test_body}\n")
    (project / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "init"]):
        subprocess.run(argv, cwd=project, env=env, check=True, capture_output=True, timeout=30)
    return project


class Workbench:
    def __init__(self, page: Page, server: CodeServer) -> None:
        self.page = page
        self.server = server

    def open_folder(self, folder: Path, *, trust: bool) -> None:
        self.page.goto(self.server.folder_url(folder))
        answer = "Yes, I trust the authors" if trust else "No, I don't trust the authors"
        button = self.page.get_by_role("button", name=answer)
        expect(button).to_be_visible(timeout=SLOW)
        button.click()
        expect(self.page.locator(".explorer-folders-view .monaco-list-row").first).to_be_visible(timeout=SLOW)

    def open_file(self, relative: str) -> None:
        self.page.keyboard.press("Control+P")
        box = self.page.locator(".quick-input-widget input[type=text]")
        expect(box).to_be_visible()
        box.fill(relative)
        row = self.page.locator(".quick-input-list .monaco-list-row", has_text=Path(relative).name).first
        expect(row).to_be_visible(timeout=SLOW)
        self.page.keyboard.press("Enter")
        tab = self.page.locator(".tabs-container .tab.active", has_text=Path(relative).name)
        expect(tab).to_be_visible(timeout=SLOW)

    def run_command(self, title: str) -> None:
        self.page.keyboard.press("F1")
        box = self.page.locator(".quick-input-widget input[type=text]")
        expect(box).to_be_visible()
        box.fill(f">{title}")
        row = self.page.locator(".quick-input-list .monaco-list-row", has_text=title).first
        expect(row).to_be_visible(timeout=SLOW)
        self.page.keyboard.press("Enter")

    def status_item(self) -> Locator:
        """The freshpass status bar item (its accessible name starts with `freshpass `)."""
        return self.page.locator('#workbench\\.parts\\.statusbar a.statusbar-item-label[aria-label^="freshpass "]')

    def lens(self, pattern: str | re.Pattern[str]) -> Locator:
        return self.page.locator(".monaco-editor .codelens-decoration a", has_text=pattern)

    def append_line_and_save(self, text: str) -> None:
        editor = self.page.locator(".monaco-editor .view-lines").first
        editor.click()
        self.page.keyboard.press("Control+End")
        self.page.keyboard.press("Enter")
        # Home: drop any auto-indent so the line is top level.
        self.page.keyboard.press("Home")
        # Inserted as text, not typed key by key: no auto-indent or auto-closing reshapes it.
        self.page.keyboard.insert_text(text)
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("Control+S")
        expect(self.page.locator(".tabs-container .tab.active.dirty")).to_have_count(0, timeout=SLOW)

    def notification(self, pattern: str | re.Pattern[str]) -> Locator:
        return self.page.locator(".notifications-toasts .notification-toast", has_text=pattern)

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"vscode-{name}.png"
        # Finished animations: a toast caught mid-fade would be half transparent.
        self.page.screenshot(path=str(path), animations="disabled")
        return path


def new_workbench(browser: Any, server: CodeServer) -> tuple[Any, Workbench]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    return context, Workbench(page, server)
