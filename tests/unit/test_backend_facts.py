"""The server's facts detection: off the event loop, bounded, one at a time per root, late results delivered."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from freshpass.facts.model import ProjectFacts
from freshpass.server import backend as backend_module
from freshpass.server.backend import Backend


async def test_slow_detection_is_waited_for_briefly_then_delivered_late(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    calls: list[Path] = []

    def slow_detection(root: Path) -> ProjectFacts:
        calls.append(root)
        release.wait(30)
        return ProjectFacts(root=str(root), ignore=["late/"])

    monkeypatch.setattr(backend_module, "load_facts", slow_detection)
    monkeypatch.setattr(backend_module, "DETECT_WAIT", 0.05)
    logged: list[Any] = []
    backend = Backend(lambda level, message: logged.append(message))
    delivered: asyncio.Queue[ProjectFacts] = asyncio.Queue()
    backend.on_late_facts = lambda root, facts: delivered.put_nowait(facts)

    assert await backend.facts(tmp_path) is None  # gave up waiting: the caller goes on without
    assert await backend.facts(tmp_path) is None  # still running: no second detection is started
    assert len(calls) == 1
    assert any("took longer than" in message for message in logged)
    release.set()
    late = await asyncio.wait_for(delivered.get(), 10)
    assert late.ignore == ["late/"]
    assert (await backend.facts(tmp_path)) is not None  # the next detection starts afresh and is quick now
    assert len(calls) == 2


async def test_a_detection_that_raises_gives_empty_facts_and_a_log_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(root: Path) -> ProjectFacts:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    monkeypatch.setattr(backend_module, "load_facts", broken)
    logged: list[Any] = []
    backend = Backend(lambda level, message: logged.append(message))
    facts = await backend.facts(tmp_path)
    assert facts is not None and facts.verify_commands == []
    assert any("RecursionError" in message for message in logged)
