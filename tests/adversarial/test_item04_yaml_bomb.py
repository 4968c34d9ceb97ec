"""Issue 11, item 4: a CI workflow of YAML aliases — one 2,000-line step repeated 30,000 times (~160 KB).

Facts detection ran past 15 s on it; the server stopped answering (even with `trusted: false`) and `freshpass run`
never started the command and ignored SIGINT/SIGTERM while detection blocked its event loop. Detection now runs off
the event loop with a deadline (freshpass.detection; the server's Backend.facts): the server answers and `run`
starts the command — and hears signals — whatever detection does. Bounding the alias expansion and the detection
time themselves belongs to facts detection (marked xfail below until the facts rewrite lands).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from tests.adversarial.conftest import Session, finish, freshpass
from tests.conftest import git


def bomb_repository(path: Path) -> Path:
    (path / ".github" / "workflows").mkdir(parents=True)
    step = "\n".join(f"      echo step {index}" for index in range(2000))
    workflow = (
        "anchors:\n  step: &s\n    name: big\n    run: |\n"
        + step
        + "\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: ["
        + ", ".join("*s" for _ in range(30_000))
        + "]\n"
    )
    (path / ".github" / "workflows" / "ci.yml").write_text(workflow)
    (path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "bomb")
    return path.resolve()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_run_starts_the_command(tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    code, _, stderr = finish(freshpass("run", "--", "exit 3", cwd=root), timeout=60)
    assert code == 3
    assert b"running the command without recording it" in stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_run_hears_signals_while_detection_runs(tmp_path: Path, signum: signal.Signals) -> None:
    root = bomb_repository(tmp_path / "repo")
    marker = tmp_path / "the command ran"
    process = freshpass("run", "--", f"touch '{marker}'", cwd=root)
    try:
        # Start-up costs well under a second of CPU; past that, detection is chewing on the workflow.
        deadline = time.monotonic() + 30
        while cpu_seconds(process.pid) < 1.0 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # polling /proc for CPU time: the kernel offers no event for it
        assert process.poll() is None, "freshpass finished before detection could be interrupted"
        process.send_signal(signum)
        code, _, stderr = finish(process, timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 128 + signum, stderr
    assert not marker.exists()  # interrupted before it started, as a shell would be


async def test_untrusted_server_keeps_answering(lsp: Session, tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    await asyncio.wait_for(lsp.initialize(root, options={"trusted": False}), 30)
    assert (await asyncio.wait_for(lsp.status(root), 30))["status"] == "unverified"
    lsp.open(root / "pyproject.toml")
    for _ in range(3):
        assert await asyncio.wait_for(lsp.lenses(root / "pyproject.toml"), 5) is not None


@pytest.mark.xfail(reason="needs facts hardening: YAML alias expansion and detection time are bounded in facts/")
def test_facts_answers_within_seconds(tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    started = time.monotonic()
    code, _, stderr = finish(freshpass("facts", "--json", cwd=root), timeout=20)
    assert code == 0, stderr
    assert time.monotonic() - started < 5


@pytest.mark.xfail(reason="needs facts hardening: the detection thread itself still expands the aliases", strict=False)
def test_run_records_on_such_a_repository(tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    (root / "tests").mkdir()
    (root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    code, _, stderr = finish(freshpass("run", "--", "python -m pytest -q -p no:cacheprovider", cwd=root), 30)
    assert code == 0
    assert b"recorded test passed" in stderr
