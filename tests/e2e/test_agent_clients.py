"""Agents that load language servers, simulated from their own source (design §7.1; docs/agents.md).

Each client sends what the agent sends and keeps what it keeps, and is configured with the snippet of
docs/agents.md read verbatim:

- **OpenCode 1.18** (its bundled `lsp/client.ts`): no `clientInfo`; `processId` is the server's own pid; its
  capabilities (no pull refresh, so diagnostics are pushed); `initialization` as `initializationOptions` and again in
  `workspace/didChangeConfiguration`; answers `workspace/configuration` by dotted lookup into `initialization`.
  A read is `didChangeWatchedFiles` (created) + `didOpen` v0; an edit writes the file, then
  `didChangeWatchedFiles` (changed) + a full-text `didChange`, never `didSave`. It keeps only Error diagnostics
  and waits up to 5 s for a fresh publish.
- **Crush** (powernap v0.1.6 `pkg/lsp/client.go`, crush `internal/lsp`): `clientInfo` `powernap` 0.1.0;
  `init_options` as `initializationOptions`; `workspace/configuration` answered `[{}]`; a view is `didOpen` v1, an
  edit a full-text `didChange`, never `didSave`; it waits 1 s for the diagnostics to change and shows all severities.

"Within 1 s" is pytest-lsp's `wait_for_notification` under a 1 s timeout, registered before the edit is sent. The
agent's model thinks between reading a file and editing it; the tests stand for that by waiting for the server's
first status, never by sleeping.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.conftest import make_calc_project
from tests.snippets import json_snippet, snippet

pytestmark = pytest.mark.e2e

VENV_BIN = str(Path(sys.executable).parent)
STARTUP = 20.0  # seconds for the server's first look at the root
WINDOW = 1.0  # Crush waits 1 s for a change of diagnostics; OpenCode 5 s, and freshpass promises 1 s to both
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
CONVERTER = default_converter()


def installed(command: list[str]) -> list[str]:
    """A documented command line with its program resolved to this environment's install (as PATH would)."""
    program = shutil.which(command[0], path=VENV_BIN)
    assert program is not None, f"{command[0]} is not installed in {VENV_BIN}"
    return [program, *command[1:]]


# ---- the documented set-ups, verbatim ------------------------------------------------------------------------------

OPENCODE = json_snippet("opencode.json")["lsp"]["freshpass"]


def crushrc_lsp() -> tuple[list[str], Any]:
    """(command line, init options) of the crushrc `lsp add freshpass …` line."""
    line = next(line for line in snippet("crushrc").splitlines() if line.startswith("lsp add freshpass"))
    words = shlex.split(line)
    command = [words[words.index("--command") + 1]]
    command += [words[i + 1] for i, word in enumerate(words) if word == "--args"]
    return command, json.loads(words[words.index("--init-options") + 1])


CRUSH_COMMAND, CRUSH_INIT_OPTIONS = crushrc_lsp()


# ---- what each agent declares ------------------------------------------------------------------------------------

OPENCODE_CAPABILITIES = {  # packages/opencode/src/lsp/client.ts, `initialize`
    "window": {"workDoneProgress": True},
    "workspace": {
        "configuration": True,
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "diagnostics": {"refreshSupport": False},
    },
    "textDocument": {
        "synchronization": {"didOpen": True, "didChange": True},
        "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": True},
        "publishDiagnostics": {"versionSupport": False},
    },
}

CRUSH_CAPABILITIES = {  # powernap pkg/lsp/client.go, makeClientCapabilities
    "general": {"positionEncodings": ["utf-8", "utf-16"]},
    "window": {"workDoneProgress": True, "showMessage": {}, "showDocument": {"support": True}},
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {"documentChanges": True},
        "didChangeConfiguration": {"dynamicRegistration": True},
        "didChangeWatchedFiles": {"dynamicRegistration": True, "relativePatternSupport": True},
        "symbol": {},
        "configuration": True,
        "workspaceFolders": True,
    },
    "textDocument": {
        "synchronization": {"dynamicRegistration": True, "willSave": True, "willSaveWaitUntil": True, "didSave": True},
        "completion": {"completionItem": {}},
        "hover": {},
        "definition": {},
        "references": {},
        "documentHighlight": {},
        "documentSymbol": {},
        "formatting": {},
        "rangeFormatting": {},
        "rename": {},
        "publishDiagnostics": {
            "relatedInformation": True,
            "versionSupport": True,
            "tagSupport": {"valueSet": [1, 2]},
            "codeDescriptionSupport": True,
            "dataSupport": True,
        },
        "codeAction": {},
    },
}


