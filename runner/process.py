"""Run one command line in its own process group and always tear that group down.

Used by `freshpass run`, `freshpass verify` and the language server, so that cancellation, timeouts and cleanup
behave the same everywhere: TERM to the whole group, a grace period, then KILL; leftover grandchildren of a
command that already exited are torn down too.

The run ends when the shell (the direct child) exits — not when its output pipes close. A background child
(`sleep 60 & …`) keeps the pipes open as long as it lives, and asyncio's `Process.wait()` waits for the pipes as
well as for the exit; so the pipes here are our own (`os.pipe`, read through `connect_read_pipe`), the exit is
awaited alone, the group is torn down at once, and what is left in the pipes is drained for at most
`DRAIN_TIMEOUT` seconds.

Processes that left the group (`setsid`, daemons) are found by a marker in their environment
(`FRESHPASS_RUN_MARKER`, Linux `/proc`) and torn down too; the result names them (`escaped`) so callers can say so.

Output is kept as bytes until it is shown: `echo` writes the command's bytes unchanged to our own stdout/stderr
(the tail kept for the receipt is decoded separately), so `freshpass run` is byte-transparent.
"""

from __future__ import annotations

import asyncio
import codecs
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
# After the command exited and its group was torn down, how long output still in the pipes is read. Only a process
# that escaped the group and could not be stopped keeps a pipe open that long.
DRAIN_TIMEOUT = 2.0
READ_SIZE = 65536
MARKER_ENV = "FRESHPASS_RUN_MARKER"  # set in every command's environment: how escaped processes are recognised


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
    escaped: list[str] = field(default_factory=list)  # "PID (name)" of processes that had left the group, stopped
    output_cut: bool = False  # the pipes were still held open after the drain: later output was not read

    @property
    def duration(self) -> float:
        return self.finished_at - self.started_at

    @property
    def aborted(self) -> bool:
        return self.timed_out or self.cancelled

    def notes(self) -> list[str]:
        """What a person should hear about the run's processes (one line each), besides its exit code."""
        notes = []
        if self.escaped:
            more = len(self.escaped) - 5
            names = ", ".join(self.escaped[:5]) + (f" and {more} more" if more > 0 else "")
            notes.append(
                f"the command left {len(self.escaped)} process(es) running outside its process group (setsid or a "
                f"daemon): {names}; they were stopped"
            )
        if self.output_cut:
            notes.append(
                "a process the command started still held its output open after it ended; output after that point "
                "was not read"
            )
        return notes


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
    # A group whose members are all zombies still answers kill(0): orphans are reaped by init, which may take its
    # time. Where /proc tells, only a member that is not a zombie keeps the group alive.
    live = _live_members(pgid)
    return True if live is None else live


def _live_members(pgid: int) -> bool | None:
    """Whether a process of group `pgid` is alive and not a zombie; None when /proc cannot tell."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] not in (b"Z", b"X"):
            return True
    return False


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
    echo: IO[bytes] | None,
) -> None:
    """Read one output stream to its end: its bytes go unchanged to `echo`, its text to the tail and `on_output`."""
    if stream is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # keeps a split character for the next chunk
    while True:
        chunk = await stream.read(READ_SIZE)
        if not chunk:
            break
        if echo is not None:
            try:
                echo.write(chunk)
                echo.flush()
            except (OSError, ValueError):
                echo = None  # our own stdout is gone (a closed pipe): keep reading, stop echoing
        text = decoder.decode(chunk)
        if text:
            _deliver(text, name, tail, on_output)
    rest = decoder.decode(b"", final=True)
    if rest:
        _deliver(rest, name, tail, on_output)


def _deliver(text: str, name: str, tail: OutputTail, on_output: OutputCallback | None) -> None:
    tail.add(text)
    if on_output is not None:
        on_output(name, text)


def binary_stream(stream: IO[str] | None) -> IO[bytes] | None:
    """The byte stream under a text stream (sys.stdout → sys.stdout.buffer), with the text layer flushed first."""
    if stream is None:
        return None
    with contextlib.suppress(OSError, ValueError):
        stream.flush()
    buffer: IO[bytes] | None = getattr(stream, "buffer", None)
    return buffer


def _start_failure(shell: str, cwd: str | os.PathLike[str], exc: OSError) -> str:
    """Why the shell could not start, naming the part a person can fix (the directory or the shell)."""
    if not os.path.isdir(cwd):
        return f"cannot run in {os.fspath(cwd)}: no such directory"
    return f"cannot start {shell}: {exc}"


async def _open_pipe(loop: asyncio.AbstractEventLoop, fd: int) -> tuple[asyncio.StreamReader, asyncio.BaseTransport]:
    reader = asyncio.StreamReader(limit=4 * READ_SIZE, loop=loop)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", buffering=0)
    )
    return reader, transport


def _marked(marker: str) -> list[tuple[int, str]]:
    """(pid, name) of live processes whose environment carries our run marker (Linux; [] elsewhere)."""
    needle = f"{MARKER_ENV}={marker}".encode()
    found: list[tuple[int, str]] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    me = os.getpid()
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
            if needle not in environ.split(b"\0"):
                continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat_line = handle.read().decode("utf-8", "replace")
        except OSError:
            continue  # gone, or not ours to read
        name, _, rest = stat_line.partition("(")[2].rpartition(")")
        state = rest.split()[0] if rest.split() else ""
        if state not in {"Z", "X"}:
            found.append((int(entry), name))
    return found


async def _stop_escaped(marker: str, grace: float) -> list[str]:
    """Tear down processes that left the command's group but carry its marker: TERM, grace, KILL."""
    escaped = await asyncio.to_thread(_marked, marker)
    if not escaped:
        return []
    for pid, _ in escaped:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
            os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + grace
    delay = 0.01
    left = escaped
    while left and time.monotonic() < deadline:
        await asyncio.sleep(delay)  # polling the kernel: no event tells us unrelated processes are gone
        delay = min(delay * 2, 0.1)
        left = await asyncio.to_thread(_marked, marker)
    for pid, _ in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return [f"{pid} ({name})" for pid, name in escaped]


