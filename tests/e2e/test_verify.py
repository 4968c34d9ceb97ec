"""`freshpass verify` end to end: the real CLI process on fixture apps that serve, crash, hang and misbehave.

Every test runs under `leftovers`, which tags the environment with a per-test marker and afterwards asserts that
no process carrying it (and no PID the fixture apps recorded) is still alive: "nothing left running" is checked
after every test, not only in the tests about teardown.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, marked_processes, run_cli

pytestmark = pytest.mark.e2e

WEBAPP = FIXTURES / "apps" / "webapp"
PYTHON = shutil.which("python3") or sys.executable


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in {"Z", "X"}


def _wait_for(condition: Any, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)  # polling /proc: the kernel offers no wait for unrelated processes
    return bool(condition())


class Leftovers:
    def __init__(self, marker: str, pid_dir: Path) -> None:
        self.marker = marker
        self.pid_dir = pid_dir

    def recorded_pids(self) -> list[int]:
        return [int(path.stem) for path in self.pid_dir.glob("*.pid")]

    def alive(self) -> list[int]:
        return sorted({*marked_processes(self.marker), *(pid for pid in self.recorded_pids() if _alive(pid))})


@pytest.fixture(autouse=True)
def leftovers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Leftovers]:
    marker = uuid.uuid4().hex
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    monkeypatch.setenv("FRESHPASS_TEST_MARKER", marker)
    monkeypatch.setenv("FRESHPASS_TEST_PIDS", str(pid_dir))
    tracker = Leftovers(marker, pid_dir)
    yield tracker
    # The CLI returns only after tearing its groups down, so anything alive now was left behind. The short wait
    # covers only the kernel finishing a SIGKILL already sent.
    still = tracker.alive()
    if still and not _wait_for(lambda: not tracker.alive(), 2.0):
        for pid in tracker.alive():
            os.kill(pid, signal.SIGKILL)
        pytest.fail(f"processes left running after the test: {still}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_app(tmp_path: Path, recipe: dict[str, Any] | None = None) -> Path:
    app = tmp_path / "app"
    shutil.copytree(WEBAPP, app)
    if recipe is not None:
        (app / ".freshpass").mkdir()
        (app / ".freshpass" / "recipe.json").write_text(json.dumps(recipe))
    return app


def serve(*flags: str) -> str:
    return " ".join([PYTHON, "server.py", *flags])


def verify(app: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return run_cli("verify", str(app), *args, timeout=timeout)


def verify_json(app: Path, *args: str, timeout: float = 60) -> tuple[int, dict[str, Any], str]:
    result = verify(app, "--json", *args, timeout=timeout)
    assert result.stdout.strip(), result.stderr
    return result.returncode, json.loads(result.stdout), result.stderr


def test_app_that_serves_is_ready_and_torn_down(tmp_path: Path, leftovers: Leftovers) -> None:
    port = free_port()
    app = make_app(
        tmp_path,
        {
            "phases": {"test": [f"{PYTHON} -c \"print('4 tests passed')\""], "start": [serve()]},
            "port": port,
            "ready_url": "/health",
        },
    )
    code, payload, stderr = verify_json(app)
    assert code == 0, stderr
    assert payload["status"] == "passed"
    assert payload["scope"] == "full"
    assert payload["ran_phases"] == ["test", "start"]
    assert payload["readiness"]["ready"] is True
    assert payload["readiness"]["last_status"] == "HTTP 200"
    assert payload["readiness"]["url"] == f"http://localhost:{port}/health"
    # One receipt for the run, with each phase's command, exit code, duration and output tail.
    evidence = payload["evidence"]
    assert evidence["kind"] == "test" and evidence["scope"] == "full" and evidence["status"] == "passed"
    assert evidence["canonical_command"] == "freshpass verify"
    phases = evidence["details"]["verify"]["commands"]
    assert [c["phase"] for c in phases] == ["test", "start"]
    assert phases[0]["exit_code"] == 0 and "4 tests passed" in phases[0]["output_tail"]
    assert "listening on 127.0.0.1" in phases[1]["output_tail"]
    assert all(c["duration"] >= 0 for c in phases)
    # Live output went to stderr as plain prefixed lines (not a TTY).
    assert "[test] 4 tests passed" in stderr
    assert len(leftovers.recorded_pids()) == 1  # the server ran; the autouse check proves it is gone

    log = run_cli("log", str(app), "--json")
    assert log.returncode == 0, log.stderr
    [receipt] = json.loads(log.stdout)["receipts"]
    assert receipt["id"] == evidence["id"] and receipt["fresh"] is True


def test_human_output_is_plain_prefixed_lines_when_not_a_tty(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"phases": {"build": [f"{PYTHON} -c \"print('compiled 3 files')\""]}})
    result = verify(app)
    assert result.returncode == 0, result.stderr
    assert "[build] $ " in result.stdout
    assert "[build] compiled 3 files" in result.stdout
    assert "[build] ✓ passed" in result.stdout
    assert "\x1b[" not in result.stdout
    assert "verify passed (full: build)" in result.stdout


def test_app_that_crashes_on_start_is_not_ready_with_its_output_as_reason(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"start": serve("--crash"), "port": free_port()})
    code, payload, _ = verify_json(app, "--ready-timeout", "30")
    assert code == 1
    assert payload["status"] == "failed"
    assert payload["reason"] == "start exited"
    assert "exited with code 3 before it was ready" in payload["detail"]
    assert "DATABASE_URL is not set" in payload["detail"]
    assert payload["readiness"]["ready"] is False
    assert payload["evidence"]["status"] == "failed"

    human = verify(app, "--ready-timeout", "30")
    assert human.returncode == 1
    assert "DATABASE_URL is not set" in human.stdout
    assert "reason: start exited" in human.stdout


def test_server_ignoring_sigterm_is_still_torn_down(tmp_path: Path, leftovers: Leftovers) -> None:
    app = make_app(tmp_path, {"start": serve("--ignore-term"), "port": free_port()})
    # The subprocess timeout bounds the teardown: TERM is ignored, so only the KILL after the grace ends it.
    code, payload, stderr = verify_json(app, timeout=30)
    assert code == 0, stderr
    assert payload["readiness"]["ready"] is True
    # Killed by a signal either way: KILL for the server itself, or TERM for a shell that did not exec it.
    assert payload["commands"][-1]["exit_code"] in (128 + signal.SIGKILL, 128 + signal.SIGTERM)
    assert len(leftovers.recorded_pids()) == 1


def test_wrapper_that_forks_a_grandchild_server_leaves_nothing(tmp_path: Path, leftovers: Leftovers) -> None:
    app = make_app(tmp_path, {"start": "./wrapper.sh", "port": free_port()})
    code, payload, stderr = verify_json(app)
    assert code == 0, stderr
    assert "wrapper: starting the server" in payload["commands"][0]["output_tail"]
    [grandchild] = leftovers.recorded_pids()
    assert not _alive(grandchild)


def test_failing_build_stops_before_test(tmp_path: Path) -> None:
    ran_tests = tmp_path / "tests-ran"
    app = make_app(
        tmp_path,
        {
            "phases": {
                "build": [f"{PYTHON} -c \"import sys; print('syntax error in main.c'); sys.exit(2)\""],
                "test": [f"touch {ran_tests}"],
                "start": [serve()],
            },
            "port": free_port(),
        },
    )
    code, payload, _ = verify_json(app)
    assert code == 1
    assert payload["failed_phase"] == "build"
    assert payload["ran_phases"] == ["build"]
    assert payload["reason"] == "exit code 2"
    assert payload["readiness"] is None
    assert not ran_tests.exists()
    assert payload["evidence"]["exit_code"] == 2
    assert payload["evidence"]["reason"] == "the build phase failed"  # the receipt keeps the code once, beside it
    assert "syntax error in main.c" in payload["evidence"]["details"]["verify"]["commands"][0]["output_tail"]


def test_hanging_phase_times_out_as_aborted(tmp_path: Path, leftovers: Leftovers) -> None:
    app = make_app(tmp_path, {"phases": {"test": [serve("--hang")]}})
    code, payload, _ = verify_json(app, "--timeout", "1")
    assert code == 1
    assert payload["reason"] == "aborted"
    assert "timed out after 1s" in payload["detail"]
    assert payload["commands"][0]["timed_out"] is True
    assert payload["commands"][0]["exit_code"] == 124
    assert payload["evidence"]["reason"] == "aborted"
    assert len(leftovers.recorded_pids()) == 1


def test_readiness_url_answering_500_is_not_ready(tmp_path: Path) -> None:
    port = free_port()
    app = make_app(tmp_path, {"start": serve("--status", "500"), "ready_url": f"http://127.0.0.1:{port}/"})
    code, payload, _ = verify_json(app, "--ready-timeout", "1")
    assert code == 1
    assert payload["reason"] == "not ready"
    assert payload["readiness"]["last_status"] == "HTTP 500"
    assert "last seen: HTTP 500" in payload["detail"]


def test_port_already_served_by_another_process_is_not_mistaken_for_the_app(tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        app = make_app(tmp_path, {"test": "true", "start": serve(), "port": port})
        code, payload, _ = verify_json(app)
    assert code == 1
    assert payload["reason"] == "port in use"
    assert f"port {port} on 127.0.0.1 already accepts connections" in payload["detail"]
    assert payload["ran_phases"] == ["test", "start"]
    assert not list((tmp_path / "pids").iterdir())  # the app was never started


def test_redirect_counts_as_ready(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"start": serve("--status", "302"), "port": free_port()})
    code, payload, _ = verify_json(app)
    assert code == 0
    assert payload["readiness"]["last_status"] == "HTTP 302"


def test_phase_selection_makes_the_receipt_targeted(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    app = make_app(
        tmp_path,
        {
            "phases": {"build": [f"echo build >> {ran}"], "test": [f"echo test >> {ran}"], "start": [serve()]},
            "port": free_port(),
        },
    )
    code, payload, _ = verify_json(app, "--phase", "test")
    assert code == 0
    assert payload["scope"] == "targeted" and payload["ran_phases"] == ["test"]
    assert payload["evidence"]["scope"] == "targeted"
    assert payload["evidence"]["canonical_command"] == "freshpass verify --phase test"
    assert ran.read_text() == "test\n"

    code, payload, _ = verify_json(app, "--skip-start")
    assert code == 0
    assert payload["ran_phases"] == ["build", "test"] and payload["evidence"]["scope"] == "targeted"
    assert payload["evidence"]["kind"] == "test"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_tears_everything_down_and_records_aborted(
    tmp_path: Path, leftovers: Leftovers, signum: signal.Signals
) -> None:
    app = make_app(tmp_path, {"phases": {"test": [serve("--hang")]}})
    proc = subprocess.Popen(
        [sys.executable, "-m", "freshpass", "verify", str(app), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait_for(lambda: leftovers.recorded_pids(), 30), "the hanging test never started"
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    payload = json.loads(stdout)
    assert payload["reason"] == "aborted"
    assert payload["evidence"]["reason"] == "aborted" and payload["evidence"]["status"] == "failed"


# ------------------------------------------------------------------------------------------------ bad input


def test_malformed_recipe_names_file_and_field_and_falls_back_to_detection(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"phases": {"build": [{"command": 42}]}})
    (app / "Makefile").write_text("build:\n\t@echo built by make\n")
    result = run_cli("verify", str(app), "--detect-only", "--json")
    assert result.returncode == 0, result.stderr
    assert ".freshpass/recipe.json" in result.stderr
    assert "phases.build[0].command" in result.stderr
    assert "falling back to detection" in result.stderr
    payload = json.loads(result.stdout)
    assert payload["recipe"]["source"].startswith("detected")
    assert {"command": "make build", "cwd": "."} in payload["recipe"]["phases"]["build"]
    assert payload["problems"][0]["file"] == ".freshpass/recipe.json"


def test_invalid_json_recipe_reports_position(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    (app / ".freshpass").mkdir()
    (app / ".freshpass" / "recipe.json").write_text('{"phases": {"build": ["make"],}}')
    result = run_cli("verify", str(app), "--detect-only")
    assert ".freshpass/recipe.json: not valid JSON (line 1" in result.stderr


def test_start_without_a_port_is_a_clear_usage_error(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"start": serve()})
    result = verify(app)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "no known port" in result.stderr and "--port N" in result.stderr

    code, payload, _ = verify_json(app, "--port", str(free_port()))
    assert code == 0
    assert payload["readiness"]["ready"] is True


def test_non_loopback_readiness_host_is_refused(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"start": serve(), "ready_url": "http://example.com:8080/"})
    result = verify(app)
    assert result.returncode == 2
    assert "'example.com' is not loopback" in result.stderr
    assert not list((tmp_path / "pids").iterdir())  # refused before anything ran


def test_unknown_phase_and_empty_phase_are_usage_errors(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"test": "true"})
    assert verify(app, "--phase", "deploy").returncode == 2
    result = verify(app, "--phase", "build")
    assert result.returncode == 2
    assert "no build commands" in result.stderr


def test_save_and_detect_only(tmp_path: Path) -> None:
    app = tmp_path / "flaskapp"
    app.mkdir()
    (app / "requirements.txt").write_text("flask==3.0\n")
    (app / "app.py").write_text("from flask import Flask\napp = Flask(__name__)\n")
    result = run_cli("verify", str(app), "--detect-only", "--save")
    assert result.returncode == 0, result.stderr
    assert "port: 5000" in result.stdout
    assert "start: python3 -m flask run --host 127.0.0.1 --port $PORT" in result.stdout
    saved = json.loads((app / ".freshpass" / "recipe.json").read_text())
    assert saved["port"] == 5000
    again = run_cli("verify", str(app), "--detect-only", "--json")
    assert json.loads(again.stdout)["recipe"]["source"] == ".freshpass/recipe.json"


# ------------------------------------------------------------------------------------------------ compose


def fake_docker(tmp_path: Path, script: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    docker = bin_dir / "docker"
    docker.write_text("#!/bin/sh\n" + script)
    docker.chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def compose_app(tmp_path: Path) -> Path:
    app = tmp_path / "stack"
    app.mkdir()
    (app / "compose.yaml").write_text("services:\n  web:\n    build: .\n    ports: ['8088:80']\n")
    return app


def test_compose_recipe_is_refused_when_project_containers_run(tmp_path: Path) -> None:
    app = compose_app(tmp_path)
    calls = tmp_path / "docker-calls"
    path = fake_docker(tmp_path, f'echo "$@" >> {calls}\n[ "$1 $2" = "compose ps" ] && echo 3f2a9c1d\nexit 0\n')
    detected = run_cli("verify", str(app), "--detect-only", "--json", env={"PATH": path})
    recipe = json.loads(detected.stdout)["recipe"]
    assert recipe["phases"]["start"] == [{"command": "docker compose up", "cwd": "."}]
    assert recipe["port"] == 8088 and recipe["stop"] == [{"command": "docker compose down", "cwd": "."}]

    result = run_cli("verify", str(app), env={"PATH": path})
    assert result.returncode == 1
    assert "1 running container(s)" in result.stderr and "will not rebuild or restart" in result.stderr
    assert calls.read_text().splitlines() == ["compose ps -q"]  # nothing was built or started


def test_compose_without_docker_or_engine_says_so(tmp_path: Path) -> None:
    app = compose_app(tmp_path)
    nowhere = tmp_path / "empty-bin"
    nowhere.mkdir()
    result = run_cli("verify", str(app), "--skip-start", env={"PATH": str(nowhere)})
    assert result.returncode == 1
    assert "docker is not installed (not found on PATH)" in result.stderr

    path = fake_docker(
        tmp_path,
        'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2\n'
        "exit 1\n",
    )
    result = run_cli("verify", str(app), env={"PATH": path})
    assert result.returncode == 1
    assert "engine is not reachable" in result.stderr


def test_terminal_gets_a_live_progress_line(tmp_path: Path) -> None:
    import pty

    app = make_app(tmp_path, {"phases": {"build": [f"{PYTHON} -c \"print('compiling')\""]}})
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "freshpass", "verify", str(app)],
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=secondary,
    )
    os.close(secondary)
    received = b""
    try:
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            received += chunk
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(primary)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    screen = received.decode("utf-8", "replace")
    assert "\r\x1b[K" in screen  # the status line is redrawn in place
    assert "▶ build:" in screen and "compiling" in screen
    assert "✓ build: passed" in screen
    assert "[build]" not in screen  # plain prefixed lines are for pipes and logs
