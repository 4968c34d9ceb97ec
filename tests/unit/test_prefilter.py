"""The hooks' prefilter (`freshpass.facts.quick`): generated from the vocabulary, and wrong only one way — every
line the classifier recognises passes it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from freshpass.facts.classify import classify
from freshpass.facts.quick import could_be_check

REPO = Path(__file__).resolve().parents[2]

CHECKS = [
    "pytest -q",
    "cd backend && pytest",
    'bash -c "pytest -q"',
    "./scripts/test",
    "scripts/check.sh",
    "python tests/run.py",
    "python -m pytest -x",
    "uv run pytest",
    ".venv/bin/pytest tests/test_app.py",
    "env ./scripts/test",
    "X=1 npm test",
    "python manage.py test",
    "php artisan test",
    "ruby test/foo_test.rb",
    "npx jest",
    "make test",
    "cargo test --workspace",
    "go test ./...",
    "(cd web && npm run lint)",
    "timeout 60 tox -e py312",
]
NOT_CHECKS = ["ls -la", "cat src/app.py", "git status", "grep -rn foo src/", "sed -n 1,10p app.py", "echo hi", "pwd"]


def classifier_lines() -> list[str]:
    """Every command line the classifier's own tests feed it (string literals of calls to `classify`)."""
    lines: set[str] = set()
    for name in ("test_classify.py", "test_classify_properties.py"):
        tree = ast.parse((REPO / "tests" / "unit" / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) < 200:
                lines.add(node.value)
    return sorted(lines)


def test_the_generated_words_are_the_vocabularys() -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "gen-first-words"), "--check"], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


@pytest.mark.parametrize("line", CHECKS)
def test_checks_pass_the_prefilter(line: str) -> None:
    assert could_be_check(line)


@pytest.mark.parametrize("line", NOT_CHECKS)
def test_what_an_agent_runs_all_day_is_stopped(line: str) -> None:
    assert not could_be_check(line)
    assert not classify(line, cwd=str(REPO), root=str(REPO)).matches  # and the classifier agrees


def test_no_line_the_classifier_recognises_is_stopped(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    missed = [
        line
        for line in (*classifier_lines(), *CHECKS)
        if classify(line, cwd=str(tmp_path), root=str(tmp_path)).matches and not could_be_check(line)
    ]
    assert missed == []
