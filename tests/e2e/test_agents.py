"""Coding agents against the real server over stdio (design §7), each test with Neovim's and VS Code's capabilities.

Scripted agents behave like the ones in the wild: an OpenCode-like client writes the file, sends `didChange`
without saving, pulls diagnostics and keeps only errors; a Crush-like client only listens to pushes and waits about
a second; a deduplicating client drops a diagnostic whose text it already saw. Evidence comes from the real
`freshpass run` process, as an agent's shell would produce it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.conftest import git, make_calc_project, run_cli

pytestmark = pytest.mark.e2e

CLIENTS = ["neovim", "visual-studio-code"]
SERVER = [sys.executable, "-m", "freshpass", "serve"]
TOOL_PATH = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
STARTUP_TIMEOUT = 20.0
AGENT_WAIT = 5.0  # how long OpenCode-like agents wait for diagnostics after an edit
PUSH_WAIT = 1.0  # Crush-like agents: a publish must arrive within a second


class AgentClient(LanguageClient):
    """The pytest-lsp client, plus an event for each `workspace/diagnostic/refresh` the server sends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refreshed = asyncio.Event()
        self.flavor = "neovim"  # which recorded capability set `start` initializes with


def _on_diagnostic_refresh(client: AgentClient, params: None) -> None:
    client.diagnostic_refresh_count += 1
    client.refreshed.set()


def _on_code_lens_refresh(client: AgentClient, params: None) -> None:
    """VS Code's capabilities declare code lens refresh; these agents show no lenses, so there is nothing to do."""


def _on_registration(client: AgentClient, params: Any) -> None:
    """Dynamic registrations (VS Code declares them for watched files) are accepted and not acted upon."""


def make_client() -> AgentClient:
    client = AgentClient(converter_factory=default_converter)
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.WORKSPACE_DIAGNOSTIC_REFRESH: _on_diagnostic_refresh,
            types.WORKSPACE_CODE_LENS_REFRESH: _on_code_lens_refresh,
            types.CLIENT_REGISTER_CAPABILITY: _on_registration,
            types.CLIENT_UNREGISTER_CAPABILITY: _on_registration,
        },
    )
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client), params=CLIENTS)
async def client(lsp_client: AgentClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    lsp_client.flavor = request.param
    yield
    await lsp_client.shutdown_session()  # shutdown, exit, and wait for the server process to end


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed Python project whose approved test command is `pytest`."""
    return make_calc_project(tmp_path / "project")


def as_json(value: Any) -> Any:
    """pygls hands custom responses back as namedtuples: turn them into plain JSON values."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: as_json(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


async def start(
    client: AgentClient,
    repo: Path,
    *,
    name: str,
    options: dict[str, Any] | None = None,
    pull: bool = False,
) -> None:
    """Initialize as the agent `name` would, and wait until the server reported the root's first status."""
    capabilities = client_capabilities(client.flavor)
    if pull:  # an agent that pulls diagnostics and can be told to pull again
        assert capabilities.workspace is not None and capabilities.text_document is not None
        capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(dynamic_registration=False)
    first_status = asyncio.ensure_future(client.wait_for_notification("freshpass/statusChanged"))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            client_info=types.ClientInfo(name=name),
            root_uri=repo.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name=repo.name)],
            initialization_options=options or {},
        )
    )
    await asyncio.wait_for(first_status, STARTUP_TIMEOUT)


async def check_done(client: AgentClient, **params: Any) -> dict[str, Any]:
    return as_json(await client.protocol.send_request_async("freshpass/checkDone", params))


async def freshpass_run(*command: str, cwd: Path) -> None:
    result = await asyncio.to_thread(run_cli, "run", "--", *command, cwd=cwd, env=TOOL_PATH)
    assert result.returncode == 0, result.stderr


def open_file(client: AgentClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text())
        )
    )
    return uri


def agent_writes(client: AgentClient, path: Path, text: str, version: int) -> None:
    """What agents do: write the file to disk, then tell the server with a full-text didChange, never a save."""
    path.write_text(text)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def next_publish(client: AgentClient, uri: str, accept: Callable[[list[types.Diagnostic]], bool]) -> Any:
    """The next publishDiagnostics for `uri` whose diagnostics `accept` (other publishes are skipped)."""
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and accept(list(params.diagnostics)):
            return list(params.diagnostics)


