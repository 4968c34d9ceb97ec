"""`freshpass hook`: real hook JSON on stdin through the real CLI process, evidence from real `freshpass run`s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, make_calc_project, run_cli

# `freshpass run -- pytest` must find the pytest of this environment, as it would in the user's activated venv.
TOOL_PATH = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed Python project whose approved test command is `pytest`."""
    return make_calc_project(tmp_path / "project")


def edit(repo: Path, body: str = "a + b + 0") -> None:
    (repo / "src" / "calc.py").write_text(f"def add(a, b):\n    return {body}\n")


def freshpass_run(repo: Path, *command: str) -> subprocess.CompletedProcess[str]:
    result = run_cli("run", "--", *command, cwd=repo, env=TOOL_PATH)
    assert result.returncode == 0, result.stderr
    return result


def claude_stop(
    cwd: Path | str | None,
    *,
    session: str = "claude-1",
    active: bool = False,
    transcript: Path | str = "/nonexistent/transcript.jsonl",
    **extra: Any,
):
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": str(transcript),
        "hook_event_name": "Stop",
        "stop_hook_active": active,
        **extra,
    }
    if cwd is not None:
        payload["cwd"] = str(cwd)
    return run_cli("hook", "claude-stop", input=json.dumps(payload))


def blocked_reason(result: subprocess.CompletedProcess[str]) -> str | None:
    assert result.returncode == 0, result.stderr
    if not result.stdout.strip():
        return None
    output = json.loads(result.stdout)
    return output["reason"] if output.get("decision") == "block" else None


def test_stale_blocks_with_a_reason_naming_the_change_and_the_command(repo: Path) -> None:
    freshpass_run(repo, "pytest")
    edit(repo)
    result = claude_stop(repo)
    reason = blocked_reason(result)
    assert reason is not None
    assert "src/calc.py" in reason
    assert "`freshpass run -- pytest`" in reason
    assert "report that blocker plainly" in reason
    assert "`pytest` (passed), ran before these changes" in reason


def test_budget_then_stop_hook_active_allows(repo: Path) -> None:
    edit(repo)
    first = claude_stop(repo)
    second = claude_stop(repo, active=True)
    third = claude_stop(repo, active=True)
    assert blocked_reason(first) is not None and "(reminder 1 of 2)" in first.stdout
    assert blocked_reason(second) is not None and "(reminder 2 of 2)" in second.stdout
    assert blocked_reason(third) is None
    # The person still learns that the change is unverified.
    assert "not verified" in json.loads(third.stdout)["systemMessage"]


def test_fresh_pass_allows_silently(repo: Path) -> None:
    edit(repo)
    assert blocked_reason(claude_stop(repo)) is not None
    freshpass_run(repo, "pytest")
    result = claude_stop(repo, active=True)
    assert result.returncode == 0
    assert result.stdout == ""


def test_a_new_pass_starts_a_new_budget(repo: Path) -> None:
    edit(repo)
    for _ in range(3):
        claude_stop(repo)
    assert blocked_reason(claude_stop(repo)) is None  # spent
    freshpass_run(repo, "pytest")
    edit(repo, "b + a")
    assert blocked_reason(claude_stop(repo)) is not None


def test_budgets_belong_to_sessions(repo: Path) -> None:
    edit(repo)
    claude_stop(repo, session="one")
    claude_stop(repo, session="one")
    assert blocked_reason(claude_stop(repo, session="one")) is None
    assert blocked_reason(claude_stop(repo, session="two")) is not None


def test_targeted_pass_does_not_count_as_done(repo: Path) -> None:
    edit(repo)
    freshpass_run(repo, "pytest", "tests/test_calc.py")
    reason = blocked_reason(claude_stop(repo))
    assert reason is not None
    assert "Only a targeted test run, `pytest tests/test_calc.py`" in reason


def test_prose_only_edits_never_block(repo: Path) -> None:
    (repo / "README.md").write_text("# demo\n\nMore words.\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.rst").write_text("Guide\n=====\n")
    assert claude_stop(repo).stdout == ""  # no receipt at all: nothing to verify
    freshpass_run(repo, "pytest")
    (repo / "README.md").write_text("# demo\n\nEven more words.\n")
    assert claude_stop(repo).stdout == ""  # the pass still covers the code


def test_outside_any_root_allows(tmp_path: Path) -> None:
    plain = tmp_path / "not-a-project"
    plain.mkdir()
    result = claude_stop(plain)
    assert (result.returncode, result.stdout) == (0, "")


