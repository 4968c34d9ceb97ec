"""Agents' hooks through the real CLI (design §7.2–§7.4): their own shell runs become receipts, their claims meet
receipts, and their Stop hooks see both.

Payloads are built exactly as each agent documents and sends them (docs/agents.md names the sources): the command
really runs here (a real pytest in a real repository), and its result is reported in the agent's shape —
Claude Code's PostToolUse (success: stdout/stderr/interrupted/isImage, no exit code) and PostToolUseFailure
(`error` beginning `Exit code N`), Codex's PostToolUse (the output text only), Cursor's afterShellExecution.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_calc_project, run_cli

pytestmark = pytest.mark.e2e

TOOL_PATH = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
SESSION = "5c1e0d2a-claude-session"
THINKING = 30.0  # seconds an agent's model takes between an edit and its next tool call (files are dated back so)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed Python project whose approved test command is `pytest`."""
    return make_calc_project(tmp_path / "project")


def edit(path: Path, text: str) -> None:
    """The agent's Edit tool writes the file; its next tool call comes after the model has thought about it."""
    path.write_text(text)
    past = time.time() - THINKING
    os.utime(path, (past, past))


def change_the_code(repo: Path) -> None:
    edit(repo / "src" / "calc.py", "def add(a, b):\n    return b + a\n")


def break_the_code(repo: Path) -> None:
    edit(repo / "src" / "calc.py", "def add(a, b):\n    return a - b\n")


def bash(repo: Path, command: str) -> tuple[int, str, str, int]:
    """Run `command` as an agent's shell tool does: (exit code, stdout, stderr, duration in ms)."""
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", command], cwd=repo, capture_output=True, text=True, env={**os.environ, **TOOL_PATH}
    )
    return done.returncode, done.stdout, done.stderr, int((time.monotonic() - started) * 1000)


_CALLS = itertools.count(1)


def pre_tool_use(payload: dict[str, Any]) -> None:
    """The agent's PreToolUse hook for the same call (`freshpass hook pre`): the same common fields, `tool_name`,
    `tool_input` and `tool_use_id` (code.claude.com/docs/en/hooks#pretooluse-input), before the command runs."""
    keep = ("session_id", "transcript_path", "cwd", "permission_mode", "tool_name", "tool_input", "tool_use_id",
            "turn_id", "model")  # fmt: skip
    started = {key: payload[key] for key in keep if key in payload}
    result = run_cli("hook", "pre", "--verbose", input=json.dumps({**started, "hook_event_name": "PreToolUse"}))
    assert result.returncode == 0 and not result.stdout, result
    assert "kept the content" in result.stderr or "not a check" in result.stderr, result.stderr


def claude_code_reports(repo: Path, command: str, *, pre: Any = True, before_run: Any = None) -> dict[str, Any]:
    """Claude Code's hook input after its Bash tool ran `command` (code.claude.com/docs/en/hooks; the shapes in
    Claude Code 2.1.332's bundle: PostToolUse's Bash `tool_response`, PostToolUseFailure's `error`), after its
    PreToolUse hook for the same call (unless `pre` is false; a callable runs it its own way). `before_run` runs
    between the PreToolUse and the command (an edit a concurrent tool makes)."""
    common = {
        "session_id": SESSION,
        "transcript_path": str(repo.parent / "transcript.jsonl"),
        "cwd": str(repo),
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run the tests"},
        "tool_use_id": f"toolu_01ABC{next(_CALLS)}",
    }
    if callable(pre):
        pre({**common, "hook_event_name": "PreToolUse"})
    elif pre:
        pre_tool_use(common)
    if before_run is not None:
        before_run()
    code, stdout, stderr, duration = bash(repo, command)
    common["duration_ms"] = duration
    if code == 0:
        response = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False,
                    "noOutputExpected": False}  # fmt: skip
        return {**common, "hook_event_name": "PostToolUse", "tool_response": response}
    error = "\n".join(part for part in (f"Exit code {code}", stderr, stdout) if part).strip()
    return {**common, "hook_event_name": "PostToolUseFailure", "error": error, "is_interrupt": False}


