"""The environment of a run (design §5): both doors run a command as the project's terminal would.

A project whose pytest lives only in its own `.venv`, and an editor (or a terminal) whose PATH does not have it:
the server's verify and `freshpass run` put the project's virtualenv first on PATH, say so, and keep it in the
receipt. Without any environment that has the program, exit 127 says which program, where freshpass looked and
which setting fixes it. The servers here get a bare PATH (no pyenv shims, no virtualenv), as an editor started from
a desktop launcher has.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import make_test_lsp_client

from tests.conftest import bare_path, make_project_venv, run_cli
from tests.e2e.conftest import CLIENTS, Session, as_json, attach, git

pytestmark = pytest.mark.e2e

PYPROJECT = """\
[project]
name = "venvdemo"
version = "0.0.0"

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.freshpass]
verify = [{command = "pytest -q -p no:cacheprovider", kind = "test"}]
"""


def make_project(path: Path, *, venv: bool = True) -> Path:
    """A committed project whose declared check is a bare `pytest`, with (or without) a `.venv` that has it."""
    (path / "tests").mkdir(parents=True)
    (path / "pyproject.toml").write_text(PYPROJECT)
    (path / "app.py").write_text("def answer():\n    return 42\n")
    (path / "tests" / "test_app.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent))\n"
        "from app import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
    )
    (path / ".gitignore").write_text("__pycache__/\n.venv/\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    if venv:
        make_project_venv(path)
    return path.resolve()


def bare_environment(tmp_path: Path) -> dict[str, str]:
    """This process's environment with an editor's bare PATH: no pytest anywhere on it."""
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    environment.update(PATH=bare_path(tmp_path), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    return environment


@pytest.fixture(params=sorted(CLIENTS))
async def bare(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Session]:
    """A server over stdio whose PATH has no pytest, with Neovim's or VS Code's capabilities."""
    client = make_test_lsp_client()
    session = attach(client, request.param)
    await client.start_io(sys.executable, "-m", "freshpass", "serve", env=bare_environment(tmp_path))
    try:
        yield session
    finally:
        if session.initialized:
            await client.shutdown_session()
        await client.stop()


async def verify(session: Session, project: Path) -> dict[str, Any]:
    result: dict[str, Any] = as_json(await session.execute("freshpass.verify", {"root": str(project)}))
    return result


def run_output(session: Session) -> str:
    return "".join(output["text"] for output in session.outputs)


async def test_verify_uses_the_projects_virtualenv(bare: Session, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    await bare.initialize(project)
    result = await verify(bare, project)

    assert result["exitCode"] == 0, run_output(bare)
    evidence = result["evidence"]
    assert (evidence["status"], evidence["scope"]) == ("passed", "full")
    venv = project / ".venv"
    assert evidence["details"]["environment"]["path_prepended"] == [str(venv / "bin")]
    assert evidence["details"]["environment"]["virtualenv"] == str(venv)
    # What was added is shown with the run's output, before the command's own.
    assert f"{venv / 'bin'}" in bare.outputs[0]["text"], bare.outputs[0]
    assert "1 passed" in run_output(bare)


async def test_an_interpreter_the_client_passes_is_used(bare: Session, tmp_path: Path) -> None:
    """VS Code passes the interpreter its Python extension selected: a virtualenv outside the project."""
    project = make_project(tmp_path / "proj", venv=False)
    venv = make_project_venv(tmp_path / "elsewhere", name="env")
    await bare.initialize(project, options={"pythonInterpreter": str(venv / "bin" / "python")})
    result = await verify(bare, project)

    assert result["exitCode"] == 0, run_output(bare)
    assert result["evidence"]["details"]["environment"]["virtualenv"] == str(venv)


async def test_the_verify_path_setting_is_used(bare: Session, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", venv=False)
    venv = make_project_venv(tmp_path / "elsewhere", name="env")
    await bare.initialize(project, options={"verify": {"path": [str(venv / "bin")]}})
    result = await verify(bare, project)

    assert result["exitCode"] == 0, run_output(bare)
    assert result["evidence"]["details"]["environment"]["path_prepended"] == [str(venv / "bin")]


async def test_command_not_found_says_what_where_and_which_setting(bare: Session, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", venv=False)
    await bare.initialize(project)
    result = await verify(bare, project)

    assert result["exitCode"] == 127
    message = result["message"]
    assert "`pytest` was not found" in message
    assert str(project / ".venv") in message and "PATH" in message  # where it looked
    assert "freshpass.verify.path" in message  # what fixes it
    assert "(exit 127)" not in message.replace("exit 127", "", 1), message  # the exit code said once
    assert message in run_output(bare)
    # A check that never started has not failed: nothing is recorded and the status stays as it was.
    assert (result["recorded"], result["evidence"]) == (False, None)
    assert result["status"]["status"] == "unverified"


# ---- `freshpass run` --------------------------------------------------------------------------------------------


def test_run_puts_the_projects_virtualenv_first_and_says_so(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    ran = run_cli("run", "--", "pytest -q -p no:cacheprovider", cwd=project, env=bare_environment(tmp_path))

    assert ran.returncode == 0, ran.stderr
    assert "1 passed" in ran.stdout and "freshpass" not in ran.stdout  # the command's output, untouched
    said = [line for line in ran.stderr.splitlines() if "first on PATH" in line]
    assert said == [f"freshpass: put {project / '.venv' / 'bin'} first on PATH (the project's virtualenv)"]
    log = json.loads(run_cli("log", "--json", cwd=project).stdout)["receipts"]
    assert log[0]["status"] == "passed"
    assert log[0]["details"]["environment"]["path_prepended"] == [str(project / ".venv" / "bin")]


def test_run_inside_the_virtualenv_changes_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    venv = project / ".venv"
    environment = bare_environment(tmp_path)
    environment.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{environment['PATH']}")
    ran = run_cli("run", "--", "pytest -q -p no:cacheprovider", cwd=project, env=environment)

    assert ran.returncode == 0, ran.stderr
    assert "first on PATH" not in ran.stderr
    log = json.loads(run_cli("log", "--json", cwd=project).stdout)["receipts"]
    assert "environment" not in (log[0]["details"] or {})


async def test_a_package_uses_the_workspace_virtualenv(bare: Session, tmp_path: Path) -> None:
    """A monorepo package without a virtualenv of its own (a uv workspace keeps one at the root): the package's run
    finds the workspace's `.venv`, nearest first."""
    root = tmp_path / "repo"
    backend = root / "backend"
    (backend / "tests").mkdir(parents=True)
    (backend / "pyproject.toml").write_text(PYPROJECT)
    (backend / "app.py").write_text("def answer():\n    return 42\n")
    (backend / "tests" / "test_app.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent))\n"
        "from app import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
    )
    (root / "frontend").mkdir()
    (root / "frontend" / "package.json").write_text('{"name": "frontend", "scripts": {"test": "vitest run"}}\n')
    (root / ".gitignore").write_text("__pycache__/\n.venv/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two packages")
    root, backend = root.resolve(), backend.resolve()
    venv = make_project_venv(root)
    await bare.initialize(root)
    bare.open(backend / "app.py")
    status = await bare.client.protocol.send_request_async("freshpass/status", {"uri": (backend / "app.py").as_uri()})
    assert status.root == str(backend)  # the package is a root of its own (design §6)
    result = await verify(bare, backend)

    assert result["exitCode"] == 0, run_output(bare)
    assert result["evidence"]["details"]["environment"]["virtualenv"] == str(venv)
    assert result["status"]["root"] == str(backend)


