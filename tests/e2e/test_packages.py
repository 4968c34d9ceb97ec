"""Monorepo packages (design §6): a receipt belongs to the package it ran in, and the editor shows that package's
status on its files — the same answer `freshpass run` and `freshpass status` give in that directory."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import Session, as_json, git

pytestmark = pytest.mark.e2e

BACKEND_PYPROJECT = "[project]\nname = 'backend'\nversion = '0'\n\n[tool.pytest.ini_options]\ntestpaths = ['tests']\n"
TEST_LINE = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


def monorepo(path: Path) -> Path:
    (path / "backend" / "src").mkdir(parents=True)
    (path / "backend" / "tests").mkdir()
    (path / "backend" / "pyproject.toml").write_text(BACKEND_PYPROJECT)
    (path / "backend" / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (path / "backend" / "tests" / "test_calc.py").write_text(
        "import sys, pathlib\n"
        "sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / 'src'))\n"
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    )
    (path / "frontend" / "src").mkdir(parents=True)
    (path / "frontend" / "package.json").write_text('{"name": "frontend", "scripts": {"test": "vitest run"}}\n')
    (path / "frontend" / "src" / "app.js").write_text("export const answer = 42;\n")
    (path / ".gitignore").write_text("__pycache__/\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "two packages")
    return path.resolve()


async def freshpass(cwd: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "freshpass", *args, cwd=cwd,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, output.decode()


async def test_a_terminal_run_in_a_package_shows_on_that_package_s_files_only(lsp: Session, tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo")
    backend, frontend = root / "backend", root / "frontend"
    calc, app = backend / "src" / "calc.py", frontend / "src" / "app.js"
    await lsp.initialize(root)
    lsp.open(calc)
    lsp.open(app)
    before = await lsp.client.protocol.send_request_async("freshpass/status", {"uri": calc.as_uri()})
    assert (before.root, before.status) == (str(backend), "unverified")

    code, output = await freshpass(backend, "run", "--", *TEST_LINE)
    assert code == 0, output

    # The server sees the receipt the terminal recorded (it watches the ledger) and says so for the package.
    status = await lsp.until_status(lambda s: s["root"] == str(backend) and s["status"] == "passed")
    assert status["scope"] == "full"
    assert (await lsp.lenses(calc))[0].startswith("✓ full")
    assert not (await lsp.lenses(app))[0].startswith("✓")
    frontend_status = await lsp.status(frontend)
    assert frontend_status["root"] == str(frontend) and frontend_status["status"] == "unverified"
    workspace = await lsp.status(root)
    assert workspace["root"] == str(root) and workspace["status"] == "unverified"

    # The CLI answers the same for each directory.
    code, output = await freshpass(root, "status", "--json", str(calc))
    assert (json.loads(output)["root"], json.loads(output)["status"]) == (str(backend), "passed")
    code, output = await freshpass(root, "status", "--json", str(app))
    assert json.loads(output)["status"] == "unverified"

    # An edit in the package makes its receipt stale there, flagged on the edited file.
    lsp.change(calc, "def add(a, b):\n    return a - b\n", version=2)
    calc.write_text("def add(a, b):\n    return a - b\n")
    lsp.save(calc)
    stale = await lsp.until_status(lambda s: s["root"] == str(backend) and s["status"] == "stale")
    assert stale["changed_paths"] == ["src/calc.py"]
    await lsp.until_diagnostics(calc, lambda d: len(d) == 1 and d[0].code == "stale")
    assert "pytest" in lsp.diagnostics(calc)[0].message  # the package's own check, not the workspace root's
    assert lsp.diagnostics(app) == []


async def test_a_verify_asked_for_a_package_runs_the_package_s_check(lsp: Session, tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo")
    backend = root / "backend"
    await lsp.initialize(root)  # no backend file opened: the request alone names the package
    result = as_json(await lsp.execute("freshpass.verify", {"root": str(backend)}))
    assert result["evidence"]["status"] == "passed", result
    assert result["status"]["root"] == str(backend) and result["status"]["scope"] == "full"
    code, output = await freshpass(root, "status", "--json", str(backend))
    assert code == 0 and json.loads(output)["root"] == str(backend), output


async def test_a_terminal_run_the_editor_reports_in_a_package_records_against_the_package(
    lsp: Session, tmp_path: Path
) -> None:
    """`freshpass/recordRun` (VS Code's shell integration) of a run in backend/ is the package's receipt, as
    `freshpass run` there records it — even when the server only knows the workspace root — and it says it was
    reported, not watched."""
    root = monorepo(tmp_path / "repo")
    backend = root / "backend"
    await lsp.initialize(root)
    answer = as_json(
        await lsp.client.protocol.send_request_async(
            "freshpass/recordRun",
            {"commandLine": "pytest -q", "cwd": str(backend), "exitCode": 0, "output": "1 passed in 0.01s\n",
             "durationMs": 900},
        )
    )  # fmt: skip
    assert answer["recorded"] is True, answer
    _, output = await freshpass(root, "log", "--json", str(backend))
    [receipt] = json.loads(output)["receipts"]
    assert (receipt["root"], receipt["observed"], receipt["status"]) == (str(backend), "reported", "passed")
    assert receipt["details"]["via"] == "editor recordRun" and receipt["stale_at_record"] is False
    _, output = await freshpass(root, "status", "--json", str(backend))
    assert (json.loads(output)["status"], json.loads(output)["scope"]) == ("passed", "full")
