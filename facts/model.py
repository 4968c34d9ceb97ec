"""Data shapes shared by detection, classification, the ledger and the server.

JSON field names here are stable interfaces (design §8): editor clients, agents and scripts read them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

# The kinds of check, in the order every door lists them: the one spelling. Python imports `Kind`/`KINDS` from
# here; scripts/gen-settings reads this line for the copies it writes (Neovim's `freshpass.kinds`) and checks
# package.json's `*.kinds` enums against it; tests/unit/test_status_schema.py checks docs/status.schema.json.
Kind = Literal["test", "lint", "typecheck", "build", "check"]
KINDS: tuple[Kind, ...] = get_args(Kind)
FLAKY_POLICIES = ("fail", "pass-counts")  # [tool.freshpass] flaky

# Where a check was learned, strongest first (design §2): the project said so to freshpass; a local entry point a
# contributor runs (wrapper script, Make/just/Task target, package script, tox env, nox session); a command the
# contributor docs give that no entry point declares; a tool's configuration run through the project's environment
# manager; an ecosystem convention; a CI step (a fallback only, for a kind nothing local declares).
Origin = Literal["explicit", "local", "docs", "tool", "convention", "ci"]
ORIGINS: tuple[Origin, ...] = ("explicit", "local", "docs", "tool", "convention", "ci")

# Why a check was chosen, as people read it (strongest first): the project configured it for freshpass; the
# contributor documents spell it out; the project's own entry point declares it; the ecosystem's convention; a CI
# step. Every door shows it; a choice that rests on `convention` or `ci`, or is ambiguous, is one to confirm.
Basis = Literal["configured", "documented", "declared", "convention", "ci"]
BASES: tuple[Basis, ...] = ("configured", "documented", "declared", "convention", "ci")
_BASIS_OF_ORIGIN: dict[str, Basis] = {
    "explicit": "configured",
    "docs": "documented",
    "local": "declared",
    "tool": "declared",
    "convention": "convention",
    "ci": "ci",
}


@dataclass(frozen=True)
class VerifyCommand:
    """A check the repository declares: its primary spelling, and its equivalents.

    `equivalents` are other spellings and wrappers of the same full check (`npm run test` for `npm test`, the
    `go test ./...` that `make test` runs, the tox env that runs the same pytest); a run of any of them is that
    check, approved and full. They are spelled from `cwd`.
    """

    command: str
    kind: Kind
    cwd: str = "."  # relative to the root, POSIX separators
    source: str = ""  # where it was declared, e.g. "package.json#scripts.test", "Makefile:test"
    equivalents: tuple[str, ...] = ()
    origin: Origin = "local"
    also: tuple[str, ...] = ()  # other places that declare or run the same check (a CI job, CONTRIBUTING.md)
    # What the check runs, for reading a run of it: the tools whose run is a narrower run of this check (`pytest`
    # for a `make test` running pytest; node's test runner and tstyche for an `npm test` running both), and the
    # command its extra arguments reach (`npm test -- -u` gives `-u` to the script's `jest`).
    suites: tuple[str, ...] = ()
    args_to: str = ""
    # variables a run of it may set to select part of what it runs (`F` for a recipe whose test filter is `$(F)`)
    selectors: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.command, *self.equivalents)

    @property
    def basis(self) -> Basis:
        """Why this check was chosen (`configured`, `documented`, `declared`, `convention`, `ci`)."""
        return _BASIS_OF_ORIGIN.get(self.origin, "declared")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "command": self.command,
            "kind": self.kind,
            "cwd": self.cwd,
            "source": self.source,
            "origin": self.origin,
            "basis": self.basis,
        }
        if self.equivalents:
            data["equivalents"] = list(self.equivalents)
        if self.also:
            data["also"] = list(self.also)
        if self.suites:
            data["suites"] = list(self.suites)
        if self.args_to:
            data["args_to"] = self.args_to
        if self.selectors:
            data["selectors"] = list(self.selectors)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifyCommand:
        origin = data.get("origin", "local")
        return cls(
            command=str(data["command"]),
            kind=data.get("kind", "test"),
            cwd=str(data.get("cwd", ".")),
            source=str(data.get("source", "")),
            equivalents=tuple(data.get("equivalents", data.get("alternatives", ()))),
            origin=origin if origin in ORIGINS else "local",
            also=tuple(data.get("also", ())),
            suites=tuple(str(s) for s in data.get("suites", ())),
            args_to=str(data.get("args_to", "")),
            selectors=tuple(str(s) for s in data.get("selectors", ())),
        )


@dataclass(frozen=True)
class TestCounts:
    """The test counts a run's output states (`freshpass.facts.tools.summary` reads them; receipts keep them)."""

    __test__ = False  # a result, not a pytest test class

    passed: int
    failed: int
    skipped: int


