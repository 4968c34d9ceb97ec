"""The run core (design §4.2, §5, §7.2): from a command line to receipts in the ledger, the one way every door
runs a check or records one it heard of.

- `run_check` runs a line: plan (roots, package, facts) → the project's run environment → `run_shell` → the
  content before and after → one classification → receipts (`freshpass.evidence.receipts.receipt`) → the ledger.
  `freshpass run`, the language server's `freshpass.verify`, the MCP `run` tool and `freshpass verify` (through
  `run_recipe`) adapt it; none of them runs a process or builds a receipt by itself.
- `record_reported` records a run freshpass did not watch: an agent's own shell tool (its hooks), a terminal an
  editor watched (`freshpass/recordRun`). The same plan, classification and receipts, bound to the content the
  report can vouch for.

Content: a run is bound to the content its root had when it started. `run_check` reads the package root of the
directory the line runs in before it starts; a match that turns out to run elsewhere (`cd other && pytest`) is
bound to that root's content after the run, stale at record when a file that counts was written since the start
(the clock rule). A reported run is bound exactly when a pre-tool hook took the content at the start (keyed by the
tool call's id), else by the clock rule: the report arrives after the run, and a code file written during it
(judged by modification time, with a margin) marks the receipt stale at record. Each receipt says which
(`details.content_bound`: `start` or `clock`).

A program that was not found (exit 127) never ran: nothing is recorded, the status stays as it was, and the
outcome says which program and where freshpass looked.

How a receipt was observed (`observed`, defined with the receipt in `freshpass.ledger.store`): `watched` when
freshpass ran it; `reported` when it only heard of it; `unconfirmed` when a reported test pass carries no test
summary that agrees with its exit status, or when an agent that has a pre-tool hook reports a run its pre-tool hook
never saw. An unconfirmed receipt is shown and never counts as a full pass.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from freshpass.evidence.receipts import Actor, Content, Finished, actor_from_environment, receipts_for
from freshpass.runner.process import DEFAULT_GRACE

__all__ = ["DEFAULT_GRACE", "Actor", "actor_from_environment"]  # what a door needs of the layers below, through here

if TYPE_CHECKING:
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.classify import Classification, Match
    from freshpass.facts.model import ProjectFacts
    from freshpass.ledger.content import ContentSnapshot
    from freshpass.ledger.store import Evidence, EvidenceDraft, Ledger, Observed
    from freshpass.runner.environment import RunEnvironment
    from freshpass.runner.process import OutputCallback, ProcessResult
    from freshpass.runner.verify import VerifyPlan, VerifyReporter, VerifyResult

# A reported run's start is estimated from when the report arrived and how long the run took; files written up to
# this many seconds before that estimate count as written during the run (the report arrives a little after the
# run ended, so the estimate is late by that much; erring early only ever makes a receipt stale, never fresh).
REPORT_MARGIN = 1.0
NOT_FOUND_EXIT = 127


# ---- the plan ------------------------------------------------------------------------------------------------------


@dataclass
class RunPlan:
    """What a command line can count for, worked out before it runs (or before its report is recorded)."""

    cwd: Path
    root: Path | None = None  # the git (or manifest) root
    package_root: Path | None = None  # the root the cwd's facts belong to
    facts: ProjectFacts | None = None
    evidence_roots: dict[str, Path] = field(default_factory=dict)  # roots whose content is read before the run
    unreadable: str | None = None  # why the project's facts could not be read (then nothing is recorded)
    no_check: str | None = None  # the line cannot be a check (`freshpass.facts.quick`): nothing to read or record

    @property
    def rules(self) -> ContentRules:
        """The project's content rules (`[tool.freshpass] ignore` and `ignore_prose`), as every door reads them."""
        from freshpass.evidence.status import ContentRules

        return ContentRules.of(self.facts)

    @property
    def not_recordable(self) -> str | None:
        """Why nothing this plan runs can be recorded, or None."""
        if self.no_check:
            return self.no_check
        if self.package_root is None:
            return f"{self.cwd} is not inside a project (no git repository or manifest found above it)"
        if self.unreadable:
            return f"the project's declared checks could not be read ({self.unreadable})"
        return None

    def root_of(self, match: Match) -> Path:
        """The (package) root a match's evidence belongs to: the package holding the directory it ran in."""
        from freshpass.facts.roots import find_package_root

        assert self.root is not None and self.package_root is not None
        if not match.cwd:
            return self.package_root
        directory = Path(os.path.normpath(self.package_root / match.cwd))  # absolute cwds stay absolute
        if directory in (self.package_root, self.cwd):
            return self.package_root
        return find_package_root(directory, self.root)

    def add_roots(self, matches: Iterable[Match]) -> None:
        for match in matches:
            match_root = self.root_of(match)
            self.evidence_roots[str(match_root)] = match_root


