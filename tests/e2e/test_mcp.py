"""`freshpass mcp` (design §7.3) as a real process over stdio, driven by the MCP SDK's own client."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from freshpass.evidence import trust
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import make_calc_project

pytestmark = pytest.mark.e2e

TOOL_PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = make_calc_project(tmp_path / "project")
    trust.trust(project)  # the user's own list (this test's $XDG_STATE_HOME), as `freshpass trust` writes it
    return project


@asynccontextmanager
async def connected(repo: Path) -> AsyncIterator[ClientSession]:
    """The SDK's stdio client and session (a context manager inside the test: anyio's scopes must be left in the task
    that entered them, which an async pytest fixture's teardown is not). The SDK's client passes the server only a
    minimal environment unless told: this test's ledger and PATH go too."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "freshpass", "mcp", "--root", str(repo)],
        env={**os.environ, "PATH": TOOL_PATH, "FRESHPASS_SESSION": "mcp-test"},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        init = await client.initialize()
        assert init.server_info.name == "freshpass"
        assert "check_done" in (init.instructions or "")
        yield client


async def call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def change_the_code(repo: Path) -> None:
    path = repo / "src" / "calc.py"
    path.write_text("def add(a, b):\n    return b + a\n")
    past = time.time() - 30
    os.utime(path, (past, past))


async def test_run_records_a_receipt_and_check_done_says_verified(repo: Path) -> None:
    async with connected(repo) as session:
        tools = await session.list_tools()
        assert {tool.name for tool in tools.tools} == {"status", "check_done", "run", "receipts"}

        change_the_code(repo)
        nudge = await call(session, "check_done")
        assert nudge["verdict"] == "nudge" and nudge["synthetic"] is True
        assert "`freshpass run -- pytest`" in nudge["message"]

        ran = await call(session, "run")
        assert (ran["command"], ran["exit_code"], ran["status"], ran["recorded"]) == ("pytest", 0, "passed", True)
        assert ran["tests"] == {"passed": 1, "failed": 0, "skipped": 0}
        assert "1 passed" in ran["output_tail"]
        [receipt] = ran["receipts"]
        assert (receipt["scope"], receipt["actor"], receipt["session"]) == ("full", "agent", "mcp-test")
        assert receipt["details"]["via"] == "mcp run"

        verified = await call(session, "check_done", message="All tests pass.")
        assert verified["verdict"] == "verified", verified["message"]
        assert verified["claims"] == [{"kind": "test", "quote": "All tests pass.", "backed": True}]

        status = await call(session, "status")
        assert (status["status"], status["scope"], status["root"]) == ("passed", "full", str(repo))
        listed = await call(session, "receipts", limit=5)
        assert [r["id"] for r in listed["receipts"]] == [receipt["id"]]


async def test_run_failing_and_narrowed_checks(repo: Path) -> None:
    async with connected(repo) as session:
        (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        failed = await call(session, "run", command="pytest -q")
        assert (failed["exit_code"], failed["status"], failed["tests"]["failed"]) == (1, "failed", 1)
        narrowed = await call(session, "run", command="pytest -q tests/test_calc.py")
        assert narrowed["receipts"][0]["scope"] == "targeted"
        answer = await call(session, "check_done")
        assert answer["verdict"] == "nudge"


async def test_run_refuses_what_is_not_a_check_and_bad_arguments(repo: Path) -> None:
    async with connected(repo) as session:
        refused = await session.call_tool("run", {"command": "rm -rf src"})
        assert refused.is_error
        text = refused.content[0].text  # type: ignore[union-attr]
        assert "is not run" in text and "`pytest` (test)" in text and "your own shell tool" in text
        assert (repo / "src" / "calc.py").exists()

        outside = await session.call_tool("status", {"path": "/"})
        assert outside.is_error and "outside this server's project" in outside.content[0].text  # type: ignore[union-attr]
        too_long = await session.call_tool("run", {"timeout": 10**9})
        assert too_long.is_error and "timeout must be" in too_long.content[0].text  # type: ignore[union-attr]


async def test_a_run_that_times_out_is_stopped_and_not_recorded(repo: Path) -> None:
    async with connected(repo) as session:
        (repo / "tests" / "test_slow.py").write_text("import time\n\n\ndef test_slow():\n    time.sleep(60)\n")
        ran = await call(session, "run", timeout=2)
        assert ran["timed_out"] is True and ran["recorded"] is False
        assert "timed out after 2 s" in ran["reason"]
