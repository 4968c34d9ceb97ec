"""Benchmark: facts detection and classification on real public repositories.

The corpus (`bench/facts_real/repos.toml`) records, for each repository at a pinned commit, what its maintainers
document as the full local check of each kind, the commands in it that write/publish/install, and contributor
command lines with how they should be classified. Expectations come from the repositories' own documents, never from
freshpass output (see bench/facts_real/README.md).

    .venv/bin/python bench/bench_facts_real.py [--cache DIR] [--repo owner/name ...] [--json] [--write]

Repositories are read from the cache (default `$FRESHPASS_BENCH_CACHE` or `~/.cache/freshpass-bench/repos`), one
directory per repository named `OWNER__NAME`; a missing one is reported with the command that fetches it and is not
scored. The benchmark only reads the repositories (`detect_facts` and `classify` never run project commands).

Exit status is 0 whatever the scores (it is a benchmark, not a test); 2 when the corpus file is malformed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import posixpath
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from freshpass.facts.classify import classify
from freshpass.facts.detect import detect_facts
from freshpass.facts.model import KINDS

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / "facts_real" / "repos.toml"
OUTPUT = REPO / "docs" / "bench-facts-real.md"
DEFAULT_CACHE = Path("~/.cache/freshpass-bench/repos")

OTHER_KINDS = KINDS[1:]
ECOSYSTEMS = (
    "python", "js", "rust", "go", "jvm", "ruby", "php", "lua",
    "dotnet", "swift", "cabal", "stack", "zig", "dart", "flutter", "sbt", "cmake", "meson", "autotools", "make",
    "perl", "bazel", "leiningen", "dune", "rebar3", "gleam", "julia", "r", "elixir",
)  # fmt: skip
# The tuning split is what detection may be fixed against; the validation split is sealed: scored only with
# `--split validation`, once, at the end of a piece of work (README.md next to the corpus).
SPLITS = ("tuning", "validation")
SCOPES = ("full", "targeted")
TARGETS = {"primary_test": 0.95, "other_kinds": 0.90, "lines": 0.95, "destructive": 0}

# Tokens that turn a writer into a check (`ruff format --check`, `cargo publish --dry-run`, `pint --test`).
CHECK_FLAGS = frozenset(
    {
        "--check",
        "--dry-run",
        "--diff",
        "--list-different",
        "--no-fix",
        "--test",
        "--set-exit-if-changed",
        "--check-formatted",
        "--verify-no-changes",
        "--output=none",
    }
)
# Options whose value names a build configuration (`dotnet build -c Release`, `cmake --build build --config
# Release`): the value is not a verb, so "Release" there is no release.
CONFIG_OPTIONS = frozenset({"-c", "--configuration", "--config", "-C"})
# `<tool> install` installs; `python -m pip install`, `uv pip install` and `./mvnw install` included.
PACKAGE_MANAGERS = frozenset(
    {
        "npm", "pnpm", "yarn", "bun", "pip", "pip3", "pipx", "uv", "poetry", "pdm", "cargo", "go", "gem", "bundle",
        "bundler", "composer", "brew", "apt", "apt-get", "dnf", "luarocks", "deno", "mvn", "mvnw", "pre-commit",
        "prek",
    }
)  # fmt: skip
INSTALL_VERBS = frozenset({"install", "i", "ci"})
# Words of a command, task or script name that publish or release (`npm publish`, `rake release:all`,
# `./gradlew publishToSonatype`, `nox -s prepare-release`, `scripts/deploy.sh`); flags (`cargo build --release`) and
# directory names are not looked at.
WRITER_WORDS = frozenset({"publish", "release", "deploy", "upload", "vendoring"})
INTERPRETERS = frozenset({"python", "python3", "node", "bash", "sh", "ruby", "php", "perl", "tsx", "ts-node", "lua"})
WRITER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("--fix", re.compile(r"(?:^|\s)--fix\b")),
    ("a :fix script", re.compile(r"(?:^|\s)\S*:fix\b")),
    ("--write", re.compile(r"(?:^|\s)--write\b")),
    ("--accept", re.compile(r"(?:^|\s)--accept\b")),
    ("gofmt -w", re.compile(r"\bgofmt\b.*\s-w\b")),
    ("npm version", re.compile(r"\bnpm\s+version\b")),
)
GIT_WRITER = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?(commit|tag|push)\b")
# Wrappers that run the rest of the line unchanged: a listed `nox -s vendoring` is also `python -m nox -s vendoring`.
WRAPPERS: tuple[tuple[str, ...], ...] = (
    ("python", "-m"), ("python3", "-m"), ("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"),
    ("bundle", "exec"), ("pnpm", "exec"), ("npx",), ("bunx",), ("pnpx",), ("sh",), ("bash",), ("env",),
)  # fmt: skip
WRAPPER_OPTIONS_WITH_VALUE = frozenset(
    {"--group", "--extra", "--with", "--package", "--python", "--directory", "--project"}
)
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


class CorpusError(Exception):
    """The corpus file cannot be used as it is."""


# --------------------------------------------------------------------------------------------------------------
# Corpus


@dataclass(frozen=True)
class Spelling:
    command: str
    cwd: str = "."


@dataclass(frozen=True)
class Line:
    command: str
    cwd: str
    approved: bool
    scope: str | None
    why: str


@dataclass
class RepoSpec:
    name: str
    commit: str
    ecosystem: str
    docs: list[str]
    expect: dict[str, list[Spelling]]
    destructive: list[str]
    lines: list[Line]
    note: str = ""
    split: str = "tuning"

    @property
    def dirname(self) -> str:
        return self.name.replace("/", "__")


def _norm_cwd(cwd: str) -> str:
    cwd = cwd.strip().replace("\\", "/") or "."
    return posixpath.normpath(cwd)


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _spelling(value: Any, where: str) -> Spelling:
    if isinstance(value, str):
        return Spelling(_str(value, where))
    if isinstance(value, dict):
        unknown = set(value) - {"command", "cwd"}
        if unknown:
            raise CorpusError(f"{where}: unknown keys {sorted(unknown)}")
        return Spelling(_str(value.get("command"), f"{where}.command"), _norm_cwd(str(value.get("cwd", "."))))
    raise CorpusError(f"{where}: expected a command string or {{ command, cwd }}, got {value!r}")


def _repo_spec(raw: Any, index: int) -> RepoSpec:
    where = f"repo[{index}]"
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: expected a table")
    name = _str(raw.get("name"), f"{where}.name")
    where = f"repo {name}"
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", name):
        raise CorpusError(f"{where}: name must be owner/name")
    unknown = set(raw) - {"name", "commit", "ecosystem", "split", "docs", "note", "expect", "lines", "destructive"}
    if unknown:
        raise CorpusError(f"{where}: unknown keys {sorted(unknown)}")
    commit = _str(raw.get("commit"), f"{where}.commit")
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise CorpusError(f"{where}: commit must be 40 lowercase hex digits")
    ecosystem = _str(raw.get("ecosystem"), f"{where}.ecosystem")
    if ecosystem not in ECOSYSTEMS:
        raise CorpusError(f"{where}: ecosystem must be one of {', '.join(ECOSYSTEMS)}")
    split = raw.get("split")
    if split not in SPLITS:
        raise CorpusError(f"{where}.split: expected one of {', '.join(SPLITS)}, got {split!r}")
    docs = raw.get("docs")
    if not isinstance(docs, list) or not docs:
        raise CorpusError(f"{where}.docs: expected a non-empty list of paths or URLs")
    docs = [_str(d, f"{where}.docs") for d in docs]
    expect_raw = raw.get("expect", {})
    if not isinstance(expect_raw, dict):
        raise CorpusError(f"{where}.expect: expected a table")
    unknown = set(expect_raw) - {*KINDS, "destructive"}
    if unknown:
        raise CorpusError(f"{where}.expect: unknown keys {sorted(unknown)} (kinds are {', '.join(KINDS)})")
    expect: dict[str, list[Spelling]] = {}
    for kind in KINDS:
        if kind not in expect_raw:
            continue
        values = expect_raw[kind]
        if not isinstance(values, list) or not values:
            raise CorpusError(f"{where}.expect.{kind}: expected a non-empty list")
        expect[kind] = [_spelling(v, f"{where}.expect.{kind}") for v in values]
    # `destructive` sits in [repo.expect] in the documented shape; a repo-level key is accepted as well.
    destructive_raw = [*expect_raw.get("destructive", []), *raw.get("destructive", [])]
    destructive = [_str(d, f"{where}.destructive") for d in destructive_raw]
    lines_raw = raw.get("lines", [])
    if not isinstance(lines_raw, list):
        raise CorpusError(f"{where}.lines: expected an array of tables")
    lines: list[Line] = []
    for number, line in enumerate(lines_raw, 1):
        lwhere = f"{where}.lines[{number}]"
        if not isinstance(line, dict):
            raise CorpusError(f"{lwhere}: expected a table")
        unknown = set(line) - {"command", "cwd", "approved", "scope", "why"}
        if unknown:
            raise CorpusError(f"{lwhere}: unknown keys {sorted(unknown)}")
        approved = line.get("approved")
        if not isinstance(approved, bool):
            raise CorpusError(f"{lwhere}.approved: expected true or false")
        scope = line.get("scope")
        if scope is not None and scope not in SCOPES:
            raise CorpusError(f"{lwhere}.scope: expected one of {', '.join(SCOPES)}")
        if approved and scope is None:
            raise CorpusError(f"{lwhere}: an approved line needs a scope")
        lines.append(
            Line(
                command=_str(line.get("command"), f"{lwhere}.command"),
                cwd=_norm_cwd(str(line.get("cwd", "."))),
                approved=approved,
                scope=scope,
                why=str(line.get("why", "")),
            )
        )
    return RepoSpec(name, commit, ecosystem, docs, expect, destructive, lines, str(raw.get("note", "")), split)


def load_corpus(path: Path) -> list[RepoSpec]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError as exc:
        raise CorpusError(f"{path}: not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise CorpusError(f"{path}: not valid TOML: {exc}") from exc
    raw = data.get("repo")
    if not isinstance(raw, list) or not raw:
        raise CorpusError(f"{path}: expected [[repo]] tables")
    specs = [_repo_spec(entry, index) for index, entry in enumerate(raw)]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise CorpusError(f"{path}: {spec.name} is listed twice")
        seen.add(spec.name)
    return specs


# --------------------------------------------------------------------------------------------------------------
# Scoring


def norm(command: str) -> str:
    return " ".join(command.split())


def equivalents_of(command: Any) -> tuple[str, ...]:
    return tuple(getattr(command, "equivalents", None) or getattr(command, "alternatives", ()) or ())


def _unwrapped(tokens: list[str], *, env: bool = True) -> list[str]:
    """The command a wrapper runs: `uv run --locked pytest -q` → `pytest -q`, `FOO=1 make test` → `make test`."""
    while tokens:
        if env and ENV_ASSIGNMENT.match(tokens[0]):
            tokens = tokens[1:]
            continue
        wrapper = next((w for w in WRAPPERS if tuple(tokens[: len(w)]) == w), None)
        if wrapper is None:
            return tokens
        tokens = tokens[len(wrapper) :]
        while tokens and tokens[0].startswith("-"):  # the wrapper's own options (`uv run --locked --group dev`)
            option = tokens.pop(0)
            if option in WRAPPER_OPTIONS_WITH_VALUE and tokens:
                tokens.pop(0)
    return tokens


def _words(token: str) -> list[str]:
    """The leading word of each part of a name: `prepare-release` → prepare, release; `publishToSonatype` → publish;
    `assembleRelease` (an Android build variant) → assemble."""
    if "/" in token:
        token = token.rsplit("/", 1)[1]
    words = []
    for part in re.split(r"[:_.\-]+", token):
        camel = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", part)
        if camel:
            words.append(camel[0].lower())
    return words


def _listed(text: str, entry: str, checking: bool) -> bool:
    if text == entry:
        return True
    if checking or not text.startswith(entry):
        return False
    return entry[-1] in ":=/-" or text[len(entry)] == " "


def writer_reason(command: str, destructive: list[str]) -> str | None:
    """Why proposing `command` would write, publish or install, or None."""
    tokens = command.split()
    forms = [" ".join(tokens)]
    inner = _unwrapped(list(tokens))
    if inner and inner != tokens:
        forms.append(" ".join(inner))
    checking = any(token in CHECK_FLAGS for token in tokens)
    for entry in destructive:
        entry_norm = norm(entry)
        # an entry keeps its environment: `RUFF_UPDATE_SCHEMA=1 cargo test` writes, `cargo test` does not
        entry_inner = " ".join(_unwrapped(entry_norm.split(), env=False)) or entry_norm
        if any(_listed(form, entry_norm, checking) or _listed(form, entry_inner, checking) for form in forms):
            return f"listed destructive: `{entry}`"
    text = forms[0]
    match = GIT_WRITER.search(text)
    if match:
        return f"writer pattern: git {match.group(1)}"
    for index, token in enumerate(tokens[:-1]):
        if os.path.basename(token) in PACKAGE_MANAGERS and tokens[index + 1] in INSTALL_VERBS:
            return f"writer pattern: {os.path.basename(token)} {tokens[index + 1]}"
    if checking:
        return None
    program = inner or tokens
    for index, token in enumerate(program):
        if token.startswith("-") or (index and program[index - 1] in CONFIG_OPTIONS):
            continue
        if index > 1 and program[index - 1] == "as" and os.path.basename(program[0]) == "rebar3":
            continue  # `rebar3 as release escriptize`: a profile's name, like `-c Release`
        # a path is looked at only as the program run (`./deploy.sh`, `python scripts/release.py`), not as an
        # argument (`pytest tests/test_release.py`)
        if ("/" in token or "." in token) and not (
            index == 0 or (index == 1 and os.path.basename(program[0]) in INTERPRETERS)
        ):
            continue
        word = next((w for w in _words(token) if w in WRITER_WORDS), None)
        if word:
            return f"writer pattern: {word}"
    for label, pattern in WRITER_PATTERNS:
        if pattern.search(text):
            return f"writer pattern: {label}"
    if any(Path(token).stem == "format" or token.endswith(":format") for token in tokens):
        return "writer pattern: format without --check"
    return None


@dataclass
class KindResult:
    kind: str
    right: bool
    expected: list[str]
    got: str | None  # the primary proposal of that kind, described
    how: str = ""  # "spelling" or "classify" when right


@dataclass
class RepoResult:
    spec: RepoSpec
    status: str  # "ok", "missing", "error"
    path: Path
    detect_ms: float | None = None
    error: str = ""
    checked_out: str | None = None  # the commit a git checkout in the cache is at, when it can be read
    primary: KindResult | None = None
    kinds: list[KindResult] = field(default_factory=list)
    destructive: list[dict[str, str]] = field(default_factory=list)
    lines_right: int = 0
    lines_wrong: list[dict[str, Any]] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    set_aside: list[dict[str, str]] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)

    @property
    def lines_total(self) -> int:
        return len(self.spec.lines)


def _describe(command: Any) -> str:
    cwd = getattr(command, "cwd", ".") or "."
    where = "" if cwd == "." else f" (cwd {cwd})"
    return f"{command.command}{where} [{getattr(command, 'source', '')}]"


def _classify(line: str, cwd: str, root: Path, facts: Any) -> Any:
    return classify(line, cwd=root / cwd, root=root, facts=facts)


def _score_kind(kind: str, spellings: list[Spelling], facts: Any, root: Path) -> KindResult:
    expected = [s.command if s.cwd == "." else f"{s.command} (cwd {s.cwd})" for s in spellings]
    primary = next((c for c in facts.verify_commands if c.kind == kind), None)
    if primary is None:
        return KindResult(kind, False, expected, None)
    primary_cwd = _norm_cwd(primary.cwd or ".")
    names = {norm(primary.command), *(norm(e) for e in equivalents_of(primary))}
    for spelling in spellings:
        if spelling.cwd != primary_cwd:
            continue
        if norm(spelling.command) in names:
            return KindResult(kind, True, expected, _describe(primary), "spelling")
    for spelling in spellings:
        if spelling.cwd != primary_cwd:
            continue
        answer = _classify(spelling.command, spelling.cwd, root, facts)
        headline = answer.headline
        if (
            answer.approved
            and answer.scope == "full"
            and answer.kind == kind
            and headline is not None
            and headline.source == primary.source
        ):
            return KindResult(kind, True, expected, _describe(primary), "classify")
    return KindResult(kind, False, expected, _describe(primary))


def _answer(answer: Any) -> dict[str, Any]:
    return {
        "approved": bool(answer.approved),
        "scope": answer.scope,
        "kind": answer.kind,
        "canonical_command": answer.canonical_command,
        "source": answer.headline.source if answer.headline is not None else None,
        "reason": answer.reason,
    }


def score_repo(spec: RepoSpec, cache: Path) -> RepoResult:
    root = (cache / spec.dirname).resolve()
    result = RepoResult(spec, "ok", root)
    if not root.is_dir():
        result.status = "missing"
        return result
    result.checked_out = checked_out_commit(root)
    try:
        started = time.perf_counter()
        facts = detect_facts(root)
        result.detect_ms = (time.perf_counter() - started) * 1000
    except Exception as exc:  # a crash is a result: every scored item of the repo counts as wrong
        result.status = "error"
        result.error = f"detect_facts raised {type(exc).__name__}: {exc}"
        _score_as_error(result)
        return result
    try:
        _score(result, facts, root)
    except Exception as exc:
        result.status = "error"
        result.error = f"classify raised {type(exc).__name__}: {exc}"
        _score_as_error(result)
    return result


def _score_as_error(result: RepoResult) -> None:
    spec = result.spec
    if "test" in spec.expect:
        result.primary = KindResult("test", False, [s.command for s in spec.expect["test"]], None)
    expected = {kind: [s.command for s in spellings] for kind, spellings in spec.expect.items()}
    result.kinds = [KindResult(kind, False, expected[kind], None) for kind in OTHER_KINDS if kind in expected]
    result.lines_right = 0
    result.lines_wrong = [{"command": line.command, "cwd": line.cwd, "error": result.error} for line in spec.lines]


def _score(result: RepoResult, facts: Any, root: Path) -> None:
    spec = result.spec
    result.problems = [{"file": p.file, "message": p.message} for p in getattr(facts, "problems", [])]
    result.set_aside = [
        {"command": s.command, "kind": s.kind, "cwd": s.cwd, "reason": getattr(s, "reason", "")}
        for s in getattr(facts, "set_aside", []) or []
    ]
    for command in facts.verify_commands:
        result.proposals.append(
            {
                "command": command.command,
                "kind": command.kind,
                "cwd": command.cwd,
                "source": command.source,
                "equivalents": list(equivalents_of(command)),
            }
        )
    if "test" in spec.expect:
        result.primary = _score_kind("test", spec.expect["test"], facts, root)
    result.kinds = [_score_kind(kind, spec.expect[kind], facts, root) for kind in OTHER_KINDS if kind in spec.expect]

    for command in facts.verify_commands:
        for spelling in (command.command, *equivalents_of(command)):
            reason = writer_reason(spelling, spec.destructive)
            if reason:
                result.destructive.append(
                    {
                        "command": spelling,
                        "cwd": command.cwd,
                        "kind": command.kind,
                        "source": command.source,
                        "reason": reason,
                    }
                )
            answer = _classify(spelling, _norm_cwd(command.cwd or "."), root, facts)
            if not (answer.approved and answer.scope == "full" and answer.kind == command.kind):
                result.disagreements.append(
                    {"command": spelling, "cwd": command.cwd, "kind": command.kind, "classified": _answer(answer)}
                )

    for line in spec.lines:
        answer = _classify(line.command, line.cwd, root, facts)
        right = bool(answer.approved) == line.approved and (line.scope is None or answer.scope == line.scope)
        if right:
            result.lines_right += 1
        else:
            result.lines_wrong.append(
                {
                    "command": line.command,
                    "cwd": line.cwd,
                    "expected": {"approved": line.approved, "scope": line.scope},
                    "got": _answer(answer),
                    "why": line.why,
                }
            )


def checked_out_commit(root: Path) -> str | None:
    """The commit a git checkout is at, read from .git without running git; None for a plain directory."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = git.read_text().strip()
            if not text.startswith("gitdir:"):
                return None
            git = (root / text.split(":", 1)[1].strip()).resolve()
        head = (git / "HEAD").read_text().strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head
    ref = head.split(":", 1)[1].strip()
    try:
        return (git / ref).read_text().strip()
    except OSError:
        pass
    try:
        for line in (git / "packed-refs").read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    except OSError:
        return None
    return None