def codex_reports(repo: Path, command: str, *, pre: Any = True) -> dict[str, Any]:
    """Codex's PostToolUse input for its shell tool (codex-rs/hooks/schema/generated/post-tool-use.command.input
    .schema.json; `tool_response` is the output text, codex-rs/core/src/tools/context.rs), after its PreToolUse."""
    call = f"call_{next(_CALLS)}"
    common = {"session_id": "0199a7c2-codex-thread", "turn_id": "turn-3", "cwd": str(repo), "model": "gpt-5-codex",
              "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": command},
              "tool_use_id": call}  # fmt: skip
    if callable(pre):
        assert pre({**common, "hook_event_name": "PreToolUse"}) == ""
    elif pre:
        pre_tool_use(common)
    _code, stdout, stderr, _duration = bash(repo, command)
    return {
        "session_id": "0199a7c2-codex-thread",
        "turn_id": "turn-3",
        "transcript_path": None,
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": stdout + stderr,
        "tool_use_id": call,
    }


def record(payload: Any) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    result = run_cli("hook", "record", "--json", input=payload if isinstance(payload, str) else json.dumps(payload))
    assert result.returncode == 0, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return json.loads(result.stdout), result


def receipts(repo: Path) -> list[dict[str, Any]]:
    result = run_cli("log", "--json", str(repo))
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    return list(payload["receipts"] if isinstance(payload, dict) else payload)


def claude_stop(repo: Path, message: str | None = None, *, active: bool = False) -> subprocess.CompletedProcess[str]:
    payload: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": str(repo.parent / "transcript.jsonl"),
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }
    if message is not None:
        payload["last_assistant_message"] = message
    return run_cli("hook", "claude-stop", input=json.dumps(payload))


def block_reason(result: subprocess.CompletedProcess[str]) -> str | None:
    assert result.returncode == 0, result.stderr
    if not result.stdout.strip():
        return None
    output = json.loads(result.stdout)
    return output["reason"] if output.get("decision") == "block" else None


# ---- the agent's own runs become receipts --------------------------------------------------------------------------


def test_claude_code_pytest_passing_is_a_full_receipt_and_the_next_stop_is_allowed(repo: Path) -> None:
    change_the_code(repo)
    assert block_reason(claude_stop(repo)) is not None  # unverified: the stop is blocked

    outcome, result = record(claude_code_reports(repo, "pytest -q"))
    assert outcome["recorded"] is True, outcome
    assert "recorded test passed (full, reported)" in result.stderr
    [receipt] = receipts(repo)
    assert (receipt["command"], receipt["kind"], receipt["scope"], receipt["status"]) == (
        "pytest -q", "test", "full", "passed"
    )  # fmt: skip
    assert receipt["exit_code"] == 0 and receipt["approved"] is True
    assert (receipt["actor"], receipt["session"]) == ("agent", SESSION)
    assert receipt["details"]["via"] == "claude-code PostToolUse"
    assert receipt["tests"] == {"passed": 1, "failed": 0, "skipped": 0}
    assert receipt["stale_at_record"] is False

    allowed = claude_stop(repo, active=True)
    assert (allowed.returncode, allowed.stdout) == (0, "")


def test_claude_code_failing_pytest_is_a_failed_receipt(repo: Path) -> None:
    break_the_code(repo)
    payload = claude_code_reports(repo, "pytest -q")
    assert payload["hook_event_name"] == "PostToolUseFailure" and payload["error"].startswith("Exit code 1\n")
    outcome, _ = record(payload)
    [receipt] = outcome["receipts"]
    assert (receipt["status"], receipt["scope"], receipt["exit_code"]) == ("failed", "full", 1)
    assert receipt["tests"]["failed"] == 1
    assert receipt["details"]["via"] == "claude-code PostToolUseFailure"
    reason = block_reason(claude_stop(repo))
    assert reason is not None and "`pytest -q`, failed" in reason


