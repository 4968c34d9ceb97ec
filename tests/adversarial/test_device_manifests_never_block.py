"""A committed symlink `Makefile -> /dev/stdin` (same for `requirements.txt`, `Pipfile`).

It blocked `facts`, `run` and `status` on stdin, and the language server read its own JSON-RPC stream and stopped
answering. freshpass never reads its own stdin now: the CLI's descriptor 0 is /dev/null (`run` hands the original
to the command), the server speaks the protocol on private descriptors, and every file read outside `facts/` must be
a regular file of bounded size. A FIFO in place of a manifest is refused by facts detection itself (pending the
facts rewrite: marked xfail below); the CLI and the server go on without the facts meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adversarial.conftest import Session, finish, freshpass
from tests.conftest import git

NAMES = ["Makefile", "requirements.txt", "Pipfile"]


def stdin_repository(path: Path, name: str) -> Path:
    path.mkdir(parents=True)
    (path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    os.symlink("/dev/stdin", path / name)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "a manifest that is the reader's stdin")
    return path.resolve()


@pytest.fixture
def silent_terminal() -> Iterator[int]:
    """A stdin that stays open and never says anything: a terminal nobody types in."""
    read_end, write_end = os.pipe()
    yield read_end
    os.close(read_end)
    os.close(write_end)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("args", "expected"), [(("facts",), 0), (("run", "--", "exit 3"), 3), (("status",), 1), (("log",), 0)]
)
def test_cli_does_not_read_its_stdin(
    tmp_path: Path, silent_terminal: int, name: str, args: tuple[str, ...], expected: int
) -> None:
    root = stdin_repository(tmp_path / "repo", name)
    code, _, stderr = finish(freshpass(*args, cwd=root, stdin=silent_terminal), timeout=30)
    assert code == expected, stderr


def test_run_still_gives_the_command_its_stdin(tmp_path: Path) -> None:
    root = stdin_repository(tmp_path / "repo", "Makefile")
    process = freshpass("run", "--", "read line; echo got:$line", cwd=root, stdin=subprocess.PIPE)
    stdout, stderr = process.communicate(b"typed by the user\n", timeout=30)
    assert process.returncode == 0, stderr
    assert stdout == b"got:typed by the user\n"


@pytest.mark.parametrize("name", NAMES)
async def test_server_keeps_its_protocol(lsp: Session, tmp_path: Path, name: str) -> None:
    root = stdin_repository(tmp_path / "repo", name)
    await asyncio.wait_for(lsp.initialize(root), 30)
    status = await asyncio.wait_for(lsp.status(root), 30)
    assert status["status"] == "unverified"
    lsp.open(root / "pyproject.toml")
    lenses = await asyncio.wait_for(lsp.lenses(root / "pyproject.toml"), 30)
    assert lenses  # still answering after detection read the "manifest"
    assert (await asyncio.wait_for(lsp.status(root), 30))["root"] == str(root)


def test_facts_refuses_a_fifo_manifest(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    os.mkfifo(root / "Makefile")  # an archive can carry one; nobody ever writes to it
    code, _, stderr = finish(freshpass("facts", cwd=root), timeout=20)
    assert code == 0, stderr


def test_run_and_status_go_on_past_a_fifo_manifest(tmp_path: Path) -> None:
    """Whatever detection does with the FIFO, the CLI runs the command and answers (after its deadline)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    os.mkfifo(root / "Makefile")
    code, _, stderr = finish(freshpass("run", "--", "exit 3", cwd=root), timeout=30)
    assert code == 3, stderr
    code, stdout, stderr = finish(freshpass("status", cwd=root), timeout=30)
    assert code == 1 and b"unverified" in stdout, stderr
