"""Run one command line in its own process group and always tear that group down.

Used by `freshpass run`, `freshpass verify` and the language server, so that cancellation, timeouts and cleanup
behave the same everywhere: TERM to the whole group, a grace period, then KILL; leftover grandchildren of a
command that already exited are torn down too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

OutputCallback = Callable[[str, str], None]  # (stream name "stdout"|"stderr", decoded text chunk)

EXIT_TIMEOUT = 124  # what coreutils `timeout` returns; design §3.7 treats it as aborted
DEFAULT_GRACE = 3.0


@dataclass
class OutputTail:
    """Bounded record of a run's output: the head and the tail are kept, the middle is counted."""

    head_limit: int = 4_000
    tail_limit: int = 16_000
    head: str = ""
    tail: str = ""
    total_chars: int = 0

    def add(self, text: str) -> None:
        self.total_chars += len(text)
        if len(self.head) < self.head_limit:
            room = self.head_limit - len(self.head)
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail = (self.tail + text)[-self.tail_limit :]

    @property
    def omitted(self) -> int:
        return max(0, self.total_chars - len(self.head) - len(self.tail))

    def text(self) -> str:
        if self.omitted:
            return f"{self.head}\n… [{self.omitted} characters omitted] …\n{self.tail}"
        return self.head + self.tail


@dataclass
class ProcessResult:
    exit_code: int  # shell convention: 128+N when killed by signal N, 124 on timeout
    started_at: float  # epoch seconds
    finished_at: float
    output: OutputTail = field(default_factory=OutputTail)
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None  # the command could not be started at all

    @property
    def duration(self) -> float:
        return self.finished_at - self.started_at

    @property
    def aborted(self) -> bool:
        return self.timed_out or self.cancelled