class AgentClient(LanguageClient):
    """pytest-lsp's client, keeping every publish in order (the agent reads its latest per file)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.initialization: Any = None

    def publishes(self, uri: str) -> list[list[types.Diagnostic]]:
        return [list(params.diagnostics) for params in self.published if params.uri == uri]


def _keep_publish(client: AgentClient, params: types.PublishDiagnosticsParams) -> None:
    client.published.append(params)
    client.diagnostics[params.uri] = params.diagnostics


def _accept(client: AgentClient, params: Any) -> None:
    """Registrations: OpenCode records only `textDocument/diagnostic` ones; Crush records watchers and sends none."""


def _opencode_configuration(client: AgentClient, params: types.ConfigurationParams) -> list[Any]:
    """OpenCode answers each item with `initialization[section…]` by dotted path, else null."""
    answers: list[Any] = []
    for item in params.items:
        value: Any = client.initialization
        for part in (item.section or "").split(".") if item.section else []:
            value = value.get(part) if isinstance(value, dict) else None
        answers.append(value)
    return answers


def _crush_configuration(client: AgentClient, params: types.ConfigurationParams) -> list[Any]:
    return [{}]  # crush internal/lsp/handlers.go: the same answer to every request


def _workspace_folders(client: AgentClient, params: None) -> list[types.WorkspaceFolder]:
    return [types.WorkspaceFolder(uri=client.root_uri, name="workspace")]  # type: ignore[attr-defined]


def make_factory(configuration: Callable[[AgentClient, types.ConfigurationParams], list[Any]]) -> Any:
    def factory() -> AgentClient:
        client = AgentClient(converter_factory=default_converter)
        register_lsp_features(
            client,
            {
                **DEFAULT_CLIENT_FEATURES,
                PUBLISH: _keep_publish,
                types.WORKSPACE_CONFIGURATION: configuration,
                types.CLIENT_REGISTER_CAPABILITY: _accept,
                types.CLIENT_UNREGISTER_CAPABILITY: _accept,
                types.WORKSPACE_WORKSPACE_FOLDERS: _workspace_folders,
            },
        )
        return client

    return factory


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=installed(OPENCODE["command"]), client_factory=make_factory(_opencode_configuration)
    )
)
async def opencode(lsp_client: AgentClient) -> AsyncIterator[None]:
    yield  # the fixture's value is the client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=installed(CRUSH_COMMAND), client_factory=make_factory(_crush_configuration)
    )
)
async def crush(lsp_client: AgentClient) -> AsyncIterator[None]:
    yield  # the fixture's value is the client
    await lsp_client.shutdown_session()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed Python project whose approved test command is `pytest`."""
    return make_calc_project(tmp_path / "project")


# ---- the agents' moves ---------------------------------------------------------------------------------------------


async def opencode_starts(client: AgentClient, repo: Path, initialization: Any) -> asyncio.Future[Any]:
    """OpenCode's `initialize` (no clientInfo), `initialized`, then the whole `initialization` as settings. Returns
    the wait for the server's first status (the model's thinking time before it edits)."""
    client.initialization = initialization
    client.root_uri = repo.as_uri()  # type: ignore[attr-defined]
    first_status = asyncio.ensure_future(client.wait_for_notification("freshpass/statusChanged"))
    server = client._server
    assert server is not None
    await client.initialize_session(
        types.InitializeParams(
            process_id=server.pid,  # OpenCode sends the server's own pid
            root_uri=repo.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="workspace")],
            initialization_options=initialization,
            capabilities=CONVERTER.structure(OPENCODE_CAPABILITIES, types.ClientCapabilities),
        )
    )
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=initialization))
    return first_status


async def crush_starts(client: AgentClient, repo: Path, init_options: Any) -> asyncio.Future[Any]:
    first_status = asyncio.ensure_future(client.wait_for_notification("freshpass/statusChanged"))
    await client.initialize_session(
        types.InitializeParams(
            client_info=types.ClientInfo(name="powernap", version="0.1.0"),
            locale="en-us",
            root_path=str(repo),
            root_uri=repo.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name=repo.name)],
            initialization_options=init_options,
            trace=types.TraceValue.Off,
            capabilities=CONVERTER.structure(CRUSH_CAPABILITIES, types.ClientCapabilities),
        )
    )
    return first_status


def watched(client: AgentClient, path: Path, kind: types.FileChangeType) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)])
    )


def opened(client: AgentClient, path: Path, version: int) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=path.as_uri(), language_id="python", version=version, text=path.read_text()
            )
        )
    )


def changed(client: AgentClient, path: Path, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=path.read_text())],
        )
    )


def freshpass_errors(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.source == "freshpass" and d.severity == types.DiagnosticSeverity.Error]


def opencode_report(path: Path, diagnostics: list[types.Diagnostic]) -> str:
    """What OpenCode appends to an edit's result: its Error diagnostics only, at most 20 (`P4`/`FZ` in 1.18.33)."""
    errors = [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error][:20]
    if not errors:
        return ""
    lines = [f"ERROR [{d.range.start.line + 1}:{d.range.start.character + 1}] {d.message}" for d in errors]
    return f'<diagnostics file="{path}">\n' + "\n".join(lines) + "\n</diagnostics>"


