"""Classify a command line: is it evidence, of what, how wide, and did it pass (design §3).

`classify()` is pure: it reads the line, the facts and (for scope) whether paths exist; it never runs anything.
The steps follow docs/design.md §3: split the line (`freshpass.facts.shell`), track `cd` and `set -o pipefail`, decide
which exit status belongs to which command (attribution), normalise each simple command and match it against the
facts' verify commands or the recognised runners (`freshpass.facts.tools`), then derive kind, scope and status.

`matches` lists every attributable match; when the line is not attributable it is empty, and the headline fields
still describe the first recognised command (so a person sees why `pytest; echo done` is not evidence).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from freshpass.facts.model import Kind, ProjectFacts, SetAside, VerifyCommand
from freshpass.facts.shell import (
    AndOr,
    ParsedLine,
    Pipeline,
    ShellSyntaxError,
    SimpleCommand,
    Subshell,
    is_assignment,
    join_words,
    parse_line,
    simple_commands,
)
from freshpass.facts.tools import (
    Identified,
    Invocation,
    NotEvidence,
    Rejected,
    exit_means_no_tests,
    identify,
    narrowing_of,
    normalise,
    positional_indexes,
    ran_no_tests,
    suite_of,
)
from freshpass.facts.tools.base import REWRITES_EXPECTATIONS

__all__ = ["Classification", "Match", "classify", "ran_no_tests"]

Scope = Literal["full", "targeted"]
Status = Literal["passed", "failed"]

# Tools whose `run NAME` starts a script the project declares (normalised as (tool, "run", NAME, *args)).
_SCRIPT_RUNNERS = ("npm", "pnpm", "yarn", "bun", "composer", "pdm", "hatch", "rye", "pixi")
NO_TESTS_RAN = "no tests ran"
ABORTED = "aborted"
# The shell's own exit codes: the command never ran, so the receipt should say why rather than just "failed".
SHELL_REASONS = {126: "command not executable", 127: "command not found"}  # the exit code is shown beside a reason
_MAX_NESTING = 8  # subshells and `bash -c` scripts inside each other


@dataclass(frozen=True)
class Match:
    """One recognised command on the line (design §3.4)."""

    canonical_command: str
    approved: bool
    kind: Kind
    scope: Scope
    cwd: str | None  # relative to the root (POSIX) when under it, else absolute; None when unknowable
    source: str | None  # the facts entry's source when approved
    args: tuple[str, ...]  # trailing args beyond the declared command (approved) or after the runner
    runner: str = field(default="", compare=False)  # a label for explanations: "pytest", "npm test"
    narrowed_by: tuple[str, ...] = field(default=(), compare=False)  # why the scope is targeted

    def to_json(self) -> dict[str, Any]:
        return {
            "canonical_command": self.canonical_command,
            "approved": self.approved,
            "kind": self.kind,
            "scope": self.scope,
            "cwd": self.cwd,
            "source": self.source,
            "args": list(self.args),
        }


@dataclass(frozen=True)
class Classification:
    """The answer for one command line (`freshpass classify --json`, design §8)."""

    matched: bool
    canonical_command: str | None = None
    approved: bool = False
    kind: Kind | None = None
    scope: Scope | None = None
    attributable: bool = False
    status: Status | None = None
    reason: str | None = None
    matches: tuple[Match, ...] = ()
    headline: Match | None = field(default=None, compare=False)  # what the headline fields describe
    # commands on the line that were seen but are not evidence, and why (`ruff format .` before `pytest`)
    notes: tuple[str, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "matched": self.matched,
            "canonical_command": self.canonical_command,
            "approved": self.approved,
            "kind": self.kind,
            "scope": self.scope,
            "attributable": self.attributable,
            "status": self.status,
            "reason": self.reason,
            "matches": [m.to_json() for m in self.matches],
        }


def _no_match(reason: str) -> Classification:
    return Classification(matched=False, reason=reason)


# --- declared commands -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Declared:
    command: VerifyCommand
    invocations: tuple[Invocation, ...]  # more than one for a compound declaration (`make lint && make test`)
    role: str = "check"  # "check" (approved, full unless narrowed), "part" (approved, always targeted), "writes"
    reason: str = ""  # why, for a declared writer


@functools.lru_cache(maxsize=64)
def _prepare(commands: tuple[VerifyCommand, ...], aside: tuple[SetAside, ...], root: Path) -> tuple[_Declared, ...]:
    """Normalise every declared spelling once per (facts, root): both sides of a match go through `normalise`.

    Besides the checks, what facts set aside still tells runs apart: a package's own check or a narrower one is
    the project's check run on a part (approved, targeted); a declared writer (`ruff check` where the project's
    configuration turns fixing on) is never evidence."""
    prepared: list[_Declared] = []
    entries: list[tuple[VerifyCommand, str]] = [(command, "check") for command in commands]
    reasons: dict[tuple[str, str], str] = {(item.command, item.cwd): item.reason for item in aside}
    for item in aside:
        if item.why in ("narrower", "package") and item.kind is not None:
            entries.append((VerifyCommand(item.command, item.kind, item.cwd, item.source), "part"))
        elif item.why == "writes" and item.kind is not None:
            # it checks and also rewrites files (`make test` running `eslint --fix` somewhere): freshpass never
            # proposes it, but a run of it did run the project's checks — evidence, bound to what it ran against
            entries.append((VerifyCommand(item.command, item.kind, item.cwd, item.source), "check"))
        elif item.why in ("writes", "publishes"):
            entries.append((VerifyCommand(item.command, item.kind or "check", item.cwd, item.source), "writes"))
    for command, role in entries:
        cwd = Path(os.path.normpath(root / command.cwd))
        for spelling in command.spellings:
            try:
                parsed = parse_line(spelling)
            except ShellSyntaxError:
                continue
            invocations = tuple(_declared_invocations(parsed, cwd, root))
            if invocations:
                reason = reasons.get((command.command, command.cwd), "") if role == "writes" else ""
                prepared.append(_Declared(command, invocations, role, reason))
    return tuple(prepared)


def _hashable(commands: Iterable[VerifyCommand]) -> tuple[VerifyCommand, ...]:
    """The cache key for `_prepare` (equivalents built as a list would make a frozen command unhashable)."""
    return tuple(
        c if isinstance(c.equivalents, tuple) else dataclasses.replace(c, equivalents=tuple(c.equivalents))
        for c in commands
    )


def _declared_invocations(parsed: ParsedLine, cwd: Path, root: Path) -> Iterable[Invocation]:
    state = _ShellState(cwd)
    for command in simple_commands(parsed):
        if state.apply_builtin(command):
            continue
        result = normalise(command.argv, state.cwd, root)
        if isinstance(result, list):
            yield from result


def _synonymous(tokens: tuple[str, ...], runner: Identified | None) -> tuple[str, ...]:
    """Option synonyms rewritten to one spelling (`--session` → `-s`, `--all` → `--workspace`)."""
    if runner is None or not runner.runner.synonyms:
        return tokens
    synonyms = dict(runner.runner.synonyms)
    out: list[str] = []
    for token in tokens:
        if token.startswith("-") and token != "-" and token != "--":
            name, eq, value = token.partition("=")
            token = synonyms.get(name, name) + (eq + value if eq else "")
        out.append(token)
    return tuple(out)


def _is_script(tokens: tuple[str, ...]) -> bool:
    """`npm run X`, `pnpm run X`, `yarn run X`, `bun run X`: the package's script, run by any manager."""
    return len(tokens) >= 3 and tokens[0] in ("npm", "pnpm", "yarn", "bun") and tokens[1] == "run"


