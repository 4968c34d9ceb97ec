"""ProjectFacts knows every file its detection depended on, present or absent (design §6)."""

from __future__ import annotations

from pathlib import Path

from freshpass.facts.detect import detect_facts
from freshpass.server.state import touches_facts


def test_facts_know_what_they_read_and_what_they_looked_for(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "test").write_text("#!/bin/sh\npytest\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    facts = detect_facts(tmp_path)
    assert facts.reads("pyproject.toml")  # read
    for absent in ("setup.py", "composer.json", "Gemfile", "hatch.toml", "Taskfile.dist.yml", "pnpm-workspace.yaml"):
        assert facts.reads(absent), absent  # looked for: its appearance changes the facts
    assert facts.reads("scripts/lint")  # a new file in a directory whose entries were read
    assert facts.reads(".freshpass/recipe.json")
    assert not facts.reads("src/app.py")
    assert not facts.reads("src/deep/module.py")


def test_a_manifest_anywhere_may_be_a_new_package() -> None:
    from freshpass.facts.model import ProjectFacts

    facts = ProjectFacts(root="/r")
    assert touches_facts(facts, "services/api/go.mod")
    assert not touches_facts(facts, "services/api/main.go")
    assert touches_facts(None, "anything.txt")  # no facts yet: anything may matter
