"""What a repository declares about checking itself: roots, verify commands, recipes, and command classification.

Pure reading: nothing here executes a project's command.
"""

from freshpass.facts.model import KINDS, Problem, ProjectFacts, VerifyCommand

__all__ = ["KINDS", "Problem", "ProjectFacts", "VerifyCommand"]