# Task runners whose bare form runs a default target: a name after them is another target.
_DEFAULT_GOAL_RUNNERS = frozenset({"make", "gmake", "just", "task", "rake", "mage", "invoke", "inv"})


def _approved_trailing(declared: Invocation, run: Invocation, runner: Identified | None) -> tuple[str, ...] | None:
    """The run's tokens beyond the declared ones, or None when the run is not that declared command.

    Design §3.4: the run's leading non-option tokens equal the declared ones, every declared token appears, and
    options may sit anywhere (`go test -v ./...` matches `go test ./...`); option synonyms are one option."""
    if run.tokens[:1] != declared.tokens[:1] and not (_is_script(run.tokens) and _is_script(declared.tokens)):
        return None  # a different program, whatever its arguments (a package script is one, whichever manager)
    if (
        len(declared.tokens) == 1
        and declared.tokens[0] in _DEFAULT_GOAL_RUNNERS
        and any(not t.startswith("-") and "=" not in t for t in run.tokens[1:])
    ):
        return None  # bare `make` runs the default goal; `make itest` is another target, not an argument
    spec = runner.runner if runner else None
    declared_tokens = _synonymous(declared.tokens, runner)
    run_tokens = _synonymous(run.tokens, runner)
    if _is_script(run_tokens) and _is_script(declared_tokens):
        run_tokens, declared_tokens = ("<pm>", *run_tokens[1:]), ("<pm>", *declared_tokens[1:])
    declared_positionals = [declared_tokens[i] for i in positional_indexes(declared_tokens, spec)]
    run_positionals = [run_tokens[i] for i in positional_indexes(run_tokens, spec)]
    if run_positionals[: len(declared_positionals)] != declared_positionals:
        return None
    remaining = list(run_tokens)
    for token in declared_tokens:
        try:
            remaining.remove(token)
        except ValueError:
            return None
    return tuple(remaining)


