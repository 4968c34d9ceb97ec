"""Pieces of `freshpass verify` below the CLI: readiness targets and probes, plans, console reporters."""

from __future__ import annotations

import http.server
import io
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from freshpass.facts.recipes import normalize_recipe
from freshpass.runner.console import PlainReporter
from freshpass.runner.process import OutputTail
from freshpass.runner.readiness import ReadinessError, probe, ready_target
from freshpass.runner.verify import CommandRun, PlannedCommand, VerifyPlanError, plan_verify, run_verify

WEBAPP_SERVER = Path(__file__).resolve().parent.parent / "fixtures" / "apps" / "webapp" / "server.py"

# ------------------------------------------------------------------------------------------------ targets


def test_path_or_nothing_polls_localhost_on_the_port() -> None:
    target = ready_target(None, 8000)
    assert target.url == "http://localhost:8000/"
    assert target.addresses == ("127.0.0.1", "::1")
    assert ready_target("/health?deep=1", 8000).path == "/health?deep=1"


def test_port_override_replaces_the_urls_port() -> None:
    target = ready_target("http://127.0.0.1:8000/up", 8000, port_override=9001)
    assert target.url == "http://127.0.0.1:9001/up" and target.port == 9001


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:5000/", "http://127.1.2.3:5000/", "http://[::1]:5000/", "https://localhost:5000/"]
)
def test_loopback_urls_are_accepted(url: str) -> None:
    assert ready_target(url, None).port == 5000


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://example.com/", "'example.com' is not loopback"),
        ("http://localhost.example.com:80/", "not loopback"),
        ("http://10.0.0.1:80/", "'10.0.0.1' is not loopback"),
        ("http://0.0.0.0:80/", "not loopback"),
        ("ftp://127.0.0.1/", "only http:// and https://"),
        ("http://127.0.0.1:99999/", "Port out of range"),
    ],
)
def test_other_hosts_and_schemes_are_refused(url: str, message: str) -> None:
    with pytest.raises(ReadinessError, match=message):
        ready_target(url, 80)


def test_no_port_at_all_is_refused_with_the_fix() -> None:
    with pytest.raises(ReadinessError, match="no known port: pass --port N"):
        ready_target("/health", None)


# ------------------------------------------------------------------------------------------------ probes


@pytest.fixture
def http_server() -> Iterator[tuple[int, dict[str, int]]]:
    answer = {"status": 200}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(answer["status"])
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port, answer
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.parametrize(("status", "ready"), [(200, True), (204, True), (301, True), (404, False), (503, False)])
def test_probe_reads_the_status(http_server: tuple[int, dict[str, int]], status: int, ready: bool) -> None:
    port, answer = http_server
    answer["status"] = status
    # localhost: 127.0.0.1 answers (::1 is never tried once an app has answered).
    assert probe(ready_target(None, port)) == (ready, f"HTTP {status}")


def test_probe_reports_a_refused_connection() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound but not listening: connecting is refused
        ready, seen = probe(ready_target(f"http://127.0.0.1:{port}/", None))
    assert not ready and seen == "connection refused"


# ------------------------------------------------------------------------------------------------ plans


def recipe(**fields: object) -> dict[str, object]:
    return normalize_recipe(fields, source="test")


def test_plan_scope_and_selection(tmp_path: Path) -> None:
    full = recipe(build="make", test="make test", start="./serve", port=8000)
    plan = plan_verify(tmp_path, full)
    assert plan.selected == ["build", "test", "start"] and plan.scope == "full"
    assert plan.env["PORT"] == "8000"
    assert plan_verify(tmp_path, full, skip_start=True).scope == "targeted"
    assert plan_verify(tmp_path, full, phases=["test"]).selected == ["test"]
    # Selecting every declared phase explicitly is still the full recipe.
    assert plan_verify(tmp_path, full, phases=["start", "build", "test"]).scope == "full"


