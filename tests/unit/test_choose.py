"""A person's choice of a check is written to the project's configuration, becomes primary at once, and leaves the
rest of the file as it was; bad input changes nothing and says why."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from freshpass.facts.choose import ChoiceError, candidates, check_command, choose
from freshpass.facts.detect import detect_facts

WORKFLOW = """\
on: push
jobs:
  pytest:
    runs-on: ubuntu-latest
    steps:
      - run: python -m pytest -q tests
  unittest:
    runs-on: ubuntu-latest
    steps:
      - run: python -m unittest discover -s tests
"""


def ci_only_project(root: Path, pyproject: str | None = None) -> Path:
    """A project whose test check rests on CI alone: two CI steps run tests, nothing local declares them."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (root / "tests").mkdir()
    (root / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject)
    return root


def test_the_candidates_are_the_checks_of_that_kind_primary_first_with_their_sources(tmp_path: Path) -> None:
    facts = detect_facts(ci_only_project(tmp_path))
    assert facts.needs_choice("test")
    found = candidates(facts, "test")
    assert [(c.command, c.basis, c.primary) for c in found] == [
        ("python -m pytest -q tests", "ci", True),
        ("python -m unittest discover -s tests", "ci", False),
    ]
    assert found[1].source == ".github/workflows/ci.yml#jobs.unittest.steps[0]"


def test_candidates_never_offer_writers_or_watchers_but_do_offer_narrower_entry_points(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(
        '{"scripts": {"test": "vitest run", "watch": "vitest --watch", "test:unit": "vitest run src/unit",'
        ' "test:update": "vitest run -u"}}'
    )
    facts = detect_facts(tmp_path)
    offered = {c.command: c.basis for c in candidates(facts, "test")}
    assert "npm test" in offered
    assert not any("watch" in command or "update" in command for command in offered), offered
    assert "npm run test:unit" in offered


def test_a_choice_in_a_project_without_configuration_creates_freshpass_toml_and_is_primary(tmp_path: Path) -> None:
    ci_only_project(tmp_path)
    choice = choose(tmp_path, "test", "python -m unittest discover -s tests")
    assert (choice.file, choice.created, choice.replaced) == (".freshpass.toml", True, ())
    facts = detect_facts(tmp_path)
    primary = facts.primary("test")
    assert primary is not None
    assert (primary.command, primary.basis, primary.source) == (
        "python -m unittest discover -s tests",
        "configured",
        ".freshpass.toml#verify[0]",
    )
    assert not facts.needs_choice("test")


PYPROJECT = """\
[project]
name = "demo"   # keep this comment
version = "1.0"

[tool.ruff]
line-length = 100  # and this one

[tool.pytest.ini_options]
addopts = "-q"
"""


def test_with_a_pyproject_the_choice_goes_to_tool_freshpass_and_the_rest_stays_byte_for_byte(tmp_path: Path) -> None:
    ci_only_project(tmp_path, PYPROJECT)
    choice = choose(tmp_path, "test", "python -m unittest discover -s tests")
    assert choice.file == "pyproject.toml" and not (tmp_path / ".freshpass.toml").exists()
    written = (tmp_path / "pyproject.toml").read_text()
    assert written.startswith(PYPROJECT)
    assert written[len(PYPROJECT) :] == (
        '\n[[tool.freshpass.verify]]\ncommand = "python -m unittest discover -s tests"\nkind = "test"\n'
    )
    assert detect_facts(tmp_path).primary("test").basis == "configured"  # type: ignore[union-attr]


def test_choosing_again_replaces_the_entry_of_that_kind_and_keeps_the_others(tmp_path: Path) -> None:
    config = (
        "# the project's checks\n"
        'verify = [\n  {command = "make test", kind = "test"},  # old\n'
        '  {command = "ruff check .", kind = "lint"},\n]\n'
        "ignore_prose = false\n"
    )
    (tmp_path / ".freshpass.toml").write_text(config)
    choice = choose(tmp_path, "test", "pytest -q")
    assert choice.replaced == ("make test",)
    text = (tmp_path / ".freshpass.toml").read_text()
    assert text.startswith("# the project's checks\n") and text.endswith("ignore_prose = false\n")
    assert "make test" not in text and '{command = "ruff check .", kind = "lint"}' in text
    facts = detect_facts(tmp_path)
    assert [(c.command, c.kind) for c in facts.verify_commands if c.basis == "configured"] == [
        ("pytest -q", "test"),
        ("ruff check .", "lint"),
    ]
    assert facts.ignore_prose is False


def test_a_choice_for_a_package_directory_keeps_the_root_s_entry(tmp_path: Path) -> None:
    (tmp_path / ".freshpass.toml").write_text('[[verify]]\ncommand = "make test"\nkind = "test"\n')
    (tmp_path / "backend").mkdir()
    choice = choose(tmp_path, "test", "pytest", cwd="./backend/")
    assert choice.cwd == "backend" and choice.replaced == ()
    text = (tmp_path / ".freshpass.toml").read_text()
    assert 'cwd = "backend"' in text and 'command = "make test"' in text


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("npm ci && npm test", "`&&` or `||`"),
        ("pytest; echo done", "list of commands"),
        ("pytest | tee out.txt", "pipeline"),
        ("pytest > out.txt", "redirects"),
        ("(cd backend && pytest)", "subshell"),
        ("pytest &", "list of commands"),
        ("FOO=1", "runs nothing"),
        ("pytest\nrm -rf /", "newline"),
        ("", "empty"),
        ("pytest 'unclosed", "cannot be read"),
        ("x" * 1001, "at most 1000"),
    ],
)
def test_only_one_simple_command_is_accepted(tmp_path: Path, command: str, says: str) -> None:
    with pytest.raises(ChoiceError, match=None) as raised:
        choose(tmp_path, "test", command)
    assert says in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_assignments_and_arguments_are_one_simple_command() -> None:
    assert check_command("  PYTHONWARNINGS=error python -m pytest -q tests  ") == (
        "PYTHONWARNINGS=error python -m pytest -q tests"
    )


