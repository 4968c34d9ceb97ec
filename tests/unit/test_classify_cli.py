"""`freshpass classify` as a separate process (design §8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture
def uv_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n')
    (root / "uv.lock").write_text("version = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
    return root


def test_json_for_an_approved_passing_run(uv_project: Path) -> None:
    result = run_cli("classify", "--cwd", str(uv_project), "--exit-code", "0", "--json", "--", "python -m pytest -q")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == ["matched", "canonical_command", "approved", "kind", "scope", "attributable", "status",
                          "reason", "matches"]  # fmt: skip
    assert data["matched"] and data["approved"] and data["status"] == "passed"
    assert data["kind"] == "test" and data["scope"] == "full"
    assert data["matches"][0]["cwd"] == "."
    assert data["canonical_command"].endswith("pytest -q")


def test_output_file_detects_a_vacuous_run(uv_project: Path, tmp_path: Path) -> None:
    log = tmp_path / "out.txt"
    log.write_text("collected 0 items\n\n==== no tests ran in 0.01s ====\n")
    result = run_cli(
        "classify", "--cwd", str(uv_project), "--exit-code", "5", "--output-file", str(log), "--json", "--", "pytest"
    )
    data = json.loads(result.stdout)
    assert (data["status"], data["reason"]) == ("failed", "no tests ran")


def test_human_output_explains_a_non_match(tmp_path: Path) -> None:
    result = run_cli("classify", "--cwd", str(tmp_path), "--", "echo pytest")
    assert result.returncode == 0
    assert "matched" in result.stdout and "no" in result.stdout
    assert "echo pytest" in result.stdout


def test_human_output_explains_attribution(uv_project: Path) -> None:
    result = run_cli("classify", "--cwd", str(uv_project), "--exit-code", "0", "--", "pytest | tee log")
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines() if " " in line)
    assert lines["attributable"].strip() == "no"
    assert "pipe" in lines["reason"]


def test_several_words_are_requoted(uv_project: Path) -> None:
    result = run_cli("classify", "--cwd", str(uv_project), "--json", "--", "pytest", "tests/test x.py")
    assert json.loads(result.stdout)["matches"][0]["args"] == ["tests/test x.py"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["classify"], "give the command line"),
        (["classify", "--"], "give the command line"),
        (["classify", "--cwd", "/nonexistent/dir", "--", "pytest"], "not a directory"),
        (["classify", "--output-file", "/nonexistent/file", "--", "pytest"], "cannot read --output-file"),
        (["classify", "--exit-code", "x", "--", "pytest"], "invalid int value"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_a_package_root_is_classified_with_its_own_facts(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    web = root / "packages" / "web"
    (root / ".git").mkdir(parents=True)
    web.mkdir(parents=True)
    (root / "package.json").write_text('{"private": true, "workspaces": ["packages/*"]}')
    (root / "package-lock.json").write_text("{}")
    (web / "package.json").write_text('{"name": "web", "scripts": {"test": "jest"}}')
    result = run_cli("classify", "--cwd", str(web), "--exit-code", "0", "--json", "--", "npm test -- -t parses")
    data = json.loads(result.stdout)
    # approved in the package, and narrowed by jest's -t (read through the package's test script)
    assert (data["approved"], data["scope"], data["matches"][0]["cwd"]) == (True, "targeted", "."), data