# Why something a repository declares is not proposed as a check.
SetAsideReason = Literal[
    "writes", "publishes", "watches", "installs", "fetches", "ci-only", "narrower", "package", "routed", "not-a-check"
]


@dataclass(frozen=True)
class SetAside:
    """Something recognised but not proposed, and why (`freshpass facts --all`).

    `narrower` and `package` entries are still the project's own checks run on a part: a run of one is approved
    and targeted. `writes` and `publishes` entries are never evidence, whatever they are called. `routed`: a tool
    the project runs only through its own runner, which gives it what a bare run would miss.
    """

    command: str
    kind: Kind | None
    cwd: str
    source: str
    why: SetAsideReason
    reason: str  # for people: "writes: `ruff format .`", "CI only: needs richgo, which only CI installs"

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "kind": self.kind,
            "cwd": self.cwd,
            "source": self.source,
            "why": self.why,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Problem:
    """Something in the repository that could not be read; detection goes on without it."""

    file: str  # relative to the root
    message: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "message": self.message}


# Who a shared receipt says ran it (design §4.6).
SHARED_ACTORS = ("ci", "person", "agent")


@dataclass(frozen=True)
class SharedTrust:
    """Which shared receipts count as evidence (design §4.6): `[tool.freshpass.shared]` of the project, or the
    `shared.*` settings. The default counts none: shared receipts are shown, not counted."""

    actors: tuple[str, ...] = ()  # `trust`: the actors whose shared receipts count
    signers: tuple[str, ...] = ()  # when set, a good signature by one of these principals is also required
    allowed_signers: str = ""  # git's ssh allowed-signers file; a relative path is relative to the root

    def __post_init__(self) -> None:
        unknown = [actor for actor in self.actors if actor not in SHARED_ACTORS]
        if unknown:
            raise ValueError(f"{', '.join(map(repr, unknown))} is not one of {', '.join(SHARED_ACTORS)}")

    @property
    def checks_signatures(self) -> bool:
        return bool(self.actors) and bool(self.signers)


