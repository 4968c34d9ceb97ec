from __future__ import annotations

from pathlib import Path

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


def test_status_never_offers_another_kind_for_the_tests() -> None:
    from freshpass.commands.status import describe_status
    from freshpass.evidence.status import Status
    from freshpass.facts.model import VerifyCommand

    lint = VerifyCommand("npm run lint", "lint")
    text = describe_status(Status("/p", verify_commands=(lint,)))
    assert "npm run lint" not in text
    assert "no test check declared" in text
    with_tests = Status("/p", verify_commands=(lint, VerifyCommand("npm test", "test")))
    assert "freshpass run -- npm test" in describe_status(with_tests)


def test_status_without_readable_facts_does_not_say_the_project_declares_nothing() -> None:
    from freshpass.commands.status import describe_status
    from freshpass.evidence.status import Status

    assert "declares no verify command" in describe_status(Status("/p"))
    unread = describe_status(Status("/p"), facts_read=False)
    assert "declares no" not in unread and "could not be read" in unread


def test_the_primary_command_is_of_the_kind_asked_for_or_none() -> None:
    from freshpass.facts.model import ProjectFacts, VerifyCommand
    from freshpass.server.state import RootState

    facts = ProjectFacts(root="/p", verify_commands=[VerifyCommand("npm run lint", "lint")])
    root = RootState(Path("/p"), facts=facts)
    assert root.primary_command() is None
    assert root.primary_command("lint") == facts.verify_commands[0]