# --------------------------------------------------------------------------------------------------------------
# Totals and output


@dataclass
class Totals:
    repos: int = 0
    scored: int = 0
    missing: int = 0
    errors: int = 0
    primary_right: int = 0
    primary_scored: int = 0
    kinds_right: int = 0
    kinds_scored: int = 0
    lines_right: int = 0
    lines_scored: int = 0
    destructive: int = 0
    disagreements: int = 0
    proposals: int = 0
    detect_ms: list[float] = field(default_factory=list)

    def ratio(self, right: int, scored: int) -> float | None:
        return right / scored if scored else None

    def checks(self) -> dict[str, dict[str, Any]]:
        primary = self.ratio(self.primary_right, self.primary_scored)
        kinds = self.ratio(self.kinds_right, self.kinds_scored)
        lines = self.ratio(self.lines_right, self.lines_scored)
        return {
            "primary_test": {
                "right": self.primary_right,
                "scored": self.primary_scored,
                "ratio": primary,
                "target": TARGETS["primary_test"],
                "met": primary is not None and primary >= TARGETS["primary_test"],
            },
            "other_kinds": {
                "right": self.kinds_right,
                "scored": self.kinds_scored,
                "ratio": kinds,
                "target": TARGETS["other_kinds"],
                "met": kinds is not None and kinds >= TARGETS["other_kinds"],
            },
            "lines": {
                "right": self.lines_right,
                "scored": self.lines_scored,
                "ratio": lines,
                "target": TARGETS["lines"],
                "met": lines is not None and lines >= TARGETS["lines"],
            },
            "destructive": {
                "found": self.destructive,
                "target": TARGETS["destructive"],
                "met": self.scored > 0 and self.destructive <= TARGETS["destructive"],
            },
        }


