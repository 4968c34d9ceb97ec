"""Fixtures for the VS Code end-to-end tests: one code-server and one Chromium per test session (2-core machine)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.vscode.harness import (
    CHROMIUM_ARGS,
    CODE_SERVER,
    CODE_SERVER_STAMP,
    FRESHPASS,
    REPO,
    CodeServer,
    marked_processes,
    running_code_server,
    wait_until,
)


def require(condition: bool, reason: str) -> None:
    """Missing prerequisites skip on a developer machine, but fail in CI, where scripts/setup-editors installed them."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


VSIX = REPO / "editor-clients" / "vscode" / "dist" / "freshpass.vsix"
_packaged: list[str] = []  # the outcome of packaging this session: "" when it succeeded, else why it failed


def _package() -> str:
    """Package the extension once per session; "" on success, else what npm said."""
    if not _packaged:
        npm = shutil.which("npm")
        if npm is None or not (REPO / "node_modules").is_dir():
            return "needs npm and node_modules: run scripts/setup-editors"
        result = subprocess.run(
            [npm, "run", "--silent", "package"], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
        )
        ok = result.returncode == 0 and VSIX.is_file()
        _packaged.append("" if ok else f"npm run package failed:\n{result.stdout}\n{result.stderr}")
    return _packaged[0]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Package before the first test starts: building the bundle takes minutes on a loaded machine, and a test's
    timeout must measure the test, not the build its fixture waits for."""
    if any("vsix" in getattr(item, "fixturenames", ()) for item in session.items):
        _package()


@pytest.fixture(scope="session")
def vsix() -> Path:
    """The extension packaged as users get it (bundle + manifest, per .vscodeignore), built from the current sources."""
    npm = shutil.which("npm")
    require(
        npm is not None and (REPO / "node_modules").is_dir(), "needs npm and node_modules: run scripts/setup-editors"
    )
    problem = _package()
    assert not problem, problem
    return VSIX


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    require(Path(path).is_file(), "needs Debian's chromium: run scripts/setup-editors")
    return path


@pytest.fixture(scope="session")
def code_server(tmp_path_factory: pytest.TempPathFactory, vsix: Path) -> Iterator[CodeServer]:
    yield from _code_server(tmp_path_factory, tools_on_path=True)


@pytest.fixture(scope="module")
def bare_code_server(tmp_path_factory: pytest.TempPathFactory, vsix: Path) -> Iterator[CodeServer]:
    """A code-server started as from a desktop launcher: no virtualenv and no pytest on its PATH or its shells'."""
    yield from _code_server(tmp_path_factory, tools_on_path=False)


def _code_server(tmp_path_factory: pytest.TempPathFactory, *, tools_on_path: bool) -> Iterator[CodeServer]:
    require(CODE_SERVER_STAMP.is_file() and CODE_SERVER.is_file(), "needs code-server: run scripts/setup-editors")
    require(FRESHPASS.is_file(), "needs the freshpass CLI in .venv: pip install -e .")
    marker = uuid.uuid4().hex
    with running_code_server(tmp_path_factory.mktemp("code-server"), marker, tools_on_path=tools_on_path) as server:
        yield server
    # Everything below code-server, the language servers, their verify runs (own process groups) and Chromium
    # carry the marker: anything still alive now was left behind.
    if not wait_until(lambda: not marked_processes(marker), 10):
        left = marked_processes(marker)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        pytest.fail(f"processes left running after code-server stopped: {left}")


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Any]:
    """One Playwright for the session: its sync API runs an event loop of its own, and a second one started while
    the first lives fails ("using Playwright Sync API inside the asyncio loop")."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_driver: Any, code_server: CodeServer, chromium_path: str) -> Iterator[object]:
    yield from _browser(playwright_driver, code_server, chromium_path)


@pytest.fixture(scope="module")
def bare_browser(playwright_driver: Any, bare_code_server: CodeServer, chromium_path: str) -> Iterator[object]:
    yield from _browser(playwright_driver, bare_code_server, chromium_path)


def _browser(playwright: Any, code_server: CodeServer, chromium_path: str) -> Iterator[object]:
    chromium = playwright.chromium.launch(
        executable_path=chromium_path,
        headless=True,
        args=CHROMIUM_ARGS,
        # The marker makes Chromium part of the leftover check; HOME keeps it out of the real home directory.
        env={**code_server.env},
    )
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failing test in the real editor shows what the extension host and the freshpass server logged."""
    report = yield
    funcargs = getattr(item, "funcargs", {})
    code_server = funcargs.get("code_server") or funcargs.get("bare_code_server")
    if report.failed and call.when == "call" and isinstance(code_server, CodeServer):
        report.sections.append(("freshpass and extension host logs", code_server.extension_logs(lines=120)))
    return report
