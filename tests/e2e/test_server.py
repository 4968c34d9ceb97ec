"""The language server end to end (docs/design.md §6): each test runs as Neovim 0.11 and as VS Code."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.conftest import live_group_members
from tests.e2e.conftest import PYPROJECT, Session, as_json, git, make_project

pytestmark = pytest.mark.e2e

TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"


def edit(path: Path, text: str) -> None:
    path.write_text(text)


async def save_edit(lsp: Session, path: Path, text: str, version: int) -> None:
    """What an editor does: the buffer changes, the file is written, didSave follows."""
    lsp.change(path, text, version)
    edit(path, text)
    lsp.save(path)


async def verify(lsp: Session, **arguments: object) -> dict:
    return as_json(await lsp.execute("freshpass.verify", arguments))


def saved_and_stale(found: list[types.Diagnostic]) -> bool:
    """The diagnostic of a saved edit — not the "unsaved changes" one its didChange may publish first."""
    return len(found) == 1 and found[0].code == "stale"


def only_diagnostic(lsp: Session, path: Path) -> types.Diagnostic:
    diagnostics = lsp.diagnostics(path)
    assert len(diagnostics) == 1, diagnostics
    return diagnostics[0]


async def test_save_with_changes_publishes_a_stale_diagnostic_and_unverified_lens(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    assert (await lsp.lenses(app))[0] == "⚠ unverified · no receipt yet"

    await save_edit(lsp, app, "def answer():\n    return 43\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)
    diagnostic = only_diagnostic(lsp, app)
    assert diagnostic.source == "freshpass"
    assert diagnostic.range.start == types.Position(line=0, character=0)
    assert diagnostic.range.end.line == 0
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert "`src/app.py`" in diagnostic.message
    assert f"Run `{TEST_COMMAND}`" in diagnostic.message
    assert "Unsaved" not in diagnostic.message
    titles = await lsp.lenses(app)
    assert titles[0].startswith("⚠ unverified · 1 file changed")
    assert titles[1] == f"▶ Run {TEST_COMMAND}"


async def test_pull_diagnostics_only_for_clients_that_can_be_told_to_refresh(lsp: Session, project: Path) -> None:
    result = await lsp.initialize(project, pull_diagnostics=True)
    assert result.capabilities.diagnostic_provider is not None
    app = project / "src" / "app.py"
    lsp.open(app)

    async def pulled() -> list[types.Diagnostic]:
        report = await lsp.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=app.as_uri()))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        return list(report.items)

    # Each workspace/diagnostic/refresh is the server saying "pull again"; pull until the saved edit shows.
    lsp.diagnostics_refreshed.clear()
    await save_edit(lsp, app, "def answer():\n    return 5\n", version=2)
    deadline = asyncio.get_running_loop().time() + 10
    while not saved_and_stale(items := await pulled()):
        await asyncio.wait_for(lsp.diagnostics_refreshed.wait(), timeout=deadline - asyncio.get_running_loop().time())
        lsp.diagnostics_refreshed.clear()
    assert lsp.client.diagnostic_refresh_count > 0
    assert items[0].source == "freshpass"
    assert app.as_uri() not in lsp.client.diagnostics  # pulled, never also pushed


async def test_push_only_clients_get_no_diagnostic_provider(lsp: Session, project: Path) -> None:
    result = await lsp.initialize(project)
    assert result.capabilities.diagnostic_provider is None


async def test_save_without_changes_changes_nothing(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    first = await verify(lsp)
    assert first["evidence"]["status"] == "passed"
    published_before = dict(lsp.client.diagnostics)
    changes_before = len(lsp.status_changes)

    lsp.save(app)  # nothing changed on disk
    status = await lsp.status(project)  # answered after the save's refresh settled

    assert status["status"] == "passed"
    assert lsp.client.diagnostics == published_before
    assert not lsp.diagnostics(app)
    assert len(lsp.status_changes) == changes_before
    assert (await lsp.lenses(app))[0].startswith("✓ full")


async def test_verify_reports_progress_streams_output_records_and_clears(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 42  # same answer\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)

    result = await verify(lsp, root=str(project))

    evidence = result["evidence"]
    assert evidence["status"] == "passed"
    assert evidence["scope"] == "full"
    assert evidence["kind"] == "test"
    assert evidence["command"] == TEST_COMMAND
    assert evidence["tests"] == {"passed": 1, "failed": 0, "skipped": 0}
    assert result["status"]["status"] == "passed"
    # $/progress: begin, at least one report, end
    reports = [r for reports in lsp.client.progress_reports.values() for r in reports]
    kinds = [r.kind for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert reports[0].cancellable is True
    # streamed output
    streamed = "".join(o["text"] for o in lsp.outputs if o["stream"] == "stdout")
    assert "1 passed" in streamed
    assert {o["command"] for o in lsp.outputs} == {TEST_COMMAND}
    # diagnostics cleared, lens says full, receipts listed
    await lsp.until_diagnostics(app, lambda found: not found)
    assert (await lsp.lenses(app))[0].startswith(f"✓ full · {TEST_COMMAND}")
    receipts = as_json(await lsp.execute("freshpass.receipts", {"root": str(project)}))
    assert receipts["receipts"][0]["id"] == evidence["id"]


async def test_edit_after_a_pass_says_since_which_receipt_and_undo_makes_it_fresh(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    original = app.read_text()
    lsp.open(app)
    await verify(lsp)

    await save_edit(lsp, app, "def answer():\n    return 41 + 1\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)
    message = only_diagnostic(lsp, app).message
    assert f"changed since `{TEST_COMMAND}` passed (full)" in message
    assert "1 file changed since" in message
    titles = await lsp.lenses(app)
    assert titles[0].startswith("⚠ unverified · 1 file changed")

    hover = await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=app.as_uri()), position=types.Position(line=0, character=0)
        )
    )
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert "`src/app.py`" in text and TEST_COMMAND in text and "passed" in text

    await save_edit(lsp, app, original, version=3)  # undo
    await lsp.until_diagnostics(app, lambda found: not found)
    assert (await lsp.lenses(app))[0].startswith("✓ full")


async def test_failing_command_gives_a_failed_lens_with_the_reason(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    test_file = project / "tests" / "test_app.py"
    edit(test_file, test_file.read_text().replace("== 42", "== 0"))
    lsp.open(test_file)

    result = await verify(lsp)

    assert result["evidence"]["status"] == "failed"
    assert result["evidence"]["exit_code"] == 1
    assert (await lsp.lenses(test_file))[0].startswith("✗ failed · exit 1")


async def test_targeted_run_gives_a_targeted_lens(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    test_file = project / "tests" / "test_app.py"
    lsp.open(test_file)

    result = await verify(lsp, uri=test_file.as_uri(), targeted=True)

    assert result["evidence"]["scope"] == "targeted"
    assert result["evidence"]["status"] == "passed"
    assert (await lsp.lenses(test_file))[0].startswith("◐ targeted")


async def test_code_actions_offer_the_approved_commands_a_targeted_check_and_receipts(
    lsp: Session, project: Path
) -> None:
    await lsp.initialize(project)
    test_file = project / "tests" / "test_app.py"
    lsp.open(test_file)
    actions = await lsp.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=test_file.as_uri()),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions
    titles = [action.title for action in actions]
    assert any(TEST_COMMAND in title for title in titles)
    assert any("targeted" in title and "tests/test_app.py" in title for title in titles)
    assert "freshpass: show receipts" in titles


async def test_file_changed_on_disk_by_another_process_gets_a_diagnostic(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    await lsp.status(project)  # the server has looked at the root
    other = project / "src" / "other.py"

    edit(other, "VALUE = 1\n")  # no LSP message at all

    await lsp.until_diagnostics(other, lambda found: len(found) == 1)
    assert "`src/other.py`" in only_diagnostic(lsp, other).message


async def test_agent_did_change_without_save_counts_when_the_disk_changed(lsp: Session, project: Path) -> None:
    await lsp.initialize(project, options={"agent": True})
    app = project / "src" / "app.py"
    lsp.open(app)
    text = "def answer():\n    return 7\n"
    edit(app, text)
    lsp.change(app, text, version=2)  # agents write the file, then didChange, never didSave

    # The watcher may see the write before didChange arrives (buffer briefly behind the disk): wait for both.
    await lsp.until_diagnostics(app, lambda found: len(found) == 1 and "Unsaved" not in found[0].message)
    diagnostic = only_diagnostic(lsp, app)
    assert diagnostic.severity == types.DiagnosticSeverity.Error  # agentSeverity
    assert "Unsaved" not in diagnostic.message


async def test_unsaved_buffer_says_its_changes_are_not_covered(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await verify(lsp)

    lsp.change(app, "def answer():\n    return 0\n", version=2)  # typed, not saved

    await lsp.until_diagnostics(app, lambda found: len(found) == 1)
    diagnostic = only_diagnostic(lsp, app)
    assert diagnostic.code == "unsaved"
    assert "Unsaved changes" in diagnostic.message


async def test_evidence_from_a_separate_freshpass_run_updates_status_and_clears(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 6 * 7\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)

    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "freshpass",
        "run",
        "--",
        *TEST_COMMAND.split(),
        cwd=project,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await process.communicate()
    assert process.returncode == 0, stderr

    status = await lsp.until_status(lambda s: s["status"] == "passed" and s["root"] == str(project))
    assert status["evidence"]["command"] == TEST_COMMAND
    await lsp.until_diagnostics(app, lambda found: not found)


async def test_cancel_a_long_verify_kills_the_process_group(lsp: Session, tmp_path: Path) -> None:
    slow = PYPROJECT.replace(
        'verify = [{command = "python -m pytest -q -p no:cacheprovider", kind = "test"}]',
        'verify = [{command = "python slow.py", kind = "test"}]',
    )
    project = make_project(tmp_path / "slow", slow)
    (project / "slow.py").write_text(
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "print('pgid', os.getpgid(0), flush=True)\n"
        "time.sleep(120)\n"
    )
    await lsp.initialize(project)

    running = asyncio.ensure_future(lsp.execute("freshpass.verify", {"root": str(project)}))
    printed = await lsp.until(
        lambda: re.search(r"pgid (\d+)\n", "".join(o["text"] for o in lsp.outputs)), method="freshpass/output"
    )
    pgid = int(printed.group(1))
    cancelled = as_json(await lsp.execute("freshpass.cancel", {"root": str(project)}))
    assert cancelled["cancelled"] == 1
    result = as_json(await asyncio.wait_for(running, 30))

    assert not live_group_members(pgid)  # zombies count as gone: an orphan is reaped by init, in its own time
    assert result["evidence"] is None or result["evidence"]["status"] == "failed"
    assert result["exitCode"] in (128 + signal.SIGTERM, 128 + signal.SIGKILL)


async def test_two_workspace_folders_keep_separate_statuses(lsp: Session, tmp_path: Path) -> None:
    first = make_project(tmp_path / "first")
    second = make_project(tmp_path / "second")
    await lsp.initialize(first, second)

    await verify(lsp, root=str(first))

    assert (await lsp.status(first))["status"] == "passed"
    assert (await lsp.status(second))["status"] == "unverified"
    third = make_project(tmp_path / "third")
    lsp.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=third.as_uri(), name="third")],
                removed=[types.WorkspaceFolder(uri=second.as_uri(), name="second")],
            )
        )
    )
    assert (await lsp.status(third))["status"] == "unverified"
    assert (await lsp.status(third))["root"] == str(third)


async def test_non_file_uris_and_files_outside_every_root_are_ignored(
    lsp: Session, project: Path, tmp_path: Path
) -> None:
    await lsp.initialize(project)
    outside = tmp_path / "elsewhere" / "notes.py"
    outside.parent.mkdir()
    outside.write_text("x = 1\n")
    untitled = "untitled:Untitled-1"
    lsp.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=untitled, language_id="python", version=1, text="x = 1\n")
        )
    )
    lsp.open(outside)
    lsp.change(outside, "x = 2\n", version=2)
    lsp.save(outside)

    for uri in (untitled, outside.as_uri()):
        lenses = await lsp.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert not lenses
    assert (await lsp.status(project))["status"] == "unverified"  # still serving
    assert untitled not in lsp.client.diagnostics and outside.as_uri() not in lsp.client.diagnostics
    assert not [m for m in lsp.client.log_messages if m.type == types.MessageType.Error]


@pytest.fixture
def corrupt_ledger() -> Path:
    ledger = Path(os.environ["FRESHPASS_LEDGER"])
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(b"this is not a database" * 100)
    return ledger


async def test_corrupt_ledger_does_not_crash_the_server(corrupt_ledger: Path, tmp_path: Path) -> None:
    # The ledger must be corrupt before the server starts, so this test starts its own sessions.
    from tests.e2e.conftest import CLIENTS

    project = make_project(tmp_path / "demo")
    for name in CLIENTS:
        async with started_session(name) as lsp:
            await lsp.initialize(project)
            result = await verify(lsp)
            assert result["evidence"]["status"] == "passed"
            assert (await lsp.status(project))["status"] == "passed"
            warnings = [m.message for m in lsp.client.log_messages if m.type == types.MessageType.Warning]
            if name == sorted(CLIENTS)[0]:
                assert any("corrupt" in message or "moved" in message for message in warnings), warnings
    moved_aside = [
        p for p in corrupt_ledger.parent.iterdir() if p.name.startswith(corrupt_ledger.name) and p != corrupt_ledger
    ]
    assert any(p.read_bytes().startswith(b"this is not a database") for p in moved_aside if p.is_file())


@pytest.fixture
def unusable_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the ledger's directory should be\n")
    monkeypatch.setenv("FRESHPASS_LEDGER", str(blocker / "ledger.db"))
    return blocker


async def test_unusable_ledger_degrades_with_one_message(unusable_ledger: Path, lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 3\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)  # edits are still tracked

    assert (await lsp.status(project))["status"] == "unverified"
    result = await verify(lsp)
    assert result["evidence"] is None and result["recorded"] is False
    about_ledger = [m.message for m in lsp.client.log_messages if "the ledger" in m.message]
    assert len(about_ledger) == 1, about_ledger
    assert "receipts are unavailable" in about_ledger[0] and "FRESHPASS_LEDGER" in about_ledger[0]


async def test_settings_from_initialization_options_and_bad_values(lsp: Session, project: Path) -> None:
    await lsp.initialize(project, options={"diagnostics": {"severity": "information"}, "codeLens": {"enabled": "yes"}})
    app = project / "src" / "app.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 1\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)
    assert only_diagnostic(lsp, app).severity == types.DiagnosticSeverity.Information
    warnings = [m.message for m in lsp.client.log_messages if m.type == types.MessageType.Warning]
    assert any("freshpass.codeLens.enabled = 'yes'" in message for message in warnings)
    assert await lsp.lenses(app)  # the bad value fell back to the default (enabled)


async def test_did_change_configuration_rereads_workspace_configuration(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 2\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)
    assert only_diagnostic(lsp, app).severity == types.DiagnosticSeverity.Warning

    lsp.client.set_configuration({"diagnostics": {"severity": "error"}}, section="freshpass")
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))

    await lsp.until_diagnostics(app, lambda found: found and found[0].severity == types.DiagnosticSeverity.Error)


async def test_watched_files_registered_only_for_clients_that_support_it(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    await lsp.status(project)  # requests are answered once startup, registrations included, is done
    methods = {registration.method for registration in lsp.registrations}
    if lsp.name == "vscode":
        assert types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods
    else:
        assert not methods


class _Started:
    def __init__(self, name: str) -> None:
        self.name = name

    async def __aenter__(self) -> Session:
        from pytest_lsp import ClientServerConfig

        from tests.e2e.conftest import SERVER, attach

        config: ClientServerConfig = SERVER
        client = await config.start()
        self.session = attach(client, self.name)  # type: ignore[arg-type]
        return self.session

    async def __aexit__(self, *exc: object) -> None:
        if self.session.initialized:
            await self.session.client.shutdown_session()
        await self.session.client.stop()


def started_session(name: str) -> _Started:
    return _Started(name)


async def test_untrusted_workspace_runs_nothing_but_still_reports_status(lsp: Session, project: Path) -> None:
    await lsp.initialize(project, options={"trusted": False})
    marker = project / "ran"
    # A verify of an explicit command that would leave a trace if it ran at all.
    with pytest.raises(JsonRpcException, match="not a trusted workspace"):
        await lsp.execute("freshpass.verify", {"root": str(project), "command": f"touch {marker}"})
    assert not marker.exists()
    # No git runs either: the content id is computed in Python (tests/e2e/test_untrusted.py).
    assert (await lsp.status(project))["status"] == "unverified"
    warnings = [m.message for m in lsp.client.log_messages if m.type == types.MessageType.Warning]
    assert not any("trusted" in message for message in warnings), warnings  # not mistaken for a setting


async def test_lens_refresh_follows_content_even_when_the_status_does_not_change(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app, other = project / "src" / "app.py", project / "src" / "other.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 43\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)
    assert (await lsp.lenses(app))[0].startswith("⚠ unverified · 1 file changed")

    # Still unverified with no receipt: the status JSON is the same, but the lens's count of changed files is not,
    # so clients that can be told to re-fetch lenses are told.
    lsp.lens_refreshed.clear()
    edit(other, "X = 1\n")
    await lsp.until_diagnostics(other, lambda found: len(found) == 1)
    capability = lsp.capabilities.workspace.code_lens if lsp.capabilities.workspace else None
    if capability and capability.refresh_support:
        await asyncio.wait_for(lsp.lens_refreshed.wait(), timeout=10)
    assert (await lsp.lenses(app))[0].startswith("⚠ unverified · 2 files changed")


async def test_a_client_that_never_answers_a_refresh_request_does_not_stall_the_server(
    lsp: Session, project: Path
) -> None:
    capability = lsp.capabilities.workspace.code_lens if lsp.capabilities.workspace else None
    if not (capability and capability.refresh_support):
        await lsp.initialize(project)  # a started session, so that teardown can shut it down
        pytest.skip("this client never receives workspace/codeLens/refresh")
    never_answered, released = asyncio.Event(), asyncio.Event()

    async def hang(params: None) -> None:
        never_answered.set()
        await released.wait()  # until the test is over: the client must still be able to shut down after it

    lsp.client.protocol.fm.features[types.WORKSPACE_CODE_LENS_REFRESH] = hang
    try:
        await hangs_without_stalling(lsp, project, never_answered)
    finally:
        released.set()


async def hangs_without_stalling(lsp: Session, project: Path, never_answered: asyncio.Event) -> None:
    await lsp.initialize(project)
    app, other = project / "src" / "app.py", project / "src" / "other.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 7\n", version=2)
    await lsp.until_diagnostics(app, saved_and_stale)
    await asyncio.wait_for(never_answered.wait(), timeout=10)

    # The lens refresh is still unanswered; later changes and runs must flow all the same.
    edit(other, "X = 1\n")
    await lsp.until_diagnostics(other, lambda found: len(found) == 1)
    await save_edit(lsp, app, "def answer():\n    return 42\n", version=3)
    result = await verify(lsp)
    assert result["evidence"]["status"] == "passed"
    await lsp.until_status(lambda status: status["status"] == "passed")


async def test_an_edit_saved_right_after_initialized_is_flagged(lsp: Session, project: Path) -> None:
    # An agent (or a Neovim that writes at once) starts the server on first touch and edits before the server has
    # looked at the root: the edit must not be absorbed into what the server compares later edits with.
    params = types.InitializeParams(
        capabilities=lsp.capabilities,
        client_info=types.ClientInfo(name="Neovim" if lsp.name == "neovim" else "Visual Studio Code"),
        root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name=project.name)],
    )
    await lsp.client.initialize_session(params)  # sends `initialized`; nothing here waits for the first look
    initialized_at = time.monotonic()
    lsp.initialized = True
    app = project / "src" / "app.py"
    edit(app, "def answer():\n    return 43\n")
    lsp.open(app)
    lsp.save(app)
    assert time.monotonic() - initialized_at < 0.05  # saved within 50 ms of `initialized`
    await lsp.until_diagnostics(app, saved_and_stale)
    assert "`src/app.py`" in only_diagnostic(lsp, app).message


async def test_an_editor_ignore_setting_never_changes_what_a_terminal_receipt_is_bound_to(
    lsp: Session, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "project")
    (project / "generated").mkdir()
    (project / "generated" / "schema.py").write_text("SCHEMA = 1\n")
    (project / "NOTES.md").write_text("notes\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "generated code and notes")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "freshpass", "run", "--", *TEST_COMMAND.split(), cwd=project,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, stderr = await process.communicate()
    assert process.returncode == 0, stderr

    # The editor hides generated/** and does not ignore prose: neither changes the content id the receipt names.
    await lsp.initialize(project, options={"ignore": ["generated/**"], "ignoreProse": False})
    status = await lsp.status(project)
    assert (status["status"], status["scope"]) == ("passed", "full"), status

    # A change under the editor's ignore globs still makes the receipt stale (the project does not ignore it),
    # but the editor does not flag the file.
    schema = project / "generated" / "schema.py"
    lsp.open(schema)
    await save_edit(lsp, schema, "SCHEMA = 2\n", version=2)
    status = await lsp.until_status(lambda s: s["status"] == "stale" and s["root"] == str(project))
    assert status["changed_paths"] == ["generated/schema.py"]
    assert lsp.diagnostics(schema) == []