def _narrower_run(declared: Invocation, run: Invocation, runner: Identified | None) -> tuple[str, ...] | None:
    """A run of the declared command's own runner that lacks only what widens it to the whole project
    (`cargo test -p web` for `cargo test --workspace`, `go test ./api/...` for `go test ./...`): the run's
    tokens after the runner, or None when it is not such a run."""
    if runner is None or run.tokens[: runner.head] != declared.tokens[: runner.head]:
        return None
    widening = runner.runner.whole_scope
    if not widening:
        return None
    declared_rest = _synonymous(declared.tokens[runner.head :], runner)
    run_rest = _synonymous(run.tokens[runner.head :], runner)
    missing = [t for t in declared_rest if t not in run_rest]
    if not missing or any(t not in widening and t not in runner.runner.neutral for t in missing):
        return None
    return run_rest


# --- shell state: cd, pushd, set -o pipefail -------------------------------------------------------------------


class _ShellState:
    def __init__(self, cwd: Path | None) -> None:
        self.cwd = cwd
        self.previous: Path | None = None
        self.stack: list[Path | None] = []
        self.pipefail = False

    def child(self, *, pipefail: bool | None = None) -> _ShellState:
        """The state a subshell or `bash -c` starts with; its changes do not come back."""
        state = _ShellState(self.cwd)
        state.previous, state.stack = self.previous, list(self.stack)
        state.pipefail = self.pipefail if pipefail is None else pipefail
        return state

    def apply_builtin(self, command: SimpleCommand) -> bool:
        """Apply `cd`/`pushd`/`popd`/`set` effects; True when the command is one of those builtins."""
        argv = command.argv
        if not argv:
            return True
        head = argv[0]
        if head in ("cd", "pushd", "chdir"):
            args = [a for a in argv[1:] if a not in ("-L", "-P", "-e", "-@", "--")]
            if command.words[0].expands or any(w.expands for w in command.words[1:]):
                new: Path | None = None
            elif not args:
                new = Path.home() if head != "pushd" else self.cwd
            elif args[0] == "-":
                new = self.previous
            else:
                new = _join(self.cwd, args[0])
            if head == "pushd":
                self.stack.append(self.cwd)
            self.previous, self.cwd = self.cwd, new
            return True
        if head == "popd":
            self.previous, self.cwd = self.cwd, (self.stack.pop() if self.stack else None)
            return True
        if head == "set":
            for i, token in enumerate(argv[1:], start=1):
                if token[:1] in "-+" and "o" in token[1:] and argv[i + 1 : i + 2] == ("pipefail",):
                    self.pipefail = token[0] == "-"
            return True
        return False


def _join(cwd: Path | None, target: str) -> Path | None:
    if cwd is None and not os.path.isabs(os.path.expanduser(target)):
        return None
    path = Path(os.path.expanduser(target))
    return Path(os.path.normpath(path if path.is_absolute() or cwd is None else cwd / path))


# --- classification --------------------------------------------------------------------------------------------


@dataclass
class _Found:
    """A recognised command at its place on the line."""

    match: Match
    invocation: Invocation


@dataclass
class _Context:
    root: Path | None
    declared: tuple[_Declared, ...]
    not_evidence: list[str] = field(default_factory=list)  # seen, never evidence, and why
    heads: list[str] = field(default_factory=list)  # commands that are not checks, for the no-match reason


@dataclass
class _Walk:
    """What a list, chain, pipeline or command contributes (design §3.2).

    `reporting` are the matches whose exit status the part's own status reflects, under `conditions` ("the
    chain exits 0"); `blocker` says why the status cannot be attributed at all (`||`, a pipe without pipefail);
    `silent` says why earlier matches do not report (`pytest; echo done`). `sequence` is every invocation in
    reporting position, recognised or not, for matching declared chains.
    """

    found: list[_Found] = field(default_factory=list)
    reporting: list[_Found] = field(default_factory=list)
    sequence: list[Invocation] = field(default_factory=list)
    blocker: str | None = None
    silent: str | None = None
    conditions: list[str] = field(default_factory=list)

    def absorb(self, part: _Walk) -> None:
        self.found += part.found
        self.reporting += part.reporting
        self.sequence += part.sequence
        self.blocker = self.blocker or part.blocker
        self.silent = self.silent or part.silent
        self.conditions += [c for c in part.conditions if c not in self.conditions]