def test_a_command_that_is_no_check_records_nothing(repo: Path) -> None:
    outcome, result = record(claude_code_reports(repo, "ls -la"))
    assert outcome == {"recorded": False, "reason": outcome["reason"], "receipts": []}
    assert "no recognised check" in outcome["reason"]
    assert "nothing recorded" in result.stderr
    assert receipts(repo) == []


def test_a_narrowed_run_is_a_targeted_receipt(repo: Path) -> None:
    change_the_code(repo)
    outcome, _ = record(claude_code_reports(repo, "pytest -q tests/test_calc.py"))
    [receipt] = outcome["receipts"]
    assert (receipt["status"], receipt["scope"]) == ("passed", "targeted")
    reason = block_reason(claude_stop(repo))
    assert reason is not None and "Only a targeted test run, `pytest -q tests/test_calc.py`" in reason


def test_a_file_written_while_the_run_ran_makes_the_receipt_stale(repo: Path) -> None:
    payload = claude_code_reports(repo, "pytest -q")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")  # written now: inside the run's window
    payload["duration_ms"] = 60_000
    outcome, result = record(payload)
    [receipt] = outcome["receipts"]
    assert receipt["stale_at_record"] is True
    assert "already stale" in result.stderr
    assert block_reason(claude_stop(repo)) is not None


def test_an_edit_just_before_the_run_gives_a_fresh_receipt_through_the_pre_and_post_pair(repo: Path) -> None:
    """An agent edits a file and runs the tests 200 ms later, in one message: its PreToolUse hook kept the content
    at the start of the call, so the PostToolUse record is bound to exactly that content and is fresh."""
    edited = repo / "src" / "calc.py"
    edited.write_text("def add(a, b):\n    return b + a\n")  # the Edit tool writes it now
    time.sleep(0.2)  # the agent's next tool call, a few hundred ms later (the scenario, not a wait for a state)
    outcome, _ = record(claude_code_reports(repo, "pytest -q"))

    receipt = outcome["receipts"][0]
    assert (receipt["status"], receipt["scope"], receipt["observed"]) == ("passed", "full", "reported"), receipt
    assert receipt["stale_at_record"] is False and receipt["details"]["content_bound"] == "start"
    assert block_reason(claude_stop(repo)) is None  # the fresh full pass lets the agent stop


def test_without_its_pre_tool_hook_the_clock_rule_applies_and_the_receipt_is_unconfirmed(repo: Path) -> None:
    edited = repo / "src" / "calc.py"
    edited.write_text("def add(a, b):\n    return b + a\n")
    outcome, result = record(claude_code_reports(repo, "pytest -q", pre=False))

    receipt = outcome["receipts"][0]
    assert (receipt["status"], receipt["observed"], receipt["details"]["content_bound"]) == (
        "passed", "unconfirmed", "clock",
    )  # fmt: skip
    assert receipt["stale_at_record"] is True  # written within the clock rule's margin of the estimated start
    assert "unconfirmed" in result.stderr


def test_an_unconfirmed_pass_is_shown_and_never_counts_as_full(repo: Path) -> None:
    change_the_code(repo)
    outcome, _ = record(claude_code_reports(repo, "pytest -q", pre=False))
    assert outcome["receipts"][0]["observed"] == "unconfirmed"

    status = json.loads(run_cli("status", "--json", str(repo)).stdout)
    assert (status["status"], status["scope"], status["evidence"]["observed"]) == ("passed", "targeted", "unconfirmed")
    assert block_reason(claude_stop(repo)) is not None  # not a full pass: the stop is still blocked


