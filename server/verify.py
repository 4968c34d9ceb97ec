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

from freshpass.evidence.receipts import Actor, Content, Finished, receipts_for
from freshpass.facts.admission import Refused, admit
from freshpass.runner.environment import (
    FIX_IN_EDITOR,
    RunEnvironment,
    missing_program,
    not_found_message,
    run_environment,
)
from freshpass.runner.process import DEFAULT_GRACE, ProcessResult, run_shell
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
        backend = self.server.backend
        settings = self.server.settings
        before = await backend.snapshot(root.path, root.facts)
        if before is None:
            raise request_failed(f"cannot read the content of {root.path}; see the log")
        workspace = root
        while workspace.parent is not None:  # a package's environment may be the workspace's (a uv workspace)
            workspace = workspace.parent
        environment = await asyncio.to_thread(
            run_environment,
            plan.cwd,
            workspace.path,
            os.environ,
            interpreter=self.server.python_interpreter,
            extra_path=settings.verify_path,
        )
        run = RunningVerify(run_id=uuid.uuid4().hex[:12], root=root, command=plan.line)
        self.running[run.run_id] = run
        progress = await self._begin_progress(run)
        outcome = "interrupted"
        message: str | None = None
        try:
            self._tell_environment(run, environment)
            try:
                result = await run_shell(
                    plan.line,
                    plan.cwd,
                    env=environment.apply(os.environ),
                    on_output=lambda stream, text: self._output(run, progress, stream, text),
                    timeout=settings.verify_timeout,
                    cancel=run.cancel,
                    on_start=lambda pgid: self._started(run, progress, pgid),
                )
            finally:
                run.stopped.set()
            for note in result.notes():
                self.server.log(types.MessageType.Warning, f"freshpass: `{plan.line}`: {note}")
            outcome = (
                "cancelled" if result.cancelled else "timed out" if result.timed_out else f"exit {result.exit_code}"
            )
            not_found = None
            if result.exit_code == 127 and not result.aborted:
                not_found = missing_program(plan.line, result.output.text(), environment.path, plan.cwd)
                message = not_found_message(not_found, environment, FIX_IN_EDITOR)
                self._announce(run, message, types.MessageType.Warning)
            after = await backend.snapshot(root.path, root.facts)
            stale = after is None or after.content_id != before.content_id
            evidence, classification = await self._record(
                root,
                plan.line,
                plan.cwd,
                result,
                before.content_id,
                before.manifest,
                stale_at_record=stale,
                environment=environment.to_json(not_found=not_found),
            )
        finally:
            self.running.pop(run.run_id, None)
            self._end_progress(progress, f"{plan.line}: {outcome}")
        self.server.log(types.MessageType.Info, f"freshpass: `{plan.line}` finished ({outcome}) in {root.path}")
        await self.server.tracker.refresh_now(root)
        return {
            "evidence": evidence.to_json() if evidence is not None else None,
            "status": root.status.to_json(),
            "recorded": evidence is not None,
            "exitCode": result.exit_code,
            "runId": run.run_id,
            "classification": classification.to_json(),
            "message": message,  # what a person should read besides the receipt (why a program was not found)
        }

    async def _record(
        self,
        root: RootState,
        line: str,
        cwd: Path,
        result: ProcessResult,
        content_id: str,
        manifest: Mapping[str, str] | None,
        *,
        stale_at_record: bool,
        session: str | None = None,
        environment: Mapping[str, Any] | None = None,
    ) -> tuple[Any, Any]:
        from freshpass.facts.classify import classify

        classification = await asyncio.to_thread(
            classify,
            line,
            cwd=str(cwd),
            root=str(root.path),
            facts=root.facts,
            exit_code=result.exit_code,
            output=result.output.text(),
        )
        finished = Finished(
            line,
            str(cwd),
            result.exit_code,
            result.output.text(),
            result.output.omitted,
            result.started_at,
            result.finished_at,
            environment,
        )
        actor = Actor("agent" if self.server.is_agent else "editor", session or self.server.session_id)
        content = Content(str(root.path), content_id, stale_at_record, manifest)
        drafts = receipts_for(classification, finished, actor, lambda _match: content)
        recorded = [await self.server.backend.record(pending.draft, manifest) for pending in drafts]
        receipts = [receipt for receipt in recorded if receipt is not None]
        # The headline receipt: the test one when the line ran tests (matches the classification's headline).
        headline = next((r for r in receipts if r.kind == classification.kind), receipts[0] if receipts else None)
        return headline, classification

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
        output = params.get("output") if isinstance(params.get("output"), str) else ""
        session = params.get("sessionId") if isinstance(params.get("sessionId"), str) else None
        cwd_path = absolute(cwd)
        root = self.server.root_for_path(cwd_path)
        if root is None:
            from freshpass.facts.classify import classify

            classification = classify(line, cwd=str(cwd_path), exit_code=exit_code, output=output)
            return {**classification.to_json(), "recorded": False, "why": f"{cwd} is under no workspace root"}
        if not root.refreshed.is_set():
            await root.refreshed.wait()
        now = time.time()
        result = ProcessResult(exit_code=exit_code, started_at=now, finished_at=now)
        result.output.add(output or "")
        settings = self.server.settings
        snap = await self.server.backend.snapshot(root.path, root.facts)
        if not settings.terminal_evidence or snap is None:
            from freshpass.facts.classify import classify

            classification = classify(
                line, cwd=str(cwd_path), root=str(root.path), facts=root.facts, exit_code=exit_code, output=output
            )
            why = "terminalEvidence is off" if snap is not None else "the root's content cannot be read"
            return {**classification.to_json(), "recorded": False, "why": why}
        evidence, classification = await self._record(
            root, line, cwd_path, result, snap.content_id, snap.manifest, stale_at_record=False, session=session
        )
        if evidence is not None:
            await self.server.tracker.refresh_now(root)
        return {**classification.to_json(), "recorded": evidence is not None}

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

    def _tell_environment(self, run: RunningVerify, environment: RunEnvironment) -> None:
        """What the run's environment adds, and the odd shapes passed over, before the command's own output."""
        summary = environment.summary()
        if summary:
            self._announce(run, summary, types.MessageType.Info)
        for note in environment.notes:
            self._announce(run, note, types.MessageType.Warning)

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