def classify(
    line: str,
    *,
    cwd: str | os.PathLike[str],
    root: str | os.PathLike[str] | None = None,
    facts: ProjectFacts | None = None,
    exit_code: int | None = None,
    output: str | None = None,
) -> Classification:
    """Classify one command line as typed (design §3). Never raises on any text; never runs anything."""
    root_path = Path(root) if root is not None else (Path(facts.root) if facts is not None else None)
    if root_path is not None:
        root_path = Path(os.path.normpath(os.path.abspath(root_path)))
    cwd_path = Path(os.path.normpath(os.path.abspath(cwd)))
    declared = (
        _prepare(_hashable(facts.verify_commands), tuple(facts.set_aside), root_path)
        if facts is not None and root_path
        else ()
    )
    if not line.strip():
        return _no_match("empty command line")
    try:
        parsed = parse_line(line)
    except ShellSyntaxError as exc:
        return _no_match(f"cannot split the line reliably: {exc}")
    if not parsed.statements:
        return _no_match("nothing runs (only comments)")
    if parsed.statements[-1].background:
        return _no_match("it runs in the background (&): its exit status is not known")

    context = _Context(root_path, declared)
    walk = _walk_list(parsed, _ShellState(cwd_path), exit_code, context, depth=0)
    found = _match_compound(walk, declared, root_path)
    if not found.found:
        if context.not_evidence:
            return _no_match("; ".join(context.not_evidence))
        heads = context.heads
        shown = ", ".join(f"`{h}`" for h in heads[:3])
        return _no_match(
            f"no recognised check: {shown} {'is' if len(heads) == 1 else 'are'} not a verify command or a "
            "recognised test/lint/typecheck/build runner"
            if heads
            else "no recognised check on this line"
        )

    attributable = bool(found.reporting) and found.blocker is None
    matches = tuple(f.match for f in found.reporting) if attributable else ()
    headline = _headline(list(matches) or [f.match for f in found.found])
    status: Status | None = None
    reason: str | None = None
    if not attributable:
        reason = found.blocker if found.reporting else found.silent
    elif exit_code is not None:
        status, reason = _status(exit_code, output, found.reporting)
    elif found.conditions:
        reason = "counts only if " + " and ".join(found.conditions)
    return Classification(
        matched=True,
        canonical_command=headline.canonical_command,
        approved=headline.approved,
        kind=headline.kind,
        scope=headline.scope,
        attributable=attributable,
        status=status,
        reason=reason,
        matches=matches,
        headline=headline,
        notes=tuple(context.not_evidence),
    )


def _walk_list(
    parsed: ParsedLine, state: _ShellState, exit_code: int | None, context: _Context, *, depth: int
) -> _Walk:
    """A list reports the status of its last statement only; a background job anywhere blocks attribution."""
    walk = _Walk()
    statements = parsed.statements
    last = len(statements) - 1
    background = False
    for index, statement in enumerate(statements):
        if index < last:
            part = _walk_and_or(statement.body, state.child() if statement.background else state, None, context, depth)
            walk.found += part.found
            background = background or statement.background
            continue
        part = _walk_and_or(statement.body, state, exit_code, context, depth)
        earlier = list(walk.found)
        walk.absorb(part)
        if statement.background:
            walk.blocker = "it runs in the background (&): its exit status is not known"
        if earlier and not part.reporting and walk.silent is None:
            reporter = _describe(statement.body)
            names = ", ".join(dict.fromkeys(f"`{f.match.runner}`" for f in earlier[:3]))
            walk.silent = f"only the last command's exit status is known: it is `{reporter}`'s, not {names}'s"
    if background:
        walk.blocker = "a background job (&) runs alongside it: the exit status is not tied to the check"
    return walk


def _describe(body: AndOr) -> str:
    return " && ".join(" | ".join(str(c) for c in p.commands) for p in body.pipelines)


