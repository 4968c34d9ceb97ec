"""What a repository declares for checking itself (design §2).

`detect_facts(root)` reads the repository's packages (`signals.packages`), asks each signal reader for candidates
— explicit configuration, wrapper scripts, package scripts, Python's runners and tools, task runners, ecosystem
conventions, CI workflows, contributor docs — and lets `facts.checks` decide the checks: per kind one primary with
its equivalents, ranked as a contributor sees them, and what was set aside and why. Pure reading: known file names
and the directories the conventions name, never a walk of the tree, never a project command; bounded in time.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from freshpass.facts.checks import decide_checks
from freshpass.facts.model import Problem, ProjectFacts
from freshpass.facts.recipes import read_recipe
from freshpass.facts.signals import ci, docs, ecosystems, explicit, node, packages, python, scripts, tasks
from freshpass.facts.signals.base import DEFAULT_TIME_BUDGET, Collector, DetectionStopped

T = TypeVar("T")


def detect_facts(root: Path, *, time_budget: float = DEFAULT_TIME_BUDGET) -> ProjectFacts:
    """The facts of `root`: manifests, package managers, checks in rank order, what was set aside, problems."""
    root = Path(os.path.abspath(root))
    facts = ProjectFacts(root=str(root))
    if not root.is_dir():
        facts.problems.append(Problem(".", f"{root} is not a directory"))
        return facts
    c = Collector(root, time_budget=time_budget)
    package_dirs: list[str] = ["."]
    outcome = None
    try:
        _guarded(c, "[tool.freshpass]", explicit.read, c)
        found = _guarded(c, "workspace packages", packages.discover, c) or [packages.Package(".")]
        package_dirs = [p.cwd for p in found if p.workspace_member]
        for package in found:
            for reader in (scripts.read, node.read, node.read_deno, python.read, tasks.read, ecosystems.read):
                _guarded(c, f"{reader.__module__.rsplit('.', 1)[-1]} signals of {package.cwd}", reader, c, package)
        _guarded(c, "CI workflows", ci.read, c)
        sub_projects = [p.cwd for p in found if p.cwd != "."]
        _guarded(c, "contributor docs", docs.read, c, sub_projects)
    except DetectionStopped:
        c.problem(".", f"detection stopped after {time_budget:g} s; what was read so far is kept")
        c.deadline = float("inf")  # deciding on what was read is bounded by what was read
    try:
        outcome = _guarded(c, "deciding the checks", decide_checks, c, package_dirs)
    except DetectionStopped:  # only when reading stopped early was the deadline lifted
        c.problem(".", f"deciding the checks took longer than {time_budget:g} s; no checks were proposed")
    facts.manifests = c.manifests
    facts.package_managers = c.package_managers
    if outcome is not None:
        facts.verify_commands = outcome.checks
        facts.set_aside = outcome.set_aside
        facts.ambiguous = outcome.ambiguous
    facts.context_files = _ordered_context(facts, c.context_files)
    facts.problems = c.problems
    facts.ignore = c.ignore
    facts.shared_trust = c.shared_trust
    facts.ignore_prose = c.ignore_prose
    facts.flaky = c.flaky
    facts.gate = c.gate
    recipe = read_recipe(root, facts)
    facts.recipe = recipe.recipe
    facts.recipe_problems = recipe.problems
    facts.problems.extend(recipe.problems)
    inputs, input_dirs, globbed = c.inputs()
    facts.inputs = inputs | recipe.looked
    facts.input_dirs = input_dirs
    facts.globbed_dirs = globbed
    return facts


def _guarded(c: Collector, what: str, function: Callable[..., T], *args: Any) -> T | None:
    """Run one reader; whatever it trips over becomes a problem and detection goes on with the others."""
    try:
        return function(*args)
    except DetectionStopped:
        raise
    except RecursionError:
        c.problem(".", f"{what}: nested too deeply to analyse")
    except Exception as exc:  # a reader's bug must not cost the other signals, nor the user's command
        c.problem(".", f"{what}: could not be read ({type(exc).__name__}: {exc})")
    return None


def _source_file(source: str) -> str:
    """`Makefile:test` → Makefile, `package.json#scripts.test` → package.json."""
    if "#" in source:
        return source.split("#", 1)[0]
    if ":" in source:
        return source.rsplit(":", 1)[0]
    return source


def _ordered_context(facts: ProjectFacts, files: list[str]) -> list[str]:
    """The files that declare the checks first (in check order), then the other context (CI, docs, wrappers)."""
    ordered: list[str] = []
    for command in facts.verify_commands:
        for source in (command.source, *command.also):
            rel = _source_file(source)
            if rel and rel not in ordered:
                ordered.append(rel)
    ordered.extend(f for f in files if f not in ordered)
    return ordered
