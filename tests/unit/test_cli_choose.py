"""`freshpass facts --set KIND COMMAND` and `freshpass facts --choose`: a person settles which command is a check,
from the command line; the choice is written to the project's configuration and read back as `configured`."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_cli
from tests.unit.test_choose import ci_only_project


def facts_json(root: Path) -> dict:
    result = run_cli("facts", "--json", str(root))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_set_writes_freshpass_toml_and_the_check_is_configured_at_once(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    result = run_cli("facts", str(tmp_path), "--set", "test", "python -m unittest discover -s tests")
    assert result.returncode == 0, result.stderr
    assert "written to .freshpass.toml" in result.stdout and "Commit .freshpass.toml" in result.stdout
    first = facts_json(tmp_path)["verify_commands"][0]
    assert (first["command"], first["kind"], first["basis"]) == (
        "python -m unittest discover -s tests",
        "test",
        "configured",
    )


def test_set_with_json_says_what_was_written(tmp_path: Path) -> None:
    ci_only_project(tmp_path, '[project]\nname = "demo"\n')
    result = run_cli("facts", str(tmp_path), "--json", "--set", "lint", "ruff check .")
    assert result.returncode == 0, result.stderr
    written = json.loads(result.stdout)
    assert (written["file"], written["kind"], written["command"], written["created"]) == (
        "pyproject.toml",
        "lint",
        "ruff check .",
        False,
    )
    assert (tmp_path / "pyproject.toml").read_text().startswith('[project]\nname = "demo"\n')


def test_set_refuses_a_composed_command_and_writes_nothing(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    result = run_cli("facts", str(tmp_path), "--set", "test", "npm ci && npm test")
    assert result.returncode == 1
    assert "is not one simple command" in result.stderr
    assert not (tmp_path / ".freshpass.toml").exists()


def test_set_refuses_an_unknown_kind(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    result = run_cli("facts", str(tmp_path), "--set", "tests", "pytest")
    assert result.returncode == 2 and "'tests' is not a kind" in result.stderr


def test_set_outside_any_project_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("facts", str(tmp_path), "--set", "test", "pytest")
    assert result.returncode == 2 and "is not inside a project" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_set_leaves_a_broken_pyproject_alone(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\n")
    result = run_cli("facts", str(tmp_path), "--set", "test", "pytest")
    assert result.returncode == 1 and "pyproject.toml is not valid TOML" in result.stderr
    assert (tmp_path / "pyproject.toml").read_text() == "[project\n"


def test_choose_without_a_terminal_says_so_and_writes_nothing(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    result = run_cli("facts", str(tmp_path), "--choose", input="2\n")
    assert result.returncode == 2
    assert "--choose asks at a terminal" in result.stderr and "--set" in result.stderr
    assert not (tmp_path / ".freshpass.toml").exists()


def choose_at_a_terminal(root: Path, answer: str, *extra: str) -> tuple[int, str]:
    """Run `freshpass facts --choose` with a pseudo-terminal as standard input, type `answer`, collect stdout."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "freshpass", "facts", str(root), "--choose", *extra],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(controller, answer.encode())
        out, err = process.communicate(timeout=60)
    finally:
        os.close(terminal)
        os.close(controller)
    return process.returncode, out + err


def test_choose_lists_the_candidates_with_their_sources_and_writes_the_one_picked(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    code, output = choose_at_a_terminal(tmp_path, "2\n")
    assert code == 0, output
    assert "Which command runs this project's full tests?" in output
    assert "1. python -m pytest -q tests" in output and "ci: .github/workflows/ci.yml#jobs.pytest.steps[0]" in output
    assert "2. python -m unittest discover -s tests" in output and "← now" in output
    assert "written to .freshpass.toml" in output
    assert facts_json(tmp_path)["verify_commands"][0]["command"] == "python -m unittest discover -s tests"


def test_choose_takes_another_command_typed_at_the_prompt(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    code, output = choose_at_a_terminal(tmp_path, "7\npython -m pytest tests -p no:cacheprovider\n")
    assert code == 0, output
    assert "7 is not one of the numbers listed" in output
    assert facts_json(tmp_path)["verify_commands"][0]["command"] == "python -m pytest tests -p no:cacheprovider"


def test_choose_with_an_empty_answer_writes_nothing(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    code, output = choose_at_a_terminal(tmp_path, "\n")
    assert code == 1 and "nothing was written" in output
    assert not (tmp_path / ".freshpass.toml").exists()


def test_facts_says_which_checks_are_unconfirmed(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    result = run_cli("facts", str(tmp_path))
    assert "unconfirmed: test (convention, CI or a close call)" in result.stdout
    run_cli("facts", str(tmp_path), "--set", "test", "python -m pytest -q tests")
    assert "unconfirmed" not in run_cli("facts", str(tmp_path)).stdout