def _walk_and_or(body: AndOr, state: _ShellState, exit_code: int | None, context: _Context, depth: int) -> _Walk:
    """An && chain reports every member when it exits 0 (each one passed); `||` hides which one ran last."""
    walk = _Walk()
    chained = len(body.pipelines) > 1
    if "||" in body.operators:
        walk.blocker = "`||` hides the exit status of the check"
    member_exit = exit_code if not chained else (0 if exit_code == 0 else None)
    for pipeline in body.pipelines:
        walk.absorb(_walk_pipeline(pipeline, state, member_exit, context, depth))
    if chained and walk.blocker is None:
        if exit_code is not None and exit_code != 0:
            walk.blocker = "a failed && chain: which command failed is unknown, so nothing is recorded"
        elif "the whole && chain exits 0" not in walk.conditions:
            walk.conditions.append("the whole && chain exits 0")
    return walk


def _walk_pipeline(
    pipeline: Pipeline, state: _ShellState, exit_code: int | None, context: _Context, depth: int
) -> _Walk:
    walk = _Walk()
    piped = len(pipeline.commands) > 1
    if pipeline.negated:
        walk.blocker = "`!` inverts the exit status"
    elif piped and not state.pipefail:
        walk.blocker = "a pipe (|) reports the exit status of its last command, not the check's"
    elif piped and exit_code is not None and exit_code != 0:
        walk.blocker = "a failed pipeline under pipefail: which command failed is unknown"
    elif piped:
        walk.conditions.append("the pipeline (under pipefail) exits 0")
    member_exit = exit_code if not piped else (0 if exit_code == 0 else None)
    for command in pipeline.commands:
        # each command of a pipe runs in its own subshell: its `cd` does not last
        own_state = state.child() if piped else state
        if isinstance(command, Subshell):
            if depth >= _MAX_NESTING:
                context.not_evidence.append("subshells nested this deep are not analysed")
                continue
            walk.absorb(_walk_list(command.body, own_state.child(), member_exit, context, depth=depth + 1))
            continue
        walk.absorb(_walk_simple(command, own_state, member_exit, context, depth))
    return walk


def _walk_simple(
    command: SimpleCommand, state: _ShellState, exit_code: int | None, context: _Context, depth: int
) -> _Walk:
    walk = _Walk()
    if state.apply_builtin(command):
        return walk
    program = next((w for w in command.words if w.quoted or not is_assignment(w.text)), None)
    if program is None or program.expands:  # `$CMD …`: what runs is unknown (`X=$(pwd) pytest` is pytest)
        context.heads.append(str(command))
        return walk
    result = normalise(command.argv, state.cwd, context.root)
    if result is None:
        return walk
    if isinstance(result, Rejected):
        context.not_evidence.append(f"`{command}`: {result.reason}")
        return walk
    for invocation in result:
        if invocation.shell_script is not None:
            walk.absorb(_walk_shell_script(command, invocation, state, exit_code, context, depth))
            continue
        walk.sequence.append(invocation)
        outcome = _match(invocation, context.declared, context.root)
        if isinstance(outcome, Match):
            found = _Found(outcome, invocation)
            walk.found.append(found)
            walk.reporting.append(found)
            continue
        context.heads.append(str(command))
        if outcome is not None:
            context.not_evidence.append(f"`{command}`: {outcome.reason}")
    return walk


def _walk_shell_script(
    command: SimpleCommand,
    invocation: Invocation,
    state: _ShellState,
    exit_code: int | None,
    context: _Context,
    depth: int,
) -> _Walk:
    """`bash -c SCRIPT` is a child shell running SCRIPT: classified like a subshell (pipefail not inherited)."""
    if depth >= _MAX_NESTING:
        context.not_evidence.append(f"`{command}`: shells nested this deep are not analysed")
        return _Walk()
    try:
        parsed = parse_line(invocation.shell_script or "")
    except ShellSyntaxError as exc:
        context.not_evidence.append(f"`{command}`: cannot split its script reliably: {exc}")
        return _Walk()
    if not parsed.statements:
        return _Walk()
    if parsed.statements[-1].background:
        context.not_evidence.append(f"`{command}`: its script ends in the background (&)")
        return _Walk()
    child = state.child(pipefail=invocation.shell_pipefail)
    child.cwd = invocation.cwd
    return _walk_list(parsed, child, exit_code, context, depth=depth + 1)


def _headline(matches: list[Match]) -> Match:
    return next((m for m in matches if m.kind == "test"), matches[0])


def _aborted(exit_code: int) -> bool:
    # 124: timeout(1) killed it; 128+N: killed by signal N (130 SIGINT, 137 SIGKILL, 143 SIGTERM); negative: a
    # signal as Python's subprocess reports it.
    return exit_code == 124 or 128 < exit_code <= 128 + 64 or exit_code < 0