def totals_of(results: list[RepoResult]) -> Totals:
    totals = Totals(repos=len(results))
    for result in results:
        if result.status == "missing":
            totals.missing += 1
            continue
        totals.scored += 1
        totals.errors += result.status == "error"
        if result.primary is not None:
            totals.primary_scored += 1
            totals.primary_right += result.primary.right
        totals.kinds_scored += len(result.kinds)
        totals.kinds_right += sum(k.right for k in result.kinds)
        totals.lines_scored += result.lines_total
        totals.lines_right += result.lines_right
        totals.destructive += len(result.destructive)
        totals.disagreements += len(result.disagreements)
        totals.proposals += sum(1 + len(p["equivalents"]) for p in result.proposals)
        if result.detect_ms is not None:
            totals.detect_ms.append(result.detect_ms)
    return totals


def code(text: str) -> str:
    """A markdown code span that survives backticks, table pipes and multi-line commands."""
    text = " ↵ ".join(line.strip() for line in text.strip().splitlines()).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _pct(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio * 100:.1f}%"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def render_tables(results: list[RepoResult], totals: Totals) -> str:
    out: list[str] = []
    out.append("| repository | eco | primary test | other kinds | lines | destructive | facts/classify | ms |")
    out.append("|---|---|---|---|---|---|---|---:|")
    for result in results:
        spec = result.spec
        if result.status == "missing":
            out.append(f"| {spec.name} | {spec.ecosystem} | missing | | | | | |")
            continue
        primary = "–" if result.primary is None else _mark(result.primary.right)
        kinds = " ".join(f"{k.kind} {_mark(k.right)}" for k in result.kinds) or "–"
        lines = f"{result.lines_right}/{result.lines_total}"
        destructive = str(len(result.destructive))
        agree = "–" if result.status == "error" else f"{len(result.disagreements)} off"
        ms = "–" if result.detect_ms is None else f"{result.detect_ms:.0f}"
        status = " (error)" if result.status == "error" else ""
        cells = [f"{spec.name}{status}", spec.ecosystem, primary, kinds, lines, destructive, agree, ms]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    checks = totals.checks()
    out.append("| total | result | target | met |")
    out.append("|---|---|---|---|")
    for label, key, target in (
        ("primary test right", "primary_test", "≥ 95%"),
        ("other kinds right", "other_kinds", "≥ 90%"),
        ("contributor lines right", "lines", "≥ 95%"),
    ):
        check = checks[key]
        shown = f"{check['right']}/{check['scored']} ({_pct(check['ratio'])})"
        out.append(f"| {label} | {shown} | {target} | {_mark(check['met'])} |")
    destructive = checks["destructive"]
    out.append(f"| destructive proposals | {destructive['found']} | 0 | {_mark(destructive['met'])} |")
    out.append(f"| facts/classify disagreements | {totals.disagreements} of {totals.proposals} proposals | 0 | |")
    if totals.detect_ms:
        ordered = sorted(totals.detect_ms)
        median = ordered[len(ordered) // 2]
        out.append(f"| detection time | median {median:.0f} ms, max {ordered[-1]:.0f} ms | | |")
    out.append(
        f"| repositories | {totals.scored} scored, {totals.missing} missing, {totals.errors} errors "
        f"(of {totals.repos}) | | |"
    )
    return "\n".join(out) + "\n"


def render_details(results: list[RepoResult], cache: Path) -> str:
    out: list[str] = []
    for result in results:
        spec = result.spec
        if result.status == "missing":
            continue
        items: list[str] = []
        if result.error:
            items.append(f"- **error**: {result.error}")
        if result.checked_out and result.checked_out != spec.commit:
            items.append(f"- cache is at {result.checked_out[:12]}, the corpus at {spec.commit[:12]}")
        for kind in [result.primary, *result.kinds]:
            if kind is None or kind.right:
                continue
            got = code(kind.got) if kind.got else "nothing of that kind"
            label = "primary test" if kind is result.primary else kind.kind
            items.append(f"- {label}: got {got}; expected one of {', '.join(code(e) for e in kind.expected[:4])}")
        for found in result.destructive:
            items.append(
                f"- destructive proposal ({found['kind']}): {code(found['command'])} "
                f"[{found['source']}] — {found['reason']}"
            )
        for wrong in result.lines_wrong:
            if "error" in wrong:
                continue
            got = wrong["got"]
            expected = wrong["expected"]
            want = "approved" if expected["approved"] else "not approved"
            if expected["scope"]:
                want += f" {expected['scope']}"
            said = (
                f"approved={got['approved']} scope={got['scope']} kind={got['kind']}"
                + (f" as {code(got['canonical_command'])}" if got["canonical_command"] else "")
                + (f" ({got['reason']})" if got["reason"] and not got["approved"] else "")
            )
            where = "" if wrong["cwd"] == "." else f" (cwd {wrong['cwd']})"
            items.append(f"- line {code(wrong['command'])}{where}: expected {want}; freshpass said {said}")
        for off in result.disagreements:
            got = off["classified"]
            items.append(
                f"- facts/classify: proposed {off['kind']} {code(off['command'])} classifies as "
                f"approved={got['approved']} scope={got['scope']} kind={got['kind']}"
            )
        if result.problems:
            shown = "; ".join(f"{p['file']}: {p['message']}" for p in result.problems[:3])
            items.append(f"- problems ({len(result.problems)}): {shown}")
        if items:
            out.append(f"### {spec.name}\n")
            out.extend(items)
            out.append("")
    missing = [r for r in results if r.status == "missing"]
    if missing:
        out.append("### Missing from the cache (not scored)\n")
        for result in missing:
            out.append(f"- {result.spec.name}: `{clone_hint(result.spec, cache)}`")
        out.append("")
    return "\n".join(out)


def clone_hint(spec: RepoSpec, cache: Path) -> str:
    target = cache / spec.dirname
    return f"git clone https://github.com/{spec.name} {target} && git -C {target} checkout {spec.commit}"


def summary_json(results: list[RepoResult], totals: Totals, cache: Path) -> dict[str, Any]:
    repos: list[dict[str, Any]] = []
    for result in results:
        entry: dict[str, Any] = {
            "name": result.spec.name,
            "ecosystem": result.spec.ecosystem,
            "commit": result.spec.commit,
            "status": result.status,
        }
        if result.status == "missing":
            entry["fetch"] = clone_hint(result.spec, cache)
            repos.append(entry)
            continue
        entry.update(
            {
                "error": result.error or None,
                "checked_out": result.checked_out,
                "detect_ms": None if result.detect_ms is None else round(result.detect_ms, 2),
                "primary_test": None if result.primary is None else vars(result.primary),
                "kinds": [vars(k) for k in result.kinds],
                "lines": {"right": result.lines_right, "total": result.lines_total, "wrong": result.lines_wrong},
                "destructive": result.destructive,
                "disagreements": result.disagreements,
                "proposals": result.proposals,
                "set_aside": result.set_aside,
                "problems": result.problems,
            }
        )
        repos.append(entry)
    return {
        "date": datetime.date.today().isoformat(),
        "corpus": str(CORPUS),
        "cache": str(cache),
        "freshpass_commit": checked_out_commit(REPO),
        "totals": totals.checks()
        | {
            "repos": totals.repos,
            "scored": totals.scored,
            "missing": totals.missing,
            "errors": totals.errors,
            "disagreements": totals.disagreements,
            "proposals": totals.proposals,
        },
        "repos": repos,
    }


def render_page(results: list[RepoResult], totals: Totals, cache: Path, split: str = "tuning") -> str:
    specs = [r.spec for r in results]
    counts = {eco: sum(s.ecosystem == eco for s in specs) for eco in ECOSYSTEMS}
    ecosystems = ", ".join(f"{eco} {count}" for eco, count in counts.items() if count)
    commit = checked_out_commit(REPO)
    header = f"""# Facts detection on real repositories

Generated by `bench/bench_facts_real.py` on {datetime.date.today().isoformat()}{
        f" against the freshpass checkout at {commit[:12]} (with any uncommitted changes)" if commit else ""
    }.

**Split**: {split}. **Corpus**: {len(specs)} public repositories at pinned commits ({ecosystems}), listed in
`bench/facts_real/repos.toml`. For each, the expectations were written from the maintainers' own documents
(CONTRIBUTING, README, docs pages and the Makefile/Rakefile/package.json they point to) before freshpass was run on it;
`bench/facts_real/README.md` explains how, and each repository's `note` records the ambiguous readings.

**Method** (per repository; `detect_facts` on a read-only copy, then `classify` against those facts):

- *primary test*: the first `test` entry of `verify_commands` is right when its cwd is the documented one and it is
  (or has as an equivalent) a documented spelling, or the documented spelling classifies as the same approved full
  test (same source).
- *other kinds*: the same rule for each documented lint / typecheck / build / check.
- *destructive*: every proposed command and equivalent that is in the repository's list of writers (release,
  publish, format, install, vendoring …) or matches a generic writer pattern. Target 0.
- *lines*: contributor command lines from the docs, classified at their cwd; right when `approved` and `scope`
  match.
- *facts/classify*: each proposed command and equivalent, classified at its own cwd, should come back approved,
  full and of the same kind.
- *ms*: wall time of `detect_facts` (warm file cache).

"""
    return header + render_tables(results, totals) + "\n## Details\n\n" + render_details(results, cache)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="directory with OWNER__NAME checkouts")
    parser.add_argument("--repo", action="extend", nargs="+", default=[], metavar="OWNER/NAME", help="only these")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=argparse.SUPPRESS)
    parser.add_argument(
        "--split",
        choices=(*SPLITS, "all"),
        default="tuning",
        help="which split to score (default: tuning; the validation split is sealed until the end of a piece of work)",
    )
    parser.add_argument("--json", action="store_true", help="print a machine-readable summary")
    parser.add_argument("--write", action="store_true", help=f"write the tables to {OUTPUT.relative_to(REPO)}")
    args = parser.parse_args(argv)

    try:
        specs = load_corpus(args.corpus)
    except CorpusError as exc:
        print(f"bench_facts_real: malformed corpus: {exc}", file=sys.stderr)
        return 2
    if args.repo:
        known = {s.name.lower(): s for s in specs}
        unknown = [name for name in args.repo if name.lower() not in known]
        if unknown:
            print(f"bench_facts_real: not in the corpus: {', '.join(unknown)}", file=sys.stderr)
            return 2
        specs = [known[name.lower()] for name in dict.fromkeys(args.repo)]
    if args.split != "all":
        specs = [spec for spec in specs if spec.split == args.split]
    cache = args.cache or Path(os.environ.get("FRESHPASS_BENCH_CACHE") or DEFAULT_CACHE)
    cache = cache.expanduser()

    results: list[RepoResult] = []
    for spec in specs:
        if not args.json:
            print(f"… {spec.name}", file=sys.stderr, flush=True)
        results.append(score_repo(spec, cache))
    totals = totals_of(results)

    if args.json:
        print(json.dumps(summary_json(results, totals, cache), indent=2, default=str))
    else:
        print(render_tables(results, totals))
        print(render_details(results, cache))
    if args.write:
        output = OUTPUT if args.split == "tuning" else OUTPUT.with_name(f"bench-facts-real-{args.split}.md")
        output.write_text(render_page(results, totals, cache, args.split))
        if not args.json:
            print(f"wrote {output.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
