"""`freshpass run`, `status` and `log` as real processes (design §4, §8), including the ledger's fault paths."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.e2e

# `make test` is the project's declared check. check.sh reports like pytest, exits with the number in `verdict`
# (0 when absent), and when $MUTATE is set edits a source file while it "runs".
MAKEFILE = "test:\n\t@sh check.sh\n"
CHECK = """\
echo "3 passed, 1 skipped in 0.01s"
if [ -n "$MUTATE" ]; then echo "/* touched */" >> src/main.c; fi
exit "$(cat verdict 2>/dev/null || echo 0)"
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "Makefile").write_text(MAKEFILE)
    (root / "check.sh").write_text(CHECK)
    (root / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (root / ".gitignore").write_text("verdict\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def status_json(repo: Path) -> tuple[int, dict]:
    completed = run_cli("status", "--json", cwd=repo)
    return completed.returncode, json.loads(completed.stdout)


def receipts(repo: Path, *extra: str) -> list[dict]:
    completed = run_cli("log", "--json", *extra, cwd=repo)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)["receipts"]


def test_run_records_a_fresh_receipt(repo: Path) -> None:
    ran = run_cli("run", "--", "make test", cwd=repo)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "3 passed, 1 skipped in 0.01s\n"  # the command's own output, untouched
    assert "recorded test passed (full, approved, 3 passed, 0 failed, 1 skipped)" in ran.stderr

    code, status = status_json(repo)
    assert code == 0
    assert (status["status"], status["scope"]) == ("passed", "full")
    assert status["evidence"]["command"] == "make test" and status["evidence"]["tests"] == {
        "passed": 3,
        "failed": 0,
        "skipped": 1,
    }
    human = run_cli("status", cwd=repo)
    assert human.returncode == 0 and human.stdout.startswith(f"passed (full) — {repo}")
    [receipt] = receipts(repo)
    assert receipt["fresh"] is True and receipt["session"].startswith("terminal:")


def test_failure_keeps_the_exit_code_and_is_recorded_failed(repo: Path) -> None:
    (repo / "verdict").write_text("3")
    ran = run_cli("run", "--", "make", "test", cwd=repo)
    assert ran.returncode == 2  # make's own exit code for a failed recipe
    code, status = status_json(repo)
    assert code == 1 and status["status"] == "failed" and status["evidence"]["exit_code"] == 2


def test_edit_makes_status_stale_and_names_the_path(repo: Path) -> None:
    assert run_cli("run", "--", "make test", cwd=repo).returncode == 0
    (repo / "src" / "main.c").write_text("int main(void) { return 1; }\n")
    human = run_cli("status", cwd=repo)
    assert human.returncode == 1
    assert human.stdout.startswith(f"stale — {repo}")
    assert "changed   src/main.c" in human.stdout
    assert "run       freshpass run -- make test" in human.stdout


def test_change_during_the_run_is_recorded_stale(repo: Path) -> None:
    ran = run_cli("run", "--", "make test", cwd=repo, env={"MUTATE": "1"})
    assert ran.returncode == 0
    assert "already stale" in ran.stderr
    [receipt] = receipts(repo)
    assert receipt["stale_at_record"] is True and receipt["fresh"] is False
    code, status = status_json(repo)
    assert code == 1 and status["status"] == "stale"


def test_unrecognised_command_runs_and_records_nothing(repo: Path) -> None:
    ran = run_cli("run", "--", "echo hello && exit 4", cwd=repo)
    assert ran.returncode == 4
    assert ran.stdout == "hello\n"
    [line] = ran.stderr.splitlines()
    assert line.startswith("freshpass: nothing recorded:")
    assert receipts(repo) == []


def test_json_keeps_stdout_for_the_receipt(repo: Path) -> None:
    ran = run_cli("run", "--json", "--", "make test", cwd=repo)
    assert ran.returncode == 0
    payload = json.loads(ran.stdout)
    assert "3 passed" in ran.stderr  # the command's stdout went to stderr
    assert payload["recorded"] is True and payload["exit_code"] == 0
    [receipt] = payload["receipts"]
    assert (receipt["kind"], receipt["scope"], receipt["approved"]) == ("test", "full", True)
    assert payload["status"]["status"] == "passed" and payload["status"]["evidence"]["id"] == receipt["id"]


def test_several_words_are_joined_with_quoting(repo: Path) -> None:
    ran = run_cli("run", "--", "sh", "-c", "echo 'two words'; exit 7", cwd=repo)
    assert ran.returncode == 7 and ran.stdout == "two words\n"


def test_missing_command_is_a_usage_error(repo: Path) -> None:
    ran = run_cli("run", cwd=repo)
    assert ran.returncode == 2 and len(ran.stderr.splitlines()) == 1


def test_log_is_newest_first_and_limited(repo: Path) -> None:
    for verdict in ("0", "1", "0"):
        (repo / "verdict").write_text(verdict)
        run_cli("run", "--", "make test", cwd=repo)
    everything = receipts(repo)
    assert [r["status"] for r in everything] == ["passed", "failed", "passed"]
    assert [r["id"] for r in everything] == sorted((r["id"] for r in everything), reverse=True)
    assert [r["id"] for r in receipts(repo, "--limit", "1")] == [everything[0]["id"]]
    human = run_cli("log", cwd=repo)
    assert human.returncode == 0 and human.stdout.count("make test") == 3


def test_outside_any_project(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    ran = run_cli("run", "--", "make test", cwd=lonely)
    assert ran.returncode == 2  # make: no makefile; still the command's own exit code
    assert "nothing recorded" in ran.stderr and "not inside a project" in ran.stderr
    status = run_cli("status", cwd=lonely)
    assert status.returncode == 1 and "not inside a project" in status.stderr


def wait_for(condition, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def test_ctrl_c_reaches_the_command_and_its_group(repo: Path) -> None:
    pid_file = repo / "child.pid"
    proc = subprocess.Popen(
        [sys.executable, "-m", "freshpass", "run", "--", "echo $$ > child.pid; exec sleep 60"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text().strip().isdigit())
        child = int(pid_file.read_text())
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    def gone() -> bool:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(gone)
    assert "Traceback" not in proc.stderr.read()


def test_corrupt_ledger_is_moved_aside_with_one_message(repo: Path) -> None:
    ledger = Path(os.environ["FRESHPASS_LEDGER"])
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(b"definitely not sqlite" * 100)
    ran = run_cli("run", "--", "make test", cwd=repo)
    assert ran.returncode == 0
    warnings = [line for line in ran.stderr.splitlines() if "corrupt" in line]
    assert len(warnings) == 1 and str(ledger) in warnings[0]
    assert "recorded test passed" in ran.stderr
    assert len(list(ledger.parent.glob("ledger.db.corrupt-*"))) == 1
    again = run_cli("status", cwd=repo)
    assert again.returncode == 0 and "corrupt" not in again.stderr


def test_unwritable_ledger_location_is_a_clear_error(repo: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a directory should be")
    env = {"FRESHPASS_LEDGER": str(blocker / "ledger.db")}
    status = run_cli("status", cwd=repo, env=env)
    assert status.returncode == 1
    assert str(blocker / "ledger.db") in status.stderr and "FRESHPASS_LEDGER" in status.stderr
    ran = run_cli("run", "--", "make test", cwd=repo, env=env)
    assert ran.returncode == 0
    assert "nothing recorded" in ran.stderr and "FRESHPASS_LEDGER" in ran.stderr
    for output in (status.stderr, ran.stderr):
        assert "Traceback" not in output


def test_locked_ledger_waits_then_says_so(repo: Path) -> None:
    assert run_cli("run", "--", "make test", cwd=repo).returncode == 0  # creates the ledger
    holder = sqlite3.connect(os.environ["FRESHPASS_LEDGER"], isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        ran = run_cli("run", "--", "make test", cwd=repo, env={"FRESHPASS_LEDGER_BUSY_TIMEOUT": "0.3"})
    finally:
        holder.close()
    assert ran.returncode == 0
    assert "locked by another process" in ran.stderr and "Traceback" not in ran.stderr
    assert len(receipts(repo)) == 1


class _Pty:
    """`freshpass run` on a pseudo-terminal it controls, as in an interactive shell."""

    def __init__(self, repo: Path, line: str) -> None:
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: exec at once, never return into pytest
            try:
                os.chdir(repo)
                os.execv(sys.executable, [sys.executable, "-m", "freshpass", "run", "--", line])
            finally:
                os._exit(127)
        self.output = b""

    def read_until(self, needle: bytes, timeout: float = 30.0) -> None:
        import select

        deadline = time.monotonic() + timeout
        while needle not in self.output:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{needle!r} not seen; output so far: {self.output!r}")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # EIO: the child side closed
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{needle!r} not seen before the end; output: {self.output!r}")
                self.output += chunk

    def exit_code(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            self.drain()
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError(f"freshpass did not exit; output: {self.output!r}")

    def drain(self) -> None:
        import select

        ready, _, _ = select.select([self.fd], [], [], 0.05)
        if ready:
            try:
                self.output += os.read(self.fd, 4096)
            except OSError:
                pass


def test_command_owns_the_terminal_and_can_read_it(repo: Path) -> None:
    session = _Pty(repo, "echo ready; read answer; echo got:$answer")
    session.read_until(b"ready")
    os.write(session.fd, b"hello\n")
    session.read_until(b"got:hello")
    assert session.exit_code() == 0


def test_ctrl_c_on_the_terminal_stops_the_command(repo: Path) -> None:
    session = _Pty(repo, "echo ready; exec sleep 60")
    session.read_until(b"ready")
    os.write(session.fd, b"\x03")
    assert session.exit_code() == 130
    assert b"Traceback" not in session.output


def test_a_command_only_the_facts_declare_is_recorded(repo: Path) -> None:
    script = repo / "scripts" / "test"
    script.parent.mkdir()
    script.write_text('#!/bin/sh\nexec python3 tests/runner.py "$@"\n')  # the project's own runner
    script.chmod(0o755)
    runner = repo / "tests" / "runner.py"
    runner.parent.mkdir()
    runner.write_text("print('2 passed in 0.01s')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "wrapper")
    ran = run_cli("run", "--", "./scripts/test", cwd=repo)
    assert ran.returncode == 0, ran.stderr
    assert "recorded test passed (full, approved, 2 passed" in ran.stderr
    code, status = status_json(repo)
    assert code == 0 and status["evidence"]["command"] == "./scripts/test"


def test_a_project_that_counts_prose_is_read_the_same_by_run_verify_log_and_status(repo: Path) -> None:
    (repo / ".freshpass.toml").write_text("ignore_prose = false\n")
    (repo / "README.md").write_text("# project\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "prose is content here")
    assert run_cli("run", "--", "make test", cwd=repo).returncode == 0
    code, status = status_json(repo)
    assert code == 0 and status["status"] == "passed"  # run took the content id under the project's rules
    assert [receipt["fresh"] for receipt in receipts(repo)] == [True]
    (repo / "README.md").write_text("# project, reworded\n")
    code, status = status_json(repo)
    assert code == 1 and status["status"] == "stale" and status["changed_paths"] == ["README.md"]
    assert [receipt["fresh"] for receipt in receipts(repo)] == [False]
    verified = run_cli("verify", "--phase", "test", cwd=repo)
    assert verified.returncode == 0, verified.stderr
    code, status = status_json(repo)
    assert code == 0 and status["status"] == "passed"  # and so did verify
    assert receipts(repo)[0]["fresh"] is True