def _status(exit_code: int, output: str | None, reporting: list[_Found]) -> tuple[Status, str | None]:
    if _aborted(exit_code):
        return "failed", ABORTED
    runs_tests = any(f.match.kind == "test" for f in reporting)
    if runs_tests:
        runners = {f.match.runner for f in reporting}
        if exit_means_no_tests(exit_code, runners):
            return "failed", NO_TESTS_RAN
        if output and ran_no_tests(output):
            return "failed", NO_TESTS_RAN
    return ("passed", None) if exit_code == 0 else ("failed", SHELL_REASONS.get(exit_code))


def _relative_cwd(cwd: Path | None, root: Path | None) -> str | None:
    if cwd is None:
        return None
    if root is not None:
        try:
            rel = cwd.relative_to(root)
        except ValueError:
            return str(cwd)
        return rel.as_posix() or "."
    return str(cwd)


def _display(tokens: tuple[str, ...]) -> str:
    """A canonical spelling of normalised tokens: package scripts read `npm test`, `pnpm run lint`."""
    if len(tokens) >= 3 and tokens[1] == "run" and tokens[0] in _SCRIPT_RUNNERS:
        pm, script, args = tokens[0], tokens[2], tokens[3:]
        head = [pm, "test"] if script == "test" and pm in ("npm", "pnpm", "yarn", "composer") else [pm, "run", script]
        if args and pm == "npm":
            return join_words([*head, "--", *args])
        return join_words([*head, *args])
    return join_words(list(tokens))


_ROLE_ORDER = {"check": 0, "part": 1, "writes": 2}


def _match(invocation: Invocation, declared: tuple[_Declared, ...], root: Path | None) -> Match | NotEvidence | None:
    identified = identify(invocation.tokens)
    runner = identified if isinstance(identified, Identified) else None
    best: tuple[_Declared, tuple[str, ...]] | None = None
    narrower = False
    for candidate in declared:
        if len(candidate.invocations) != 1:
            continue  # a compound declaration (`npm ci && npm test`) is matched as a whole: see _match_compound
        spelled = candidate.invocations[0]
        if spelled.cwd is None or invocation.cwd is None or spelled.cwd != invocation.cwd:
            continue
        spelled_as = identify(spelled.tokens)
        if isinstance(identified, NotEvidence) and not isinstance(spelled_as, NotEvidence):
            continue  # the run's own arguments make it a writer or watcher (`ruff check --fix`)
        trailing = _approved_trailing(spelled, invocation, runner or _identified(spelled.tokens))
        if trailing is None:
            continue
        if best is None or (len(spelled.tokens), -_ROLE_ORDER[candidate.role]) > (
            len(best[0].invocations[0].tokens),
            -_ROLE_ORDER[best[0].role],
        ):
            best = (candidate, trailing)
    if best is None and runner is not None:
        for candidate in declared:
            if candidate.role == "writes" or len(candidate.invocations) != 1:
                continue
            spelled = candidate.invocations[0]
            spelled_runner = _identified(spelled.tokens)
            if spelled.cwd != invocation.cwd or spelled_runner is None or spelled_runner.label != runner.label:
                continue
            rest = _narrower_run(spelled, invocation, spelled_runner)
            if rest is not None:
                best, narrower = (candidate, rest), True
                break
    if best is not None and best[0].role == "writes":
        return NotEvidence(best[0].reason or f"`{best[0].command.command}` rewrites files", "writes")
    if best is None and isinstance(identified, NotEvidence):
        return identified
    cwd_text = _relative_cwd(invocation.cwd, root)
    # A package script's arguments reach the runner its body starts (`"test": "jest"`): read them as jest's.
    arguments_of = _script_runner(invocation) or runner
    if best is not None:
        candidate, trailing = best
        spelled = candidate.invocations[0]
        command = candidate.command
        passed = trailing[1:] if trailing[:1] == ("--",) else trailing
        writer = next((t for t in passed if t.split("=", 1)[0] in _WRITER_FLAGS), None)
        if writer is not None:
            return NotEvidence(f"`{writer}` makes `{command.command}` rewrite files", "writes")
        receiver = _receiver(command, passed) if passed and not narrower else None
        if isinstance(receiver, NotEvidence):
            return receiver  # `npm test -- -u` hands `-u` to jest: it rewrites snapshots
        reading = receiver if receiver is not None else arguments_of or _identified(spelled.tokens)
        narrowing = narrowing_of(passed if receiver is not None else trailing, reading, invocation.cwd, root).reasons
        narrowing += [f"option {a}" for a in invocation.wrapper_args if a not in spelled.wrapper_args]
        narrowing += [
            f"variable {t}"  # `make t F=router`: the recipe's filter, empty unless a run sets it
            for t in trailing
            if t.partition("=")[0] in command.selectors
            and t.partition("=")[2].strip("'\" ")
            and f"variable {t}" not in narrowing
        ]
        if narrower:
            missing = [t for t in spelled.tokens if t not in invocation.tokens]
            narrowing.insert(0, "without " + " ".join(missing) if missing else "a narrower run")
        if candidate.role == "part":
            narrowing.insert(0, f"a part of the project (`{candidate.command.command}`)")
        extra = list(trailing)
        if extra and _is_npm_script(spelled.tokens) and "--" not in command.command.split():
            extra = ["--", *extra]
        canonical = " ".join([command.command, *([join_words(extra)] if extra else [])])
        if narrower:
            canonical = _display(invocation.tokens)
        return Match(
            canonical_command=canonical,
            approved=True,
            kind=command.kind,
            scope="targeted" if narrowing else "full",
            cwd=cwd_text,
            source=command.source or None,
            args=trailing,
            runner=runner.label if runner else command.command,
            narrowed_by=tuple(narrowing),
        )
    found_suite = _suite_check(runner, invocation, declared) if runner is not None else None
    if found_suite is not None and runner is not None:
        # `pytest tests/test_x.py` where `make test` runs pytest: the project's own suite, on a part of it.
        # The whole suite by another runner of it (`cargo nextest run` where the check is `cargo test`) is the check.
        suite_check, below = found_suite
        args = invocation.tokens[runner.head :]
        narrowing = narrowing_of(args, arguments_of, invocation.cwd, root).reasons
        if below:
            narrowing.insert(0, f"in `{cwd_text}`, a part of the project")
        whole = not narrowing and not invocation.wrapper_args and _bare_suite(suite_check, runner, args, declared, root)
        return Match(
            canonical_command=_display(invocation.tokens),
            approved=True,
            kind=suite_check.kind,
            scope="full" if whole else "targeted",
            cwd=cwd_text,
            source=suite_check.source or None,
            args=args,
            runner=runner.label,
            narrowed_by=() if whole else (f"{runner.label} directly, not `{suite_check.command}`", *narrowing),
        )
    if runner is None:
        return None
    args = invocation.tokens[runner.head :]
    narrowing = narrowing_of(args, arguments_of, invocation.cwd, root).reasons
    narrowing += [f"option {a}" for a in invocation.wrapper_args]
    return Match(
        canonical_command=_display(invocation.tokens),
        approved=False,
        kind=runner.kind,
        scope="targeted",  # design §3.4: a runner the facts do not list is never full
        cwd=cwd_text,
        source=None,
        args=args,
        runner=runner.label,
        narrowed_by=("not one of the project's verify commands", *narrowing),
    )


