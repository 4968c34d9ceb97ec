"""Showing a verify run in a terminal: a live progress line on a TTY, plain prefixed lines otherwise.

Both reporters print whole lines only (a partial line waits for its newline or the end of its command), so output
of a command never interleaves mid-line with freshpass's own lines, and logs stay greppable by `[phase]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TextIO

from freshpass.runner.terminal import safe
from freshpass.runner.verify import CommandRun, PlannedCommand, VerifyReporter, VerifyResult

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class _LineBuffer:
    """Splits streamed chunks into whole lines, per (phase, stream)."""

    def __init__(self) -> None:
        self._partial: dict[tuple[str, str], str] = {}

    def feed(self, phase: str, stream: str, text: str) -> list[str]:
        key = (phase, stream)
        data = self._partial.pop(key, "") + text
        lines = data.split("\n")
        if lines[-1]:
            self._partial[key] = lines[-1]
        return lines[:-1]

    def drain(self, phase: str) -> list[str]:
        rest = [self._partial.pop(key) for key in list(self._partial) if key[0] == phase]
        return [line for line in rest if line]


def _outcome(run: CommandRun) -> str:
    if run.passed:
        return f"passed in {run.duration:.1f}s"
    if run.timed_out:
        return f"timed out after {run.duration:.1f}s (aborted)"
    if run.cancelled:
        return "cancelled (aborted)"
    if run.error:
        return f"not started: {safe(run.error.splitlines()[0])}"
    if run.phase == "start":
        return f"stopped (exit {run.exit_code}) after {run.duration:.1f}s"
    return f"failed with exit code {run.exit_code} after {run.duration:.1f}s"


class PlainReporter(VerifyReporter):
    """Every line prefixed with its phase: for logs, CI and pipes."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lines = _LineBuffer()
        self._last_ready_status: str | None = None

    def _write(self, line: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.out.write(line + "\n")
            self.out.flush()

    def command_started(self, planned: PlannedCommand, index: int, total: int) -> None:
        counter = f" ({index}/{total})" if total else ""
        where = f"  # in {safe(planned.cwd)}" if planned.cwd != "." else ""
        self._write(f"[{planned.phase}] $ {safe(planned.command)}{counter}{where}")

    def output(self, phase: str, stream: str, text: str) -> None:
        for line in self.lines.feed(phase, stream, text):
            self._write(f"[{phase}] {line}")

    def command_finished(self, run: CommandRun) -> None:
        for line in self.lines.drain(run.phase):
            self._write(f"[{run.phase}] {line}")
        mark = "✓" if run.passed else "✗"
        self._write(f"[{run.phase}] {mark} {_outcome(run)}")
        for note in run.notes:
            self._write(f"[{run.phase}] ! {safe(note)}")

    def readiness_status(self, url: str, status: str, attempt: int) -> None:
        if status != self._last_ready_status:
            self._last_ready_status = status
            self._write(f"[start] {safe(url)}: {safe(status)}")


class TtyReporter(VerifyReporter):
    """Command output as it comes, with one status line kept at the bottom (spinner, step, elapsed, readiness)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lines = _LineBuffer()
        self._current: PlannedCommand | None = None
        self._step = ""
        self._started = time.monotonic()
        self._ready_status = ""
        self._frame = 0
        self._ticker: asyncio.Task[None] | None = None

    def _status_line(self) -> str:
        if self._current is None:
            return ""
        elapsed = time.monotonic() - self._started
        spinner = _SPINNER[self._frame % len(_SPINNER)]
        ready = f" · {self._ready_status}" if self._ready_status else ""
        command = safe(self._current.command)
        line = f"{spinner} {self._step}{self._current.phase}: {command} · {elapsed:.0f}s{ready}"
        return line[:200]

    def _emit(self, text: str = "") -> None:
        with contextlib.suppress(OSError, ValueError):
            status = self._status_line()
            self.out.write("\r\x1b[K" + text + (f"\x1b[2m{status}\x1b[0m" if status else ""))
            self.out.flush()

    def start(self) -> None:
        """Redraw the status line a few times a second (the elapsed time moves even when output does not)."""

        async def tick() -> None:
            while True:
                await asyncio.sleep(0.25)
                self._frame += 1
                self._emit()

        self._ticker = asyncio.get_running_loop().create_task(tick())

    def command_started(self, planned: PlannedCommand, index: int, total: int) -> None:
        self._current = planned
        self._step = f"[{index}/{total}] " if total else ""
        self._started = time.monotonic()
        self._ready_status = ""
        self._emit(f"\x1b[1m▶ {planned.phase}: {safe(planned.command)}\x1b[0m\n")

    def output(self, phase: str, stream: str, text: str) -> None:
        lines = self.lines.feed(phase, stream, text)
        if lines:
            self._emit("".join(line + "\n" for line in lines))

    def command_finished(self, run: CommandRun) -> None:
        rest = "".join(line + "\n" for line in self.lines.drain(run.phase))
        colour = "32" if run.passed else "31"
        mark = "✓" if run.passed else "✗"
        self._current = None
        notes = "".join(f"! {safe(note)}\n" for note in run.notes)
        self._emit(rest + f"\x1b[{colour}m{mark} {run.phase}: {_outcome(run)}\x1b[0m\n" + notes)

    def readiness_status(self, url: str, status: str, attempt: int) -> None:
        self._ready_status = f"{safe(url)}: {safe(status)}"
        self._emit()

    def finished(self, result: VerifyResult) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        self._current = None
        self._emit()