def test_plan_timeouts_and_ports(tmp_path: Path) -> None:
    data = recipe(test="t", start="s", port=8000, timeout={"test": 5}, ready_timeout=9)
    plan = plan_verify(tmp_path, data)
    assert plan.timeouts["test"] == 5 and plan.timeouts["build"] == 1800 and plan.ready_timeout == 9
    plan = plan_verify(tmp_path, data, timeout=2, ready_timeout=3, port=9999)
    assert plan.timeouts["test"] == 2 and plan.ready_timeout == 3
    assert plan.env["PORT"] == "9999" and plan.target is not None and plan.target.port == 9999


def test_plan_refuses_what_cannot_run(tmp_path: Path) -> None:
    with pytest.raises(VerifyPlanError, match="no known port"):
        plan_verify(tmp_path, recipe(start="./serve"))
    with pytest.raises(VerifyPlanError, match="no build commands"):
        plan_verify(tmp_path, recipe(test="t"), phases=["build"])
    with pytest.raises(VerifyPlanError, match="nothing to run"):
        plan_verify(tmp_path, recipe(start="./serve", port=1), skip_start=True)
    with pytest.raises(VerifyPlanError, match="not loopback"):
        plan_verify(tmp_path, recipe(start="./serve", ready_url="http://192.168.1.4:80/"))


def test_compose_commands_are_found(tmp_path: Path) -> None:
    plan = plan_verify(tmp_path, recipe(build="docker compose build", test="echo docker compose", start="x", port=1))
    assert [c.command for c in plan.compose_commands()] == ["docker compose build"]
    assert plan_verify(tmp_path, recipe(test="docker-compose run t")).compose_commands()[0].phase == "test"
    assert plan_verify(tmp_path, recipe(test="cd web && A=1 docker compose run t")).compose_commands()


# ------------------------------------------------------------------------------------------------ console


def test_plain_reporter_prefixes_whole_lines() -> None:
    out = io.StringIO()
    reporter = PlainReporter(out)
    reporter.command_started(PlannedCommand("test", "pytest", "."), 1, 2)
    reporter.output("test", "stdout", "collected 3 it")
    reporter.output("test", "stderr", "warn\n")
    reporter.output("test", "stdout", "ems\n3 passed")
    tail = OutputTail()
    reporter.command_finished(CommandRun("test", "pytest", ".", 0, 1.25, tail, passed=True))
    assert out.getvalue().splitlines() == [
        "[test] $ pytest (1/2)",
        "[test] warn",
        "[test] collected 3 items",
        "[test] 3 passed",
        "[test] ✓ passed in 1.2s",
    ]


# ------------------------------------------------------------------------------------------------ stop commands


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("start_flags", ["", "--crash"])
async def test_stop_commands_run_after_the_app_whatever_happened(tmp_path: Path, start_flags: str) -> None:
    stopped = tmp_path / "stopped"
    data = recipe(
        start=f"{sys.executable} {WEBAPP_SERVER} {start_flags}",
        stop=[f"echo down > {stopped}", "exit 4"],
        port=_free_port(),
    )
    result = await run_verify(plan_verify(tmp_path, data, ready_timeout=30))
    assert [run.phase for run in result.runs] == ["start", "stop", "stop"]
    assert stopped.read_text() == "down\n"
    assert result.passed is (start_flags == "")
    assert result.ran_phases == ["start"]
    assert result.detail is not None and "stop: `exit 4` failed (exit 4)" in result.detail


@pytest.mark.parametrize(
    ("ready_url", "port", "message"),
    [
        ("http://[::1", 3000, "is not a valid URL"),
        ("http://127.0.0.1:0/", None, "port 0 cannot be polled"),
        (5, 3000, "expected a URL or a path"),
        ("/health", "3000", "expected a port number"),
    ],
)
def test_malformed_readiness_is_a_plan_error_not_a_traceback(
    tmp_path: Path, ready_url: object, port: object, message: str
) -> None:
    from freshpass.runner.verify import VerifyPlanError, plan_verify

    recipe = {"phases": {"start": [{"command": "serve"}]}, "ready_url": ready_url, "port": port}
    with pytest.raises(VerifyPlanError, match=message):
        plan_verify(tmp_path, recipe)