# ---- the MCP server's `run` -------------------------------------------------------------------------------------


async def mcp_run(project: Path, environment: dict[str, str]) -> dict[str, Any]:
    """`run` through the official MCP SDK's stdio client, in a server whose PATH has no pytest."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "freshpass", "mcp", "--root", str(project)], env=environment
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        result = await client.call_tool("run", {"command": "pytest -q -p no:cacheprovider"})
        assert not result.is_error, result.content
        assert result.structured_content is not None
        return dict(result.structured_content)


async def test_mcp_run_finds_the_projects_virtualenv(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    ran = await mcp_run(project, bare_environment(tmp_path))

    assert (ran["exit_code"], ran["status"], ran["recorded"]) == (0, "passed", True), ran["output_tail"]
    assert ran["receipts"][0]["details"]["environment"]["virtualenv"] == str(project / ".venv")
    assert f"put {project / '.venv' / 'bin'} first on PATH" in ran["output_tail"]


async def test_mcp_run_of_a_missing_program_records_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", venv=False)
    ran = await mcp_run(project, bare_environment(tmp_path))

    assert (ran["exit_code"], ran["status"], ran["recorded"], ran["receipts"]) == (127, "not run", False, [])
    assert "`pytest` was not found" in ran["reason"] and str(project / ".venv") in ran["reason"]
    log = json.loads(run_cli("log", "--json", cwd=project).stdout)["receipts"]
    assert log == []


def test_run_of_a_missing_program_records_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", venv=False)
    ran = run_cli("run", "--", "pytest -q", cwd=project, env=bare_environment(tmp_path))

    assert ran.returncode == 127
    assert "`pytest` was not found" in ran.stderr and "nothing recorded: it never ran" in ran.stderr
    assert json.loads(run_cli("log", "--json", cwd=project).stdout)["receipts"] == []
