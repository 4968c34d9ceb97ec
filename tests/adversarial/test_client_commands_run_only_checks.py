"""Doors that run a client's command (MCP `run`, the server's `freshpass.verify` with a `command`) run only checks.

A client that auto-approves a "checks only" tool must not be handing the model a shell: a line runs only when it is
one simple command that is an approved check or a narrowing of one; composition, expansion, redirection and
programs that run a command line of their own are refused with a reason naming the approved checks. MCP `path`
stays inside the server's project, and MCP `run` runs nothing in a folder the user has not trusted.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from freshpass.evidence import trust
from freshpass.facts.admission import Admitted, Refused, admit
from freshpass.facts.detect import detect_facts
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.adversarial.conftest import Session, project
from tests.e2e.conftest import VENV_BIN

ATTACKS = [
    "touch {m} && pytest -q",
    "pytest -q $(touch {m})",
    "pytest -q `touch {m}`",
    "X=$(touch {m}) pytest -q",
    'bash -c "touch {m}; pytest -q"',
    "sh -c 'touch {m}'; pytest -q",
    "pytest -q && touch {m}",
    "(touch {m}) && pytest -q",
    "pytest -q > {m}",
    "pytest -q; touch {m}",
    "pytest -q || touch {m}",
    "pytest -q | tee {m}",
    "pytest -q 2>{m}",
    "env touch {m}",
    "env -S 'touch {m}'",
    "env PYTHONSTARTUP={m} pytest -q",
    "uv run --with x bash -c 'touch {m}'",
    "uv run --frozen env touch {m}",
    "/usr/bin/env bash -c 'touch {m}'",
    "timeout 60 sh -c 'touch {m}'",
    "xargs touch < {m}",
    "pytest -q <<EOF\n$(touch {m})\nEOF",
    "pytest -q &\ntouch {m}",
    "touch {m}",
]
ADMITTED = {
    "pytest": "full",
    "pytest -q": "full",
    "python -m pytest -q -x": "full",
    "uv run pytest -q": "full",
    "poetry run pytest": "full",
    "PYTHONHASHSEED=0 pytest -q": "full",
    "pytest -q tests/test_ok.py": "targeted",
    "pytest -q -k env": "targeted",
}


def _facts(root: Path) -> Any:
    return detect_facts(root)


@pytest.mark.parametrize("line", ATTACKS)
def test_composed_expanded_or_redirected_lines_are_refused(tmp_path: Path, line: str) -> None:
    root = project(tmp_path / "demo")
    answer = admit(line.format(m=tmp_path / "M"), cwd=root, facts=_facts(root))
    assert isinstance(answer, Refused), answer
    assert "is not run" in answer.reason and "`pytest` (test)" in answer.reason


@pytest.mark.parametrize(("line", "scope"), sorted(ADMITTED.items()))
def test_one_approved_check_or_a_narrowing_of_it_is_admitted(tmp_path: Path, line: str, scope: str) -> None:
    root = project(tmp_path / "demo")
    answer = admit(line, cwd=root, facts=_facts(root))
    assert isinstance(answer, Admitted), answer
    assert answer.classification.scope == scope


def test_a_recognised_tool_that_is_not_approved_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    answer = admit("ruff check .", cwd=root, facts=_facts(root))
    assert isinstance(answer, Refused) and "not one of the project's approved checks" in answer.reason


def test_admission_never_raises_on_any_text(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    facts = _facts(root)
    for line in ["", " ", "'", '"', "\\", "((", "$(", "`", "\x00pytest", "p" * 10_000, "&&", "|", ";;", "!"]:
        assert isinstance(admit(line, cwd=root, facts=facts), Refused)
    assert isinstance(admit("pytest", cwd=root, facts=None), Refused)


# ---- MCP, through the official SDK's client ---------------------------------------------------------------------


@asynccontextmanager
async def mcp(root: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "freshpass", "mcp", "--root", str(root)],
        env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def test_mcp_run_refuses_every_composed_line_and_records_nothing(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    trust.trust(root)
    marker = tmp_path / "M"
    async with mcp(root) as session:
        for line in ATTACKS:
            refused = await session.call_tool("run", {"command": line.format(m=marker)})
            assert refused.is_error, line
            assert "is not run" in _text(refused) and "`pytest` (test)" in _text(refused), _text(refused)
            assert not marker.exists(), line
        listed = await session.call_tool("receipts", {})
        assert listed.structured_content is not None and listed.structured_content["receipts"] == []
        ran = await session.call_tool("run", {"command": "pytest -q tests/test_ok.py"})
        assert not ran.is_error and ran.structured_content is not None
        assert ran.structured_content["receipts"][0]["scope"] == "targeted"


async def test_mcp_paths_stay_inside_the_project(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    other = project(tmp_path / "other")
    (other / "conftest.py").write_text(f"open({str(tmp_path / 'M')!r}, 'w').close()\n")
    (root / "escape").symlink_to(other)
    trust.trust(root)
    trust.trust(other)  # even a folder the user trusts is not this server's to reach
    async with mcp(root) as session:
        for path in (str(other), "../other", "escape", str(root / ".." / "other"), "/"):
            for tool in ("run", "status", "receipts", "check_done"):
                refused = await session.call_tool(tool, {"path": path})
                assert refused.is_error, (tool, path)
                assert "outside this server's project" in _text(refused), _text(refused)
    assert not (tmp_path / "M").exists()


async def test_mcp_runs_nothing_in_an_untrusted_folder_until_the_user_trusts_it(tmp_path: Path, cli: Any) -> None:
    root = project(tmp_path / "demo")
    (root / "conftest.py").write_text(f"open({str(tmp_path / 'M')!r}, 'w').close()\n")
    async with mcp(root) as session:
        for arguments in ({}, {"command": "pytest -q"}):
            refused = await session.call_tool("run", arguments)
            assert refused.is_error and "not a trusted folder" in _text(refused)
            assert f"freshpass trust {root}" in _text(refused)
        assert not (tmp_path / "M").exists()
        status = await session.call_tool("status", {})
        assert not status.is_error  # reading still answers
        assert cli("trust", str(root)).returncode == 0
        ran = await session.call_tool("run", {})
        assert not ran.is_error and (tmp_path / "M").exists()
        assert cli("trust", "--revoke", str(root)).returncode == 0
        again = await session.call_tool("run", {})
        assert again.is_error and "not a trusted folder" in _text(again)


# ---- the language server's verify with a command ----------------------------------------------------------------


async def test_server_verify_with_a_composed_command_runs_nothing(lsp: Session, tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    marker = tmp_path / "M"
    await lsp.initialize(root)
    for line in ATTACKS[:9]:
        with pytest.raises(Exception, match="is not run"):
            await lsp.execute("freshpass.verify", {"command": line.format(m=marker)})
    with pytest.raises(Exception, match="is not run"):
        await lsp.execute("freshpass.verify", {"command": "ruff check ."})  # recognised, not approved here
    assert not marker.exists()
    answer = await lsp.execute("freshpass.verify", {"command": "pytest -q tests/test_ok.py"})
    assert answer is not None