async def publish_after(client: AgentClient, path: Path, send: Callable[[], None], timeout: float) -> list[Any]:
    """Send an edit, then the diagnostics of the first publish for `path` that carries a freshpass Error, within
    `timeout` seconds of the edit (pytest-lsp's wait_for_notification, registered before the edit is sent)."""
    uri = path.as_uri()
    seen = len(client.publishes(uri))
    waiter = asyncio.ensure_future(client.wait_for_notification(PUBLISH))
    send()

    async def until_error() -> list[Any]:
        nonlocal waiter
        while True:
            await waiter
            waiter = asyncio.ensure_future(client.wait_for_notification(PUBLISH))
            for diagnostics in client.publishes(uri)[seen:]:
                if freshpass_errors(diagnostics):
                    waiter.add_done_callback(lambda future: future.cancelled() or future.exception())
                    return diagnostics

    return await asyncio.wait_for(until_error(), timeout)


# ---- the tests -----------------------------------------------------------------------------------------------------


async def test_opencode_sees_an_error_nudge_within_a_second_of_each_edit(opencode: AgentClient, repo: Path) -> None:
    first_status = await opencode_starts(opencode, repo, OPENCODE["initialization"])
    source = repo / "src" / "calc.py"
    assert source.suffix in OPENCODE["extensions"]
    watched(opencode, source, types.FileChangeType.Created)  # the read tool: touchFile → open
    opened(opencode, source, version=0)
    await asyncio.wait_for(first_status, STARTUP)

    reports = []
    for version, body in enumerate(("b + a", "a + b + 0"), start=1):

        def edit(body: str = body, version: int = version) -> None:
            source.write_text(f"def add(a, b):\n    return {body}\n")  # the edit tool writes, then notifies
            watched(opencode, source, types.FileChangeType.Changed)
            changed(opencode, source, version)

        diagnostics = await publish_after(opencode, source, edit, WINDOW)
        report = opencode_report(source, diagnostics)
        assert "\nERROR [1:1] `src/calc.py` is not covered by any receipt" in report
        assert "`freshpass run -- pytest`" in report
        reports.append(report)
    assert reports[0] != reports[1], "each edit's nudge must read differently, or a deduplicating agent drops it"


async def test_opencode_without_agent_true_would_see_nothing(opencode: AgentClient, repo: Path) -> None:
    # The set-up docs/agents.md used to give: OpenCode sends no clientInfo, so without `agent: true` the nudge is a
    # Warning, and OpenCode keeps Errors only.
    first_status = await opencode_starts(opencode, repo, {"diagnostics": {"agentSeverity": "error"}})
    source = repo / "src" / "calc.py"
    opened(opencode, source, version=0)
    await asyncio.wait_for(first_status, STARTUP)
    uri = source.as_uri()
    waiter = asyncio.ensure_future(opencode.wait_for_notification(PUBLISH))
    source.write_text("def add(a, b):\n    return b + a\n")
    watched(opencode, source, types.FileChangeType.Changed)
    changed(opencode, source, 1)
    while not opencode.publishes(uri):
        await asyncio.wait_for(waiter, STARTUP)
        waiter = asyncio.ensure_future(opencode.wait_for_notification(PUBLISH))
    waiter.cancel()
    [diagnostics] = opencode.publishes(uri)
    assert [d.severity for d in diagnostics] == [types.DiagnosticSeverity.Warning]
    assert opencode_report(source, diagnostics) == ""


async def test_crush_sees_the_nudge_within_its_one_second_window(crush: AgentClient, repo: Path) -> None:
    legacy = json_snippet("crush.json")["lsp"]["freshpass"]
    assert [legacy["command"], *legacy["args"]] == CRUSH_COMMAND
    assert legacy["init_options"] == CRUSH_INIT_OPTIONS
    first_status = await crush_starts(crush, repo, CRUSH_INIT_OPTIONS)
    source = repo / "src" / "calc.py"
    opened(crush, source, version=1)  # the view tool opens the file
    await asyncio.wait_for(first_status, STARTUP)

    def edit() -> None:
        source.write_text("def add(a, b):\n    return b + a\n")
        changed(crush, source, 2)  # NotifyChange: always a full-text didChange, never didSave

    diagnostics = await publish_after(crush, source, edit, WINDOW)
    [error] = freshpass_errors(diagnostics)
    assert "`freshpass run -- pytest`" in error.message
    # What Crush shows the model: `Error: <path>:<line>:<col> [<server> <source>][<code>] <message>`.
    shown = f"Error: {source}:1:1 [freshpass {error.source}][{error.code}] {error.message}"
    assert shown.startswith(f"Error: {source}:1:1 [freshpass freshpass][stale] `src/calc.py` is not covered")


@pytest.mark.parametrize(
    ("name", "options", "agent"),
    [
        ("powernap", {}, True),  # Crush
        ("Claude Code", {}, True),
        ("opencode", {}, True),
        ("", {"agent": True}, True),  # OpenCode: no clientInfo, the set-up says so
        ("", {}, False),
        ("Neovim", {}, False),
        ("Visual Studio Code", {"agent": "true"}, False),  # only the JSON value true
    ],
)
def test_known_agent_client_names_are_agents(name: str, options: dict[str, Any], agent: bool) -> None:
    from freshpass.server.client import is_agent_client

    assert is_agent_client(name, options) is agent
