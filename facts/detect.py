"""What a repository declares for checking itself (design §2).

`detect_facts(root)` asks each detector (one per signal level, `freshpass.facts.detectors`) for candidate
commands, then orders them by precedence and merges duplicates: the highest-precedence spelling wins and the others
become its `alternatives`. Pure reading: known file names and directories a manifest names, never a walk of the
tree, never a project command.
"""

from __future__ import annotations

import functools
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from freshpass.facts.detectors import ci, ecosystems, explicit, node, scripts, tasks, tools
from freshpass.facts.detectors.base import Candidate, Collector
from freshpass.facts.detectors.python import PythonDetector
from freshpass.facts.detectors.shell import script_name, tool_tokens
from freshpass.facts.model import Problem, ProjectFacts, VerifyCommand
from freshpass.facts.recipes import recipe_for


@dataclass
class _Merged:
    first: Candidate
    alternatives: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def detect_facts(root: Path) -> ProjectFacts:
    """The facts of `root`: manifests, package managers, verify commands in precedence order, problems."""
    root = Path(os.path.abspath(root))
    facts = ProjectFacts(root=str(root))
    if not root.is_dir():
        facts.problems.append(Problem(".", f"{root} is not a directory"))
        return facts
    collector = Collector(root)
    python = PythonDetector(collector)
    explicit.detect(collector)
    ci.detect(collector)
    scripts.detect(collector)
    node.detect(collector)
    python.detect_runners()
    python.detect_tools()
    tools.detect(collector)
    tasks.detect(collector)
    ecosystems.detect(collector)

    merged = _merge(collector.candidates)
    facts.manifests = collector.manifests
    facts.package_managers = collector.package_managers
    facts.verify_commands = [
        VerifyCommand(
            command=entry.first.command,
            kind=entry.first.kind,
            cwd=entry.first.cwd,
            source=entry.first.source,
            alternatives=tuple(entry.alternatives),
        )
        for entry in merged
    ]
    facts.context_files = _context_files(collector, merged)
    facts.problems = collector.problems
    facts.ignore = collector.ignore
    recipe, recipe_problems = recipe_for(root, facts)
    facts.recipe = recipe
    facts.problems.extend(recipe_problems)
    return facts


@functools.lru_cache(maxsize=4096)
def equivalence_key(command: str, cwd: str) -> tuple[str, tuple[str, ...]]:
    """Commands with the same key run the same thing in the same place (`npm test` ≡ `npm run test`)."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        tokens = command.split()
    tokens = tool_tokens(tokens)
    if tokens and tokens[0] in ("npm", "pnpm", "yarn", "bun"):
        script = script_name(tokens[0], tokens[1:])
        if script is not None:
            tokens = [tokens[0], "run", script]
    if len(tokens) >= 2 and tokens[0] in ("bash", "sh") and not tokens[1].startswith("-"):
        tokens = tokens[1:]
    if tokens and tokens[0].startswith("./"):
        tokens = [tokens[0][2:], *tokens[1:]]
    return cwd, tuple(tokens)


def _merge(candidates: list[Candidate]) -> list[_Merged]:
    ordered = sorted(candidates, key=lambda c: c.level)  # stable: declaration order within a level
    merged: list[_Merged] = []
    by_key: dict[tuple[str, tuple[str, ...]], _Merged] = {}
    for candidate in ordered:
        keys = [equivalence_key(spelling, candidate.cwd) for spelling in (candidate.command, *candidate.alternatives)]
        entry = next((by_key[key] for key in keys if key in by_key), None)
        if entry is None:
            entry = _Merged(
                candidate, [a for a in candidate.alternatives if a != candidate.command], [candidate.source]
            )
            merged.append(entry)
        else:
            for spelling in (candidate.command, *candidate.alternatives):
                if spelling != entry.first.command and spelling not in entry.alternatives:
                    entry.alternatives.append(spelling)
            if candidate.source not in entry.sources:
                entry.sources.append(candidate.source)
        for key in keys:
            by_key.setdefault(key, entry)
    return merged


def _source_file(source: str) -> str:
    """`Makefile:test` → Makefile, `package.json#scripts.test` → package.json."""
    if "#" in source:
        return source.split("#", 1)[0]
    if ":" in source:
        return source.rsplit(":", 1)[0]
    return source


def _context_files(collector: Collector, merged: list[_Merged]) -> list[str]:
    files: list[str] = []
    for entry in merged:
        for source in entry.sources:
            rel = _source_file(source)
            if rel and rel not in files:
                files.append(rel)
    for rel in collector.context_files:
        if rel not in files:
            files.append(rel)
    return files
