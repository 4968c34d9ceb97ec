"""One-click verify: `freshpass.verify`, `freshpass.cancel`, `freshpass.receipts` and `freshpass/recordRun`.

A verify runs only because a person or agent asked (a lens click, a code action, an executeCommand request). It
goes through the shared runner (one process group, torn down on cancel or timeout), reports `$/progress` when the
client supports server-initiated progress (cancellable from the editor), streams its output as `freshpass/output`
notifications and log lines, classifies the finished run (design §3) so kind, scope and status mean what they mean
everywhere else, and records the receipt against the content id taken when it started: if the content changed
while it ran, the receipt is recorded already stale. Then the root is refreshed, which updates diagnostics, lenses
and `freshpass/statusChanged`.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.evidence.runs import DEFAULT_GRACE, Actor, Report, plan_run, record_reported, run_check
from freshpass.facts.admission import Refused, admit
from freshpass.facts.roots import find_package_root
from freshpass.runner.environment import FIX_IN_EDITOR
from freshpass.server.feature import Feature, Handler
from freshpass.server.lenses import targeted_command
from freshpass.server.state import RootState
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

LSP_REQUEST_FAILED = -32803
PROGRESS_REPORT_INTERVAL = 0.25  # seconds between two `report`s: output can arrive thousands of times a second
SHUTDOWN_TEARDOWN_TIMEOUT = DEFAULT_GRACE + 5.0  # TERM, the grace, KILL, and the kernel reaping
MAX_DURATION_MS = 7 * 24 * 3600 * 1000  # a reported run's duration beyond a week is not believed


def absolute(path: str) -> Path:
    return Path(os.path.abspath(path))


def request_failed(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=LSP_REQUEST_FAILED)


def first_argument(arguments: tuple[Any, ...]) -> dict[str, Any]:
    """`[{…}]` is the documented shape; tolerate a bare object and no argument at all."""
    if not arguments or arguments[0] is None:
        return {}
    if isinstance(arguments[0], Mapping):
        return dict(arguments[0])
    raise JsonRpcInvalidParams(f"expected one object argument, got {type(arguments[0]).__name__}")


@dataclass
class RunningVerify:
    run_id: str
    root: RootState
    command: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    pgid: int | None = None
    stopped: asyncio.Event = field(default_factory=asyncio.Event)  # its processes are gone (torn down or exited)


@dataclass
class Plan:
    line: str
    cwd: Path


class VerifyFeature(Feature):
    name = "verify"

    def __init__(self, server: FreshpassServer) -> None:
        super().__init__(server)
        self.running: dict[str, RunningVerify] = {}

    def commands(self) -> dict[str, Handler]:
        return {
            "freshpass.verify": self.verify,
            "freshpass.cancel": self.cancel,
            "freshpass.receipts": self.receipts,
        }

    def requests(self) -> dict[str, Handler]:
        return {"freshpass/recordRun": self.record_run}

    async def on_shutdown(self) -> None:
        """Cancel every run and wait until its processes are gone (the runner's TERM, grace, KILL), so that a
        server leaving — `shutdown`, `exit`, SIGTERM, SIGHUP — never leaves a command running."""
        runs = list(self.running.values())
        for run in runs:
            run.cancel.set()
        if runs:
            await asyncio.wait(
                [asyncio.ensure_future(run.stopped.wait()) for run in runs], timeout=SHUTDOWN_TEARDOWN_TIMEOUT
            )

    # ---- planning ------------------------------------------------------------------------------------------------

    async def _root(self, args: Mapping[str, Any]) -> RootState:
        root = await self.server.resolve_root(root=args.get("root"), uri=args.get("uri"))
        if root is None:
            where = args.get("root") or args.get("uri")
            raise request_failed(f"no freshpass root holds {where}" if where else "no workspace root is open")
        return root

    def plan(self, root: RootState, args: Mapping[str, Any]) -> Plan:
        extra = args.get("args") or []
        if not isinstance(extra, list) or not all(isinstance(item, str) for item in extra):
            raise JsonRpcInvalidParams("`args` must be a list of strings")
        command = args.get("command")
        if command is not None and not isinstance(command, str):
            raise JsonRpcInvalidParams("`command` must be a string")
        if not command and args.get("targeted"):
            document = self.server.document(args["uri"]) if isinstance(args.get("uri"), str) else None
            if document is None:
                raise request_failed("a targeted verify needs the `uri` of a file under a root")
            command = targeted_command(root, document)
            if not command:
                raise request_failed(f"no obvious targeted check for {document.relative}; run the full command")
        declared = None
        if not command:
            kind = args.get("kind") or "test"
            declared = next((c for c in root.verify_commands() if c.kind == kind), None)
            if declared is None:
                kinds = sorted({c.kind for c in root.verify_commands()})
                raise request_failed(
                    f"{root.path} declares no `{kind}` command"
                    + (f" (it declares: {', '.join(kinds)})" if kinds else "")
                    + "; add one under [tool.freshpass] verify in pyproject.toml or .freshpass.toml"
                )
            command = declared.command
        else:
            declared = next((c for c in root.verify_commands() if c.command == command), None)
        line = command + ("" if not extra else " " + shlex.join(extra))
        cwd = root.path / declared.cwd if declared is not None else root.path
        if args.get("command") is not None or extra:
            # the client wrote (part of) the line: it runs only as one approved check, never as a shell line
            admitted = admit(line, cwd=cwd, facts=root.facts)
            if isinstance(admitted, Refused):
                raise request_failed(admitted.reason)
        return Plan(line=line, cwd=cwd)

    # ---- commands ------------------------------------------------------------------------------------------------

    async def verify(self, *arguments: Any) -> dict[str, Any]:
        args = first_argument(arguments)
        root = await self._root(args)
        if not self.server.trusted:
            raise request_failed(
                f"{root.path} is not a trusted workspace: freshpass runs nothing there (trust it to verify)"
            )
        if not root.refreshed.is_set():
            await root.refreshed.wait()
        plan = self.plan(root, args)
        workspace = root
        while workspace.parent is not None:  # a package's environment may be the workspace's (a uv workspace)
            workspace = workspace.parent
        run_plan = await plan_run(plan.cwd, root=workspace.path, package_root=root.path, facts=root.facts)
        run = RunningVerify(run_id=uuid.uuid4().hex[:12], root=root, command=plan.line)
        self.running[run.run_id] = run
        progress = await self._begin_progress(run)
        said = "interrupted"
        try:
            try:
                outcome = await run_check(
                    plan.line,
                    plan.cwd,
                    actor=self._actor(),
                    recorder=self.server.backend,
                    plan=run_plan,
                    interpreter=self.server.python_interpreter,
                    extra_path=self.server.settings.verify_path,
                    fix=FIX_IN_EDITOR,
                    say=lambda text: self._announce(run, text, types.MessageType.Info),
                    timeout=self.server.settings.verify_timeout,
                    cancel=run.cancel,
                    on_output=lambda stream, text: self._output(run, progress, stream, text),
                    on_start=lambda pgid: self._started(run, progress, pgid),
                )
            finally:
                run.stopped.set()
            result = outcome.result
            assert result is not None and outcome.classification is not None
            said = "cancelled" if result.cancelled else "timed out" if result.timed_out else f"exit {result.exit_code}"
        finally:
            self.running.pop(run.run_id, None)
            self._end_progress(progress, f"{plan.line}: {said}")
        self.server.log(types.MessageType.Info, f"freshpass: `{plan.line}` finished ({said}) in {root.path}")
        await self._refresh(root, outcome.receipts)
        evidence = outcome.headline
        return {
            "evidence": evidence.to_json() if evidence is not None else None,
            "status": root.status.to_json(),
            "recorded": evidence is not None,
            "exitCode": result.exit_code,
            "command": plan.line,
            "runId": run.run_id,
            "classification": outcome.classification.to_json(),
            "message": outcome.message,  # what a person should read besides the receipt (why a program was not found)
        }

    def _actor(self, session: str | None = None) -> Actor:
        return Actor("agent" if self.server.is_agent else "editor", session or self.server.session_id)

    async def _refresh(self, root: RootState, receipts: list[Any]) -> None:
        """Refresh the root, and every other root a receipt was recorded for (a package of the workspace)."""
        refreshed = [root]
        await self.server.tracker.refresh_now(root)
        for receipt in receipts:
            other = self.server.find_root(root=receipt.root)
            if other is not None and all(other is not done for done in refreshed):
                refreshed.append(other)
                await self.server.tracker.refresh_now(other)

    async def cancel(self, *arguments: Any) -> dict[str, Any]:
        args = first_argument(arguments)
        root = self.server.find_root(root=args["root"]) if args.get("root") else None
        cancelled = [run.run_id for run in self.running.values() if root is None or run.root is root]
        for run_id in cancelled:
            self.running[run_id].cancel.set()
        return {"cancelled": len(cancelled), "runIds": cancelled}

    async def receipts(self, *arguments: Any) -> dict[str, Any]:
        args = first_argument(arguments)
        root = await self._root(args)
        limit = args.get("limit", 50)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise JsonRpcInvalidParams("`limit` must be a positive whole number")
        receipts = await self.server.backend.receipts(root.path, limit)
        return {"root": str(root.path), "receipts": [receipt.to_json() for receipt in receipts]}

    async def record_run(self, params: Any) -> dict[str, Any]:
        """Terminal evidence from an editor (e.g. VS Code shell integration): classify, and record when it counts."""
        if not isinstance(params, Mapping):
            raise JsonRpcInvalidParams("freshpass/recordRun expects {commandLine, cwd, exitCode, output?, sessionId?}")
        line, cwd, exit_code = params.get("commandLine"), params.get("cwd"), params.get("exitCode")
        if not isinstance(line, str) or not isinstance(cwd, str) or not isinstance(exit_code, int):
            raise JsonRpcInvalidParams("freshpass/recordRun needs commandLine (string), cwd (string), exitCode (int)")
        output = params["output"] if isinstance(params.get("output"), str) else ""
        session = params["sessionId"] if isinstance(params.get("sessionId"), str) else None
        duration = params.get("durationMs")
        if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not 0 <= duration <= MAX_DURATION_MS:
            duration = None
        cwd_path = absolute(cwd)
        root = self.server.root_for_path(cwd_path)

        def explained(why: str, root: Path | None = None, facts: Any = None) -> dict[str, Any]:
            from freshpass.facts.classify import classify

            said = classify(line, cwd=str(cwd_path), root=root, facts=facts, exit_code=exit_code, output=output)
            return {**said.to_json(), "recorded": False, "why": why}

        if root is None:
            return explained(f"{cwd} is under no workspace root")
        if not root.refreshed.is_set():
            await root.refreshed.wait()
        if not self.server.settings.terminal_evidence:
            return explained("terminalEvidence is off", root.path, root.facts)
        if not self.server.trusted and await self.server.backend.runs_git(root.path):
            # A receipt names the content it ran against, and a git root's content id is computed by git.
            return explained(
                "the workspace is not trusted: freshpass runs nothing there (not even git), so the content the run "
                "covered cannot be named",
                root.path,
                root.facts,
            )
        # The receipt belongs to the package holding the directory (as `freshpass run` there would record it).
        workspace = root
        while workspace.parent is not None:
            workspace = workspace.parent
        package = find_package_root(cwd_path, workspace.path)
        known = self.server.find_root(root=str(package))
        facts = known.facts if known is not None and known.path == package else None
        run_plan = await plan_run(cwd_path, root=workspace.path, package_root=package, facts=facts)
        report = Report(
            line,
            cwd_path,
            exit_code,
            output,
            self._actor(session),
            via="editor recordRun",
            received_at=time.time(),
            duration=duration / 1000 if duration is not None else None,
        )
        outcome = await record_reported(report, recorder=self.server.backend, plan=run_plan)
        if outcome.receipts:
            await self._refresh(root, outcome.receipts)
        if outcome.classification is None:
            return explained(outcome.reason, package, run_plan.facts)
        answer = {**outcome.classification.to_json(), "recorded": outcome.recorded}
        if not outcome.recorded:
            answer["why"] = outcome.reason
        return answer

    # ---- progress and output -------------------------------------------------------------------------------------

    async def _begin_progress(self, run: RunningVerify) -> _Progress | None:
        if not self.server.capability("window.work_done_progress"):
            return None
        token = f"freshpass-verify-{run.run_id}"
        progress = self.server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception as exc:
            self.server.log(types.MessageType.Log, f"freshpass: the client refused a progress bar: {exc}")
            return None
        progress.begin(
            token,
            types.WorkDoneProgressBegin(title="freshpass", message=f"running {run.command}", cancellable=True),
        )
        future = progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: run.cancel.set() if f.cancelled() else None)
        return _Progress(token=token, last_report=0.0)

    def _started(self, run: RunningVerify, progress: _Progress | None, pgid: int) -> None:
        run.pgid = pgid
        if progress is not None:
            self.server.work_done_progress.report(
                progress.token, types.WorkDoneProgressReport(message=f"started `{run.command}`", cancellable=True)
            )

    def _announce(self, run: RunningVerify, text: str, level: types.MessageType) -> None:
        """A line of freshpass's own in the run's output (stream `freshpass`) and in the log."""
        self.server.protocol.notify(
            "freshpass/output",
            {
                "root": str(run.root.path),
                "runId": run.run_id,
                "command": run.command,
                "stream": "freshpass",
                "text": f"freshpass: {text}\n",
            },
        )
        self.server.log(level, f"freshpass: {text}")

    def _output(self, run: RunningVerify, progress: _Progress | None, stream: str, text: str) -> None:
        self.server.protocol.notify(
            "freshpass/output",
            {"root": str(run.root.path), "runId": run.run_id, "command": run.command, "stream": stream, "text": text},
        )
        self.server.log(types.MessageType.Log, text.rstrip("\n"))
        if progress is not None:
            now = time.monotonic()
            last_line = next((line for line in reversed(text.splitlines()) if line.strip()), "")
            if last_line and now - progress.last_report >= PROGRESS_REPORT_INTERVAL:
                progress.last_report = now
                self.server.work_done_progress.report(
                    progress.token, types.WorkDoneProgressReport(message=last_line[:120], cancellable=True)
                )

    def _end_progress(self, progress: _Progress | None, message: str) -> None:
        if progress is None:
            return
        work = self.server.work_done_progress
        work.end(progress.token, types.WorkDoneProgressEnd(message=message))
        work.tokens.pop(progress.token, None)


@dataclass
class _Progress:
    token: str
    last_report: float