# Flags that turn a check into a writer, whatever tool they reach (`spin lint --fix`, `make test -- --update`).
_WRITER_FLAGS = frozenset({"--fix", "--write", "--apply", "--accept", "--overwrite"}) | REWRITES_EXPECTATIONS


def _receiver(command: VerifyCommand, passed: tuple[str, ...]) -> Identified | NotEvidence | None:
    """What the check's extra arguments reach, with them added (`npm test -- -u` → `jest -u`)."""
    if not command.args_to:
        return None
    try:
        words = tuple(w.text for w in next(iter(simple_commands(parse_line(command.args_to)))).words)
    except (ShellSyntaxError, StopIteration):
        return None
    found = identify((*words, *passed))
    if isinstance(found, NotEvidence):
        return found if found.effect in ("writes", "publishes", "watches") else None
    base = identify(words)
    return base if isinstance(base, Identified) else None


def _suite_check(
    runner: Identified, invocation: Invocation, declared: tuple[_Declared, ...]
) -> tuple[VerifyCommand, bool] | None:
    """The project's check whose own tool this run is, at the same place or, a part of it, below it (`cargo t` in
    one crate of the workspace); and whether it ran below."""
    suite = suite_of(runner)
    below: VerifyCommand | None = None
    for candidate in declared:
        command = candidate.command
        same_kind = command.kind == runner.kind or (command.kind == "test" and "test" in runner.covers)
        if candidate.role != "check" or suite not in command.suites or not same_kind:
            continue
        place, here = candidate.invocations[0].cwd, invocation.cwd
        if place == here:
            return command, False
        if below is None and runner.kind == "test" and place is not None and here is not None and place in here.parents:
            below = command  # the suite run from inside it runs what lies below (a build tree is no part: not builds)
    return (below, True) if below is not None else None