def test_a_kind_or_directory_that_is_not_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ChoiceError, match="not a kind"):
        choose(tmp_path, "tests", "pytest")
    for cwd in ("../other", "/etc", "a/../../b"):
        with pytest.raises(ChoiceError, match="relative to the root"):
            choose(tmp_path, "test", "pytest", cwd=cwd)
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_does_not_parse_is_left_alone(tmp_path: Path) -> None:
    broken = '[project\nname = "x"\n'
    (tmp_path / "pyproject.toml").write_text(broken)
    with pytest.raises(ChoiceError, match=r"pyproject.toml is not valid TOML .*fix it"):
        choose(tmp_path, "test", "pytest")
    assert (tmp_path / "pyproject.toml").read_text() == broken
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]


def test_a_verify_that_is_not_an_array_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / ".freshpass.toml").write_text('verify = "pytest"\n')
    with pytest.raises(ChoiceError, match="not an array"):
        choose(tmp_path, "test", "pytest -q")
    assert (tmp_path / ".freshpass.toml").read_text() == 'verify = "pytest"\n'


def test_a_tool_that_is_not_a_table_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('tool = "nope"\n')
    with pytest.raises(ChoiceError, match=r"\[tool\] in pyproject.toml is not a table"):
        choose(tmp_path, "test", "pytest")
    assert (tmp_path / "pyproject.toml").read_text() == 'tool = "nope"\n'


def test_a_symlinked_config_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_text("# someone else's file\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".freshpass.toml").symlink_to(outside)
    with pytest.raises(ChoiceError, match="symbolic link"):
        choose(project, "test", "pytest")
    assert outside.read_text() == "# someone else's file\n"
    assert (project / ".freshpass.toml").is_symlink()


def test_a_fifo_config_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".freshpass.toml")
    with pytest.raises(ChoiceError, match="FIFO"):
        choose(tmp_path, "test", "pytest")


def test_a_dangling_symlinked_pyproject_is_not_replaced_by_a_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").symlink_to(tmp_path / "missing.toml")
    with pytest.raises(ChoiceError, match="symbolic link"):
        choose(tmp_path, "test", "pytest")
    assert (tmp_path / "pyproject.toml").is_symlink()


def test_the_file_keeps_its_permissions(tmp_path: Path) -> None:
    (tmp_path / ".freshpass.toml").write_text("ignore = []\n")
    os.chmod(tmp_path / ".freshpass.toml", 0o640)
    choose(tmp_path, "test", "pytest")
    assert (tmp_path / ".freshpass.toml").stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == [".freshpass.toml"]  # no temporary file left behind
