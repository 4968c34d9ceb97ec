"""Every LSP request is answered: one whose params pygls cannot structure gets `InvalidParams`, not silence.

pygls drops a request whose params do not fit lsprotocol's type; a client that waits on it hangs. The server's
protocol (server/protocol.py) answers it with JSON-RPC -32602 naming the method, and keeps serving.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.adversarial.conftest import Session, project

BAD = [
    ("textDocument/codeLens", {"textDocument": 42}),
    ("textDocument/codeLens", {"textDocument": {}}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///x.py"}, "position": "top"}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///x.py"}, "position": {"line": "one", "character": 0}}),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///x.py"}, "range": None, "context": {}}),
    ("textDocument/codeAction", [1, 2, 3]),
    ("workspace/executeCommand", {"command": 7}),
]


async def raw_request(lsp: Session, method: str, params: Any) -> Any:
    """Send a request exactly as written, bypassing the client's own structuring (which would refuse it)."""
    protocol = lsp.client.protocol
    request_id = str(uuid.uuid4())
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    protocol._request_futures[request_id] = future
    protocol._send_data({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    return await future


@pytest.mark.parametrize(("method", "params"), BAD)
async def test_a_request_with_wrongly_typed_params_gets_invalid_params(
    lsp: Session, tmp_path: Path, method: str, params: Any
) -> None:
    root = project(tmp_path / "demo")
    await lsp.initialize(root)
    with pytest.raises(JsonRpcInvalidParams):
        await asyncio.wait_for(raw_request(lsp, method, params), 15)
    # still serving: a well-formed request after it is answered
    status = await asyncio.wait_for(lsp.status(root), 15)
    assert status["status"] in {"unverified", "passed", "failed", "stale"}
