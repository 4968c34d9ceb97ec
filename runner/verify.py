"""Run a recipe's phases (design §5): bootstrap → build → test → start, then readiness, then teardown.

`plan_verify` turns a recipe plus the caller's selection into a `VerifyPlan`, refusing what cannot run (an
unknown phase, a start without a port, a readiness URL that is not loopback) before anything executes.
`run_verify` then runs the selected phases in order through `run_shell` (stdin closed, one process group per
command), stops at the first failure, starts `start` only when every earlier selected phase passed, polls the
readiness URL while the app keeps running, and always tears the app's process group down. The CLI and the
language server both drive it; what they show is up to the `VerifyReporter` they pass.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freshpass.runner.process import DEFAULT_GRACE, OutputTail, ProcessResult, run_shell
from freshpass.runner.readiness import (
    Readiness,
    ReadinessError,
    ReadyTarget,
    port_taken,
    ready_target,
    wait_until_ready,
)

PHASES: tuple[str, ...] = ("bootstrap", "build", "test", "start")
DEFAULT_PHASE_TIMEOUT = 1800.0  # seconds; the `freshpass.verify.timeout` setting's default
DEFAULT_READY_TIMEOUT = 60.0
STOP_TIMEOUT = 120.0  # `docker compose down` and friends after the app is torn down
DETAIL_TAIL_CHARS = 2000  # output kept per command in the receipt's details

# `docker compose` / `docker-compose` in command position (line start or after an operator, past VAR=x
# assignments), so a mention such as `echo docker compose` is not a use.
_COMPOSE = re.compile(
    r"(?:^|&&|\|\||[;|(])\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(docker\s+compose|docker-compose)(?=\s|$)"
)


class VerifyPlanError(ValueError):
    """The selection cannot run: the message says what to change."""


@dataclass(frozen=True)
class PlannedCommand:
    phase: str
    command: str
    cwd: str  # relative to the root


@dataclass
class VerifyPlan:
    root: Path
    recipe_source: str
    declared: list[str]  # phases of the recipe that have commands
    selected: list[str]  # what this run executes, in order
    commands: dict[str, list[PlannedCommand]]
    env: dict[str, str]  # added to the environment of every command
    port: int | None
    target: ReadyTarget | None  # where readiness is polled (only when start is selected)
    timeouts: dict[str, float]
    ready_timeout: float
    stop: list[PlannedCommand]

    @property
    def scope(self) -> str:
        """`full` when every declared phase is selected; `--phase` and `--skip-start` make a run `targeted`."""
        return "full" if self.selected == self.declared else "targeted"

    def compose_commands(self) -> list[PlannedCommand]:
        return [c for phase in self.selected for c in self.commands[phase] if _COMPOSE.search(c.command)]


def plan_verify(
    root: Path,
    recipe: Mapping[str, Any],
    *,
    phases: Sequence[str] = (),
    skip_start: bool = False,
    timeout: float | None = None,
    ready_timeout: float | None = None,
    port: int | None = None,
) -> VerifyPlan:
    """Decide what runs. Raises `VerifyPlanError` for a selection that cannot run, before anything executes."""
    recipe_phases = recipe.get("phases") or {}
    commands = {
        phase: [PlannedCommand(phase, c["command"], c.get("cwd", ".")) for c in recipe_phases.get(phase) or []]
        for phase in PHASES
    }
    declared = [phase for phase in PHASES if commands[phase]]
    for phase in phases:
        if phase not in PHASES:
            raise VerifyPlanError(f"unknown phase {phase!r} (phases are {', '.join(PHASES)})")
        if not commands[phase]:
            have = ", ".join(declared) or "none"
            raise VerifyPlanError(f"the recipe has no {phase} commands (it declares: {have})")
    wanted = set(phases) if phases else set(declared)
    if skip_start:
        wanted.discard("start")
    selected = [phase for phase in PHASES if phase in wanted]
    if not selected:
        raise VerifyPlanError("nothing to run: the selection leaves no phase with commands")

    effective_port = port or recipe.get("port")
    target = None
    if "start" in selected:
        try:
            target = ready_target(recipe.get("ready_url"), recipe.get("port"), port_override=port)
        except ReadinessError as exc:
            raise VerifyPlanError(f"start `{commands['start'][0].command}`: {exc}") from None
        effective_port = target.port
    env = {str(k): str(v) for k, v in (recipe.get("env") or {}).items()}
    if effective_port:
        env["PORT"] = str(effective_port)

    recipe_timeouts = recipe.get("timeout") or {}
    timeouts = {phase: float(timeout or recipe_timeouts.get(phase) or DEFAULT_PHASE_TIMEOUT) for phase in PHASES}
    return VerifyPlan(
        root=root,
        recipe_source=str(recipe.get("source", "")),
        declared=declared,
        selected=selected,
        commands=commands,
        env=env,
        port=effective_port,
        target=target,
        timeouts=timeouts,
        ready_timeout=float(ready_timeout or recipe.get("ready_timeout") or DEFAULT_READY_TIMEOUT),
        stop=[PlannedCommand("stop", c["command"], c.get("cwd", ".")) for c in recipe.get("stop") or []],
    )


@dataclass
class CommandRun:
    """One command of one phase as it ran."""

    phase: str
    command: str
    cwd: str
    exit_code: int
    duration: float
    output: OutputTail
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None
    passed: bool = False
    notes: list[str] = field(default_factory=list)  # e.g. processes that escaped the group and were stopped

    @classmethod
    def from_process(cls, planned: PlannedCommand, result: ProcessResult) -> CommandRun:
        return cls(
            phase=planned.phase,
            command=planned.command,
            cwd=planned.cwd,
            exit_code=result.exit_code,
            duration=result.duration,
            output=result.output,
            timed_out=result.timed_out,
            cancelled=result.cancelled,
            error=result.error,
            passed=result.exit_code == 0 and not result.aborted,
            notes=result.notes(),
        )

    def output_tail(self, chars: int = DETAIL_TAIL_CHARS) -> str:
        return self.output.text()[-chars:]

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "command": self.command,
            "cwd": self.cwd,
            "exit_code": self.exit_code,
            "duration": round(self.duration, 3),
            "passed": self.passed,
            "timed_out": self.timed_out,
            "cancelled": self.cancelled,
            "output_tail": self.output_tail(),
            "notes": list(self.notes),
        }


@dataclass
class VerifyResult:
    plan: VerifyPlan
    started_at: float
    finished_at: float = 0.0
    runs: list[CommandRun] = field(default_factory=list)
    readiness: Readiness | None = None
    passed: bool = False
    failed_phase: str | None = None
    reason: str | None = None  # short and stable: "aborted", "exit code 2", "not ready", "start exited"
    detail: str | None = None  # what a person needs to know to act on it

    @property
    def ran_phases(self) -> list[str]:
        return list(dict.fromkeys(run.phase for run in self.runs if run.phase in PHASES))

    @property
    def aborted(self) -> bool:
        return self.reason == "aborted"

    @property
    def exit_code(self) -> int:
        """The exit code that best summarises the run (the failing command's, 0 when everything passed)."""
        if self.passed:
            return 0
        failing = next((run for run in self.runs if run.phase == self.failed_phase and not run.passed), None)
        if failing is not None and failing.phase != "start":
            return failing.exit_code
        return 1

    def output_text(self) -> str:
        """Every command's output, each under a header line, for the receipt's bounded output summary."""
        combined = OutputTail()
        for run in self.runs:
            combined.add(f"== {run.phase}: {run.command} (exit {run.exit_code}, {run.duration:.1f}s)\n")
            text = run.output.text()
            combined.add(text if text.endswith("\n") or not text else text + "\n")
        if self.readiness is not None:
            state = "ready" if self.readiness.ready else "not ready"
            combined.add(f"== readiness: {self.readiness.url}: {state} ({self.readiness.last_status})\n")
        return combined.text()

    def to_json(self) -> dict[str, Any]:
        return {
            "root": str(self.plan.root),
            "recipe_source": self.plan.recipe_source,
            "status": "passed" if self.passed else "failed",
            "scope": self.plan.scope,
            "reason": self.reason,
            "detail": self.detail,
            "failed_phase": self.failed_phase,
            "declared_phases": self.plan.declared,
            "selected_phases": self.plan.selected,
            "ran_phases": self.ran_phases,
            "port": self.plan.port,
            "duration": round(self.finished_at - self.started_at, 3),
            "commands": [run.to_json() for run in self.runs],
            "readiness": self.readiness.to_json() if self.readiness else None,
        }


class VerifyReporter:
    """What a caller sees of a run as it happens. The defaults ignore everything."""

    def command_started(self, planned: PlannedCommand, index: int, total: int) -> None:
        """`index` counts from 1 over every command this run selected (`total`)."""

    def output(self, phase: str, stream: str, text: str) -> None:
        """A chunk of live output of the running command."""

    def command_finished(self, run: CommandRun) -> None:
        """A command ended (passed or not)."""

    def readiness_status(self, url: str, status: str, attempt: int) -> None:
        """One readiness probe's answer ("HTTP 500", "connection refused", …)."""

    def finished(self, result: VerifyResult) -> None:
        """The whole run ended and everything it started is gone."""


def _tail_lines(text: str, lines: int = 12) -> str:
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(kept)


async def run_verify(
    plan: VerifyPlan,
    *,
    reporter: VerifyReporter | None = None,
    cancel: asyncio.Event | None = None,
    base_env: Mapping[str, str] | None = None,
    grace: float = DEFAULT_GRACE,
) -> VerifyResult:
    """Run `plan`; returns only after every process it started is gone (also when it is cancelled)."""
    reporter = reporter or VerifyReporter()
    cancel = cancel or asyncio.Event()
    env = {**(os.environ if base_env is None else base_env), **plan.env}
    result = VerifyResult(plan=plan, started_at=time.time())
    total = sum(len(plan.commands[phase]) for phase in plan.selected)
    index = 0
    try:
        for phase in plan.selected:
            for planned in plan.commands[phase]:
                index += 1
                reporter.command_started(planned, index, total)
                if phase == "start":
                    try:
                        run = await _run_start(plan, planned, env, reporter, cancel, grace, result)
                        result.runs.append(run)
                        reporter.command_finished(run)
                    finally:
                        # The app is gone; what it left outside its process group (containers) goes now.
                        await asyncio.shield(_run_stop_commands(plan, env, reporter, grace, result))
                else:
                    process = await run_shell(
                        planned.command,
                        plan.root / planned.cwd,
                        env=env,
                        on_output=functools.partial(reporter.output, phase),
                        timeout=plan.timeouts[phase],
                        cancel=cancel,
                        grace=grace,
                    )
                    run = CommandRun.from_process(planned, process)
                    if not run.passed:
                        _explain_failure(result, run, plan.timeouts[phase])
                    result.runs.append(run)
                    reporter.command_finished(run)
                if not run.passed:
                    result.failed_phase = phase
                    return result
        result.passed = True
        return result
    finally:
        result.finished_at = time.time()
        reporter.finished(result)


def _explain_failure(result: VerifyResult, run: CommandRun, timeout: float) -> None:
    if run.timed_out:
        result.reason = "aborted"
        result.detail = f"{run.phase}: `{run.command}` timed out after {timeout:g}s; its process group was killed"
    elif run.cancelled:
        result.reason = "aborted"
        result.detail = f"{run.phase}: `{run.command}` was cancelled; its process group was killed"
    elif run.error:
        result.reason = "cannot start"
        result.detail = f"{run.phase}: {run.error}"
    else:
        result.reason = f"exit code {run.exit_code}"
        result.detail = f"{run.phase}: `{run.command}` exited with code {run.exit_code}"


async def _run_start(
    plan: VerifyPlan,
    planned: PlannedCommand,
    env: dict[str, str],
    reporter: VerifyReporter,
    cancel: asyncio.Event,
    grace: float,
    result: VerifyResult,
) -> CommandRun:
    assert plan.target is not None  # plan_verify resolves a target whenever start is selected
    target = plan.target
    taken_by = await asyncio.to_thread(port_taken, target)
    if taken_by is not None:
        result.reason = "port in use"
        result.detail = (
            f"start: port {target.port} on {taken_by} already accepts connections before the app started, so "
            "readiness could not tell the app from whatever holds it; stop that process or pass --port N"
        )
        now = time.time()
        process = ProcessResult(exit_code=1, started_at=now, finished_at=now, error=result.detail)
        return CommandRun.from_process(planned, process)
    stop_app = asyncio.Event()
    app = asyncio.create_task(
        run_shell(
            planned.command,
            plan.root / planned.cwd,
            env=env,
            on_output=lambda stream, text: reporter.output("start", stream, text),
            cancel=stop_app,
            grace=grace,
        )
    )
    cancelled = asyncio.create_task(cancel.wait())
    app_or_cancel = asyncio.ensure_future(asyncio.wait({app, cancelled}, return_when=asyncio.FIRST_COMPLETED))
    try:
        readiness = await wait_until_ready(
            target,
            timeout=plan.ready_timeout,
            stop=app_or_cancel,
            on_status=lambda status, attempt: reporter.readiness_status(target.url, status, attempt),
        )
        exited_early = app.done()
    finally:
        # Whatever happened (ready, not ready, app gone, cancelled, our caller cancelled): tear the app down.
        stop_app.set()
        process = await asyncio.shield(app)
        cancelled.cancel()
        app_or_cancel.cancel()
    result.readiness = readiness
    run = CommandRun.from_process(planned, process)
    run.cancelled = cancel.is_set()
    run.passed = readiness.ready and not exited_early and not run.cancelled
    if run.cancelled:
        result.reason = "aborted"
        result.detail = f"start: cancelled while waiting for {target.url}; the app's process group was killed"
    elif exited_early:
        tail = _tail_lines(process.output.text()) or "(no output)"
        result.reason = "start exited"
        result.detail = f"start: `{planned.command}` exited with code {process.exit_code} before it was ready:\n{tail}"
    elif not readiness.ready:
        result.reason = "not ready"
        result.detail = (
            f"start: {target.url} was not ready after {plan.ready_timeout:g}s (last seen: {readiness.last_status})"
        )
    return run


async def _run_stop_commands(
    plan: VerifyPlan, env: dict[str, str], reporter: VerifyReporter, grace: float, result: VerifyResult
) -> None:
    for planned in plan.stop:
        reporter.command_started(planned, 0, 0)
        process = await run_shell(
            planned.command,
            plan.root / planned.cwd,
            env=env,
            on_output=lambda stream, text: reporter.output("stop", stream, text),
            timeout=STOP_TIMEOUT,
            grace=grace,
        )
        run = CommandRun.from_process(planned, process)
        result.runs.append(run)
        reporter.command_finished(run)
        if not run.passed:
            # The verdict stands (it is about the app), but a person must know something may still be running.
            note = f"stop: `{planned.command}` failed (exit {run.exit_code}); what it stops may still be running"
            result.detail = f"{result.detail}\n{note}" if result.detail else note


async def compose_preflight(plan: VerifyPlan, base_env: Mapping[str, str] | None = None) -> str | None:
    """Why this run must not touch docker compose, or None when it may (or does not use compose at all).

    A verify run rebuilds and restarts the project's containers; when some are already running (the developer's
    own stack) that would clobber their work, so the run is refused instead.
    """
    uses = plan.compose_commands()
    if not uses:
        return None
    env = dict(os.environ if base_env is None else base_env)
    env.update(plan.env)
    checked: set[tuple[str, str]] = set()
    for planned in uses:
        match = _COMPOSE.search(planned.command)
        assert match is not None
        program = "docker-compose" if match.group(1) == "docker-compose" else "docker"
        if (program, planned.cwd) in checked:
            continue
        checked.add((program, planned.cwd))
        executable = shutil.which(program, path=env.get("PATH"))
        if executable is None:
            return f"the recipe runs `{planned.command}` but {program} is not installed (not found on PATH)"
        argv = [executable, *([] if program == "docker-compose" else ["compose"]), "ps", "-q"]
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=plan.root / planned.cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout=30)
        except (OSError, asyncio.TimeoutError) as exc:
            if isinstance(exc, asyncio.TimeoutError):
                proc.kill()
                await proc.wait()
                return f"`{' '.join([program, *argv[1:]])}` did not answer within 30s: is the Docker engine up?"
            return f"cannot run {program}: {exc}"
        if proc.returncode != 0:
            message = (stderr or stdout).decode("utf-8", "replace").strip().splitlines()
            first = message[0] if message else f"exit code {proc.returncode}"
            if re.search(r"daemon|engine|docker\.sock|Is the docker", first, re.IGNORECASE):
                return f"{program} is installed but its engine is not reachable ({first}); start Docker and retry"
            return f"`{' '.join([program, *argv[1:]])}` failed in {planned.cwd}: {first}"
        running = [line for line in stdout.decode("utf-8", "replace").split() if line]
        if running:
            return (
                f"docker compose project in {planned.cwd} has {len(running)} running container(s): freshpass will "
                "not rebuild or restart them; stop them first (`docker compose down`) or select other phases "
                "(--phase test, --skip-start)"
            )
    return None
