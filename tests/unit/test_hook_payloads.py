"""Hook payloads read as tables (design §7.2): each agent's documented shape in, a run or a reason out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from freshpass.evidence.hooks import (
    ReportedRun,
    Skip,
    StopRequest,
    cursor_stop_request,
    reported_run,
    stop_request,
)
from freshpass.evidence.receipts import Actor
from freshpass.evidence.runs import Report, confirms, exit_status

ROOT = str(Path("/").resolve())
BASH = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "cwd": ROOT,
        "session_id": "s1"}  # fmt: skip
OK = {"stdout": "3 passed in 0.1s\n", "stderr": "", "interrupted": False, "isImage": False}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({**BASH, "tool_response": OK, "duration_ms": 1500}, ("claude-code", "PostToolUse", 0, "3 passed in 0.1s\n",
                                                              "s1", 1.5)),
        ({**BASH, "tool_response": {**OK, "stderr": "warn"}}, ("claude-code", "PostToolUse", 0,
                                                               "3 passed in 0.1s\n\nwarn", "s1", None)),
        ({**BASH, "tool_response": {**OK, "returnCodeInterpretation": "No matches found"}},
         ("claude-code", "PostToolUse", None, "3 passed in 0.1s\n", "s1", None)),
        ({**BASH, "hook_event_name": "PostToolUseFailure", "error": "Exit code 2\nE boom\n1 failed"},
         ("claude-code", "PostToolUseFailure", 2, "E boom\n1 failed", "s1", None)),
        ({**BASH, "turn_id": "t", "tool_response": "1 failed in 0.2s"}, ("codex", "PostToolUse", None,
                                                                         "1 failed in 0.2s", "s1", None)),
        ({"hook_event_name": "afterShellExecution", "command": "pytest", "output": "x", "duration": 250,
          "workspace_roots": [ROOT], "conversation_id": "c9"}, ("cursor", "afterShellExecution", None, "x",
                                                                "cursor:c9", 0.25)),
        ({"command": "pytest", "exit_code": 1, "output": "o", "cwd": ROOT, "agent": "opencode",
          "session_id": "opencode:ses_1", "duration_ms": 10}, ("opencode", "shell", 1, "o", "opencode:ses_1", 0.01)),
    ],
    ids=["claude-success", "claude-stderr", "claude-benign-nonzero", "claude-failure", "codex", "cursor", "own"],
)  # fmt: skip
def test_reported_runs(payload: dict[str, Any], expected: tuple[Any, ...]) -> None:
    run = reported_run(payload, received_at=100.0)
    assert isinstance(run, ReportedRun), run
    assert (run.agent, run.event, run.exit_code, run.output, run.session, run.duration) == expected
    assert run.cwd == Path(ROOT)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (None, "not an object"),
        ({"hook_event_name": "Stop"}, "not a shell tool report"),
        ({**BASH, "tool_name": "Write"}, "not a shell tool call"),
        ({**BASH, "tool_input": {"command": ""}}, "no tool_input.command"),
        ({**BASH, "tool_input": "pytest"}, "no tool_input.command"),
        ({**BASH, "cwd": "relative/dir", "tool_response": OK}, "not a directory"),
        ({**BASH, "cwd": 5, "tool_response": OK}, '"cwd"'),
        ({**BASH, "tool_response": {**OK, "interrupted": True}}, "interrupted"),
        ({**BASH, "tool_response": {**OK, "backgroundTaskId": "b1"}}, "background"),
        ({**BASH, "tool_response": None}, "no tool_response"),
        ({**BASH, "hook_event_name": "PostToolUseFailure", "error": "Exit code 1", "is_interrupt": True},
         "interrupted"),
        ({**BASH, "hook_event_name": "PostToolUseFailure", "error": ["Exit code 1"]}, "no exit code"),
        ({"command": "pytest", "exit_code": True, "cwd": ROOT}, "must be an integer"),
        ({"command": ["pytest"], "exit_code": 0, "cwd": ROOT}, "non-empty string"),
        ({"hook_event_name": "afterShellExecution", "output": "x", "workspace_roots": [ROOT]}, '"command"'),
    ],
)  # fmt: skip
def test_payloads_that_report_no_usable_run(payload: Any, reason: str) -> None:
    skip = reported_run(payload)
    assert isinstance(skip, Skip)
    assert reason in skip.reason


@pytest.mark.parametrize(
    ("exit_code", "output", "expected"),
    [
        (0, "1 failed", 0),  # a reported exit status wins
        (None, "===== 1 failed, 2 passed in 0.3s =====", 1),
        (None, "===== 3 passed in 0.3s =====", None),  # a stated pass is not a proven pass
        (None, "nothing countable", None),
    ],
)
def test_exit_status(exit_code: int | None, output: str, expected: int | None) -> None:
    report = Report("pytest", Path(ROOT), exit_code, output, Actor("agent", "s"), "codex PostToolUse", 0.0)
    assert exit_status(report) == expected


@pytest.mark.parametrize(
    ("output", "exit_code", "expected"),
    [
        ("===== 3 passed in 0.3s =====", 0, True),
        ("test result: ok. 4 passed; 0 failed; 0 ignored", 0, True),
        ("===== 1 failed, 2 passed in 0.3s =====", 0, False),  # a summary that contradicts the exit status
        ("all good", 0, False),  # no summary at all: an agent could have echoed anything
        ("", 0, False),
        ("===== 1 failed in 0.3s =====", 1, True),
    ],
)
def test_a_reported_test_run_is_confirmed_only_by_a_summary_that_agrees_with_its_exit_status(
    output: str, exit_code: int, expected: bool
) -> None:
    assert confirms(output, exit_code) is expected


def test_stop_requests() -> None:
    request = stop_request(
        {"cwd": ROOT, "session_id": "s", "transcript_path": "/t.jsonl", "agent_transcript_path": "/a.jsonl",
         "last_assistant_message": "All tests pass."},
        agent="claude-code",
    )  # fmt: skip
    transcripts = (Path("/t.jsonl"), Path("/a.jsonl"))
    assert request == StopRequest("claude-code", Path(ROOT), "s", "All tests pass.", transcripts)
    assert stop_request({"cwd": ROOT}, agent="codex") == StopRequest("codex", Path(ROOT), "codex")
    assert isinstance(stop_request([], agent="codex"), Skip)

    cursor = {"conversation_id": "c", "status": "completed", "workspace_roots": [ROOT], "loop_count": 0}
    assert cursor_stop_request(cursor) == StopRequest("cursor", Path(ROOT), "cursor:c")
    for status in ("aborted", "error", None):
        skipped = cursor_stop_request({**cursor, "status": status})
        assert isinstance(skipped, Skip) and "not completed" in skipped.reason