def freshpass_errors(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    """What an errors-only agent keeps."""
    return [d for d in diagnostics if d.source == "freshpass" and d.severity == types.DiagnosticSeverity.Error]


async def status_becomes(client: AgentClient, root: Path, wanted: str, timeout: float = 20.0) -> dict[str, Any]:
    """The root's status once it says `wanted`, waiting on the server's statusChanged notifications (not on time);
    the last status seen when `timeout` passes first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        changed = asyncio.ensure_future(client.wait_for_notification("freshpass/statusChanged"))
        status = as_json(await client.protocol.send_request_async("freshpass/status", {"root": str(root)}))
        remaining = deadline - loop.time()
        if status["status"] == wanted or remaining <= 0:
            changed.cancel()
            return status
        try:
            await asyncio.wait_for(changed, remaining)
        except TimeoutError:
            pass


# ---- freshpass/checkDone -------------------------------------------------------------------------------------------


async def test_check_done_nudges_twice_then_exhausted_then_verified(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="hermes-harness", options={"agent": True, "sessionId": "run-42"})
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")

    responses = [await check_done(client, sessionId="run-42") for _ in range(3)]
    assert [response["verdict"] for response in responses] == ["nudge", "nudge", "exhausted"]
    assert [response["nudgesLeft"] for response in responses] == [1, 0, 0]
    first = responses[0]
    assert first["synthetic"] is True
    assert "src/calc.py" in first["message"]
    assert "`freshpass run -- pytest`" in first["message"]
    assert "report that blocker plainly" in first["message"]
    assert first["commands"][0]["command"] == "pytest"
    assert first["status"]["root"] == str(repo)

    await freshpass_run("pytest", cwd=repo)
    verified = await check_done(client, sessionId="run-42")
    assert verified["verdict"] == "verified", verified["message"]
    assert verified["synthetic"] is False
    assert "passed (full)" in verified["message"]


async def test_check_done_quotes_an_unbacked_claim_until_a_pass_backs_it(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="hermes-harness", options={"agent": True})
    claimed = await check_done(client, sessionId="s", message="Fixed it. All tests pass.")
    assert claimed["verdict"] == "nudge", claimed["message"]
    assert "You wrote “All tests pass.”" in claimed["message"]
    assert claimed["claims"] == [{"kind": "test", "quote": "All tests pass.", "backed": False}]

    await freshpass_run("pytest", cwd=repo)
    backed = await check_done(client, sessionId="s", message="Fixed it. All tests pass.")
    assert backed["verdict"] == "verified", backed["message"]
    assert backed["claims"] == [{"kind": "test", "quote": "All tests pass.", "backed": True}]


async def test_session_defaults_to_the_initialization_session(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="hermes-harness", options={"agent": True, "sessionId": "init-session"})
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    verdicts = [(await check_done(client))["verdict"] for _ in range(2)]
    # Spent from the same budget as an explicit sessionId equal to the initialization's.
    verdicts.append((await check_done(client, sessionId="init-session"))["verdict"])
    verdicts.append((await check_done(client, sessionId="someone-else"))["verdict"])
    assert verdicts == ["nudge", "nudge", "exhausted", "nudge"]


async def test_targeted_pass_is_reported_as_targeted_not_verified(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="opencode")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    await freshpass_run("pytest", "tests/test_calc.py", cwd=repo)

    response = await check_done(client, sessionId="s")
    assert response["verdict"] == "nudge"
    assert "Only a targeted test run, `pytest tests/test_calc.py`" in response["message"]
    assert response["status"]["kinds"]["test"]["scope"] == "targeted"
    assert "passed (full)" not in response["message"]


async def test_prose_only_edits(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="opencode")
    (repo / "README.md").write_text("# demo\n\nNew words.\n")
    (repo / "CHANGELOG.md").write_text("- a note\n")
    nothing = await check_done(client, sessionId="s", changedPaths=["README.md", str(repo / "CHANGELOG.md")])
    assert nothing["verdict"] == "not_applicable", nothing["message"]

    await freshpass_run("pytest", cwd=repo)
    (repo / "README.md").write_text("# demo\n\nNewer words.\n")
    still = await check_done(client, sessionId="s", changedPaths=[(repo / "README.md").as_uri()])
    assert still["verdict"] == "verified", still["message"]


async def test_changed_paths_from_the_agent_count(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="opencode")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "commit", "-qam", "the agent's edit")  # committed: git shows nothing, only the agent's list does
    response = await check_done(client, sessionId="s", changedPaths=[(repo / "src" / "calc.py").as_uri()])
    assert response["verdict"] == "nudge"
    assert response["changedPaths"] == ["src/calc.py"]


async def test_outside_any_root_is_not_applicable(client: AgentClient, repo: Path, tmp_path: Path) -> None:
    await start(client, repo, name="opencode")
    plain = tmp_path / "plain"
    plain.mkdir()
    response = await check_done(client, sessionId="s", root=str(plain))
    assert response["verdict"] == "not_applicable"
    assert response["status"] is None


# ---- diagnostics as agents read them -------------------------------------------------------------------------------


async def test_opencode_like_client_pulls_and_sees_the_nudge_as_an_error(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="opencode", options={"diagnostics": {"agentSeverity": "error"}}, pull=True)
    source = repo / "src" / "calc.py"
    uri = open_file(client, source)
    client.refreshed.clear()
    agent_writes(client, source, "def add(a, b):\n    return b + a\n", version=2)

    async def pull_until_error() -> list[types.Diagnostic]:
        while True:
            report = await client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            errors = freshpass_errors(list(getattr(report, "items", []) or []))
            if errors:
                return errors
            await client.refreshed.wait()  # the server says when a new pull would answer differently
            client.refreshed.clear()

    errors = await asyncio.wait_for(pull_until_error(), AGENT_WAIT)
    assert len(errors) == 1
    assert "`freshpass run -- pytest`" in errors[0].message  # a bare `pytest` would leave no receipt
    assert errors[0].range.start.line == 0


async def test_crush_like_push_client_gets_a_publish_within_a_second(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="crush")
    source = repo / "src" / "calc.py"
    uri = open_file(client, source)
    publish = asyncio.ensure_future(next_publish(client, uri, lambda found: bool(freshpass_errors(found))))
    agent_writes(client, source, "def add(a, b):\n    return b + a\n", version=2)
    diagnostics = await asyncio.wait_for(publish, PUSH_WAIT)
    assert "`freshpass run -- pytest`" in freshpass_errors(diagnostics)[0].message


async def test_dedup_by_text_client_sees_a_changed_message_after_a_second_edit(client: AgentClient, repo: Path) -> None:
    await start(client, repo, name="crush")
    source = repo / "src" / "calc.py"
    uri = open_file(client, source)
    seen: set[str] = set()

    def unseen(found: list[types.Diagnostic]) -> bool:
        return any(d.message not in seen for d in freshpass_errors(found))

    first = asyncio.ensure_future(next_publish(client, uri, unseen))
    agent_writes(client, source, "def add(a, b):\n    return b + a\n", version=2)
    seen |= {d.message for d in freshpass_errors(await asyncio.wait_for(first, AGENT_WAIT))}

    second = asyncio.ensure_future(next_publish(client, uri, unseen))
    agent_writes(client, source, "def add(a, b):\n    return a + b + 0\n", version=3)
    fresh_messages = {d.message for d in freshpass_errors(await asyncio.wait_for(second, AGENT_WAIT))} - seen
    assert fresh_messages, "the second edit must change the text, or a deduplicating agent drops it"


async def test_a_project_outside_the_workspace_folders_is_checked_directly(
    client: AgentClient, repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "lib").mkdir(parents=True)
    (other / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (other / "lib" / "mod.py").write_text("X = 1\n")
    git(other, "init", "-q")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "init")
    (other / "lib" / "mod.py").write_text("X = 2\n")
    await start(client, repo, name="opencode")

    response = await check_done(client, sessionId="s", uri=(other / "lib" / "mod.py").as_uri())
    assert response["verdict"] == "nudge"
    assert response["status"]["root"] == str(other)
    assert response["changedPaths"] == ["lib/mod.py"]


@pytest.mark.parametrize(
    "params",
    [
        {"sessionId": 42},
        {"changedPaths": "src/calc.py"},
        {"changedPaths": [1, 2]},
        {"message": ["All tests pass."]},
    ],
    ids=["session-not-a-string", "paths-not-a-list", "paths-not-strings", "message-not-a-string"],
)
async def test_malformed_check_done_params_are_rejected_clearly(
    client: AgentClient, repo: Path, params: dict[str, Any]
) -> None:
    await start(client, repo, name="opencode")
    with pytest.raises(JsonRpcInvalidParams, match="freshpass/checkDone"):
        await client.protocol.send_request_async("freshpass/checkDone", params)
    # The server is still there for the next, well-formed request.
    assert (await check_done(client, sessionId="s"))["verdict"] == "not_applicable"


async def test_a_fail_then_a_pass_on_the_same_content_is_flaky_in_status_and_check_done(
    client: AgentClient, repo: Path, tmp_path: Path
) -> None:
    """Two receipts of the same full check on identical content, a failure then a pass: the server's status and
    checkDone say `flaky`, name both receipts, and do not count the pass as done (the CLI agrees)."""
    flag = tmp_path / "ran-once"  # outside the project: both runs see the same content
    (repo / "tests" / "test_once.py").write_text(
        "from pathlib import Path\n\n\ndef test_fails_the_first_time():\n"
        f"    flag = Path({str(flag)!r})\n    if not flag.exists():\n        flag.write_text('')\n"
        "        raise AssertionError('the first run fails')\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a test that fails once")
    await start(client, repo, name="hermes-harness", options={"agent": True})

    first = await asyncio.to_thread(run_cli, "run", "--", "pytest", cwd=repo, env=TOOL_PATH)
    assert first.returncode != 0, first.stdout
    await freshpass_run("pytest", cwd=repo)

    status = await status_becomes(client, repo, "flaky")  # the server sees the second receipt when the ledger changes
    assert status["status"] == "flaky", status
    test = status["kinds"]["test"]
    assert test["status"] == "flaky"
    assert {outcome: receipt["status"] for outcome, receipt in test["flaky"].items()} == {
        "passed": "passed",
        "failed": "failed",
    }
    done = await check_done(client, sessionId="s")
    assert done["verdict"] != "verified", done["message"]
    assert "flaky" in done["message"]
    cli = await asyncio.to_thread(run_cli, "status", cwd=repo, env=TOOL_PATH)
    assert cli.returncode != 0 and "flaky" in cli.stdout, cli.stdout
