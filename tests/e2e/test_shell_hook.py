"""The shell hook in the real shells (Debian's bash, zsh and fish), typed into through tmux: a check typed at the
prompt becomes a receipt with the right exit status, `ls` records nothing, an untrusted folder records nothing, and
`freshpass status` in another terminal agrees. Each shell's config chains a prompt hook of its own (which shows
`$?`, so the hook must keep it) under `set -u -o pipefail`. Every wait polls the ledger or the pane with a
deadline."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.e2e.conftest import git

pytestmark = pytest.mark.e2e

DEADLINE = 180.0  # seconds: two cores shared by many test processes; each wait returns as soon as state is there
PYPROJECT = '[project]\nname = "demo"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
PASSING = "def test_answer():\n    assert 6 * 7 == 42\n"
FAILING = "def test_answer():\n    assert 6 * 7 == 41\n"


def demo(path: Path) -> Path:
    (path / "tests").mkdir(parents=True)
    (path / "pyproject.toml").write_text(PYPROJECT)
    (path / "tests" / "test_answer.py").write_text(PASSING)
    (path / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path.resolve()


def until(what: str, probe: Callable[[], Any], deadline: float = DEADLINE) -> Any:
    end = time.monotonic() + deadline
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)  # polling state with a deadline


def receipts(root: Path) -> list[dict[str, Any]]:
    done = run_cli("log", "--json", cwd=root)
    return json.loads(done.stdout)["receipts"] if done.returncode == 0 and done.stdout.strip() else []


class Terminal:
    """One tmux server of the test's own; each window a terminal."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.socket = str(tmp / "tmux.sock")
        self.env = env
        self.windows = 0

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, env=self.env)
        return done.stdout

    def open(self, argv: list[str], cwd: Path) -> str:
        name = f"w{self.windows}"
        self.windows += 1
        command = " ".join(_quote(word) for word in argv)
        first = ["new-session", "-d", "-s", "t", "-x", "200", "-y", "50"] if name == "w0" else ["new-window", "-t", "t"]
        subprocess.run(["tmux", "-S", self.socket, *first, "-n", name, "-c", str(cwd), command], check=True,
                       env=self.env)  # fmt: skip
        return name

    def pane(self, window: str) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", f"t:{window}")

    def type(self, window: str, line: str) -> None:
        self.tmux("send-keys", "-t", f"t:{window}", "-l", line)
        self.tmux("send-keys", "-t", f"t:{window}", "Enter")

    def prompts(self, window: str, marker: str) -> int:
        return self.pane(window).count(marker)

    def close(self) -> None:
        self.tmux("kill-server")


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def shell_setup(shell: str, home: Path, env: dict[str, str]) -> list[str]:
    """Each shell as its user configured it: strict options, a prompt hook of their own, then freshpass."""
    if shell == "bash":
        rc = home / ".bashrc"
        rc.write_text(
            "set -u -o pipefail\n"
            'user_prompt() { local s=$?; PS1="READY-$s\\$ "; }\n'
            "PROMPT_COMMAND=user_prompt\n"
            'eval "$(freshpass shell-init bash)"\n'
        )
        return ["bash", "--noprofile", "--rcfile", str(rc), "-i"]
    if shell == "zsh":
        (home / ".zshrc").write_text(
            "set -u -o pipefail\n"
            'user_prompt() { local s=$?; PROMPT="READY-$s%# "; }\n'
            "precmd_functions+=(user_prompt)\n"
            'eval "$(freshpass shell-init zsh)"\n'
        )
        env["ZDOTDIR"] = str(home)
        return ["zsh", "-i"]
    config = home / ".config" / "fish"
    config.mkdir(parents=True)
    (config / "config.fish").write_text(
        'function fish_prompt; set -l s $status; echo -n "READY-$s> "; end\n'
        "function user_postexec --on-event fish_postexec; set -g user_saw $status; end\n"
        "freshpass shell-init fish | source\n"
    )
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    return ["fish", "-i"]


@pytest.mark.timeout(600)  # each shell types four runs of a real pytest; the waits return as soon as state is there
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_checks_typed_in_a_terminal_become_receipts(shell: str, tmp_path: Path) -> None:
    if shutil.which(shell) is None or shutil.which("tmux") is None:
        if os.environ.get("CI"):
            pytest.fail(f"{shell} and tmux are installed by scripts/test in CI")
        pytest.skip(f"{shell} or tmux is not installed (apt-get install -y zsh fish tmux)")
    trusted = demo(tmp_path / "trusted")
    untrusted = demo(tmp_path / "untrusted")
    assert run_cli("trust", str(trusted)).returncode == 0
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "TERM": "xterm-256color"}
    env.pop("TMUX", None)
    argv = shell_setup(shell, home, env)
    terminal = Terminal(tmp_path, env)
    try:
        window = terminal.open(["env", f"HOME={home}", *[f"{k}={env[k]}" for k in ("ZDOTDIR", "XDG_CONFIG_HOME")
                                                          if k in env], *argv], trusted)  # fmt: skip
        until("the first prompt", lambda: terminal.prompts(window, "READY-0") >= 1)

        terminal.type(window, "pytest -q")
        passed = until("the passing run's receipt", lambda: receipts(trusted))
        assert len(passed) == 1
        receipt = passed[0]
        assert (receipt["kind"], receipt["scope"], receipt["status"], receipt["exit_code"]) == (
            "test", "full", "passed", 0,
        )  # fmt: skip
        assert "from the shell; output not seen" in receipt["details"]["via"]
        assert receipt["tests"] is None  # output not seen: counts unknown

        shown = terminal.prompts(window, "READY-")
        terminal.type(window, "ls")
        until("the prompt after ls", lambda: terminal.prompts(window, "READY-") > shown)
        terminal.type(window, f"cd {untrusted}")
        terminal.type(window, "pytest -q")
        terminal.type(window, f"cd {trusted}")
        (trusted / "tests" / "test_answer.py").write_text(FAILING)
        terminal.type(window, "pytest -q")
        both = until("the failing run's receipt", lambda: len(receipts(trusted)) >= 2 and receipts(trusted))
        failed = both[0]
        assert (failed["status"], failed["exit_code"], failed["scope"]) == ("failed", 1, "full")
        assert len(both) == 2, "ls recorded something"
        assert receipts(untrusted) == []
        until("the prompt keeping $? of the failing run", lambda: "READY-1" in terminal.pane(window))

        other = terminal.open(["env", f"HOME={home}", "sh"], trusted)
        terminal.type(other, "freshpass status")
        until("freshpass status in another terminal", lambda: "failed (full)" in terminal.pane(other))
        assert "Traceback" not in terminal.pane(window) and "freshpass:" not in terminal.pane(window)
    finally:
        terminal.close()