def shell_for_user(env: Mapping[str, str] | None = None) -> str:
    """The shell that runs command lines 'exactly as the user's shell would'.

    $SHELL when it is a POSIX-style shell, else bash, else /bin/sh (dash lacks `set -o pipefail` on old Debian).
    """
    env = os.environ if env is None else env
    user_shell = env.get("SHELL", "")
    if user_shell and Path(user_shell).name in {"bash", "zsh", "sh", "dash", "ksh"} and os.access(user_shell, os.X_OK):
        return user_shell
    return shutil.which("bash") or "/bin/sh"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def terminate_group(pgid: int, grace: float = DEFAULT_GRACE) -> None:
    """TERM the whole group, wait up to `grace` seconds, then KILL whatever is left."""
    if not _group_alive(pgid):
        return
    _signal_group(pgid, signal.SIGTERM)
    _signal_group(pgid, signal.SIGCONT)  # stopped members must wake up to handle TERM
    deadline = time.monotonic() + grace
    delay = 0.01
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return
        await asyncio.sleep(delay)  # polling the kernel: no event tells us a whole group is gone
        delay = min(delay * 2, 0.1)
    _signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while _group_alive(pgid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


def _exit_code(returncode: int | None) -> int:
    if returncode is None:
        return 1
    if returncode < 0:  # killed by a signal: report it the way a shell does
        return 128 - returncode
    return returncode


async def _pump(
    stream: asyncio.StreamReader | None,
    name: str,
    tail: OutputTail,
    on_output: OutputCallback | None,
    echo: IO[str] | None,
) -> None:
    if stream is None:
        return
    decoder_buffer = b""
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            break
        data = decoder_buffer + chunk
        # Keep an incomplete UTF-8 sequence for the next chunk instead of mangling it.
        cut = len(data)
        for back in range(1, min(4, len(data)) + 1):
            byte = data[-back]
            if byte & 0xC0 == 0x80:
                continue
            if byte & 0x80:
                needed = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4
                if back < needed:
                    cut = len(data) - back
            break
        decoder_buffer = data[cut:]
        text = data[:cut].decode("utf-8", errors="replace")
        if text:
            _deliver(text, name, tail, on_output, echo)
    if decoder_buffer:
        _deliver(decoder_buffer.decode("utf-8", errors="replace"), name, tail, on_output, echo)


def _deliver(text: str, name: str, tail: OutputTail, on_output: OutputCallback | None, echo: IO[str] | None) -> None:
    tail.add(text)
    if echo is not None:
        with contextlib.suppress(OSError, ValueError):
            echo.write(text)
            echo.flush()
    if on_output is not None:
        on_output(name, text)


def _start_failure(shell: str, cwd: str | os.PathLike[str], exc: OSError) -> str:
    """Why the shell could not start, naming the part a person can fix (the directory or the shell)."""
    if not os.path.isdir(cwd):
        return f"cannot run in {os.fspath(cwd)}: no such directory"
    return f"cannot start {shell}: {exc}"


async def run_shell(
    line: str,
    cwd: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    on_output: OutputCallback | None = None,
    echo: bool = False,
    timeout: float | None = None,
    cancel: asyncio.Event | None = None,
    inherit_stdin: bool = False,
    grace: float = DEFAULT_GRACE,
    shell: str | None = None,
    on_start: Callable[[int], None] | None = None,
) -> ProcessResult:
    """Run `line` through the user's shell in a new process group.

    Output is streamed to `on_output` (and to our own stdout/stderr when `echo`), bounded in the result. The
    group is torn down when the command ends, times out, or `cancel` is set; the result's exit code follows the
    shell's conventions (124 timeout, 128+N for signal N).
    """
    started = time.time()
    shell = shell or shell_for_user(env)
    full_env = dict(os.environ if env is None else env)
    kwargs: dict[str, Any] = {}
    if sys.version_info >= (3, 11):
        kwargs["process_group"] = 0
    else:  # pragma: no cover - 3.10 only
        kwargs["preexec_fn"] = os.setpgrp
    try:
        proc = await asyncio.create_subprocess_exec(
            shell,
            "-c",
            line,
            cwd=os.fspath(cwd),
            env=full_env,
            stdin=None if inherit_stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            **kwargs,
        )
    except OSError as exc:
        now = time.time()
        result = ProcessResult(
            exit_code=127, started_at=started, finished_at=now, error=_start_failure(shell, cwd, exc)
        )
        result.output.add(result.error or "")
        return result

    pgid = proc.pid
    if on_start is not None:
        on_start(pgid)
    tail = OutputTail()
    pumps = [
        asyncio.create_task(_pump(proc.stdout, "stdout", tail, on_output, sys.stdout if echo else None)),
        asyncio.create_task(_pump(proc.stderr, "stderr", tail, on_output, sys.stderr if echo else None)),
    ]
    waiter = asyncio.create_task(proc.wait())
    watchers: list[asyncio.Task[Any]] = [waiter]
    cancel_task: asyncio.Task[Any] | None = None
    if cancel is not None:
        cancel_task = asyncio.create_task(cancel.wait())
        watchers.append(cancel_task)

    timed_out = cancelled = False
    try:
        done, _ = await asyncio.wait(watchers, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            if cancel_task is not None and cancel_task in done:
                cancelled = True
            else:
                timed_out = True
            await terminate_group(pgid, grace)
            await waiter
    except asyncio.CancelledError:
        # Our caller was cancelled (e.g. the server is shutting down): never leave the group running.
        await asyncio.shield(terminate_group(pgid, grace))
        raise
    finally:
        if cancel_task is not None:
            cancel_task.cancel()
        # The command itself is done; grandchildren it left behind in its group are not ours to keep.
        await terminate_group(pgid, grace)
        # A daemon that escaped the group may still hold our pipes open: stop reading after a short drain.
        _, pending = await asyncio.wait(pumps, timeout=2.0)
        for task in pending:
            task.cancel()

    code = _exit_code(proc.returncode)
    if timed_out:
        code = EXIT_TIMEOUT
    elif cancelled and code == 0:
        code = 128 + signal.SIGTERM
    return ProcessResult(
        exit_code=code,
        started_at=started,
        finished_at=time.time(),
        output=tail,
        timed_out=timed_out,
        cancelled=cancelled,
    )
