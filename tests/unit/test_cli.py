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


def test_a_command_line_imports_only_its_own_subcommand() -> None:
    """`freshpass run` starts for every command it runs: the other subcommands' modules stay unimported, and
    `--help` still lists them all."""
    import subprocess
    import sys

    probe = (
        "import sys; from freshpass.main import build_parser; "
        "build_parser(['run', '--', 'pytest']).parse_args(['run', '--', 'pytest']); "
        "print(sorted(m for m in sys.modules if m.startswith('freshpass.commands.') or m == 'freshpass.server.serve'))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['freshpass.commands.run']"
    listed = run_cli("--help")
    for name in ("facts", "classify", "run", "verify", "status", "log", "serve", "hook"):
        assert name in listed.stdout


def test_lazy_patterns_answer_like_compiled_ones() -> None:
    import re

    from freshpass.facts.lazyre import lazy

    pattern = lazy(r"(\w+)=(\d+)", re.IGNORECASE)
    compiled = re.compile(r"(\w+)=(\d+)", re.IGNORECASE)
    text = "a=1 B=22 c=x"
    assert pattern.search(text).groups() == compiled.search(text).groups()  # type: ignore[union-attr]
    assert pattern.match(text, 4).groups() == ("B", "22")  # type: ignore[union-attr]
    assert pattern.fullmatch("z=9") is not None and pattern.fullmatch("z=9 ") is None
    assert [m.group(0) for m in pattern.finditer(text)] == ["a=1", "B=22"]
    assert pattern.findall(text) == compiled.findall(text)
    assert pattern.sub(r"\2", text) == compiled.sub(r"\2", text)
    assert pattern.split(text) == compiled.split(text)
    assert pattern.compiled is pattern.compiled and pattern.pattern == compiled.pattern
