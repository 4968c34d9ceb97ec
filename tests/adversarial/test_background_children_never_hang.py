"""A command that leaves a background child must not hang freshpass.

`sleep 60 & sleep 0.3; echo done` exits at once in bash, but its background `sleep` holds the output pipes open
for a minute. The runner ends the run when the shell exits, tears the group down and drains the pipes briefly: the
CLI returns, `verify` records a pass (not "failed (aborted)" after the phase timeout), the server answers
`freshpass.verify`, and Ctrl-C on `sleep 300 & wait` (whose background child ignores SIGINT) ends the run.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

from tests.adversarial.conftest import Session, finish, freshpass, project
from tests.e2e.conftest import as_json

BACKGROUND = "sleep 60 & sleep 0.3; echo done"


def test_run_returns_when_the_shell_exits(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    started = time.monotonic()
    code, stdout, stderr = finish(freshpass("run", "--", BACKGROUND, cwd=root), timeout=30)
    elapsed = time.monotonic() - started
    assert code == 0, stderr
    assert stdout == b"done\n"
    assert elapsed < 15, f"took {elapsed:.1f} s: waited for the background child"  # bash alone: 0.3 s


def test_verify_records_a_pass_not_an_abort(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    (root / ".freshpass").mkdir()
    (root / ".freshpass" / "recipe.json").write_text(json.dumps({"phases": {"test": [BACKGROUND]}}))
    code, stdout, stderr = finish(freshpass("verify", str(root), "--json", cwd=root), timeout=60)
    assert code == 0, stderr
    payload = json.loads(stdout)
    assert payload["status"] == "passed" and payload["reason"] is None
    assert payload["evidence"]["status"] == "passed"
    assert payload["commands"][0]["exit_code"] == 0 and payload["commands"][0]["timed_out"] is False


async def test_server_verify_answers(lsp: Session, tmp_path: Path) -> None:
    root = project(tmp_path / "demo", declares=BACKGROUND)
    await lsp.initialize(root)
    answer = await asyncio.wait_for(lsp.execute("freshpass.verify", {"kind": "test"}), 30)
    assert as_json(answer)["exitCode"] == 0


def _controlling_terminal() -> None:  # runs in the child between fork and exec
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen


def test_ctrl_c_ends_a_script_waiting_on_a_background_child(tmp_path: Path) -> None:
    """In a real terminal: Ctrl-C reaches the command's process group (freshpass hands it the terminal); bash dies,
    its background `sleep` ignores SIGINT (bash sets that for `&` jobs) and keeps the pipes open."""
    root = project(tmp_path / "demo")
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "freshpass", "run", "--", "echo started; sleep 300 & wait"],
        cwd=root,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        preexec_fn=_controlling_terminal,
    )
    os.close(terminal)
    try:
        assert b"started" in _read_until(controller, b"started", 30), "the command never started"
        os.write(controller, b"\x03")  # Ctrl-C
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("Ctrl-C did not end `freshpass run`") from None
        assert code == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