async def plan_run(
    cwd: Path,
    *,
    root: Path | None = None,
    package_root: Path | None = None,
    facts: ProjectFacts | None = None,
    interrupt: asyncio.Event | None = None,
) -> RunPlan:
    """The plan for a line run in `cwd`: its roots and facts (detected off the loop with a deadline, unless a door
    that already knows them passes `facts`). The package root's content is what the run will be bound to. A
    project whose facts cannot be read gets `unreadable`; `Interrupted` propagates when `interrupt` is set."""
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.roots import find_package_root, find_root

    plan = RunPlan(cwd=cwd, root=root or find_root(cwd))
    if plan.root is None:
        return plan
    plan.package_root = package_root or find_package_root(cwd, plan.root)
    plan.evidence_roots[str(plan.package_root)] = plan.package_root
    if facts is not None:
        plan.facts = facts
        return plan
    try:
        plan.facts = await detect_bounded(plan.package_root, interrupt=interrupt)
    except Unavailable as exc:
        plan.unreadable = str(exc)
    return plan


# ---- content ---------------------------------------------------------------------------------------------------------


async def read_contents(
    roots: Mapping[str, Path], rules: ContentRules, *, interrupt: asyncio.Event | None = None
) -> tuple[dict[str, ContentSnapshot], list[str]]:
    """Each root's content now under the project's rules (read in daemon threads), and one line for each root that
    could not be read."""
    from freshpass.evidence.detection import in_thread

    reading = {key: in_thread(rules.snapshot, path, name="freshpass-content") for key, path in roots.items()}
    return await settle_contents(reading, interrupt=interrupt)


async def settle_contents(
    reading: Mapping[str, asyncio.Future[ContentSnapshot]], *, interrupt: asyncio.Event | None = None
) -> tuple[dict[str, ContentSnapshot], list[str]]:
    from freshpass.evidence.detection import Unavailable, wait_bounded
    from freshpass.ledger.content import ContentError

    contents: dict[str, ContentSnapshot] = {}
    problems: list[str] = []
    for key, future in reading.items():
        try:
            contents[key] = await wait_bounded(
                future, deadline=None, interrupt=interrupt, what=f"reading the content of {key}"
            )
        except Unavailable as exc:
            cause = exc.__cause__
            problems.append(f"cannot read the content of {key} ({cause if isinstance(cause, ContentError) else exc})")
    return contents, problems


def written_since(root: Path, since: float, paths: Iterable[str]) -> bool:
    """Whether any of `paths` (relative to `root`) was modified at or after `since` (epoch seconds)."""
    for relative in paths:
        try:
            if os.lstat(root / relative).st_mtime >= since:
                return True
        except OSError:
            continue
    return False


