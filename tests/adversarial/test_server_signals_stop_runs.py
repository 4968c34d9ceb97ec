"""SIGTERM or SIGHUP to the server during a verify left the command running.

The server now handles SIGTERM, SIGHUP and SIGINT like `shutdown` + `exit`: every running verify is cancelled and
its process group torn down (TERM, grace, KILL) before the process leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
from pathlib import Path

import pytest

from tests.adversarial.conftest import Session, _wait_for, project
from tests.conftest import live_group_members


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_signal_during_verify_tears_the_command_down(
    lsp: Session, tmp_path: Path, signum: signal.Signals
) -> None:
    root = project(tmp_path / "demo", declares="echo pgid $$; trap '' TERM; sleep 300 & sleep 300; wait")
    await lsp.initialize(root)
    running = asyncio.ensure_future(lsp.execute("freshpass.verify", {"kind": "test"}))
    printed = await lsp.until(
        lambda: re.search(r"pgid (\d+)\n", "".join(o["text"] for o in lsp.outputs)), method="freshpass/output"
    )
    pgid = int(printed.group(1))
    assert live_group_members(pgid)

    server = lsp.client._server
    assert server is not None
    lsp.initialized = False  # the server is about to leave on its own: no shutdown handshake afterwards
    server.send_signal(signum)
    code = await asyncio.wait_for(server.wait(), 30)
    assert code == 128 + signum
    # The shell ignores TERM: only the KILL after the grace period ends it. Nothing of the group may survive.
    assert _wait_for(lambda: not live_group_members(pgid), 5), live_group_members(pgid)
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await running
