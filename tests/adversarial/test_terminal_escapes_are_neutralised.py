"""Terminal escape injection.

`status` printed changed file names raw: a file named with an OSC 52 sequence wrote the clipboard, another cleared
the screen. Everything freshpass composes for a terminal now goes through freshpass.runner.terminal.safe(): the bytes
ESC and BEL never reach the terminal from a file name, a command line, a script name or a reason.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.adversarial.conftest import finish, freshpass, project
from tests.conftest import git

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07.py"  # OSC 52: "set the clipboard to `rm -rf ~`"
CLEAR = "\x1b[2J\x1b[H.py"
CONTROL_BYTES = (b"\x1b", b"\x07", b"\x9b", b"\xc2\x9b")


def assert_inert(output: bytes) -> None:
    for byte in CONTROL_BYTES:
        assert byte not in output, output


def test_status_and_log_show_hostile_names_escaped(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    for name in (CLIPBOARD, CLEAR):
        (root / name).write_text("x = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile names")
    line = "echo '\x1b]52;c;aGk=\x07' > /dev/null; pytest -q -p no:cacheprovider"
    code, _, stderr = finish(freshpass("run", "--", line, cwd=root), 60)
    assert code == 0, stderr
    assert_inert(stderr.split(b"\n")[-2])  # freshpass's own line about the receipt
    for name in (CLIPBOARD, CLEAR):
        (root / name).write_text("x = 2\n")

    code, stdout, stderr = finish(freshpass("status", cwd=root), 60)
    assert code == 1 and b"stale" in stdout, stderr
    assert_inert(stdout + stderr)
    assert b"\\x1b]52;c;cm0gLXJmIH4=\\x07.py" in stdout and b"\\x1b[2J\\x1b[H.py" in stdout

    code, stdout, stderr = finish(freshpass("log", cwd=root), 60)
    assert code == 0, stderr
    assert_inert(stdout + stderr)
    assert b"echo '\\x1b]52;c;aGk=\\x07'" in stdout

    code, stdout, _ = finish(freshpass("status", "--json", cwd=root), 60)
    assert_inert(stdout)
    assert CLIPBOARD in json.loads(stdout)["changed_paths"]  # JSON keeps the exact name, as an escape


def test_facts_shows_hostile_names_escaped(tmp_path: Path) -> None:
    root = tmp_path / "demo\x1b]2;owned\x07"  # a directory someone else named: it is the root facts prints
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"scripts": {"test\x1b[2J": "true", "lint": "true"}}))
    code, stdout, stderr = finish(freshpass("facts", cwd=root), 60)
    assert code == 0, stderr
    assert_inert(stdout + stderr)


def test_classify_shows_a_hostile_line_escaped(tmp_path: Path) -> None:
    code, stdout, stderr = finish(freshpass("classify", "--", "pytest tests/\x1b]52;c;eA==\x07", cwd=tmp_path), 60)
    assert code == 0, stderr
    assert_inert(stdout + stderr)
