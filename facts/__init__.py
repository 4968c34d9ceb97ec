"""What a repository declares about checking itself: roots, verify commands, recipes, and command classification.

Pure reading: nothing here executes a project's command. The model is imported on first use, so that the hooks'
fast path (`freshpass.facts.quick`) costs no more than its own words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freshpass.facts.model import KINDS, Problem, ProjectFacts, VerifyCommand

__all__ = ["KINDS", "Problem", "ProjectFacts", "VerifyCommand"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from freshpass.facts import model

        return getattr(model, name)
    raise AttributeError(f"module 'freshpass.facts' has no attribute {name!r}")