def test_a_reported_pass_without_a_test_summary_is_unconfirmed(repo: Path) -> None:
    """A harness can report anything: `pytest -q` exit 0 with output that states no test summary."""
    payload = {"command": "pytest -q", "exit_code": 0, "output": "ok\n", "cwd": str(repo), "agent": "harness",
               "session_id": "h1"}  # fmt: skip
    outcome, _ = record(payload)
    assert outcome["receipts"][0]["observed"] == "unconfirmed"
    summarised = {**payload, "output": "3 passed in 0.05s\n"}
    outcome, _ = record(summarised)
    assert outcome["receipts"][0]["observed"] == "reported"


def test_codex_reports_no_exit_status_so_only_a_stated_failure_is_recorded(repo: Path) -> None:
    passing, result = record(codex_reports(repo, "pytest -q"))
    assert passing["recorded"] is False and "no exit status" in passing["reason"], result.stderr

    break_the_code(repo)
    failing, _ = record(codex_reports(repo, "pytest -q"))
    [receipt] = failing["receipts"]
    assert (receipt["status"], receipt["exit_code"], receipt["session"]) == ("failed", 1, "0199a7c2-codex-thread")
    assert receipt["details"] == {**receipt["details"], "via": "codex PostToolUse", "exit_status": "from the output"}


def test_cursor_after_shell_execution_is_read_like_codex(repo: Path) -> None:
    break_the_code(repo)
    _code, stdout, _stderr, duration = bash(repo, "pytest -q")
    payload = {
        "hook_event_name": "afterShellExecution",
        "conversation_id": "conv-1",
        "generation_id": "gen-1",
        "workspace_roots": [str(repo)],
        "command": "pytest -q",
        "output": stdout,
        "duration": duration,
    }
    outcome, _ = record(payload)
    [receipt] = outcome["receipts"]
    assert (receipt["status"], receipt["session"], receipt["details"]["via"]) == (
        "failed", "cursor:conv-1", "cursor afterShellExecution"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("", "not hook JSON"),
        ("[1, 2]", "not an object"),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Bash"}', "not a shell tool report"),
        ('{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {}}', "not a shell tool call"),
        ('{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": 7}}', "no tool_input"),
        ('{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest"}}', '"cwd"'),
        ('{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest"}, '
         '"cwd": "/nonexistent/dir", "tool_response": {}}', "not a directory"),
        ('{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": {"command": "pytest"}, '
         '"cwd": "/", "error": "Command timed out"}', "no exit code"),
        ('{"command": "pytest", "exit_code": null, "cwd": "/"}', "did not run to an end"),
        ('{"command": "pytest", "exit_code": "0", "cwd": "/"}', "must be an integer"),
    ],
)  # fmt: skip
def test_hostile_payloads_record_nothing_and_say_why(payload: str, reason: str) -> None:
    outcome, _ = record(payload)
    assert outcome["recorded"] is False
    assert reason in outcome["reason"]


@pytest.mark.parametrize(
    "response",
    [
        {"stdout": "1 passed", "stderr": "", "interrupted": True, "isImage": False},
        {"stdout": "", "stderr": "", "interrupted": False, "isImage": False, "backgroundTaskId": "bash_1"},
    ],
    ids=["interrupted", "backgrounded"],
)
def test_runs_that_did_not_finish_record_nothing(repo: Path, response: dict[str, Any]) -> None:
    payload = {"session_id": SESSION, "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": "pytest -q"}, "tool_response": response}  # fmt: skip
    outcome, _ = record(payload)
    assert outcome["recorded"] is False
    assert receipts(repo) == []


def test_a_benign_non_zero_exit_leaves_the_status_unknown(repo: Path) -> None:
    # `pytest -q | grep -q FAILED` exits 1 when nothing failed; Claude Code reports it as a success with
    # returnCodeInterpretation. The exit status is not 0, and not known: nothing is recorded.
    payload = {"session_id": SESSION, "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": "pytest -q"}, "tool_response": {"stdout": "1 passed in 0.01s", "stderr": "",
               "interrupted": False, "isImage": False, "returnCodeInterpretation": "No matches found"}}  # fmt: skip
    outcome, _ = record(payload)
    assert outcome["recorded"] is False and "no exit status" in outcome["reason"]


