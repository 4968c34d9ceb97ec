"""Reading the repository off the event loop, bounded (freshpass.evidence.detection)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from freshpass.evidence.detection import Interrupted, Unavailable, detect_bounded, in_thread, wait_bounded


async def test_result_and_failure() -> None:
    assert await wait_bounded(in_thread(lambda: 42), deadline=5, what="answering") == 42

    def broken() -> None:
        raise RecursionError("maximum recursion depth exceeded")

    with pytest.raises(Unavailable, match="answering failed: RecursionError: maximum recursion depth"):
        await wait_bounded(in_thread(broken), deadline=5, what="answering")


async def test_deadline_abandons_the_thread_and_the_loop_keeps_running() -> None:
    release = threading.Event()
    future = in_thread(release.wait, 30)
    with pytest.raises(Unavailable, match=r"took longer than 0\.05 s"):
        await wait_bounded(future, deadline=0.05, what="waiting")
    release.set()
    assert await future is True  # the abandoned work still finishes on its own


async def test_interrupt_stops_waiting() -> None:
    release = threading.Event()
    interrupt = asyncio.Event()
    asyncio.get_running_loop().call_soon(interrupt.set)
    with pytest.raises(Interrupted):
        await wait_bounded(in_thread(release.wait, 30), deadline=None, interrupt=interrupt, what="waiting")
    release.set()


async def test_detect_bounded_reads_facts(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("test:\n\tpytest -q\n")
    facts = await detect_bounded(tmp_path)
    assert [command.command for command in facts.verify_commands] == ["make test"]