def _bare_suite(
    command: VerifyCommand,
    runner: Identified,
    args: tuple[str, ...],
    declared: tuple[_Declared, ...],
    root: Path | None,
) -> bool:
    """Is the check itself its suite's runner over all of it (`cargo test`), not a wrapper that may set the suite
    up or run more (`make test`), and does the run select what it does (the same tasks: `gradle :app:check` is not
    `gradle check`)?"""
    selected = [args[i] for i in positional_indexes(args, runner.runner)]
    for candidate in declared:
        if candidate.command is not command or len(candidate.invocations) != 1:
            continue
        spelled = candidate.invocations[0]
        found = _identified(spelled.tokens)
        if found is None or suite_of(found) not in command.suites or spelled.wrapper_args:
            continue
        rest = spelled.tokens[found.head :]
        if [rest[i] for i in positional_indexes(rest, found.runner)] != selected:
            continue
        if not narrowing_of(rest, found, spelled.cwd, root):
            return True
    return False


def _identified(tokens: tuple[str, ...]) -> Identified | None:
    found = identify(tokens)
    return found if isinstance(found, Identified) else None


def _script_runner(invocation: Invocation) -> Identified | None:
    """The runner a package.json script starts (`"test": "vitest run"` → vitest), to read the script's args."""
    tokens = invocation.tokens
    if (
        invocation.cwd is None
        or len(tokens) < 3
        or tokens[1] != "run"
        or tokens[0] not in ("npm", "pnpm", "yarn", "bun")
    ):
        return None
    body = _package_scripts(invocation.cwd / "package.json").get(tokens[2])
    if not body:
        return None
    try:
        parsed = parse_line(body)
    except ShellSyntaxError:
        return None
    # the script's extra arguments are appended to its last command
    last = _last_simple(parsed)
    if last is None:
        return None
    result = normalise(last.argv, invocation.cwd)
    if not isinstance(result, list) or not result:
        return None
    found = _identified(result[0].tokens)
    return found if found is not None and found.runner.name not in ("task", "script") else None


def _package_scripts(manifest: Path) -> dict[str, str]:
    try:
        stat = manifest.stat()
    except (OSError, ValueError):  # ValueError: a path with a NUL byte, as typed
        return {}
    return _read_package_scripts(str(manifest), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=32)
def _read_package_scripts(manifest: str, _mtime_ns: int, _size: int) -> dict[str, str]:
    """package.json `scripts` (cached per file version: the key includes mtime and size)."""
    try:
        data = json.loads(Path(manifest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {str(k): v for k, v in scripts.items() if isinstance(v, str)}


def _match_compound(walk: _Walk, declared: tuple[_Declared, ...], root: Path | None) -> _Walk:
    """A declared chain (`npm ci && npm test`) typed as such is that one command: its members become one match."""
    for candidate in declared:
        members = candidate.invocations
        if len(members) < 2:
            continue
        sequence = walk.sequence
        for start in range(len(sequence) - len(members) + 1):
            window = sequence[start : start + len(members)]
            if not all(
                run.tokens == member.tokens and run.cwd == member.cwd
                for run, member in zip(window, members, strict=True)
            ):
                continue
            command = candidate.command
            merged = _Found(
                Match(
                    canonical_command=command.command,
                    approved=True,
                    kind=command.kind,
                    scope="full",
                    cwd=_relative_cwd(window[0].cwd, root),
                    source=command.source or None,
                    args=(),
                    runner=command.command,
                ),
                window[-1],
            )

            def replace(
                found: list[_Found], merged: _Found = merged, window: list[Invocation] = window
            ) -> list[_Found]:
                kept = [f for f in found if not any(f.invocation is w for w in window)]
                position = next((i for i, f in enumerate(found) if any(f.invocation is w for w in window)), len(kept))
                return [*kept[:position], merged, *kept[position:]]

            return _Walk(
                found=replace(walk.found),
                reporting=replace(walk.reporting),
                sequence=walk.sequence,
                blocker=walk.blocker,
                silent=walk.silent,
                conditions=walk.conditions,
            )
    return walk


def _is_npm_script(tokens: tuple[str, ...]) -> bool:
    return len(tokens) >= 3 and tokens[0] == "npm" and tokens[1] == "run"


def _last_simple(parsed: ParsedLine) -> SimpleCommand | None:
    commands = list(simple_commands(parsed))
    return commands[-1] if commands else None
