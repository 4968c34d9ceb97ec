"""`freshpass serve --tcp HOST:PORT`: the same server over a socket, for editors that connect rather than spawn."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_calc_project


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def connect(port: int, server: subprocess.Popen[bytes], timeout: float = 15.0) -> socket.socket:
    """Connect once the server listens; fail at once if it died instead."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=timeout)
        except OSError:
            if server.poll() is not None:
                raise AssertionError(f"server exited with {server.returncode}") from None
            if time.monotonic() > deadline:
                raise
            # Nothing to wait on but the port itself: the kernel refuses at once until the server binds.
            time.sleep(0.05)


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def receive(reader: Any) -> dict[str, Any]:
    length = 0
    while (line := reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length, "the connection closed before a message arrived"
    return dict(json.loads(reader.read(length)))


def response_to(reader: Any, request_id: int) -> dict[str, Any]:
    while True:  # notifications (logs, statusChanged) and server requests may come first
        message = receive(reader)
        if message.get("id") == request_id and "method" not in message:
            return message


@pytest.mark.e2e
def test_serve_over_tcp_answers_initialize_and_status_then_exits(tmp_path: Path) -> None:
    project = make_calc_project(tmp_path / "project")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "freshpass", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        with connect(port, server) as sock, sock.makefile("rb") as reader:
            send(sock, {"id": 1, "method": "initialize", "params": {
                "processId": None, "capabilities": {}, "rootUri": project.as_uri(),
                "workspaceFolders": [{"uri": project.as_uri(), "name": "project"}],
            }})  # fmt: skip
            initialized = response_to(reader, 1)
            assert initialized["result"]["serverInfo"]["name"] == "freshpass"
            send(sock, {"method": "initialized", "params": {}})
            send(sock, {"id": 2, "method": "freshpass/status", "params": {"root": str(project)}})
            status = response_to(reader, 2)["result"]
            assert (status["root"], status["status"]) == (str(project), "unverified")
            send(sock, {"id": 3, "method": "shutdown"})
            assert response_to(reader, 3).get("error") is None
            send(sock, {"method": "exit"})
        assert server.wait(timeout=15) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert b"Traceback" not in (server.stderr.read() if server.stderr else b"")


def test_serve_tcp_usage_error_is_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "freshpass", "serve", "--tcp", "nonsense"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "HOST:PORT" in result.stderr
