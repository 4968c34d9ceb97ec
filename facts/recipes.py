"""Recipes (design §5) as data: load from configuration or a saved file, else detect per ecosystem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from freshpass.facts.model import Problem, ProjectFacts


def recipe_for(root: Path, facts: ProjectFacts) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The recipe for `root` and any problems met while reading recipe files."""
    return None, []