@pytest.mark.parametrize(
    ("stdin", "complaint"),
    [
        ("", "not hook JSON"),
        ("this is not json", "not hook JSON"),
        ("[1, 2]", "not a hook object"),
        ('{"session_id": "s"}', 'no "cwd"'),
        ('{"session_id": "s", "cwd": "/nonexistent/dir"}', "not a directory"),
    ],
)
def test_garbage_stdin_allows_with_one_line_on_stderr(stdin: str, complaint: str) -> None:
    result = run_cli("hook", "claude-stop", input=stdin)
    assert (result.returncode, result.stdout) == (0, "")
    assert complaint in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_ledger_error_allows_with_one_line_on_stderr(repo: Path, tmp_path: Path) -> None:
    edit(repo)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    payload = json.dumps({"session_id": "s", "cwd": str(repo), "stop_hook_active": False})
    result = run_cli("hook", "claude-stop", input=payload, env={"FRESHPASS_LEDGER": str(blocker / "ledger.db")})
    assert (result.returncode, result.stdout) == (0, "")
    assert "FRESHPASS_LEDGER" in result.stderr and "allowing" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_subagent_stop_payload_is_handled_the_same(repo: Path) -> None:
    edit(repo)
    result = claude_stop(repo, hook_event_name="SubagentStop")
    assert blocked_reason(result) is not None


def test_check_exit_codes_and_json(repo: Path) -> None:
    edit(repo)
    nudged = run_cli("hook", "check", "--json", "--session", "ci", str(repo))
    assert nudged.returncode == 2
    assert "src/calc.py" in nudged.stderr
    response = json.loads(nudged.stdout)
    assert response["verdict"] == "nudge" and response["synthetic"] is True
    assert response["nudgesLeft"] == 1
    assert response["commands"][0]["run"] == "freshpass run -- pytest"
    assert response["changedPaths"] == ["src/calc.py"]

    freshpass_run(repo, "pytest")
    verified = run_cli("hook", "check", "--json", "--session", "ci", str(repo / "src"))
    assert verified.returncode == 0
    assert json.loads(verified.stdout)["verdict"] == "verified"
    assert verified.stderr == ""


def test_check_shares_the_budget_with_claude_stop(repo: Path) -> None:
    edit(repo)
    assert run_cli("hook", "check", "--session", "shared", cwd=repo).returncode == 2
    assert blocked_reason(claude_stop(repo, session="shared")) is not None
    exhausted = run_cli("hook", "check", "--session", "shared", cwd=repo)
    assert exhausted.returncode == 0
    assert "not verified" in exhausted.stderr


def test_check_budget_zero_never_fails_but_still_says_so(repo: Path) -> None:
    edit(repo)
    result = run_cli("hook", "check", "--budget", "0", cwd=repo)
    assert result.returncode == 0
    assert "reminders are turned off" in result.stderr


def test_check_rules_from_flags(repo: Path) -> None:
    edit(repo)
    freshpass_run(repo, "pytest", "tests/test_calc.py")
    assert run_cli("hook", "check", cwd=repo).returncode == 2
    assert run_cli("hook", "check", "--done-scope", "targeted", cwd=repo).returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "/nonexistent/path"], "does not exist"),
        (["check", "--budget", "-1"], "--budget must be 0 or more"),
        (["check", "--done-kind", "coverage"], "invalid choice"),
        ([], "choose an adapter"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args: list[str], message: str) -> None:
    result = run_cli("hook", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def transcript_with_edits(path: Path, *edited: Path) -> Path:
    """A Claude Code session transcript (JSONL) in which the agent used its edit tools on `edited`."""
    lines = [
        {"type": "user", "message": {"role": "user", "content": "make add commutative"}},
        *(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Editing."},
                        {"type": "tool_use", "id": f"toolu_{index}", "name": ("Edit", "Write", "MultiEdit")[index % 3],
                         "input": {"file_path": str(target), "old_string": "a + b", "new_string": "b + a"}},
                    ],
                },
            }
            for index, target in enumerate(edited)
        ),
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "/etc/hosts"}}]}},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + '\n{"type": "tool_use", truncated\n')
    return path


def test_edits_the_agent_committed_are_found_in_its_transcript(repo: Path, tmp_path: Path) -> None:
    edit(repo)
    git(repo, "commit", "-qam", "the agent's commit")  # git shows nothing uncommitted any more
    assert blocked_reason(claude_stop(repo)) is None

    transcript = transcript_with_edits(tmp_path / "session.jsonl", repo / "src" / "calc.py", repo / "NOTES.md")
    reason = blocked_reason(claude_stop(repo, session="other", transcript=transcript))
    assert reason is not None
    assert "1 file changed (src/calc.py)" in reason


def test_transcript_edits_do_not_count_once_a_pass_exists(repo: Path, tmp_path: Path) -> None:
    edit(repo)
    freshpass_run(repo, "pytest")
    transcript = transcript_with_edits(tmp_path / "session.jsonl", repo / "src" / "calc.py")
    result = claude_stop(repo, transcript=transcript)
    assert (result.returncode, result.stdout) == (0, "")


def test_the_hooks_load_asyncio_without_tls_and_leave_ssl_importable() -> None:
    code = (
        "import sys\n"
        "from freshpass.commands.hook import _asyncio_without_tls\n"
        "_asyncio_without_tls()\n"
        "import asyncio.base_events\n"
        "assert asyncio.base_events.ssl is None, 'asyncio was given ssl'\n"
        "assert 'ssl' not in sys.modules\n"
        "import ssl\n"
        "assert ssl.OPENSSL_VERSION\n"
        "asyncio.run(asyncio.sleep(0))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
