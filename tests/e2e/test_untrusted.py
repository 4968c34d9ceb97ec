"""An untrusted workspace (VS Code's Restricted Mode, `initializationOptions.trusted = false`) starts no process at
all, git included, and what the server shows there accuses nothing it cannot check.

The server runs with a `git` first on PATH that writes down every invocation before handing over to the real git:
in an untrusted workspace the log must stay empty for the whole session (shutdown included); in a trusted one the
same trap sees git run and the status is what it always was, so the trap is known to catch what it should.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import run_cli
from tests.e2e.conftest import CLIENTS, PYPROJECT, SERVER, Session, as_json, attach, make_project

TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"


def git_trap(where: Path) -> tuple[Path, Path]:
    """(a directory whose `git` logs its arguments and runs the real git, the log)."""
    real = shutil.which("git")
    assert real is not None
    where.mkdir()
    log = where / "invocations.log"
    script = where / "git"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "git $*" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return where, log


def invocations(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@asynccontextmanager
async def server_with_trap(name: str, trap: Path) -> AsyncIterator[Session]:
    env = {**os.environ, "PATH": f"{trap}{os.pathsep}{os.environ.get('PATH', '')}"}
    client: Any = await ClientServerConfig(server_command=SERVER.server_command, server_env=env).start()
    session = attach(client, name)
    try:
        yield session
    finally:
        if session.initialized:
            await session.client.shutdown_session()
        await session.client.stop()


def recorded_pass(project: Path) -> None:
    ran = run_cli("run", "--", TEST_COMMAND, cwd=project)
    assert ran.returncode == 0, ran.stderr


async def hover(lsp: Session, path: Path) -> str:
    result = await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=0, character=0)
        )
    )
    assert result is not None
    return str(result.contents.value)  # type: ignore[union-attr]


async def request(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return as_json(await client.protocol.send_request_async(method, params))


async def edit_and_save(lsp: Session, path: Path, text: str) -> None:
    lsp.open(path)
    await asyncio.to_thread(path.write_text, text)
    lsp.change(path, text, version=2)
    lsp.save(path)


@pytest.mark.parametrize("name", sorted(CLIENTS))
async def test_an_untrusted_git_workspace_is_checked_with_gits_id_computed_without_any_process(
    name: str, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "demo")
    recorded_pass(project)  # a receipt of the committed content, made in a terminal (real git computed its id)
    trap, log = git_trap(tmp_path / "trap")
    app = project / "src" / "app.py"
    async with server_with_trap(name, trap) as lsp:
        await lsp.initialize(project, options={"trusted": False})
        status = await lsp.status(project)
        assert (status["status"], status["scope"]) == ("passed", "full"), status  # the same id, without git

        await edit_and_save(lsp, app, "def answer():\n    return 43\n")
        await lsp.until_diagnostics(app, lambda found: bool(found) and found[0].code == "stale")
        status = await lsp.status(project)
        # What changed since the receipt, read from the receipt's tree in the object store (loose objects) by hand.
        assert (status["status"], status["changed_paths"]) == ("stale", ["src/app.py"])

        decision = await request(lsp.client, "freshpass/checkDone", {"root": str(project)})
        assert decision["verdict"] == "not_applicable" and "untrusted" in decision["message"], decision
        recorded = await request(
            lsp.client,
            "freshpass/recordRun",
            {"commandLine": "pytest -q", "cwd": str(project), "exitCode": 0, "output": "1 passed in 0.01s\n"},
        )
        assert recorded["recorded"] is False and "not trusted" in recorded["why"], recorded
    assert invocations(log) == []  # not one git process, from initialize to exit


@pytest.mark.parametrize("name", sorted(CLIENTS))
async def test_an_untrusted_git_workspace_whose_id_only_git_computes_is_not_checked_and_accuses_nothing(
    name: str, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "demo")
    (project / ".gitattributes").write_text("*.bin filter=lfs diff=lfs merge=lfs -text\n")  # a filter git would run
    recorded_pass(project)
    trap, log = git_trap(tmp_path / "trap")
    app = project / "src" / "app.py"
    async with server_with_trap(name, trap) as lsp:
        await lsp.initialize(project, options={"trusted": False})
        status = await lsp.status(project)
        assert status["status"] == "unchecked", status
        assert (status["kinds"], status["changed_paths"]) == ({}, [])  # no kind is called stale, no path changed
        assert status["evidence"]["command"] == TEST_COMMAND  # the newest receipt, shown as a past run

        await edit_and_save(lsp, app, "def answer():\n    return 43\n")
        assert (await lsp.status(project))["status"] == "unchecked"  # after the save's refresh
        assert lsp.diagnostics(app) == []  # nothing accuses: freshness is not checked here
        lenses = await lsp.lenses(app)
        assert lenses[0].startswith("○ not checked"), lenses
        assert not any("unverified" in title or "stale" in title for title in lenses), lenses
        said = await hover(lsp, app)
        assert "not checked" in said and "runs nothing" in said and "⚠" not in said and "Changed since" not in said
        decision = await request(lsp.client, "freshpass/checkDone", {"root": str(project)})
        assert decision["verdict"] == "not_applicable" and "untrusted" in decision["message"], decision
    assert invocations(log) == []


@pytest.mark.parametrize("name", sorted(CLIENTS))
async def test_a_trusted_git_workspace_still_uses_git_and_says_what_it_always_said(name: str, tmp_path: Path) -> None:
    project = make_project(tmp_path / "demo")
    recorded_pass(project)
    trap, log = git_trap(tmp_path / "trap")
    app = project / "src" / "app.py"
    async with server_with_trap(name, trap) as lsp:
        await lsp.initialize(project, options={"trusted": True})
        assert (await lsp.status(project))["status"] == "passed"
        await edit_and_save(lsp, app, "def answer():\n    return 43\n")
        await lsp.until_diagnostics(app, lambda found: bool(found) and found[0].code == "stale")
        status = await lsp.status(project)
        assert (status["status"], status["changed_paths"]) == ("stale", ["src/app.py"])
    assert any(line.startswith("git add --all") for line in invocations(log)), invocations(log)


@pytest.mark.parametrize("name", sorted(CLIENTS))
async def test_an_untrusted_workspace_that_is_no_git_repository_is_still_checked_without_any_process(
    name: str, tmp_path: Path
) -> None:
    """A root outside git is hashed in Python (`files:` ids): untrusted or not, its freshness is checked as before."""
    project = tmp_path / "plain"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "tests" / "test_app.py").write_text("def test_answer():\n    assert 42 == 42\n")
    (project / "app.py").write_text("ANSWER = 42\n")
    project = project.resolve()
    recorded_pass(project)
    trap, log = git_trap(tmp_path / "trap")
    app = project / "app.py"
    async with server_with_trap(name, trap) as lsp:
        await lsp.initialize(project, options={"trusted": False})
        assert (await lsp.status(project))["status"] == "passed"
        await edit_and_save(lsp, app, "ANSWER = 43\n")
        await lsp.until_diagnostics(app, lambda found: bool(found) and found[0].code == "stale")
        assert (await lsp.status(project))["changed_paths"] == ["app.py"]
    assert invocations(log) == []
