"""Data shapes shared by detection, classification, the ledger and the server.

JSON field names here are stable interfaces (design §8): editor clients, agents and scripts read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["test", "lint", "typecheck", "build", "check"]
KINDS: tuple[Kind, ...] = ("test", "lint", "typecheck", "build", "check")


@dataclass(frozen=True)
class VerifyCommand:
    """A command the repository itself declares for checking itself."""

    command: str
    kind: Kind
    cwd: str = "."  # relative to the root, POSIX separators
    source: str = ""  # where it was declared, e.g. "package.json#scripts.test", "Makefile:test"
    alternatives: tuple[str, ...] = ()  # equivalent spellings ("npm run test" for "npm test")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "command": self.command,
            "kind": self.kind,
            "cwd": self.cwd,
            "source": self.source,
        }
        if self.alternatives:
            data["alternatives"] = list(self.alternatives)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifyCommand:
        return cls(
            command=str(data["command"]),
            kind=data.get("kind", "test"),
            cwd=str(data.get("cwd", ".")),
            source=str(data.get("source", "")),
            alternatives=tuple(data.get("alternatives", ())),
        )


@dataclass(frozen=True)
class Problem:
    """Something in the repository that could not be read; detection goes on without it."""

    file: str  # relative to the root
    message: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "message": self.message}


@dataclass
class ProjectFacts:
    """Everything detection learned about one root (design §8 `freshpass facts --json`)."""

    root: str  # absolute path
    manifests: list[str] = field(default_factory=list)  # relative paths of the manifest files read
    package_managers: list[str] = field(default_factory=list)  # e.g. ["pnpm"], ["uv"], ["cargo"]
    verify_commands: list[VerifyCommand] = field(default_factory=list)
    context_files: list[str] = field(default_factory=list)  # files an agent/human should read (CI, wrappers)
    recipe: dict[str, Any] | None = None  # design §5 recipe as data (phases, ready_url, …) or None
    problems: list[Problem] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)  # extra ignore globs from [tool.freshpass] ignore = [...]

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "manifests": list(self.manifests),
            "package_managers": list(self.package_managers),
            "verify_commands": [c.to_json() for c in self.verify_commands],
            "context_files": list(self.context_files),
            "recipe": self.recipe,
            "problems": [p.to_json() for p in self.problems],
        }

    def commands_of_kind(self, kind: str) -> list[VerifyCommand]:
        return [c for c in self.verify_commands if c.kind == kind]
