"""The server's JSON-RPC protocol: pygls's, except that every request is answered.

pygls structures each incoming message into lsprotocol's typed request before any handler sees it. When the params
do not fit the type (`textDocument/hover` whose `position` is a string, `codeLens` whose `textDocument` is a
number), pygls raises out of its reader loop, logs "Unable to deserialize message" and drops the request: the
client waits for an answer that never comes. Here the request is answered with JSON-RPC `InvalidParams` (-32602),
naming the method and what did not fit, and nothing else happens. Notifications that cannot be structured are still
dropped (JSON-RPC gives them no answer), with one line in the log.
"""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

_MAX_DETAIL = 3


class _Answered:
    """What a request that was answered while being structured becomes: nothing left to handle."""

    jsonrpc = "answered"


ANSWERED = _Answered()


def _detail(exc: BaseException) -> str:
    cause = exc.__cause__
    if cause is None:
        return ""
    try:
        from cattrs import transform_error

        found = [str(line) for line in transform_error(cause)]
    except Exception:
        found = [str(cause)]
    shown = "; ".join(found[:_MAX_DETAIL]) + ("; …" if len(found) > _MAX_DETAIL else "")
    return f" ({shown[:500]})" if shown else ""


class FreshpassProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            if not ("id" in data and isinstance(method, str) and "error" not in data and "result" not in data):
                logger.warning("freshpass: dropped a notification whose params do not fit %r", method)
                raise
            request_id = data["id"] if isinstance(data["id"], (int, str)) and not isinstance(data["id"], bool) else None
            message = f"{method}: the params do not match the protocol{_detail(exc)}"
            self._send_response(request_id, None, JsonRpcInvalidParams(message).to_response_error())  # type: ignore[arg-type]
            return ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is ANSWERED:
            return
        super().handle_message(message)
