"""Shared test setup: every test gets its own ledger and state dir, never the user's."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("FRESHPASS_LEDGER", str(state / "freshpass" / "ledger.db"))
    # Nor the developer's own freshpass settings ($XDG_CONFIG_HOME/freshpass/config.toml: whom shared receipts trust).
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    # git must not read the developer's config (signing, hooks, default branch names).
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@example.invalid")
    yield


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run the installed `freshpass` as a separate process, the way users and editors do."""
    return subprocess.run(
        [sys.executable, "-m", "freshpass", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def cli():
    return run_cli


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` (isolated from the developer's config by `_isolated_state`); returns its stdout."""
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def make_calc_project(root: Path) -> Path:
    """A committed Python project whose approved test command is `pytest` (from [tool.pytest.ini_options])."""
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_calc.py").write_text(
        "import sys\nsys.path.insert(0, 'src')\nfrom calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    (root / "README.md").write_text("# demo\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def marked_processes(marker: str) -> list[int]:
    """PIDs of live (non-zombie) processes whose environment carries FRESHPASS_TEST_MARKER=marker: how a test proves
    that nothing it started is still running."""
    needle = f"FRESHPASS_TEST_MARKER={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue  # gone already, or not ours to read
        if state not in {"Z", "X"}:
            found.append(int(entry.name))
    return found


def live_group_members(pgid: int) -> list[int]:
    """PIDs of live (non-zombie) processes in process group `pgid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in {"Z", "X"}:
            found.append(int(entry.name))
    return found


def make_project_venv(project: Path, name: str = ".venv") -> Path:
    """A real virtualenv at `project/name` whose `bin/pytest` is the only way to reach pytest, as after
    `python -m venv .venv && .venv/bin/pip install pytest`, but offline and in a fraction of a second.

    `python -m venv --without-pip` makes the environment (pyvenv.cfg, bin/python); a `.pth` file adds the test
    environment's site-packages to *its* path only, which is how pip links an editable install; and `bin/pytest` is
    the console script pip writes. Nothing is put on anyone's PATH: the caller decides which PATH the editor gets.
    """
    import pytest as installed_pytest

    venv = project / name
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    [site_packages] = venv.glob("lib/python3*/site-packages")
    (site_packages / "test-environment.pth").write_text(f"{Path(installed_pytest.__file__).resolve().parents[1]}\n")
    # The test environment's own console script, as pip wrote it, with the project's interpreter in its shebang.
    ours = (Path(sys.executable).parent / "pytest").read_text().split("\n", 1)[1]
    script = venv / "bin" / "pytest"
    script.write_text(f"#!{venv / 'bin' / 'python'}\n{ours}")
    script.chmod(0o755)
    return venv


def bare_path(tmp: Path, *programs: Path) -> str:
    """A PATH like an editor's that was not started from an activated shell: the system directories (no pyenv shims,
    no virtualenv) and a directory holding only `programs` (e.g. this checkout's `freshpass`)."""
    tools = tmp / "editor-bin"
    tools.mkdir(exist_ok=True)
    for program in programs:
        link = tools / program.name
        if not link.exists():
            link.symlink_to(program)
    return os.pathsep.join([str(tools), "/usr/local/bin", "/usr/bin", "/bin"])