async def changed_while_running(root: Path, content: ContentSnapshot, started_at: float, rules: ContentRules) -> bool:
    """Whether a file that counts as content was written after `started_at` (less `REPORT_MARGIN`): the nearest
    freshpass can come to before-and-after content ids when it did not see the start. Git roots look at the files
    that differ from HEAD (an unmodified file was not written), other roots at every file of the content."""
    from freshpass.evidence.agents import code_paths, uncommitted_paths

    since = started_at - REPORT_MARGIN
    if content.is_git:
        candidates = code_paths(await uncommitted_paths(root) or [], rules.ignored())
    else:
        candidates = list(content.manifest or ())
    return await asyncio.to_thread(written_since, root, since, candidates)


# ---- where receipts go -----------------------------------------------------------------------------------------------


class Recorder(Protocol):
    """Where a door's receipts go: the ledger, or the language server's own connection to it."""

    async def record(self, draft: EvidenceDraft, manifest: Mapping[str, str] | None) -> Evidence | None: ...


class LedgerRecorder:
    """The ledger for one run of a command-line door: opened in the background as soon as a run may count (while
    the command runs), closed after. A ledger that cannot be used leaves `problem` and records nothing."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self._say = say
        self._opening: asyncio.Task[Any] | None = None
        self.problem: str | None = None
        self.ledger: Ledger | None = None

    def start(self) -> None:
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._open())

    async def _open(self) -> Ledger | None:
        from freshpass.ledger.store import Ledger, LedgerError

        try:
            ledger = await Ledger.open()
        except LedgerError as exc:
            self.problem = f"the ledger cannot be used: {exc}"
            return None
        for warning in ledger.warnings:
            if self._say is not None:
                self._say(warning.removeprefix("freshpass: "))
        self.ledger = ledger
        return ledger

    async def opened(self) -> Ledger | None:
        self.start()
        assert self._opening is not None
        return await self._opening

    async def record(self, draft: EvidenceDraft, manifest: Mapping[str, str] | None) -> Evidence | None:
        from freshpass.ledger.store import LedgerError

        ledger = await self.opened()
        if ledger is None:
            return None
        try:
            return await ledger.record(draft, manifest=manifest)
        except LedgerError as exc:
            self.problem = f"the ledger cannot be used: {exc}"
            return None

    async def close(self) -> None:
        if self._opening is not None:
            ledger = await self._opening
            if ledger is not None:
                await ledger.close()
            self._opening = None

    async def __aenter__(self) -> LedgerRecorder:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


# ---- outcomes --------------------------------------------------------------------------------------------------------


@dataclass
class RunOutcome:
    """What a run (or a report) came to: the receipts recorded, or why none."""

    line: str
    cwd: Path
    plan: RunPlan
    result: ProcessResult | None = None  # None for a reported run
    exit_code: int | None = None
    classification: Classification | None = None
    receipts: list[Evidence] = field(default_factory=list)
    reason: str = ""  # why nothing was recorded ("" when something was)
    message: str | None = None  # what a person should read besides the receipt (which program was not found)
    not_run: bool = False  # the program was not found: nothing ran, nothing was recorded
    environment: RunEnvironment | None = None
    after: dict[str, ContentSnapshot] = field(default_factory=dict)

    @property
    def recorded(self) -> bool:
        return bool(self.receipts)

    @property
    def headline(self) -> Evidence | None:
        """The receipt that answers for the line: the test one when it ran tests (the classification's headline)."""
        kind = self.classification.kind if self.classification is not None else None
        return next((r for r in self.receipts if r.kind == kind), self.receipts[0] if self.receipts else None)


# ---- running a check -------------------------------------------------------------------------------------------------


def _ignore_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def run_check(
    line: str,
    cwd: Path,
    *,
    actor: Actor,
    recorder: Recorder | None = None,
    plan: RunPlan | None = None,
    environ: Mapping[str, str] | None = None,
    interpreter: str | None = None,
    extra_path: Iterable[str] = (),
    fix: str | None = None,
    say: Callable[[str], None] | None = None,
    details: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    cancel: asyncio.Event | None = None,
    interrupt: asyncio.Event | None = None,
    on_output: OutputCallback | None = None,
    on_start: Callable[[int], None] | None = None,
    on_plan: Callable[[RunPlan], None] | None = None,
    echo: bool = False,
    echo_to: tuple[IO[str] | None, IO[str] | None] | None = None,
    stdin_fd: int | None = None,
    inherit_stdin: bool = False,
) -> RunOutcome:
    """Run `line` in `cwd` as a check and record what it proves (see the module doc).

    `plan`: a door that already knows the roots and facts passes them (the language server); otherwise they are
    worked out here. `recorder` defaults to the ledger (opened while the command runs). `say` hears freshpass's own
    lines about the run (what it put on PATH, a program not found, content it could not read). `echo_to`: the text
    streams whose byte buffers get the command's output unchanged (stdout's, stderr's). `Interrupted`
    propagates when `interrupt` is set before the command starts.
    """
    from freshpass.runner.environment import FIX_IN_TERMINAL, RunEnvironment, run_environment
    from freshpass.runner.process import binary_stream, run_shell

    environ = os.environ if environ is None else environ
    tell = say or (lambda _text: None)
    own_recorder = recorder is None
    ledger = LedgerRecorder(tell) if recorder is None else recorder
    try:
        early: asyncio.Future[ContentSnapshot] | None = None
        if plan is None:
            plan, early = await _plan_with_early_content(line, cwd, interrupt)
        if on_plan is not None:
            on_plan(plan)
        before: dict[str, ContentSnapshot] = {}
        if plan.not_recordable is None:
            before = await _content_before(plan, early, tell, interrupt)
            if before and isinstance(ledger, LedgerRecorder):
                ledger.start()  # opens while the command runs
        elif early is not None:
            early.add_done_callback(_ignore_outcome)
        if plan.unreadable:
            tell(f"{plan.unreadable}; running the command without recording it")
        if plan.root is None:
            environment = RunEnvironment(base_path=environ.get("PATH", ""))
        else:
            environment = await asyncio.to_thread(
                run_environment, plan.cwd, plan.root, environ, interpreter=interpreter, extra_path=tuple(extra_path)
            )
        summary = environment.summary()
        if summary:
            tell(summary)
        for note in environment.notes:
            tell(note)
        if interrupt is not None and interrupt.is_set():
            from freshpass.evidence.detection import Interrupted

            raise Interrupted
        result = await run_shell(
            line,
            plan.cwd,
            env=environment.apply({**environ, **({"FRESHPASS_ACTOR": actor.kind} if actor.kind == "agent" else {})}),
            on_output=on_output,
            echo=echo,
            echo_to=(binary_stream(echo_to[0]), binary_stream(echo_to[1])) if echo_to is not None else None,
            timeout=timeout,
            cancel=cancel,
            stdin_fd=stdin_fd,
            inherit_stdin=inherit_stdin,
            on_start=on_start,
        )
        if result.error:
            tell(result.error)
        for note in result.notes():
            tell(note)
        outcome = RunOutcome(line, plan.cwd, plan, result, result.exit_code, environment=environment)
        not_found = None
        if result.exit_code == NOT_FOUND_EXIT and not result.aborted:
            from freshpass.runner.environment import missing_program, not_found_message

            not_found = missing_program(line, result.output.text(), environment.path, plan.cwd)
            outcome.message = not_found_message(not_found, environment, fix or FIX_IN_TERMINAL)
            outcome.not_run = True
            tell(outcome.message)
        if plan.not_recordable is not None:
            outcome.reason = plan.not_recordable
            return outcome
        # The content after the run is read while the output is classified.
        after_reading = asyncio.ensure_future(read_contents(plan.evidence_roots, plan.rules)) if before else None
        output = result.output.text()
        outcome.classification = await asyncio.to_thread(_classify, line, plan, result.exit_code, output)
        after = (await after_reading)[0] if after_reading is not None else {}
        outcome.after = after
        if outcome.not_run:
            outcome.reason = f"it never ran: {outcome.message}"
            return outcome
        if not outcome.classification.matches:
            outcome.reason = outcome.classification.reason or "not a recognised verify command"
            return outcome
        if result.timed_out:
            outcome.reason = "it timed out; its process group was stopped"
            return outcome
        if not before:
            outcome.reason = "its content could not be read before the run"
            return outcome
        finished = Finished(
            line,
            str(plan.cwd),
            result.exit_code,
            output,
            result.output.omitted,
            result.started_at,
            result.finished_at,
            environment.to_json(),
        )
        bound = await _bind(plan, outcome.classification, before, after, started_at=result.started_at)
        outcome.receipts = await _record(
            ledger, plan, outcome.classification, finished, actor, bound, observed="watched", details=details
        )
        outcome.after.update({key: b.end for key, b in bound.items() if b.end is not None})
        if not outcome.receipts:
            outcome.reason = getattr(ledger, "problem", None) or "the ledger refused the receipt"
        return outcome
    finally:
        if own_recorder:
            assert isinstance(ledger, LedgerRecorder)
            await ledger.close()


def _classify(line: str, plan: RunPlan, exit_code: int | None, output: str) -> Classification:
    """The one classification of a finished run (design §3)."""
    from freshpass.facts.classify import classify

    return classify(
        line, cwd=str(plan.cwd), root=plan.package_root, facts=plan.facts, exit_code=exit_code, output=output
    )


async def _plan_with_early_content(
    line: str, cwd: Path, interrupt: asyncio.Event | None
) -> tuple[RunPlan, asyncio.Future[ContentSnapshot] | None]:
    """The plan, with the package root's content read (under the default rules) while the facts are detected: git
    works on the other core, and the default rules are nearly always the project's. A line that cannot be a check
    (`freshpass.facts.quick`) needs neither: only its root, for the run environment."""
    from freshpass.evidence.detection import in_thread
    from freshpass.facts.quick import could_be_check, not_a_check
    from freshpass.facts.roots import find_package_root, find_root

    root = find_root(cwd)
    if root is None:
        return RunPlan(cwd=cwd), None
    if not could_be_check(line):
        return RunPlan(cwd=cwd, root=root, no_check=not_a_check(line)), None
    package_root = find_package_root(cwd, root)
    from freshpass.ledger.content import snapshot

    early = in_thread(snapshot, package_root, [], name="freshpass-content")
    try:
        plan = await plan_run(cwd, root=root, package_root=package_root, interrupt=interrupt)
    except BaseException:
        early.add_done_callback(_ignore_outcome)
        raise
    return plan, early


async def _content_before(
    plan: RunPlan,
    early: asyncio.Future[ContentSnapshot] | None,
    say: Callable[[str], None],
    interrupt: asyncio.Event | None,
) -> dict[str, ContentSnapshot]:
    from freshpass.evidence.status import ContentRules

    reading: dict[str, asyncio.Future[ContentSnapshot]] = {}
    if early is not None and plan.rules == ContentRules():
        reading[str(plan.package_root)] = early
    elif early is not None:
        early.add_done_callback(_ignore_outcome)
    from freshpass.evidence.detection import in_thread

    for key, path in plan.evidence_roots.items():
        if key not in reading:
            reading[key] = in_thread(plan.rules.snapshot, path, name="freshpass-content")
    contents, problems = await settle_contents(reading, interrupt=interrupt)
    for problem in problems:
        say(f"{problem} before the run; this run is not recorded for it")
    return contents


@dataclass(frozen=True)
class Binding:
    """The content a root's receipt is bound to, the content after the run, whether it changed during the run, and
    whether the start was seen (`exact`) or estimated by the clock rule."""

    content_id: str
    manifest: Mapping[str, str] | None
    end: ContentSnapshot | None
    changed: bool
    exact: bool


async def _bind(
    plan: RunPlan,
    classification: Classification,
    before: Mapping[str, ContentSnapshot],
    after: Mapping[str, ContentSnapshot],
    *,
    started_at: float,
) -> dict[str, Binding]:
    """For each root the classification's matches belong to, its `Binding`. Roots read before the run compare
    before and after; others (a `cd` elsewhere, a report without a start) take the content now and the clock
    rule."""
    bound: dict[str, Binding] = {}
    missing: dict[str, Path] = {}
    for match in classification.matches:
        path = plan.root_of(match)
        key = str(path)
        if key in bound or key in missing:
            continue
        start = before.get(key)
        if start is not None:
            end = after.get(key)
            changed = end is None or end.content_id != start.content_id
            bound[key] = Binding(start.content_id, start.manifest, end, changed, True)
        else:
            missing[key] = path
    if missing:
        now, _problems = await read_contents(missing, plan.rules)
        for key, content in now.items():
            changed = await changed_while_running(Path(key), content, started_at, plan.rules)
            bound[key] = Binding(content.content_id, content.manifest, content, changed, False)
    return bound


async def _record(
    recorder: Recorder,
    plan: RunPlan,
    classification: Classification,
    finished: Finished,
    actor: Actor,
    bound: Mapping[str, Binding],
    *,
    observed: Observed | Callable[[Match], Observed],
    details: Mapping[str, Any] | None,
) -> list[Evidence]:
    """Record the receipts of a finished, classified run: one per match and root (`receipts_for`)."""

    def content_of(match: Match) -> Content | None:
        binding = bound.get(str(plan.root_of(match)))
        if binding is None:
            return None
        return Content(str(plan.root_of(match)), binding.content_id, binding.changed, binding.manifest)

    recorded: list[Evidence] = []
    for pending in receipts_for(classification, finished, actor, content_of, observed=observed):
        binding = bound[pending.content.root]
        how = {"content_bound": "start" if binding.exact else "clock"}
        pending.draft.details = {**(pending.draft.details or {}), **how, **(details or {})}
        evidence = await recorder.record(pending.draft, pending.content.manifest)
        if evidence is not None:
            recorded.append(evidence)
    return recorded


# ---- recording a run freshpass did not watch -------------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """What a pre-tool hook saw when a tool call started: when, the root, and its content id (None: unreadable)."""

    at: float
    root: str
    content_id: str | None


@dataclass(frozen=True)
class Report:
    """A run someone else watched, as they reported it."""

    line: str
    cwd: Path
    exit_code: int | None  # None: the report carries no exit status
    output: str
    actor: Actor
    via: str  # who reported it, in the receipt's details: "claude-code PostToolUse", "editor recordRun"
    received_at: float
    duration: float | None = None  # seconds, when the report says
    start: Start | None = None  # what the reporter's pre-tool hook saw
    paired: bool = False  # the reporter has a pre-tool hook: a report it never saw start is unconfirmed

    @property
    def started_at(self) -> float:
        if self.start is not None:
            return self.start.at
        return self.received_at - (self.duration or 0.0)


def exit_status(report: Report) -> int | None:
    """The exit status a report is judged by: the reported one, else 1 when the output states failing tests, else
    None (nothing is recorded: a summary saying tests passed does not prove the run passed)."""
    if report.exit_code is not None:
        return report.exit_code
    from freshpass.facts.tools import parse_test_counts

    counts = parse_test_counts(report.output)
    return 1 if counts is not None and counts.failed > 0 else None


def confirms(output: str, exit_code: int) -> bool:
    """Does a test run's output carry a test summary that agrees with its exit status (pytest's `N passed`,
    cargo's `test result: ok`, …)? Only such a reported pass is `reported` rather than `unconfirmed`."""
    from freshpass.facts.tools import parse_test_counts

    counts = parse_test_counts(output)
    if counts is None:
        return False
    if exit_code == 0:
        return counts.failed == 0 and counts.passed > 0
    return counts.failed > 0


async def record_reported(
    report: Report, *, recorder: Recorder | None = None, plan: RunPlan | None = None
) -> RunOutcome:
    """Record a reported run by the same classification as `run_check` (design §3, §7.2): nothing when it is not a
    recognised check, when its exit status is unknown and its output states no failure, when the program was not
    found (127), or when its project cannot be read."""
    plan = plan or await plan_run(report.cwd)
    outcome = RunOutcome(report.line, report.cwd, plan, exit_code=report.exit_code)
    if plan.not_recordable is not None:
        outcome.reason = plan.not_recordable
        return outcome
    exit_code = exit_status(report)
    outcome.exit_code = exit_code
    if exit_code is None:
        outcome.reason = "the report has no exit status, and its output states no failing test"
        return outcome
    if exit_code == NOT_FOUND_EXIT:
        from freshpass.runner.environment import missing_program

        program = missing_program(report.line, report.output, os.environ.get("PATH", ""), report.cwd)
        outcome.not_run = True
        outcome.message = f"`{program}` was not found" if program else "the command was not found"
        outcome.reason = f"it never ran: {outcome.message} (exit 127), so the status stays as it was"
        return outcome
    classification = await asyncio.to_thread(_classify, report.line, plan, exit_code, report.output)
    outcome.classification = classification
    if not classification.matches:
        outcome.reason = classification.reason or "not a recognised verify command"
        return outcome
    bound = await _bind_reported(plan, classification, report)
    if not bound:
        outcome.reason = "the project's content could not be read"
        return outcome
    outcome.after = {key: b.end for key, b in bound.items() if b.end is not None}

    def observed(match: Match) -> Observed:
        if report.paired and report.start is None:
            return "unconfirmed"
        if match.kind == "test" and exit_code == 0 and not confirms(report.output, exit_code):
            return "unconfirmed"
        return "reported"

    started = report.started_at if (report.duration is not None or report.start is not None) else report.received_at
    finished = Finished(report.line, str(report.cwd), exit_code, report.output, 0, started, report.received_at)
    details = {"via": report.via, **({} if report.exit_code is not None else {"exit_status": "from the output"})}
    own = recorder is None
    ledger = LedgerRecorder() if recorder is None else recorder
    try:
        outcome.receipts = await _record(
            ledger, plan, classification, finished, report.actor, bound, observed=observed, details=details
        )
    finally:
        if own:
            assert isinstance(ledger, LedgerRecorder)
            await ledger.close()
    if not outcome.receipts:
        outcome.reason = getattr(ledger, "problem", None) or "nothing to record"
    return outcome


async def _bind_reported(plan: RunPlan, classification: Classification, report: Report) -> dict[str, Binding]:
    """Each matched root's content now; bound to the start the pre-tool hook saw when it saw this root (exact),
    else to the content now, stale when a file was written since the estimated start (the clock rule)."""
    roots = {str(plan.root_of(match)): plan.root_of(match) for match in classification.matches}
    now, _problems = await read_contents(roots, plan.rules)
    bound: dict[str, Binding] = {}
    for key, content in now.items():
        start = report.start
        if start is not None and start.root == key and start.content_id:
            bound[key] = Binding(start.content_id, None, content, content.content_id != start.content_id, True)
        elif report.duration is not None or start is not None:
            changed = await changed_while_running(Path(key), content, report.started_at, plan.rules)
            bound[key] = Binding(content.content_id, content.manifest, content, changed, False)
        else:
            bound[key] = Binding(content.content_id, content.manifest, content, False, False)
    return bound


# ---- a recipe run (`freshpass verify`) -------------------------------------------------------------------------------


@dataclass
class RecipeOutcome:
    """What a recipe run came to: the runner's result, its receipt, or why none was recorded."""

    result: VerifyResult
    evidence: Evidence | None = None
    problem: str | None = None


def recipe_environment(plan: VerifyPlan, environ: Mapping[str, str] | None = None) -> RunEnvironment:
    """The project's run environment for a recipe's commands (design §5), as every other door runs checks."""
    from freshpass.facts.roots import find_root
    from freshpass.runner.environment import run_environment

    return run_environment(plan.root, find_root(plan.root) or plan.root, os.environ if environ is None else environ)


async def run_recipe(
    plan: VerifyPlan,
    facts: ProjectFacts,
    *,
    actor: Actor,
    line: str,
    canonical_command: str,
    environment: RunEnvironment,
    reporter: VerifyReporter | None = None,
    cancel: asyncio.Event | None = None,
    aborted: Callable[[VerifyResult], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> RecipeOutcome:
    """Run a recipe's phases in the project's environment and record one receipt for the run (kind `test` when
    test commands ran, else `check`; the plan's scope). `aborted` may mark the result before it is recorded (a
    signal stopped it)."""
    from freshpass.evidence.receipts import Content, receipt
    from freshpass.evidence.status import ContentRules
    from freshpass.ledger.content import ContentError
    from freshpass.runner.verify import run_verify

    rules = ContentRules.of(facts)
    tell = say or (lambda _text: None)
    try:
        before: ContentSnapshot | None = await asyncio.to_thread(rules.snapshot, plan.root)
    except ContentError as exc:
        before = None
        tell(f"cannot take the content id, no receipt will be recorded: {exc}")
    result = await run_verify(plan, reporter=reporter, cancel=cancel, base_env=environment.apply(os.environ))
    if aborted is not None:
        aborted(result)
    outcome = RecipeOutcome(result)
    if before is None:
        return outcome
    try:
        after = await asyncio.to_thread(rules.snapshot, plan.root)
    except ContentError as exc:
        outcome.problem = f"evidence not recorded: {exc}"
        return outcome
    kind, approved = _recipe_kind(plan, result, facts)
    draft = receipt(
        finished=Finished(
            line, str(plan.root), result.exit_code, result.output_text(), 0, result.started_at, result.finished_at,
            environment.to_json(),
        ),
        actor=actor,
        content=Content(str(plan.root), before.content_id, after.content_id != before.content_id),
        canonical_command=canonical_command,
        kind=kind,
        scope=plan.scope,
        status="passed" if result.passed else "failed",
        approved=approved,
        reason=_recipe_reason(result),
        details={"verify": result.to_json()},
    )  # fmt: skip
    async with LedgerRecorder(tell) as recorder:
        outcome.evidence = await recorder.record(draft, before.manifest)
        if outcome.evidence is None:
            outcome.problem = f"evidence not recorded: {recorder.problem}"
    return outcome


def _recipe_kind(plan: VerifyPlan, result: VerifyResult, facts: ProjectFacts) -> tuple[str, bool]:
    """(kind, approved) of a recipe run's receipt.

    `test` when a test command ran, unless every command of the test phase is one the project declares as a
    non-test check (lint, typecheck, …): then `check`. Approved when every command that ran is one the project
    declares, or the recipe itself was declared (config or a saved recipe).
    """
    declared = {(c.command, c.cwd): c.kind for c in facts.verify_commands}
    test_runs = [run for run in result.runs if run.phase == "test"]
    only_other_checks = all(declared.get((run.command, run.cwd), "test") != "test" for run in test_runs)
    kind = "test" if test_runs and not only_other_checks else "check"
    approved = not plan.recipe_source.startswith("detected") or all(
        (run.command, run.cwd) in declared for run in result.runs if run.phase in ("build", "test")
    )
    return kind, approved


def _recipe_reason(result: VerifyResult) -> str | None:
    """The receipt's reason: the run's, except that the receipt keeps the exit code beside it, so `exit code N`
    says which phase failed instead (editors show `failed (exit 1: the test phase failed)`, the code once)."""
    if result.reason and result.reason.startswith("exit code") and result.failed_phase:
        return f"the {result.failed_phase} phase failed"
    return result.reason
