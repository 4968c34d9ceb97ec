"""What a person reads from the server, end to end (design §6), as Neovim 0.11 and as VS Code.

- a diagnostic says nothing that moves with the clock: a second edit of a file that is already stale publishes
  nothing new (the time of the latest change is in the hover);
- a failed run keeps the diagnostic of the files it did not clear ("the last run … failed") until a pass.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import Session, as_json

pytestmark = pytest.mark.e2e


def write(path: Path, text: str) -> None:
    path.write_text(text)


async def save_edit(lsp: Session, path: Path, text: str, version: int) -> None:
    """What an editor does: the buffer changes, the file is written, didSave follows."""
    lsp.change(path, text, version)
    write(path, text)
    lsp.save(path)


def saved(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda found: len(found) == 1 and found[0].code == code


def record_publishes(lsp: Session, path: Path) -> list[str]:
    """The freshpass messages of every publish for `path` from now on (pytest-lsp's own handler still runs)."""
    published: list[str] = []
    features = lsp.client.protocol.fm.features
    keep = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        try:
            if params.uri == path.as_uri():
                published.extend(d.message for d in params.diagnostics if d.source == "freshpass")
        except Exception:  # a notification handler must never raise into pytest-lsp
            pass
        keep(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = on_publish
    return published


async def hover(lsp: Session, path: Path) -> str:
    result = await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=0, character=0)
        )
    )
    assert result is not None
    return str(result.contents.value)  # type: ignore[union-attr]


async def test_a_second_edit_of_a_stale_file_publishes_nothing_new(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await lsp.execute("freshpass.verify", {"root": str(project)})
    await lsp.until_diagnostics(app, lambda found: not found)

    await save_edit(lsp, app, "def answer():\n    return 43\n", version=2)
    await lsp.until_diagnostics(app, saved("stale"))
    first = lsp.diagnostics(app)[0].message
    assert not re.search(r"\d:\d\d|ago|just now|#", first), f"nothing that moves with the clock: {first}"

    # A second edit of the same file: typing shows the unsaved note, saving takes it back, and then the text is
    # what it was — one publish for the save, with the same words (the time of the change is in the hover).
    second = "def answer():\n    return 44\n"
    lsp.change(app, second, 3)
    await lsp.until_diagnostics(app, lambda found: len(found) == 1 and "Unsaved changes" in found[0].message)
    published = record_publishes(lsp, app)
    write(app, second)
    lsp.save(app)
    await lsp.until(lambda: published, method=types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    await lsp.status(project)  # answered once the refresh the save started has finished and published
    assert published == [first]
    text = await hover(lsp, app)
    assert "Latest change:" in text and "change #" in text


async def test_a_failed_run_keeps_the_diagnostic_of_the_changed_file(lsp: Session, project: Path) -> None:
    await lsp.initialize(project)
    app = project / "src" / "app.py"
    lsp.open(app)
    await save_edit(lsp, app, "def answer():\n    return 41\n", version=2)
    await lsp.until_diagnostics(app, saved("stale"))

    result = as_json(await lsp.execute("freshpass.verify", {"root": str(project)}))
    assert result["evidence"]["status"] == "failed"
    await lsp.until_status(lambda status: status["status"] == "failed")
    await lsp.until_diagnostics(app, saved("failed"))
    message = lsp.diagnostics(app)[0].message
    assert "is not covered by a passing run: the last run" in message and "failed (full, exit 1)" in message

    await save_edit(lsp, app, "def answer():\n    return 42\n", version=3)  # the fix, not yet run
    await lsp.until_diagnostics(app, saved("stale"))
    result = as_json(await lsp.execute("freshpass.verify", {"root": str(project)}))
    assert result["evidence"]["status"] == "passed"
    await lsp.until_diagnostics(app, lambda found: not found)


def test_cancelling_a_finished_request_leaves_the_log_quiet(tmp_path: Path) -> None:
    """VS Code cancels requests that already finished; pygls's warning about each one stays out of the editor's
    output channel (the server's stderr). Other warnings still reach it."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 77}},
        {"jsonrpc": "2.0", "method": "custom/unknownNotification", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    stdin = b"".join(
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        for body in (json.dumps(message).encode() for message in messages)
    )
    served = subprocess.run(
        [sys.executable, "-m", "freshpass", "serve"], input=stdin, capture_output=True, cwd=tmp_path, timeout=60
    )
    assert served.returncode == 0, served.stderr
    log = served.stderr.decode()
    assert "Cancel notification" not in log
    assert "custom/unknownNotification" in log  # the filter drops that one message, not pygls's warnings
