"""The adversarial suite: hostile repositories, payloads and clients, misbehaving commands; one module a behaviour.

Every test runs under `leftovers`: the environment carries a per-test `FRESHPASS_TEST_MARKER`, so every process
the test starts (a CLI, a language server, the commands they run, what those leave behind) carries it too, and after
the test nothing carrying it may still be alive (`tests.conftest.marked_processes`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

from tests.conftest import marked_processes
from tests.e2e.conftest import SERVER, SESSIONS, VENV_BIN, Session, attach


def _wait_for(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)  # polling /proc: the kernel offers no wait for unrelated processes
    return bool(condition())


@pytest.fixture(autouse=True)
def leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    marker = uuid.uuid4().hex
    monkeypatch.setenv("FRESHPASS_TEST_MARKER", marker)
    yield marker
    # Everything a test starts is torn down before it returns; the short wait covers only the kernel finishing a
    # SIGKILL already sent (and a language server still leaving after `exit`).
    if not _wait_for(lambda: not marked_processes(marker), 5.0):
        left = marked_processes(marker)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        pytest.fail(f"processes left running after the test: {left}")


def freshpass(*args: str, **kwargs: Any) -> subprocess.Popen[bytes]:
    """Start the installed `freshpass` as a separate process (bytes in, bytes out)."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([sys.executable, "-m", "freshpass", *args], **kwargs)


def finish(process: subprocess.Popen[bytes], timeout: float) -> tuple[int, bytes, bytes]:
    """Wait for `process` (killing it if it overruns, then failing): (exit code, stdout, stderr)."""
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        pytest.fail(f"freshpass did not finish within {timeout} s; stderr: {stderr.decode(errors='replace')[-2000:]}")
    return process.returncode, stdout, stderr


def project(path: Path, *, declares: str | None = None) -> Path:
    """A committed git repository whose declared test command is `pytest` (hermetic config), or the shell line
    `declares` when given (`[tool.freshpass] verify`): how a test makes the server run a line of its choosing,
    since a client's own `command` runs only as one approved check."""
    import json as _json

    from tests.conftest import git

    path.mkdir(parents=True, exist_ok=True)
    declared = (
        f'\n[tool.freshpass]\nverify = [{{command = {_json.dumps(declares)}, kind = "test"}}]\n' if declares else ""
    )
    (path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' + declared
    )
    (path / "tests").mkdir()
    (path / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path.resolve()


# ---- the language server over stdio (one client: Visual Studio Code's capabilities) ----------------------------


@pytest.fixture(autouse=True)
def _venv_python_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # A project's `python -m pytest` must find this venv's pytest, whatever python the machine has.
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient) -> Any:
    session = attach(lsp_client, "vscode")
    SESSIONS[id(lsp_client)] = session
    yield
    SESSIONS.pop(id(lsp_client), None)
    if session.initialized:
        await lsp_client.shutdown_session()


@pytest.fixture
def lsp(client: LanguageClient) -> Session:
    """A real `freshpass serve` over stdio, driven as VS Code would."""
    return SESSIONS[id(client)]
