"""A CI workflow of YAML aliases — one 2,000-line step repeated 30,000 times (~160 KB).

Facts detection ran past 15 s on it; the server stopped answering (even with `trusted: false`) and `freshpass run`
never started the command and ignored SIGINT/SIGTERM while detection blocked its event loop. Now facts detection
refuses such a file at once (what its aliases expand to is bounded, text included), and detection runs off the
event loop with a deadline anyway (freshpass.evidence.detection; the server's Backend.facts): `run` starts the
command — and hears signals — whatever detection does, which the tests show with a detection stuck on purpose.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
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


def stuck_detection(tmp_path: Path, started: int | None = None) -> dict[str, str]:
    """The environment of a freshpass whose facts detection never returns (a `sitecustomize` in that process only):
    whatever a repository does to a reader, this is the worst of it. It writes a byte to `started` (a descriptor
    passed to the child) when detection begins."""
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(
        "import os, threading\n"
        "import freshpass.facts.detect as detect\n"
        "def stuck(*args, **kwargs):\n"
        f"    if {started!r} is not None:\n"
        f"        os.write({started!r}, b'!')\n"
        "    threading.Event().wait()\n"
        "detect.detect_facts = stuck\n"
    )
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))}


def test_run_starts_the_command_whatever_detection_does(tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    line = "pytest --co -q >/dev/null 2>&1; exit 3"  # a line that may be a check: its project's facts are read
    code, _, stderr = finish(freshpass("run", "--", line, cwd=root, env=stuck_detection(tmp_path)), timeout=60)
    assert code == 3
    assert b"running the command without recording it" in stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_run_hears_signals_while_detection_runs(tmp_path: Path, signum: signal.Signals) -> None:
    root = bomb_repository(tmp_path / "repo")
    marker = tmp_path / "the command ran"
    read_end, write_end = os.pipe()
    env = stuck_detection(tmp_path, started=write_end)
    process = freshpass("run", "--", f"touch '{marker}'", cwd=root, env=env, pass_fds=(write_end,))
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], 30)
        assert ready and os.read(read_end, 1) == b"!", "detection never started"
        assert process.poll() is None, "freshpass finished before detection could be interrupted"
        process.send_signal(signum)
        code, _, stderr = finish(process, timeout=10)
    finally:
        os.close(read_end)
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


def test_facts_refuses_the_bomb_and_answers(tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    code, stdout, stderr = finish(freshpass("facts", "--json", cwd=root), timeout=20)  # a hang fails here
    assert code == 0, stderr
    problems = json.loads(stdout)["problems"]
    assert any(p["file"] == ".github/workflows/ci.yml" and "aliases expand" in p["message"] for p in problems)


def test_run_records_on_such_a_repository(tmp_path: Path) -> None:
    root = bomb_repository(tmp_path / "repo")
    (root / "tests").mkdir()
    (root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    code, _, stderr = finish(freshpass("run", "--", "python -m pytest -q -p no:cacheprovider", cwd=root), 30)
    assert code == 0
    assert b"recorded test passed" in stderr
