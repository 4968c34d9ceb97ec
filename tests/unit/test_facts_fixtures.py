"""Each fixture repository under tests/fixtures/repos/ mimics a real project; its expected.json states what a careful
maintainer would list (design §2). The comparison is exact: every check, equivalent, origin, what was set aside and
why, and every problem. `FRESHPASS_REGENERATE_FIXTURES=1` rewrites them from detection (review the diff!).

`root` (absolute, machine-dependent) and `recipe` (owned by freshpass.facts.recipes) are left out.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from freshpass.facts import detect as detect_module
from freshpass.facts.detect import detect_facts
from freshpass.facts.recipes import RecipeReading

from tests.conftest import FIXTURES, run_cli

REPOS = FIXTURES / "repos"
FIXTURE_NAMES = sorted(p.name for p in REPOS.iterdir() if p.is_dir())


def _expected(name: str) -> dict[str, Any]:
    return json.loads((REPOS / name / "expected.json").read_text())


def _checkout(name: str, tmp_path: Path) -> Path:
    repo = tmp_path / name
    shutil.copytree(REPOS / name, repo, symlinks=True)
    (repo / "expected.json").unlink()
    (repo / ".git").mkdir()
    return repo


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in ("root", "recipe")}


def test_there_are_at_least_25_fixture_repositories() -> None:
    assert len(FIXTURE_NAMES) >= 25


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_has_no_git_dir(name: str) -> None:
    # git ignores nested .git dirs; a test that needs git creates one in tmp_path.
    assert not (REPOS / name / ".git").exists()


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_detect_facts_matches_expected(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Recipes have their own tests; their problems must not make these expectations drift.
    monkeypatch.setattr(detect_module, "read_recipe", lambda root, facts: RecipeReading(None, [], frozenset()))
    # A copy that is its own repository, as a real checkout would be: nothing above it can leak in.
    repo = _checkout(name, tmp_path)
    facts = detect_facts(repo)
    assert facts.root == str(repo)
    actual = _comparable(facts.to_json())
    if os.environ.get("FRESHPASS_REGENERATE_FIXTURES"):
        (REPOS / name / "expected.json").write_text(json.dumps(actual, indent=2) + "\n")
    expected = _expected(name)
    # Commands first: a mismatch there reads best as a list diff.
    assert actual["verify_commands"] == expected["verify_commands"]
    assert actual == expected


@pytest.mark.parametrize("name", ["pnpm-monorepo", "malformed-package-json", "django-runtests", "no-signals"])
def test_cli_json_is_the_same_as_in_process(name: str, tmp_path: Path) -> None:
    # A copy in tmp_path: inside this repository the fixture would resolve to freshpass's own git root.
    repo = _checkout(name, tmp_path)
    result = run_cli("facts", "--json", str(repo / "."))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["root"] == str(repo.resolve())
    assert set(data) == {
        "root",
        "manifests",
        "package_managers",
        "verify_commands",
        "set_aside",
        "context_files",
        "recipe",
        "problems",
        "ambiguous",
    }
    actual, expected = _comparable(data), _expected(name)
    problems = actual.pop("problems")
    assert all(problem in problems for problem in expected.pop("problems"))  # recipe problems may come on top
    assert actual == expected