# ---- claims meet receipts in Stop hooks (design §7.4) -------------------------------------------------------------


def test_an_unbacked_claim_is_blocked_with_the_claim_quoted_and_allowed_after_a_recorded_pass(repo: Path) -> None:
    message = "I fixed the addition.\n\nAll tests pass."
    reason = block_reason(claude_stop(repo, message))  # nothing changed: only the claim is unbacked
    assert reason is not None
    assert "“All tests pass.”" in reason
    assert "`freshpass run -- pytest`" in reason

    outcome, _ = record(claude_code_reports(repo, "pytest -q"))
    assert outcome["recorded"] is True
    allowed = claude_stop(repo, message, active=True)
    assert (allowed.returncode, allowed.stdout) == (0, "")


def test_a_claim_after_an_edit_is_quoted_in_the_nudge(repo: Path) -> None:
    change_the_code(repo)
    reason = block_reason(claude_stop(repo, "Done. The tests pass and lint is clean."))
    assert reason is not None
    assert "1 file changed (src/calc.py)" in reason
    assert "You wrote “The tests pass and lint is clean.”, but no fresh passing full lint/test run" in reason


def test_a_plainly_reported_blocker_is_no_claim(repo: Path) -> None:
    result = claude_stop(repo, "I could not run the tests: pytest is not installed here.")
    assert (result.returncode, result.stdout) == (0, "")


def test_codex_stop_shape_blocks_then_allows(repo: Path) -> None:
    """Codex's Stop input (codex-rs/hooks/schema/generated/stop.command.input.schema.json: every field required,
    no others) and its output contract (decision "block" with a non-blank reason)."""

    def codex_stop(active: bool) -> subprocess.CompletedProcess[str]:
        payload = {"session_id": "0199a7c2-codex-thread", "turn_id": "turn-4", "transcript_path": None,
                   "cwd": str(repo), "hook_event_name": "Stop", "model": "gpt-5-codex", "permission_mode": "default",
                   "stop_hook_active": active, "last_assistant_message": "All tests pass."}  # fmt: skip
        return run_cli("hook", "codex-stop", input=json.dumps(payload))

    change_the_code(repo)
    blocked = codex_stop(False)
    output = json.loads(blocked.stdout)
    assert set(output) == {"decision", "reason"} and output["decision"] == "block"
    assert "“All tests pass.”" in output["reason"]

    assert run_cli("run", "--", "pytest", cwd=repo, env=TOOL_PATH).returncode == 0
    allowed = codex_stop(True)
    assert (allowed.returncode, allowed.stdout) == (0, "")


def test_cursor_stop_budget_per_conversation_and_aborted_turns_skipped(repo: Path) -> None:
    def cursor_stop(conversation: str, status: str = "completed", loop_count: int = 0) -> dict[str, Any]:
        payload = {"hook_event_name": "stop", "conversation_id": conversation, "generation_id": "g",
                   "workspace_roots": [str(repo)], "status": status, "loop_count": loop_count}  # fmt: skip
        result = run_cli("hook", "cursor-stop", input=json.dumps(payload))
        assert result.returncode == 0, result.stderr
        return dict(json.loads(result.stdout))

    change_the_code(repo)
    assert cursor_stop("conv-a", status="aborted") == {}  # the person stopped it: not a claim of done
    first = [cursor_stop("conv-a", loop_count=n) for n in range(3)]
    assert ["followup_message" in answer for answer in first] == [True, True, False]
    assert "`freshpass run -- pytest`" in first[0]["followup_message"]
    assert "followup_message" in cursor_stop("conv-b")  # another conversation has its own budget
