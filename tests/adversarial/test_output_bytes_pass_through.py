"""`freshpass run` passes the command's output through byte for byte.

`head -c 1000000 /dev/urandom` came out as 1,811,313 bytes (decoded with replacement characters and re-encoded),
and with a non-UTF-8 stdout encoding whole chunks vanished (UnicodeEncodeError swallowed). Output is now written as
the bytes the command wrote; only the copy kept for the receipt is decoded.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.adversarial.conftest import finish, freshpass, project


@pytest.mark.parametrize("encoding", [None, "latin-1", "ascii"])
def test_random_bytes_come_out_unchanged(tmp_path: Path, encoding: str | None) -> None:
    root = project(tmp_path / "demo")
    reference = tmp_path / "random.bin"
    env = {**os.environ, "PYTHONIOENCODING": encoding} if encoding is not None else None
    code, stdout, stderr = finish(
        freshpass("run", "--", f"head -c 1000000 /dev/urandom | tee {reference}", cwd=root, env=env), timeout=60
    )
    assert code == 0, stderr
    assert len(stdout) == 1_000_000
    assert stdout == reference.read_bytes()


def test_stderr_and_text_in_any_encoding_pass_through(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    line = "printf 'caf\\351 \\342\\202\\254 \\377\\n'; printf 'err \\303\\251\\n' >&2"
    code, stdout, stderr = finish(freshpass("run", "--", line, cwd=root), timeout=60)
    assert code == 0
    assert stdout == b"caf\xe9 \xe2\x82\xac \xff\n"
    assert stderr.startswith(b"err \xc3\xa9\n")


def test_json_mode_sends_the_commands_bytes_to_stderr_unchanged(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    reference = tmp_path / "random.bin"
    code, stdout, stderr = finish(
        freshpass("run", "--json", "--", f"head -c 200000 /dev/urandom | tee {reference}", cwd=root), timeout=60
    )
    assert code == 0
    assert stderr.startswith(reference.read_bytes())
    assert stdout.lstrip().startswith(b"{")