async def run_shell(
    line: str,
    cwd: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    on_output: OutputCallback | None = None,
    echo: bool = False,
    echo_to: tuple[IO[bytes] | None, IO[bytes] | None] | None = None,
    timeout: float | None = None,
    cancel: asyncio.Event | None = None,
    inherit_stdin: bool = False,
    stdin_fd: int | None = None,
    grace: float = DEFAULT_GRACE,
    drain: float = DRAIN_TIMEOUT,
    shell: str | None = None,
    on_start: Callable[[int], None] | None = None,
) -> ProcessResult:
    """Run `line` through the user's shell in a new process group.

    Output is streamed to `on_output` (decoded) and, when `echo`, as raw bytes to our own stdout/stderr (or to the
    byte streams of `echo_to`, `(for stdout, for stderr)`); it is bounded in the result. Stdin is closed unless
    `inherit_stdin` (ours) or `stdin_fd` (that descriptor) says otherwise. The group is torn down when the shell
    exits, times out, or `cancel` is set; the result's exit code follows the shell's conventions (124 timeout,
    128+N for signal N).
    """
    started = time.time()
    shell = shell or shell_for_user(env)
    marker = os.urandom(16).hex()  # as random as uuid4, without importing uuid (and platform) per command
    full_env = {**(os.environ if env is None else env), MARKER_ENV: marker}
    kwargs: dict[str, Any] = {}
    if sys.version_info >= (3, 11):
        kwargs["process_group"] = 0
    else:  # pragma: no cover - 3.10 only
        kwargs["preexec_fn"] = os.setpgrp
    if echo and echo_to is None:
        echo_to = (binary_stream(sys.stdout), binary_stream(sys.stderr))
    sinks = echo_to if echo_to is not None else (None, None)
    stdin: Any = stdin_fd if stdin_fd is not None else None if inherit_stdin else asyncio.subprocess.DEVNULL
    loop = asyncio.get_running_loop()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        # Our own pipes: the transport then has none, and `wait()` returns when the shell exits.
        proc = await asyncio.create_subprocess_exec(
            shell,
            "-c",
            line,
            cwd=os.fspath(cwd),
            env=full_env,
            stdin=stdin,
            stdout=out_write,
            stderr=err_write,
            **kwargs,
        )
    except OSError as exc:
        for fd in (out_read, err_read):
            os.close(fd)
        now = time.time()
        result = ProcessResult(
            exit_code=127, started_at=started, finished_at=now, error=_start_failure(shell, cwd, exc)
        )
        result.output.add(result.error or "")
        return result
    finally:
        for fd in (out_write, err_write):
            os.close(fd)

    pgid = proc.pid
    tail = OutputTail()
    transports: list[asyncio.BaseTransport] = []
    pumps: list[asyncio.Task[None]] = []
    waiter = asyncio.create_task(proc.wait())
    watchers: list[asyncio.Task[Any]] = [waiter]
    cancel_task: asyncio.Task[Any] | None = None
    timed_out = cancelled = output_cut = False
    escaped: list[str] = []
    unopened = [out_read, err_read]
    try:
        for fd, name, sink in ((out_read, "stdout", sinks[0]), (err_read, "stderr", sinks[1])):
            reader, transport = await _open_pipe(loop, fd)
            unopened.remove(fd)
            transports.append(transport)
            pumps.append(asyncio.create_task(_pump(reader, name, tail, on_output, sink)))
        if on_start is not None:
            on_start(pgid)
        if cancel is not None:
            cancel_task = asyncio.create_task(cancel.wait())
            watchers.append(cancel_task)
        done, _ = await asyncio.wait(watchers, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            if cancel_task is not None and cancel_task in done:
                cancelled = True
            else:
                timed_out = True
            await terminate_group(pgid, grace)
            await waiter
    except BaseException:
        # Our caller was cancelled (e.g. the server is shutting down), or a callback failed: never leave the group
        # running.
        for fd in unopened:
            os.close(fd)
        await asyncio.shield(_teardown(pgid, marker, grace, pumps, transports, drain))
        raise
    finally:
        if cancel_task is not None:
            cancel_task.cancel()
    # The shell is done; what it left behind — in its group or escaped from it — is not ours to keep.
    escaped, output_cut = await _teardown(pgid, marker, grace, pumps, transports, drain)

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
        escaped=escaped,
        output_cut=output_cut,
    )


async def _teardown(
    pgid: int,
    marker: str,
    grace: float,
    pumps: list[asyncio.Task[None]],
    transports: list[asyncio.BaseTransport],
    drain: float,
) -> tuple[list[str], bool]:
    """Tear the group down, then what escaped it, then read what is left in the pipes for at most `drain` s.
    Returns (escaped processes, whether the pipes were still open after the drain)."""
    await terminate_group(pgid, grace)
    escaped = await _stop_escaped(marker, grace)
    done, pending = await asyncio.wait(pumps, timeout=drain) if pumps else (set(), set())
    for task in pending:
        task.cancel()
    for transport in transports:
        transport.close()
    if pending:
        await asyncio.wait(pending)
    for task in done:  # an output callback that failed is the caller's bug, not a reason to leave processes
        if not task.cancelled():
            task.exception()
    return escaped, bool(pending)
