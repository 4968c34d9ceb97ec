"""Facts are read again when any file they were read from changes (design §6): each kind of manifest, edited in
the editor, changes the checks the server offers to exactly what detection now finds on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from freshpass.facts.detect import detect_facts

from tests.e2e.conftest import Session, git, make_project

pytestmark = pytest.mark.e2e

PYPROJECT = "[project]\nname = 'demo'\nversion = '0'\n\n[tool.pytest.ini_options]\ntestpaths = ['tests']\n"

# (file, its new text): each changes what detection proposes, whatever came before it.
EDITS = [
    ("lib/setup.py", "from setuptools import setup\nsetup(name='lib')\n"),  # lib/ (with its pytest.ini) is a package
    ("composer.json", '{"scripts": {"test": "phpunit"}}\n'),
    ("Gemfile", 'source "https://rubygems.org"\n'),  # the Rakefile's task now runs through bundler
    ("Taskfile.dist.yml", "version: '3'\ntasks:\n  test:\n    cmds:\n      - go test ./...\n"),
    ("taskfile.yml", "version: '3'\ntasks:\n  lint:\n    cmds:\n      - golangci-lint run\n"),
    ("hatch.toml", "[envs.default.scripts]\ncheck = 'ruff check .'\n"),
    ("pnpm-workspace.yaml", "packages:\n  - 'pkgs/*'\n"),
    ("pkgs/a/package.json", '{"name": "a", "scripts": {"test": "vitest run", "lint": "eslint ."}}\n'),
]


def checks(commands: list[dict]) -> list[tuple[str, str, str]]:
    return [(c["command"], c["kind"], c["cwd"]) for c in commands]


async def test_editing_each_kind_of_manifest_re_detects_the_checks(lsp: Session, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", pyproject=PYPROJECT)
    (project / "lib" / "tests").mkdir(parents=True)
    (project / "lib" / "pytest.ini").write_text("[pytest]\n")
    (project / "lib" / "tests" / "test_lib.py").write_text("def test_lib():\n    pass\n")
    (project / "Rakefile").write_text('task :test do\n  sh "ruby -Itest test/all.rb"\nend\n')
    (project / "package.json").write_text('{"name": "root", "private": true, "scripts": {"test": "pnpm -r test"}}\n')
    (project / "pkgs" / "a").mkdir(parents=True)
    (project / "pkgs" / "a" / "package.json").write_text('{"name": "a", "scripts": {"test": "vitest run"}}\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a polyglot project")
    await lsp.initialize(project)
    before = checks((await lsp.status(project))["verify_commands"])
    assert before == checks([c.to_json() for c in detect_facts(project).verify_commands])

    for number, (relative, text) in enumerate(EDITS, start=1):
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        lsp.open(path, text="" if not path.exists() else path.read_text())
        path.write_text(text)
        lsp.change(path, text, version=2)
        lsp.save(path)
        expected = checks([c.to_json() for c in detect_facts(project).verify_commands])
        assert expected != before, f"edit {number} ({relative}) changes nothing detection finds: a useless case"
        found = await lsp.until_status(
            lambda s, expected=expected: s["root"] == str(project) and checks(s["verify_commands"]) == expected
        )
        assert checks(found["verify_commands"]) == expected, relative
        before = expected