@dataclass
class ProjectFacts:
    """Everything detection learned about one root (design §8 `freshpass facts --json`).

    `verify_commands` are the checks in rank order: the first of each kind is the one a click runs.
    """

    root: str  # absolute path
    manifests: list[str] = field(default_factory=list)  # relative paths of the files read
    package_managers: list[str] = field(default_factory=list)  # e.g. ["pnpm"], ["uv"], ["cargo"]
    verify_commands: list[VerifyCommand] = field(default_factory=list)
    context_files: list[str] = field(default_factory=list)  # files an agent/human should read (CI, wrappers)
    recipe: dict[str, Any] | None = None  # design §5 recipe as data (phases, ready_url, …) or None
    problems: list[Problem] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)  # extra ignore globs from [tool.freshpass] ignore = [...]
    ignore_prose: bool = True  # [tool.freshpass] ignore_prose: prose files never make evidence stale
    set_aside: list[SetAside] = field(default_factory=list)
    shared_trust: SharedTrust = field(default_factory=SharedTrust)  # [tool.freshpass.shared]
    # [tool.freshpass] flaky: "fail" (default: a pass on content that also failed the same full check is not
    # verified) or "pass-counts" (it is, and the status still says flaky).
    flaky: str = "fail"
    # [tool.freshpass] gate: the kinds `freshpass gate` requires a fresh full pass of (None: the user's setting).
    gate: tuple[str, ...] | None = None
    # Kinds whose primary is a close call between candidates of similar strength (two documented commands, two
    # declared entry points, no document to break the tie): the editors and `freshpass facts --choose` ask once.
    ambiguous: tuple[str, ...] = ()
    # What detection looked at, present or absent (relative paths), and the directories whose entries it read: a
    # change to any of them can change the facts (design §6); not part of the JSON.
    inputs: frozenset[str] = frozenset()
    input_dirs: frozenset[str] = frozenset()
    # Directories a bounded glob listed (`*/go.mod`): an entry appearing there can add a package; the server's
    # watch catches a new manifest by its name instead (not part of the JSON).
    globbed_dirs: frozenset[str] = frozenset()
    # What reading `recipe` reported (also in `problems`), for a door that runs the recipe (`freshpass verify`):
    # detection decides the recipe once, and the doors take it from here; not part of the JSON.
    recipe_problems: list[Problem] = field(default_factory=list)

    def reads(self, relative_path: str) -> bool:
        """Could a change to `relative_path` (root-relative, `/`-separated) change these facts?"""
        if relative_path in self.inputs or relative_path in self.manifests or relative_path in self.context_files:
            return True
        parent = relative_path.rpartition("/")[0]
        return parent in self.input_dirs

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "manifests": list(self.manifests),
            "package_managers": list(self.package_managers),
            "verify_commands": [c.to_json() for c in self.verify_commands],
            "set_aside": [s.to_json() for s in self.set_aside],
            "context_files": list(self.context_files),
            "recipe": self.recipe,
            "problems": [p.to_json() for p in self.problems],
            "ambiguous": list(self.ambiguous),
        }

    def to_record(self) -> dict[str, Any]:
        """Everything in these facts, the fields the JSON leaves out included, as JSON data: `from_record` gives
        them back equal (the facts cache keeps them so)."""
        return {
            **self.to_json(),
            "verify_commands": [dataclasses.asdict(c) for c in self.verify_commands],
            "set_aside": [dataclasses.asdict(s) for s in self.set_aside],
            "ignore": list(self.ignore),
            "ignore_prose": self.ignore_prose,
            "shared_trust": dataclasses.asdict(self.shared_trust),
            "flaky": self.flaky,
            "gate": list(self.gate) if self.gate is not None else None,
            "inputs": sorted(self.inputs),
            "input_dirs": sorted(self.input_dirs),
            "globbed_dirs": sorted(self.globbed_dirs),
            "recipe_problems": [p.to_json() for p in self.recipe_problems],
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> ProjectFacts:
        """The facts `to_record` gave `data` for; KeyError, TypeError or ValueError when it is no such record."""

        def tuples(fields: dict[str, Any]) -> dict[str, Any]:
            return {key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()}

        gate = data["gate"]
        return cls(
            root=str(data["root"]),
            manifests=list(data["manifests"]),
            package_managers=list(data["package_managers"]),
            verify_commands=[VerifyCommand(**tuples(c)) for c in data["verify_commands"]],
            context_files=list(data["context_files"]),
            recipe=data["recipe"],
            problems=[Problem(**p) for p in data["problems"]],
            ignore=list(data["ignore"]),
            ignore_prose=bool(data["ignore_prose"]),
            set_aside=[SetAside(**s) for s in data["set_aside"]],
            shared_trust=SharedTrust(**tuples(data["shared_trust"])),
            flaky=str(data["flaky"]),
            gate=tuple(gate) if gate is not None else None,
            ambiguous=tuple(data["ambiguous"]),
            inputs=frozenset(data["inputs"]),
            input_dirs=frozenset(data["input_dirs"]),
            globbed_dirs=frozenset(data["globbed_dirs"]),
            recipe_problems=[Problem(**p) for p in data["recipe_problems"]],
        )

    def needs_choice(self, kind: str) -> bool:
        """Should a person confirm the check of `kind` once: ambiguous, or resting only on convention or CI?"""
        primary = self.primary(kind)
        if primary is None:
            return False
        return kind in self.ambiguous or primary.basis in ("convention", "ci")

    def commands_of_kind(self, kind: str) -> list[VerifyCommand]:
        return [c for c in self.verify_commands if c.kind == kind]

    def primary(self, kind: str, cwd: str | None = None) -> VerifyCommand | None:
        """The check a click runs for `kind` (at `cwd`, when given): the first of that kind, or None."""
        return next((c for c in self.verify_commands if c.kind == kind and (cwd is None or c.cwd == cwd)), None)
