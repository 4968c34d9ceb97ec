"""A real VS Code (code-server 4.96.4) with the freshpass extension, driven by Playwright in headless Chromium.

How it runs without GitHub, and why each step exists: the comments of scripts/setup-editors.
Every process the harness starts carries FRESHPASS_TEST_MARKER in its environment (code-server, its extension
hosts, the language server they spawn, the verify runs it starts in their own process groups, and Chromium), so
teardown can prove that nothing is left running.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.conftest import marked_processes

REPO = Path(__file__).resolve().parents[2]
CODE_SERVER_VERSION = "4.96.4"
CODE_SERVER_PREFIX = REPO / ".cache" / "code-server"
CODE_SERVER = CODE_SERVER_PREFIX / "node_modules" / ".bin" / "code-server"
CODE_SERVER_STAMP = CODE_SERVER_PREFIX / f".installed-{CODE_SERVER_VERSION}"
VSIX = REPO / "editor-clients" / "vscode" / "dist" / "freshpass.vsix"
FRESHPASS = REPO / ".venv" / "bin" / "freshpass"
# Every run takes the screenshots; they land in the docs only when asked (`FRESHPASS_SCREENSHOTS_DIR=docs/screenshots`),
# so a test run never dirties the tree. Elsewhere they go to a scratch dir, where a failing run can be looked at.
SCREENSHOTS = Path(
    os.environ.get("FRESHPASS_SCREENSHOTS_DIR") or Path(tempfile.gettempdir()) / "freshpass-vscode-screenshots"
).resolve()
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
LISTENING = re.compile(r"HTTP server listening on (http://\S+)")


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").decode(errors="replace").split("\0")
    except OSError:
        return []


def is_language_server(argv: list[str]) -> bool:
    """`…/freshpass serve --stdio`, directly or through the venv's Python (vscode-languageclient adds --stdio)."""
    return any(part == str(FRESHPASS) and argv[index + 1 : index + 2] == ["serve"] for index, part in enumerate(argv))


