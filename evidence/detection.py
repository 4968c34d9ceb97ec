"""Work that reads the repository, off the event loop and bounded in time.

Facts detection and content snapshots read files a repository controls. Whatever such a file does to the reader — a
YAML alias bomb, a manifest nested ten thousand levels deep, a bug — the process that asked must stay responsive:
`freshpass run` must still start the user's command and still hear Ctrl-C, the language server must still answer.
So this work runs in a daemon thread (never one an executor joins at exit: a stuck read must not keep the process
alive), the event loop only waits for its result, and a caller can stop waiting after a deadline or when
interrupted; a failure becomes one readable reason, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from freshpass.facts.model import ProjectFacts

T = TypeVar("T")

DETECT_DEADLINE = 5.0  # seconds; detection takes milliseconds on a 100,000-file monorepo (docs/bench-facts.md)


class Unavailable(Exception):
    """The work failed or did not finish in time; the message says why in a few words."""


class Interrupted(Exception):
    """The caller's interrupt event was set while waiting."""


def in_thread(function: Callable[..., T], *args: object, name: str = "freshpass-reader") -> asyncio.Future[T]:
    """Run `function(*args)` in a new daemon thread; the returned future (of the running loop) gets its outcome."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def deliver(outcome: Callable[[], None]) -> None:
        def settle() -> None:
            if not future.done():
                outcome()

        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(settle)

    def work() -> None:
        try:
            result = function(*args)
        except BaseException as exc:
            error = exc
            deliver(lambda: future.set_exception(error))
        else:
            deliver(lambda: future.set_result(result))

    threading.Thread(target=work, name=name, daemon=True).start()
    return future


async def wait_bounded(
    future: asyncio.Future[T], *, deadline: float | None, interrupt: asyncio.Event | None = None, what: str
) -> T:
    """The future's result; `Unavailable` when it raised or took longer than `deadline` seconds, `Interrupted`
    when `interrupt` was set first. The work itself is never cancelled (a thread cannot be): it is abandoned."""
    waiting: set[asyncio.Future[object]] = {future}  # type: ignore[arg-type]  # asyncio.wait never cancels it
    stopper: asyncio.Task[bool] | None = None
    if interrupt is not None:
        stopper = asyncio.ensure_future(interrupt.wait())
        waiting.add(stopper)  # type: ignore[arg-type]
    try:
        await asyncio.wait(waiting, timeout=deadline, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if stopper is not None:
            stopper.cancel()
    if future.done():
        try:
            return future.result()
        except Exception as exc:
            raise Unavailable(f"{what} failed: {type(exc).__name__}: {_first_line(exc)}") from exc
    future.add_done_callback(_consume)  # abandoned: its outcome is nobody's
    if interrupt is not None and interrupt.is_set():
        raise Interrupted
    raise Unavailable(f"{what} took longer than {deadline:g} s")


def _consume(future: asyncio.Future[Any]) -> None:
    """An abandoned future's outcome is nobody's: retrieve it so asyncio does not log 'never retrieved'."""
    if not future.cancelled():
        future.exception()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else "")[:200]


def detect_facts_kept(root: Path, *, cached: bool = True) -> ProjectFacts:
    """The facts of `root`, detected now (or, with `cached`, taken from an earlier process when none of their inputs
    changed), kept for the next process, with the shell hook's first words written for them."""
    from freshpass.evidence import facts_cache

    absolute = os.path.abspath(root)
    if cached:
        kept = facts_cache.load(absolute)
        if kept is not None:
            return kept  # the same inputs: the same facts, and the shell hook's words were written for them
    from freshpass.evidence.shell_hook import write_cache
    from freshpass.facts.detect import detect_facts
    from freshpass.facts.signals.base import DEFAULT_TIME_BUDGET

    started, began = time.time_ns(), time.monotonic()
    facts = detect_facts(root)
    write_cache(root, facts)  # the shell hook's first words follow the facts (a trusted folder only)
    if time.monotonic() - began < DEFAULT_TIME_BUDGET:  # detection that stopped at its budget is not kept
        facts_cache.store(facts, started)
    return facts


async def detect_bounded(
    root: Path,
    *,
    deadline: float | None = DETECT_DEADLINE,
    interrupt: asyncio.Event | None = None,
    cached: bool = True,
) -> ProjectFacts:
    """`detect_facts(root)` in a daemon thread; `Unavailable` (with the reason) if it fails or overruns. With
    `cached`, the facts an earlier process detected are taken when none of their inputs changed since
    (`freshpass.evidence.facts_cache`); either way, what is detected is kept for the next one."""
    return await wait_bounded(
        in_thread(lambda: detect_facts_kept(root, cached=cached), name="freshpass-facts"),
        deadline=deadline,
        interrupt=interrupt,
        what=f"reading the checks {root} declares",
    )
