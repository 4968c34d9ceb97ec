"""Bad input gets a problem entry or a clear message, never a traceback.

- A root whose path is not UTF-8: the tests passed but recording crashed, and `status` and `log` crashed. Such
  texts are stored as their bytes and shown escaped.
- A malformed `ready_url` (`http://[::1`): a plan error naming it.
- Deeply nested `package.json` / `pyproject.toml` / compose files raised RecursionError, and `freshpass run -- 'exit 3'`
  then never ran the command. `run` now runs the command whatever detection does; the parsers themselves are the
  facts rewrite's (marked xfail below).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.adversarial.conftest import Session, finish, freshpass, project
from tests.e2e.conftest import as_json

LATIN1_NAME = b"caf\xe9"  # "café" written by a Latin-1 system: not valid UTF-8


@pytest.fixture
def latin1_root(tmp_path: Path) -> Path:
    return project(Path(os.fsdecode(bytes(tmp_path) + b"/" + LATIN1_NAME)))


def test_a_root_that_is_not_utf8_records_and_reports(latin1_root: Path) -> None:
    code, _, stderr = finish(freshpass("run", "--", "python -m pytest -q -p no:cacheprovider", cwd=latin1_root), 60)
    assert code == 0, stderr
    assert b"recorded test passed" in stderr
    code, stdout, stderr = finish(freshpass("status", cwd=latin1_root), 60)
    assert code == 0, stderr
    assert stdout.startswith(b"passed (full)") and b"caf\\xe9" in stdout  # shown escaped, never raw bytes
    code, stdout, stderr = finish(freshpass("log", cwd=latin1_root), 60)
    assert code == 0 and b"fresh" in stdout, stderr
    code, stdout, stderr = finish(freshpass("log", "--json", cwd=latin1_root), 60)
    assert code == 0, stderr
    receipts = json.loads(stdout)["receipts"]
    assert [receipt["root"] for receipt in receipts] == [str(latin1_root)]
    code, stdout, stderr = finish(
        freshpass("run", "--json", "--", "python -m pytest -q -p no:cacheprovider", cwd=latin1_root), 60
    )
    assert code == 0 and json.loads(stdout)["recorded"] is True, stderr


async def test_the_server_serves_a_root_that_is_not_utf8(lsp: Session, latin1_root: Path) -> None:
    await asyncio.wait_for(lsp.initialize(latin1_root), 30)
    answer = as_json(await asyncio.wait_for(lsp.execute("freshpass.verify", {"root": str(latin1_root)}), 60))
    assert answer["recorded"] is True and answer["status"]["status"] == "passed"
    receipts = as_json(await lsp.execute("freshpass.receipts", {"root": str(latin1_root)}))
    assert len(receipts["receipts"]) == 1


def test_a_malformed_ready_url_is_a_clear_usage_error(tmp_path: Path) -> None:
    root = project(tmp_path / "app")
    (root / ".freshpass").mkdir()
    recipe = {"phases": {"start": ["python3 -m http.server 8123"]}, "ready_url": "http://[::1", "port": 8123}
    (root / ".freshpass" / "recipe.json").write_text(json.dumps(recipe))
    code, _, stderr = finish(freshpass("verify", str(root)), 60)
    assert code == 2
    assert b"ready_url 'http://[::1' is not a valid URL" in stderr
    assert b"Traceback" not in stderr


def nested_manifests(root: Path, depth: int = 100_000) -> None:
    (root / "package.json").write_text('{"scripts": {"test": "true"}, "x": ' + "[" * depth + "]" * depth + "}")
    (root / "pyproject.toml").write_text("x = " + "[" * depth + "]" * depth + "\n")
    (root / "compose.yaml").write_text("services: " + "[" * depth + "]" * depth + "\n")


def test_run_runs_the_command_whatever_detection_does(tmp_path: Path) -> None:
    root = tmp_path / "nested"
    root.mkdir()
    nested_manifests(root)
    code, _, stderr = finish(freshpass("run", "--", "exit 3", cwd=root), 60)
    assert code == 3
    assert b"Traceback" not in stderr


async def test_the_server_serves_a_root_with_nested_manifests(lsp: Session, tmp_path: Path) -> None:
    root = tmp_path / "nested"
    root.mkdir()
    nested_manifests(root)
    await asyncio.wait_for(lsp.initialize(root.resolve()), 30)
    assert (await asyncio.wait_for(lsp.status(root.resolve()), 30))["status"] == "unverified"


def test_facts_reports_nested_manifests_as_problems(tmp_path: Path) -> None:
    root = tmp_path / "nested"
    root.mkdir()
    nested_manifests(root)
    code, stdout, stderr = finish(freshpass("facts", "--json", cwd=root), 60)
    assert code == 0, stderr
    assert b"Traceback" not in stderr
    assert json.loads(stdout)["problems"]