def wait_until(condition: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    """Poll `condition` until it is truthy: /proc offers no way to wait for processes we are not the parent of."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def neutral_environment(run_dir: Path, marker: str, *, tools_on_path: bool = True) -> dict[str, str]:
    """The environment of code-server and everything below it: private HOME/XDG dirs and ledger, neutral git.

    `tools_on_path=False` is an editor started from a desktop launcher: the system's PATH only, so neither this
    repository's virtualenv nor the machine's pyenv shims (which have a pytest) are on it."""
    home = run_dir / "home"
    path = os.environ.get("PATH", "/usr/bin:/bin")
    path = f"{REPO / '.venv' / 'bin'}{os.pathsep}{path}" if tools_on_path else "/usr/local/bin:/usr/bin:/bin"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "VSCODE_", "FRESHPASS_", "XDG_", "GIT_"))
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(run_dir / "state"),
        FRESHPASS_LEDGER=str(run_dir / "state" / "freshpass" / "ledger.db"),
        FRESHPASS_TEST_MARKER=marker,
        # The fixture projects' tests run with the repository's pytest, in the terminal and in verify runs alike.
        PATH=path,
        SHELL="/bin/bash",
        # The fixture projects' pytest must not load this repository's pytest plugins (asyncio, lsp).
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    return env


def user_settings() -> dict[str, Any]:
    return {
        "freshpass.server.command": [str(FRESHPASS), "serve"],
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "workbench.enableExperiments": False,
        "telemetry.telemetryLevel": "off",
        "extensions.autoUpdate": False,
        "extensions.autoCheckUpdates": False,
        "extensions.ignoreRecommendations": True,
        "update.mode": "none",
        "git.enabled": False,
        "editor.codeLens": True,
        "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
        "editor.suggestOnTriggerCharacters": False,
        "editor.acceptSuggestionOnEnter": "off",
        "files.autoSave": "off",
        "security.workspace.trust.enabled": True,
        "security.workspace.trust.startupPrompt": "always",
        "terminal.integrated.defaultProfile.linux": "bash",
        "terminal.integrated.shellIntegration.enabled": True,
        "terminal.integrated.shellIntegration.decorationsEnabled": "both",
    }


@dataclass
class CodeServer:
    """A running code-server; `url` is the workbench, `env` is what its processes (and the CLI in tests) use."""

    run_dir: Path
    env: dict[str, str]
    marker: str
    process: subprocess.Popen[str]
    url: str = ""
    log_lines: list[str] = field(default_factory=list)

    def folder_url(self, folder: Path) -> str:
        return f"{self.url}?folder={quote(str(folder))}"

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_lines[-lines:])

    def extension_logs(self, lines: int = 60) -> str:
        """The tails of the extension host logs and of the freshpass output channels, for failure messages."""
        parts = []
        logs = self.run_dir / "user-data" / "logs"
        for path in sorted(logs.rglob("*.log")) if logs.is_dir() else []:
            if path.name == "exthost.log" or "freshpass" in path.name:
                text = path.read_text(errors="replace").splitlines()[-lines:]
                parts.append(f"--- {path.relative_to(logs)}\n" + "\n".join(text))
        return "\n".join(parts) or "(no extension host logs)"

    def freshpass(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """The CLI against the same ledger as the editor's server."""
        return subprocess.run(
            [str(FRESHPASS), *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=120, check=False
        )

    def language_servers(self) -> dict[int, list[str]]:
        """PID → command line of every freshpass language server below this code-server."""
        argvs = {pid: command_line(pid) for pid in marked_processes(self.marker)}
        return {pid: argv for pid, argv in argvs.items() if is_language_server(argv)}


def install_extension(env: dict[str, str], common: list[str]) -> None:
    result = subprocess.run(
        [str(CODE_SERVER), *common, "--install-extension", str(VSIX)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0 or "was successfully installed" not in result.stdout:
        raise RuntimeError(f"code-server could not install {VSIX}:\n{result.stdout}\n{result.stderr}")


@contextmanager
def running_code_server(
    run_dir: Path, marker: str, startup_timeout: float = 60, *, tools_on_path: bool = True
) -> Iterator[CodeServer]:
    """Install the packaged extension into a fresh profile, start code-server in its own session, stop it all.
    `tools_on_path=False`: neither code-server nor its shells have this repository's virtualenv on PATH."""
    for sub in ("home", "extensions", "user-data/User", "state"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    env = neutral_environment(run_dir, marker, tools_on_path=tools_on_path)
    # VS Code builds its extension host's environment from a login shell (so /etc/profile resets PATH), and the
    # integrated terminal runs an interactive bash: like a user's, this profile puts the tools on PATH for both.
    venv_bin = REPO / ".venv" / "bin"
    (run_dir / "home" / ".bashrc").write_text(f'export PATH="{venv_bin}:$PATH"\n' if tools_on_path else "")
    (run_dir / "home" / ".bash_profile").write_text('. "$HOME/.bashrc"\n')
    (run_dir / "user-data" / "User" / "settings.json").write_text(json.dumps(user_settings(), indent=2))
    common = [
        "--config",
        str(run_dir / "home" / "code-server.yaml"),
        "--extensions-dir",
        str(run_dir / "extensions"),
        "--user-data-dir",
        str(run_dir / "user-data"),
    ]
    install_extension(env, common)
    # start_new_session: code-server leads its own process group, so one killpg stops the extension hosts too
    # (killing only code-server's PID leaves an extension host orphaned).
    process = subprocess.Popen(
        [
            str(CODE_SERVER),
            *common,
            "--auth",
            "none",
            "--bind-addr",
            "127.0.0.1:0",
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-getting-started-override",
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    server = CodeServer(run_dir=run_dir, env=env, marker=marker, process=process)
    listening = threading.Event()

    def read_log() -> None:
        assert process.stdout is not None
        with (run_dir / "code-server.log").open("w") as log:
            for line in process.stdout:
                log.write(line)
                log.flush()
                server.log_lines.append(line.rstrip("\n"))
                match = LISTENING.search(line)
                if match and not listening.is_set():
                    server.url = match.group(1).rstrip("/") + "/"
                    listening.set()

    reader = threading.Thread(target=read_log, name="code-server-log", daemon=True)
    reader.start()
    try:
        if not listening.wait(startup_timeout):
            raise RuntimeError(f"code-server did not start listening within {startup_timeout} s:\n{server.log_tail()}")
        yield server
    finally:
        stop_process_group(process)
        reader.join(timeout=10)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def stop_process_group(process: subprocess.Popen[str], grace: float = 10) -> None:
    """TERM the whole group (code-server, extension hosts, language servers), then KILL whatever did not exit."""
    pgid = process.pid
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    # The extension hosts outlive code-server's own exit for a moment: the group, not the leader, must be gone.
    wait_until(lambda: not group_alive(pgid), grace)
    if group_alive(pgid):
        os.killpg(pgid, signal.SIGKILL)
        wait_until(lambda: not group_alive(pgid), 5)
    if process.poll() is None:
        process.kill()
        process.wait(timeout=5)
