"""`freshpass.runner.process.run_shell`: exit codes, timeouts, cancellation, cleanup, bounded output, decoding."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from freshpass.runner.process import EXIT_TIMEOUT, OutputTail, _pump, run_shell, shell_for_user


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in {"Z", "X"}


async def test_exit_codes_follow_the_shell(tmp_path: Path) -> None:
    assert (await run_shell("true", tmp_path)).exit_code == 0
    assert (await run_shell("exit 3", tmp_path)).exit_code == 3
    killed = await run_shell("kill -9 $$", tmp_path)
    assert killed.exit_code == 137
    assert not killed.aborted


async def test_output_is_streamed_with_stream_names(tmp_path: Path) -> None:
    chunks: list[tuple[str, str]] = []
    result = await run_shell("echo out; echo err >&2", tmp_path, on_output=lambda s, t: chunks.append((s, t)))
    assert ("stdout", "out\n") in chunks and ("stderr", "err\n") in chunks
    assert "out\n" in result.output.text() and "err\n" in result.output.text()


async def test_stdin_is_closed(tmp_path: Path) -> None:
    # `cat` would wait forever on an inherited terminal; with stdin closed it sees EOF at once.
    result = await run_shell("cat; echo done", tmp_path, timeout=30)
    assert result.exit_code == 0
    assert result.output.text() == "done\n"


async def test_timeout_returns_124_and_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    result = await run_shell(f"sleep 300 & echo $! > {pid_file}; wait", tmp_path, timeout=0.5, grace=1)
    assert result.exit_code == EXIT_TIMEOUT
    assert result.timed_out and result.aborted
    assert not _alive(int(pid_file.read_text()))


async def test_cancel_event_stops_the_run(tmp_path: Path) -> None:
    cancel = asyncio.Event()
    started = asyncio.Event()

    def on_output(stream: str, text: str) -> None:
        if "ready" in text:
            started.set()

    task = asyncio.create_task(run_shell("echo ready; sleep 300", tmp_path, cancel=cancel, on_output=on_output))
    await asyncio.wait_for(started.wait(), 30)
    cancel.set()
    result = await asyncio.wait_for(task, 30)
    assert result.cancelled and result.aborted
    assert result.exit_code == 143


async def test_caller_cancellation_still_tears_the_group_down(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    pgids: list[int] = []
    task = asyncio.create_task(
        run_shell(f"sleep 300 & echo $! > {pid_file}; wait", tmp_path, on_start=pgids.append, grace=1)
    )
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not _alive(int(pid_file.read_text()))


async def test_grandchildren_left_behind_are_torn_down(tmp_path: Path) -> None:
    # The command exits at once but leaves a background grandchild in its group: it must not outlive the run.
    result = await run_shell("sleep 300 > /dev/null 2>&1 & echo $!", tmp_path, grace=1)
    assert result.exit_code == 0
    assert not _alive(int(result.output.text().strip()))


async def test_term_ignoring_process_is_killed_after_the_grace(tmp_path: Path) -> None:
    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"
    pid_holder: list[int] = []
    result = await run_shell(
        f'{sys.executable} -c "{script}"', tmp_path, timeout=0.5, grace=0.3, on_start=pid_holder.append
    )
    assert result.exit_code == EXIT_TIMEOUT
    assert not _alive(pid_holder[0])


async def test_output_summary_is_bounded(tmp_path: Path) -> None:
    result = await run_shell(f"{sys.executable} -c \"print('x' * 2_000_000); print('the end')\"", tmp_path)
    output = result.output
    assert output.total_chars == 2_000_000 + 1 + len("the end\n")
    assert len(output.text()) < output.head_limit + output.tail_limit + 100
    assert output.omitted > 0
    assert output.text().endswith("the end\n")
    assert "characters omitted" in output.text()


def test_output_tail_keeps_head_and_tail() -> None:
    tail = OutputTail(head_limit=5, tail_limit=5)
    for piece in ("abc", "defgh", "ijklmnop"):
        tail.add(piece)
    assert tail.head == "abcde"
    assert tail.tail == "lmnop"
    assert tail.omitted == 6
    assert tail.text() == "abcde\n… [6 characters omitted] …\nlmnop"


async def test_utf8_split_across_chunks_is_not_mangled() -> None:
    reader = asyncio.StreamReader()
    euro = "€".encode()  # three bytes
    reader.feed_data(b"price: " + euro[:1])
    reader.feed_data(euro[1:2])
    reader.feed_data(euro[2:] + " ✓".encode()[:2])
    reader.feed_data(" ✓".encode()[2:] + b"\n")
    reader.feed_eof()
    tail = OutputTail()
    chunks: list[str] = []
    await _pump(reader, "stdout", tail, lambda stream, text: chunks.append(text), None)
    assert "".join(chunks) == "price: € ✓\n"
    assert "\ufffd" not in "".join(chunks)


async def test_utf8_from_a_real_process_survives_pipe_chunking(tmp_path: Path) -> None:
    # 200k three-byte characters cross many 64 KiB read boundaries, most of them mid-character.
    result = await run_shell(f"{sys.executable} -c \"import sys; sys.stdout.write('€' * 200_000)\"", tmp_path)
    text = result.output.head + result.output.tail
    assert "\ufffd" not in text
    assert result.output.total_chars == 200_000


async def test_truncated_utf8_at_eof_is_replaced_not_dropped() -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(b"ok \xe2\x82")
    reader.feed_eof()
    tail = OutputTail()
    await _pump(reader, "stdout", tail, None, None)
    assert tail.text().startswith("ok ")
    assert "\ufffd" in tail.text()


async def test_missing_shell_is_exit_127_with_a_reason(tmp_path: Path) -> None:
    result = await run_shell("true", tmp_path, shell="/nonexistent/bin/sh")
    assert result.exit_code == 127
    assert result.error is not None and "/nonexistent/bin/sh" in result.error


async def test_missing_cwd_is_exit_127_with_a_reason(tmp_path: Path) -> None:
    result = await run_shell("true", tmp_path / "missing")
    assert result.exit_code == 127
    assert result.error == f"cannot run in {tmp_path / 'missing'}: no such directory"
    assert result.output.text() == result.error


def test_shell_for_user_prefers_a_posix_shell() -> None:
    assert shell_for_user({"SHELL": "/usr/bin/fish"}) != "/usr/bin/fish"
    bash = "/bin/bash"
    if os.access(bash, os.X_OK):
        assert shell_for_user({"SHELL": bash}) == bash


async def test_a_background_child_holding_the_pipes_does_not_hold_the_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    result = await run_shell(f"sleep 300 & echo $! > {pid_file}; echo done", tmp_path, grace=1)
    assert result.exit_code == 0 and result.output.text() == "done\n"
    assert result.duration < 10  # the run ends with the shell, not with the child's minute of holding the pipes
    assert not _alive(int(pid_file.read_text()))
    assert not result.output_cut and not result.escaped


async def test_a_process_that_left_the_group_is_stopped_and_named(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    detach = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' > /dev/null 2>&1 &"
    result = await run_shell(f"{detach} while [ ! -s {pid_file} ]; do :; done", tmp_path, grace=1)
    pid = int(pid_file.read_text())
    assert not _alive(pid)
    assert result.escaped == [f"{pid} (sleep)"]
    assert "outside its process group" in result.notes()[0]


async def test_echo_writes_the_commands_bytes_unchanged(tmp_path: Path) -> None:
    import io

    out, err = io.BytesIO(), io.BytesIO()
    result = await run_shell("printf 'a\\377b\\342\\202'; printf '\\351' >&2", tmp_path, echo=True, echo_to=(out, err))
    assert out.getvalue() == b"a\xffb\xe2\x82" and err.getvalue() == b"\xe9"
    assert result.output.text().count("\ufffd") == 3  # the receipt's copy is text; the echo is not


async def test_stdin_fd_is_given_to_the_command(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"from the caller\n")
    os.close(write_end)
    try:
        result = await run_shell("cat", tmp_path, stdin_fd=read_end)
    finally:
        os.close(read_end)
    assert result.output.text() == "from the caller\n"
