"""What `freshpass verify` adds around the project's own commands: spawn, readiness, teardown, the CLI.

Uses the stdlib web app of the end-to-end tests (tests/fixtures/apps/webapp) and measures:
- `run_shell("true")`: one process group spawned, drained and confirmed gone,
- readiness latency: from the app printing "listening" to the runner seeing HTTP 200,
- teardown: from ready to the app's whole process group gone (a well-behaved app, and one ignoring SIGTERM,
  which is bounded by the grace period before SIGKILL),
- `freshpass verify` end to end as a process (facts, content id, one command, the receipt) on a one-command recipe.

    .venv/bin/python bench/bench_verify.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ledger_report import TABLE_HEAD, row
from freshpass.runner.process import DEFAULT_GRACE, run_shell
from freshpass.runner.verify import PlannedCommand, VerifyReporter, plan_verify, run_verify

WEBAPP = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "apps" / "webapp"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Timeline(VerifyReporter):
    """Timestamps of the moments a run goes through."""

    def __init__(self) -> None:
        self.listening: float | None = None
        self.ready: float | None = None
        self.done: float | None = None

    def output(self, phase: str, stream: str, text: str) -> None:
        if "listening" in text and self.listening is None:
            self.listening = time.perf_counter()

    def readiness_status(self, url: str, status: str, attempt: int) -> None:
        if status.startswith("HTTP 2") and self.ready is None:
            self.ready = time.perf_counter()

    def command_started(self, planned: PlannedCommand, index: int, total: int) -> None:
        pass


async def spawn(runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await run_shell("true", WEBAPP)
        samples.append(time.perf_counter() - started)
    return samples


async def serve(app: Path, runs: int, flags: str) -> tuple[list[float], list[float]]:
    readiness, teardown = [], []
    for _ in range(runs):
        recipe = {"phases": {"start": [{"command": f"{sys.executable} server.py {flags}", "cwd": "."}]}}
        plan = plan_verify(app, {**recipe, "port": free_port()}, ready_timeout=30)
        timeline = Timeline()
        result = await run_verify(plan, reporter=timeline)
        finished = time.perf_counter()
        if not result.passed or timeline.listening is None or timeline.ready is None:
            raise SystemExit(f"bench run failed: {result.reason} {result.detail}")
        readiness.append(max(0.0, timeline.ready - timeline.listening))
        teardown.append(finished - timeline.ready)
    return readiness, teardown


def cli(app: Path, runs: int, state: Path) -> list[float]:
    (app / ".freshpass").mkdir(exist_ok=True)
    (app / ".freshpass" / "recipe.json").write_text(json.dumps({"test": "true"}))
    env = {**os.environ, "FRESHPASS_LEDGER": str(state / "ledger.db"), "XDG_STATE_HOME": str(state)}
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        argv = [sys.executable, "-m", "freshpass", "verify", str(app)]
        subprocess.run(argv, env=env, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "app"
        shutil.copytree(WEBAPP, app)
        spawn_samples = asyncio.run(spawn(args.runs * 3))
        ready, down = asyncio.run(serve(app, args.runs, ""))
        _, down_stubborn = asyncio.run(serve(app, max(2, args.runs // 5), "--ignore-term"))
        cli_samples = cli(app, args.runs, Path(tmp))
    print(f"`freshpass verify` overhead ({time.strftime('%Y-%m-%d')}, load {os.getloadavg()[0]:.1f})\n")
    print(TABLE_HEAD)
    print(row("run_shell('true') spawn + teardown", spawn_samples, "< 50 ms"))
    print(row("readiness: listening → seen ready", ready, "< 250 ms"))
    print(row("teardown: ready → app group gone", down, "< 100 ms"))
    print(row("teardown, app ignores SIGTERM", down_stubborn, f"≤ grace {DEFAULT_GRACE:g} s + KILL"))
    print(row("`freshpass verify` CLI, one command", cli_samples, "< 1 s"))


if __name__ == "__main__":
    main()
