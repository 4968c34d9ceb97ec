"""End-to-end fixtures: a real `freshpass serve` over stdio, driven by pytest-lsp as Neovim 0.11 and VS Code.

Every test that takes `lsp` runs twice, once with each client's recorded capabilities; LSP specification warnings
are errors (pyproject `filterwarnings`). Projects are small git repositories in `tmp_path` whose only verify
command is a hermetic `python -m pytest -q` over one trivial test. Waiting is always on a condition with a deadline
(`Session.until`), never a sleep.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CLIENTS = {"neovim": "neovim@v0.11.0", "vscode": "visual-studio-code@v1.65.2"}
CLIENT_NAMES = {"neovim": "Neovim", "vscode": "Visual Studio Code"}
VENV_BIN = str(Path(sys.executable).parent)

PYPROJECT = """\
[project]
name = "demo"
version = "0.0.0"

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.freshpass]
verify = [{command = "python -m pytest -q -p no:cacheprovider", kind = "test"}]
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_project(path: Path, pyproject: str = PYPROJECT) -> Path:
    """A committed git repository with a passing test; returns its resolved path."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "pyproject.toml").write_text(pyproject)
    (path / "src").mkdir()
    (path / "src" / "app.py").write_text("def answer():\n    return 42\n")
    (path / "tests").mkdir()
    (path / "tests" / "test_app.py").write_text(
        "import sys, pathlib\n"
        "sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / 'src'))\n"
        "from app import answer\n\n\n"
        "def test_answer():\n    assert answer() == 42\n"
    )
    (path / ".gitignore").write_text("__pycache__/\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path.resolve()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "demo")


@pytest.fixture(autouse=True)
def _venv_python_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fixture project's `python -m pytest` must find this venv's pytest, whatever python the machine has.
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")


@dataclass
class Session:
    """One client talking to one server; `initialize` must be called with the workspace folders."""

    client: LanguageClient
    name: str  # "neovim" | "vscode"
    status_changes: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)
    registrations: list[types.Registration] = field(default_factory=list)
    lens_refreshes: int = 0
    lens_refreshed: asyncio.Event = field(default_factory=asyncio.Event)
    diagnostics_refreshed: asyncio.Event = field(default_factory=asyncio.Event)
    initialized: bool = False

    @property
    def capabilities(self) -> types.ClientCapabilities:
        return client_capabilities(CLIENTS[self.name])

    async def initialize(
        self, *folders: Path, options: dict[str, Any] | None = None, pull_diagnostics: bool = False
    ) -> types.InitializeResult:
        capabilities = self.capabilities
        if pull_diagnostics:  # what newer clients declare: pull, and re-pull when told to
            assert capabilities.workspace is not None and capabilities.text_document is not None
            capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
            capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(dynamic_registration=False)
        params = types.InitializeParams(
            capabilities=capabilities,
            client_info=types.ClientInfo(name=CLIENT_NAMES[self.name], version="test"),
            root_uri=folders[0].as_uri() if folders else None,
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
            initialization_options=options,
        )
        result = await self.client.initialize_session(params)
        self.initialized = True
        # The server's first look at each root is the baseline edits are compared against: wait for it.
        roots = {str(folder) for folder in folders}
        await self.until(lambda: roots <= {s["root"] for s in self.status_changes}, method="freshpass/statusChanged")
        return result

    async def until(self, predicate: Callable[[], Any], *, method: str, timeout: float = 10.0) -> Any:
        """Wait until `predicate()` is truthy, re-checking after each `method` notification; fail at the deadline."""
        deadline = time.monotonic() + timeout
        while not (value := predicate()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"condition not met within {timeout} s (waiting on {method})")
            # asyncio.wait, not wait_for: a timed-out wait must not cancel pytest-lsp's pending future, or the next
            # notification of that method would fail on it inside the client.
            await asyncio.wait({asyncio.ensure_future(self.client.wait_for_notification(method))}, timeout=remaining)
        return value

    def diagnostics(self, path: Path) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(path.as_uri(), []))

    async def until_diagnostics(self, path: Path, predicate: Callable[[list[types.Diagnostic]], bool]) -> Any:
        return await self.until(lambda: predicate(self.diagnostics(path)), method="textDocument/publishDiagnostics")

    async def until_status(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        found: dict[str, Any] = await self.until(
            lambda: next((s for s in reversed(self.status_changes) if predicate(s)), None),
            method="freshpass/statusChanged",
        )
        return found

    def open(self, path: Path, text: str | None = None, version: int = 1) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(),
                    language_id="python",
                    version=version,
                    text=path.read_text() if text is None else text,
                )
            )
        )

    def save(self, path: Path) -> None:
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
        )

    def change(self, path: Path, text: str, version: int) -> None:
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def lenses(self, path: Path) -> list[str]:
        result = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
        )
        return [lens.command.title for lens in result or [] if lens.command]

    async def status(self, root: Path) -> dict[str, Any]:
        result = await self.client.protocol.send_request_async("freshpass/status", {"root": str(root)})
        return as_json(result)

    async def execute(self, command: str, *arguments: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        )


def as_json(value: Any) -> Any:
    """pygls hands custom results over as namedtuples; compare them as plain JSON."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: as_json(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "freshpass", "serve"])


SESSIONS: dict[int, Session] = {}


def attach(client: LanguageClient, name: str) -> Session:
    """A Session recording what the server sends besides diagnostics, progress and logs (pytest-lsp keeps those)."""
    session = Session(client=client, name=name)

    @client.feature("freshpass/statusChanged")
    def on_status(params: Any) -> None:
        session.status_changes.append(as_json(params))

    @client.feature("freshpass/output")
    def on_output(params: Any) -> None:
        session.outputs.append(as_json(params))

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        session.registrations.extend(params.registrations)

    # pytest-lsp already handles workspace/diagnostic/refresh (it counts them): wrap its handler to be told too.
    features = client.protocol.fm.features
    count_refresh = features[types.WORKSPACE_DIAGNOSTIC_REFRESH]

    def on_diagnostic_refresh(params: None) -> Any:
        session.diagnostics_refreshed.set()
        return count_refresh(params)

    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = on_diagnostic_refresh

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: None) -> None:
        session.lens_refreshes += 1
        session.lens_refreshed.set()

    return session


@pytest_lsp.fixture(config=SERVER, params=sorted(CLIENTS))
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    # pytest-lsp hands the test the client itself; the `lsp` fixture below wraps it in a Session.
    session = attach(lsp_client, request.param)
    SESSIONS[id(lsp_client)] = session

    yield
    SESSIONS.pop(id(lsp_client), None)
    if session.initialized:
        await lsp_client.shutdown_session()
    else:  # a test that failed before initialize: `exit` is allowed at any time, and pytest-lsp waits for the process
        lsp_client.protocol.notify(types.EXIT, None)


@pytest.fixture
def lsp(client: LanguageClient) -> Session:
    """The test's session: a server over stdio and a client with Neovim's or VS Code's capabilities."""
    return SESSIONS[id(client)]
