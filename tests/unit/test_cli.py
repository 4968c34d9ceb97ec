from __future__ import annotations

from tests.conftest import run_cli


def test_usage_error_is_one_line_and_exit_2() -> None:
    result = run_cli("facts", "--no-such-flag")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--no-such-flag" in result.stderr


def test_no_subcommand_prints_help_and_exit_2() -> None:
    result = run_cli()
    assert result.returncode == 2
    assert "COMMAND" in result.stderr


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("freshpass ")
